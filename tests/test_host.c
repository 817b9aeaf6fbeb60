/* test_host: the host as a resource (training.execution picks host.<mode> of the hardware model) and the dense
 * layer list (model.type dense), checked against numbers derived by hand.
 *
 * The hardware here makes every GPU op take exactly its 1 us launch (peaks and bandwidths so large that the
 * work itself takes < 1e-9 of that), and its links free, so a step is what the host needs to issue it:
 *   host per op     d  = op_us + launch_us       = 9 + 1  = 10 us
 *   per bucket      hb = bucket_us + coll_us     = 30 + 20 = 50 us
 *   per step        hs = step_us                 = 100 us
 * The dense model 8 -> 8 -> 8 (relu, cross entropy, biases) has 5 forward ops (linear, relu; linear,
 * log_softmax, nll_loss), 8 backward ops (nll_loss_bwd, log_softmax_bwd, linear_wgrad, bias_grad,
 * linear_dgrad; relu_bwd, linear_wgrad, bias_grad: the first layer's input needs no gradient) and 1 optimizer
 * op. The host issues op i (1-based) at hs + i*d; each runs 1 us once issued:
 *   one GPU:       step = hs + 14 d + 1 us            = 100 + 140 + 1       = 241 us
 *   DDP, 2 GPUs:   the bucket's hook runs after the 13 forward and backward ops, before the optimizer op:
 *                  step = hs + 13 d + hb + d + 1 us   = 100 + 130 + 50 + 10 + 1 = 291 us
 * so data parallelism is slower than one GPU (241/291 = 0.83x) however the batch is split.
 * test_compiled and test_compiled_probe: host.compiled's graph keys, in the simulator and from the probe's rows. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <unistd.h>
#include "calibrate/base.h"
#include "calibrate/calib.h"
#include "calibrate/calmodel.h"
#include "calibrate/rawio.h"
#include "calibrate/torchkern.h"
#include "scenario/scenario.h"
#include "sim/ddpsplit.h"
#include "sim/memory.h"
#include "sim/ops.h"
#include "sim/hostband.h"
#include "sim/predict.h"
#include "check.h"
#include "calib_model.h"

static struct coll_line free_line = { "free", 0, 0, 0, 1e15, 0 };

static void make_hw(struct hwmodel *hw)
{
	memset(hw, 0, sizeof *hw);
	snprintf(hw->name, sizeof hw->name, "test");
	hw->gpu.peak_tflops[DT_FP32] = 1e12;
	hw->gpu.memory_bytes = 80e9;
	hw->gpu.hbm_gbps = 1e15;
	hw->gpu.mem_eff = 1;
	hw->gpu.launch_us = 1;
	hw->gpu.gemm_max_eff = 1;
	hw->gpu.gemm_tile_m = 1;
	hw->gpu.gemm_tile_n = 1;
	hw->gpu.sm_count = 1;
	hw->node.gpus = 8;
	hw->node.link_gbps = 1e15;
	hw->net.nics = 1;
	hw->net.nic_gbps = 1e15;
	hw->net.oversubscription = 1;
	for (int sc = 0; sc < SCOPE_N; sc++)
		for (int op = 0; op < COLL_NOPS; op++) {
			hw->coll[sc][op].nlines = 1;
			hw->coll[sc][op].lines = &free_line;
		}
	hw->host.mode[EXEC_EAGER] = (struct hw_host_cost){ .step_us = 100, .op_us = 9, .launch_us = 1,
							   .coll_us = 20, .bucket_us = 30 };
}

static const char *dense_yaml(int gpus)
{
	static char buf[512];
	snprintf(buf, sizeof buf,
		 "name: t\n"
		 "model: {type: dense, widths: [8, 8, 8], dtype: fp32}\n"
		 "training: {global_batch: 2, micro_batch: %d, optimizer: adam, master_weights: fp32}\n"
		 "parallel: {gpus: %d}\n"
		 "hardware: h100-dgx\n", 2 / gpus, gpus);
	return buf;
}

/* a compiled step (host.compiled with its graph keys, sim/ops_host.c): graph_us 40 per forward call, kernel2d_us 3
 * per forward kernel and bwd_kernel2d_us 5 per backward kernel (the dense list is 2-D), accum_us 4 per parameter
 * tensor, backward_us 50, opt_us 60, step_us 100. The 8 -> 8 -> 8 model's compiled lists have one cross_entropy
 * kernel for log_softmax and nll_loss (sim/ops.c put_ce), and its backward one:
 *   forward   the forward graph's call 40; 4 kernels x 3                                  = 40 + 12 =  52
 *   backward  the backward's call 50; 7 kernels x 5 + 4 AccumulateGrad (2 weights, 2 biases) x 4
 *                                                                                          = 50 + 51 = 101
 *   optimizer 60, the step's own 100
 * so the host issues the optimizer at 100 + 52 + 101 + 60 = 313 us and the step ends 1 us later. */
static void test_compiled(struct hwmodel *hw)
{
	struct scenario s;
	struct result r;
	hw->gpu.launch_us = 1;
	hw->host.mode[EXEC_COMPILED] = (struct hw_host_cost){ .step_us = 100, .op_us = 9, .launch_us = 1, .coll_us = 20,
							      .bucket_us = 30, .graph_us = 40, .kernel2d_us = 3,
							      .bwd_kernel2d_us = 5, .accum_us = 4, .backward_us = 50,
							      .opt_us = 60 };
	CHECK_INT(scenario_load_string("t.yaml", dense_yaml(1), NULL, &s), 0);
	s.train.exec = EXEC_COMPILED;
	struct host_cost hc;
	ops_host_cost(hw, &s, &hc);
	CHECK_NEAR(hc.mb, 50e-6, 1e-12);    /* backward_us */
	CHECK_NEAR(hc.fwd, 40e-6, 1e-12);   /* graph_us, at the forward's start */
	CHECK_NEAR(hc.op, 10e-6, 1e-12);    /* an op outside the graphs: op_us + launch_us */
	CHECK_NEAR(hc.grad_hook, 4e-6, 1e-12);  /* accum_us: a kernel a C++ hook of backward launches */
	struct opcost o[OPS_MAX];
	struct opctx c = { hw, &s, 1, 2, 0 };
	int n = ops_dense_fwd(&c, 0, o);
	CHECK_NEAR(o[0].host, 3e-6, 1e-12);
	CHECK_NEAR(o[n - 1].host, 3e-6, 1e-12);
	n = ops_dense_bwd(&c, 1, o);
	CHECK_INT(n, 4);                      /* cross_entropy_bwd, linear_wgrad, bias_grad, linear_dgrad */
	CHECK_NEAR(o[0].host, 5e-6, 1e-12);
	CHECK_NEAR(o[1].host, 9e-6, 1e-12);   /* linear_wgrad and its AccumulateGrad */
	CHECK_NEAR(o[2].host, 9e-6, 1e-12);   /* bias_grad and its AccumulateGrad */
	CHECK_NEAR(o[n - 1].host, 5e-6, 1e-12);
	CHECK_INT(predict_run(&s, hw, NULL, &r), 0);
	CHECK_NEAR(r.step_time_s, 314e-6, 1e-8);
	/* only the backward family given: forward kernels take it too; only the 3-D family: a 2-D list takes it */
	hw->host.mode[EXEC_COMPILED].kernel2d_us = 0;
	ops_dense_fwd(&c, 0, o);
	CHECK_NEAR(o[0].host, 5e-6, 1e-12);
	hw->host.mode[EXEC_COMPILED].bwd_kernel2d_us = 0;
	hw->host.mode[EXEC_COMPILED].kernel_us = 7;
	ops_dense_fwd(&c, 0, o);
	CHECK_NEAR(o[0].host, 7e-6, 1e-12);
	memset(&hw->host.mode[EXEC_COMPILED], 0, sizeof hw->host.mode[EXEC_COMPILED]);
}

/* The probe's compiled rows (calibrate/torch_kernels.py compiled_rows), made up on exact lines:
 *   block  forward 30 + 10 us per kernel: 1, 2, 4 layers launch 10, 19, 37 kernels: 130, 220, 400 us
 *          backward 60 + 12 us per graph kernel + 5 us per parameter tensor (8 a layer: 8, 16, 32), the graph
 *          launching 15, 29, 57 kernels (+ one add per tensor: 23, 45, 89 in all): 280, 488, 904 us
 *   mlp    forward 20 + 8 us per kernel: 3, 6, 12 kernels: 44, 68, 116 us
 *          backward 40 + 9 us per graph kernel (3, 6, 12) + 5 per tensor (2, 4, 8): 77, 114, 188 us
 calibrate fits each family's lines over the layers L. With accum_us 5 the block's forward is 30 + 10 (9L + 1) =
 * 40 + 90 L with 9 kernels a layer: graph_us 40, layer_kernels 9, kernel_us 90/9 = 10; its backward less 5 per
 * tensor 60 + 12 (14L + 1) = 72 + 168 L with 14 graph kernels a layer: backward_us 72, bwd_layer_kernels 14,
 * bwd_kernel_us 12. The mlp's forward 20 + 24 L (3 a layer: graph2d_us 20, kernel2d_us 8), backward 40 + 27 L (3 a
 * layer: backward2d_us 40, bwd_kernel2d_us 9). Without an AccumulateGrad cost (0) the fit holds it: the block's
 * backward is 72 + 208 L, 208/14 = 14.86 a kernel; the mlp's 40 + 37 L, 37/3 = 12.33; the intercepts stay.
 * The steps are forward + backward + optimizer (70) + 40 (block) or 30 (mlp): step-parts (40 + 30)/2 = 35, which the
 * note gives only without the DDP rows (their slopes: (184 - 100)/7 = 12 and (291 - 200)/7 = 13 us a subgraph). */
static const char compiled_csv[] =
	"# torch 2.11.0+cu130, cuda 13.0, NVIDIA H100 80GB HBM3\n"
	"section,name,size,bytes,kernels,us\n"
	"host,eager_add,2097152,0,500,10.00\n"
	"host,all_reduce,4,0,100,30.00\n"
	"host,compiled_block_fwd,1,0,10,130.00\nhost,compiled_block_fwd,2,0,19,220.00\n"
	"host,compiled_block_fwd,4,0,37,400.00\n"
	"host,compiled_block_bwd,1,0,23,280.00\nhost,compiled_block_bwd,2,0,45,488.00\n"
	"host,compiled_block_bwd,4,0,89,904.00\n"
	"host,compiled_block_params,1,0,8,0.00\nhost,compiled_block_params,2,0,16,0.00\n"
	"host,compiled_block_params,4,0,32,0.00\n"
	"host,compiled_block_opt,1,0,3,70.00\nhost,compiled_block_opt,2,0,3,70.00\nhost,compiled_block_opt,4,0,3,70.00\n"
	"host,compiled_block_step,1,0,40,520.00\nhost,compiled_block_step,2,0,68,818.00\n"
	"host,compiled_block_step,4,0,130,1414.00\n"
	"host,compiled_block_graphs,1,0,1,0.00\nhost,compiled_block_fwd_extern,1,0,5,0.00\n"
	"host,compiled_mlp_fwd,1,0,3,44.00\nhost,compiled_mlp_fwd,2,0,6,68.00\nhost,compiled_mlp_fwd,4,0,12,116.00\n"
	"host,compiled_mlp_bwd,1,0,5,77.00\nhost,compiled_mlp_bwd,2,0,10,114.00\nhost,compiled_mlp_bwd,4,0,20,188.00\n"
	"host,compiled_mlp_params,1,0,2,0.00\nhost,compiled_mlp_params,2,0,4,0.00\nhost,compiled_mlp_params,4,0,8,0.00\n"
	"host,compiled_mlp_opt,1,0,3,70.00\nhost,compiled_mlp_opt,2,0,3,70.00\nhost,compiled_mlp_opt,4,0,3,70.00\n"
	"host,compiled_mlp_step,1,0,11,221.00\nhost,compiled_mlp_step,2,0,17,282.00\nhost,compiled_mlp_step,4,0,29,404.00\n"
	"host,compiled_mlp_backlog,4,0,0,3.0\n"
	/* one module as 1 graph and as 8 DDP subgraphs: 12 and 13 us a subgraph, forward and backward */
	"host,compiled_ddp_fwd,1,0,12,100.00\nhost,compiled_ddp_bwd,1,0,40,200.00\n"
	"host,compiled_ddp_fwd,8,0,12,184.00\nhost,compiled_ddp_bwd,8,0,40,291.00\n";

/* A compiled layer's kernels (host.compiled.layer_kernels, bwd_layer_kernels: sim/ops_host.c,
 * ops_price_layer_host): the pre-LN GeLU block's compiled lists have 9 forward ops and 13 backward ones, none with
 * recompute. With kernel_us 2 and bwd_kernel_us 3 and no AccumulateGrad cost, the layer's graph costs one kernel an
 * op: 9 x 2 = 18 us forward, 13 x 3 = 39 us backward; with the measured 9 and 18 kernels a layer, 9 x 2 = 18 and
 * 18 x 3 = 54 us, each backward op 54/13 us. A transformer takes graph_us and backward_us (30, 40) for its calls, a
 * dense list the 2d ones (7, 8) where given. */
static void test_layer_kernels(struct hwmodel *hw)
{
	static const char yaml[] =
		"name: t\nmodel: {type: transformer, layers: 2, hidden: 256, heads: 4, seq: 16, ffn: gelu, dtype: bf16, "
		"flash_attention: true, causal: true}\n"
		"training: {global_batch: 1, micro_batch: 1, optimizer: adam, master_weights: fp32, grad_dtype: bf16, "
		"execution: compiled, param_storage: flat}\nparallel: {gpus: 1}\nhardware: h100-dgx\n";
	struct scenario s;
	CHECK_INT(scenario_load_string("t.yaml", yaml, NULL, &s), 0);
	hw->host.mode[EXEC_COMPILED] = (struct hw_host_cost){ .op_us = 9, .graph_us = 30, .backward_us = 40,
							      .graph2d_us = 7, .backward2d_us = 8, .kernel_us = 2,
							      .bwd_kernel_us = 3 };
	struct opcost o[OPS_MAX];
	struct opctx c = { hw, &s, 1, 16, 0 };
	double sum[2] = { 0, 0 }, want[2][2] = { { 18e-6, 39e-6 }, { 18e-6, 54e-6 } };
	int nf = 0, nb = 0;
	for (int pass = 0; pass < 2; pass++) {
		if (pass) {
			hw->host.mode[EXEC_COMPILED].layer_kernels = 9;
			hw->host.mode[EXEC_COMPILED].bwd_layer_kernels = 18;
		}
		nf = ops_layer_fwd(&c, o);
		sum[0] = 0;
		for (int i = 0; i < nf; i++)
			sum[0] += o[i].host;
		nb = ops_layer_bwd(&c, 0, o);
		sum[1] = 0;
		for (int i = 0; i < nb; i++)
			sum[1] += o[i].host;
		CHECK_NEAR(sum[0], want[pass][0], 1e-9);
		CHECK_NEAR(sum[1], want[pass][1], 1e-9);
	}
	CHECK_INT(nf, 9);
	CHECK_INT(nb, 13);
	CHECK_NEAR(o[0].host, 54e-6 / 13, 1e-12);
	struct host_cost hc;
	ops_host_cost(hw, &s, &hc);
	CHECK_NEAR(hc.fwd, 30e-6, 1e-12);
	CHECK_NEAR(hc.mb, 40e-6, 1e-12);
	CHECK_INT(scenario_load_string("t.yaml", dense_yaml(1), NULL, &s), 0);
	s.train.exec = EXEC_COMPILED;
	ops_host_cost(hw, &s, &hc);
	CHECK_NEAR(hc.fwd, 7e-6, 1e-12);
	CHECK_NEAR(hc.mb, 8e-6, 1e-12);
	memset(&hw->host.mode[EXEC_COMPILED], 0, sizeof hw->host.mode[EXEC_COMPILED]);
}

/* torch.compile of a DDP module (sim/ddpsplit.h): DDPOptimizer's split, then what its subgraphs cost.
 * Nodes walked from the graph's end, caps 1 (first) and 3: {1, 1, 1, 1} -> [1] [1 1 1] = 2 (a bucket closes at its
 * cap, before the next node); {2, 2, 2, 2, 2} -> [2] [2 2] [2 2] = 3; none -> 1.
 * The dense 8 -> 8 -> 8 model in fp32 on 2 GPUs: each layer 64 + 8 = 72 parameters, one F.linear node (weight and
 * bias) of 288 bytes; with parallel.dp_bucket_bytes 500 (the first cap clipped to it) per-tensor storage gives
 * [288 288] = 1 graph, training.param_storage flat counts the buffer, 576 bytes, per node: [576] [576] = 2. The
 * second subgraph adds one forward call (subgraph_us 7) and one backward call (bwd_subgraph_us 11) to the host,
 * which this hardware's step waits on: +18 us. */
static void test_compiled_ddp(struct hwmodel *hw)
{
	static const double four[] = { 1, 1, 1, 1 }, five[] = { 2, 2, 2, 2, 2 };
	CHECK_INT(ddpsplit_graphs(four, 4, 1, 3), 2);
	CHECK_INT(ddpsplit_graphs(five, 5, 1, 3), 3);
	CHECK_INT(ddpsplit_graphs(NULL, 0, 1, 3), 1);
	hw->host.mode[EXEC_COMPILED] = (struct hw_host_cost){ .step_us = 100, .op_us = 9, .launch_us = 1, .coll_us = 20,
							      .bucket_us = 30, .graph_us = 40, .kernel2d_us = 3,
							      .bwd_kernel2d_us = 5, .accum_us = 4, .backward_us = 50,
							      .opt_us = 60, .subgraph_us = 7, .bwd_subgraph_us = 11 };
	const char *yaml[2] = {
		"name: t\nmodel: {type: dense, widths: [8, 8, 8], dtype: fp32}\n"
		"training: {global_batch: 2, micro_batch: 1, optimizer: adam, master_weights: fp32, execution: compiled}\n"
		"parallel: {gpus: 2, dp_bucket_bytes: 500}\nhardware: h100-dgx\n",
		"name: t\nmodel: {type: dense, widths: [8, 8, 8], dtype: fp32}\n"
		"training: {global_batch: 2, micro_batch: 1, optimizer: adam, master_weights: fp32, execution: compiled, "
		"param_storage: flat}\nparallel: {gpus: 2, dp_bucket_bytes: 500}\nhardware: h100-dgx\n" };
	struct result r[2];
	for (int i = 0; i < 2; i++) {
		struct scenario s;
		CHECK_INT(scenario_load_string("t.yaml", yaml[i], NULL, &s), 0);
		CHECK(s.train.flat_params == (i == 1));
		CHECK_INT(predict_run(&s, hw, NULL, &r[i]), 0);
	}
	CHECK_NEAR(r[1].step_time_s - r[0].step_time_s, 18e-6, 1e-6);
	memset(&hw->host.mode[EXEC_COMPILED], 0, sizeof hw->host.mode[EXEC_COMPILED]);
}

static void check_compiled_accum0(const struct hw_host_cost *h)
{
	CHECK_NEAR(h->graph_us, 40, 1e-12);
	CHECK_NEAR(h->graph2d_us, 20, 1e-12);
	CHECK_NEAR(h->kernel_us, 10, 1e-12);
	CHECK_NEAR(h->kernel2d_us, 8, 1e-12);
	CHECK_NEAR(h->bwd_kernel_us, 14.86, 1e-12);
	CHECK_NEAR(h->bwd_kernel2d_us, 12.33, 1e-12);
	CHECK_NEAR(h->backward_us, 72, 1e-12);
	CHECK_NEAR(h->backward2d_us, 40, 1e-12);
	CHECK_NEAR(h->layer_kernels, 9, 1e-12);
	CHECK_NEAR(h->bwd_layer_kernels, 14, 1e-12);
}

/* the probe's CSV text (its first len bytes) parsed into c as calibrate reads kernels_torch.csv: torchkern_parse's
 * return code */
static int parse_probe(const char *text, size_t len, const char *name, struct calib *c)
{
	FILE *f = fmemopen((void *)text, len, "r");
	int rc = torchkern_parse(f, name, c);
	fclose(f);
	return rc;
}

/* torchkern_rank_spread: the block's host us of processes timed at once, round by round; only what holds from round
 * to round counts. Rank 1 always 10 % slower (100, 110; then 200, 220): the log us differ by ln 1.1 = 0.0953102 in
 * both rounds, no residual, the ranks' log means 0.0476551 either side of the grand mean: mean square 2 rounds x 2 x
 * 0.0476551^2 / 1 = 0.0090840, over 2 rounds 0.0045420, spread sqrt = 0.0673945 (ln 1.1 / sqrt 2). A round with one
 * rank does not count. The ranks swapping (100, 110; then 110, 100): no rank is slower, spread 0. One round: false. */
static void test_rank_spread(void)
{
	static const char csv[] = "section,name,size,bytes,kernels,us\n"
				  "host,rank_block_0,0,0,0,100\n"
				  "host,rank_block_0,1,0,0,110\n"
				  "host,rank_block_1,0,0,0,200\n"
				  "host,rank_block_1,1,0,0,220\n"
				  "host,rank_block_2,0,0,0,50\n";
	static const char swap[] = "section,name,size,bytes,kernels,us\n"
				   "host,rank_block_0,0,0,0,100\n"
				   "host,rank_block_0,1,0,0,110\n"
				   "host,rank_block_1,0,0,0,110\n"
				   "host,rank_block_1,1,0,0,100\n";
	static const char one[] = "section,name,size,bytes,kernels,us\n"
				  "host,rank_block_0,0,0,0,100\n"
				  "host,rank_block_0,1,0,0,110\n";
	struct calib c;
	calib_init(&c);
	CHECK_INT(parse_probe(csv, sizeof csv - 1, "probe.csv", &c), 0);
	double s = 0;
	int ranks = 0, rounds = 0;
	CHECK(torchkern_rank_spread(&c, &s, &ranks, &rounds));
	CHECK_NEAR(s, 0.0673945, 1e-6);
	CHECK_INT(ranks, 2);
	CHECK_INT(rounds, 2);
	calib_release(&c);
	calib_init(&c);
	CHECK_INT(parse_probe(swap, sizeof swap - 1, "probe.csv", &c), 0);
	CHECK(torchkern_rank_spread(&c, &s, &ranks, &rounds));
	CHECK_NEAR(s, 0, 1e-12);
	calib_release(&c);
	calib_init(&c);
	CHECK_INT(parse_probe(one, sizeof one - 1, "probe.csv", &c), 0);
	CHECK(!torchkern_rank_spread(&c, &s, &ranks, &rounds));
	calib_release(&c);
	calib_init(&c);  /* no such rows: not measured */
	CHECK(!torchkern_rank_spread(&c, &s, &ranks, &rounds));
	calib_release(&c);
}

/* torchkern_drift: the rounds' spread of both mixed-stream ratios over their medians. Forward 1.4 (rounds 1.0 to
 * 1.96), backward 1.2 (1.08 to 1.5): drift_lo = min(1.0/1.4, 1.08/1.2) = min(0.714, 0.9) = 0.714, drift_hi =
 * max(1.96/1.4, 1.5/1.2) = max(1.4, 1.25) = 1.4. Without the backward's rounds: not measured. */
static void test_drift(void)
{
	static const char csv[] = "section,name,size,bytes,kernels,us\n"
				  "host,mix_fwd,16,0,0.00,1.4\n"
				  "host,mix_bwd,16,0,0.00,1.2\n"
				  "host,mix_fwd_min,16,0,0.00,1.0\n"
				  "host,mix_fwd_max,16,0,0.00,1.96\n"
				  "host,mix_bwd_min,16,0,0.00,1.08\n"
				  "host,mix_bwd_max,16,0,0.00,1.5\n";
	struct calib c;
	calib_init(&c);
	CHECK_INT(parse_probe(csv, sizeof csv - 1, "probe.csv", &c), 0);
	double lo = 0, hi = 0;
	CHECK(torchkern_drift(&c, &lo, &hi));
	CHECK_NEAR(lo, 0.714, 1e-12);
	CHECK_NEAR(hi, 1.4, 1e-12);
	calib_release(&c);
	calib_init(&c);
	static const char fwd_only[] = "section,name,size,bytes,kernels,us\n"
				       "host,mix_fwd,16,0,0.00,1.4\n"
				       "host,mix_bwd,16,0,0.00,1.2\n"
				       "host,mix_fwd_min,16,0,0.00,1.0\n"
				       "host,mix_fwd_max,16,0,0.00,1.96\n";
	CHECK_INT(parse_probe(fwd_only, sizeof fwd_only - 1, "probe.csv", &c), 0);
	CHECK(!torchkern_drift(&c, &lo, &hi));
	calib_release(&c);
}

/* The drift range as calibrate writes it, from two committed raw folders read as --refit reads them: the full
 * calibration of 2 x H200 1128p (mix_fwd 1.42 over rounds 1.00-1.95, mix_bwd 1.14 over 0.93-1.77: drift_lo =
 * min(1.00/1.42, 0.93/1.14) = 0.704, drift_hi = max(1.95/1.42, 1.77/1.14) = max(1.373, 1.553) = 1.553, every
 * mode), and the quick one of 1128r, whose two rounds give no range (torchkern_host.c, torchkern_host_section). */
static void test_drift_written(void)
{
	static const char *const raw[2] = { "hardware/h200x2-1128p-measured", "hardware/h200x2-1128r-measured" };
	for (int i = 0; i < 2; i++) {
		struct calib c, none;
		calib_init(&c);
		calib_init(&none);
		CHECK_INT(rawio_read(&c, raw[i]), 0);
		char dir[] = "/tmp/test_drift_XXXXXX";
		CHECK(mkdtemp(dir) != NULL);
		struct hwmodel *hw = calib_model_load(&c, dir, "test-drift");
		if (hw) {
			for (int m = 0; m < EXEC_N; m++) {
				CHECK_NEAR(hw->host.mode[m].drift_lo, i == 0 ? 0.704 : 0, 1e-12);
				CHECK_NEAR(hw->host.mode[m].drift_hi, i == 0 ? 1.553 : 0, 1e-12);
			}
			hwmodel_free(hw);
		}
		calib_model_done(&c, &none, dir);
	}
	/* the quick one calibrated on the h200-sxm preset keeps the preset's range (the lent hosts' spread), and its
	 * host's source says so */
	struct calib c, none;
	struct cal_base b = { 0 };
	calib_init(&c);
	calib_init(&none);
	CHECK_INT(base_load(&b, "h200-sxm"), 0);
	CHECK_INT(rawio_read(&c, raw[1]), 0);
	char dir[] = "/tmp/test_drift_XXXXXX", path[64];
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof path, "%s/model.yaml", dir);
	struct calmodel_opts yo = { "test-drift", &b };
	CHECK_INT(calmodel_write(&c, &yo, path), 0);
	int err = 0;
	struct hwmodel *hw = hwmodel_load(path, &err);
	CHECK(hw != NULL && b.hw != NULL);
	if (hw && b.hw) {
		CHECK(b.hw->host.mode[EXEC_EAGER].drift_hi > 1);
		CHECK_NEAR(hw->host.mode[EXEC_EAGER].drift_lo, b.hw->host.mode[EXEC_EAGER].drift_lo, 0);
		CHECK_NEAR(hw->host.mode[EXEC_EAGER].drift_hi, b.hw->host.mode[EXEC_EAGER].drift_hi, 0);
		char want[64];
		snprintf(want, sizeof want, "host range: base x%.3g-x%.3g", b.hw->host.mode[EXEC_EAGER].drift_lo,
			 b.hw->host.mode[EXEC_EAGER].drift_hi);
		CHECK(strstr(hw->host.source, want) != NULL);
	}
	hwmodel_free(hw);
	base_release(&b);
	calib_model_done(&c, &none, dir);
}

/* torchkern_step_pieces: two eager stacks with every row (the block's L1 lacks its step_opt: not counted), forward
 * (150 + 390) / (100 + 300) = 1.35, backward (210 + 598) / (200 + 600) = 1.01, the optimizer the median of 250 and 270
 * = 260; one stack or none: not measured. Then the committed raw folder of 1 x H200 1128s, summed by hand over its
 * six eager stacks: forward 3723.62 / 3224.24 = 1.155, backward 8154.10 / 7894.34 = 1.033, optimizer the median of
 * 225.25 260.69 264.65 269.61 315.41 338.84 = 267.13; compiled 4973.03 / 3551.50 = 1.400, 7497.83 / 7681.26 = 0.976;
 * calibrate's classes then carry them: gemm_us = fwd_linear 19.46 x mix 2.08 x 1.155 = 46.75, accum_us = 16.76 x
 * 1.36 x 1.033 = 23.55, opt_us 267.13 in both modes. */
static void test_step_pieces(void)
{
	static const char csv[] = "section,name,size,bytes,kernels,us\n"
				  "host,eager_mlp_fwd,1,0,0,100\nhost,eager_mlp_bwd,1,0,0,200\n"
				  "host,eager_mlp_step_fwd,1,0,0,150\nhost,eager_mlp_step_bwd,1,0,0,210\n"
				  "host,eager_mlp_step_opt,1,0,0,250\n"
				  "host,eager_mlp_fwd,2,0,0,300\nhost,eager_mlp_bwd,2,0,0,600\n"
				  "host,eager_mlp_step_fwd,2,0,0,390\nhost,eager_mlp_step_bwd,2,0,0,598\n"
				  "host,eager_mlp_step_opt,2,0,0,270\n"
				  "host,eager_block_fwd,1,0,0,100\nhost,eager_block_bwd,1,0,0,200\n"
				  "host,eager_block_step_fwd,1,0,0,900\nhost,eager_block_step_bwd,1,0,0,900\n";
	struct calib c;
	double f = 0, b = 0, o = 0;
	int n = 0;
	calib_init(&c);
	CHECK_INT(parse_probe(csv, sizeof csv - 1, "probe.csv", &c), 0);
	CHECK(torchkern_step_pieces(&c, "eager", &f, &b, &o, &n));
	CHECK_NEAR(f, 1.35, 1e-12);
	CHECK_NEAR(b, 1.01, 1e-12);
	CHECK_NEAR(o, 260, 1e-12);
	CHECK_INT(n, 2);
	CHECK(!torchkern_step_pieces(&c, "compiled", &f, &b, &o, NULL));
	calib_release(&c);
	calib_init(&c);
	static const char one[] = "section,name,size,bytes,kernels,us\n"
				  "host,eager_mlp_fwd,1,0,0,100\nhost,eager_mlp_bwd,1,0,0,200\n"
				  "host,eager_mlp_step_fwd,1,0,0,150\nhost,eager_mlp_step_bwd,1,0,0,210\n"
				  "host,eager_mlp_step_opt,1,0,0,250\n";
	CHECK_INT(parse_probe(one, sizeof one - 1, "probe.csv", &c), 0);
	CHECK(!torchkern_step_pieces(&c, "eager", &f, &b, &o, &n));
	CHECK_INT(n, 1);
	calib_release(&c);
	struct calib r, none;
	calib_init(&r);
	calib_init(&none);
	CHECK_INT(rawio_read(&r, "hardware/h200x1-1128s-measured"), 0);
	CHECK(torchkern_step_pieces(&r, "eager", &f, &b, &o, &n));
	CHECK_NEAR(f, 1.155, 1e-12);
	CHECK_NEAR(b, 1.033, 1e-12);
	CHECK_NEAR(o, 267.13, 1e-9);
	CHECK_INT(n, 6);
	CHECK(torchkern_step_pieces(&r, "compiled", &f, &b, &o, &n));
	CHECK_NEAR(f, 1.4, 1e-12);
	CHECK_NEAR(b, 0.976, 1e-12);
	char dir[] = "/tmp/test_steps_XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	struct hwmodel *hw = calib_model_load(&r, dir, "test-steps");
	CHECK(hw != NULL);
	if (hw) {
		CHECK_NEAR(hw->host.mode[EXEC_EAGER].gemm_us, 46.75, 1e-9);
		CHECK_NEAR(hw->host.mode[EXEC_EAGER].accum_us, 23.55, 1e-9);
		CHECK_NEAR(hw->host.mode[EXEC_EAGER].opt_us, 267.13, 1e-9);
		CHECK_NEAR(hw->host.mode[EXEC_COMPILED].opt_us, 267.13, 1e-9);
		hwmodel_free(hw);
	}
	calib_model_done(&r, &none, dir);
}

static void test_compiled_probe(void)
{
	struct calib c, back;
	calib_init(&c);
	calib_init(&back);
	CHECK_INT(parse_probe(compiled_csv, sizeof compiled_csv - 1, "probe.csv", &c), 0);
	struct hw_host_cost h = { 0 };
	char note[200];
	CHECK(torchkern_compiled(&c, 5, &h, note, sizeof note));
	CHECK_NEAR(h.graph_us, 40, 1e-12);
	CHECK_NEAR(h.backward_us, 72, 1e-12);
	CHECK_NEAR(h.graph2d_us, 20, 1e-12);
	CHECK_NEAR(h.backward2d_us, 40, 1e-12);
	CHECK_NEAR(h.layer_kernels, 9, 1e-12);
	CHECK_NEAR(h.bwd_layer_kernels, 14, 1e-12);
	CHECK_NEAR(h.layer2d_kernels, 3, 1e-12);
	CHECK_NEAR(h.bwd_layer2d_kernels, 3, 1e-12);
	CHECK_NEAR(h.kernel_us, 10, 1e-12);
	CHECK_NEAR(h.kernel2d_us, 8, 1e-12);
	CHECK_NEAR(h.bwd_kernel_us, 12, 1e-12);
	CHECK_NEAR(h.bwd_kernel2d_us, 9, 1e-12);
	CHECK_NEAR(h.subgraph_us, 12, 1e-12);
	CHECK_NEAR(h.bwd_subgraph_us, 13, 1e-12);
	CHECK_STR(note, "block/mlp (3+3): fwd 40/20 + 9/3 x 10.0/8.0, bwd 72/40 + 14/3 x 12.0/9.0 us, DDP subgraph 12/13");
	memset(&h, 0, sizeof h);
	CHECK(torchkern_compiled(&c, 0, &h, NULL, 0));
	check_compiled_accum0(&h);
	/* a probe without its compiled rows (an older CSV): nothing */
	struct calib none;
	calib_init(&none);
	CHECK_INT(parse_probe(compiled_csv, 155, "old.csv", &none), 0);  /* the comment, header and two eager rows */
	CHECK_INT(none.ntkern, 2);
	CHECK(!torchkern_compiled(&none, 5, &h, NULL, 0));
	calib_release(&none);
	/* a row appended again (a lease's host rows after a calibration's) replaces the earlier one in its place */
	static const char again[] = "section,name,size,bytes,kernels,us\nhost,tp_coll,16,0,1,150.00\n"
				    "host,fwd_linear,16,0,1,20.00\nhost,tp_coll,16,0,1,80.00\nhost,tp_coll,32,0,1,90.00\n";
	calib_init(&none);
	CHECK_INT(parse_probe(again, sizeof again - 1, "again.csv", &none), 0);
	CHECK_INT(none.ntkern, 3);
	CHECK_STR(none.tkern[0].name, "tp_coll");
	CHECK_NEAR(none.tkern[0].us, 80, 1e-12);
	CHECK_NEAR(none.tkern[2].size, 32, 1e-12);
	double tp = 0;
	CHECK(torchkern_tp_coll(&none, &tp) && tp == 80);
	calib_release(&none);

	/* the raw CSV written and read back (--refit), then the model: no base and no eager op classes, so accum_us is
	 * 0 and the fit holds the AccumulateGrad (the numbers above); host.compiled takes host.eager's accum_us and
	 * opt_us, coll_us both modes' all_reduce - eager_add = 20 */
	char dir[] = "/tmp/test_host_XXXXXX";
	calib_model_h100(&c);
	CHECK(mkdtemp(dir) != NULL);
	CHECK_INT(rawio_write(&c, dir), 0);
	CHECK_INT(rawio_read(&back, dir), 0);
	CHECK_INT(back.ntkern, c.ntkern);
	struct hwmodel *hw = calib_model_load(&back, dir, "test-host");
	if (hw) {
		const struct hw_host_cost *k = &hw->host.mode[EXEC_COMPILED], *e = &hw->host.mode[EXEC_EAGER];
		check_compiled_accum0(k);
		CHECK_NEAR(k->coll_us, 20, 1e-12);
		CHECK_NEAR(k->accum_us, e->accum_us, 0);
		CHECK_NEAR(k->opt_us, e->opt_us, 0);
		CHECK_NEAR(k->step_us, e->step_us, 0);
		CHECK(strstr(hw->host.source, "compiled: block/mlp (3+3)") != NULL);
		CHECK_NEAR(k->subgraph_us, 12, 1e-12);
		hwmodel_free(hw);
	}
	calib_model_done(&c, &back, dir);
}

/* What eager F.linear launches beside its GEMMs (the probe's extra rows): 40 forward GEMMs with 30 other kernels
 * taking 33 us in all, 80 backward GEMMs with 80 others taking 72 us: 110 / 120 = 0.917 kernels a GEMM (3
 * decimals), 105 / 110 = 0.955 us each; the mixed stream's gap 1.5 us. A GEMM then costs 0.917 * (0.955 + 1.5) =
 * 2.251235 us beside its table time; with families but no extra rows, nothing; without families, launch_us. */
static void test_gemm_extra(void)
{
	static const char csv[] = "# torch 2.11, test\nsection,name,size,bytes,kernels,us\n"
				  "kernel,elementwise.add,67108864,402653184,1.00,100.000\n"
				  "kernel,elementwise.add,268435456,1610612736,1.00,390.000\n"
				  "gap,mixed,800,0,800,1.500\n"
				  "extra,linear_fwd,40,0,30,33.000\nextra,linear_bwd,80,0,80,72.000\n";
	struct calib c;
	calib_init(&c);
	CHECK_INT(parse_probe(csv, sizeof csv - 1, "extra.csv", &c), 0);
	struct hwmodel hw;
	make_hw(&hw);
	CHECK(torchkern_fill(&c, 1e6, &hw.gpu.kern));
	CHECK_NEAR(hw.gpu.kern.gap_us, 1.5, 1e-12);
	CHECK_NEAR(hw.gpu.kern.gemm_extra_kernels, 0.917, 1e-12);
	CHECK_NEAR(hw.gpu.kern.gemm_extra_us, 0.955, 1e-12);
	CHECK_NEAR(ops_gemm_overhead_s(&hw), 0.917 * (0.955 + 1.5) * 1e-6, 1e-18);
	/* written in the model (gpu.kernels.gemm_extra) and loaded back */
	{
		struct calib back;
		char dir[] = "/tmp/test_host_extra_XXXXXX";
		calib_init(&back);
		calib_model_h100(&c);
		CHECK(mkdtemp(dir) != NULL);
		struct hwmodel *m = calib_model_load(&c, dir, "test-extra");
		if (m) {
			CHECK_NEAR(m->gpu.kern.gemm_extra_kernels, 0.917, 1e-12);
			CHECK_NEAR(m->gpu.kern.gemm_extra_us, 0.955, 1e-12);
			hwmodel_free(m);
		}
		char cmd[100];
		snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
		CHECK_INT(system(cmd), 0);
		calib_release(&back);
	}
	hw.gpu.kern.gemm_extra_kernels = 0;
	CHECK_NEAR(ops_gemm_overhead_s(&hw), 0, 0);
	hw.gpu.kern.present = false;
	CHECK_NEAR(ops_gemm_overhead_s(&hw), hw.gpu.launch_us * 1e-6, 1e-18);
	/* a probe without extra rows (every calibration before them): no gemm_extra */
	c.ntkern -= 2;
	struct hw_kernels k;
	CHECK(torchkern_fill(&c, 1e6, &k));
	CHECK_NEAR(k.gemm_extra_kernels, 0, 0);
	calib_release(&c);
}

/* A family's rate is a line through two sizes at least (calibrate/torchkern.c, fit_family). add at 64 Mi and 256 Mi
 * elements, 6 bytes each: 402,653,184 B in 100 us and 1,610,612,736 B in 350 us, a slope of 250 us per 1,207,959,552
 * B, 4,831.8 GB/s (bytes/us = MB/s, to 0.1). add and gelu (4 bytes an element) at 64 Mi elements only (--quick's
 * sweep until 2026-11-28): two byte counts, one size; the line through them would be the ops' difference
 * (134,217,728 B in 20 us: 6,710.9 GB/s), so the family is not fitted, and without another family neither is any. */
static void test_family_sizes(void)
{
	static const char two[] = "section,name,size,bytes,kernels,us\n"
				  "kernel,elementwise.add,67108864,402653184,1.00,100.000\n"
				  "kernel,elementwise.add,268435456,1610612736,1.00,350.000\n";
	static const char one[] = "section,name,size,bytes,kernels,us\n"
				  "kernel,elementwise.add,67108864,402653184,1.00,100.000\n"
				  "kernel,elementwise.gelu,67108864,268435456,1.00,80.000\n";
	struct calib c;
	struct hw_kernels k;
	calib_init(&c);
	CHECK_INT(parse_probe(two, sizeof two - 1, "two.csv", &c), 0);
	CHECK(torchkern_fill(&c, 1e6, &k));
	CHECK_NEAR(k.fam[KF_ELEMENTWISE].gbps, 4831.8, 1e-9);
	calib_release(&c);
	calib_init(&c);
	CHECK_INT(parse_probe(one, sizeof one - 1, "one.csv", &c), 0);
	CHECK(!torchkern_fill(&c, 1e6, &k));
	calib_release(&c);
}

int main(void)
{
	struct hwmodel hw;
	struct scenario s;
	struct result r1, r2;
	make_hw(&hw);

	/* host costs of a mode: op = op_us + launch_us, coll = op_us + coll_us + group_us, bucket = bucket_us +
	 * coll_us + group_us; training.host_us_per_op replaces op and coll */
	{
		CHECK_INT(scenario_load_string("t.yaml", dense_yaml(1), NULL, &s), 0);
		struct host_cost hc;
		ops_host_cost(&hw, &s, &hc);
		CHECK_NEAR(hc.op, 10e-6, 1e-12);
		CHECK_NEAR(hc.coll, 29e-6, 1e-12);
		CHECK_NEAR(hc.bucket, 50e-6, 1e-12);
		CHECK_NEAR(hc.step, 100e-6, 1e-12);
		CHECK_NEAR(hc.grad_hook, 10e-6, 1e-12);  /* no accum_us: an op's (DDP's per-tensor copies) */
		s.train.exec = EXEC_CUDA_GRAPHS;  /* no costs given for it here: 0 */
		ops_host_cost(&hw, &s, &hc);
		CHECK_NEAR(hc.op + hc.coll + hc.bucket + hc.step, 0, 1e-12);
		s.train.exec = EXEC_EAGER;
		s.train.host_us_per_op = 34;
		ops_host_cost(&hw, &s, &hc);
		CHECK_NEAR(hc.op, 34e-6, 1e-12);
		CHECK_NEAR(hc.coll, 34e-6, 1e-12);
		CHECK_NEAR(hc.grad_hook, 34e-6, 1e-12);
		/* group_us: a call on a real group's extra, on every collective call and bucket, not on an op */
		s.train.host_us_per_op = 0;
		hw.host.mode[EXEC_EAGER].group_us = 7;
		ops_host_cost(&hw, &s, &hc);
		CHECK_NEAR(hc.op, 10e-6, 1e-12);
		CHECK_NEAR(hc.coll, 36e-6, 1e-12);    /* 9 + 20 + 7 */
		CHECK_NEAR(hc.bucket, 57e-6, 1e-12);  /* 30 + 20 + 7 */
		CHECK_INT(scenario_load_string("t.yaml", dense_yaml(2), NULL, &s), 0);
		CHECK_INT(predict_run(&s, &hw, NULL, &r2), 0);
		CHECK_NEAR(r2.step_time_s, 298e-6, 1e-6);  /* DDP's one bucket 7 us later than below */
		hw.host.mode[EXEC_EAGER].group_us = 0;
	}

	/* one GPU and DDP on two (see the derivation at the top) */
	CHECK_INT(scenario_load_string("t.yaml", dense_yaml(1), NULL, &s), 0);
	CHECK_INT(predict_run(&s, &hw, NULL, &r1), 0);
	CHECK_NEAR(r1.step_time_s, 241e-6, 1e-6);
	CHECK_INT(scenario_load_string("t.yaml", dense_yaml(2), NULL, &s), 0);
	CHECK_INT(predict_run(&s, &hw, NULL, &r2), 0);
	CHECK_NEAR(r2.step_time_s, 291e-6, 1e-6);
	CHECK(r2.step_time_s > r1.step_time_s);
	/* the GPU waits for the host all step but for the 14 (15 with DDP) ops' own 1 us */
	CHECK_NEAR(r1.breakdown_s.host_wait, 241e-6 - 14e-6, 1e-5);

	/* host.eager.rank_spread: the expected largest of n standard normals (1/sqrt(pi) for 2; tables give 1.0294
	 * for 4, 1.4236 for 8, 3.2414 for 1,000), and a job of n GPUs going at its slowest process. With a spread of
	 * 0.07 the 2-GPU step's 290 us of host work take 290 (1 + 0.07 / sqrt(pi)) = 301.45 us, then the last op's
	 * 1 us; one GPU has no slower process: 241 us as before */
	CHECK_NEAR(ops_max_normal(1), 0, 1e-12);
	CHECK_NEAR(ops_max_normal(2), 0.5641896, 1e-6);
	CHECK_NEAR(ops_max_normal(4), 1.0293754, 1e-6);
	CHECK_NEAR(ops_max_normal(8), 1.4236003, 1e-6);
	CHECK_NEAR(ops_max_normal(1000), 3.2414, 1e-4);
	hw.host.mode[EXEC_EAGER].rank_spread = 0.07;
	CHECK_NEAR(ops_host_rank_factor(&hw, &s), 1 + 0.07 * 0.5641896, 1e-7);
	CHECK_INT(predict_run(&s, &hw, NULL, &r2), 0);
	CHECK_NEAR(r2.step_time_s, 290e-6 * (1 + 0.07 * 0.5641896) + 1e-6, 1e-7);
	CHECK_INT(scenario_load_string("t.yaml", dense_yaml(1), NULL, &s), 0);
	CHECK_INT(predict_run(&s, &hw, NULL, &r1), 0);
	CHECK_NEAR(r1.step_time_s, 241e-6, 1e-6);
	hw.host.mode[EXEC_EAGER].rank_spread = 0;

	/* the host drift band (sim/hostband.h): the one-GPU step is the host's 240 us of work and the last op's 1 us,
	 * so with every host cost x0.8 and x1.5 it takes 240 x 0.8 + 1 = 193 and 240 x 1.5 + 1 = 361 us; a range of
	 * x0.99 to x1.01 moves it under 5 % (238.6 to 243.4 us): no band; nor without the factors */
	hw.host.mode[EXEC_EAGER].drift_lo = 0.8;
	hw.host.mode[EXEC_EAGER].drift_hi = 1.5;
	CHECK_INT(hostband_run(&s, &hw, NULL, &r1), 0);
	CHECK_NEAR(r1.host_band.lo_s, 193e-6, 1e-7);
	CHECK_NEAR(r1.host_band.hi_s, 361e-6, 1e-7);
	CHECK_NEAR(r1.host_band.f_lo, 0.8, 1e-12);
	CHECK_NEAR(r1.host_band.f_hi, 1.5, 1e-12);
	CHECK_NEAR(r1.step_time_s, 241e-6, 1e-6);  /* the prediction itself as it was */
	CHECK_NEAR(hw.host.mode[EXEC_EAGER].op_us, 9, 1e-12);  /* on a copy: the model stays */
	hw.host.mode[EXEC_EAGER].drift_lo = 0.99;
	hw.host.mode[EXEC_EAGER].drift_hi = 1.01;
	CHECK_INT(hostband_run(&s, &hw, NULL, &r1), 0);
	CHECK(r1.host_band.hi_s == 0 && r1.host_band.lo_s == 0);
	hw.host.mode[EXEC_EAGER].drift_lo = hw.host.mode[EXEC_EAGER].drift_hi = 0;
	CHECK_INT(hostband_run(&s, &hw, NULL, &r1), 0);
	CHECK(r1.host_band.hi_s == 0);

	/* the power cap (gpu.power): of the 14 us of GPU work, the 5 GEMMs (2 forward linears, 2 weight and 1 input
	 * gradient) are compute-bound (Wc = 5 us), the other 9 ops memory-bound (Wm = 9 us). With memory-bound
	 * kernels at w = 0.6 of the cap, x = 3: v = ((T - 0.6*9)/5)^(1/2) = 6.8 for T = 241 us, capped at
	 * burst_speedup 1.3. The GPU work shrinks to 5/1.3 + 9 us; the host still issues the last op at 240 us, which
	 * runs 14/(5/1.3 + 9) times faster than its 1 us */
	hw.gpu.burst_speedup = 1.3;
	hw.gpu.power_exponent = 3;
	hw.gpu.power_mem_frac = 0.6;
	CHECK_INT(scenario_load_string("t.yaml", dense_yaml(1), NULL, &s), 0);
	CHECK_INT(predict_run(&s, &hw, NULL, &r1), 0);
	CHECK_NEAR(r1.breakdown_s.compute + r1.breakdown_s.optimizer, 5e-6 / 1.3 + 9e-6, 1e-6);
	CHECK_NEAR(r1.step_time_s, 240e-6 + 1e-6 * (5 / 1.3 + 9) / 14, 1e-8);
	hw.gpu.burst_speedup = 1;

	/* the host keeps ahead: with a GPU op of 1 s each, the host's 340 us vanish in the first op's issue
	 * (step 100 us + op 10 us), so the step is 14 s + 110 us */
	hw.gpu.launch_us = 1e6;
	CHECK_INT(scenario_load_string("t.yaml", dense_yaml(1), NULL, &s), 0);
	CHECK_INT(predict_run(&s, &hw, NULL, &r1), 0);
	CHECK_NEAR(r1.step_time_s, 14 + 110e-6, 1e-9);

	/* host cost by op class (host.eager's measured keys, sim/ops_host.c): gemm2d_us 20 (a dense layer's
	 * activations are 2-D), bwd_gemm2d_us 30, bwd_op_us 15, accum_us 4 per parameter tensor, backward_us 50 per
	 * micro-batch, opt_us 60; other forward ops op_us + launch_us = 10. The 8 -> 8 -> 8 model:
	 *   forward   linear 20, relu 10, linear 20, log_softmax 10, nll_loss 10                        =  70
	 *   backward  the backward() call 50; nll_loss_bwd 15, log_softmax_bwd 15, linear_wgrad 30 + 4 (its weight's
	 *             AccumulateGrad), bias_grad 15 + 4, linear_dgrad 30; relu_bwd 15, linear_wgrad 34, bias_grad 19
	 *                                                                                         = 50 + 181 = 231
	 *   optimizer 60, the step's own 100
	 * so the host issues the optimizer at 100 + 70 + 231 + 60 = 461 us and the step ends 1 us later. */
	{
		struct hw_host_cost *e = &hw.host.mode[EXEC_EAGER];
		hw.gpu.launch_us = 1;
		e->gemm2d_us = 20, e->bwd_gemm2d_us = 30, e->bwd_op_us = 15, e->accum_us = 4, e->backward_us = 50;
		e->opt_us = 60;
		CHECK_INT(scenario_load_string("t.yaml", dense_yaml(1), NULL, &s), 0);
		CHECK_INT(predict_run(&s, &hw, NULL, &r1), 0);
		CHECK_NEAR(r1.step_time_s, 462e-6, 1e-8);
		struct opcost o[OPS_MAX];
		struct opctx c = { &hw, &s, 1, 2, 0 };
		int n = ops_dense_bwd(&c, 1, o);
		CHECK_NEAR(o[0].host + o[1].host, 30e-6, 1e-12);      /* nll_loss_bwd, log_softmax_bwd */
		CHECK_NEAR(o[2].host, 34e-6, 1e-12);                  /* linear_wgrad and its AccumulateGrad */
		CHECK_NEAR(o[n - 1].host, 30e-6, 1e-12);              /* linear_dgrad */
		struct host_cost hc;
		ops_host_cost(&hw, &s, &hc);
		CHECK_NEAR(hc.mb, 50e-6, 1e-12);
		CHECK_NEAR(hc.accum, 0, 1e-12);  /* AccumulateGrad is on the wgrad and bias ops */
		CHECK_NEAR(hc.opt, 60e-6, 1e-12);
		*e = (struct hw_host_cost){ .step_us = 100, .op_us = 9, .launch_us = 1, .coll_us = 20, .bucket_us = 30 };
	}

	/* the dense list 784 -> 256 -> 128 -> 64 -> 10 with biases:
	 * 784*256+256 + 256*128+128 + 128*64+64 + 64*10+10 = 200960 + 32896 + 8256 + 650 = 242762 parameters;
	 * model FLOPs 6 * (weights 242304) per sample; saved activations for 128 fp32 samples: each linear's input
	 * 128*(784+256+128+64)*4 = 630784 bytes plus log_softmax's output 128*10*4 = 5120: 635904 */
	{
		const char *y = "name: m\n"
				"model: {type: dense, widths: [784, 256, 128, 64, 10], dtype: fp32}\n"
				"training: {global_batch: 128, micro_batch: 128, master_weights: fp32}\n"
				"parallel: {gpus: 1}\nhardware: h100-dgx\n";
		CHECK_INT(scenario_load_string("m.yaml", y, NULL, &s), 0);
		CHECK_INT(s.model.layers, 4);
		CHECK_NEAR(scenario_params_total(&s), 242762, 1e-12);
		CHECK_NEAR(scenario_model_flops(&s), 6.0 * 242304 * 128, 1e-12);
		CHECK_NEAR(mem_dense_act_bytes(&s), 635904, 1e-12);
	}
	test_compiled(&hw);
	test_compiled_ddp(&hw);
	test_layer_kernels(&hw);
	test_compiled_probe();
	test_rank_spread();
	test_drift();
	test_drift_written();
	test_step_pieces();
	test_gemm_extra();
	test_family_sizes();
	return check_result();
}
