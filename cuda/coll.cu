/* coll: NCCL collectives timed the way nccl-tests times them (back-to-back operations, max over ranks), the
 * nccl-tests host-clock loop itself as a reference, a correctness check, and the GEMM/all-reduce overlap.
 * One struct gb_comm is either every local GPU of one process (ncclCommInitAll) or this process's one rank of a
 * communicator bootstrapped through MPI; every operation is issued for all local ranks inside one NCCL group. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cuda/gb_internal.h"
#include "util/diag.h"

struct gb_comm {
	int nlocal, nranks, rank0;  /* local ranks are rank0 .. rank0+nlocal-1 */
	int dev[GB_MAX_GPUS];
	ncclComm_t comm[GB_MAX_GPUS];
	cudaStream_t s[GB_MAX_GPUS];
	cudaEvent_t e0[GB_MAX_GPUS], e1[GB_MAX_GPUS];
	void *send[GB_MAX_GPUS], *recv[GB_MAX_GPUS];
	size_t max_bytes;
};

enum { MAX_TRIALS = 32 };

static int comm_buffers(struct gb_comm *c)
{
	int rc;
	for (int i = 0; i < c->nlocal; i++) {
		GB_CUDA(cudaSetDevice(c->dev[i]));
		GB_CUDA(cudaStreamCreateWithFlags(&c->s[i], cudaStreamNonBlocking));
		GB_CUDA(cudaEventCreate(&c->e0[i]));
		GB_CUDA(cudaEventCreate(&c->e1[i]));
		GB_CUDA(cudaMalloc(&c->send[i], c->max_bytes));
		GB_CUDA(cudaMalloc(&c->recv[i], c->max_bytes));
		if ((rc = gb_fill_random(c->send[i], c->max_bytes / 4, DT_FP32, 11 + c->rank0 + i, 1.0f, c->s[i])))
			return rc;
		GB_CUDA(cudaMemsetAsync(c->recv[i], 0, c->max_bytes, c->s[i]));
		GB_CUDA(cudaStreamSynchronize(c->s[i]));
	}
	return 0;
}

static size_t round_bytes(double b)
{
	size_t v = (size_t)b;
	return v < 4096 ? 4096 : (v + 4095) & ~(size_t)4095;
}

/* The end of making a communicator: r is the NCCL init call's result; on success the buffers are allocated and
 * *out set, on failure c is freed and the call named in the message. */
static int comm_finish(struct gb_comm *c, ncclResult_t r, const char *call, struct gb_comm **out)
{
	int rc;
	if (r != ncclSuccess) {
		diag_errorf("%s: %s", call, ncclGetErrorString(r));
		free(c);
		return GS_EENV;
	}
	if ((rc = comm_buffers(c))) {
		gb_comm_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

int gb_comm_new_local(const int *devs, int n, double max_bytes, struct gb_comm **out)
{
	struct gb_comm *c = (struct gb_comm *)calloc(1, sizeof *c);
	*out = NULL;
	if (!c)
		return GS_ENOMEM;
	if (n < 1 || n > GB_MAX_GPUS) {
		free(c);
		diag_errorf("bad group size %d", n);
		return GS_EINVAL;
	}
	c->nlocal = c->nranks = n;
	c->max_bytes = round_bytes(max_bytes);
	memcpy(c->dev, devs, sizeof *devs * n);
	return comm_finish(c, ncclCommInitAll(c->comm, n, devs), "ncclCommInitAll", out);
}

int gb_nccl_unique_id(unsigned char id[GB_NCCL_ID_BYTES])
{
	ncclUniqueId u;
	static_assert(sizeof u == GB_NCCL_ID_BYTES, "NCCL unique id size");
	GB_NCCL(ncclGetUniqueId(&u));
	memcpy(id, &u, sizeof u);
	return 0;
}

int gb_comm_new_rank(const unsigned char id[GB_NCCL_ID_BYTES], int nranks, int rank, int dev, double max_bytes,
		     struct gb_comm **out)
{
	ncclUniqueId u;
	struct gb_comm *c = (struct gb_comm *)calloc(1, sizeof *c);
	*out = NULL;
	if (!c)
		return GS_ENOMEM;
	memcpy(&u, id, sizeof u);
	c->nlocal = 1;
	c->nranks = nranks;
	c->rank0 = rank;
	c->dev[0] = dev;
	c->max_bytes = round_bytes(max_bytes);
	cudaError_t e = cudaSetDevice(dev);
	if (e != cudaSuccess) {
		diag_errorf("cudaSetDevice(%d): %s", dev, cudaGetErrorString(e));
		free(c);
		return GS_EENV;
	}
	return comm_finish(c, ncclCommInitRank(&c->comm[0], nranks, u, rank), "ncclCommInitRank", out);
}

void gb_comm_free(struct gb_comm *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->nlocal; i++) {
		cudaSetDevice(c->dev[i]);
		if (c->s[i])
			cudaStreamSynchronize(c->s[i]);
		if (c->comm[i])
			ncclCommDestroy(c->comm[i]);
		cudaFree(c->send[i]);
		cudaFree(c->recv[i]);
		if (c->e0[i]) cudaEventDestroy(c->e0[i]);
		if (c->e1[i]) cudaEventDestroy(c->e1[i]);
		if (c->s[i]) cudaStreamDestroy(c->s[i]);
	}
	(void)cudaGetLastError();
	free(c);
}

int gb_comm_nranks(const struct gb_comm *c)
{
	return c->nranks;
}

/* elements of 4 bytes per rank-part: ops that split the buffer over ranks round to whole floats per rank */
static bool split_op(enum coll_op op)
{
	return op == COLL_ALL_GATHER || op == COLL_REDUCE_SCATTER || op == COLL_ALL_TO_ALL;
}

double gb_coll_bytes(enum coll_op op, int nranks, double bytes)
{
	double unit = split_op(op) ? 4.0 * nranks : 4.0;
	double units = floor(bytes / unit);
	return (units < 1 ? 1 : units) * unit;
}

static const char *op_name(enum coll_op op)
{
	static const char *const names[] = {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "send_recv",
					    "all_to_all"};
	return (unsigned)op < COLL_NOPS ? names[op] : "?";
}

/* Enqueue one operation on every local rank (one NCCL group). */
static int issue(struct gb_comm *c, enum coll_op op, size_t bytes, bool in_place)
{
	int n = c->nranks;
	size_t count = bytes / 4, part = bytes / 4 / (size_t)n;
	GB_NCCL(ncclGroupStart());
	for (int i = 0; i < c->nlocal; i++) {
		int r = c->rank0 + i;
		char *sb = (char *)c->send[i], *rb = in_place ? sb : (char *)c->recv[i];
		ncclComm_t cm = c->comm[i];
		cudaStream_t s = c->s[i];
		ncclResult_t res = ncclSuccess;
		switch (op) {
		case COLL_ALL_REDUCE:
			res = ncclAllReduce(sb, rb, count, ncclFloat, ncclSum, cm, s);
			break;
		case COLL_ALL_GATHER:  /* in place: the rank's part sits at its offset of the whole */
			res = ncclAllGather(in_place ? rb + (size_t)r * part * 4 : sb, rb, part, ncclFloat, cm, s);
			break;
		case COLL_REDUCE_SCATTER:
			res = ncclReduceScatter(sb, in_place ? sb + (size_t)r * part * 4 : rb, part, ncclFloat, ncclSum, cm, s);
			break;
		case COLL_BROADCAST:
			res = ncclBroadcast(sb, rb, count, ncclFloat, 0, cm, s);
			break;
		case COLL_SEND_RECV:
			res = ncclSend(sb, count, ncclFloat, (r + 1) % n, cm, s);
			if (res == ncclSuccess)
				res = ncclRecv(c->recv[i], count, ncclFloat, (r - 1 + n) % n, cm, s);
			break;
		case COLL_ALL_TO_ALL:
			for (int p = 0; p < n && res == ncclSuccess; p++) {
				res = ncclSend(sb + (size_t)p * part * 4, part, ncclFloat, p, cm, s);
				if (res == ncclSuccess)
					res = ncclRecv((char *)c->recv[i] + (size_t)p * part * 4, part, ncclFloat, p, cm, s);
			}
			break;
		default:
			res = ncclInvalidArgument;
		}
		if (res != ncclSuccess) {
			ncclGroupEnd();
			diag_errorf("nccl %s: %s", op_name(op), ncclGetErrorString(res));
			return GS_EENV;
		}
	}
	GB_NCCL(ncclGroupEnd());
	return 0;
}

static int check_size(struct gb_comm *c, double bytes, size_t *out)
{
	if (bytes > (double)c->max_bytes) {
		diag_errorf("collective of %.0f bytes is over the %zu-byte buffers", bytes, c->max_bytes);
		return GS_EINVAL;
	}
	*out = (size_t)bytes;
	return 0;
}

static int sync_all(struct gb_comm *c)
{
	for (int i = 0; i < c->nlocal; i++) {
		GB_CUDA(cudaSetDevice(c->dev[i]));
		GB_CUDA(cudaStreamSynchronize(c->s[i]));
	}
	return 0;
}

/* What every timing loop starts with: the buffer size of op at the nccl-tests size bytes (*b), warm-up ops, and
 * all streams idle. */
static int prepare(struct gb_comm *c, enum coll_op op, double bytes, bool in_place, int warmup, size_t *b)
{
	int rc;
	if ((rc = check_size(c, gb_coll_bytes(op, c->nranks, bytes), b)))
		return rc;
	for (int w = 0; w < warmup; w++)
		if ((rc = issue(c, op, *b, in_place)))
			return rc;
	return sync_all(c);
}

int gb_coll_time(struct gb_comm *c, enum coll_op op, double bytes, int warmup, int iters, int trials,
		 double *trial_us)
{
	int rc;
	size_t b;
	if ((rc = prepare(c, op, bytes, false, warmup, &b)))
		return rc;
	if (iters < 1) iters = 1;
	for (int t = 0; t < trials; t++) {
		double worst = 0;
		for (int i = 0; i < c->nlocal; i++) {
			GB_CUDA(cudaSetDevice(c->dev[i]));
			GB_CUDA(cudaEventRecord(c->e0[i], c->s[i]));
		}
		for (int it = 0; it < iters; it++)
			if ((rc = issue(c, op, b, false)))
				return rc;
		for (int i = 0; i < c->nlocal; i++) {
			GB_CUDA(cudaSetDevice(c->dev[i]));
			GB_CUDA(cudaEventRecord(c->e1[i], c->s[i]));
		}
		for (int i = 0; i < c->nlocal; i++) {
			float ms = 0;
			GB_CUDA(cudaEventSynchronize(c->e1[i]));
			GB_CUDA(cudaEventElapsedTime(&ms, c->e0[i], c->e1[i]));
			worst = fmax(worst, ms * 1e3 / iters);
		}
		trial_us[t] = worst;
	}
	return 0;
}

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

int gb_coll_time_hostclock(struct gb_comm *c, enum coll_op op, double bytes, bool in_place, int warmup, int iters,
			   double *us)
{
	int rc;
	size_t b;
	double t0;
	if ((rc = prepare(c, op, bytes, in_place, warmup, &b)))
		return rc;
	if (iters < 1) iters = 1;
	/* nccl-tests: one more untimed op completed, then the timed loop */
	if ((rc = issue(c, op, b, in_place)) || (rc = sync_all(c)))
		return rc;
	t0 = now_us();
	for (int it = 0; it < iters; it++)
		if ((rc = issue(c, op, b, in_place)))
			return rc;
	if ((rc = sync_all(c)))
		return rc;
	*us = (now_us() - t0) / iters;
	return 0;
}

/* ---- correctness: every rank i holds value (rank+1) at every element, or (rank+1)*1000+element for gather */

__global__ void set_kernel(float *p, size_t n, float base, float step)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		p[i] = base + step * (float)(i % 1024);
}

static int expect(struct gb_comm *c, int i, size_t n, const float *want_of, const char *what)
{
	float *h = (float *)malloc(n * sizeof *h);
	int bad = 0;
	if (!h)
		return GS_ENOMEM;
	GB_CUDA(cudaSetDevice(c->dev[i]));
	if (cudaMemcpy(h, c->recv[i], n * sizeof *h, cudaMemcpyDeviceToHost) != cudaSuccess) {
		free(h);
		GB_CUDA(cudaGetLastError());
	}
	for (size_t j = 0; j < n && !bad; j++)
		if (h[j] != want_of[j]) {
			diag_errorf("nccl %s check: rank %d element %zu is %g, expected %g", what,
				c->rank0 + i, j, h[j], want_of[j]);
			bad = 1;
		}
	free(h);
	return bad ? GS_EINVAL : 0;
}

int gb_coll_check(struct gb_comm *c)
{
	int rc, n = c->nranks;
	const size_t cnt = 4096 * (size_t)n;  /* floats */
	float *want = (float *)malloc(cnt * sizeof *want);
	if (!want)
		return GS_ENOMEM;
	if (cnt * 4 > c->max_bytes) {
		free(want);
		return GS_EINVAL;
	}
	/* all-reduce: sum over ranks of (r+1) + 0.5*(j%1024) = n(n+1)/2 + n*0.5*(j%1024) */
	for (int i = 0; i < c->nlocal; i++) {
		GB_CUDA(cudaSetDevice(c->dev[i]));
		set_kernel<<<64, 256, 0, c->s[i]>>>((float *)c->send[i], cnt, (float)(c->rank0 + i + 1), 0.5f);
		GB_CUDA(cudaGetLastError());
	}
	rc = issue(c, COLL_ALL_REDUCE, cnt * 4, false);
	if (!rc)
		rc = sync_all(c);
	for (size_t j = 0; j < cnt; j++)
		want[j] = (float)(n * (n + 1) / 2) + (float)n * 0.5f * (float)(j % 1024);
	for (int i = 0; i < c->nlocal && !rc; i++)
		rc = expect(c, i, cnt, want, "all_reduce");
	/* all-gather of the first part of each rank: rank r's part holds (r+1) + 0.5*(j%1024) */
	if (!rc)
		rc = issue(c, COLL_ALL_GATHER, cnt * 4, false);
	if (!rc)
		rc = sync_all(c);
	for (size_t j = 0; j < cnt; j++)
		want[j] = (float)(j / 4096 + 1) + 0.5f * (float)((j % 4096) % 1024);
	for (int i = 0; i < c->nlocal && !rc; i++)
		rc = expect(c, i, cnt, want, "all_gather");
	/* all-to-all: rank r receives from peer p the p-th rank's block r */
	if (!rc)
		rc = issue(c, COLL_ALL_TO_ALL, cnt * 4, false);
	if (!rc)
		rc = sync_all(c);
	for (int i = 0; i < c->nlocal && !rc; i++) {
		int r = c->rank0 + i;
		for (size_t j = 0; j < cnt; j++) {
			size_t p = j / 4096, src = (size_t)r * 4096 + j % 4096;  /* element src of rank p */
			want[j] = (float)(p + 1) + 0.5f * (float)(src % 1024);
		}
		rc = expect(c, i, cnt, want, "all_to_all");
	}
	free(want);
	/* restore random send data for later timings */
	for (int i = 0; i < c->nlocal; i++) {
		GB_CUDA(cudaSetDevice(c->dev[i]));
		int r2 = gb_fill_random(c->send[i], c->max_bytes / 4, DT_FP32, 11 + c->rank0 + i, 1.0f, c->s[i]);
		if (r2 && !rc)
			rc = r2;
	}
	if (!rc)
		rc = sync_all(c);
	return rc;
}

/* ---- overlap */

/* Time one loop of `count` GEMMs on every local rank's GEMM stream, or of `count` all-reduces on the comm streams,
 * while the other loop (already enqueued, long enough to cover this one) runs beside it. */
static int gemm_loop(struct gb_gemm *const *g, struct gb_gemm_plan *p, int nlocal, int count, bool timed,
		     double *us)
{
	int rc;
	for (int i = 0; i < nlocal; i++) {
		GB_CUDA(cudaSetDevice(g[i]->dev));
		if (timed)
			GB_CUDA(cudaEventRecord(g[i]->e0, g[i]->s));
		for (int j = 0; j < count; j++)
			if ((rc = gb_gemm_launch(g[i], &p[i], j, g[i]->s)))
				return rc;
		if (timed)
			GB_CUDA(cudaEventRecord(g[i]->e1, g[i]->s));
	}
	if (timed) {
		double worst = 0;
		for (int i = 0; i < nlocal; i++) {
			float ms = 0;
			GB_CUDA(cudaEventSynchronize(g[i]->e1));
			GB_CUDA(cudaEventElapsedTime(&ms, g[i]->e0, g[i]->e1));
			worst = fmax(worst, ms * 1e3 / count);
		}
		*us = worst;
	}
	return 0;
}

static int comm_loop(struct gb_comm *c, enum coll_op op, size_t bytes, int count, bool timed, double *us)
{
	int rc;
	if (timed)
		for (int i = 0; i < c->nlocal; i++) {
			GB_CUDA(cudaSetDevice(c->dev[i]));
			GB_CUDA(cudaEventRecord(c->e0[i], c->s[i]));
		}
	for (int j = 0; j < count; j++)
		if ((rc = issue(c, op, bytes, false)))
			return rc;
	if (timed) {
		double worst = 0;
		for (int i = 0; i < c->nlocal; i++) {
			GB_CUDA(cudaSetDevice(c->dev[i]));
			GB_CUDA(cudaEventRecord(c->e1[i], c->s[i]));
		}
		for (int i = 0; i < c->nlocal; i++) {
			float ms = 0;
			GB_CUDA(cudaEventSynchronize(c->e1[i]));
			GB_CUDA(cudaEventElapsedTime(&ms, c->e0[i], c->e1[i]));
			worst = fmax(worst, ms * 1e3 / count);
		}
		*us = worst;
	}
	return 0;
}

static int sync_gemms(struct gb_gemm *const *g, int nlocal)
{
	for (int i = 0; i < nlocal; i++) {
		GB_CUDA(cudaSetDevice(g[i]->dev));
		GB_CUDA(cudaStreamSynchronize(g[i]->s));
	}
	return 0;
}

int gb_overlap_time(struct gb_gemm *const *g, struct gb_comm *c, enum dtype dt, long m, long n, long k,
		    enum coll_op op, double comm_bytes, int (*agree)(void *ctx, double *v, int n), void *agree_ctx,
		    struct gb_overlap *out)
{
	int rc = 0, nl = c->nlocal, ng, nc;
	struct gb_gemm_plan p[GB_MAX_GPUS];
	size_t b;
	double dummy;
	memset(p, 0, sizeof p);
	memset(out, 0, sizeof *out);
	comm_bytes = gb_coll_bytes(op, c->nranks, comm_bytes);
	if ((rc = check_size(c, comm_bytes, &b)))
		return rc;
	for (int i = 0; i < nl; i++)
		if ((rc = gb_gemm_prepare(g[i], dt, m, n, k, &p[i])))
			goto out;
	/* alone: warm-up, then 20 of each */
	if ((rc = gemm_loop(g, p, nl, 3, false, &dummy)) || (rc = sync_gemms(g, nl)) ||
	    (rc = gemm_loop(g, p, nl, 20, true, &out->gemm_us)))
		goto out;
	if ((rc = comm_loop(c, op, b, 3, false, &dummy)) || (rc = sync_all(c)) ||
	    (rc = comm_loop(c, op, b, 20, true, &out->comm_us)))
		goto out;
	if (agree) {
		double v[2] = {out->gemm_us, out->comm_us};
		if ((rc = agree(agree_ctx, v, 2)))
			goto out;
		out->gemm_us = v[0];
		out->comm_us = v[1];
	}
	/* GEMMs timed inside a window of all-reduces 1.5x as long, and the reverse */
	ng = 20;
	nc = (int)ceil(1.5 * ng * out->gemm_us / out->comm_us) + 2;
	if ((rc = comm_loop(c, op, b, nc, false, &dummy)) || (rc = gemm_loop(g, p, nl, ng, true, &out->gemm_busy_us)) ||
	    (rc = sync_all(c)))
		goto out;
	nc = 20;
	ng = (int)ceil(1.5 * nc * out->comm_us / out->gemm_us) + 2;
	if ((rc = gemm_loop(g, p, nl, ng, false, &dummy)) || (rc = comm_loop(c, op, b, nc, true, &out->comm_busy_us)) ||
	    (rc = sync_gemms(g, nl)))
		goto out;
out:
	for (int i = 0; i < nl; i++)
		gb_gemm_unprepare(&p[i]);
	return rc;
}
