/* test_cp: context parallelism (parallel.cp, issue 13 item 4) and TP communication overlap
 * (parallel.tp_comm_overlap, item 2) on a toy GPU a person can follow: memory-bound ops at exactly 1000 GB/s
 * (eff 1, no ramp, no launch cost, no host cost), fused attention at 50 TFLOP/s forward and 40 backward
 * (0.5 and 0.4 of 100), GEMMs at max_eff 0.5 with 128x128 tiles on 4 SMs, every intra-node collective and
 * point-to-point transfer 10 us + bytes * bus factor / 100 GB/s (send/recv: bus factor 1).
 * Model: one layer, h = 256, 4 heads (hd = 64, no GQA), GeLU f = 512, bf16 (e = 2), no vocabulary, one
 * micro-batch of one sequence. */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include "capture.h"
#include "check.h"
#include "oplist.h"
#include "scenario/scenario.h"
#include "sim/comm.h"
#include "sim/cp.h"
#include "sim/fit.h"
#include "sim/memory.h"
#include "sim/ops.h"
#include "sim/overlap.h"
#include "sim/predict.h"
#include "sim/recompute.h"

#define LINE "{lines: [{algo: ring, alpha_us: 10, step_us: 0, bus_gbps: 100}]}\n"
static const char *toy_hw =
	"schema: gpusim-hw/1\nname: toy\ngpu:\n  name: toy gpu\n  sm_count: 4\n  memory_bytes: 1e9\n"
	"  hbm_gbps: 1000\n  peak_tflops: {bf16: 100}\n  launch_us: 0\n"
	"  memory_bound: {eff: 1}\n  gemm:\n    model: {max_eff: 0.5, tile_m: 128, tile_n: 128, k_half: 0}\n"
	"  attention: {fwd_eff: 0.5, bwd_eff: 0.4}\n"
	"node: {gpus: 8, fabric: nvswitch, link_gbps: 100}\n"
	"network: {nics: 8, nic_gbps: 25, latency_us: 5, oversubscription: 1}\n"
	"collectives:\n  intra:\n"
	"    all_gather: " LINE "    reduce_scatter: " LINE "    all_reduce: " LINE "    send_recv: " LINE;

static int load(struct scenario *s, const char *par, int seq)
{
	char buf[1024];
	snprintf(buf, sizeof buf,
		 "name: t\nmodel: {layers: 1, hidden: 256, heads: 4, seq: %d, ffn: gelu, ffn_hidden: 512, dtype: bf16}\n"
		 "training: {global_batch: 1, micro_batch: 1}\nparallel: {%s}\nhardware: h100-dgx\n", seq, par);
	return scenario_load_string("t.yaml", buf, NULL, s);
}

/* What the compute stream waits for the side stream in a timed op list where each transfer is waited for
 * before the next is issued (true of every list here): each transfer overlaps the compute ops after it up to
 * its wait, so the wait is max(0, transfer - those ops). */
static double side_exposed(const struct opcost *o, int n)
{
	double exposed = 0, side = 0, beside = 0;
	for (int i = 0; i < n; i++) {
		if (ops_is_side(o[i].kind))
			side += o[i].s, beside = 0;
		else if (o[i].kind == OPK_COMPUTE)
			beside += o[i].s;
		else if (o[i].kind == OPK_SIDE_WAIT) {
			exposed += side > beside ? side - beside : 0;
			side = beside = 0;
		}
	}
	return exposed;
}

/* Time the side transfers of a list as sim/build.c does on one node (the toy's groups all fit in it). */
static void time_side(const struct hwmodel *hw, struct opcost *o, int n, int tp)
{
	for (int i = 0; i < n; i++) {
		int hops = o[i].hops > 0 ? o[i].hops : 1;
		if (o[i].kind == OPK_SIDE_TP_P2P || o[i].kind == OPK_SIDE_CP_P2P)
			o[i].s = hops * comm_p2p_s(hw, o[i].bytes / hops, 1);
		else if (o[i].kind == OPK_SIDE_TP_ALLGATHER)
			o[i].s = comm_coll_s(hw, COLL_ALL_GATHER, o[i].bytes, comm_shape(8, 0, 1, tp));
		else if (o[i].kind == OPK_SIDE_TP_REDUCESCATTER)
			o[i].s = comm_coll_s(hw, COLL_REDUCE_SCATTER, o[i].bytes, comm_shape(8, 0, 1, tp));
	}
}

/* Ring attention, cp = 2, seq 512 (a causal mask: each rank holds two chunks of 128 tokens, T = 256).
 * K+V of the rank: 256 tokens x 2 x 4 heads x 64 x 2 B = 262,144 B; a hop 10 us + 2.62144 us = 12.62144 us.
 * Step pairs per head: the diagonal 256^2/2 = 32,768, the off-diagonal half block 256 x 128 = 32,768 (even).
 * A forward block: 4 * 4 heads * 32,768 * 64 = 33,554,432 FLOP at 50 TFLOP/s = 0.67108864 us; together the two
 * blocks do 67,108,864 FLOP, half of the 134,217,728 of causal attention over 512 tokens. Backward blocks 2.5x
 * the FLOP at 40: 2.097152 us. The output correction reads and writes T x h x e = 131,072 B three times:
 * 0.393216 us; the backward accumulation 3 x (131,072 + 262,144) B = 1.179648 us. */
static void test_ring(const struct hwmodel *hw)
{
	struct scenario s1, s2;
	CHECK_INT(load(&s1, "gpus: 1", 512), 0);
	CHECK_INT(load(&s2, "gpus: 2, cp: 2", 512), 0);
	CHECK_INT(s2.par.dp, 1);
	CHECK_NEAR(scenario_rank_tokens(&s2), 256, 0);
	CHECK_INT(scenario_grad_ranks(&s2), 2);
	CHECK_NEAR(cp_kv_bytes(&s2), 262144, 0);
	/* with FP8 attention the ring carries the FP8 K and V: half the bf16 bytes */
	struct scenario f8 = s2;
	f8.train.fp8.recipe = FP8_DELAYED;
	f8.train.fp8.attention = true;
	CHECK_NEAR(cp_kv_bytes(&f8), 131072, 0);
	CHECK_NEAR(comm_p2p_s(hw, 262144, 1), 12.62144e-6, 1e-12);
	struct opcost f[OPS_MAX], b[OPS_MAX];
	struct opctx c = { hw, &s2, 1, 256, 0 };
	int nf = ops_layer_fwd(&c, f), nb = ops_layer_bwd(&c, 0, b);
	CHECK(op(f, nf, "attention") == NULL);
	CHECK_INT(op_count(f, nf, "cp_attention"), 2);
	CHECK_INT(op_count(f, nf, "cp_kv_send"), 1);  /* cp - 1 hops forward */
	CHECK_INT(op_count(f, nf, "cp_out_correction"), 1);
	CHECK_NEAR(op(f, nf, "cp_attention")->s, 0.67108864e-6, 1e-12);
	CHECK_NEAR(op(f, nf, "cp_out_correction")->s, 0.393216e-6, 1e-12);
	CHECK_NEAR(op(f, nf, "cp_kv_send")->bytes, 262144, 0);
	/* backward: the first hop K/V, the last dK/dV home (the middle hops of a longer ring carry both) */
	CHECK_INT(op_count(b, nb, "cp_attention_bwd"), 2);
	CHECK_NEAR(op(b, nb, "cp_kv_send_bwd")->bytes, 262144, 0);
	CHECK_NEAR(op(b, nb, "cp_dkv_send")->bytes, 262144, 0);
	CHECK_NEAR(op(b, nb, "cp_attention_bwd")->s, 2.097152e-6, 1e-12);
	CHECK_NEAR(op(b, nb, "cp_grad_accumulate")->s, 1.179648e-6, 1e-12);
	/* the linear layers run on the rank's 256 tokens: fc1 256 x 512 x 256 GEMM, half of cp = 1's 512 rows */
	struct opcost g[OPS_MAX];
	struct opctx c1 = { hw, &s1, 1, 512, 0 };
	int ng = ops_layer_fwd(&c1, g);
	CHECK_NEAR(op(g, ng, "fc1")->s / op(f, nf, "fc1")->s, 2, 1e-9);

	/* the step: the compute stream waits for each hop beyond the compute beside it. Forward: hop 12.62144 us
	 * beside block 0 (0.67108864): 11.95035136 us. Backward, twice: the hop beside a block and its accumulation
	 * (2.097152 + 1.179648 = 3.2768 us): 9.34464 us each. 30.63963136 us in all */
	struct result r;
	CHECK_INT(predict_run(&s2, hw, NULL, &r), 0);
	/* (the engine's times are whole ticks: each of the waits' instructions rounded by half a tick at most) */
	CHECK_TICKS(r.breakdown_s.tp_comm_exposed, 30.63963136e-6, 64);
	time_side(hw, f, nf, 1);
	time_side(hw, b, nb, 1);
	CHECK_NEAR(side_exposed(f, nf) + side_exposed(b, nb), 30.63963136e-6, 1e-9);
	/* the gradients are all-reduced over dp*cp = 2 ranks though dp is 1: the DP stream works */
	struct result r1;
	CHECK_INT(predict_run(&s1, hw, NULL, &r1), 0);
	CHECK(r.breakdown_s.dp_comm_exposed > 0);
	CHECK_NEAR(r1.breakdown_s.dp_comm_exposed, 0, 0);

	/* memory: every saved tensor holds 256 tokens instead of 512 (flash attention: all linear in T), plus the
	 * ring's second softmax statistics, (cp-1) x 256 x 4 heads x 4 B = 4,096 B */
	CHECK_NEAR(mem_layer_full_act_bytes(&s2, 1), mem_layer_full_act_bytes(&s1, 1) / 2 + 4096, 1e-12);
	/* what torchtitan's per-op recompute keeps is linear in the rank's tokens too: half */
	CHECK_NEAR(recompute_op_saved_bytes(&s2, 1), recompute_op_saved_bytes(&s1, 1) / 2, 1e-12);
	/* the ring buffers while attention runs: K/V and dK/dV, two of each: 4 x 262,144 B */
	CHECK_NEAR(cp_transient_bytes(&s2), 1048576, 0);
	CHECK_NEAR(r.mem.activations, mem_layer_full_act_bytes(&s2, 1) + 1048576 + mem_stage_extra_bytes(&s2, 1, 0, 1, 1),
		   1e-12);
	/* ZeRO-1 shards the optimizer over the dp*cp = 2 ranks: 4h^2 + 2hf + 2h = 524,800 parameters x 16 B (fp32
	 * master, fp32 master gradient, two fp32 moments) / 2 = 4,198,400 B */
	struct scenario z;
	CHECK_INT(load(&z, "gpus: 2, cp: 2, zero: 1", 512), 0);
	CHECK_INT(predict_run(&z, hw, NULL, &r), 0);
	CHECK_NEAR(r.mem.optimizer, 4198400, 1e-12);
}

/* cp_comm: all_gather: K/V gathered over the 2 CP ranks (nccl-tests size: the whole 524,288 B) before the two
 * chunks attend (each half the rank's pairs), again in backward, then dK/dV reduce-scattered; both blocking:
 * an all-gather of 2 is 10 us + 524,288 x 1/2 / 100 GB/s = 12.62144 us, the reduce-scatter alike. */
static void test_all_gather(const struct hwmodel *hw)
{
	struct scenario s;
	CHECK_INT(load(&s, "gpus: 2, cp: 2, cp_comm: all_gather", 512), 0);
	struct opcost f[OPS_MAX], b[OPS_MAX];
	struct opctx c = { hw, &s, 1, 256, 0 };
	int nf = ops_layer_fwd(&c, f), nb = ops_layer_bwd(&c, 0, b);
	const struct opcost *ag = op(f, nf, "cp_kv_allgather"), *rs = op(b, nb, "cp_dkv_reducescatter");
	CHECK(ag && ag->kind == OPK_CP_ALLGATHER && ag->bytes == 524288);
	CHECK(rs && rs->kind == OPK_CP_REDUCESCATTER && rs->bytes == 524288);
	CHECK(op(b, nb, "cp_kv_allgather_bwd") != NULL);
	CHECK_INT(op_count(f, nf, "cp_attention"), 2);
	CHECK_NEAR(op(f, nf, "cp_attention")->s, 0.67108864e-6, 1e-12);
	CHECK(!overlap_has_side(f, nf) && !overlap_has_side(b, nb));
	struct result r;
	CHECK_INT(predict_run(&s, hw, NULL, &r), 0);
	CHECK_TICKS(r.breakdown_s.tp_comm_exposed, 3 * 12.62144e-6, 64);
	/* the gathered K/V and dK/dV: 2 x cp x 262,144 B */
	CHECK_NEAR(cp_transient_bytes(&s), 1048576, 0);
}

/* TP overlap, tp = 2 with SP, seq 256 (T = 256 on both TP ranks, act = T x h x e = 131,072 B), k = 2 chunks.
 * Forward: the all-gather before QKV becomes one hop of the ring (act/2 = 65,536 B: 10 + 0.65536 us) beside the
 * first QKV chunk; QKV is 256 x 384 x 256 (h + 2 kv heads x 64 = 768 outputs / 2): 6 tiles on 4 SMs, k split
 * in 2 (12 units in 3 full waves; k_half 0 makes a slice free): eff 0.5, 50,331,648 FLOP / 50 TFLOP/s =
 * 1.00663296 us; a chunk (128 x 384 x 256, 3 tiles, k split in 4) as much at half the FLOPs, 0.50331648 us. After proj
 * the reduce-scatter: chunk 0, its hop to the owner beside chunk 1, then the sum of the two partial chunks
 * (3 x 65,536 B: 0.196608 us). */
static void test_tp_overlap(const struct hwmodel *hw)
{
	struct scenario sp, ov;
	CHECK_INT(load(&sp, "gpus: 2, tp: 2, sp: true", 256), 0);
	CHECK_INT(load(&ov, "gpus: 2, tp: 2, sp: true, tp_comm_overlap: true", 256), 0);
	struct opcost a[OPS_MAX], f[OPS_MAX], b[OPS_MAX];
	struct opctx c0 = { hw, &sp, 2, 256, 0 }, c = { hw, &ov, 2, 256, 0 };
	int na = ops_layer_fwd(&c0, a), nf = ops_layer_fwd(&c, f), nb = ops_layer_bwd(&c, 0, b);
	CHECK(op(a, na, "tp_allgather_attn") && !op(f, nf, "tp_allgather_attn"));
	CHECK(!op(f, nf, "tp_reducescatter_attn") && !op(f, nf, "tp_reducescatter_mlp"));
	const struct opcost *hop = op(f, nf, "tp_ag_p2p_attn");
	CHECK(hop && hop->kind == OPK_SIDE_TP_P2P && hop->bytes == 65536 && hop->hops == 1);
	CHECK_INT(op_count(f, nf, "qkv"), 2);
	CHECK_NEAR(op(a, na, "qkv")->s, 1.00663296e-6, 1e-12);
	CHECK_NEAR(op(f, nf, "qkv")->s, 0.50331648e-6, 1e-12);
	CHECK_INT(op_count(f, nf, "proj"), 2);
	CHECK_NEAR(op(f, nf, "tp_rs_sum_attn")->s, 0.196608e-6, 1e-12);
	CHECK(op(f, nf, "tp_ag_p2p_mlp") && op(f, nf, "tp_rs_p2p_mlp") && op(f, nf, "tp_rs_sum_mlp"));
	/* backward: ring exchange before proj's and fc2's dgrad; bulk around QKV and fc1: the input all-gather the
	 * weight gradient needs (not in plain SP's list) beside the dgrad, the dgrad output's reduce-scatter
	 * beside the wgrad; no blocking TP collective is left in the layer */
	CHECK(op(b, nb, "tp_ag_p2p_attn_bwd") && op(b, nb, "tp_ag_p2p_mlp_bwd"));
	const struct opcost *bag = op(b, nb, "tp_allgather_qkv_input"), *brs = op(b, nb, "tp_reducescatter_attn_bwd");
	CHECK(bag && bag->kind == OPK_SIDE_TP_ALLGATHER && bag->bytes == 131072);
	CHECK(brs && brs->kind == OPK_SIDE_TP_REDUCESCATTER && brs->bytes == 131072);
	CHECK(op(b, nb, "tp_allgather_fc1_input") && op(b, nb, "tp_reducescatter_mlp_bwd"));
	for (int i = 0; i < nf; i++)
		CHECK(f[i].kind == OPK_COMPUTE || ops_is_side(f[i].kind) || f[i].kind == OPK_SIDE_WAIT);
	for (int i = 0; i < nb; i++)
		CHECK(b[i].kind == OPK_COMPUTE || ops_is_side(b[i].kind) || b[i].kind == OPK_SIDE_WAIT);

	/* the step: the TP waits are what each transfer has left beyond the compute beside it; the first, the
	 * QKV hop: 10.65536 - 0.50331648 = 10.15204352 us */
	struct result r, r0;  /* (on this latency-bound toy the transfers hide little: 10 us each beside ~1 us GEMMs) */
	CHECK_INT(predict_run(&ov, hw, NULL, &r), 0);
	CHECK_INT(predict_run(&sp, hw, NULL, &r0), 0);
	time_side(hw, f, nf, 2);
	time_side(hw, b, nb, 2);
	CHECK_NEAR(op(f, nf, "tp_ag_p2p_attn")->s - op(f, nf, "qkv")->s, 10.15204352e-6, 1e-9);
	CHECK_TICKS(r.breakdown_s.tp_comm_exposed, side_exposed(f, nf) + side_exposed(b, nb), 64);
	/* memory: the userbuffers, ten T x h bf16 buffers: 10 x 131,072 B = 1,310,720 B */
	CHECK_NEAR(overlap_buffer_bytes(&ov), 1310720, 0);
	CHECK_NEAR(r.mem.activations - r0.mem.activations, 1310720, 1e-12);

	/* TP overlap needs SP */
	struct scenario bad;
	cap_begin();
	CHECK(load(&bad, "gpus: 2, tp: 2, tp_comm_overlap: true", 256) != 0);
	CHECK_CONTAINS(cap_end(), "parallel.tp_comm_overlap: Transformer Engine's userbuffers hide the all-gather and "
				  "reduce-scatter of sequence parallelism behind the GEMMs: it needs sp: true");
}

/* The SM-sharing slowdown (hardware overlap.compute_slowdown 0.5, comm_slowdown 0.2): a 10 us transfer beside
 * compute ops of 4 and 6 us overlaps all 10 us of them: they grow by 10 x 0.5 in proportion, to 6 and 9 us,
 * the transfer by 10 x 0.2 to 12 us. A second pass gives the same (the ops keep their time alone). */
static void test_slowdown(void)
{
	struct opcost o[4] = {
		{ "x", OPK_SIDE_TP_P2P, 10, 0, false, 0, 1, 0, false },
		{ "a", OPK_COMPUTE, 4, 0, true, 0, 0, 0, false },
		{ "b", OPK_COMPUTE, 6, 0, true, 0, 0, 0, false },
		{ "side_wait", OPK_SIDE_WAIT, 0, 0, false, 0, 0, 0, false },
	};
	overlap_slowdown(o, 4, 0.5, 0.2);
	CHECK_NEAR(o[1].s, 6, 1e-12);
	CHECK_NEAR(o[2].s, 9, 1e-12);
	CHECK_NEAR(o[0].s, 12, 1e-12);
	o[0].s = 10;  /* build.c times the transfer again for the next stage */
	overlap_slowdown(o, 4, 0.5, 0.2);
	CHECK_NEAR(o[1].s, 6, 1e-12);
	CHECK_NEAR(o[2].s, 9, 1e-12);
	CHECK_NEAR(o[0].s, 12, 1e-12);
	/* a 2 us transfer overlaps 2 of the 10 us: the ops grow by 2 x 0.5 = 1 us, 0.4 and 0.6 */
	o[0].s = 2;
	overlap_slowdown(o, 4, 0.5, 0.2);
	CHECK_NEAR(o[1].s, 4.4, 1e-12);
	CHECK_NEAR(o[2].s, 6.6, 1e-12);
	CHECK_NEAR(o[0].s, 2.4, 1e-12);
}

static int load_layout(struct scenario *s, const char *par, int seq)
{
	char buf[1024];
	snprintf(buf, sizeof buf,
		 "name: t\nmodel: {layers: 2, hidden: 256, heads: 4, seq: %d}\n"
		 "training: {global_batch: 8, micro_batch: 1}\nparallel: {%s}\nhardware: h100-dgx\n", seq, par);
	return scenario_load_string("t.yaml", buf, NULL, s);
}

static void test_layout_rules(void)
{
	struct scenario s;
	/* world = dp*tp*pp*cp */
	CHECK_INT(load_layout(&s, "gpus: 16, tp: 2, pp: 2, cp: 2", 512), 0);
	CHECK_INT(s.par.dp, 2);
	cap_begin();
	CHECK(load_layout(&s, "gpus: 12, tp: 2, pp: 2, cp: 2", 512) != 0);
	CHECK_CONTAINS(cap_end(), "parallel.gpus (12) is not a multiple of tp*pp*cp = 2*2*2 = 8");
	cap_begin();
	CHECK(load_layout(&s, "gpus: 16, dp: 1, tp: 2, pp: 2, cp: 2", 512) != 0);
	CHECK_CONTAINS(cap_end(), "parallel.gpus (16) must equal dp*tp*pp*cp = 1*2*2*2 = 8");
	/* a causal mask needs seq a multiple of 2*cp */
	cap_begin();
	CHECK(load_layout(&s, "gpus: 4, cp: 4", 500) != 0);
	CHECK_CONTAINS(cap_end(), "parallel.cp: model.seq (500) must be a multiple of 2*cp = 8");
	cap_begin();
	CHECK(load_layout(&s, "gpus: 1, cp_comm: all_gather", 512) != 0);
	CHECK_CONTAINS(cap_end(), "parallel.cp_comm: only with context parallelism (cp > 1, cp is 1)");
	char why[256];
	CHECK_INT(load_layout(&s, "gpus: 4, cp: 2, dp: 2", 512), 0);
	CHECK_INT(scenario_check_layout(&s, why, sizeof why), 0);
	s.par.dp = 1;
	CHECK(scenario_check_layout(&s, why, sizeof why) != 0);
	CHECK_CONTAINS(why, "gpus (4) is not dp*tp*pp*cp = 1*1*1*2");
}

/* A layout that does not fit is offered context parallelism at the same GPU count: dp 2 -> cp 2, dp 1, whose
 * ranks keep half of every sequence. The GPU's memory is set between the two layouts' totals (both from the
 * simulator), so that change fits and the unchanged layout does not. */
static void test_fit(struct hwmodel *hw)
{
	struct scenario s, c2;
	CHECK_INT(load_layout(&s, "gpus: 2, dp: 2", 512), 0);
	CHECK_INT(load_layout(&c2, "gpus: 2, cp: 2", 512), 0);
	struct result r, r2;
	CHECK_INT(predict_run(&s, hw, NULL, &r), 0);
	CHECK_INT(predict_run(&c2, hw, NULL, &r2), 0);
	CHECK(r2.mem.activations < r.mem.activations);
	double keep = hw->gpu.memory_bytes;
	hw->gpu.memory_bytes = 0.5 * (r.mem.total + r2.mem.total);
	struct fit_hint h[8];
	int n = fit_suggest(&s, hw, h, 8), found = 0;
	for (int i = 0; i < n; i++)
		if (strcmp(h[i].change, "parallel.cp: 2 (dp 1)") == 0) {
			found = 1;
			CHECK_NEAR(h[i].mem_total, r2.mem.total, 1e-12);
		}
	CHECK(found);
	/* the bound that spares simulations (fit.c) never changes what is shown: the two fastest of all candidates
	 * (32: every one simulated) are the two fit_suggest(2) gives */
	struct fit_hint every[32], two[2];
	int na = fit_suggest(&s, hw, every, 32), n2 = fit_suggest(&s, hw, two, 2);
	CHECK_INT(n2, na < 2 ? na : 2);
	for (int i = 0; i < n2 && i < 2; i++) {
		CHECK_STR(two[i].change, every[i].change);
		CHECK(two[i].step_time_s == every[i].step_time_s);
	}
	hw->gpu.memory_bytes = keep;
}

int main(void)
{
	int err = 0;
	struct hwmodel *hw = hwmodel_load_string("toy.yaml", toy_hw, &err);
	CHECK(hw != NULL);
	if (!hw)
		return check_result();
	test_ring(hw);
	test_all_gather(hw);
	test_tp_overlap(hw);
	test_slowdown();
	test_layout_rules();
	test_fit(hw);
	hwmodel_free(hw);
	return check_result();
}
