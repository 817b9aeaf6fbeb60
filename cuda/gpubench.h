/* gpubench: the measurements `gpusim calibrate` makes on the local GPUs, behind a plain C interface with no CUDA
 * type in it, so calibrate/ stays plain C. cuda/ is the only place that calls CUDA, cuBLASLt, NCCL and NVML.
 *
 * Conventions: every int function returns 0 or a negative GS_* code (util/gserr.h) and never exits. On failure it
 * has printed one line "gpusim: <call>: <error>" on stderr naming the CUDA, cuBLASLt or NCCL call that failed
 * (GS_EENV), or the argument it refused (GS_EINVAL). Times are microseconds of one operation; sizes are bytes.
 * Timings follow one method: warm-up, then back-to-back launches between two CUDA events on the work's own
 * stream, several samples, median. Operands are random (never zeros) and rotated through buffers several times
 * the L2 size, so small problems are not timed from the cache. */
#ifndef GPUBENCH_H
#define GPUBENCH_H

#include <stdbool.h>
#include <stddef.h>
#include "hardware/hwmodel.h"   /* enum coll_op; enum dtype via util/dtype.h */

#ifdef __cplusplus
extern "C" {
#endif

#define GB_MAX_GPUS 16
#define GB_NCCL_ID_BYTES 128

struct gb_gpu {
	char name[96];
	char pci_bus_id[32];
	int cc_major, cc_minor;
	int sm_count;
	double memory_bytes, l2_bytes;
	int sm_clock_max_mhz, mem_clock_max_mhz;  /* NVML; 0 = unknown */
	double power_limit_w;                     /* NVML; 0 = unknown */
	int nvlinks_active;                       /* NVML active NVLinks of this GPU; -1 = unknown */
	bool nvlink_to_switch;                    /* NVML: a link's remote end is an NVSwitch */
};

struct gb_system {
	int ngpus;
	struct gb_gpu gpu[GB_MAX_GPUS];
	int cuda_runtime, cuda_driver;  /* 13000 = 13.0 */
	int cublaslt_version;           /* cublasLtGetVersion(): 130100 = 13.1.0 */
	int nccl_version;               /* ncclGetVersion(): 22809 = 2.28.9 */
	char driver[32];                /* "580.159.04"; "" = unknown */
	bool nvml;                      /* NVML could be loaded */
	signed char p2p[GB_MAX_GPUS][GB_MAX_GPUS];  /* cudaDeviceCanAccessPeer: 1, 0 */
};

/* gb_device_count: CUDA devices, 0 when none, or a negative CUDA error (no driver). Prints nothing. */
int gb_device_count(void);
/* gb_query: fill sys for at most max_gpus GPUs (0 = all). GS_EENV with one clear line when there is no usable
 * GPU or driver. */
int gb_query(int max_gpus, struct gb_system *sys);

struct gb_clocks {
	bool valid;
	int sm_mhz, mem_mhz;
	unsigned long long reasons;  /* NVML clocks event (throttle) reasons bit mask */
	double power_w, temp_c;
};
/* gb_sample_clocks: NVML's current clocks of one GPU; valid false (and 0 returned) where NVML is missing. */
int gb_sample_clocks(int dev, struct gb_clocks *out);

/* One timing: the median, minimum and 90th percentile of the per-operation time over the samples. */
struct gb_stat {
	double median_us, min_us, p90_us;
	int samples;  /* event pairs */
	int inner;    /* operations between one event pair */
};

/* ---- GEMM: cuBLASLt, TN layout (D[m x n] = A^T B with A k x m, B k x n, column-major), heuristic's first
 * algorithm, 32 MiB workspace. bf16/fp16 in and out with fp32 accumulation, tf32 (fp32 data, TF32 tensor cores),
 * fp8 e4m3 in and bf16 out. */
struct gb_gemm;
/* gb_gemm_new: a cuBLASLt handle, stream, workspace and operand pools on device dev, large enough for
 * max_elems_a = max m*k, max_elems_b = max k*n, max_elems_c = max m*n at 4 bytes an element. */
int gb_gemm_new(int dev, double max_elems_a, double max_elems_b, double max_elems_c, struct gb_gemm **out);
void gb_gemm_free(struct gb_gemm *g);
/* gb_gemm_time: time one shape; batch_us is the time to aim for between one event pair (launches hidden behind
 * each other, as in a training step). algo (may be NULL) gets a short description of the algorithm cuBLASLt chose. */
int gb_gemm_time(struct gb_gemm *g, enum dtype dt, long m, long n, long k, int samples, double batch_us,
		 struct gb_stat *st, char *algo, size_t algolen);
/* gb_gemm_check: run one m x n x k product on fresh random data and compare with a double-precision CPU product of
 * the same (rounded) inputs: *rel_err = ||D - ref|| / ||ref||. */
int gb_gemm_check(int dev, enum dtype dt, long m, long n, long k, double *rel_err);

/* ---- Memory-bound kernels: copy (reads and writes bytes/2 each) or add c = a + b (reads 2/3, writes 1/3).
 * bytes is what the kernel moves, read plus written. */
enum gb_mem_kind { GB_MEM_COPY, GB_MEM_ADD };
int gb_mem_time(int dev, enum gb_mem_kind kind, const double *bytes, int nsizes, int samples,
		struct gb_stat *out);
/* gb_launch_time: an empty kernel: *back_to_back_us per launch in a stream of 2000, *roundtrip_us for one launch
 * and cudaStreamSynchronize (host clock, median of 200). */
int gb_launch_time(int dev, double *back_to_back_us, double *roundtrip_us);

/* ---- Sustained load (calibrate's power phase): a cycle of ngemm m x n x k GEMMs (cuBLASLt, as gb_gemm_time) and
 * ncopy copy kernels of copy_bytes each (read + written) repeats back to back on the context's stream for `seconds`,
 * the queue never empty; every sample_s one sample: the time per cycle over the batch of cycles just finished, and
 * NVML's SM clock, power, temperature and throttle reasons read while the next batch runs. */
struct gb_hold_sample {
	double t_s;          /* end of the batch, seconds since the hold began (host clock) */
	double cycle_us;     /* time per cycle over the batch (CUDA events) */
	int sm_mhz;          /* 0 = NVML missing */
	double power_w, temp_c;
	unsigned long long reasons;
};
struct gb_hold_spec {
	enum dtype dt;
	long m, n, k;
	int ngemm;           /* GEMMs a cycle (0: copies only) */
	double copy_bytes;   /* per copy kernel, read + written */
	int ncopy;           /* copies a cycle */
};
/* gb_hold: *nout samples (at most max) */
int gb_hold(struct gb_gemm *g, const struct gb_hold_spec *spec, double seconds, double sample_s,
	    struct gb_hold_sample *out, int max, int *nout);
/* gb_hold_all: the same load held on ngpu contexts at once (one host thread each, so every GPU is under it for the
 * same seconds, as in a training job): context i's samples at out + i * max, nout[i] of them. The first failure's
 * code (every thread is joined). */
int gb_hold_all(struct gb_gemm *const *g, int ngpu, const struct gb_hold_spec *spec, double seconds, double sample_s,
		struct gb_hold_sample *out, int max, int *nout);

/* gb_gap_burst: does a GEMM run faster right after its GPU idled, and for how long? `blocks` times over: nothing
 * is queued for gap_us (the GPU idles; the host waits), then block_us of back-to-back m x n x k GEMMs (dt) run,
 * each between two events. Each GEMM's time goes to the bin of its start (bin_us wide, from the block's first GEMM),
 * the first block (after whatever ran before) left out: us[b] is the mean time of the GEMMs that started in bin b
 * over the other blocks (0: none), b < nbins; *idle_us the median idle measured between one block's last event and
 * the next one's first (the gap the GPU saw: gap_us plus the host's wake-up and launch). */
int gb_gap_burst(struct gb_gemm *g, enum dtype dt, long m, long n, long k, double gap_us, double block_us,
		 int blocks, double bin_us, int nbins, double *us, double *idle_us);

/* gb_copy_overlap: one GPU's stand-in for compute beside communication (there is no collective on one GPU): the
 * m x n x k GEMM (dt) alone and while a copy kernel of `blocks` thread blocks (NCCL's channels: a few SMs moving
 * memory) runs on another stream, and the copy alone and beside the GEMMs. Times of one GEMM and one copy of
 * copy_bytes (read + written), each the median of 5 windows. */
struct gb_copy_ov {
	double gemm_us, gemm_busy_us, copy_us, copy_busy_us;
};
int gb_copy_overlap(struct gb_gemm *g, enum dtype dt, long m, long n, long k, double copy_bytes, unsigned blocks,
		    struct gb_copy_ov *out);

/* ---- Attention core (no fused kernel from C): S = Q K^T (strided-batched cuBLASLt), softmax kernel, O = P V;
 * backward: dV = P^T dO, dP = dO V^T, softmax backward kernel, dQ = dS K, dK = dS^T Q. bf16, no mask.
 * FLOPs: forward 4*bh*s*s*d, backward 8*bh*s*s*d. */
int gb_attn_time(int dev, int bh, int seq, int head_dim, int samples, double *fwd_us, double *bwd_us);
/* gb_attn_check: softmax(Q K^T / sqrt(d)) V on small random inputs against a CPU reference. */
int gb_attn_check(int dev, double *rel_err);

/* ---- NCCL collectives on float data. bytes follows nccl-tests and docs/hardware-model.md: all_gather and
 * reduce_scatter count the whole array, all_to_all the whole per-rank send buffer, send_recv what one rank sends
 * (ring: rank r sends to r+1 and receives from r-1). all_to_all is ncclSend/ncclRecv to every peer in one group. */
struct gb_comm;
/* gb_comm_new_local: one process drives devs[0..n-1] (ncclCommInitAll); buffers of max_bytes per rank. */
int gb_comm_new_local(const int *devs, int n, double max_bytes, struct gb_comm **out);
/* MPI path: rank 0 calls gb_nccl_unique_id and broadcasts the id; each process then calls gb_comm_new_rank. */
int gb_nccl_unique_id(unsigned char id[GB_NCCL_ID_BYTES]);
int gb_comm_new_rank(const unsigned char id[GB_NCCL_ID_BYTES], int nranks, int rank, int dev, double max_bytes,
		     struct gb_comm **out);
void gb_comm_free(struct gb_comm *c);
int gb_comm_nranks(const struct gb_comm *c);
/* gb_coll_bytes: the size actually moved for a request of bytes (whole floats, at least one per rank). */
double gb_coll_bytes(enum coll_op op, int nranks, double bytes);
/* gb_coll_time: warmup ops, then per trial iters back-to-back ops between events on each local rank's stream;
 * trial_us[t] = max over local ranks of elapsed / iters (the caller takes the max over processes). */
int gb_coll_time(struct gb_comm *c, enum coll_op op, double bytes, int warmup, int iters, int trials,
		 double *trial_us);
/* gb_coll_time_hostclock: nccl-tests' own loop (src/common.cu): warmup ops and a sync, then iters ops timed with
 * the host's monotonic clock up to cudaStreamSynchronize of every local stream. */
int gb_coll_time_hostclock(struct gb_comm *c, enum coll_op op, double bytes, bool in_place, int warmup,
			   int iters, double *us);
/* gb_coll_check: all-reduce, all-gather and all-to-all of known values; 0 when every rank got the right result. */
int gb_coll_check(struct gb_comm *c);

/* ---- Overlap: how much a GEMM slows while an all-reduce runs on another stream of the same GPUs, and the reverse.
 * g[i] is a GEMM context on the device of local rank i of c. Each time is the max over local ranks. */
struct gb_overlap {
	double gemm_us, gemm_busy_us;  /* one GEMM alone, and while the collectives run beside it */
	double comm_us, comm_busy_us;  /* one collective alone, and while GEMMs run beside it */
};
/* agree (may be NULL in one process): called with the times measured alone, {gemm_us, comm_us}, to replace
 * them with values every rank shares (the max over the ranks, under MPI), because the loop counts of the
 * measurement beside each other follow from them and every rank must launch the same number of collectives. */
int gb_overlap_time(struct gb_gemm *const *g, struct gb_comm *c, enum dtype dt, long m, long n, long k,
		    enum coll_op op, double comm_bytes, int (*agree)(void *ctx, double *v, int n), void *agree_ctx,
		    struct gb_overlap *out);

#ifdef __cplusplus
}
#endif
#endif
