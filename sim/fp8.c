/* fp8: the recipes' GEMM rates, quantize bytes and scale bookkeeping (see fp8.h). */
#include "sim/fp8.h"

#include <math.h>
#include "sim/ops.h"

bool fp8_on(const struct scenario *sc)
{
	return sc->train.fp8.recipe != FP8_NONE;
}

double fp8_elem_bytes(const struct scenario *sc)
{
	switch (sc->train.fp8.recipe) {
	case FP8_MXFP8:
		return 1 + 1.0 / 32;
	case FP8_NVFP4:
		return 0.5 + 1.0 / 16;
	case FP8_DELAYED:
	case FP8_CURRENT:
		return 1;
	case FP8_NONE:
		break;
	}
	return dtype_bytes(sc->model.dtype);
}

/* A GEMM's time: its math at the format's rate or its operands' and output's bytes through HBM (operands of q
 * bytes, a model-dtype output), whichever is longer, plus the launch. */
static double gemm_s(const struct hwmodel *hw, const struct scenario *sc, double count, double m, double n,
		     double k)
{
	double q = fp8_elem_bytes(sc), e = dtype_bytes(sc->model.dtype);
	double t_math;
	if (sc->train.fp8.recipe == FP8_NVFP4) {
		t_math = hwmodel_gemm_fp4_s(hw, count * m, n, k);  /* the stacked rows: count GEMMs' FLOPs */
	} else {
		double eff = hwmodel_gemm_eff(hw, DT_FP8, count * m, n, k);
		t_math = count * 2 * m * n * k / (hw->gpu.peak_tflops[DT_FP8] * 1e12 * eff);
	}
	double bytes = count * ((m * k + k * n) * q + m * n * e);
	double t_mem = bytes / (hwmodel_mem_gbps(hw, bytes) * 1e9);
	return fmax(t_math, t_mem) + ops_gemm_overhead_s(hw);
}

static double plain_gemm_s(const struct hwmodel *hw, enum dtype dt, double count, double m, double n, double k)
{
	double eff = hwmodel_gemm_eff(hw, dt, count * m, n, k);
	double t_math = count * 2 * m * n * k / (hw->gpu.peak_tflops[dt] * 1e12 * eff);
	double bytes = count * (m * k + k * n + m * n) * dtype_bytes(dt);
	double t_mem = bytes / (hwmodel_mem_gbps(hw, bytes) * 1e9);
	return fmax(t_math, t_mem) + ops_gemm_overhead_s(hw);
}

double fp8_linear_gemm_s(const struct hwmodel *hw, const struct scenario *sc, double m, double n, double k)
{
	return fp8_grouped_gemm_s(hw, sc, 1, m, n, k);
}

double fp8_grouped_gemm_s(const struct hwmodel *hw, const struct scenario *sc, double count, double m, double n,
			  double k)
{
	if (!fp8_on(sc))
		return plain_gemm_s(hw, sc->model.dtype, count, m, n, k);
	return gemm_s(hw, sc, count, m, n, k);
}

double fp8_quantize_bytes(const struct scenario *sc, double elems)
{
	return elems * (dtype_bytes(sc->model.dtype) + 2 * fp8_elem_bytes(sc));
}

bool fp8_separate_amax(const struct scenario *sc)
{
	return sc->train.fp8.recipe == FP8_CURRENT;
}

bool fp8_amax_reduction(const struct scenario *sc)
{
	return sc->train.fp8.recipe == FP8_DELAYED;
}

int fp8_tensors_per_layer(const struct scenario *sc, int bwd)
{
	/* qkv, proj, and fc1, fc2 of the MLP; with experts, fc1 and fc2 of each local expert (TE's GroupedLinear
	 * scales every expert's GEMM of its own) and of the shared experts */
	const struct moe_cfg *e = &sc->model.moe;
	int linears = 4;
	if (e->experts > 0)
		linears = 2 + 2 * (e->experts / sc->par.ep) + (e->shared_experts > 0 ? 2 : 0);
	return bwd ? linears : 2 * linears;
}

double fp8_scale_update_bytes(const struct scenario *sc, double tensors)
{
	return tensors * (2.0 * sc->train.fp8.amax_history * 4 + 8);
}

double fp8_weight_extra_bytes_per_param(const struct scenario *sc)
{
	if (!fp8_on(sc))
		return 0;
	double pair = 2 * fp8_elem_bytes(sc);
	return sc->train.fp8.param_gather ? pair - dtype_bytes(sc->model.dtype) : pair;
}

double fp8_param_gather_bytes_per_param(const struct scenario *sc)
{
	return fp8_on(sc) && sc->train.fp8.param_gather ? fp8_elem_bytes(sc) : dtype_bytes(sc->model.dtype);
}

double fp8_attention_factor(const struct hwmodel *hw, const struct scenario *sc)
{
	if (!fp8_on(sc) || !sc->train.fp8.attention)
		return 1;
	const struct hw_gpu *g = &hw->gpu;
	enum dtype dt = sc->model.dtype;
	double c16 = g->gemm_dtype_eff[dt] > 0 ? g->gemm_dtype_eff[dt] : g->gemm_max_eff;
	double c8 = g->gemm_dtype_eff[DT_FP8] > 0 ? g->gemm_dtype_eff[DT_FP8] : g->gemm_max_eff;
	return g->peak_tflops[dt] * c16 / (g->peak_tflops[DT_FP8] * c8);
}
