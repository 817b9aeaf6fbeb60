/* sweep: runs a scaling sweep (scale.h) row by row. Each hardware model loads the scenario afresh (so its
 * errors point into the file and the hardware resolves as in predict), then every GPU count is a relayout of
 * that base: scenario_relayout says whether the layout exists, predict_run simulates it. Every row's speedup is
 * relative to the hardware's baseline row: the first that fits in memory, else the first feasible one. A shard
 * still simulates the rows of other shards up to the baseline, so the shards of a sweep write exactly the rows
 * the whole sweep writes. */
#include "scale/scale.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hardware/hwmodel.h"
#include "scenario/scenario.h"
#include "sim/hostband.h"
#include "util/diag.h"
#include "util/gserr.h"
#include "util/xalloc.h"

const char *scale_mode_name(enum scale_mode m)
{
	return m == SCALE_WEAK ? "weak" : "strong";
}

int scale_mode_parse(const char *s, enum scale_mode *out)
{
	if (s && strcmp(s, "strong") == 0)
		*out = SCALE_STRONG;
	else if (s && strcmp(s, "weak") == 0)
		*out = SCALE_WEAK;
	else
		return GS_EUSAGE;
	return GS_OK;
}

/* ---- GPU-count lists ---- */

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

struct ilist {
	int *v;
	int n, cap;
};

static void ilist_push(struct ilist *l, int x)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->v = xrealloc(l->v, (size_t)l->cap * sizeof *l->v);
	}
	l->v[l->n++] = x;
}

/* A positive int from s[0..len). */
static int parse_count(const char *s, size_t len, int *out)
{
	char buf[32];
	if (len == 0 || len >= sizeof buf)
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	char *end;
	errno = 0;
	long v = strtol(buf, &end, 10);
	if (errno || *end != '\0' || buf[0] == '+' || buf[0] == '-' || v <= 0 || v > INT_MAX)
		return -1;
	*out = (int)v;
	return 0;
}

#define MAX_SWEEP_POINTS 4096

/* Extend l (whose last items define the progression) up to end inclusive. */
static int continue_progression(struct ilist *l, int end, char *why, size_t n)
{
	if (l->n < 2) {
		snprintf(why, n, "'...' needs two numbers before it to show the step");
		return GS_EUSAGE;
	}
	long long a = l->v[l->n - 2], b = l->v[l->n - 1];
	bool geometric = b > a && b % a == 0;
	if (l->n >= 3) {
		long long z = l->v[l->n - 3];
		bool fits_ari = a - z == b - a;
		geometric = geometric && a > z && a % z == 0 && a / z == b / a;
		if (!geometric && !fits_ari) {
			snprintf(why, n, "%lld, %lld, %lld before '...' is neither a constant step nor a constant ratio",
				 z, a, b);
			return GS_EUSAGE;
		}
	}
	if (b <= a) {
		snprintf(why, n, "%lld, %lld before '...' does not increase", a, b);
		return GS_EUSAGE;
	}
	long long x = b;
	while (x < end) {
		x = geometric ? x * (b / a) : x + (b - a);
		if (x > end)
			break;
		if (l->n >= MAX_SWEEP_POINTS) {
			snprintf(why, n, "more than %d GPU counts", MAX_SWEEP_POINTS);
			return GS_EUSAGE;
		}
		ilist_push(l, (int)x);
	}
	if (l->v[l->n - 1] != end) {
		if (geometric)
			snprintf(why, n, "%d is not reached by multiplying %lld by %lld", end, b, b / a);
		else
			snprintf(why, n, "%d is not reached by adding %lld to %lld", end, b - a, b);
		return GS_EUSAGE;
	}
	return 0;
}

int scale_parse_gpus(const char *s, int **out, int *n, char *why, size_t whylen)
{
	struct ilist l = { 0 };
	bool pending_dots = false;
	const char *p = s ? s : "";
	if (*p == '\0') {
		snprintf(why, whylen, "empty list of GPU counts");
		return GS_EUSAGE;
	}
	for (;;) {
		size_t len = strcspn(p, ",");
		const char *dots = NULL;
		for (size_t i = 0; i + 1 < len; i++)
			if (p[i] == '.' && p[i + 1] == '.') {
				dots = p + i;
				break;
			}
		int a, b;
		if (len == 3 && strncmp(p, "...", 3) == 0) {
			if (pending_dots) {
				snprintf(why, whylen, "'...' twice in a row");
				goto bad;
			}
			pending_dots = true;
		} else if (dots && !(dots + 2 < p + len && dots[2] == '.')) {
			/* A..B: A, 2A, 4A, ... up to B */
			if (parse_count(p, (size_t)(dots - p), &a) != 0 ||
			    parse_count(dots + 2, len - (size_t)(dots - p) - 2, &b) != 0 || b < a) {
				snprintf(why, whylen, "'%.*s' is not a range A..B of positive counts with A <= B", (int)len, p);
				goto bad;
			}
			ilist_push(&l, a);
			if (b > a) {
				if (a < INT_MAX / 2)
					ilist_push(&l, 2 * a);
				if (continue_progression(&l, b, why, whylen) != 0) {
					snprintf(why, whylen, "%d in '%.*s' is not %d times a power of two", b, (int)len, p, a);
					goto bad;
				}
			}
		} else if (parse_count(p, len, &a) == 0) {
			if (pending_dots) {
				if (l.n && a <= l.v[l.n - 1]) {
					snprintf(why, whylen, "the end %d after '...' is not above %d", a, l.v[l.n - 1]);
					goto bad;
				}
				if (continue_progression(&l, a, why, whylen) != 0)
					goto bad;
				pending_dots = false;
			} else {
				ilist_push(&l, a);
			}
		} else {
			snprintf(why, whylen, "'%.*s' is not a positive GPU count", (int)len, p);
			goto bad;
		}
		if (l.n > MAX_SWEEP_POINTS) {
			snprintf(why, whylen, "more than %d GPU counts", MAX_SWEEP_POINTS);
			goto bad;
		}
		if (p[len] == '\0')
			break;
		p += len + 1;
	}
	if (pending_dots) {
		snprintf(why, whylen, "'...' needs the last GPU count after it (8,16,...,1024)");
		goto bad;
	}
	qsort(l.v, (size_t)l.n, sizeof *l.v, cmp_int);
	int m = 0;
	for (int i = 0; i < l.n; i++)
		if (m == 0 || l.v[i] != l.v[m - 1])
			l.v[m++] = l.v[i];
	*out = l.v;
	*n = m;
	return 0;
bad:
	free(l.v);
	return GS_EUSAGE;
}

/* ---- the sweep ---- */

void scale_table_init(struct scale_table *t)
{
	memset(t, 0, sizeof *t);
	t->shard = t->nshards = 1;
}

void scale_table_release(struct scale_table *t)
{
	free(t->rows);
	t->rows = NULL;
	t->n = t->cap = 0;
}

struct scale_row *scale_table_add(struct scale_table *t)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->rows = xrealloc(t->rows, (size_t)t->cap * sizeof *t->rows);
	}
	struct scale_row *r = &t->rows[t->n++];
	memset(r, 0, sizeof *r);
	return r;
}

/* FNV-1a, 64 bits: names a sweep definition, not a security hash. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 1099511628211ULL;
	}
	return h;
}

/* Adds the bytes of the file at path to *h; 0, or GS_EENV after a message. */
static int hash_file(uint64_t *h, const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		diag_errorf("cannot open '%s': %s", path, strerror(errno));
		return GS_EENV;
	}
	char buf[8192];
	size_t got;
	while ((got = fread(buf, 1, sizeof buf, f)) > 0)
		*h = fnv(*h, buf, got);
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		diag_errorf("cannot read '%s'", path);
		return GS_EENV;
	}
	return 0;
}

/* The sweep id: gpusim's version, the scenario file's bytes, the hardware arguments (and the bytes of those that
 * are files, so a recalibrated model is another sweep) and every choice that changes a row. */
static int sweep_id(const struct scale_spec *sp, char out[17])
{
	uint64_t h = fnv(14695981039346656037ULL, GPUSIM_VERSION, sizeof GPUSIM_VERSION);
	int rc = hash_file(&h, sp->scenario);
	for (int i = 0; i < sp->nhw && rc == 0; i++) {
		h = fnv(h, sp->hw[i], strlen(sp->hw[i]) + 1);
		if (!hwmodel_is_preset_name(sp->hw[i]))
			rc = hash_file(&h, sp->hw[i]);
	}
	/* --gpu, --target-gpu and --host change every row: which option, its name, the bytes of a file (a sweep
	 * without them keeps the id it had before they were hashed) */
	const char *more[3] = { sp->gpu, sp->target_gpu, sp->host };
	for (int i = 0; i < 3 && rc == 0; i++) {
		if (!more[i])
			continue;
		h = fnv(h, &i, sizeof i);
		h = fnv(h, more[i], strlen(more[i]) + 1);
		if (!hwmodel_is_preset_name(more[i]))
			rc = hash_file(&h, more[i]);
	}
	if (rc != 0)
		return rc;
	const char *mode = scale_mode_name(sp->mode);
	h = fnv(h, mode, strlen(mode) + 1);
	h = fnv(h, sp->gpus, (size_t)sp->ngpus * sizeof *sp->gpus);
	h = fnv(h, &sp->all_ranks, sizeof sp->all_ranks);
	snprintf(out, 17, "%016llx", (unsigned long long)h);
	return 0;
}

/* A result's step on the fast (slow false) or the slow host: its band's end, or its step where the host does not
 * bound it. */
static double host_step(const struct result *r, bool slow)
{
	return r->host_band.hi_s > 0 ? (slow ? r->host_band.hi_s : r->host_band.lo_s) : r->step_time_s;
}

static void fill_row(struct scale_row *row, const struct result *r, const struct result *base, int base_gpus)
{
	double base_tokens = base->tokens_per_s;
	const struct breakdown *b = &r->breakdown_s;
	row->feasible = true;
	row->base_gpus = base_gpus;
	row->step_time_s = r->step_time_s;
	row->tokens_per_s = r->tokens_per_s;
	row->speedup = r->tokens_per_s / base_tokens;
	row->efficiency = row->speedup / ((double)r->gpus / base_gpus);
	row->mfu = r->mfu;
	row->exposed_comm_share = (b->tp_comm_exposed + b->pp_comm_exposed + b->dp_comm_exposed) / r->step_time_s;
	row->bubble_share = b->pipeline_bubble / r->step_time_s;
	row->breakdown_s = *b;
	row->num_microbatches = r->num_microbatches;
	row->memory_per_gpu_bytes = r->mem.total;
	row->memory_capacity_bytes = r->memory_capacity_bytes;
	row->fits_in_memory = r->fits_in_memory;
	row->step_lo_s = r->host_band.lo_s;
	row->step_hi_s = r->host_band.hi_s;
	if (r->host_band.hi_s > 0 || base->host_band.hi_s > 0) {
		/* tokens a step at the host's end over the base's at the same end: one host runs both */
		for (int slow = 0; slow < 2; slow++) {
			double row_x = r->step_time_s / host_step(r, slow);
			double base_x = base->step_time_s / host_step(base, slow);
			*(slow ? &row->speedup_slow_host : &row->speedup_fast_host) = row->speedup * row_x / base_x;
		}
	}
}

static void tell(const struct scale_spec *sp, const struct scale_table *t, const char *hw, int gpus, double step,
		 const char *reason)
{
	if (!sp->progress)
		return;
	int total = 0;
	for (int i = 0; i < t->rows_total; i++)
		total += i % sp->nshards == sp->shard - 1;
	struct scale_progress p = { .done = t->n, .total = total, .hardware = hw, .gpus = gpus, .step_time_s = step,
				    .reason = reason };
	sp->progress(sp->progress_ctx, &p);
}

/* The scenario with hardware model h of the sweep, whose name must differ from those before it (names[]). */
static int load_hardware(const struct scale_spec *sp, int h, char (*names)[64], struct scenario *base,
			 struct hwmodel **hw)
{
	struct scenario_overrides ov = { .hardware = sp->nhw ? sp->hw[h] : NULL, .gpu = sp->gpu,
					 .target_gpu = sp->target_gpu, .host = sp->host };
	int rc = scenario_load(sp->scenario, &ov, base);
	if (rc == 0)
		rc = scenario_load_hardware(base, hw);
	if (rc != 0)
		return rc;
	for (int i = 0; i < h; i++)
		if (strcmp(names[i], (*hw)->name) == 0) {
			diag_errorf("hardware models %s and %s are both named '%s'; plots and tables need distinct "
				    "names: change one's 'name:'", sp->hw[i], sp->hw[h], (*hw)->name);
			hwmodel_free(*hw);
			*hw = NULL;
			return GS_EINVAL;
		}
	snprintf(names[h], sizeof names[h], "%s", (*hw)->name);
	return 0;
}

/* A row of this shard, with what is known before it is simulated. */
static struct scale_row *new_row(struct scale_table *t, int number, const char *hw, const struct scenario *base,
				 int gpus, long long gb)
{
	struct scale_row *row = scale_table_add(t);
	row->row = number;
	snprintf(row->hardware, sizeof row->hardware, "%s", hw);
	row->gpus = gpus;
	row->tp = base->par.tp;
	row->pp = base->par.pp;
	/* context parallelism: its cp ranks of a replica are GPUs too */
	row->dp = (int)(gpus / ((long long)base->par.tp * base->par.pp * (base->par.cp > 1 ? base->par.cp : 1)));
	row->global_batch = (int)(gb > INT_MAX ? 0 : gb);
	row->micro_batch = base->train.micro_batch;
	return row;
}

/* The rows of one hardware model. */
static int sweep_hardware(const struct scale_spec *sp, int h, char (*names)[64], struct scale_table *t)
{
	struct scenario base;
	struct hwmodel *hw = NULL;
	int rc = load_hardware(sp, h, names, &base, &hw);
	if (rc != 0)
		return rc;
	if (h == 0)
		snprintf(t->scenario, sizeof t->scenario, "%s", base.name);

	/* Every row of this hardware is simulated first (another shard's rows only while no baseline is known),
	 * then the speedups are filled in relative to the baseline: the first row that fits in memory, or the
	 * first feasible row when none fits (the table says so). */
	struct predict_opts opts = { .all_ranks = sp->all_ranks, .max_tasks = sp->max_tasks };
	struct result *res = xcalloc((size_t)sp->ngpus, sizeof *res);
	int *rows = xcalloc((size_t)sp->ngpus, sizeof *rows); /* index in t->rows + 1; 0: another shard's */
	bool *ran = xcalloc((size_t)sp->ngpus, sizeof *ran);
	int base_g = -1, first = -1;
	int per_replica = base.train.global_batch / base.par.dp;
	for (int g = 0; g < sp->ngpus && rc == 0; g++) {
		int number = h * sp->ngpus + g;
		bool mine = number % sp->nshards == sp->shard - 1;
		if (!mine && base_g >= 0)
			continue;
		int gpus = sp->gpus[g];
		long long mp = (long long)base.par.tp * base.par.pp * (base.par.cp > 1 ? base.par.cp : 1);
		long long gb = sp->mode == SCALE_STRONG ? base.train.global_batch : (gpus / mp) * per_replica;
		struct scenario sc;
		char why[256] = "";
		if (gb > INT_MAX) {
			snprintf(why, sizeof why, "the global batch (%lld) is too large", gb);
			rc = GS_EINVAL;
		} else {
			rc = scenario_relayout(&base, gpus, (int)gb, &sc, why, sizeof why);
		}
		struct scale_row *row = NULL;
		if (mine) {
			row = new_row(t, number, hw->name, &base, gpus, gb);
			rows[g] = t->n;
		}
		if (rc != 0) {
			if (row) {
				snprintf(row->reason, sizeof row->reason, "%s", why);
				tell(sp, t, hw->name, gpus, 0, why);
			}
			rc = 0;
			continue;
		}
		rc = predict_run(&sc, hw, &opts, &res[g]);
		if (rc == 0)  /* a host-bound row on a fast and a slow host too (sim/hostband.h) */
			rc = hostband_run(&sc, hw, &opts, &res[g]);
		if (rc != 0)
			break;
		ran[g] = true;
		if (row)
			tell(sp, t, hw->name, gpus, res[g].step_time_s, NULL);
		if (first < 0)
			first = g;
		if (base_g < 0 && res[g].fits_in_memory)
			base_g = g;
	}
	if (base_g < 0)
		base_g = first;
	for (int g = 0; g < sp->ngpus && rc == 0; g++)
		if (rows[g] && ran[g])
			fill_row(&t->rows[rows[g] - 1], &res[g], &res[base_g], sp->gpus[base_g]);
	free(res);
	free(rows);
	free(ran);
	hwmodel_free(hw);
	return rc;
}

int scale_run(const struct scale_spec *sp, struct scale_table *t)
{
	scale_table_init(t);
	if (sp->ngpus <= 0 || sp->nshards < 1 || sp->shard < 1 || sp->shard > sp->nshards) {
		diag_errorf("scale: no GPU counts, or shard %d/%d out of range", sp->shard, sp->nshards);
		return GS_EUSAGE;
	}
	int rc = sweep_id(sp, t->sweep);
	if (rc != 0)
		return rc;
	int nhw = sp->nhw ? sp->nhw : 1;
	t->mode = sp->mode;
	t->rows_total = nhw * sp->ngpus;
	t->shard = sp->shard;
	t->nshards = sp->nshards;
	char (*names)[64] = xcalloc((size_t)nhw, sizeof *names);
	for (int h = 0; h < nhw && rc == 0; h++)
		rc = sweep_hardware(sp, h, names, t);
	free(names);
	return rc;
}
