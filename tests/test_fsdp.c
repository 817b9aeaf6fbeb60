/* test_fsdp: FSDP2 / HSDP and reshard-after-forward (issue 13 item 3): ZeRO-3 over a shard group smaller than DP
 * (parallel.shard_group: reduce-scatter in the group, all-reduce across its replicas, parameters gathered in the
 * group) and parallel.reshard_after_forward false (no backward all-gather, the parameters whole in memory), on
 * the toy GPU (tests/toy_hw.h: ring collectives of alpha 10 us + bytes at 100 GB/s bus bandwidth; an all-gather
 * or reduce-scatter of n ranks moves (n-1)/n of its bytes, an all-reduce 2(n-1)/n). Model: an MLP of 2 layers,
 * h = 64, f = 256 (32,768 parameters a layer, bf16 weights and gradients: 65,536 B a layer), one token a
 * micro-batch and one micro-batch, dp = 4: the compute is far shorter than any collective, so the step is the
 * DP stream's chain (derived in each case) plus the optimizer, to a few ticks of 2^-40 s (CHECK_TICKS). */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include "capture.h"
#include "check.h"
#include "toy_hw.h"
#include "scenario/scenario.h"
#include "sim/build.h"
#include "sim/ops.h"
#include "sim/predict.h"

static int load(struct scenario *s, const char *par_extra)
{
	char buf[1024];
	snprintf(buf, sizeof buf,
		 "name: t\nmodel: {type: mlp, layers: 2, hidden: 64, ffn: gelu, ffn_hidden: 256, dtype: bf16}\n"
		 "training: {global_batch: 4, micro_batch: 1}\nparallel: {dp: 4, zero: 3%s}\nhardware: h100-dgx\n",
		 par_extra);
	return scenario_load_string("t.yaml", buf, NULL, s);
}

static void run(const struct scenario *s, const struct hwmodel *hw, struct result *r)
{
	CHECK_INT(predict_run(s, hw, NULL, r), 0);
}

/* One layer's forward (bwd 0) or backward (1) compute time for one token. */
static double pass(const struct hwmodel *hw, const struct scenario *s, int bwd)
{
	struct opctx oc = { hw, s, 1, 1, 0 };
	struct opcost o[OPS_MAX];
	double t = 0;
	for (int i = 0, n = bwd ? ops_layer_bwd(&oc, 0, o) : ops_layer_fwd(&oc, o); i < n; i++)
		t += o[i].s;
	return t;
}

#define US 1e-6

/* DP stream, resharded after forward: the forward's gathers of layers 0 and 1, the backward's of 1 and 0, then
 * each layer's reduce-scatter once its backward is done: 4 gathers and 2 reduce-scatters in a row (the compute
 * between them, for one token, is shorter than any of them), then the optimizer over the shard.
 * FSDP over 4: A = R = 10 us + 65,536 B x 3/4 / 100 GB/s = 10.49152 us; step = 6 x 10.49152 = 62.94912 us + opt.
 * HSDP, shard group 2 (2 replicas): A = R = 10 + 65,536 x 1/2 / 1e11 = 10.32768 us, and after each reduce-scatter
 * the 32,768 B shard all-reduced across the 2 replicas, H = 10 + 32,768 x 1 / 1e11 = 10.32768 us:
 * 4A + 2R + 2H = 82.62144 us + opt. Memory per GPU: weights = own shard + the two layers in flight, 131,072 B /
 * 4 + 131,072 = 163,840 (full) or 131,072 / 2 + 131,072 = 196,608 (HSDP); gradients 32,768 or 65,536 B;
 * optimizer 16 B a parameter (fp32 master weights and gradients, Adam's two moments) over the shard: 262,144 or
 * 524,288 B. */
static void test_hsdp(const struct hwmodel *hw)
{
	struct scenario full, hsdp;
	CHECK_INT(load(&full, ""), 0);
	CHECK_INT(load(&hsdp, ", shard_group: 2"), 0);
	CHECK_INT(scenario_shard_group(&full), 4);
	CHECK_INT(scenario_shard_group(&hsdp), 2);
	struct opctx oc = { hw, &full, 1, 1, 0 };
	struct result rf, rh;
	run(&full, hw, &rf);
	run(&hsdp, hw, &rh);
	CHECK_TICKS(rf.step_time_s, 62.94912 * US + ops_optimizer_s(&oc, 65536.0 / 4), 16);
	CHECK_TICKS(rh.step_time_s, 82.62144 * US + ops_optimizer_s(&oc, 65536.0 / 2), 16);
	CHECK_NEAR(rf.mem.weights, 163840, 0);
	CHECK_NEAR(rh.mem.weights, 196608, 0);
	CHECK_NEAR(rf.mem.gradients, 32768, 0);
	CHECK_NEAR(rh.mem.gradients, 65536, 0);
	CHECK_NEAR(rf.mem.optimizer, 262144, 0);
	CHECK_NEAR(rh.mem.optimizer, 524288, 0);

	/* ZeRO-1 (the distributed optimizer): the model's 131,072 B of gradients are one bucket after the backward
	 * (2f + 2b), reduce-scattered, the optimizer runs on the shard, its parameters are all-gathered back.
	 * Over 4: 10 + 131,072 x 3/4 / 1e11 = 10.98304 us each way. HSDP over 2: 10 + 131,072 x 1/2 / 1e11 =
	 * 10.65536 us each way, and between them the 65,536 B shard all-reduced over the 2 replicas, 10.65536 us. */
	struct scenario z1, z1h;
	CHECK_INT(load(&z1, "") == 0 && (z1.par.zero = 1) == 1, 1);
	CHECK_INT(load(&z1h, ", shard_group: 2") == 0 && (z1h.par.zero = 1) == 1, 1);
	double fb = 2 * pass(hw, &z1, 0) + 2 * pass(hw, &z1, 1);
	run(&z1, hw, &rf);
	run(&z1h, hw, &rh);
	CHECK_TICKS(rf.step_time_s, fb + 2 * 10.98304 * US + ops_optimizer_s(&oc, 65536.0 / 4), 16);
	CHECK_TICKS(rh.step_time_s, fb + 3 * 10.65536 * US + ops_optimizer_s(&oc, 65536.0 / 2), 16);
}

/* reshard_after_forward false: the forward's two gathers (A each), then no gather in the backward: layer 1's
 * backward starts when layer 1's forward ends (2A + f) and its reduce-scatter when its backward ends (+ b), layer
 * 0's right after it: step = 2A + f + b + 2R + opt = 41.96608 us + f + b + opt. Memory: the stage's parameters
 * stay whole, 131,072 B, beside the own shard (32,768 B): 163,840 B (as the two layers in flight of the default,
 * for a model of two layers). */
static void test_keep(const struct hwmodel *hw)
{
	struct scenario keep;
	CHECK_INT(load(&keep, ", reshard_after_forward: false"), 0);
	CHECK(keep.par.keep_after_forward);
	struct opctx oc = { hw, &keep, 1, 1, 0 };
	double f = pass(hw, &keep, 0), b = pass(hw, &keep, 1);
	struct result r;
	run(&keep, hw, &r);
	CHECK_TICKS(r.step_time_s, 41.96608 * US + f + b + ops_optimizer_s(&oc, 65536.0 / 4), 16);
	CHECK_NEAR(r.mem.weights, 163840, 0);
	/* 4 layers: kept, all 4 (262,144 B) beside the shard (65,536 B); resharded, two in flight */
	struct scenario k4, r4;
	const char *fmt4 = "name: t\nmodel: {type: mlp, layers: 4, hidden: 64, ffn: gelu, ffn_hidden: 256, dtype: bf16}\n"
			   "training: {global_batch: 4, micro_batch: 1}\nparallel: {dp: 4, zero: 3%s}\nhardware: h100-dgx\n";
	char t1[512], t2[512];
	snprintf(t1, sizeof t1, fmt4, ", reshard_after_forward: false");
	snprintf(t2, sizeof t2, fmt4, "");
	CHECK_INT(scenario_load_string("t.yaml", t1, NULL, &k4), 0);
	CHECK_INT(scenario_load_string("t.yaml", t2, NULL, &r4), 0);
	run(&k4, hw, &r);
	CHECK_NEAR(r.mem.weights, 65536 + 262144, 0);
	run(&r4, hw, &r);
	CHECK_NEAR(r.mem.weights, 65536 + 131072, 0);
}

static void test_errors(void)
{
	struct scenario s, t;
	/* a sweep to 6 GPUs (dp 6) keeps the shard group of 4 (dp 8 here), which does not divide it */
	char why[256];
	CHECK_INT(load(&s, ", shard_group: 4") == 0 && scenario_relayout(&s, 8, 8, &t, why, sizeof why) == 0, 1);
	CHECK(scenario_relayout(&s, 6, 6, &t, why, sizeof why) != 0);
	CHECK_CONTAINS(why, "parallel.shard_group (4) must divide dp (6)");
	cap_begin();
	CHECK(load(&s, ", shard_group: 3") != 0);
	CHECK_CONTAINS(cap_end(), "parallel.shard_group (3) must divide dp (4), with zero >= 1");
	cap_begin();
	CHECK(scenario_load_string("t.yaml", "name: t\nmodel: {type: mlp, layers: 2, hidden: 64}\n"
				   "training: {global_batch: 4, micro_batch: 1}\nparallel: {dp: 4, zero: 1, "
				   "reshard_after_forward: false}\nhardware: h100-dgx\n", NULL, &s) != 0);
	CHECK_CONTAINS(cap_end(), "parallel.reshard_after_forward: only with zero 3");
	cap_begin();
	CHECK(scenario_load_string("t.yaml", "name: t\nmodel: {type: mlp, layers: 2, hidden: 64}\n"
				   "training: {global_batch: 4, micro_batch: 1}\nparallel: {dp: 4, shard_group: 2}\n"
				   "hardware: h100-dgx\n", NULL, &s) != 0);
	CHECK_CONTAINS(cap_end(), "parallel.shard_group: the group ZeRO shards over; needs zero >= 1 (zero is 0)");
}

int main(void)
{
	struct hwmodel *hw = toy_load();
	if (!hw)
		return check_result();
	test_hsdp(hw);
	test_keep(hw);
	test_errors();
	hwmodel_free(hw);
	return check_result();
}
