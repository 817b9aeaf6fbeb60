/* membw: bandwidth of memory-bound kernels (copy, add) against the bytes they move. Each size rotates through
 * distinct regions of two large pools, so consecutive launches never find their data in L2. */
#include <math.h>
#include <stdlib.h>
#include "cuda/gb_internal.h"
#include "util/diag.h"

__global__ void copy_kernel(const int4 *__restrict__ src, int4 *__restrict__ dst, size_t n)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		dst[i] = src[i];
}

__global__ void add_kernel(const float4 *__restrict__ a, const float4 *__restrict__ b, float4 *__restrict__ c,
			   size_t n)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		float4 x = a[i], y = b[i];
		c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
	}
}

enum { MAX_SAMPLES = 64 };

int gb_copy_launch_blocks(const void *src, void *dst, size_t n16, unsigned blocks, cudaStream_t s)
{
	copy_kernel<<<blocks, 256, 0, s>>>((const int4 *)src, (int4 *)dst, n16);
	GB_CUDA(cudaGetLastError());
	return 0;
}

int gb_copy_launch(const void *src, void *dst, size_t n16, int sms, cudaStream_t s)
{
	return gb_copy_launch_blocks(src, dst, n16, (unsigned)fmin(ceil(n16 / 256.0), (double)sms * 8), s);
}

int gb_mem_time(int dev, enum gb_mem_kind kind, const double *bytes, int nsizes, int samples, struct gb_stat *out)
{
	int rc = 0, sms = 0, l2 = 0;
	char *pool = NULL;
	cudaStream_t s = NULL;
	cudaEvent_t e0 = NULL, e1 = NULL;
	double maxb = 0, v[MAX_SAMPLES];
	int nops = kind == GB_MEM_COPY ? 2 : 3;  /* arrays touched */
	size_t cap;
	if (samples < 1) samples = 1;
	if (samples > MAX_SAMPLES) samples = MAX_SAMPLES;
	for (int i = 0; i < nsizes; i++)
		maxb = fmax(maxb, bytes[i]);
	GB_CUDA(cudaSetDevice(dev));
	GB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	GB_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
	/* room for the largest size plus rotation of small ones over 8x L2 */
	cap = (size_t)fmax(maxb, 8.0 * l2);
	cap = (cap + 4095) & ~(size_t)4095;
	GB_CUDA_GO(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), done);
	GB_CUDA_GO(cudaEventCreate(&e0), done);
	GB_CUDA_GO(cudaEventCreate(&e1), done);
	GB_CUDA_GO(cudaMalloc(&pool, cap), done);
	if ((rc = gb_fill_random(pool, cap / 4, DT_FP32, 7, 1.0f, s)))
		goto done;
	for (int i = 0; i < nsizes; i++) {
		/* per-array bytes, a multiple of 16 (one int4) */
		size_t arr = (size_t)(bytes[i] / nops) & ~(size_t)15;
		size_t set = arr * (size_t)nops, n16 = arr / 16;
		int nsets, inner, launch = 0;
		unsigned blocks;
		float ms = 0;
		if (arr < 16) {
			diag_errorf("memory benchmark size %.0f too small", bytes[i]);
			rc = GS_EINVAL;
			goto done;
		}
		nsets = (int)fmin(fmax(1.0, ceil(4.0 * l2 / (double)set)), (double)(cap / set));
		blocks = (unsigned)fmin(ceil(n16 / 256.0), (double)sms * 8);
#define LAUNCH() do { char *base_ = pool + (size_t)(launch++ % nsets) * set; \
		if (kind == GB_MEM_COPY) copy_kernel<<<blocks, 256, 0, s>>>((const int4 *)base_, (int4 *)(base_ + arr), n16); \
		else add_kernel<<<blocks, 256, 0, s>>>((const float4 *)base_, (const float4 *)(base_ + arr), \
						       (float4 *)(base_ + 2 * arr), n16); } while (0)
		for (int w = 0; w < 3; w++)
			LAUNCH();
		GB_CUDA_GO(cudaEventRecord(e0, s), done);
		LAUNCH();
		GB_CUDA_GO(cudaEventRecord(e1, s), done);
		GB_CUDA_GO(cudaEventSynchronize(e1), done);
		GB_CUDA_GO(cudaEventElapsedTime(&ms, e0, e1), done);
		inner = (int)fmin(2000.0, fmax(1.0, ceil(300.0 / fmax(ms * 1e3, 1.0))));
		for (int k = 0; k < samples; k++) {
			GB_CUDA_GO(cudaEventRecord(e0, s), done);
			for (int j = 0; j < inner; j++)
				LAUNCH();
			GB_CUDA_GO(cudaEventRecord(e1, s), done);
			GB_CUDA_GO(cudaEventSynchronize(e1), done);
			GB_CUDA_GO(cudaEventElapsedTime(&ms, e0, e1), done);
			v[k] = ms * 1e3 / inner;
		}
#undef LAUNCH
		GB_CUDA_GO(cudaGetLastError(), done);
		gb_stats(v, samples, &out[i]);
		out[i].inner = inner;
	}
done:
	if (pool) cudaFree(pool);
	if (e0) cudaEventDestroy(e0);
	if (e1) cudaEventDestroy(e1);
	if (s) cudaStreamDestroy(s);
	return rc;
}
