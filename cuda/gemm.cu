/* gemm: cuBLASLt GEMM timing. Invariant: the operand pools always hold random values of the dtype being timed
 * (refilled when the dtype changes), and each shape rotates through as many operand sets as fit in the pools,
 * up to enough to touch 4x the L2 between two uses of one set, so no timed product reads its inputs from L2
 * left warm by the previous one. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cuda/gb_internal.h"
#include "util/diag.h"

enum { WS_BYTES = 32 << 20, MAX_SETS = 64, MAX_SAMPLES = 64 };

static size_t pool_bytes(double elems)
{
	double b = elems * 4.0;
	if (b < 64.0 * (1 << 20))
		b = 64.0 * (1 << 20);
	return ((size_t)b + 255) & ~(size_t)255;
}

int gb_gemm_new(int dev, double max_elems_a, double max_elems_b, double max_elems_c, struct gb_gemm **out)
{
	int rc = 0;
	int l2 = 0;
	struct gb_gemm *g = (struct gb_gemm *)calloc(1, sizeof *g);
	*out = NULL;
	if (!g)
		return GS_ENOMEM;
	g->dev = dev;
	g->filled = -1;
	g->ws_bytes = WS_BYTES;
	g->a_cap = pool_bytes(max_elems_a);
	g->b_cap = pool_bytes(max_elems_b);
	g->c_cap = pool_bytes(max_elems_c);
	GB_CUDA_GO(cudaSetDevice(dev), fail);
	GB_CUDA_GO(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev), fail);
	g->l2_bytes = l2;
	GB_CUDA_GO(cudaStreamCreateWithFlags(&g->s, cudaStreamNonBlocking), fail);
	GB_CUDA_GO(cudaEventCreate(&g->e0), fail);
	GB_CUDA_GO(cudaEventCreate(&g->e1), fail);
	GB_LT_GO(cublasLtCreate(&g->lt), fail);
	GB_CUDA_GO(cudaMalloc(&g->ws, g->ws_bytes), fail);
	GB_CUDA_GO(cudaMalloc(&g->a, g->a_cap), fail);
	GB_CUDA_GO(cudaMalloc(&g->b, g->b_cap), fail);
	GB_CUDA_GO(cudaMalloc(&g->c, g->c_cap), fail);
	*out = g;
	return 0;
fail:
	gb_gemm_free(g);
	return rc;
}

void gb_gemm_free(struct gb_gemm *g)
{
	if (!g)
		return;
	cudaSetDevice(g->dev);
	if (g->s)
		cudaStreamSynchronize(g->s);
	cudaFree(g->a);
	cudaFree(g->b);
	cudaFree(g->c);
	cudaFree(g->ws);
	if (g->lt)
		cublasLtDestroy(g->lt);
	if (g->e0)
		cudaEventDestroy(g->e0);
	if (g->e1)
		cudaEventDestroy(g->e1);
	if (g->s)
		cudaStreamDestroy(g->s);
	(void)cudaGetLastError();
	free(g);
}

void gb_gemm_unprepare(struct gb_gemm_plan *p)
{
	if (p->op) cublasLtMatmulDescDestroy(p->op);
	if (p->la) cublasLtMatrixLayoutDestroy(p->la);
	if (p->lb) cublasLtMatrixLayoutDestroy(p->lb);
	if (p->lc) cublasLtMatrixLayoutDestroy(p->lc);
	p->op = NULL;
	p->la = p->lb = p->lc = NULL;
}

static void types(enum dtype dt, cudaDataType_t *in, cudaDataType_t *outt, cublasComputeType_t *ct)
{
	*ct = CUBLAS_COMPUTE_32F;
	switch (dt) {
	case DT_BF16: *in = *outt = CUDA_R_16BF; break;
	case DT_FP16: *in = *outt = CUDA_R_16F; break;
	case DT_FP8: *in = CUDA_R_8F_E4M3; *outt = CUDA_R_16BF; break;
	case DT_TF32: *in = *outt = CUDA_R_32F; *ct = CUBLAS_COMPUTE_32F_FAST_TF32; break;
	default: *in = *outt = CUDA_R_32F; break;
	}
}

int gb_gemm_prepare(struct gb_gemm *g, enum dtype dt, long m, long n, long k, struct gb_gemm_plan *p)
{
	int rc = 0;
	cudaDataType_t in, outt;
	cublasComputeType_t ct;
	cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
	cublasLtMatmulPreference_t pref = NULL;
	cublasLtMatmulHeuristicResult_t res;
	int nres = 0;
	size_t ws = g->ws_bytes;
	double per_set;
	memset(p, 0, sizeof *p);
	p->dt = dt;
	p->m = m;
	p->n = n;
	p->k = k;
	p->a_bytes = (size_t)m * k * gb_dtype_in_bytes(dt);
	p->b_bytes = (size_t)k * n * gb_dtype_in_bytes(dt);
	p->c_bytes = (size_t)m * n * gb_dtype_out_bytes(dt);
	/* 256-byte aligned operand sets */
	p->a_bytes = (p->a_bytes + 255) & ~(size_t)255;
	p->b_bytes = (p->b_bytes + 255) & ~(size_t)255;
	p->c_bytes = (p->c_bytes + 255) & ~(size_t)255;
	if (m <= 0 || n <= 0 || k <= 0 || p->a_bytes > g->a_cap || p->b_bytes > g->b_cap || p->c_bytes > g->c_cap) {
		diag_errorf("gemm %ldx%ldx%ld does not fit the operand buffers", m, n, k);
		return GS_EINVAL;
	}
	per_set = (double)(p->a_bytes + p->b_bytes + p->c_bytes);
	p->nsets = (int)ceil(4.0 * g->l2_bytes / per_set);
	if (p->nsets < 1) p->nsets = 1;
	if (p->nsets > MAX_SETS) p->nsets = MAX_SETS;
	if ((size_t)p->nsets > g->a_cap / p->a_bytes) p->nsets = (int)(g->a_cap / p->a_bytes);
	if ((size_t)p->nsets > g->b_cap / p->b_bytes) p->nsets = (int)(g->b_cap / p->b_bytes);
	if ((size_t)p->nsets > g->c_cap / p->c_bytes) p->nsets = (int)(g->c_cap / p->c_bytes);

	GB_CUDA(cudaSetDevice(g->dev));
	if (g->filled != (int)dt) {
		size_t eb = gb_dtype_in_bytes(dt);
		/* tf32 and fp32 operands in [-1, 1]; fp8 too (e4m3 holds it with 3 mantissa bits) */
		if ((rc = gb_fill_random(g->a, g->a_cap / eb, dt, 1, 1.0f, g->s)) ||
		    (rc = gb_fill_random(g->b, g->b_cap / eb, dt, 2, 1.0f, g->s)))
			return rc;
		GB_CUDA(cudaMemsetAsync(g->c, 0, g->c_cap, g->s));
		GB_CUDA(cudaStreamSynchronize(g->s));
		g->filled = (int)dt;
	}
	types(dt, &in, &outt, &ct);
	GB_LT_GO(cublasLtMatmulDescCreate(&p->op, ct, CUDA_R_32F), fail);
	GB_LT_GO(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta), fail);
	GB_LT_GO(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb), fail);
	GB_LT_GO(cublasLtMatrixLayoutCreate(&p->la, in, (uint64_t)k, (uint64_t)m, k), fail);
	GB_LT_GO(cublasLtMatrixLayoutCreate(&p->lb, in, (uint64_t)k, (uint64_t)n, k), fail);
	GB_LT_GO(cublasLtMatrixLayoutCreate(&p->lc, outt, (uint64_t)m, (uint64_t)n, m), fail);
	GB_LT_GO(cublasLtMatmulPreferenceCreate(&pref), fail);
	GB_LT_GO(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws),
		 fail);
	GB_LT_GO(cublasLtMatmulAlgoGetHeuristic(g->lt, p->op, p->la, p->lb, p->lc, p->lc, pref, 1, &res, &nres), fail);
	if (nres < 1) {
		diag_errorf("cublasLtMatmulAlgoGetHeuristic: no algorithm for %s %ldx%ldx%ld",
			dt == DT_FP8 ? "fp8" : "gemm", m, n, k);
		rc = GS_EENV;
		goto fail;
	}
	p->algo = res.algo;
	p->ws_needed = res.workspaceSize;
	cublasLtMatmulPreferenceDestroy(pref);
	return 0;
fail:
	if (pref)
		cublasLtMatmulPreferenceDestroy(pref);
	gb_gemm_unprepare(p);
	return rc;
}

int gb_gemm_launch(struct gb_gemm *g, const struct gb_gemm_plan *p, int set, cudaStream_t s)
{
	const float one = 1.0f, zero = 0.0f;
	set %= p->nsets;
	const char *a = (const char *)g->a + (size_t)set * p->a_bytes;
	const char *b = (const char *)g->b + (size_t)set * p->b_bytes;
	char *c = (char *)g->c + (size_t)set * p->c_bytes;
	GB_LT(cublasLtMatmul(g->lt, p->op, &one, a, p->la, b, p->lb, &zero, c, p->lc, c, p->lc, &p->algo, g->ws,
			     g->ws_bytes, s));
	return 0;
}

static void algo_desc(const struct gb_gemm_plan *p, char *buf, size_t len)
{
	int id = -1, tile = -1, stages = -1, splitk = 0;
	size_t w;
	cublasLtMatmulAlgoConfigGetAttribute(&p->algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &w);
	cublasLtMatmulAlgoConfigGetAttribute(&p->algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, &w);
	cublasLtMatmulAlgoConfigGetAttribute(&p->algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages, &w);
	cublasLtMatmulAlgoConfigGetAttribute(&p->algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk, &w);
	snprintf(buf, len, "algo %d tile %d stages %d splitk %d", id, tile, stages, splitk);
}

int gb_gemm_time(struct gb_gemm *g, enum dtype dt, long m, long n, long k, int samples, double batch_us,
		 struct gb_stat *st, char *algo, size_t algolen)
{
	struct gb_gemm_plan p;
	double v[MAX_SAMPLES];
	int rc, set = 0, inner;
	float ms = 0;
	if (samples < 1) samples = 1;
	if (samples > MAX_SAMPLES) samples = MAX_SAMPLES;
	if ((rc = gb_gemm_prepare(g, dt, m, n, k, &p)))
		return rc;
	if (algo)
		algo_desc(&p, algo, algolen);
	/* warm-up (module load, first-use costs), then one timed product to size the batches */
	for (int i = 0; i < 2; i++)
		if ((rc = gb_gemm_launch(g, &p, set++, g->s)))
			goto out;
	GB_CUDA_GO(cudaEventRecord(g->e0, g->s), out);
	if ((rc = gb_gemm_launch(g, &p, set++, g->s)))
		goto out;
	GB_CUDA_GO(cudaEventRecord(g->e1, g->s), out);
	GB_CUDA_GO(cudaEventSynchronize(g->e1), out);
	GB_CUDA_GO(cudaEventElapsedTime(&ms, g->e0, g->e1), out);
	inner = (int)ceil(batch_us / fmax(ms * 1e3, 1.0));
	if (inner < 1) inner = 1;
	if (inner > 2000) inner = 2000;
	for (int s = 0; s < samples; s++) {
		GB_CUDA_GO(cudaEventRecord(g->e0, g->s), out);
		for (int i = 0; i < inner; i++)
			if ((rc = gb_gemm_launch(g, &p, set++, g->s)))
				goto out;
		GB_CUDA_GO(cudaEventRecord(g->e1, g->s), out);
		GB_CUDA_GO(cudaEventSynchronize(g->e1), out);
		GB_CUDA_GO(cudaEventElapsedTime(&ms, g->e0, g->e1), out);
		v[s] = ms * 1e3 / inner;
	}
	gb_stats(v, samples, st);
	st->inner = inner;
out:
	gb_gemm_unprepare(&p);
	return rc;
}

/* ---- correctness check against a CPU product of the same rounded inputs */

static double to_double(const void *p, size_t i, enum dtype dt)
{
	switch (dt) {
	case DT_BF16: return (double)__bfloat162float(((const __nv_bfloat16 *)p)[i]);
	case DT_FP16: return (double)__half2float(((const __half *)p)[i]);
	case DT_FP8: return (double)(float)(((const __nv_fp8_e4m3 *)p)[i]);
	default: return (double)((const float *)p)[i];
	}
}

static double out_to_double(const void *p, size_t i, enum dtype dt)
{
	return dt == DT_FP8 ? (double)__bfloat162float(((const __nv_bfloat16 *)p)[i]) : to_double(p, i, dt);
}

int gb_gemm_check(int dev, enum dtype dt, long m, long n, long k, double *rel_err)
{
	struct gb_gemm *g = NULL;
	struct gb_gemm_plan p;
	int rc;
	char *ha = NULL, *hb = NULL, *hc = NULL;
	double num = 0, den = 0;
	memset(&p, 0, sizeof p);
	if ((rc = gb_gemm_new(dev, (double)m * k, (double)k * n, (double)m * n, &g)))
		return rc;
	g->filled = -1;
	if ((rc = gb_gemm_prepare(g, dt, m, n, k, &p)))
		goto out;
	/* poison the output, so an unwritten element shows */
	GB_CUDA_GO(cudaMemsetAsync(g->c, 0xff, p.c_bytes, g->s), out);
	if ((rc = gb_gemm_launch(g, &p, 0, g->s)))
		goto out;
	GB_CUDA_GO(cudaStreamSynchronize(g->s), out);
	ha = (char *)malloc(p.a_bytes);
	hb = (char *)malloc(p.b_bytes);
	hc = (char *)malloc(p.c_bytes);
	if (!ha || !hb || !hc) {
		rc = GS_ENOMEM;
		goto out;
	}
	GB_CUDA_GO(cudaMemcpy(ha, g->a, p.a_bytes, cudaMemcpyDeviceToHost), out);
	GB_CUDA_GO(cudaMemcpy(hb, g->b, p.b_bytes, cudaMemcpyDeviceToHost), out);
	GB_CUDA_GO(cudaMemcpy(hc, g->c, p.c_bytes, cudaMemcpyDeviceToHost), out);
	/* D[i + j*m] = sum_l A[l + i*k] * B[l + j*k] */
	for (long j = 0; j < n; j++)
		for (long i = 0; i < m; i++) {
			double ref = 0;
			for (long l = 0; l < k; l++)
				ref += to_double(ha, (size_t)(l + i * k), dt) * to_double(hb, (size_t)(l + j * k), dt);
			double d = out_to_double(hc, (size_t)(i + j * m), dt) - ref;
			num += d * d;
			den += ref * ref;
		}
	*rel_err = den > 0 ? sqrt(num / den) : INFINITY;
	if (isnan(*rel_err))
		*rel_err = INFINITY;
out:
	free(ha);
	free(hb);
	free(hc);
	gb_gemm_unprepare(&p);
	gb_gemm_free(g);
	return rc;
}
