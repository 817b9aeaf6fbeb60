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
#include "calibrate/run_internal.h"
#include "calibrate/scenshapes.h"
#include "calibrate/topo.h"
#include "cuda/gpubench.h"
#include "util/gserr.h"
#include "util/diag.h"

extern char **environ;


double run_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* On a terminal, one status line rewritten in place; with --verbose, milestones (phases, series) as lines of
 * their own from every rank, for logs and for finding where a run hangs. */
void run_progress(struct run *r, bool milestone, const char *fmt, ...)
{
	va_list ap;
	if (r->o->verbose) {
		if (!milestone)
			return;
		if (r->mpi)
			fprintf(stderr, "calibrate: [rank %d] ", r->mi.rank);
		else
			fputs("calibrate: ", stderr);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
		return;
	}
	if (!r->o->progress || !r->writer)
		return;
	fputs("\r\033[Kcalibrate: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
}

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
	return 0;
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
		for (int a = 0; a < gr->nm && !rc; a++)
			for (int b = 0; b < gr->nn && !rc; b++)
				for (int k = 0; k < gr->nk && !rc; k++) {
					if (done % 8 == 0)
						run_progress(r, false, "gemm %s %d/%d", cal_dtype_name(order[d]), done, total);
					rc = gemm_one(r, g, order[d], gr->m[a], gr->n[b], gr->k[k], r->plan.gemm_samples, true);
					done++;
				}
		if (!rc) {
			char ph[16];
			snprintf(ph, sizeof ph, "gemm_%s", cal_dtype_name(order[d]));
			sample_clocks(r, ph);
		}
	}
	gb_gemm_free(g);
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
		} phases[] = {{"launch", phase_launch}, {"memory", phase_memory}, {"gemm", phase_gemm},
			      {"attention", phase_attention}};
		for (size_t i = 0; i < sizeof phases / sizeof phases[0] && !rc; i++) {
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
