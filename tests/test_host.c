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
 * so data parallelism is slower than one GPU (241/291 = 0.83x) however the batch is split. */
#include <stdlib.h>
#include "scenario/scenario.h"
#include "sim/memory.h"
#include "sim/ops.h"
#include "sim/predict.h"
#include "check.h"

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

int main(void)
{
	struct hwmodel hw;
	struct scenario s;
	struct result r1, r2;
	make_hw(&hw);

	/* host costs of a mode: op = op_us + launch_us, coll = op_us + coll_us, bucket = bucket_us + coll_us;
	 * training.host_us_per_op replaces op and coll */
	{
		CHECK_INT(scenario_load_string("t.yaml", dense_yaml(1), NULL, &s), 0);
		struct host_cost hc;
		ops_host_cost(&hw, &s, &hc);
		CHECK_NEAR(hc.op, 10e-6, 1e-12);
		CHECK_NEAR(hc.coll, 29e-6, 1e-12);
		CHECK_NEAR(hc.bucket, 50e-6, 1e-12);
		CHECK_NEAR(hc.step, 100e-6, 1e-12);
		s.train.exec = EXEC_CUDA_GRAPHS;  /* no costs given for it here: 0 */
		ops_host_cost(&hw, &s, &hc);
		CHECK_NEAR(hc.op + hc.coll + hc.bucket + hc.step, 0, 1e-12);
		s.train.exec = EXEC_EAGER;
		s.train.host_us_per_op = 34;
		ops_host_cost(&hw, &s, &hc);
		CHECK_NEAR(hc.op, 34e-6, 1e-12);
		CHECK_NEAR(hc.coll, 34e-6, 1e-12);
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
		struct opctx c = { &hw, &s, 1, 2 };
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
	return check_result();
}
