/* test_sp: sequence parallelism (parallel.sp, issue 13 item 1) and the distributed optimizer's overlapped
 * parameter gather (parallel.overlap_param_gather, item 3) on a toy GPU a person can follow: memory-bound ops at
 * exactly 1000 GB/s (eff 1, no ramp, no launch cost). SP model: T = 256 tokens (micro-batch 1 x seq 256),
 * h = 256, 4 heads, GeLU f = 512, bf16 (e = 2), tp = 2. */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include "capture.h"
#include "check.h"
#include "oplist.h"
#include "toy_hw.h"
#include "scenario/scenario.h"
#include "sim/memory.h"
#include "sim/ops.h"
#include "sim/comm.h"
#include "sim/predict.h"


static int load(struct scenario *s, bool sp)
{
	char buf[1024];
	snprintf(buf, sizeof buf,
		 "name: t\nmodel: {layers: 2, hidden: 256, heads: 4, seq: 256, ffn: gelu, ffn_hidden: 512, dtype: bf16, "
		 "vocab: 1000}\ntraining: {global_batch: 4, micro_batch: 1}\nparallel: {tp: 2, gpus: 2, sp: %s}\n"
		 "hardware: h100-dgx\n", sp ? "true" : "false");
	return scenario_load_string("t.yaml", buf, NULL, s);
}

/* The distributed optimizer (ZeRO-1 over dp 2) with and without overlap_param_gather, 2 layers of h = 256 on
 * 4096 tokens, a 1000-word vocabulary (untied embedding and head), bf16 parameters. A layer holds 12h^2 + 2h
 * (its two norms' weights) = 786,944 parameters. Without overlap the whole stage's parameters are all-gathered
 * after the optimizer: (2 * 786,944 + 2 * 1000 * 256) * 2 B = 4,171,776 B, blocking. With it, the gathers run
 * layer by layer from the step's start on the DP stream: the first (layer 0 and the embedding, (786,944 +
 * 256,000) * 2 = 2,085,888 B) is waited for by the first forward; the second (layer 1 and the head, the same
 * bytes) hides behind layer 0's forward (4096 tokens: its GEMMs alone take ~0.1 ms at 50 TFLOP/s, the gather
 * 10 us + 2.09 MB / 2 at 100 GB/s = 20 us). So the step is shorter by exactly the whole gather less the
 * first: G(4,171,776) - G(2,085,888) = 0.5 * 2,085,888 B / 100 GB/s = 10.43 us (the latencies cancel). */
static void test_param_gather(const struct hwmodel *hw)
{
	const char *fmt = "name: t\nmodel: {layers: 2, hidden: 256, heads: 4, seq: 4096, ffn: gelu, ffn_hidden: 1024, "
			  "dtype: bf16, vocab: 1000}\ntraining: {global_batch: 2, micro_batch: 1}\n"
			  "parallel: {dp: 2, zero: 1, dp_overlap: false%s}\nhardware: h100-dgx\n";
	char off_text[512], on_text[512];
	snprintf(off_text, sizeof off_text, fmt, "");
	snprintf(on_text, sizeof on_text, fmt, ", overlap_param_gather: true");
	struct scenario off, on;
	CHECK_INT(scenario_load_string("t.yaml", off_text, NULL, &off), 0);
	CHECK_INT(scenario_load_string("t.yaml", on_text, NULL, &on), 0);
	struct result r_off, r_on;
	CHECK_INT(predict_run(&off, hw, NULL, &r_off), 0);
	CHECK_INT(predict_run(&on, hw, NULL, &r_on), 0);
	struct group_shape dp2 = comm_shape(8, 0, 1, 2);
	double all = comm_coll_s(hw, COLL_ALL_GATHER, 4171776, dp2), first = comm_coll_s(hw, COLL_ALL_GATHER, 2085888, dp2);
	CHECK_NEAR(all, 10e-6 + 4171776 / 100e9 * 0.5, 1e-12);  /* ring all-gather of 2: (n-1)/n of the bytes */
	CHECK_TICKS(r_off.step_time_s - r_on.step_time_s, all - first, 16);
	CHECK_NEAR(all - first, 0.5 * 2085888 / 100e9, 1e-12);
	/* a gather of the distributed optimizer needs its ZeRO stage */
	cap_begin();
	CHECK(scenario_load_string("t.yaml", "name: t\nmodel: {layers: 2, hidden: 256, heads: 4, seq: 64}\n"
				   "training: {global_batch: 2, micro_batch: 1}\n"
				   "parallel: {dp: 2, overlap_param_gather: true}\nhardware: h100-dgx\n", NULL, &on) != 0);
	CHECK_CONTAINS(cap_end(), "parallel.overlap_param_gather: the parameter all-gather of the distributed optimizer "
				  "needs zero: 1 or 2 (zero is 0)");
}

int main(void)
{
	struct hwmodel *hw = toy_load();
	if (!hw)
		return check_result();
	struct scenario s0, s1;
	CHECK_INT(load(&s0, false), 0);
	CHECK_INT(load(&s1, true), 0);
	struct opcost a[OPS_MAX], b[OPS_MAX];
	struct opctx c0 = { hw, &s0, 2, 256, 0 }, c1 = { hw, &s1, 2, 256, 0 };

	/* forward: the attention block's all-reduce (T*h*e = 256*256*2 = 131072 B) becomes an all-gather before
	 * QKV and a reduce-scatter after proj, each of the same 131072 B (nccl-tests sizes: on a ring the pair
	 * moves what the all-reduce moves); the MLP block alike */
	int na = ops_layer_fwd(&c0, a), nb = ops_layer_fwd(&c1, b);
	CHECK(op(a, na, "tp_allreduce_attn") != NULL);
	CHECK(op(b, nb, "tp_allreduce_attn") == NULL);
	const struct opcost *ag = op(b, nb, "tp_allgather_attn"), *rs = op(b, nb, "tp_reducescatter_attn");
	CHECK(ag && rs && ag->kind == OPK_TP_ALLGATHER && rs->kind == OPK_TP_REDUCESCATTER);
	CHECK_NEAR(ag ? ag->bytes : 0, 131072, 0);
	CHECK_NEAR(rs ? rs->bytes : 0, 131072, 0);
	CHECK(op(b, nb, "tp_allgather_mlp") && op(b, nb, "tp_reducescatter_mlp"));
	/* the norm before QKV reads and writes T*h*e = 131072 B: 262144 B, 0.262144 us at 1000 GB/s; on T/tp =
	 * 128 rows with SP, half */
	CHECK_NEAR(op(a, na, "ln1")->s, 262144e-12, 1e-15);
	CHECK_NEAR(op(b, nb, "ln1")->s, 131072e-12, 1e-15);
	/* the residual adds read two and write one T x h tensor: 3 * 131072 B = 0.393 us, with SP 0.197 us */
	CHECK_NEAR(op(a, na, "residual1")->s, 393216e-12, 1e-15);
	CHECK_NEAR(op(b, nb, "residual1")->s, 196608e-12, 1e-15);
	/* backward: an all-gather opens each block (the gradient of the forward's reduce-scatter) and a
	 * reduce-scatter closes it (the gradient of the forward's all-gather) */
	na = ops_layer_bwd(&c0, 0, a);
	nb = ops_layer_bwd(&c1, 0, b);
	CHECK(op(a, na, "tp_allreduce_attn_bwd") && !op(b, nb, "tp_allreduce_attn_bwd"));
	CHECK(op(b, nb, "tp_allgather_attn_bwd") && op(b, nb, "tp_reducescatter_attn_bwd"));
	CHECK(op(b, nb, "tp_allgather_mlp_bwd") && op(b, nb, "tp_reducescatter_mlp_bwd"));

	/* activations per layer (Korthikanti et al. 2022, Table 2): what TP replicates, SP splits over tp = 2:
	 * the inputs of QKV and fc1 (T*h*e each) and the two norms' inputs (T*h*e each): 4*T*h*e = 4*131072 =
	 * 524288 B, of which SP keeps half, so the layer holds 262144 B less; with model.dropout also the two
	 * dropout masks (T*h bytes each): 655360 B, 327680 B less */
	CHECK_NEAR(mem_layer_full_act_bytes(&s0, 2) - mem_layer_full_act_bytes(&s1, 2), 262144, 1e-6);
	s0.model.dropout = s1.model.dropout = 0.1;
	CHECK_NEAR(mem_layer_full_act_bytes(&s0, 2) - mem_layer_full_act_bytes(&s1, 2), 327680, 1e-6);
	s0.model.dropout = s1.model.dropout = 0;
	/* full recompute keeps the layer's input: T*h*e = 131072 B, with SP its half */
	s0.train.recompute = s1.train.recompute = RECOMPUTE_FULL;
	CHECK_NEAR(mem_layer_act_bytes(&s0, 2), 131072, 0);
	CHECK_NEAR(mem_layer_act_bytes(&s1, 2), 65536, 0);

	/* SP needs tp > 1 */
	struct scenario s2;
	cap_begin();
	CHECK(scenario_load_string("t.yaml", "name: t\nmodel: {layers: 2, hidden: 256, heads: 4, seq: 256}\n"
				   "training: {global_batch: 4, micro_batch: 1}\nparallel: {gpus: 2, sp: true}\n"
				   "hardware: h100-dgx\n", NULL, &s2) != 0);
	CHECK_CONTAINS(cap_end(), "parallel.sp: sequence parallelism splits the TP region's ends over the TP group: "
				  "it needs tp > 1 (tp is 1)");
	test_param_gather(hw);
	hwmodel_free(hw);
	return check_result();
}
