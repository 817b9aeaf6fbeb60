/* run: one calibration run: query the GPUs, measure (launch, memory, GEMM, attention, collectives, overlap),
 * fit, write. Each phase adds to one struct calib; a failing phase stops the run and what was measured until
 * then is written to FILE.partial, so no half-measured model replaces a good FILE. Under MPI (one process per
 * GPU), world rank 0 measures its GPU alone and writes; groups of ranks measure collectives together. */
#define _POSIX_C_SOURCE 200809L  /* gethostname, clock_gettime */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "calibrate/base.h"
#include "calibrate/calib.h"
#include "calibrate/gemmtab.h"
#include "calibrate/calmodel.h"
#include "calibrate/mpiboot.h"
#include "calibrate/plan.h"
#include "calibrate/rawio.h"
#include "calibrate/run.h"
#include "calibrate/runcoll.h"
#include "calibrate/runstate.h"
#include "calibrate/scenshapes.h"
#include "calibrate/sustain.h"
#include "calibrate/torchattn.h"
#include "calibrate/torchkern.h"
#include "calibrate/topo.h"
#include "cuda/gpubench.h"
#include "util/gserr.h"
#include "util/diag.h"

extern char **environ;


static void sample_clocks(struct run *r, const char *phase)
{
	struct gb_clocks k;
	if (r->c.nclocks >= CAL_MAX_CLOCKS || gb_sample_clocks(r->dev, &k) || !k.valid)
		return;
	struct cal_clock *cc = &r->c.clocks[r->c.nclocks++];
	snprintf(cc->phase, sizeof cc->phase, "%s", phase);
	cc->sm_mhz = k.sm_mhz;
	cc->mem_mhz = k.mem_mhz;
	cc->reasons = k.reasons;
	cc->power_w = k.power_w;
	cc->temp_c = k.temp_c;
}

static void phase_begin(struct run *r, const char *name)
{
	r->phase = name;
	r->tphase = run_now_s();
	run_progress(r, true, "%s", name);
}

static void phase_end(struct run *r)
{
	size_t l = strlen(r->phases);
	snprintf(r->phases + l, sizeof r->phases - l, "%s%s %.1f s", l ? ", " : "", r->phase, run_now_s() - r->tphase);
	sample_clocks(r, r->phase);
}

static void capture_env(struct calib *c)
{
	size_t l = 0;
	c->id.env[0] = 0;
	for (char **e = environ; e && *e; e++)
		if (strncmp(*e, "NCCL_", 5) == 0 || strncmp(*e, "CUDA_VISIBLE_DEVICES=", 21) == 0 ||
		    strncmp(*e, "CUBLAS", 6) == 0) {
			int w = snprintf(c->id.env + l, sizeof c->id.env - l, "%s%s", l ? " " : "", *e);
			if (w < 0 || (size_t)w >= sizeof c->id.env - l)
				break;
			l += (size_t)w;
		}
}

static void identity(struct run *r)
{
	struct cal_identity *id = &r->c.id;
	const struct gb_gpu *g = &r->sys.gpu[r->dev];
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(id->date, sizeof id->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (gethostname(id->host, sizeof id->host) != 0)
		snprintf(id->host, sizeof id->host, "unknown");
	id->host[sizeof id->host - 1] = 0;
	snprintf(id->mode, sizeof id->mode, "%s", r->o->quick ? "quick" : "full");
	id->ngpus = r->ngpus;
	id->host_gpus = r->sys.ngpus > r->ngpus ? r->sys.ngpus : r->ngpus;
	id->nodes = r->mpi ? r->mi.nodes : 1;
	snprintf(id->gpu_name, sizeof id->gpu_name, "%s", g->name);
	id->sm_count = g->sm_count;
	id->cc_major = g->cc_major;
	id->cc_minor = g->cc_minor;
	id->memory_bytes = g->memory_bytes;
	id->l2_bytes = g->l2_bytes;
	id->sm_clock_max_mhz = g->sm_clock_max_mhz;
	id->mem_clock_max_mhz = g->mem_clock_max_mhz;
	id->power_limit_w = g->power_limit_w;
	snprintf(id->driver, sizeof id->driver, "%s", r->sys.driver);
	id->cuda_runtime = r->sys.cuda_runtime;
	id->cuda_driver = r->sys.cuda_driver;
	id->cublaslt_version = r->sys.cublaslt_version;
	id->nccl_version = r->sys.nccl_version;
	id->nvlinks = g->nvlinks_active;
	id->nvswitch = g->nvlink_to_switch;
	for (int i = 0; i < r->sys.ngpus && i < CAL_MAX_GPUS; i++)
		for (int j = 0; j < r->sys.ngpus && j < CAL_MAX_GPUS; j++)
			id->p2p[i][j] = r->sys.p2p[i][j];
	if (topo_read(id->topo_text, sizeof id->topo_text) == 0)
		topo_parse(id->topo_text, r->sys.ngpus, id->topo_nv);
	capture_env(&r->c);
}

/* ---- phases measured by the writer alone */

static int phase_launch(struct run *r)
{
	int rc = gb_launch_time(r->dev, &r->c.launch_us, &r->c.launch_roundtrip_us);
	r->c.have_launch = rc == 0;
	return rc;
}

static int phase_memory(struct run *r)
{
	struct gb_stat st[PLAN_MAX_SIZES];
	const enum gb_mem_kind kinds[] = {GB_MEM_COPY, GB_MEM_ADD};
	for (int k = 0; k < 2; k++) {
		int rc = gb_mem_time(r->dev, kinds[k], r->plan.mem_bytes, r->plan.nmem, r->plan.mem_samples, st);
		if (rc)
			return rc;
		for (int i = 0; i < r->plan.nmem && r->c.nmem < CAL_MAX_MEM; i++) {
			struct cal_mem_pt *m = &r->c.mem[r->c.nmem++];
			m->kind = kinds[k] == GB_MEM_COPY ? CAL_MEM_COPY : CAL_MEM_ADD;
			m->bytes = r->plan.mem_bytes[i];
			m->us = st[i].median_us;
		}
	}
	return 0;
}

/* One more timing of the measured point p with `samples` samples; it replaces p's only with a lower median
 * (cal_series_better), so a failed timing keeps the first. */
static void gemm_retime(struct run *r, struct gb_gemm *g, struct cal_gemm_pt *p, int samples)
{
	struct gb_stat again;
	char algo[48];
	if (gb_gemm_time(g, p->dt, p->m, p->n, p->k, samples, r->plan.gemm_batch_us, &again, algo, sizeof algo) == 0 &&
	    cal_series_better(p->us, again.median_us)) {
		p->us = again.median_us;
		p->min_us = again.min_us;
		p->p90_us = again.p90_us;
		snprintf(p->algo, sizeof p->algo, "%s", algo);
	}
}

/* One GEMM series; a disturbed one (cal_series_disturbed) is timed up to twice more and the series with the lowest
 * median kept (r->gemm_disturbed counts them, r->gemm_still those still disturbed after it). */
static int gemm_one(struct run *r, struct gb_gemm *g, enum dtype dt, long m, long n, long k, int samples, bool grid)
{
	struct gb_stat st;
	char algo[48];
	int rc = gb_gemm_time(g, dt, m, n, k, samples, r->plan.gemm_batch_us, &st, algo, sizeof algo);
	if (rc) {
		diag_errorf("gemm %s %ldx%ldx%ld failed", cal_dtype_name(dt), m, n, k);
		return rc;
	}
	struct cal_gemm_pt *p = calib_add_gemm(&r->c);
	if (!p)
		return GS_ENOMEM;
	p->dt = dt;
	p->m = m;
	p->n = n;
	p->k = k;
	p->us = st.median_us;
	p->min_us = st.min_us;
	p->p90_us = st.p90_us;
	p->grid = grid;
	snprintf(p->algo, sizeof p->algo, "%s", algo);
	if (cal_series_disturbed(p->us, p->min_us)) {
		r->gemm_disturbed++;
		for (int t = 0; t < 2 && cal_series_disturbed(p->us, p->min_us); t++)
			gemm_retime(r, g, p, samples);
		r->gemm_still += cal_series_disturbed(p->us, p->min_us);
	}
	return 0;
}

/* The grid points of one dtype (from index `from` on) slower than a larger product of the same dtype
 * (cal_gemm_dominating) timed up to twice more, the lower median kept. */
static void gemm_dominated(struct run *r, struct gb_gemm *g, int from)
{
	for (int i = from; i < r->c.ngemm; i++) {
		if (cal_gemm_dominating(&r->c, i) < 0)
			continue;
		r->gemm_dominated++;
		for (int t = 0; t < 2 && cal_gemm_dominating(&r->c, i) >= 0; t++)
			gemm_retime(r, g, &r->c.gemm[i], r->plan.gemm_samples);
		r->gemm_dominated_still += cal_gemm_dominating(&r->c, i) >= 0;
	}
}

static int phase_gemm(struct run *r)
{
	struct gb_gemm *g = NULL;
	double ma, mb, mc;
	int rc, done = 0, total = plan_gemm_count(&r->plan);
	const enum dtype order[] = {DT_BF16, DT_FP16, DT_TF32, DT_FP8};
	plan_max_elems(&r->plan, &ma, &mb, &mc);
	if ((rc = gb_gemm_new(r->dev, ma, mb, mc, &g)))
		return rc;
	/* the reference product first, with more samples */
	rc = gemm_one(r, g, DT_BF16, r->plan.ref_m, r->plan.ref_n, r->plan.ref_k, 20, false);
	for (int d = 0; d < 4 && !rc; d++) {
		const struct cal_grid *gr = &r->plan.grid[order[d]];
		if (!gr->nm)
			continue;
		r->c.grid[order[d]] = *gr;
		int from = r->c.ngemm;
		for (int a = 0; a < gr->nm && !rc; a++)
			for (int b = 0; b < gr->nn && !rc; b++)
				for (int k = 0; k < gr->nk && !rc; k++) {
					if (done % 8 == 0)
						run_progress(r, false, "gemm %s %d/%d", cal_dtype_name(order[d]), done, total);
					rc = gemm_one(r, g, order[d], gr->m[a], gr->n[b], gr->k[k], r->plan.gemm_samples, true);
					done++;
				}
		if (!rc)
			gemm_dominated(r, g, from);
		if (!rc) {
			char ph[16];
			snprintf(ph, sizeof ph, "gemm_%s", cal_dtype_name(order[d]));
			sample_clocks(r, ph);
		}
	}
	gb_gemm_free(g);
	if (!rc && r->gemm_disturbed)
		run_progress(r, true, "gemm: %d of %d series disturbed (median over %.1fx their fastest sample) timed again; "
			     "%d still so", r->gemm_disturbed, done + 1, CAL_SERIES_SPREAD, r->gemm_still);
	if (!rc && r->gemm_dominated)
		run_progress(r, true, "gemm: %d grid series slower than a larger product by over %.2fx timed again; %d still "
			     "so (cuBLAS's kernel at that shape, or slowed throughout)", r->gemm_dominated, CAL_DOMINATED,
			     r->gemm_dominated_still);
	return rc;
}

static int phase_attention(struct run *r)
{
	for (int i = 0; i < r->plan.nattn && r->c.nattn < CAL_MAX_ATTN; i++) {
		struct cal_attn_pt a = {r->plan.attn_bh, r->plan.attn_seq[i], r->plan.attn_head_dim, 0, 0};
		int rc = gb_attn_time(r->dev, a.bh, a.seq, a.head_dim, r->plan.attn_samples, &a.fwd_us, &a.bwd_us);
		if (rc)
			return rc;
		r->c.attn[r->c.nattn++] = a;
	}
	return 0;
}

/* ---- the power phase (--sustain): peak and sustained GEMM rates, the warm-up between them, an idle and a
 * memory-bound GPU's power, and mixes of GEMMs and copies for the power model (calibrate/sustain.c). It runs
 * before the GEMM sweep, which then measures its table on a GPU at its steady state. */

static double sustain_seconds(const struct run *r)
{
	if (r->o->sustain_s >= 0)
		return r->o->sustain_s;
	return r->o->quick ? 0 : CAL_SUSTAIN_DEFAULT_S;
}

static void add_rate(struct cal_power *p, const char *name, enum dtype dt, long m, long n, long k)
{
	for (int i = 0; i < p->nrates; i++)
		if (p->rate[i].dt == dt && p->rate[i].m == m && p->rate[i].n == n && p->rate[i].k == k)
			return;
	if (p->nrates >= CAL_MAX_SHAPES + 1)
		return;
	struct cal_rate *r = &p->rate[p->nrates++];
	snprintf(r->name, sizeof r->name, "%s", name);
	r->dt = dt;
	r->m = m;
	r->n = n;
	r->k = k;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* median time per cycle of the samples after the first skip_s seconds (all of them if none is that late), and
 * the median SM clock and power of the same samples */
static void hold_median(const struct gb_hold_sample *h, int n, double skip_s, double *us, int *mhz, double *w,
			double *temp)
{
	double t[CAL_MAX_HOLD], f[CAL_MAX_HOLD], pw[CAL_MAX_HOLD], tc[CAL_MAX_HOLD];
	int k = 0;
	for (int pass = 0; pass < 2 && k == 0; pass++)
		for (int i = 0; i < n; i++)
			if (pass || h[i].t_s > skip_s) {
				t[k] = h[i].cycle_us;
				f[k] = h[i].sm_mhz;
				pw[k] = h[i].power_w;
				tc[k++] = h[i].temp_c;
			}
	*us = 0;
	if (!k)
		return;
	qsort(t, (size_t)k, sizeof *t, cmp_double);
	qsort(f, (size_t)k, sizeof *f, cmp_double);
	qsort(pw, (size_t)k, sizeof *pw, cmp_double);
	qsort(tc, (size_t)k, sizeof *tc, cmp_double);
	*us = t[k / 2];
	*mhz = (int)f[k / 2];
	*w = pw[k / 2];
	if (temp)
		*temp = tc[k / 2];
}

static int hold(struct gb_gemm *g, const struct gb_hold_spec *sp, double seconds, double sample_s,
		struct gb_hold_sample *h, int *n)
{
	int rc = gb_hold(g, sp, seconds, sample_s, h, CAL_MAX_HOLD, n);
	if (rc)
		diag_errorf("sustained load (%d GEMMs %ldx%ldx%ld, %d copies) failed", sp->ngemm, sp->m, sp->n, sp->k,
			    sp->ncopy);
	return rc;
}

/* Every GPU of the host holds the reference GEMM at once (a training job's GPUs are all at their caps together) for
 * up to 30 s; each one's samples after the first half give its settled time, clock, power and temperature
 * (gpu.power.gpu_rates: calibrate/sustain.c). One process of 2+ GPUs from device 0 only: under MPI each rank
 * measures its own GPU, and the phase's other figures are device 0's. */
static int hold_every_gpu(struct run *r, const struct gb_hold_spec *ref, double seconds)
{
	struct cal_power *p = &r->c.power;
	int n = r->ngpus < CAL_MAX_GPUS ? r->ngpus : CAL_MAX_GPUS, rc = 0;
	struct gb_gemm *g[CAL_MAX_GPUS] = {NULL};
	int nout[CAL_MAX_GPUS] = {0};
	struct gb_hold_sample *h = calloc((size_t)n * CAL_MAX_HOLD, sizeof *h);
	if (!h)
		return GS_ENOMEM;
	for (int i = 0; i < n && !rc; i++)
		rc = gb_gemm_new(i, (double)ref->m * ref->k, (double)ref->k * ref->n, (double)ref->m * ref->n, &g[i]);
	if (!rc) {
		run_progress(r, true, "power: bf16 %ldx%ldx%ld held on all %d GPUs together for %.0f s", ref->m, ref->n,
			     ref->k, n, seconds);
		rc = gb_hold_all(g, n, ref, seconds, 0.5, h, CAL_MAX_HOLD, nout);
		if (rc)
			diag_errorf("sustained load on every GPU (bf16 %ldx%ldx%ld) failed", ref->m, ref->n, ref->k);
	}
	for (int i = 0; i < n && !rc; i++) {
		struct cal_gpu_held *x = &p->gpu[i];
		x->dev = i;
		hold_median(h + (size_t)i * CAL_MAX_HOLD, nout[i], seconds / 2, &x->us, &x->sm_mhz, &x->power_w,
			    &x->temp_c);
		p->ngpu = i + 1;
	}
	for (int i = n - 1; i >= 0; i--)  /* device 0's last: the phase goes on with it current */
		if (g[i])
			gb_gemm_free(g[i]);
	free(h);
	return rc;
}

/* After idle gaps of 0.1 to 100 ms (a step's waits: a collective's, a pipeline's bubble), 60 ms of a layer's GEMM
 * (8192x8192x2048) back to back, each GEMM timed, on the GPU hot from the holds before: how long an idle GPU runs
 * above its held rate (docs/calibration.md, "Gaps"). An extra: a failure warns and leaves the probe out. */
static void gap_sweep(struct run *r, struct gb_gemm *g)
{
	struct cal_power *p = &r->c.power;
	const double gaps_ms[] = {0.1, 1, 3, 10, 30, 100}, block_us = 60000, bin_us = 2000;
	const int blocks = 5, nbins = 30;
	p->ngap = 0;
	for (size_t i = 0; i < sizeof gaps_ms / sizeof gaps_ms[0] && p->ngap < CAL_MAX_GAPS; i++) {
		struct cal_gap *x = &p->gap[p->ngap];
		*x = (struct cal_gap){8192, 8192, 2048, gaps_ms[i] * 1e3, 0, blocks - 1, bin_us, nbins, {0}};
		if (gb_gap_burst(g, DT_BF16, x->m, x->n, x->k, x->gap_us, block_us, blocks, bin_us, nbins, x->us,
				 &x->idle_us)) {
			diag_warning("calibrate: the GEMM bursts after idle gaps failed (above): the probe is left out");
			p->ngap = 0;
			return;
		}
		p->ngap++;
		double held = sustain_gap_held_us(p), peak = 0, at = 0;
		double e = sustain_gap_extra_ms(x, held, &peak, &at);
		if (x->us[0] > 0 && held > 0)
			run_progress(r, true, "power: after %.3g ms idle (measured %.3g), the GEMMs' first 2 ms at x%.3f of "
				     "the held rate, their fastest x%.3f (%.3g ms in); %.3g ms of work beyond the held rate",
				     gaps_ms[i], x->idle_us / 1e3, held / x->us[0], peak, at, e);
	}
	double tau = 0, emax = 0;
	if (sustain_gap_fit(p, sustain_gap_held_us(p), &tau, &emax))
		run_progress(r, true, "power: an idle gap of g ms is worth %.3g (1 - exp(-g / %.3g)) ms of GEMM work at "
			     "the held rate (meta.sustained.gap_fit; gpu.power.window_ms where 0.1-5000)", emax, tau);
}

static double copy_time_us(const struct calib *c, double bytes)
{
	for (int i = 0; i < c->nmem; i++)
		if (c->mem[i].kind == CAL_MEM_COPY && c->mem[i].bytes == bytes)
			return c->mem[i].us;
	return 0;
}

static int phase_power(struct run *r)
{
	struct cal_power *p = &r->c.power;
	struct gb_hold_sample *h = calloc(CAL_MAX_HOLD, sizeof *h);
	struct gb_gemm *g = NULL;
	struct gb_clocks k;
	struct gb_stat st;
	const double copy_bytes = 1073741824.0, pause_s = 2.0;
	const double ratios[] = {0.5, 1.0};
	double ma, mb, mc, ignore;
	int rc, n = 0;
	p->hold_s = sustain_seconds(r);
	plan_max_elems(&r->plan, &ma, &mb, &mc);
	if (!h)
		return GS_ENOMEM;
	if ((rc = gb_gemm_new(r->dev, ma, mb, mc, &g))) {
		free(h);
		return rc;
	}
	/* an idle GPU: nothing queued for a while, clocks still up */
	struct timespec ts = {(time_t)pause_s, 0};
	nanosleep(&ts, NULL);
	if (gb_sample_clocks(r->dev, &k) == 0 && k.valid) {
		p->idle_w = k.power_w;
		p->idle_mhz = k.sm_mhz;
	}
	add_rate(p, "ref", DT_BF16, r->plan.ref_m, r->plan.ref_n, r->plan.ref_k);
	for (int i = 0; i < r->c.nshapes; i++)
		add_rate(p, r->c.shapes[i].name, r->c.shapes[i].dt, r->c.shapes[i].m, r->c.shapes[i].n, r->c.shapes[i].k);
	add_rate(p, "fine", DT_BF16, 8192, 8192, 2048);  /* the fine mixes' GEMM (below) */
	/* peak: each shape in a short run on the cool GPU (about 10 ms each), the reference first */
	for (int i = 0; i < p->nrates && !rc; i++) {
		struct cal_rate *x = &p->rate[i];
		if (!(rc = gb_gemm_time(g, x->dt, x->m, x->n, x->k, 5, 2000, &st, NULL, 0))) {
			x->peak_us = st.median_us;
			if (gb_sample_clocks(r->dev, &k) == 0 && k.valid)
				x->peak_mhz = k.sm_mhz, x->peak_w = k.power_w;
		}
	}
	/* the warm-up: the reference product held, one sample every half second */
	struct gb_hold_spec ref = {DT_BF16, r->plan.ref_m, r->plan.ref_n, r->plan.ref_k, 1, 0, 0};
	if (!rc && p->hold_s > 0) {
		run_progress(r, true, "power: bf16 %ldx%ldx%ld held for %.0f s", ref.m, ref.n, ref.k, p->hold_s);
		rc = hold(g, &ref, p->hold_s, 0.5, h, &n);
		for (int i = 0; i < n && p->nramp < CAL_MAX_HOLD; i++)
			p->ramp[p->nramp++] = (struct cal_hold_pt){h[i].t_s, h[i].cycle_us, h[i].sm_mhz, h[i].power_w,
								   h[i].temp_c, h[i].reasons};
	}
	/* sustained: each shape held for a second on the GPU at its steady state */
	for (int i = 0; i < p->nrates && !rc; i++) {
		struct cal_rate *x = &p->rate[i];
		struct gb_hold_spec sp = {x->dt, x->m, x->n, x->k, 1, 0, 0};
		if (!(rc = hold(g, &sp, 1.0, 0.1, h, &n)))
			hold_median(h, n, 0.3, &x->sus_us, &x->sus_mhz, &x->sus_w, &x->sus_temp_c);
	}
	if (!rc)
		gap_sweep(r, g);
	/* mixes of GEMMs and copies, copy time half of and equal to the GEMMs': coarse (8192^3, 1 GiB copies,
	 * milliseconds each) and fine (a layer's 8192x8192x2048, 256 MiB copies: a training step's phases of a few
	 * hundred microseconds, where the power limiter averages differently) */
	p->copy_bytes = copy_bytes;
	for (int fine = 0; fine < 2 && !rc; fine++) {
		const struct cal_rate *gr = NULL;
		long gm = fine ? 8192 : ref.m, gn = fine ? 8192 : ref.n, gk = fine ? 2048 : ref.k;
		double cb = fine ? 268435456.0 : copy_bytes, cu = copy_time_us(&r->c, cb);
		for (int i = 0; i < p->nrates; i++)
			if (p->rate[i].dt == DT_BF16 && p->rate[i].m == gm && p->rate[i].n == gn && p->rate[i].k == gk)
				gr = &p->rate[i];
		for (size_t i = 0; i < sizeof ratios / sizeof ratios[0] && !rc && gr && cu > 0 && gr->sus_us > 0; i++) {
			struct cal_mix *x = &p->mix[p->nmix];
			struct gb_hold_spec sp = {DT_BF16, gm, gn, gk, fine ? 1 : 2, cb, 0};
			sp.ncopy = (int)fmax(1, round(ratios[i] * sp.ngemm * gr->sus_us / cu));
			if (p->nmix >= CAL_MAX_MIX || (rc = hold(g, &sp, 4.0, 0.2, h, &n)))
				break;
			*x = (struct cal_mix){"", gm, gn, gk, sp.ngemm, sp.ncopy, cb, cu, 0, 0, 0};
			snprintf(x->name, sizeof x->name, "%s", fine ? "fine" : "coarse");
			hold_median(h, n, 1.0, &x->cycle_us, &x->sm_mhz, &x->power_w, NULL);
			p->nmix++;
		}
	}
	/* a memory-bound GPU: the copy kernel held */
	if (!rc) {
		struct gb_hold_spec sp = {DT_BF16, 0, 0, 0, 0, copy_bytes, 1};
		if (!(rc = hold(g, &sp, 3.0, 0.2, h, &n)))
			hold_median(h, n, 1.0, &p->copy_us, &p->copy_mhz, &p->copy_w, &ignore);
	}
	/* an extra: without it the model has no gpu.power.gpu_rates, the calibration goes on */
	if (!rc && !r->mpi && r->dev == 0 && r->ngpus >= 2 && p->hold_s > 0 && p->rate[0].sus_us > 0 &&
	    hold_every_gpu(r, &ref, fmin(p->hold_s, 30)))
		diag_warning("calibrate: every GPU held together failed (above): the model has no gpu.power.gpu_rates");
	/* one GPU has no collective to overlap: GEMMs beside a copy kernel of NCCL's channel count, recorded in
	 * meta.overlap (not written as overlap.*: the power cap confounds it, docs/calibration.md); a run with
	 * collectives measures the real thing */
	if (!rc && r->ngpus * r->c.id.nodes < 2) {
		struct gb_copy_ov ov;
		const unsigned blocks = 16;
		if (!(rc = gb_copy_overlap(g, DT_BF16, ref.m, ref.n, ref.k, 268435456.0, blocks, &ov)))
			r->c.overlap = (struct cal_overlap){true, DT_BF16, ref.m, ref.n, ref.k, 268435456.0, 1, ov.gemm_us,
							    ov.gemm_busy_us, ov.copy_us, ov.copy_busy_us, (int)blocks};
	}
	p->have = !rc && p->nrates > 0 && p->rate[0].sus_us > 0;
	gb_gemm_free(g);
	free(h);
	return rc;
}

static int phase_attention_torch(struct run *r)
{
	return torchattn_run(&r->c, r->o->quick);
}

static int phase_kernels_torch(struct run *r)
{
	return torchkern_run(&r->c, r->o->quick);
}

/* ---- setup and the end */

static int setup(struct run *r)
{
	const struct cal_opts *o = r->o;
	int rc, count;
#ifdef GPUSIM_HAVE_MPI
	rc = calmpi_start(&r->mi);
	if (rc < 0)
		return rc;
	r->mpi = rc == 1;
#endif
	r->writer = !r->mpi || r->mi.rank == 0;
	if (r->mpi)
		run_progress(r, true, "MPI rank %d of %d, node %d of %d, local rank %d of %d", r->mi.rank, r->mi.size,
			 r->mi.node, r->mi.nodes, r->mi.local_rank, r->mi.local_size);
	if ((rc = gb_query(0, &r->sys)))
		return rc;
	count = r->sys.ngpus;
	if (r->mpi) {
		if (o->gpus && r->writer)
			diag_errorf("--gpus is ignored under MPI (one process per GPU)");
		r->dev = r->mi.local_rank % count;
		r->ngpus = r->mi.local_size_min;
	} else {
		if (o->gpus > count) {
			diag_errorf("--gpus %d but this machine has %d GPU%s", o->gpus, count,
				count == 1 ? "" : "s");
			return GS_EUSAGE;
		}
		r->ngpus = o->gpus ? o->gpus : count;
	}
	identity(r);
	plan_init(&r->plan, o->quick, r->c.id.cc_major, r->c.id.cc_minor);
	if (o->scenario) {
		int n = 0;
		if ((rc = scenshapes_load(o->scenario, r->c.shapes, CAL_MAX_SHAPES, &n)))
			return rc;
		r->c.nshapes = n;
		if (plan_add_shapes(&r->plan, r->c.shapes, n)) {
			diag_errorf("%s: too many distinct GEMM sizes to add to the grid", o->scenario);
			return GS_EINVAL;
		}
	}
	if (o->base) {
		if ((rc = base_load(&r->base, o->base)))
			return rc;
	} else {
		const char *name = base_default(r->c.id.gpu_name);
		if (name && base_load(&r->base, name) == 0 && r->writer)
			fprintf(stderr, "calibrate: network and inter-node collectives from preset '%s' (--base to change)\n",
				name);
	}
	if (o->out)
		snprintf(r->out, sizeof r->out, "%s", o->out);
	else {
		char name[64];
		calibrate_default_name(r->c.id.gpu_name, r->ngpus * r->c.id.nodes, name, sizeof name);
		snprintf(r->out, sizeof r->out, "%s.yaml", name);
	}
	if (r->writer) {
		/* find out now, not after minutes of measuring, that the output cannot be written */
		char tmp[1100];
		snprintf(tmp, sizeof tmp, "%s.tmp", r->out);
		FILE *f = fopen(tmp, "w");
		if (!f) {
			diag_errorf("cannot write '%s': %s", tmp, strerror(errno));
			return GS_EENV;
		}
		fclose(f);
		remove(tmp);
	}
	return 0;
}

static void summary(struct run *r)
{
	const struct calib *c = &r->c;
	char nccl[16];
	snprintf(nccl, sizeof nccl, "%d.%d.%d", c->id.nccl_version / 10000, (c->id.nccl_version / 100) % 100,
		 c->id.nccl_version % 100);
	fprintf(stderr, "calibrate: %d x %s on %s%s, driver %s, CUDA %d.%d, NCCL %s, %d NVLinks per GPU\n",
		c->id.ngpus, c->id.gpu_name, c->id.host, c->id.nodes > 1 ? " and more nodes" : "", c->id.driver,
		c->id.cuda_runtime / 1000, (c->id.cuda_runtime / 10) % 100, nccl, c->id.nvlinks);
	for (int i = 0; i < c->ngemm; i++) {
		const struct cal_gemm_pt *p = &c->gemm[i];
		if (p->dt == DT_BF16 && p->m == r->plan.ref_m && p->n == r->plan.ref_n && p->k == r->plan.ref_k) {
			double tf = gemm_tflops(p->m, p->n, p->k, p->us);
			fprintf(stderr, "calibrate: bf16 GEMM %ldx%ldx%ld: %.1f TFLOP/s (%.1f%% of %.1f), %s\n", p->m, p->n,
				p->k, tf, 100 * tf / c->peak_tflops[DT_BF16], c->peak_tflops[DT_BF16], p->algo);
			break;
		}
	}
	if (c->power.have) {
		struct sustain_model m;
		const struct cal_rate *x = &c->power.rate[0];
		sustain_derive(c, &m);
		fprintf(stderr, "calibrate: bf16 GEMM %ldx%ldx%ld peak %.1f TFLOP/s (cool, short), sustained %.1f at %d of "
			"%d MHz %.0f W (burst_speedup %.3f = clock ratio); the warm-up settled after %.1f s of %.0f\n",
			x->m, x->n, x->k, m.peak_tflops, m.sus_tflops, x->sus_mhz, c->id.sm_clock_max_mhz, x->sus_w,
			m.burst_speedup, m.settle_s, c->power.hold_s);
		fprintf(stderr, "calibrate: power: idle %.0f W, copy kernel %.0f W (%.3f and %.3f of %.0f W), exponent %.2f "
			"from %d mix%s\n", c->power.idle_w, c->power.copy_w, m.idle_frac, m.mem_frac, c->id.power_limit_w,
			m.exponent, m.nexp, m.nexp == 1 ? "" : "es");
	}
	for (int i = 0; i < c->nfattn; i++) {
		const struct cal_fattn *a = &c->fattn[i];
		if (a->gqa || a->seq != 4096)
			continue;
		double f = 4.0 * a->batch * a->heads * (double)a->seq * a->seq * a->head_dim * (a->causal ? 0.5 : 1);
		fprintf(stderr, "calibrate: attention %s hd %d %s seq %d batch %d: fwd %.0f TFLOP/s, bwd %.0f TFLOP/s (events)"
			"\n", a->backend, a->head_dim, a->causal ? "causal" : "full", a->seq, a->batch, f / a->fwd_ms / 1e9,
			2.5 * f / a->bwd_ms / 1e9);
	}
	struct hw_kernels k;
	if (c->ntkern && torchkern_fill(c, c->id.l2_bytes, &k))
		for (int f = 0; f < KF_N; f++)
			if (k.fam[f].gbps > 0)
				fprintf(stderr, "calibrate: kernels %s: %.0f GB/s, %.2f us fixed; gap %.2f us\n",
					hw_kern_family_names[f], k.fam[f].gbps, k.fam[f].latency_us, k.gap_us);
	for (int i = 0; i < c->nmem; i++)
		if (c->mem[i].kind == CAL_MEM_COPY && i + 1 < c->nmem && c->mem[i + 1].kind != CAL_MEM_COPY)
			fprintf(stderr, "calibrate: copy kernel %.0f GB/s at %.0f B moved\n",
				c->mem[i].bytes / (c->mem[i].us * 1e3), c->mem[i].bytes);
	if (c->have_launch)
		fprintf(stderr, "calibrate: kernel launch %.2f us back to back, %.1f us round trip\n", c->launch_us,
			c->launch_roundtrip_us);
	for (int i = 0; i < c->nattn; i++) {
		const struct cal_attn_pt *a = &c->attn[i];
		double f = 4.0 * a->bh * (double)a->seq * a->seq * a->head_dim;
		fprintf(stderr, "calibrate: attention bh %d seq %d d %d: fwd %.0f TFLOP/s, bwd %.0f TFLOP/s\n", a->bh,
			a->seq, a->head_dim, f / (a->fwd_us * 1e6), 2 * f / (a->bwd_us * 1e6));
	}
	for (int i = 0; i < c->nseries; i++) {
		const struct cal_series *s = &c->series[i];
		for (int j = 0; j < s->npts; j++)
			if (s->bytes[j] == 1073741824.0 || s->bytes[j] == 4294967296.0)
				fprintf(stderr, "calibrate: %s %s n=%d %.0f GiB: %.1f us, busbw %.1f GB/s\n",
					cal_scope_name(s->scope), cal_op_name(s->op), s->n, s->bytes[j] / 1073741824.0,
					s->us[j], s->bytes[j] / (s->us[j] * 1e3) * cal_busfactor(s->op, s->n));
	}
	if (c->overlap.have)
		fprintf(stderr, "calibrate: overlap: GEMM %+.1f%% beside all-reduce, all-reduce %+.1f%% beside GEMM\n",
			100 * (c->overlap.gemm_busy_us / c->overlap.gemm_us - 1),
			100 * (c->overlap.comm_busy_us / c->overlap.comm_us - 1));
	fprintf(stderr, "calibrate: phases: %s; total %.1f s\n", r->phases, run_now_s() - r->t0);
}

static int finish(struct run *r, int rc)
{
	struct calmodel_opts yo;
	char name[64], path[1100];
	int wrc;
	const char *slash = strrchr(r->out, '/');
	snprintf(name, sizeof name, "%.63s", slash ? slash + 1 : r->out);
	if (strlen(name) > 5 && strcmp(name + strlen(name) - 5, ".yaml") == 0)
		name[strlen(name) - 5] = 0;
	if (rc)
		snprintf(r->c.status, sizeof r->c.status, "stopped during %s: a measurement failed (see the run's "
			 "errors); this model holds what was measured before", r->phase ? r->phase : "setup");
	gemmtab_set_peaks(&r->c);
	calib_fit(&r->c, stderr);
	summary(r);
	snprintf(path, sizeof path, rc ? "%s.partial" : "%s", r->out);
	yo.name = name;
	yo.base = &r->base;
	wrc = calmodel_write(&r->c, &yo, path);
	if (!wrc && r->o->raw_dir)
		wrc = rawio_write(&r->c, r->o->raw_dir);
	if (!wrc && rc)
		diag_errorf("calibration stopped early: what was measured is in %s", path);
	else if (!wrc)
		fprintf(stderr, "calibrate: wrote %s\n", path);  /* the summary lines' channel */
	return rc ? rc : wrc;
}

/* Everything a run holds, on every way out. */
static void run_release(struct run *r)
{
	calib_release(&r->c);
	base_release(&r->base);
#ifdef GPUSIM_HAVE_MPI
	if (r->mpi)
		calmpi_stop();
#endif
}

int calibrate_run(const struct cal_opts *o)
{
	struct run r;
	int rc;
	memset(&r, 0, sizeof r);
	r.o = o;
	r.t0 = run_now_s();
	calib_init(&r.c);
	rc = setup(&r);
	if (rc) {
		run_release(&r);
		return rc;
	}
	if (r.writer) {
		static const struct {
			const char *name;
			int (*fn)(struct run *);
		} phases[] = {{"launch", phase_launch}, {"memory", phase_memory}, {"power", phase_power},
			      {"gemm", phase_gemm}, {"attention", phase_attention},
			      {"attention_torch", phase_attention_torch}, {"kernels_torch", phase_kernels_torch}};
		for (size_t i = 0; i < sizeof phases / sizeof phases[0] && !rc; i++) {
			if (phases[i].fn == phase_power && !(sustain_seconds(&r) > 0))
				continue;
			if (phases[i].fn == phase_attention_torch && !r.o->attention)
				continue;
			if (phases[i].fn == phase_kernels_torch && !r.o->kernels)
				continue;
			phase_begin(&r, phases[i].name);
			rc = phases[i].fn(&r);
			if (!rc)
				phase_end(&r);
		}
	}
#ifdef GPUSIM_HAVE_MPI
	if (r.mpi)
		rc = calmpi_agree(rc);
#endif
	if (!rc && r.ngpus * r.c.id.nodes >= 2) {
		phase_begin(&r, "collectives");
#ifdef GPUSIM_HAVE_MPI
		rc = r.mpi ? runcoll_mpi(&r) : runcoll_local(&r);
#else
		rc = runcoll_local(&r);
#endif
		if (!rc)
			phase_end(&r);
	}
	if (r.o->progress && !r.o->verbose && r.writer)
		fputs("\r\033[K", stderr);
#ifdef GPUSIM_HAVE_MPI
	if (r.mpi && rc) {
		if (r.writer)
			finish(&r, rc);
		calmpi_abort(3);
	}
#endif
	if (r.writer)
		rc = finish(&r, rc);
	run_release(&r);
	return rc;
}
