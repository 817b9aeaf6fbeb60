/* test_gradcomp: gradient compression on the data-parallel reduction (issue 13 item 9): a narrower reduction
 * dtype (parallel.grad_reduce_dtype), PowerSGD of rank r and top-k with error feedback
 * (parallel.grad_compression), on the toy GPU (tests/toy_hw.h: memory-bound ops at 1000 GB/s, ring collectives
 * of alpha 10 us + bytes at 100 GB/s bus bandwidth; over 2 ranks an all-reduce moves 2(n-1)/n = 1 of its bytes,
 * an all-gather or reduce-scatter (n-1)/n = 1/2). Model: an MLP of 2 layers, h = 64, f = 256 (each layer two
 * matrices, 2*64*256 = 32,768 parameters), fp32 gradients, dp = 2, one micro-batch: the whole model's 65,536
 * gradients are one bucket, reduced after the last backward with nothing to hide behind, so each variant
 * changes the step by exactly its own tasks' time. */
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
		 "training: {global_batch: 2, micro_batch: 1, grad_dtype: fp32}\nparallel: {dp: 2%s}\n"
		 "hardware: h100-dgx\n", par_extra);
	return scenario_load_string("t.yaml", buf, NULL, s);
}

static double step(const struct scenario *s, const struct hwmodel *hw)
{
	struct result r;
	CHECK_INT(predict_run(s, hw, NULL, &r), 0);
	return r.step_time_s;
}

static double gradients(const struct scenario *s, const struct hwmodel *hw)
{
	struct build b;
	CHECK_INT(build_programs(s, hw, 0, &b), 0);
	double g = b.stages[0].gradients;
	build_release(&b);
	return g;
}

#define US 1e-6
/* the plain all-reduce of 65,536 fp32 gradients: 10 us + 262,144 B / 100 GB/s = 12.62144 us */
static const double ar32 = 12.62144 * US;

/* bf16 reduction: cast in (65,536 x (4 + 2) B = 0.393216 us), all-reduce 131,072 B (10 + 1.31072 us), cast back
 * (0.393216 us): 0.524288 us shorter. Under ZeRO-1 a reduce-scatter: 10 + 1.31072 us fp32, 10 + 0.65536 us bf16,
 * and the cast back only of the 1/2 shard (0.196608 us): 0.065536 us shorter. */
static void test_reduce_dtype(const struct hwmodel *hw)
{
	struct scenario plain, bf, z, zbf;
	CHECK_INT(load(&plain, ""), 0);
	CHECK_INT(load(&bf, ", grad_reduce_dtype: bf16"), 0);
	CHECK_TICKS(step(&bf, hw) - step(&plain, hw), (0.393216 + 11.31072 + 0.393216) * US - ar32, 16);
	CHECK_INT(load(&z, ", zero: 1"), 0);
	CHECK_INT(load(&zbf, ", zero: 1, grad_reduce_dtype: bf16"), 0);
	CHECK_TICKS(step(&zbf, hw) - step(&z, hw), -0.065536 * US, 16);
	CHECK_NEAR(gradients(&bf, hw), gradients(&plain, hw), 0);  /* the buffer stays fp32 */

	/* ZeRO-3 (FSDP2's reduce_dtype): each layer's 32,768 gradients are cast on the DP stream (32,768 x 6 B =
	 * 0.196608 us), reduce-scattered in bf16 (10 + 65,536 x 1/2 / 1e11 = 10.32768 us against 10.65536 us for
	 * 131,072 B of fp32) and the 16,384 of the shard cast back (0.098304 us): the two layers' reductions, which
	 * follow the backward's gathers on the DP stream with nothing hidden, take 2 x 0.032768 us less */
	CHECK_INT(load(&z, ", zero: 3"), 0);
	CHECK_INT(load(&zbf, ", zero: 3, grad_reduce_dtype: bf16"), 0);
	CHECK_TICKS(step(&zbf, hw) - step(&z, hw), 2 * (0.196608 + 10.32768 + 0.098304 - 10.65536) * US, 16);
}

/* PowerSGD rank 2. Per layer the matrices fc1 (256 x 64) and fc2 (64 x 256): P factors 256*2 + 64*2 = 640
 * elements, Q factors 64*2 + 256*2 = 640; for 2 layers 1,280 each, all-reduced as 5,120 B fp32: 10.0512 us each.
 * Compute stream: error feedback and the copy, 5 x 65,536 x 4 B = 1.31072 us, and P = M Q (4 GEMMs). DP stream:
 * all-reduce P, Gram-Schmidt 3 x 4 B x 1,280 x (2+1)/2 = 23,040 B = 0.02304 us and Q = M^T P, all-reduce Q,
 * M = P Q^T and the new error (3 x 65,536 x 4 B = 0.786432 us). No vectors. Memory: the error buffer (65,536 x
 * 4 B) and the Q factors (1,280 x 4 B) on top of the gradients: 267,264 B. */
static void test_powersgd(const struct hwmodel *hw)
{
	struct scenario plain, s;
	CHECK_INT(load(&plain, ""), 0);
	CHECK_INT(load(&s, ", grad_compression: {method: powersgd, rank: 2}"), 0);
	double g1 = ops_gemm_s(hw, DT_BF16, 256, 2, 64), g2 = ops_gemm_s(hw, DT_BF16, 64, 2, 256);
	double t_p = 2 * (g1 + g2), t_q = 2 * (ops_gemm_s(hw, DT_BF16, 64, 2, 256) + ops_gemm_s(hw, DT_BF16, 256, 2, 64));
	double t_approx = 2 * (ops_gemm_s(hw, DT_BF16, 256, 64, 2) + ops_gemm_s(hw, DT_BF16, 64, 256, 2));
	double want = 1.31072 * US + t_p + 10.0512 * US + 0.02304 * US + t_q + 10.0512 * US + t_approx + 0.786432 * US;
	CHECK_TICKS(step(&s, hw) - step(&plain, hw), want - ar32, 16);
	CHECK_NEAR(gradients(&s, hw) - gradients(&plain, hw), 267264, 0);
}

/* top-k, 1 %: k = ceil(655.36) = 656 of the 65,536. Compute stream: error feedback, |g|, the selection and the
 * new error, 11 x 65,536 x 4 B = 2.883584 us. DP stream: all-gather the values, 2 x 656 x 4 = 5,248 B (10 +
 * 0.02624 us), and the int64 indices, 10,496 B (10 + 0.05248 us); zero the bucket, add the 1,312 entries, divide:
 * 3 x 65,536 x 4 + 1,312 x (4 + 8 + 4) = 807,424 B = 0.807424 us. Memory: the error buffer, 262,144 B. */
static void test_topk(const struct hwmodel *hw)
{
	struct scenario plain, s;
	CHECK_INT(load(&plain, ""), 0);
	CHECK_INT(load(&s, ", grad_compression: {method: topk, ratio: 0.01}"), 0);
	CHECK_TICKS(step(&s, hw) - step(&plain, hw), (2.883584 + 10.02624 + 10.05248 + 0.807424) * US - ar32, 16);
	CHECK_NEAR(gradients(&s, hw) - gradients(&plain, hw), 262144, 0);
}

static void test_errors(void)
{
	struct scenario s;
	cap_begin();
	CHECK(load(&s, ", zero: 1, grad_compression: {method: topk}") != 0);
	CHECK_CONTAINS(cap_end(), "parallel.grad_compression: a DDP communication hook on the all-reduce, not with "
				  "ZeRO (zero is 1)");
	cap_begin();
	CHECK(load(&s, ", grad_compression: {method: topk, rank: 4}") != 0);
	CHECK_CONTAINS(cap_end(), "parallel.grad_compression.rank: only for method powersgd");
	cap_begin();
	CHECK(load(&s, ", grad_compression: {method: topk, ratio: 2}") != 0);
	CHECK_CONTAINS(cap_end(), "parallel.grad_compression.ratio");
}

int main(void)
{
	struct hwmodel *hw = toy_load();
	if (!hw)
		return check_result();
	test_reduce_dtype(hw);
	test_powersgd(hw);
	test_topk(hw);
	test_errors();
	hwmodel_free(hw);
	return check_result();
}
