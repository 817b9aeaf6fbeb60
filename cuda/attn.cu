/* attn: the attention core as a C program can run it without a fused kernel: strided-batched cuBLASLt GEMMs and
 * row-wise softmax kernels, bf16 with fp32 accumulation, no mask. Tensors are [bh][s][d] row-major (Q, K, V, O,
 * dO, dQ, dK, dV) and [bh][s][s] (scores/probabilities, their gradients); in cuBLAS's column-major terms a row-major
 * s x d matrix is d x s with leading dimension d. The scores buffer is softmaxed in place, the gradient buffer
 * likewise turned into dS in place, so two s*s tensors per head are all the memory it takes. */
#include <cuda_bf16.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cuda/gb_internal.h"
#include "util/diag.h"

enum { ATT_THREADS = 256, MAX_SAMPLES = 32 };

__device__ static float block_reduce(float v, bool is_max)
{
	__shared__ float part[ATT_THREADS / 32];
	for (int o = 16; o > 0; o >>= 1) {
		float w = __shfl_xor_sync(0xffffffffu, v, o);
		v = is_max ? fmaxf(v, w) : v + w;
	}
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	__syncthreads();
	if (lane == 0)
		part[warp] = v;
	__syncthreads();
	v = part[0];
	for (int i = 1; i < ATT_THREADS / 32; i++)
		v = is_max ? fmaxf(v, part[i]) : v + part[i];
	return v;
}

/* P = softmax(S) along each row of length s, in place */
__global__ void softmax_fwd(__nv_bfloat16 *S, int s)
{
	__nv_bfloat16 *row = S + (size_t)blockIdx.x * s;
	float mx = -INFINITY, sum = 0;
	for (int j = threadIdx.x; j < s; j += ATT_THREADS)
		mx = fmaxf(mx, __bfloat162float(row[j]));
	mx = block_reduce(mx, true);
	for (int j = threadIdx.x; j < s; j += ATT_THREADS)
		sum += __expf(__bfloat162float(row[j]) - mx);
	sum = block_reduce(sum, false);
	float inv = 1.0f / sum;
	for (int j = threadIdx.x; j < s; j += ATT_THREADS)
		row[j] = __float2bfloat16(__expf(__bfloat162float(row[j]) - mx) * inv);
}

/* dS = P * (dP - sum_j P_j dP_j), written over dP */
__global__ void softmax_bwd(const __nv_bfloat16 *P, __nv_bfloat16 *dP, int s)
{
	const __nv_bfloat16 *p = P + (size_t)blockIdx.x * s;
	__nv_bfloat16 *g = dP + (size_t)blockIdx.x * s;
	float dot = 0;
	for (int j = threadIdx.x; j < s; j += ATT_THREADS)
		dot += __bfloat162float(p[j]) * __bfloat162float(g[j]);
	dot = block_reduce(dot, false);
	for (int j = threadIdx.x; j < s; j += ATT_THREADS)
		g[j] = __float2bfloat16(__bfloat162float(p[j]) * (__bfloat162float(g[j]) - dot));
}

/* One strided-batched product D = op(A) op(B), all bf16, column-major views, ready to launch. */
struct bmm {
	cublasLtMatmulDesc_t op;
	cublasLtMatrixLayout_t la, lb, ld;
	cublasLtMatmulAlgo_t algo;
	float alpha;
};

static void bmm_free(struct bmm *b)
{
	if (b->op) cublasLtMatmulDescDestroy(b->op);
	if (b->la) cublasLtMatrixLayoutDestroy(b->la);
	if (b->lb) cublasLtMatrixLayoutDestroy(b->lb);
	if (b->ld) cublasLtMatrixLayoutDestroy(b->ld);
	memset(b, 0, sizeof *b);
}

static int layout(cublasLtMatrixLayout_t *l, long rows, long cols, long ld, int batch, long long stride)
{
	GB_LT(cublasLtMatrixLayoutCreate(l, CUDA_R_16BF, (uint64_t)rows, (uint64_t)cols, ld));
	GB_LT(cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch));
	GB_LT(cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
					       sizeof stride));
	return 0;
}

/* D (m x n, ld m) = op_a(A) op_b(B); A is stored (ta ? k x m : m x k), B (tb ? n x k : k x n), column-major */
static int bmm_init(cublasLtHandle_t lt, struct bmm *b, bool ta, bool tb, long m, long n, long k, int batch,
		    long long sa, long long sb, long long sd, float alpha, size_t ws)
{
	int rc;
	cublasOperation_t opa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, opb = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
	cublasLtMatmulPreference_t pref = NULL;
	cublasLtMatmulHeuristicResult_t res;
	int nres = 0;
	memset(b, 0, sizeof *b);
	b->alpha = alpha;
	GB_LT(cublasLtMatmulDescCreate(&b->op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
	GB_LT(cublasLtMatmulDescSetAttribute(b->op, CUBLASLT_MATMUL_DESC_TRANSA, &opa, sizeof opa));
	GB_LT(cublasLtMatmulDescSetAttribute(b->op, CUBLASLT_MATMUL_DESC_TRANSB, &opb, sizeof opb));
	if ((rc = layout(&b->la, ta ? k : m, ta ? m : k, ta ? k : m, batch, sa)) ||
	    (rc = layout(&b->lb, tb ? n : k, tb ? k : n, tb ? n : k, batch, sb)) ||
	    (rc = layout(&b->ld, m, n, m, batch, sd)))
		return rc;
	GB_LT(cublasLtMatmulPreferenceCreate(&pref));
	cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
	cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(lt, b->op, b->la, b->lb, b->ld, b->ld, pref, 1, &res, &nres);
	cublasLtMatmulPreferenceDestroy(pref);
	if (st != CUBLAS_STATUS_SUCCESS || nres < 1) {
		diag_errorf("cublasLtMatmulAlgoGetHeuristic: %s (attention %ldx%ldx%ld)",
			st != CUBLAS_STATUS_SUCCESS ? cublasLtGetStatusString(st) : "no algorithm", m, n, k);
		return GS_EENV;
	}
	b->algo = res.algo;
	return 0;
}

static int bmm_run(cublasLtHandle_t lt, const struct bmm *b, const void *A, const void *B, void *D, void *ws,
		   size_t wsb, cudaStream_t s)
{
	const float zero = 0;
	GB_LT(cublasLtMatmul(lt, b->op, &b->alpha, A, b->la, B, b->lb, &zero, D, b->ld, D, b->ld, &b->algo, ws, wsb,
			     s));
	return 0;
}

struct attn {
	int bh, s, d;
	cublasLtHandle_t lt;
	cudaStream_t st;
	void *ws;
	size_t wsb;
	__nv_bfloat16 *q, *k, *v, *o, *dout, *dq, *dk, *dv, *S, *G;
	struct bmm qk, pv, dv_, dp, dq_, dk_;
};

static void attn_free(struct attn *a)
{
	struct bmm *all[] = {&a->qk, &a->pv, &a->dv_, &a->dp, &a->dq_, &a->dk_};
	for (int i = 0; i < 6; i++)
		bmm_free(all[i]);
	void *bufs[] = {a->q, a->k, a->v, a->o, a->dout, a->dq, a->dk, a->dv, a->S, a->G, a->ws};
	for (int i = 0; i < 11; i++)
		if (bufs[i])
			cudaFree(bufs[i]);
	if (a->lt) cublasLtDestroy(a->lt);
	if (a->st) cudaStreamDestroy(a->st);
	(void)cudaGetLastError();
}

static int attn_init(struct attn *a, int dev, int bh, int s, int d)
{
	int rc;
	size_t sd = (size_t)bh * s * d, ss = (size_t)bh * s * s;
	long long ssd = (long long)s * d, sss = (long long)s * s;
	memset(a, 0, sizeof *a);
	a->bh = bh;
	a->s = s;
	a->d = d;
	a->wsb = 32 << 20;
	GB_CUDA(cudaSetDevice(dev));
	GB_CUDA(cudaStreamCreateWithFlags(&a->st, cudaStreamNonBlocking));
	GB_LT(cublasLtCreate(&a->lt));
	GB_CUDA(cudaMalloc(&a->ws, a->wsb));
	__nv_bfloat16 **sdbufs[] = {&a->q, &a->k, &a->v, &a->o, &a->dout, &a->dq, &a->dk, &a->dv};
	for (int i = 0; i < 8; i++) {
		GB_CUDA(cudaMalloc((void **)sdbufs[i], sd * 2));
		if ((rc = gb_fill_random(*sdbufs[i], sd, DT_BF16, 100 + i, 1.0f, a->st)))
			return rc;
	}
	GB_CUDA(cudaMalloc((void **)&a->S, ss * 2));
	GB_CUDA(cudaMalloc((void **)&a->G, ss * 2));
	float scale = 1.0f / sqrtf((float)d);
	/* S^T (s x s) = K^cm^T Q^cm: the row-major S */
	if ((rc = bmm_init(a->lt, &a->qk, true, false, s, s, d, bh, ssd, ssd, sss, scale, a->wsb)) ||
	    /* O^cm (d x s) = V^cm P^cm */
	    (rc = bmm_init(a->lt, &a->pv, false, false, d, s, s, bh, ssd, sss, ssd, 1.0f, a->wsb)) ||
	    /* dV^cm = dO^cm P^cm^T */
	    (rc = bmm_init(a->lt, &a->dv_, false, true, d, s, s, bh, ssd, sss, ssd, 1.0f, a->wsb)) ||
	    /* dP (row-major) = V^cm^T dO^cm */
	    (rc = bmm_init(a->lt, &a->dp, true, false, s, s, d, bh, ssd, ssd, sss, 1.0f, a->wsb)) ||
	    /* dQ^cm = K^cm dS^cm */
	    (rc = bmm_init(a->lt, &a->dq_, false, false, d, s, s, bh, ssd, sss, ssd, scale, a->wsb)) ||
	    /* dK^cm = Q^cm dS^cm^T */
	    (rc = bmm_init(a->lt, &a->dk_, false, true, d, s, s, bh, ssd, sss, ssd, scale, a->wsb)))
		return rc;
	GB_CUDA(cudaStreamSynchronize(a->st));
	return 0;
}

static int attn_fwd(struct attn *a)
{
	int rc;
	if ((rc = bmm_run(a->lt, &a->qk, a->k, a->q, a->S, a->ws, a->wsb, a->st)))
		return rc;
	softmax_fwd<<<a->bh * a->s, ATT_THREADS, 0, a->st>>>(a->S, a->s);
	GB_CUDA(cudaGetLastError());
	return bmm_run(a->lt, &a->pv, a->v, a->S, a->o, a->ws, a->wsb, a->st);
}

static int attn_bwd(struct attn *a)
{
	int rc;
	if ((rc = bmm_run(a->lt, &a->dv_, a->dout, a->S, a->dv, a->ws, a->wsb, a->st)) ||
	    (rc = bmm_run(a->lt, &a->dp, a->v, a->dout, a->G, a->ws, a->wsb, a->st)))
		return rc;
	softmax_bwd<<<a->bh * a->s, ATT_THREADS, 0, a->st>>>(a->S, a->G, a->s);
	GB_CUDA(cudaGetLastError());
	if ((rc = bmm_run(a->lt, &a->dq_, a->k, a->G, a->dq, a->ws, a->wsb, a->st)))
		return rc;
	return bmm_run(a->lt, &a->dk_, a->q, a->G, a->dk, a->ws, a->wsb, a->st);
}

int gb_attn_time(int dev, int bh, int seq, int head_dim, int samples, double *fwd_us, double *bwd_us)
{
	struct attn a;
	cudaEvent_t e[3] = {NULL, NULL, NULL};
	double vf[MAX_SAMPLES], vb[MAX_SAMPLES];
	struct gb_stat st;
	int rc;
	float ms;
	if (samples < 1) samples = 1;
	if (samples > MAX_SAMPLES) samples = MAX_SAMPLES;
	if ((rc = attn_init(&a, dev, bh, seq, head_dim)))
		goto out;
	for (int i = 0; i < 3; i++)
		GB_CUDA_GO(cudaEventCreate(&e[i]), out);
	for (int w = 0; w < 2; w++)
		if ((rc = attn_fwd(&a)) || (rc = attn_bwd(&a)))
			goto out;
	for (int i = 0; i < samples; i++) {
		GB_CUDA_GO(cudaEventRecord(e[0], a.st), out);
		if ((rc = attn_fwd(&a)))
			goto out;
		GB_CUDA_GO(cudaEventRecord(e[1], a.st), out);
		if ((rc = attn_bwd(&a)))
			goto out;
		GB_CUDA_GO(cudaEventRecord(e[2], a.st), out);
		GB_CUDA_GO(cudaEventSynchronize(e[2]), out);
		GB_CUDA_GO(cudaEventElapsedTime(&ms, e[0], e[1]), out);
		vf[i] = ms * 1e3;
		GB_CUDA_GO(cudaEventElapsedTime(&ms, e[1], e[2]), out);
		vb[i] = ms * 1e3;
	}
	gb_stats(vf, samples, &st);
	*fwd_us = st.median_us;
	gb_stats(vb, samples, &st);
	*bwd_us = st.median_us;
out:
	for (int i = 0; i < 3; i++)
		if (e[i])
			cudaEventDestroy(e[i]);
	attn_free(&a);
	return rc;
}

static double bf(__nv_bfloat16 x) { return (double)__bfloat162float(x); }

int gb_attn_check(int dev, double *rel_err)
{
	enum { BH = 2, S = 64, D = 32 };
	struct attn a;
	int rc;
	size_t sd = (size_t)BH * S * D;
	__nv_bfloat16 *hq = NULL, *hk = NULL, *hv = NULL, *ho = NULL;
	double num = 0, den = 0;
	if ((rc = attn_init(&a, dev, BH, S, D)))
		goto out;
	if ((rc = attn_fwd(&a)))
		goto out;
	GB_CUDA_GO(cudaStreamSynchronize(a.st), out);
	hq = (__nv_bfloat16 *)malloc(sd * 2);
	hk = (__nv_bfloat16 *)malloc(sd * 2);
	hv = (__nv_bfloat16 *)malloc(sd * 2);
	ho = (__nv_bfloat16 *)malloc(sd * 2);
	if (!hq || !hk || !hv || !ho) {
		rc = GS_ENOMEM;
		goto out;
	}
	GB_CUDA_GO(cudaMemcpy(hq, a.q, sd * 2, cudaMemcpyDeviceToHost), out);
	GB_CUDA_GO(cudaMemcpy(hk, a.k, sd * 2, cudaMemcpyDeviceToHost), out);
	GB_CUDA_GO(cudaMemcpy(hv, a.v, sd * 2, cudaMemcpyDeviceToHost), out);
	GB_CUDA_GO(cudaMemcpy(ho, a.o, sd * 2, cudaMemcpyDeviceToHost), out);
	for (int b = 0; b < BH; b++)
		for (int i = 0; i < S; i++) {
			double p[S], mx = -INFINITY, sum = 0;
			for (int j = 0; j < S; j++) {
				double x = 0;
				for (int t = 0; t < D; t++)
					x += bf(hq[(b * S + i) * D + t]) * bf(hk[(b * S + j) * D + t]);
				p[j] = x / sqrt((double)D);
				mx = fmax(mx, p[j]);
			}
			for (int j = 0; j < S; j++)
				sum += p[j] = exp(p[j] - mx);
			for (int t = 0; t < D; t++) {
				double ref = 0;
				for (int j = 0; j < S; j++)
					ref += p[j] / sum * bf(hv[(b * S + j) * D + t]);
				double dlt = bf(ho[(b * S + i) * D + t]) - ref;
				num += dlt * dlt;
				den += ref * ref;
			}
		}
	*rel_err = den > 0 ? sqrt(num / den) : INFINITY;
out:
	free(hq);
	free(hk);
	free(hv);
	free(ho);
	attn_free(&a);
	return rc;
}
