/* gb_internal: what the cuda/ files share: error checks that name the failing call, the GEMM context (the overlap
 * measurement drives GEMMs and collectives together), the random-fill kernel and small statistics. */
#ifndef GB_INTERNAL_H
#define GB_INTERNAL_H

#include <cuda_runtime.h>
#include <cublasLt.h>
#include <nccl.h>
#include <stdio.h>
#include "cuda/gpubench.h"
#include "util/gserr.h"
#include "util/diag.h"

/* Each returns GS_EENV from the enclosing function after printing "gpusim: call: error". */
#define GB_CUDA(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
	diag_errorf("%s: %s", gb_call_name(#call), cudaGetErrorString(e_)); return GS_EENV; } } while (0)
#define GB_LT(call) do { cublasStatus_t s_ = (call); if (s_ != CUBLAS_STATUS_SUCCESS) { \
	diag_errorf("%s: %s", gb_call_name(#call), cublasLtGetStatusString(s_)); return GS_EENV; } \
	} while (0)
#define GB_NCCL(call) do { ncclResult_t r_ = (call); if (r_ != ncclSuccess) { \
	diag_errorf("%s: %s", gb_call_name(#call), ncclGetErrorString(r_)); return GS_EENV; } } while (0)
/* the same inside a function with cleanup: sets rc and jumps to label */
#define GB_CUDA_GO(call, label) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
	diag_errorf("%s: %s", gb_call_name(#call), cudaGetErrorString(e_)); rc = GS_EENV; goto label; } \
	} while (0)
#define GB_LT_GO(call, label) do { cublasStatus_t s_ = (call); if (s_ != CUBLAS_STATUS_SUCCESS) { \
	diag_errorf("%s: %s", gb_call_name(#call), cublasLtGetStatusString(s_)); rc = GS_EENV; \
	goto label; } } while (0)
#define GB_NCCL_GO(call, label) do { ncclResult_t r_ = (call); if (r_ != ncclSuccess) { \
	diag_errorf("%s: %s", gb_call_name(#call), ncclGetErrorString(r_)); rc = GS_EENV; goto label; } \
	} while (0)

/* "cudaMalloc(&p, n)" -> "cudaMalloc": the call's name for messages */
const char *gb_call_name(const char *expr);

/* Fill n elements of dt (DT_FP32/DT_TF32: float) with uniform values in [-scale, scale] from a hash of seed and
 * index: random-looking, reproducible, never all zeros. */
int gb_fill_random(void *p, size_t n, enum dtype dt, unsigned long long seed, float scale, cudaStream_t s);
size_t gb_dtype_in_bytes(enum dtype dt);   /* operand element size: bf16/fp16 2, fp8 1, tf32/fp32 4 */
size_t gb_dtype_out_bytes(enum dtype dt);  /* output element size: tf32/fp32 4, others 2 (fp8 writes bf16) */

/* gb_stats: sort v[0..n-1] and fill median, min and p90. */
void gb_stats(double *v, int n, struct gb_stat *st);

/* gb_copy_launch: the copy kernel of membw.cu, src -> dst, n16 16-byte elements, on stream s */
int gb_copy_launch(const void *src, void *dst, size_t n16, int sms, cudaStream_t s);
/* the same kernel with a given number of 256-thread blocks (a grid-stride loop) */
int gb_copy_launch_blocks(const void *src, void *dst, size_t n16, unsigned blocks, cudaStream_t s);

/* One prepared GEMM shape of a context (descriptors and the chosen algorithm). */
struct gb_gemm_plan {
	enum dtype dt;
	long m, n, k;
	cublasLtMatmulDesc_t op;
	cublasLtMatrixLayout_t la, lb, lc;
	cublasLtMatmulAlgo_t algo;
	size_t ws_needed;
	int nsets;                 /* operand sets rotated through */
	size_t a_bytes, b_bytes, c_bytes;
};

struct gb_gemm {
	int dev;
	cudaStream_t s;
	cublasLtHandle_t lt;
	void *ws;
	size_t ws_bytes;
	void *a, *b, *c;              /* operand pools */
	size_t a_cap, b_cap, c_cap;   /* bytes */
	int filled;                   /* dtype the pools hold, -1 = none */
	double l2_bytes;
	cudaEvent_t e0, e1;
};

/* gb_gemm_prepare: descriptors, heuristic algorithm and rotation count for one shape; refills the pools with
 * random data of dt when they hold another dtype. gb_gemm_launch runs operand set `set` on stream s. */
int gb_gemm_prepare(struct gb_gemm *g, enum dtype dt, long m, long n, long k, struct gb_gemm_plan *p);
int gb_gemm_launch(struct gb_gemm *g, const struct gb_gemm_plan *p, int set, cudaStream_t s);
void gb_gemm_unprepare(struct gb_gemm_plan *p);

#endif
