/* power: sustained load for calibrate's power phase (gpubench.h, gb_hold). The queue is kept full: batch b+1 is
 * enqueued before the host waits for batch b, so the GPU never idles between batches and the NVML readings taken
 * while batch b+1 runs describe a GPU under that load. A batch is as many cycles as fill sample_s. */
#define _POSIX_C_SOURCE 200809L  /* clock_gettime */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cuda/gb_internal.h"
#include "util/diag.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct hold {
	struct gb_gemm *g;
	const struct gb_hold_spec *sp;
	struct gb_gemm_plan p;
	char *pool;          /* copy buffers: 2 * nbuf regions of copy_bytes / 2 */
	size_t half;         /* bytes one copy reads (and writes) */
	int nbuf, sms, gset, cset;
};

static int cycle(struct hold *h)
{
	int rc;
	for (int i = 0; i < h->sp->ngemm; i++)
		if ((rc = gb_gemm_launch(h->g, &h->p, h->gset++, h->g->s)))
			return rc;
	for (int i = 0; i < h->sp->ncopy; i++) {
		char *base = h->pool + (size_t)(h->cset++ % h->nbuf) * 2 * h->half;
		if ((rc = gb_copy_launch(base, base + h->half, h->half / 16, h->sms, h->g->s)))
			return rc;
	}
	return 0;
}

static int batch(struct hold *h, int cycles, cudaEvent_t e0, cudaEvent_t e1)
{
	int rc;
	GB_CUDA(cudaEventRecord(e0, h->g->s));
	for (int c = 0; c < cycles; c++)
		if ((rc = cycle(h)))
			return rc;
	GB_CUDA(cudaEventRecord(e1, h->g->s));
	return 0;
}

int gb_hold(struct gb_gemm *g, const struct gb_hold_spec *spec, double seconds, double sample_s,
	    struct gb_hold_sample *out, int max, int *nout)
{
	struct hold h;
	cudaEvent_t ev[2][2] = {{NULL, NULL}, {NULL, NULL}};
	int rc = 0, cycles, l2 = 0;
	float ms = 0;
	double t0;
	*nout = 0;
	memset(&h, 0, sizeof h);
	h.g = g;
	h.sp = spec;
	if (spec->ngemm < 0 || spec->ncopy < 0 || spec->ngemm + spec->ncopy < 1 || !(seconds > 0) || !(sample_s > 0)) {
		diag_errorf("gb_hold: a cycle needs at least one GEMM or copy, and positive times");
		return GS_EINVAL;
	}
	GB_CUDA(cudaSetDevice(g->dev));
	GB_CUDA(cudaDeviceGetAttribute(&h.sms, cudaDevAttrMultiProcessorCount, g->dev));
	GB_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, g->dev));
	if (spec->ngemm && (rc = gb_gemm_prepare(g, spec->dt, spec->m, spec->n, spec->k, &h.p)))
		return rc;
	if (spec->ncopy) {
		h.half = (size_t)(spec->copy_bytes / 2) & ~(size_t)15;
		if (h.half < 16) {
			diag_errorf("gb_hold: copy size %.0f too small", spec->copy_bytes);
			rc = GS_EINVAL;
			goto out;
		}
		/* rotate over at least 4x the L2, as the other memory timings do */
		h.nbuf = (int)fmax(1.0, ceil(4.0 * l2 / (2.0 * h.half)));
		GB_CUDA_GO(cudaMalloc(&h.pool, 2 * h.half * (size_t)h.nbuf), out);
		if ((rc = gb_fill_random(h.pool, 2 * h.half * (size_t)h.nbuf / 4, DT_FP32, 11, 1.0f, g->s)))
			goto out;
	}
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			GB_CUDA_GO(cudaEventCreate(&ev[i][j]), out);
	/* one cycle to warm up (first-use costs), one timed to size the batches */
	if ((rc = cycle(&h)) || (rc = batch(&h, 1, ev[0][0], ev[0][1])))
		goto out;
	GB_CUDA_GO(cudaEventSynchronize(ev[0][1]), out);
	GB_CUDA_GO(cudaEventElapsedTime(&ms, ev[0][0], ev[0][1]), out);
	cycles = (int)fmin(1e6, fmax(1.0, ceil(sample_s * 1e3 / fmax(ms, 1e-3))));
	t0 = now_s();
	if ((rc = batch(&h, cycles, ev[0][0], ev[0][1])))
		goto out;
	for (int b = 0;; b++) {
		bool more = now_s() - t0 < seconds;
		cudaEvent_t *cur = ev[b % 2], *next = ev[(b + 1) % 2];
		if (more && (rc = batch(&h, cycles, next[0], next[1])))
			goto out;
		GB_CUDA_GO(cudaEventSynchronize(cur[1]), out);
		GB_CUDA_GO(cudaEventElapsedTime(&ms, cur[0], cur[1]), out);
		if (*nout < max) {
			struct gb_hold_sample *s = &out[(*nout)++];
			struct gb_clocks k;
			s->t_s = now_s() - t0;
			s->cycle_us = ms * 1e3 / cycles;
			gb_sample_clocks(g->dev, &k);  /* the next batch is running: its load's clocks and power */
			if (k.valid) {
				s->sm_mhz = k.sm_mhz;
				s->power_w = k.power_w;
				s->temp_c = k.temp_c;
				s->reasons = k.reasons;
			}
		}
		if (!more)
			break;
	}
	GB_CUDA_GO(cudaStreamSynchronize(g->s), out);
out:
	cudaStreamSynchronize(g->s);
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			if (ev[i][j])
				cudaEventDestroy(ev[i][j]);
	if (h.pool)
		cudaFree(h.pool);
	if (spec->ngemm)
		gb_gemm_unprepare(&h.p);
	return rc;
}

/* ---- every GPU at once (gpubench.h, gb_hold_all) */

struct hold_job {
	struct gb_gemm *g;
	const struct gb_hold_spec *sp;
	double seconds, sample_s;
	struct gb_hold_sample *out;
	int max, n, rc;
};

static void *hold_thread(void *arg)
{
	struct hold_job *j = (struct hold_job *)arg;
	j->rc = gb_hold(j->g, j->sp, j->seconds, j->sample_s, j->out, j->max, &j->n);
	return NULL;
}

int gb_hold_all(struct gb_gemm *const *g, int ngpu, const struct gb_hold_spec *spec, double seconds, double sample_s,
		struct gb_hold_sample *out, int max, int *nout)
{
	pthread_t th[GB_MAX_GPUS];
	struct hold_job job[GB_MAX_GPUS];
	int started = 0, rc = 0;
	if (ngpu < 1 || ngpu > GB_MAX_GPUS || max < 1) {
		diag_errorf("gb_hold_all: 1 to %d contexts and room for samples", GB_MAX_GPUS);
		return GS_EINVAL;
	}
	for (int i = 0; i < ngpu; i++) {
		job[i] = (struct hold_job){g[i], spec, seconds, sample_s, out + (size_t)i * max, max, 0, 0};
		if (pthread_create(&th[i], NULL, hold_thread, &job[i]) != 0) {
			diag_errorf("gb_hold_all: pthread_create failed for GPU context %d", i);
			rc = GS_EENV;
			break;
		}
		started++;
	}
	for (int i = 0; i < started; i++) {
		pthread_join(th[i], NULL);
		nout[i] = job[i].n;
		if (!rc)
			rc = job[i].rc;
	}
	return rc;
}

/* ---- one GPU: GEMMs beside a copy kernel of a few blocks (gpubench.h, gb_copy_overlap) */

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int gb_copy_overlap(struct gb_gemm *g, enum dtype dt, long m, long n, long k, double copy_bytes, unsigned blocks,
		    struct gb_copy_ov *out)
{
	struct gb_gemm_plan p;
	cudaStream_t s2 = NULL;
	cudaEvent_t e0 = NULL, e1 = NULL;
	char *pool = NULL;
	int rc = 0, set = 0, ng = 1, nc = 1;
	size_t half = (size_t)(copy_bytes / 2) & ~(size_t)15;
	float ms = 0;
	double v[5];
	memset(out, 0, sizeof *out);
	if (half < 16 || blocks < 1) {
		diag_errorf("gb_copy_overlap: copy size %.0f or %u blocks too small", copy_bytes, blocks);
		return GS_EINVAL;
	}
	if ((rc = gb_gemm_prepare(g, dt, m, n, k, &p)))
		return rc;
	GB_CUDA_GO(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), out);
	GB_CUDA_GO(cudaEventCreate(&e0), out);
	GB_CUDA_GO(cudaEventCreate(&e1), out);
	GB_CUDA_GO(cudaMalloc(&pool, 2 * half), out);
	if ((rc = gb_fill_random(pool, 2 * half / 4, DT_FP32, 13, 1.0f, s2)))
		goto out;
#define GEMMS(cnt, st) do { for (int i_ = 0; i_ < (cnt) && !rc; i_++) rc = gb_gemm_launch(g, &p, set++, st); \
	if (rc) goto out; } while (0)
#define COPIES(cnt, st) do { for (int i_ = 0; i_ < (cnt) && !rc; i_++) \
	rc = gb_copy_launch_blocks(pool, pool + half, half / 16, blocks, st); if (rc) goto out; } while (0)
#define TIMED(st, body, dst) do { GB_CUDA_GO(cudaEventRecord(e0, st), out); body; \
	GB_CUDA_GO(cudaEventRecord(e1, st), out); GB_CUDA_GO(cudaEventSynchronize(e1), out); \
	GB_CUDA_GO(cudaEventElapsedTime(&ms, e0, e1), out); dst = ms * 1e3; } while (0)
	/* sizes: about 20 ms of GEMMs and of copies per window */
	GEMMS(2, g->s);
	TIMED(g->s, GEMMS(1, g->s), out->gemm_us);
	ng = (int)fmax(1, ceil(20000.0 / out->gemm_us));
	COPIES(1, s2);
	TIMED(s2, COPIES(1, s2), out->copy_us);
	nc = (int)fmax(1, ceil(20000.0 / out->copy_us));
	for (int w = 0; w < 5; w++)
		TIMED(g->s, GEMMS(ng, g->s), v[w]);
	qsort(v, 5, sizeof *v, cmp_d);
	out->gemm_us = v[2] / ng;
	for (int w = 0; w < 5; w++)
		TIMED(s2, COPIES(nc, s2), v[w]);
	qsort(v, 5, sizeof *v, cmp_d);
	out->copy_us = v[2] / nc;
	/* GEMMs timed inside a window of copies 1.5x as long, and the reverse */
	for (int w = 0; w < 5; w++) {
		COPIES((int)ceil(1.5 * nc * ng * out->gemm_us / (nc * out->copy_us)) + 1, s2);
		TIMED(g->s, GEMMS(ng, g->s), v[w]);
		GB_CUDA_GO(cudaStreamSynchronize(s2), out);
	}
	qsort(v, 5, sizeof *v, cmp_d);
	out->gemm_busy_us = v[2] / ng;
	for (int w = 0; w < 5; w++) {
		GEMMS((int)ceil(1.5 * nc * out->copy_us / out->gemm_us) + 1, g->s);
		TIMED(s2, COPIES(nc, s2), v[w]);
		GB_CUDA_GO(cudaStreamSynchronize(g->s), out);
	}
	qsort(v, 5, sizeof *v, cmp_d);
	out->copy_busy_us = v[2] / nc;
#undef GEMMS
#undef COPIES
#undef TIMED
out:
	if (s2)
		cudaStreamSynchronize(s2);
	cudaStreamSynchronize(g->s);
	if (pool)
		cudaFree(pool);
	if (e0)
		cudaEventDestroy(e0);
	if (e1)
		cudaEventDestroy(e1);
	if (s2)
		cudaStreamDestroy(s2);
	gb_gemm_unprepare(&p);
	return rc;
}

/* ---- one GPU: GEMM bursts after idle gaps (gpubench.h, gb_gap_burst) */

/* the host waits us microseconds: spinning below 2 ms (a sleep's wake-up is late by tens of microseconds), sleeping
 * above */
static void wait_us(double us)
{
	double end = now_s() + us * 1e-6;
	if (us > 2000) {
		struct timespec ts = {(time_t)((us - 1000) * 1e-6), (long)(fmod(us - 1000, 1e6) * 1e3)};
		nanosleep(&ts, NULL);
	}
	while (now_s() < end)
		;
}

/* one block's ng GEMMs (between events ev[i] and ev[i + 1]) added to the bins of their starts */
static int bin_block(cudaEvent_t *ev, int ng, double bin_us, int nbins, double *sum, int *cnt)
{
	for (int i = 0; i < ng; i++) {
		float t0 = 0, d = 0;
		GB_CUDA(cudaEventElapsedTime(&t0, ev[0], ev[i]));
		GB_CUDA(cudaEventElapsedTime(&d, ev[i], ev[i + 1]));
		int bin = (int)(t0 * 1e3 / bin_us);
		if (bin >= 0 && bin < nbins) {
			sum[bin] += d * 1e3;
			cnt[bin]++;
		}
	}
	return 0;
}

int gb_gap_burst(struct gb_gemm *g, enum dtype dt, long m, long n, long k, double gap_us, double block_us,
		 int blocks, double bin_us, int nbins, double *us, double *idle_us)
{
	struct gb_gemm_plan p;
	cudaEvent_t *ev = NULL, end[2] = {NULL, NULL};
	double *sum = NULL, *idle = NULL;
	int *cnt = NULL, rc = 0, set = 0, nev = 0, ng = 1;
	float ms = 0;
	*idle_us = 0;
	if (!(gap_us >= 0) || !(block_us > 0) || blocks < 2 || !(bin_us > 0) || nbins < 1) {
		diag_errorf("gb_gap_burst: a gap of 0 or more, a positive block and bins, 2 or more blocks");
		return GS_EINVAL;
	}
	for (int b = 0; b < nbins; b++)
		us[b] = 0;
	GB_CUDA(cudaSetDevice(g->dev));
	if ((rc = gb_gemm_prepare(g, dt, m, n, k, &p)))
		return rc;
	sum = (double *)calloc((size_t)nbins, sizeof *sum);
	cnt = (int *)calloc((size_t)nbins, sizeof *cnt);
	idle = (double *)calloc((size_t)blocks, sizeof *idle);
	if (!sum || !cnt || !idle) {
		rc = GS_ENOMEM;
		goto out;
	}
	GB_CUDA_GO(cudaEventCreate(&end[0]), out);
	GB_CUDA_GO(cudaEventCreate(&end[1]), out);
	/* one GEMM's time on the GPU as it is (hot: the caller held it), to size a block */
	GB_CUDA_GO(cudaEventRecord(end[0], g->s), out);
	for (int i = 0; i < 4 && !rc; i++)
		rc = gb_gemm_launch(g, &p, set++, g->s);
	if (rc)
		goto out;
	GB_CUDA_GO(cudaEventRecord(end[1], g->s), out);
	GB_CUDA_GO(cudaEventSynchronize(end[1]), out);
	GB_CUDA_GO(cudaEventElapsedTime(&ms, end[0], end[1]), out);
	ng = (int)fmin(4096, ceil(block_us / fmax(ms * 1e3 / 4, 1.0)));
	ev = (cudaEvent_t *)calloc((size_t)ng + 1, sizeof *ev);
	if (!ev) {
		rc = GS_ENOMEM;
		goto out;
	}
	for (nev = 0; nev <= ng; nev++)
		GB_CUDA_GO(cudaEventCreate(&ev[nev]), out);
	for (int b = 0; b < blocks; b++) {
		GB_CUDA_GO(cudaStreamSynchronize(g->s), out);  /* the queue is empty: the GPU idles from here */
		wait_us(gap_us);
		GB_CUDA_GO(cudaEventRecord(ev[0], g->s), out);
		for (int i = 0; i < ng; i++) {
			if ((rc = gb_gemm_launch(g, &p, set++, g->s)))
				goto out;
			GB_CUDA_GO(cudaEventRecord(ev[i + 1], g->s), out);
		}
		GB_CUDA_GO(cudaEventRecord(end[b % 2], g->s), out);
		GB_CUDA_GO(cudaEventSynchronize(end[b % 2]), out);
		if (b == 0)
			continue;  /* after whatever ran before: no gap of gap_us in front of it */
		GB_CUDA_GO(cudaEventElapsedTime(&ms, end[(b + 1) % 2], ev[0]), out);
		idle[b - 1] = ms * 1e3;
		if ((rc = bin_block(ev, ng, bin_us, nbins, sum, cnt)))
			goto out;
	}
	for (int b = 0; b < nbins; b++)
		us[b] = cnt[b] ? sum[b] / cnt[b] : 0;
	qsort(idle, (size_t)blocks - 1, sizeof *idle, cmp_d);
	*idle_us = idle[(blocks - 1) / 2];
out:
	cudaStreamSynchronize(g->s);
	for (int i = 0; i < nev; i++)
		cudaEventDestroy(ev[i]);
	for (int i = 0; i < 2; i++)
		if (end[i])
			cudaEventDestroy(end[i]);
	free(ev);
	free(sum);
	free(cnt);
	free(idle);
	gb_gemm_unprepare(&p);
	return rc;
}
