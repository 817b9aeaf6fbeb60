/* test_recipes: issue 13's FP8 and MoE recipes on a toy GPU whose numbers a person can follow: memory-bound ops
 * at exactly 1000 GB/s (eff 1, no ramp, no launch cost), GEMMs at 0.5 of a 100 (bf16) / 200 (fp8) / 400 (fp4)
 * TFLOP/s peak when their 128x128 tiles fill the 4 SMs, all-to-all lines of 10 us + 100 GB/s bus (NVLink) and
 * 20 us + 10 GB/s (network, 25 GB/s per GPU). Model: T = 256 tokens, h = 256, 4 heads, GeLU f = 512, bf16. */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include "capture.h"
#include "check.h"
#include "oplist.h"
#include "scenario/scenario.h"
#include "sim/build.h"
#include "sim/fp8.h"
#include "sim/memory.h"
#include "sim/moe.h"
#include "sim/ops.h"
#include "util/gserr.h"

static const char *toy_hw =
	"schema: gpusim-hw/1\nname: toy\ngpu:\n  name: toy gpu\n  sm_count: 4\n  memory_bytes: 1e9\n"
	"  hbm_gbps: 1000\n  peak_tflops: {bf16: 100, fp8: 200, fp4: 400}\n  launch_us: 0\n"
	"  memory_bound: {eff: 1}\n  gemm:\n"
	"    model: {max_eff: 0.5, tile_m: 128, tile_n: 128, k_half: 0, dtype_eff: {fp8: 0.5, fp4: 0.5}}\n"
	"  attention: {fwd_eff: 0.5, bwd_eff: 0.4}\n"
	"node: {gpus: 8, fabric: nvswitch, link_gbps: 100}\n"
	"network: {nics: 8, nic_gbps: 25, latency_us: 5, oversubscription: 1}\n"
	"collectives:\n  intra:\n    all_to_all: {lines: [{algo: a, alpha_us: 10, step_us: 0, bus_gbps: 100}]}\n"
	"  inter:\n    all_to_all: {lines: [{algo: b, alpha_us: 20, step_us: 0, bus_gbps: 10}]}\n";

static const char *model = "layers: 2, hidden: 256, heads: 4, seq: 256, ffn: gelu, ffn_hidden: 512, dtype: bf16";

static int load(struct scenario *s, const char *extra_model, const char *train, const char *par)
{
	char buf[1024];
	snprintf(buf, sizeof buf,
		 "name: t\nmodel: {%s%s}\ntraining: {global_batch: 4, micro_batch: 1%s}\nparallel: {%s}\n"
		 "hardware: h100-dgx\n", model, extra_model, train, par);
	return scenario_load_string("t.yaml", buf, NULL, s);
}

static void test_fp8(const struct hwmodel *hw)
{
	struct scenario s;
	struct opcost o[OPS_MAX];
	CHECK_INT(load(&s, "", ", fp8: {recipe: delayed}", "gpus: 1"), 0);
	struct opctx c = { hw, &s, 1, 256, 0 };
	int n = ops_layer_fwd(&c, o);
	/* fc1 (256, 512, 256): 2*4 = 8 tiles on 4 SMs, 2 full waves, eff 0.5; 2*256*512*256 = 67.1e6 FLOP at
	 * 200e12*0.5 = 0.67109 us (bf16: 1.34218 us). Its bytes (256*256 + 256*512)*1 + 256*512*2 = 458752 B take
	 * 0.459 us: the math is longer */
	CHECK_NEAR(op_s(o, n, "fc1"), 67108864.0 / 100e12, 1e-18);
	/* fc2's input, T*f = 131072 elements: read 2 B, write the row- and column-wise FP8 copies, 2 B: 0.524 us;
	 * fc1's input comes quantized from the norm (no op), proj's is quantized: T*h = 65536 elements */
	CHECK_NEAR(op_s(o, n, "fc2_quantize"), 524288 / 1e12, 1e-18);
	CHECK_NEAR(op_s(o, n, "proj_quantize"), 262144 / 1e12, 1e-18);
	CHECK(op(o, n, "fc1_quantize") == NULL && op(o, n, "fp8_amax") == NULL);
	n = ops_layer_bwd(&c, 0, o);
	/* output gradients quantized before dgrad and wgrad: fc2's T*h, fc1's T*f, proj's T*h, qkv's T*3h */
	CHECK_NEAR(op_s(o, n, "fc1_grad_quantize"), 524288 / 1e12, 1e-18);
	CHECK_NEAR(op_s(o, n, "qkv_grad_quantize"), 786432 / 1e12, 1e-18);
	/* fc2 wgrad (h=256, f=512, T=256): the same FLOPs as fc1 at the fp8 rate */
	CHECK_NEAR(op_s(o, n, "fc2_wgrad"), 67108864.0 / 100e12, 1e-18);
	/* saved activations: the four linear inputs (T*h, T*h, T*h, T*f: 327680 elements) drop from 2 to 1 B */
	struct scenario b;
	CHECK_INT(load(&b, "", "", "gpus: 1"), 0);
	CHECK_NEAR(mem_layer_full_act_bytes(&b, 1) - mem_layer_full_act_bytes(&s, 1), 327680, 1e-6);
	CHECK_NEAR(fp8_weight_extra_bytes_per_param(&s), 2, 1e-15);
	CHECK_NEAR(fp8_param_gather_bytes_per_param(&s), 2, 1e-15);  /* param_gather off: bf16 */
	/* delayed: 4 linears, 2 tensors each forward, 1 backward; history 1024: 8*(2*1024*4 + 8) B updated */
	CHECK_INT(fp8_tensors_per_layer(&s, 0), 8);
	CHECK_INT(fp8_tensors_per_layer(&s, 1), 4);
	CHECK_NEAR(fp8_scale_update_bytes(&s, 8), 65600, 1e-9);

	/* current scaling: every linear input quantized after an amax pass of its own (read 2 B per element) */
	CHECK_INT(load(&s, "", ", fp8: {recipe: current, param_gather: true}", "gpus: 1"), 0);
	n = ops_layer_fwd(&c, o);
	CHECK_NEAR(op_s(o, n, "fc1_quantize"), 262144 / 1e12, 1e-18);
	CHECK_NEAR(op_s(o, n, "fp8_amax"), 131072 / 1e12, 1e-18);  /* the first amax: qkv's input, 65536 x 2 B */
	CHECK(!fp8_amax_reduction(&s));
	/* FP8 primary weights: the pair (2 B) replaces the bf16 weight (2 B); all-gathers move 1 B */
	CHECK_NEAR(fp8_weight_extra_bytes_per_param(&s), 0, 1e-15);
	CHECK_NEAR(fp8_param_gather_bytes_per_param(&s), 1, 1e-15);

	/* MXFP8: an E8M0 scale per 32 elements, q = 1 + 1/32; fc2's quantize: 131072*(2 + 2*1.03125) B */
	CHECK_INT(load(&s, "", ", fp8: {recipe: mxfp8}", "gpus: 1"), 0);
	n = ops_layer_fwd(&c, o);
	CHECK_NEAR(op_s(o, n, "fc2_quantize"), 131072 * 4.0625 / 1e12, 1e-18);
	/* NVFP4: q = 0.5 + 1/16; fc1 at the fp4 rate 400e12*0.5: 0.33554 us (bytes 65536*0.5625 +
	 * 131072*0.5625 + 131072*2 = 372736 B: 0.373 us, longer: the GEMM is memory-bound here) */
	CHECK_INT(load(&s, "", ", fp8: {recipe: nvfp4}", "gpus: 1"), 0);
	n = ops_layer_fwd(&c, o);
	CHECK_NEAR(op_s(o, n, "fc1"), 372736 / 1e12, 1e-18);
	CHECK_NEAR(fp8_weight_extra_bytes_per_param(&s), 1.125, 1e-15);

	/* FP8 attention: the bf16 rate times fp8/bf16 peak and ceilings, 200*0.5/(100*0.5): half the time */
	CHECK_INT(load(&s, "", ", fp8: {recipe: delayed, attention: true}", "gpus: 1"), 0);
	CHECK_NEAR(fp8_attention_factor(hw, &s), 0.5, 1e-15);

	/* rules */
	cap_begin();
	CHECK_INT(load(&s, "", ", fp8: {recipe: current, amax_history: 16}", "gpus: 1"), GS_EINVAL);
	CHECK(strstr(cap_end(), "amax_history: only for recipe delayed") != NULL);
	struct hwmodel *h100 = NULL;
	CHECK_INT(load(&s, "", ", fp8: {recipe: nvfp4}", "gpus: 1"), 0);
	cap_begin();
	CHECK_INT(scenario_load_hardware(&s, &h100), GS_EINVAL);
	CHECK(strstr(cap_end(), "no block-scaled tensor cores") != NULL);
}

static void test_moe(const struct hwmodel *hw)
{
	struct scenario s;
	struct opcost o[OPS_MAX];
	/* 4 experts of f = 128, top 2, over ep = 2 of the dp = 2 replicas */
	CHECK_INT(load(&s, ", moe: {experts: 4, top_k: 2, ffn_hidden: 128}", "", "dp: 2, ep: 2"), 0);
	/* T = 256 tokens routed (tp = etp = 1), A = 512 assignments; dropless with balance: 512 rows */
	CHECK_NEAR(moe_routed_rows(&s, 256), 256, 1e-12);
	CHECK_NEAR(moe_expert_rows(&s, 256), 512, 1e-12);
	/* parameters: attention 4*256^2 = 262144, 4 experts of 2*256*128 = 65536, router 4*256, norms 512 */
	CHECK_NEAR(scenario_params_per_layer(&s), 262144 + 4 * 65536 + 1024 + 512, 1e-6);
	CHECK_NEAR(scenario_active_params_per_layer(&s), 262144 + 2 * 65536 + 1024 + 512, 1e-6);
	/* one rank: 2 of the 4 experts */
	CHECK_NEAR(moe_layer_params_local(&s, 0), 262144 + 2 * 65536 + 1024 + 512, 1e-6);
	CHECK_NEAR(moe_layer_params_local(&s, 1), 262144 + 2 * 65536, 1e-6);
	struct opctx c = { hw, &s, 1, 256, 0 };
	int n = ops_layer_fwd(&c, o);
	/* dispatch: each rank's 512 rows of 256 bf16 values, 262144 B */
	const struct opcost *a2a = op(o, n, "ep_dispatch_alltoall");
	CHECK(a2a != NULL && a2a->kind == OPK_EP_ALLTOALL);
	if (a2a)
		CHECK_NEAR(a2a->bytes, 262144, 1e-9);
	CHECK(op(o, n, "ep_combine_alltoall") != NULL);
	/* fc1 of the 2 local experts, 256 rows each: stacked (512, 128, 256) = 4 tiles on 4 SMs, eff 0.5:
	 * 2*512*128*256 = 33.55e6 FLOP / 50e12 = 0.671 us; bytes 2*(256*256 + 256*128 + 256*128)*2 = 524288 B,
	 * 0.524 us */
	CHECK_NEAR(op_s(o, n, "expert_fc1"), 33554432.0 / 50e12, 1e-18);
	/* permute: read R*h*e = 131072 B, write A*h*e = 262144 B */
	CHECK_NEAR(op_s(o, n, "moe_permute"), 393216 / 1e12, 1e-18);
	CHECK(op(o, n, "fc1") == NULL && op(o, n, "tp_allreduce_moe") == NULL);  /* tp = 1: no TP reduction */
	n = ops_layer_bwd(&c, 0, o);
	CHECK(op(o, n, "ep_dispatch_alltoall_bwd") != NULL && op(o, n, "moe_router_wgrad") != NULL);

	/* imbalance 1.5: the busiest rank computes 768 rows; capacity 1.25: every expert its capacity, 640 */
	CHECK_INT(load(&s, ", moe: {experts: 4, top_k: 2, ffn_hidden: 128, imbalance: 1.5}", "", "dp: 2, ep: 2"), 0);
	CHECK_NEAR(moe_expert_rows(&s, 256), 768, 1e-12);
	CHECK_INT(load(&s, ", moe: {experts: 4, top_k: 2, ffn_hidden: 128, capacity_factor: 1.25}", "",
		       "dp: 2, ep: 2"), 0);
	CHECK_NEAR(moe_expert_rows(&s, 256), 640, 1e-12);
	/* etp = 1 under tp = 2: each rank routes half the tokens, whole experts; the output is all-gathered */
	CHECK_INT(load(&s, ", moe: {experts: 4, top_k: 2, ffn_hidden: 128}", "", "tp: 2, dp: 2, ep: 4, etp: 1"), 0);
	CHECK_NEAR(moe_routed_rows(&s, 256), 128, 1e-12);
	struct opctx c2 = { hw, &s, 2, 256, 0 };
	n = ops_layer_fwd(&c2, o);
	CHECK(op(o, n, "tp_allgather_moe") != NULL);

	/* all-to-all: inside a node, one line: 10 us + 1e6*(1/2)/(100e3) us = 15 us for 2 ranks */
	struct group_shape g2 = { 2, 1, 2 };
	CHECK_NEAR(moe_alltoall_s(hw, 1e6, g2), 15e-6, 1e-15);
	/* 4 ranks on 2 nodes, 2 each: half of the buffer stays (10 + 5e5*(1/2)/1e5 = 12.5 us), half leaves over the
	 * network line fed 5e5*4/3 B: 20 + (5e5*4/3)*(3/4)/1e4 = 70 us (above the 25 GB/s floor, 20 us): 70 us */
	struct group_shape g4 = { 4, 2, 2 };
	CHECK_NEAR(moe_alltoall_s(hw, 1e6, g4), 70e-6, 1e-12);

	/* rules */
	cap_begin();
	CHECK_INT(load(&s, ", moe: {experts: 4, top_k: 2}", "", "dp: 2, ep: 3"), GS_EINVAL);
	CHECK(strstr(cap_end(), "parallel.ep (3) does not divide model.moe.experts (4)") != NULL);
	cap_begin();
	CHECK_INT(load(&s, "", "", "dp: 2, ep: 2"), GS_EINVAL);
	CHECK(strstr(cap_end(), "parallel.ep: only for a model with experts") != NULL);
	cap_begin();
	CHECK_INT(load(&s, ", moe: {experts: 8, top_k: 2}", "", "dp: 2, ep: 4"), GS_EINVAL);
	CHECK(strstr(cap_end(), "does not divide the tp*dp = 1*2 ranks") != NULL);
}

/* Ops named name in a stage program built with keep_ops. */
static int count_ops(const struct program *p, const char *name)
{
	int k = 0;
	for (size_t i = 0; i < p->nops; i++)
		k += strcmp(p->ops[i].name, name) == 0;
	return k;
}

/* The tasks the recipes add to a stage's program: 2 layers, dp 2, global batch 4 of micro-batch 1 = 2
 * micro-batches. Delayed FP8: each layer's weights quantized once (the first micro-batch), an amax all-reduce
 * after each micro-batch's forward and backward (2 + 2), 4 B for each of 2 layers x 8 tensors forward = 64 B.
 * MoE with ep 2: dispatch and combine per layer and micro-batch, forward and backward: 2*2 of each name. */
static void test_programs(const struct hwmodel *hw)
{
	struct scenario s;
	struct build b;
	CHECK_INT(load(&s, "", ", fp8: {recipe: delayed}", "dp: 2"), 0);
	CHECK_INT(build_programs(&s, hw, 1, &b), 0);
	CHECK_INT(count_ops(&b.progs[0], "fp8_weight_cast"), 2);
	/* memory: each linear-layer parameter (qkv, proj 4*256^2, fc1, fc2 2*256*512: 524288 a layer) keeps its FP8
	 * pair, 2 B: 2 layers x 524288 x 2 = 2097152 B more weights than the same run in bf16 */
	double w8 = b.stages[0].weights;
	struct build b16;
	struct scenario s16;
	CHECK_INT(load(&s16, "", "", "dp: 2"), 0);
	CHECK_INT(build_programs(&s16, hw, 0, &b16), 0);
	CHECK_NEAR(w8 - b16.stages[0].weights, 2097152, 1e-6);
	build_release(&b16);
	CHECK_INT(count_ops(&b.progs[0], "fp8_amax_allreduce"), 2);
	CHECK_INT(count_ops(&b.progs[0], "fp8_amax_allreduce_bwd"), 2);
	CHECK_INT(count_ops(&b.progs[0], "fp8_scale_update"), 4);
	for (size_t i = 0; i < b.progs[0].nops; i++)
		if (strcmp(b.progs[0].ops[i].name, "fp8_amax_allreduce") == 0)
			CHECK_NEAR(b.progs[0].ops[i].bytes, 64, 1e-12);
	build_release(&b);
	CHECK_INT(load(&s, ", moe: {experts: 4, top_k: 2, ffn_hidden: 128}", "", "dp: 2, ep: 2"), 0);
	CHECK_INT(build_programs(&s, hw, 1, &b), 0);
	CHECK_INT(count_ops(&b.progs[0], "ep_dispatch_alltoall"), 4);
	CHECK_INT(count_ops(&b.progs[0], "ep_combine_alltoall_bwd"), 4);
	CHECK_INT(count_ops(&b.progs[0], "fp8_weight_cast"), 0);
	build_release(&b);
	/* dp 4, ep 2: the experts' gradients are all-reduced over their EDP group of 4/2 = 2 ranks, apart from the
	 * dense ones over dp: 2 layers x 2 local experts x 65536 parameters x 2 B (bf16 gradients) = 524288 B, in the
	 * one bucket (25 MB) the stage fills */
	CHECK_INT(load(&s, ", moe: {experts: 4, top_k: 2, ffn_hidden: 128}", "", "dp: 4, ep: 2"), 0);
	CHECK_INT(build_programs(&s, hw, 1, &b), 0);
	CHECK_INT(count_ops(&b.progs[0], "edp_allreduce"), 1);
	for (size_t i = 0; i < b.progs[0].nops; i++)
		if (strcmp(b.progs[0].ops[i].name, "edp_allreduce") == 0)
			CHECK_NEAR(b.progs[0].ops[i].bytes, 524288, 1e-9);
	build_release(&b);
	/* ZeRO-1 with experts: the dense parameters' state is sharded over dp = 2, the routed experts' over their
	 * expert-data-parallel group, tp*dp/(ep*etp) = 1 rank. Stage: 2 layers of 394752 local parameters, 131072 of
	 * them routed experts: (789504 - 262144)/2 + 262144/1 = 525824 parameters' state */
	CHECK_INT(load(&s, ", moe: {experts: 4, top_k: 2, ffn_hidden: 128}", "", "dp: 2, ep: 2, zero: 1"), 0);
	CHECK_INT(moe_edp(&s), 1);
	CHECK_INT(build_programs(&s, hw, 0, &b), 0);
	CHECK_NEAR(b.stages[0].optimizer, 525824 * mem_optimizer_bytes_per_param(&s), 1e-6);
	build_release(&b);
}

int main(void)
{
	int err = 0;
	struct hwmodel *hw = hwmodel_load_string("toy.yaml", toy_hw, &err);
	CHECK(hw != NULL);
	if (!hw)
		return check_result();
	test_fp8(hw);
	test_moe(hw);
	test_programs(hw);
	hwmodel_free(hw);
	return check_result();
}
