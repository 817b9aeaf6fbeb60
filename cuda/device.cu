/* device: device query (identity, versions, peer access), the random-fill kernel every measurement uses, launch
 * overhead and the small helpers of gb_internal.h. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cuda/gb_internal.h"
#include "cuda/gb_nvml.h"
#include "util/diag.h"

const char *gb_call_name(const char *expr)
{
	static thread_local char buf[64];
	size_t i = 0;
	while (expr[i] && expr[i] != '(' && i + 1 < sizeof buf) {
		buf[i] = expr[i];
		i++;
	}
	buf[i] = 0;
	return buf;
}

size_t gb_dtype_in_bytes(enum dtype dt)
{
	switch (dt) {
	case DT_FP8: return 1;
	case DT_BF16: case DT_FP16: return 2;
	default: return 4;
	}
}

size_t gb_dtype_out_bytes(enum dtype dt)
{
	return dt == DT_FP32 || dt == DT_TF32 ? 4 : 2;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

void gb_stats(double *v, int n, struct gb_stat *st)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	st->samples = n;
	st->min_us = v[0];
	st->median_us = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
	int i90 = (int)(0.9 * (n - 1) + 0.5);
	st->p90_us = v[i90];
}

/* splitmix64: a well-mixed 64-bit hash of (seed, index) */
__device__ static inline unsigned long long mix64(unsigned long long x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

template <typename T>
__global__ void fill_kernel(T *p, size_t n, unsigned long long seed, float scale)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		unsigned long long h = mix64(seed * 0x100000001b3ull ^ i);
		float u = (float)(h >> 40) * (1.0f / 16777216.0f);  /* [0, 1) */
		p[i] = T(scale * (2.0f * u - 1.0f));
	}
}

int gb_fill_random(void *p, size_t n, enum dtype dt, unsigned long long seed, float scale, cudaStream_t s)
{
	int dev, sms;
	GB_CUDA(cudaGetDevice(&dev));
	GB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	size_t want = (n + 255) / 256;
	unsigned blocks = (unsigned)(want < (size_t)sms * 32 ? want : (size_t)sms * 32);
	if (blocks == 0)
		return 0;
	switch (dt) {
	case DT_BF16: fill_kernel<<<blocks, 256, 0, s>>>((__nv_bfloat16 *)p, n, seed, scale); break;
	case DT_FP16: fill_kernel<<<blocks, 256, 0, s>>>((__half *)p, n, seed, scale); break;
	case DT_FP8: fill_kernel<<<blocks, 256, 0, s>>>((__nv_fp8_e4m3 *)p, n, seed, scale); break;
	default: fill_kernel<<<blocks, 256, 0, s>>>((float *)p, n, seed, scale); break;
	}
	GB_CUDA(cudaGetLastError());
	return 0;
}

int gb_device_count(void)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess) {
		(void)cudaGetLastError();
		return -(int)e;
	}
	return n;
}

int gb_query(int max_gpus, struct gb_system *sys)
{
	memset(sys, 0, sizeof *sys);
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess) {
		diag_errorf("%s (cudaGetDeviceCount: %s)",
			e == cudaErrorNoDevice ? "no CUDA GPU found on this machine" :
			e == cudaErrorInsufficientDriver ? "no NVIDIA driver (or one too old for this CUDA)" :
			"no usable GPU", cudaGetErrorString(e));
		return GS_EENV;
	}
	if (n == 0) {
		diag_errorf("no CUDA GPU found on this machine");
		return GS_EENV;
	}
	if (n > GB_MAX_GPUS)
		n = GB_MAX_GPUS;
	if (max_gpus > 0 && max_gpus < n)
		n = max_gpus;
	sys->ngpus = n;
	GB_CUDA(cudaRuntimeGetVersion(&sys->cuda_runtime));
	GB_CUDA(cudaDriverGetVersion(&sys->cuda_driver));
	sys->cublaslt_version = (int)cublasLtGetVersion();
	GB_NCCL(ncclGetVersion(&sys->nccl_version));
	sys->nvml = gb_nvml_open();
	if (!sys->nvml || gb_nvml_driver(sys->driver, sizeof sys->driver) != 0) {
		FILE *f = fopen("/proc/driver/nvidia/version", "r");
		char line[256];
		if (f && fgets(line, sizeof line, f)) {
			/* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  ..." */
			char *p = strstr(line, "Module");
			if (p && sscanf(p + 6, " %31s", sys->driver) != 1)
				sys->driver[0] = 0;
		}
		if (f)
			fclose(f);
	}
	for (int i = 0; i < n; i++) {
		struct gb_gpu *g = &sys->gpu[i];
		cudaDeviceProp prop;
		GB_CUDA(cudaGetDeviceProperties(&prop, i));
		snprintf(g->name, sizeof g->name, "%.95s", prop.name);
		g->cc_major = prop.major;
		g->cc_minor = prop.minor;
		g->sm_count = prop.multiProcessorCount;
		g->memory_bytes = (double)prop.totalGlobalMem;
		g->l2_bytes = (double)prop.l2CacheSize;
		GB_CUDA(cudaDeviceGetPCIBusId(g->pci_bus_id, (int)sizeof g->pci_bus_id, i));
		int khz = 0;
		if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, i) == cudaSuccess)
			g->sm_clock_max_mhz = khz / 1000;
		if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, i) == cudaSuccess)
			g->mem_clock_max_mhz = khz / 1000;
		(void)cudaGetLastError();
		g->nvlinks_active = -1;
		if (sys->nvml)
			gb_nvml_gpu(g->pci_bus_id, g);
	}
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			int ok = 0;
			if (i != j)
				GB_CUDA(cudaDeviceCanAccessPeer(&ok, i, j));
			sys->p2p[i][j] = (signed char)(i == j ? 1 : ok);
		}
	return 0;
}

int gb_sample_clocks(int dev, struct gb_clocks *out)
{
	memset(out, 0, sizeof *out);
	char bus[32];
	if (!gb_nvml_open() || cudaDeviceGetPCIBusId(bus, (int)sizeof bus, dev) != cudaSuccess) {
		(void)cudaGetLastError();
		return 0;
	}
	gb_nvml_clocks(bus, out);
	return 0;
}

__global__ void empty_kernel(void) {}

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

int gb_launch_time(int dev, double *back_to_back_us, double *roundtrip_us)
{
	int rc = 0;
	cudaStream_t s = NULL;
	cudaEvent_t e0 = NULL, e1 = NULL;
	enum { N = 2000, RT = 200 };
	double rt[RT];
	float ms = 0;
	GB_CUDA(cudaSetDevice(dev));
	GB_CUDA_GO(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), out);
	GB_CUDA_GO(cudaEventCreate(&e0), out);
	GB_CUDA_GO(cudaEventCreate(&e1), out);
	for (int i = 0; i < 200; i++)
		empty_kernel<<<1, 32, 0, s>>>();
	GB_CUDA_GO(cudaStreamSynchronize(s), out);
	GB_CUDA_GO(cudaEventRecord(e0, s), out);
	for (int i = 0; i < N; i++)
		empty_kernel<<<1, 32, 0, s>>>();
	GB_CUDA_GO(cudaEventRecord(e1, s), out);
	GB_CUDA_GO(cudaEventSynchronize(e1), out);
	GB_CUDA_GO(cudaEventElapsedTime(&ms, e0, e1), out);
	*back_to_back_us = ms * 1e3 / N;
	for (int i = 0; i < RT; i++) {
		double t0 = now_us();
		empty_kernel<<<1, 32, 0, s>>>();
		GB_CUDA_GO(cudaStreamSynchronize(s), out);
		rt[i] = now_us() - t0;
	}
	{
		struct gb_stat st;
		gb_stats(rt, RT, &st);
		*roundtrip_us = st.median_us;
	}
	GB_CUDA_GO(cudaGetLastError(), out);
out:
	if (e0) cudaEventDestroy(e0);
	if (e1) cudaEventDestroy(e1);
	if (s) cudaStreamDestroy(s);
	return rc;
}
