/* rawio: raw measurements as CSV, out and back in (see rawio.h). Values are written with 6 significant digits
 * (times are medians of noisy samples: more digits would be noise), sizes and shapes exactly. */
#define _POSIX_C_SOURCE 200809L  /* mkdir */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "calibrate/gemmtab.h"
#include "calibrate/rawio.h"
#include "calibrate/torchattn.h"
#include "calibrate/torchkern.h"
#include "util/csvr.h"
#include "util/csvw.h"
#include "util/diag.h"
#include "util/gserr.h"

/* ---- writing */

static FILE *csv_open(const char *dir, const char *name, const char *header, int *rc)
{
	char path[1100];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f) {
		diag_errorf("cannot write '%s': %s", path, strerror(errno));
		*rc = GS_EENV;
		return NULL;
	}
	if (header)
		fprintf(f, "%s\n", header);
	return f;
}

static void csv_close(FILE *f, const char *dir, const char *name, int *rc)
{
	if (!f)
		return;
	if (ferror(f) | (fclose(f) != 0)) {
		diag_errorf("cannot write '%s/%s'", dir, name);
		*rc = GS_EENV;
	}
}

static void write_matrix(FILE *f, const char *key, const struct calib *c, bool nv)
{
	int n = c->id.ngpus < CAL_MAX_GPUS ? c->id.ngpus : CAL_MAX_GPUS;
	fprintf(f, "%s,", key);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			fprintf(f, "%d%s", nv ? c->id.topo_nv[i][j] : c->id.p2p[i][j], j + 1 < n ? " " : i + 1 < n ? ";" : "");
	fputc('\n', f);
}

/* key,value with the value as a CSV cell (quoted when it holds a comma or a quote: free text such as env) */
static void kv(FILE *f, const char *key, const char *value)
{
	fprintf(f, "%s,", key);
	csvw_cell(f, value);
	fputc('\n', f);
}

static void write_identity(FILE *f, const struct calib *c)
{
	const struct cal_identity *id = &c->id;
	kv(f, "host", id->host);
	kv(f, "date", id->date);
	kv(f, "mode", id->mode);
	fprintf(f, "gpus,%d\nhost_gpus,%d\nnodes,%d\n", id->ngpus, id->host_gpus, id->nodes);
	kv(f, "gpu_name", id->gpu_name);
	fprintf(f, "sm_count,%d\ncc,%d.%d\n", id->sm_count, id->cc_major, id->cc_minor);
	fprintf(f, "memory_bytes,%.0f\nl2_bytes,%.0f\nsm_clock_max_mhz,%d\nmem_clock_max_mhz,%d\npower_limit_w,%g\n",
		id->memory_bytes, id->l2_bytes, id->sm_clock_max_mhz, id->mem_clock_max_mhz, id->power_limit_w);
	kv(f, "driver", id->driver);
	fprintf(f, "cuda_runtime,%d\ncuda_driver,%d\ncublaslt_version,%d\nnccl_version,%d\n", id->cuda_runtime,
		id->cuda_driver, id->cublaslt_version, id->nccl_version);
	fprintf(f, "nvlinks,%d\nnvswitch,%d\n", id->nvlinks, id->nvswitch ? 1 : 0);
	kv(f, "env", id->env);
	kv(f, "status", c->status);
	write_matrix(f, "p2p", c, false);
	write_matrix(f, "topo_nv", c, true);
}

/* sustain.csv: one line per measurement of the power phase. kind: idle (power of an idle GPU), rate (a shape's
 * peak and sustained time of one GEMM: us = sustained, us2 = peak), ramp (a warm-up sample), mix (a cycle of n
 * GEMMs of the reference shape and copies copies of bytes), copy (the copy kernel held), gpu (name: a device; the
 * reference GEMM held on every GPU together, us its settled time on that one), gap (name: the idle asked for, us;
 * a bin of GEMMs after it: copies the blocks averaged, bytes the bin's width in us, t_s its start, us the mean GEMM
 * in it, us2 the idle measured) */
#define SUSTAIN_HEADER "kind,name,dtype,m,n,k,copies,bytes,t_s,us,us2,sm_mhz,sm_mhz2,power_w,power_w2,temp_c,reasons"
/* a mix row: name coarse|fine, m n k its GEMM, copies, bytes (of one copy), us the cycle, us2 one copy alone, t_s the
 * GEMMs a cycle */

static void write_sustain(FILE *f, const struct calib *c)
{
	const struct cal_power *p = &c->power;
	fprintf(f, "hold,,,,,,,,%.6g,,,,,,,,\n", p->hold_s);
	fprintf(f, "idle,,,,,,,,,,,%d,,%.6g,,,\n", p->idle_mhz, p->idle_w);
	for (int i = 0; i < p->nrates; i++) {
		const struct cal_rate *r = &p->rate[i];
		fprintf(f, "rate,%s,%s,%ld,%ld,%ld,,,,%.6g,%.6g,%d,%d,%.6g,%.6g,%.6g,\n", r->name, cal_dtype_name(r->dt),
			r->m, r->n, r->k, r->sus_us, r->peak_us, r->sus_mhz, r->peak_mhz, r->sus_w, r->peak_w,
			r->sus_temp_c);
	}
	for (int i = 0; i < p->nramp; i++) {
		const struct cal_hold_pt *h = &p->ramp[i];
		fprintf(f, "ramp,,,,,,,,%.6g,%.6g,,%d,,%.6g,,%.6g,0x%llx\n", h->t_s, h->us, h->sm_mhz, h->power_w,
			h->temp_c, h->reasons);
	}
	for (int i = 0; i < p->nmix; i++) {
		const struct cal_mix *x = &p->mix[i];
		fprintf(f, "mix,%s,bf16,%ld,%ld,%ld,%d,%.0f,%d,%.6g,%.6g,%d,,%.6g,,,\n", x->name, x->m, x->n, x->k,
			x->ncopy, x->copy_bytes, x->ngemm, x->cycle_us, x->copy_us, x->sm_mhz, x->power_w);
	}
	fprintf(f, "copy,,,,,,1,%.0f,,%.6g,,%d,,%.6g,,,\n", p->copy_bytes, p->copy_us, p->copy_mhz, p->copy_w);
	for (int i = 0; i < p->ngap; i++) {
		const struct cal_gap *x = &p->gap[i];
		for (int b = 0; b < x->nbins; b++)
			fprintf(f, "gap,%.6g,bf16,%ld,%ld,%ld,%d,%.6g,%.6g,%.6g,%.6g,,,,,,\n", x->gap_us, x->m, x->n, x->k,
				x->blocks, x->bin_us, b * x->bin_us * 1e-6, x->us[b], x->idle_us);
	}
	for (int i = 0; i < p->ngpu; i++) {
		const struct cal_gpu_held *g = &p->gpu[i];
		const struct cal_rate *r = &p->rate[0];
		fprintf(f, "gpu,%d,bf16,%ld,%ld,%ld,,,%.6g,%.6g,,%d,,%.6g,,%.6g,\n", g->dev, r->m, r->n, r->k, p->hold_s,
			g->us, g->sm_mhz, g->power_w, g->temp_c);
	}
}
static void write_topology(FILE *f, const struct calib *c)
{
	fputs(c->id.topo_text, f);
}

static void write_gemm(FILE *f, const struct calib *c)
{
	for (int i = 0; i < c->ngemm; i++) {
		const struct cal_gemm_pt *p = &c->gemm[i];
		double tf = gemm_tflops(p->m, p->n, p->k, p->us);
		double peak = c->peak_tflops[p->dt];
		fprintf(f, "%s,%ld,%ld,%ld,%.6g,%.6g,%.6g,%.6g,%.4f,%d,", cal_dtype_name(p->dt), p->m, p->n, p->k, p->us,
			p->min_us, p->p90_us, tf, peak > 0 ? tf / peak : 0, p->grid ? 1 : 0);
		csvw_cell(f, p->algo);
		fputc('\n', f);
	}
}

static void write_shapes(FILE *f, const struct calib *c)
{
	for (int i = 0; i < c->nshapes; i++)
		fprintf(f, "%s,%s,%ld,%ld,%ld\n", c->shapes[i].name, cal_dtype_name(c->shapes[i].dt), c->shapes[i].m,
			c->shapes[i].n, c->shapes[i].k);
}

static void write_collectives(FILE *f, const struct calib *c)
{
	for (int i = 0; i < c->nseries; i++) {
		const struct cal_series *s = &c->series[i];
		double bf = cal_busfactor(s->op, s->n);
		for (int j = 0; j < s->npts; j++) {
			double alg = s->bytes[j] / (s->us[j] * 1e3);
			double fu = s->fitted ? fit_eval(&s->fit, s->bytes[j]) : 0;
			fprintf(f, "%s,%s,%d,%.0f,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.5f\n", cal_scope_name(s->scope),
				cal_op_name(s->op), s->n, s->bytes[j], s->us[j], s->min_us[j], s->max_us[j], alg, alg * bf, fu,
				s->fitted ? (fu - s->us[j]) / s->us[j] : 0);
		}
	}
}

static void write_memory(FILE *f, const struct calib *c)
{
	for (int i = 0; i < c->nmem; i++) {
		const struct cal_mem_pt *m = &c->mem[i];
		fprintf(f, "%s,%.0f,%.6g,%.6g\n", m->kind == CAL_MEM_COPY ? "copy" : "add", m->bytes, m->us,
			m->bytes / (m->us * 1e3));
	}
}

static void write_attention(FILE *f, const struct calib *c)
{
	for (int i = 0; i < c->nattn; i++) {
		const struct cal_attn_pt *a = &c->attn[i];
		double fl = 4.0 * a->bh * (double)a->seq * a->seq * a->head_dim;
		fprintf(f, "%d,%d,%d,%.6g,%.6g,%.6g,%.6g\n", a->bh, a->seq, a->head_dim, a->fwd_us, a->bwd_us,
			fl / (a->fwd_us * 1e6), 2 * fl / (a->bwd_us * 1e6));
	}
}

static void write_clocks(FILE *f, const struct calib *c)
{
	for (int i = 0; i < c->nclocks; i++) {
		const struct cal_clock *k = &c->clocks[i];
		fprintf(f, "%s,%d,%d,0x%llx,%.0f,%.0f\n", k->phase, k->sm_mhz, k->mem_mhz, k->reasons, k->power_w,
			k->temp_c);
	}
}

/* one GEMM timed beside a collective (struct cal_overlap), its keys beginning with `pre` and the collective's
 * figures named `coll` (overlap_allreduce_bytes, overlap_ag_allgather_alone) */
static void write_overlap(FILE *f, const char *pre, const char *coll, const struct cal_overlap *o)
{
	fprintf(f, "%sgemm_dtype,%s,\n%sgemm_m,%ld,\n%sgemm_n,%ld,\n%sgemm_k,%ld,\n", pre, cal_dtype_name(o->dt), pre,
		o->m, pre, o->n, pre, o->k);
	fprintf(f, "%s%s_bytes,%.0f,bytes\n%sranks,%d,\n", pre, coll, o->comm_bytes, pre, o->ranks);
	if (o->copy_blocks)
		fprintf(f, "%scopy_blocks,%d,\n", pre, o->copy_blocks);
	fprintf(f, "%sgemm_alone,%.6g,us\n%sgemm_busy,%.6g,us\n", pre, o->gemm_us, pre, o->gemm_busy_us);
	fprintf(f, "%s%s_alone,%.6g,us\n%s%s_busy,%.6g,us\n", pre, coll, o->comm_us, pre, coll, o->comm_busy_us);
}

static void write_misc(FILE *f, const struct calib *c)
{
	if (c->have_launch)
		fprintf(f, "launch_back_to_back,%.6g,us\nlaunch_roundtrip,%.6g,us\n", c->launch_us, c->launch_roundtrip_us);
	if (c->overlap.have)
		write_overlap(f, "overlap_", "allreduce", &c->overlap);
	if (c->overlap_ag.have)  /* written since 2026-11-28: earlier raw folders lost it on --refit */
		write_overlap(f, "overlap_ag_", "allgather", &c->overlap_ag);
}

static bool has_topology(const struct calib *c) { return c->id.topo_text[0] != 0; }
static bool has_shapes(const struct calib *c) { return c->nshapes > 0; }
static bool has_power(const struct calib *c) { return c->power.have; }
static bool has_fattn(const struct calib *c) { return c->nfattn > 0; }
static bool has_tkern(const struct calib *c) { return c->ntkern > 0; }

/* The raw files, in the order they are written: name, header line (NULL: none), rows, and when it is written
 * (NULL: always; topology and shapes only when there are some). */
static const struct raw_file {
	const char *name, *header;
	void (*rows)(FILE *f, const struct calib *c);
	bool (*wanted)(const struct calib *c);
} raw_files[] = {
	{ "identity.csv", "key,value", write_identity, NULL },
	{ "topology.txt", NULL, write_topology, has_topology },
	{ "gemm.csv", "dtype,m,n,k,us,min_us,p90_us,tflops,eff,grid,algo", write_gemm, NULL },
	{ "shapes.csv", "name,dtype,m,n,k", write_shapes, has_shapes },
	{ "collectives.csv", "scope,op,n,bytes,time_us,min_us,max_us,algbw_gbps,busbw_gbps,fit_us,rel_err",
	  write_collectives, NULL },
	{ "memory.csv", "kernel,bytes,us,gbps", write_memory, NULL },
	{ "attention.csv", "bh,seq,head_dim,fwd_us,bwd_us,fwd_tflops,bwd_tflops", write_attention, NULL },
	{ "clocks.csv", "after,sm_mhz,mem_mhz,throttle_reasons,power_w,temp_c", write_clocks, NULL },
	{ "misc.csv", "what,value,unit", write_misc, NULL },
	{ "sustain.csv", SUSTAIN_HEADER, write_sustain, has_power },
	{ "attention_torch.csv", NULL, torchattn_write, has_fattn },  /* the probe's own CSV, its header inside */
	{ "kernels_torch.csv", NULL, torchkern_write, has_tkern },    /* likewise */
};

int rawio_write(const struct calib *c, const char *dir)
{
	int rc = 0;
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		diag_errorf("cannot create '%s': %s", dir, strerror(errno));
		return GS_EENV;
	}
	for (size_t i = 0; i < sizeof raw_files / sizeof raw_files[0]; i++) {
		const struct raw_file *r = &raw_files[i];
		FILE *f;
		if (r->wanted && !r->wanted(c))
			continue;
		if ((f = csv_open(dir, r->name, r->header, &rc))) {
			r->rows(f, c);
			csv_close(f, dir, r->name, &rc);
		}
	}
	return rc;
}

/* ---- reading */

/* A raw file read through util/csvr.h. fields[] are the current line's cells; the last of maxf takes the rest
 * of the line, commas and all (files written before values were quoted hold commas in free text). */
struct csv {
	struct csvr *c;
	char path[1100];
	int line;
	const char *field[20];
	int nfield;
	char rest[4096];
};

/* open dir/name and skip its header; 1, 0 when absent (optional files), GS_EENV when it cannot be read */
static int csv_in(struct csv *r, const char *dir, const char *name, bool required)
{
	snprintf(r->path, sizeof r->path, "%s/%s", dir, name);
	r->line = 0;
	if (!required && access(r->path, F_OK) != 0 && errno == ENOENT)
		return 0;
	int err = 0;
	if (!(r->c = csvr_open(r->path, 0, &err)))
		return err;
	int n = csvr_next(r->c);
	if (n <= 0) {
		csvr_free(r->c);
		if (n == 0)
			diag_error(r->path, 0, 0, "empty");
		return GS_EINVAL;
	}
	r->line = csvr_line(r->c);
	return 1;
}

/* the next line's cells (at most maxf: the last keeps the rest of the line); 0 at the end or on an error */
static int csv_next(struct csv *r, int maxf)
{
	int n = csvr_next(r->c);
	if (n <= 0)
		return 0;
	r->line = csvr_line(r->c);
	r->nfield = n < maxf ? n : maxf;
	for (int i = 0; i < r->nfield; i++)
		r->field[i] = csvr_cell(r->c, i);
	if (n > maxf) {
		size_t len = 0;
		for (int i = maxf - 1; i < n && len < sizeof r->rest; i++)
			len += (size_t)snprintf(r->rest + len, sizeof r->rest - len, "%s%s", i >= maxf ? "," : "",
						csvr_cell(r->c, i));
		r->field[maxf - 1] = r->rest;
	}
	return 1;
}

static void csv_done(struct csv *r)
{
	csvr_free(r->c);
	r->c = NULL;
}

static int bad(struct csv *r, const char *what)
{
	return diag_error(r->path, r->line, 0, "%s", what);
}

static bool num(const char *s, double *out)
{
	char *end;
	*out = strtod(s, &end);
	return end != s && *end == 0 && isfinite(*out);
}

static bool dtype_of(const char *s, enum dtype *dt)
{
	for (int d = 0; d < DT_COUNT; d++)
		if (strcmp(s, cal_dtype_name((enum dtype)d)) == 0) {
			*dt = (enum dtype)d;
			return true;
		}
	return false;
}

static void read_matrix(const char *v, signed char p2p[CAL_MAX_GPUS][CAL_MAX_GPUS],
			int nv[CAL_MAX_GPUS][CAL_MAX_GPUS])
{
	int i = 0, j = 0;
	for (const char *p = v; *p && i < CAL_MAX_GPUS; ) {
		char *end;
		long x = strtol(p, &end, 10);
		if (end == p)
			break;
		if (j < CAL_MAX_GPUS) {
			if (p2p)
				p2p[i][j] = (signed char)x;
			else
				nv[i][j] = (int)x;
		}
		j++;
		p = end;
		if (*p == ';') {
			i++;
			j = 0;
		}
		if (*p)
			p++;
	}
}

static int read_identity(struct calib *c, const char *dir)
{
	struct csv r;
	int rc = csv_in(&r, dir, "identity.csv", true);
	struct cal_identity *id = &c->id;
	if (rc != 1)
		return rc;
	while (csv_next(&r, 2)) {
		const char *k = r.field[0], *v = r.nfield > 1 ? r.field[1] : "";
#define STR(key, dst) else if (strcmp(k, key) == 0) snprintf(dst, sizeof dst, "%s", v)
#define INT(key, dst) else if (strcmp(k, key) == 0) dst = atoi(v)
#define DBL(key, dst) else if (strcmp(k, key) == 0) dst = atof(v)
		if (0) {}
		STR("host", id->host); STR("date", id->date); STR("mode", id->mode); INT("gpus", id->ngpus);
		INT("host_gpus", id->host_gpus); INT("nodes", id->nodes); STR("gpu_name", id->gpu_name); INT("sm_count", id->sm_count);
		DBL("memory_bytes", id->memory_bytes); DBL("l2_bytes", id->l2_bytes);
		INT("sm_clock_max_mhz", id->sm_clock_max_mhz); INT("mem_clock_max_mhz", id->mem_clock_max_mhz);
		DBL("power_limit_w", id->power_limit_w); STR("driver", id->driver); INT("cuda_runtime", id->cuda_runtime);
		INT("cuda_driver", id->cuda_driver); INT("cublaslt_version", id->cublaslt_version);
		INT("nccl_version", id->nccl_version); INT("nvlinks", id->nvlinks); STR("env", id->env);
		STR("status", c->status);
		else if (strcmp(k, "cc") == 0)
			sscanf(v, "%d.%d", &id->cc_major, &id->cc_minor);
		else if (strcmp(k, "nvswitch") == 0)
			id->nvswitch = atoi(v) != 0;
		else if (strcmp(k, "p2p") == 0)
			read_matrix(v, id->p2p, NULL);
		else if (strcmp(k, "topo_nv") == 0)
			read_matrix(v, NULL, id->topo_nv);
#undef STR
#undef INT
#undef DBL
	}
	csv_done(&r);
	/* what a refit writes into the model's description and node: a count no machine has is an error, not a
	 * model of "-5 x NVIDIA H200" */
	if (id->ngpus < 1 || id->ngpus > 1000000 || id->nodes < 0 || id->nodes > 100000 || id->host_gpus < 0 ||
	    id->host_gpus > 1024 || id->sm_count < 0 || id->sm_count > 10000 || !(id->memory_bytes >= 0) ||
	    id->memory_bytes > 1e14)
		return diag_error(r.path, 0, 0, "gpus %d, nodes %d, host_gpus %d, sm_count %d, memory_bytes %g: a count "
				  "out of range (gpus 1 to 1e6, nodes 0 to 1e5, host_gpus 0 to 1024, sm_count 0 to 1e4, "
				  "memory_bytes 0 to 1e14)", id->ngpus, id->nodes, id->host_gpus, id->sm_count,
				  id->memory_bytes);
	return 0;
}

static int read_gemm(struct calib *c, const char *dir)
{
	struct csv r;
	int rc = csv_in(&r, dir, "gemm.csv", true);
	if (rc != 1)
		return rc;
	while (csv_next(&r, 11)) {
		double v[9];
		enum dtype dt;
		if (r.nfield < 11 || !dtype_of(r.field[0], &dt)) {
			csv_done(&r);
			return bad(&r, "expected dtype,m,n,k,us,min_us,p90_us,tflops,eff,grid,algo");
		}
		for (int i = 0; i < 9; i++)
			if (!num(r.field[1 + i], &v[i])) {
				csv_done(&r);
				return bad(&r, "a number is malformed");
			}
		struct cal_gemm_pt *p = calib_add_gemm(c);
		if (!p) {
			csv_done(&r);
			return GS_ENOMEM;
		}
		p->dt = dt;
		p->m = (long)v[0];
		p->n = (long)v[1];
		p->k = (long)v[2];
		p->us = v[3];
		p->min_us = v[4];
		p->p90_us = v[5];
		p->grid = v[8] != 0;
		snprintf(p->algo, sizeof p->algo, "%s", r.field[10]);
		/* the grid's axes: every value a grid point of this dtype has */
		if (p->grid) {
			struct cal_grid *g = &c->grid[dt];
			long *axes[3] = {g->m, g->n, g->k}, val[3] = {p->m, p->n, p->k};
			int *cnt[3] = {&g->nm, &g->nn, &g->nk};
			for (int a = 0; a < 3; a++) {
				int i = 0;
				while (i < *cnt[a] && axes[a][i] < val[a])
					i++;
				if (i < *cnt[a] && axes[a][i] == val[a])
					continue;
				if (*cnt[a] >= CAL_MAX_AXIS) {
					csv_done(&r);
					return bad(&r, "too many distinct sizes on one GEMM axis");
				}
				memmove(axes[a] + i + 1, axes[a] + i, sizeof(long) * (size_t)(*cnt[a] - i));
				axes[a][i] = val[a];
				(*cnt[a])++;
			}
		}
	}
	csv_done(&r);
	return 0;
}

static int read_collectives(struct calib *c, const char *dir)
{
	struct csv r;
	struct cal_series *s = NULL;
	int rc = csv_in(&r, dir, "collectives.csv", true);
	if (rc != 1)
		return rc;
	while (csv_next(&r, 11)) {
		enum coll_scope sc;
		int op = -1;
		double n, b, t, lo, hi;
		if (r.nfield < 7)
			return csv_done(&r), bad(&r, "expected scope,op,n,bytes,time_us,min_us,max_us,...");
		sc = strcmp(r.field[0], "inter") == 0 ? SCOPE_INTER : SCOPE_INTRA;
		for (int i = 0; i < COLL_NOPS; i++)
			if (strcmp(r.field[1], cal_op_name((enum coll_op)i)) == 0)
				op = i;
		if (op < 0 || !num(r.field[2], &n) || !num(r.field[3], &b) || !num(r.field[4], &t) ||
		    !num(r.field[5], &lo) || !num(r.field[6], &hi) || n < 2 || !(t > 0))
			return csv_done(&r), bad(&r, "malformed collective measurement");
		if (!s || s->scope != sc || s->op != (enum coll_op)op || s->n != (int)n) {
			if (!(s = calib_add_series(c)))
				return csv_done(&r), GS_ENOMEM;
			s->scope = sc;
			s->op = (enum coll_op)op;
			s->n = (int)n;
		}
		if (s->npts >= CAL_MAX_PTS || (s->npts && b <= s->bytes[s->npts - 1]))
			return csv_done(&r), bad(&r, "sizes of one series must increase (and be at most 48)");
		s->bytes[s->npts] = b;
		s->us[s->npts] = t;
		s->min_us[s->npts] = lo;
		s->max_us[s->npts] = hi;
		s->npts++;
	}
	csv_done(&r);
	return 0;
}

static int read_memory(struct calib *c, const char *dir)
{
	struct csv r;
	int rc = csv_in(&r, dir, "memory.csv", false);
	if (rc != 1)
		return rc;  /* 0: no such file */
	while (csv_next(&r, 4) && c->nmem < CAL_MAX_MEM) {
		struct cal_mem_pt *m = &c->mem[c->nmem];
		if (r.nfield < 3 || !num(r.field[1], &m->bytes) || !num(r.field[2], &m->us))
			return csv_done(&r), bad(&r, "expected kernel,bytes,us,gbps");
		m->kind = strcmp(r.field[0], "add") == 0 ? CAL_MEM_ADD : CAL_MEM_COPY;
		c->nmem++;
	}
	csv_done(&r);
	return 0;
}

static int read_attention(struct calib *c, const char *dir)
{
	struct csv r;
	int rc = csv_in(&r, dir, "attention.csv", false);
	if (rc != 1)
		return rc;  /* 0: no such file */
	while (csv_next(&r, 7) && c->nattn < CAL_MAX_ATTN) {
		struct cal_attn_pt *a = &c->attn[c->nattn];
		if (r.nfield < 5 || !num(r.field[3], &a->fwd_us) || !num(r.field[4], &a->bwd_us))
			return csv_done(&r), bad(&r, "expected bh,seq,head_dim,fwd_us,bwd_us,...");
		a->bh = atoi(r.field[0]);
		a->seq = atoi(r.field[1]);
		a->head_dim = atoi(r.field[2]);
		c->nattn++;
	}
	csv_done(&r);
	return 0;
}

static int read_clocks(struct calib *c, const char *dir)
{
	struct csv r;
	int rc = csv_in(&r, dir, "clocks.csv", false);
	if (rc != 1)
		return rc;  /* 0: no such file */
	while (csv_next(&r, 6) && c->nclocks < CAL_MAX_CLOCKS) {
		struct cal_clock *k = &c->clocks[c->nclocks];
		if (r.nfield < 6)
			return csv_done(&r), bad(&r, "expected after,sm_mhz,mem_mhz,throttle_reasons,power_w,temp_c");
		snprintf(k->phase, sizeof k->phase, "%s", r.field[0]);
		k->sm_mhz = atoi(r.field[1]);
		k->mem_mhz = atoi(r.field[2]);
		k->reasons = strtoull(r.field[3], NULL, 16);
		k->power_w = atof(r.field[4]);
		k->temp_c = atof(r.field[5]);
		c->nclocks++;
	}
	csv_done(&r);
	return 0;
}

/* a key of write_overlap's without its prefix (k) into o; false when not one */
static bool read_overlap(const char *k, const char *v, const char *coll, struct cal_overlap *o)
{
	size_t n = strlen(coll);
	if (strcmp(k, "gemm_dtype") == 0)
		dtype_of(v, &o->dt);
	else if (strcmp(k, "gemm_m") == 0)
		o->m = atol(v);
	else if (strcmp(k, "gemm_n") == 0)
		o->n = atol(v);
	else if (strcmp(k, "gemm_k") == 0)
		o->k = atol(v);
	else if (strcmp(k, "copy_blocks") == 0)
		o->copy_blocks = atoi(v);
	else if (strcmp(k, "ranks") == 0)
		o->ranks = atoi(v);
	else if (strcmp(k, "gemm_alone") == 0)
		o->gemm_us = atof(v), o->have = true;
	else if (strcmp(k, "gemm_busy") == 0)
		o->gemm_busy_us = atof(v);
	else if (strncmp(k, coll, n) == 0 && strcmp(k + n, "_bytes") == 0)
		o->comm_bytes = atof(v);
	else if (strncmp(k, coll, n) == 0 && strcmp(k + n, "_alone") == 0)
		o->comm_us = atof(v);
	else if (strncmp(k, coll, n) == 0 && strcmp(k + n, "_busy") == 0)
		o->comm_busy_us = atof(v);
	else
		return false;
	return true;
}

static int read_misc(struct calib *c, const char *dir)
{
	struct csv r;
	int rc = csv_in(&r, dir, "misc.csv", false);
	if (rc != 1)
		return rc;  /* 0: no such file */
	while (csv_next(&r, 3)) {
		const char *k = r.field[0], *v = r.nfield > 1 ? r.field[1] : "";
		if (strcmp(k, "launch_back_to_back") == 0)
			c->launch_us = atof(v), c->have_launch = true;
		else if (strcmp(k, "launch_roundtrip") == 0)
			c->launch_roundtrip_us = atof(v);
		else if (strncmp(k, "overlap_ag_", 11) == 0)
			read_overlap(k + 11, v, "allgather", &c->overlap_ag);
		else if (strncmp(k, "overlap_", 8) == 0)
			read_overlap(k + 8, v, "allreduce", &c->overlap);
	}
	csv_done(&r);
	return 0;
}

static int read_shapes(struct calib *c, const char *dir)
{
	struct csv r;
	int rc = csv_in(&r, dir, "shapes.csv", false);
	if (rc != 1)
		return rc;  /* 0: no such file */
	while (csv_next(&r, 5) && c->nshapes < CAL_MAX_SHAPES) {
		struct cal_shape *s = &c->shapes[c->nshapes];
		if (r.nfield < 5 || !dtype_of(r.field[1], &s->dt))
			return csv_done(&r), bad(&r, "expected name,dtype,m,n,k");
		snprintf(s->name, sizeof s->name, "%s", r.field[0]);
		s->m = atol(r.field[2]);
		s->n = atol(r.field[3]);
		s->k = atol(r.field[4]);
		c->nshapes++;
	}
	csv_done(&r);
	return 0;
}

static double cell(struct csv *r, int i)
{
	double v = 0;
	if (i < r->nfield && r->field[i][0] && !num(r->field[i], &v))
		v = NAN;
	return v;
}

/* a gap row (write_sustain): a bin of the last gap when it is the same gap and GEMM, else the first of a new one */
static int read_gap(struct cal_power *p, struct csv *r, const double *v)
{
	double gap_us = atof(r->field[1]), bin_us = v[7];
	struct cal_gap *x = p->ngap ? &p->gap[p->ngap - 1] : NULL;
	if (!x || x->gap_us != gap_us || x->m != (long)v[3] || x->n != (long)v[4] || x->k != (long)v[5]) {
		if (p->ngap >= CAL_MAX_GAPS)
			return bad(r, "more gaps than " CAL_MAX_GAPS_TEXT);
		x = &p->gap[p->ngap++];
		*x = (struct cal_gap){(long)v[3], (long)v[4], (long)v[5], gap_us, v[10], (int)v[6], bin_us, 0, {0}};
	}
	int b = bin_us > 0 ? (int)lround(v[8] * 1e6 / bin_us) : -1;
	if (!(gap_us >= 0) || !(bin_us > 0) || b < 0 || b >= CAL_MAX_GAP_BINS)
		return bad(r, "a gap row's idle, bin width or bin start out of range");
	x->us[b] = v[9];
	if (b + 1 > x->nbins)
		x->nbins = b + 1;
	return 0;
}

static int read_sustain(struct calib *c, const char *dir)
{
	struct csv r;
	struct cal_power *p = &c->power;
	int rc = csv_in(&r, dir, "sustain.csv", false);
	if (rc != 1)
		return rc;
	while (csv_next(&r, 17)) {
		const char *k = r.field[0];
		double v[17];
		if (r.nfield < 17)
			return csv_done(&r), bad(&r, "expected " SUSTAIN_HEADER);
		for (int i = 3; i < 16; i++)
			if (isnan(v[i] = cell(&r, i)))
				return csv_done(&r), bad(&r, "a cell that is not a number");
		if (strcmp(k, "hold") == 0)
			p->hold_s = v[8];
		else if (strcmp(k, "idle") == 0)
			p->idle_mhz = (int)v[11], p->idle_w = v[13];
		else if (strcmp(k, "rate") == 0 && p->nrates < CAL_MAX_SHAPES + 1) {
			struct cal_rate *x = &p->rate[p->nrates++];
			snprintf(x->name, sizeof x->name, "%s", r.field[1]);
			if (!dtype_of(r.field[2], &x->dt))
				return csv_done(&r), bad(&r, "unknown dtype");
			x->m = (long)v[3], x->n = (long)v[4], x->k = (long)v[5];
			x->sus_us = v[9], x->peak_us = v[10], x->sus_mhz = (int)v[11], x->peak_mhz = (int)v[12];
			x->sus_w = v[13], x->peak_w = v[14], x->sus_temp_c = v[15];
		} else if (strcmp(k, "ramp") == 0 && p->nramp < CAL_MAX_HOLD)
			p->ramp[p->nramp++] = (struct cal_hold_pt){v[8], v[9], (int)v[11], v[13], v[15],
								   strtoull(r.field[16], NULL, 16)};
		else if (strcmp(k, "mix") == 0 && p->nmix < CAL_MAX_MIX) {
			struct cal_mix *x = &p->mix[p->nmix++];
			*x = (struct cal_mix){"", (long)v[3], (long)v[4], (long)v[5], (int)v[8], (int)v[6], v[7], v[10], v[9],
					      (int)v[11], v[13]};
			snprintf(x->name, sizeof x->name, "%s", r.field[1]);
		}
		else if (strcmp(k, "copy") == 0)
			p->copy_bytes = v[7], p->copy_us = v[9], p->copy_mhz = (int)v[11], p->copy_w = v[13];
		else if (strcmp(k, "gap") == 0) {
			if ((rc = read_gap(p, &r, v)))
				return csv_done(&r), rc;
		} else if (strcmp(k, "gpu") == 0 && p->ngpu < CAL_MAX_GPUS)
			p->gpu[p->ngpu++] = (struct cal_gpu_held){atoi(r.field[1]), (int)v[11], v[9], v[13], v[15]};
		else
			return csv_done(&r), bad(&r, "unknown kind (hold, idle, rate, ramp, mix, copy, gpu, gap)");
	}
	csv_done(&r);
	p->have = p->nrates > 0 && p->rate[0].sus_us > 0;
	return 0;
}

/* A PyTorch probe's own CSV (attention_torch.csv, kernels_torch.csv), when the run measured it. */
static int read_probe(struct calib *c, const char *dir, const char *file, int (*parse)(FILE *, const char *,
										struct calib *))
{
	char path[1100];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	FILE *f = fopen(path, "r");
	if (!f)
		return errno == ENOENT ? 0 : diag_error(path, 0, 0, "%s", strerror(errno));
	int rc = parse(f, path, c);
	fclose(f);
	return rc;
}

static void read_topology(struct calib *c, const char *dir)
{
	char path[1100];
	snprintf(path, sizeof path, "%s/topology.txt", dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	size_t n = fread(c->id.topo_text, 1, sizeof c->id.topo_text - 1, f);
	c->id.topo_text[n] = 0;
	fclose(f);
}

int rawio_read(struct calib *c, const char *dir)
{
	int rc;
	if ((rc = read_identity(c, dir)) || (rc = read_gemm(c, dir)) || (rc = read_collectives(c, dir)) ||
	    (rc = read_memory(c, dir)) || (rc = read_attention(c, dir)) || (rc = read_clocks(c, dir)) ||
	    (rc = read_misc(c, dir)) || (rc = read_shapes(c, dir)) || (rc = read_sustain(c, dir)) ||
	    (rc = read_probe(c, dir, "attention_torch.csv", torchattn_parse)) ||
	    (rc = read_probe(c, dir, "kernels_torch.csv", torchkern_parse)))
		return rc;
	read_topology(c, dir);
	return 0;
}
