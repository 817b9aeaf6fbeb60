/* test_recompute: the recompute variants (issue 13 item 8): full recompute of only some layers (Megatron's
 * --recompute-num-layers with the block and uniform methods) and torchtitan's per-op selective checkpointing
 * (training.recompute: op), on the toy GPU of test_sp (memory-bound ops at 1000 GB/s, no launch or host cost).
 * Model: 4 layers, T = 128 tokens (micro-batch 1 x seq 128), h = 64, 4 heads (head dim 16), GeLU f = 256, bf16,
 * flash attention, no vocabulary, one GPU, 4 micro-batches. */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include "capture.h"
#include "check.h"
#include "toy_hw.h"
#include "scenario/scenario.h"
#include "sim/build.h"
#include "sim/memory.h"
#include "sim/ops.h"
#include "sim/predict.h"
#include "sim/recompute.h"


static int load(struct scenario *s, const char *train_extra)
{
	char buf[1024];
	snprintf(buf, sizeof buf,
		 "name: t\nmodel: {layers: 4, hidden: 64, heads: 4, seq: 128, ffn: gelu, ffn_hidden: 256, dtype: bf16, "
		 "dropout: 0.1}\n"
		 "training: {global_batch: 4, micro_batch: 1%s}\nparallel: {gpus: 1}\nhardware: h100-dgx\n", train_extra);
	return scenario_load_string("t.yaml", buf, NULL, s);
}

static double sum(const struct opcost *o, int n)
{
	double t = 0;
	for (int i = 0; i < n; i++)
		t += o[i].s;
	return t;
}

static double activations(const struct scenario *s, const struct hwmodel *hw)
{
	struct build b;
	CHECK_INT(build_programs(s, hw, 0, &b), 0);
	/* the saved tensors alone: less the stage's in-flight outputs and gradients (test_memory checks those) */
	double a = b.stages[0].activations - mem_stage_extra_bytes(s, 1, 0, b.pp, b.stages[0].peak_inflight);
	build_release(&b);
	return a;
}

/* What a layer keeps, by hand (sim/memory.c; model.dropout 0.1, so the masks count): MLP: fc1 input T*h*e =
 * 16,384, fc1 output and fc2 input T*f*e = 65,536 each, dropout mask T*h = 8,192: 155,648. Attention: QKV input 16,384, Q, K, V (T*(64 + 2*64)*e = 49,152),
 * proj input 16,384, mask 8,192, log-sum-exp T*heads*4 = 2,048: 92,160. Norms' inputs 2*T*h*e = 32,768. A layer:
 * 280,576 B; its input 16,384 B. One micro-batch is alive at a time (one stage), plus what the backward reruns. */
static void test_layers(const struct hwmodel *hw)
{
	struct scenario none, full, block, uni;
	CHECK_INT(load(&none, ""), 0);
	CHECK_INT(load(&full, ", recompute: full"), 0);
	CHECK_INT(load(&block, ", recompute: full, recompute_layers: 1, recompute_method: block"), 0);
	CHECK_INT(load(&uni, ", recompute: full, recompute_layers: 2"), 0);
	CHECK_NEAR(mem_layer_full_act_bytes(&none, 1), 280576, 0);
	/* none: 4 layers kept; full: 4 inputs + one layer rebuilt at a time */
	CHECK_NEAR(activations(&none, hw), 4 * 280576.0, 0);
	CHECK_NEAR(activations(&full, hw), 4 * 16384.0 + 280576, 0);
	/* block, 1 layer: layer 0 keeps its input, layers 1-3 everything; layer 0's rerun rebuilds one layer */
	CHECK_NEAR(activations(&block, hw), 16384 + 3 * 280576.0 + 280576, 0);
	/* uniform, groups of 2: the inputs of the 2 groups; a group's rerun rebuilds 2 layers */
	CHECK_NEAR(activations(&uni, hw), 2 * 16384 + 2 * 280576.0, 0);
	CHECK_INT(recompute_full_layers(&block, 4), 1);
	CHECK_INT(recompute_full_layers(&uni, 4), 4);
	/* time: each rerun layer adds its forward F to each of the 4 micro-batches' backward */
	struct opctx oc = { hw, &none, 1, 128, 0 };
	struct opcost f[OPS_MAX];
	double F = sum(f, ops_layer_fwd(&oc, f));
	struct result rn, rf, rb, ru;
	CHECK_INT(predict_run(&none, hw, NULL, &rn), 0);
	CHECK_INT(predict_run(&full, hw, NULL, &rf), 0);
	CHECK_INT(predict_run(&block, hw, NULL, &rb), 0);
	CHECK_INT(predict_run(&uni, hw, NULL, &ru), 0);
	CHECK_TICKS(rb.step_time_s - rn.step_time_s, 4 * 1 * F, 16);
	CHECK_TICKS(rf.step_time_s - rn.step_time_s, 4 * 4 * F, 16);
	CHECK_TICKS(ru.step_time_s - rn.step_time_s, 4 * 4 * F, 16);
}

/* Per-op checkpointing (torchtitan's op policy): of the matmuls in torchtitan's call order wq (saved), wk
 * (rerun), wv (saved), wo (rerun), w1 (saved), w2 (rerun, GeLU); the attention kernel's output saved; every
 * memory-bound op rerun. Kept per layer: input 16,384 + wq's output 16,384 + wv's (T*64*e) 16,384 + the
 * attention output 16,384 + its log-sum-exp 2,048 + w1's output T*f*e 65,536 = 133,120 B; the rerun rebuilds
 * the rest of the layer, 280,576 - 133,120 = 147,456 B. */
static void test_op(const struct hwmodel *hw)
{
	struct scenario s, none;
	CHECK_INT(load(&s, ", recompute: op"), 0);
	CHECK_INT(load(&none, ""), 0);
	CHECK_NEAR(recompute_op_saved_bytes(&s, 1), 133120, 0);
	CHECK_NEAR(mem_layer_act_bytes(&s, 1), 133120, 0);
	CHECK_NEAR(activations(&s, hw), 4 * 133120.0 + 147456, 0);
	struct opctx oc = { hw, &s, 1, 128, 0 };
	struct opcost f[OPS_MAX], r[OPS_MAX];
	int nf = ops_layer_fwd(&oc, f), nr = recompute_op_list(&oc, f, nf, r);
	double mem = 0, proj = 0, fc2 = 0;
	for (int i = 0; i < nf; i++) {
		if (!f[i].compute_bound)
			mem += f[i].s;
		if (strcmp(f[i].name, "proj") == 0)
			proj = f[i].s;
		if (strcmp(f[i].name, "fc2") == 0)
			fc2 = f[i].s;
	}
	double wk = ops_gemm_s(hw, DT_BF16, 128, 64, 64);  /* T x (kv_heads * head dim) x h */
	CHECK_NEAR(sum(r, nr), mem + wk + proj + fc2, 1e-12);
	for (int i = 0; i < nr; i++)
		CHECK(strcmp(r[i].name, "attention") != 0 && strcmp(r[i].name, "qkv") != 0 && strcmp(r[i].name, "fc1") != 0);
	struct result ro, rn;
	CHECK_INT(predict_run(&s, hw, NULL, &ro), 0);
	CHECK_INT(predict_run(&none, hw, NULL, &rn), 0);
	CHECK_TICKS(ro.step_time_s - rn.step_time_s, 4 * 4 * sum(r, nr), 16);
}

/* Activation offload of 3 of the 4 layers, one micro-batch: each copy moves a layer's 280,576 B at 10 GB/s,
 * C = 28.0576 us. Forward: layers 0-2 each start their copy out after their forward (f each); the copies queue on
 * the copy stream and end at f + 3C. Backward: layer 3's start (after 4f) starts layer 2's reload, which follows
 * the copies out: it ends at f + 4C; layer 2's backward waits for it and starts layer 1's reload (ends f + 5C),
 * layer 1's starts layer 0's (f + 6C); layer 0's backward (b) ends the step: f + 6C + b + the optimizer, against
 * 4f + 4b + the optimizer without offload. Memory: the layer left on the GPU (280,576 B) and two layers of copy
 * buffers: 841,728 B against 4 x 280,576 = 1,122,304 B. */
static void test_offload(const struct hwmodel *hw)
{
	struct scenario off, none;
	const char *fmt = "name: t\nmodel: {layers: 4, hidden: 64, heads: 4, seq: 128, ffn: gelu, ffn_hidden: 256, "
			  "dtype: bf16, dropout: 0.1}\ntraining: {global_batch: 1, micro_batch: 1%s}\nparallel: {gpus: 1}\n"
			  "hardware: h100-dgx\n";
	char a[512], b[512];
	snprintf(a, sizeof a, fmt, ", offload_layers: 3");
	snprintf(b, sizeof b, fmt, "");
	CHECK_INT(scenario_load_string("t.yaml", a, NULL, &off), 0);
	CHECK_INT(scenario_load_string("t.yaml", b, NULL, &none), 0);
	struct opctx oc = { hw, &none, 1, 128, 0 };
	struct opcost o[OPS_MAX];
	double f = sum(o, ops_layer_fwd(&oc, o)), bw = sum(o, ops_layer_bwd(&oc, 0, o)), C = 280576 / 10e9;
	CHECK(f < C && bw < C);  /* the copies set the pace */
	struct result ro, rn;
	CHECK_INT(predict_run(&off, hw, NULL, &ro), 0);
	CHECK_INT(predict_run(&none, hw, NULL, &rn), 0);
	CHECK_TICKS(ro.step_time_s - rn.step_time_s, (f + 6 * C + bw) - (4 * f + 4 * bw), 16);
	CHECK_NEAR(activations(&off, hw), 841728, 0);
	/* in host memory: the 3 offloaded layers of the one micro-batch alive */
	struct build bo;
	CHECK_INT(build_programs(&off, hw, 0, &bo), 0);
	CHECK_NEAR(bo.stages[0].host_bytes, 3 * 280576.0, 0);
	build_release(&bo);
	CHECK_NEAR(activations(&none, hw), 1122304, 0);
	/* a hardware model without the host link cannot time the copies */
	struct hwmodel *h2 = hwmodel_copy(hw);
	h2->node.host_gbps = 0;
	cap_begin();
	CHECK(predict_run(&off, h2, NULL, &ro) != 0);
	CHECK_CONTAINS(cap_end(), "training.offload_layers: hardware 'toy' gives no node.host_gbps");
	hwmodel_free(h2);
	cap_begin();
	snprintf(a, sizeof a, fmt, ", offload_layers: 4");
	CHECK(scenario_load_string("t.yaml", a, NULL, &off) != 0);
	CHECK_CONTAINS(cap_end(), "training.offload_layers (4) must be fewer than the layers of a model chunk (4)");
}

static void test_errors(void)
{
	struct scenario s;
	cap_begin();
	CHECK(load(&s, ", recompute_layers: 2") != 0);
	CHECK_CONTAINS(cap_end(), "training.recompute_layers: only with recompute: full (recompute is none)");
	cap_begin();
	CHECK(load(&s, ", recompute: full, recompute_method: block") != 0);
	CHECK_CONTAINS(cap_end(), "training.recompute_method: only with training.recompute_layers");
	cap_begin();
	CHECK(scenario_load_string("t.yaml", "name: t\nmodel: {type: mlp, layers: 2, hidden: 64}\n"
				   "training: {global_batch: 4, micro_batch: 1, recompute: op}\nhardware: h100-dgx\n", NULL,
				   &s) != 0);
	CHECK_CONTAINS(cap_end(), "training.recompute: op (per-op selective checkpointing) only for transformer models");
}

int main(void)
{
	struct hwmodel *hw = toy_load();
	if (!hw)
		return check_result();
	test_layers(hw);
	test_op(hw);
	test_offload(hw);
	test_errors();
	hwmodel_free(hw);
	return check_result();
}
