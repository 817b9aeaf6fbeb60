/* score: reading the measured-runs CSV and the arithmetic on it (score.h). Nothing here runs the simulator, so
 * the tests check every number by hand. The loader reports every bad line, not only the first, and keeps going
 * until the end of the file; a table with any error is never handed out half-checked (the caller gets
 * GS_EINVAL and releases it). */
#include "validate/score.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/scenario.h"
#include "util/csvr.h"
#include "util/diag.h"
#include "util/gserr.h"
#include "util/xalloc.h"


void score_table_init(struct score_table *t)
{
	memset(t, 0, sizeof *t);
	t->metric = SCORE_STEP_S;
}

void score_table_release(struct score_table *t)
{
	free(t->rows);
	t->rows = NULL;
	t->n = t->cap = 0;
}

/* Print "gpusim: file:line: msg", keep the first message in t->err, count it; returns GS_EINVAL. */
static int load_error(struct score_table *t, int line, const char *fmt, ...)
{
	char msg[sizeof t->err];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (t->nerrors++ == 0)
		snprintf(t->err, sizeof t->err, "%s", msg);
	return diag_error(t->path, line, 0, "%s", msg);
}

/* Column indices of the header, -1 when absent. */
struct columns {
	int n;
	int scenario, step_s, tflops, label, baseline, flops, role, family, mode, device, mem;
};

static int parse_header(struct score_table *t, int line, const char *const *f, int n, struct columns *c)
{
	static const char *const names[] = {"scenario", "measured_step_s", "measured_tflops_per_gpu", "label",
					    "baseline", "flops_formula", "role", "family", "mode", "device",
					    "peak_mem_bytes"};
	int *slot[] = {&c->scenario, &c->step_s, &c->tflops, &c->label, &c->baseline, &c->flops,
		       &c->role, &c->family, &c->mode, &c->device, &c->mem};
	int rc = 0;
	c->n = n;
	for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
		*slot[k] = -1;
	for (int i = 0; i < n; i++) {
		for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
			if (strcmp(f[i], names[k]) != 0)
				continue;
			if (*slot[k] >= 0)
				rc = load_error(t, line, "column '%s' appears twice in the header", names[k]);
			*slot[k] = i;
		}
	}
	if (c->scenario < 0)
		rc = load_error(t, line, "the header has no 'scenario' column");
	if (c->step_s >= 0 && c->tflops >= 0)
		rc = load_error(t, line, "the header has both measured_step_s and measured_tflops_per_gpu "
				"(one metric per file)");
	else if (c->step_s < 0 && c->tflops < 0)
		rc = load_error(t, line, "the header has no measured_step_s or measured_tflops_per_gpu column");
	if (c->baseline >= 0 && c->tflops >= 0)
		rc = load_error(t, line, "a baseline column needs measured_step_s (speedups compare step times)");
	t->metric = c->tflops >= 0 ? SCORE_TFLOPS : SCORE_STEP_S;
	return rc;
}

static struct score_row *add_row(struct score_table *t)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 32;
		t->rows = xreallocarray(t->rows, (size_t)t->cap, sizeof *t->rows);
	}
	struct score_row *r = &t->rows[t->n++];
	memset(r, 0, sizeof *r);
	r->baseline = -1;
	r->rel_err = NAN;
	return r;
}

/* One data line; 0 or GS_EINVAL (printed). Baselines are resolved after the whole file is read, into the
 * temporary names[] kept by the caller. */
static int parse_row(struct score_table *t, int line, const char *const *f, int n, const struct columns *c,
		     const char *dir, char (*base_name)[128])
{
	if (n != c->n)
		return load_error(t, line, "%d field%s, the header has %d", n, n == 1 ? "" : "s", c->n);
	const char *scen = f[c->scenario];
	if (!*scen)
		return load_error(t, line, "empty scenario");
	const char *mname = t->metric == SCORE_TFLOPS ? "measured_tflops_per_gpu" : "measured_step_s";
	const char *mval = f[t->metric == SCORE_TFLOPS ? c->tflops : c->step_s];
	char *end;
	errno = 0;
	double v = strtod(mval, &end);
	if (!*mval || *end || errno || !isfinite(v) || v <= 0)
		return load_error(t, line, "%s '%s' is not a positive number", mname, mval);
	enum score_flops fl = SCORE_FLOPS_MODEL;
	if (c->flops >= 0 && t->metric == SCORE_TFLOPS) {
		const char *s = f[c->flops];
		if (strcmp(s, "megatron") == 0)
			fl = SCORE_FLOPS_MEGATRON;
		else if (*s && strcmp(s, "model") != 0)
			return load_error(t, line, "unknown flops_formula '%s' (use model or megatron)", s);
	}
	const char *role = c->role >= 0 ? f[c->role] : "";
	if (*role && strcmp(role, "fit") != 0 && strcmp(role, "score") != 0)
		return load_error(t, line, "unknown role '%s' (use fit or score)", role);
	double mem = 0;
	if (c->mem >= 0 && *f[c->mem]) {
		errno = 0;
		mem = strtod(f[c->mem], &end);
		if (*end || errno || !isfinite(mem) || mem <= 0)
			return load_error(t, line, "peak_mem_bytes '%s' is not a positive number", f[c->mem]);
	}
	const char *label = c->label >= 0 ? f[c->label] : "";
	const char *base = c->baseline >= 0 ? f[c->baseline] : "";
	char buf[2048];
	if (strlen(scen) >= sizeof t->rows[0].scenario || strlen(label) >= sizeof t->rows[0].label ||
	    strlen(base) >= sizeof base_name[0])
		return load_error(t, line, "field too long");
	if (dir && *dir && scen[0] != '/')
		snprintf(buf, sizeof buf, "%s/%s", dir, scen);
	else
		snprintf(buf, sizeof buf, "%s", scen);
	if (strlen(buf) >= sizeof t->rows[0].path)
		return load_error(t, line, "scenario path too long");

	struct score_row *r = add_row(t);
	r->line = line;
	r->measured = v;
	r->flops = fl;
	r->measured_mem = mem;
	snprintf(r->role, sizeof r->role, "%s", role);
	snprintf(r->device, sizeof r->device, "%s", c->device >= 0 ? f[c->device] : "");
	if (c->family >= 0)
		snprintf(r->family, sizeof r->family, "%s", f[c->family]);
	else if (c->mode >= 0)
		score_family_of_mode(f[c->mode], r->family, sizeof r->family);
	snprintf(r->scenario, sizeof r->scenario, "%s", scen);
	snprintf(r->path, sizeof r->path, "%s", buf);
	if (*label)
		snprintf(r->label, sizeof r->label, "%s", label);
	else
		scenario_file_stem(scen, r->label, sizeof r->label);
	snprintf(base_name[t->n - 1], sizeof base_name[0], "%s", base);
	for (int i = 0; i < t->n - 1; i++)
		if (strcmp(t->rows[i].label, r->label) == 0)
			return load_error(t, line, "label '%s' is already used on line %d", r->label,
					  t->rows[i].line);
	return 0;
}

static void resolve_baselines(struct score_table *t, char (*base_name)[128])
{
	for (int i = 0; i < t->n; i++) {
		struct score_row *r = &t->rows[i];
		if (!base_name[i][0])
			continue;
		for (int j = 0; j < t->n; j++)
			if (strcmp(t->rows[j].label, base_name[i]) == 0)
				r->baseline = j;
		if (r->baseline < 0)
			load_error(t, r->line, "baseline '%s' matches no row's label", base_name[i]);
		else if (r->baseline == i)
			load_error(t, r->line, "row '%s' is its own baseline", r->label);
	}
}

/* Rows of the reader r (util/csvr.h: '#' comments, cells trimmed, RFC 4180 quotes) into t. */
static int load(struct score_table *t, struct csvr *r, const char *dir)
{
	const char **fields = NULL;
	int fcap = 0, n;
	char (*base_name)[128] = NULL;
	int base_cap = 0;
	struct columns cols = { 0 };  /* set by parse_header before any row is read */
	bool have_header = false;
	while ((n = csvr_next(r)) != 0) {
		if (n < 0) {
			if (t->nerrors++ == 0)
				snprintf(t->err, sizeof t->err, "a CSV syntax error on line %d", csvr_line(r));
			break;
		}
		if (n > fcap) {
			fcap = n;
			fields = xreallocarray(fields, (size_t)fcap, sizeof *fields);
		}
		for (int i = 0; i < n; i++)
			fields[i] = csvr_cell(r, i);
		int line = csvr_line(r);
		if (!have_header) {
			have_header = true;
			if (parse_header(t, line, fields, n, &cols) != 0)
				break;  /* rows cannot be read without their columns */
			continue;
		}
		if (t->n >= base_cap) {
			base_cap = base_cap ? 2 * base_cap : 32;
			base_name = xreallocarray(base_name, (size_t)base_cap, sizeof *base_name);
		}
		parse_row(t, line, fields, n, &cols, dir, base_name);
	}
	if (!have_header && t->nerrors == 0)
		load_error(t, 0, "no header line (the file is empty or all comments)");
	else if (have_header && t->n == 0 && t->nerrors == 0)
		load_error(t, 0, "no data rows");
	if (t->nerrors == 0)
		resolve_baselines(t, base_name);
	free(base_name);
	free(fields);
	return t->nerrors ? GS_EINVAL : 0;
}

static void start(struct score_table *t, const char *name)
{
	score_table_release(t);
	t->nerrors = 0;
	t->err[0] = '\0';
	snprintf(t->path, sizeof t->path, "%s", name);
}

int score_load_string(struct score_table *t, const char *name, const char *dir, const char *text)
{
	start(t, name);
	struct csvr *r = csvr_new(name, text, strlen(text), CSVR_COMMENTS | CSVR_TRIM);
	int rc = load(t, r, dir);
	csvr_free(r);
	return rc;
}

int score_load(struct score_table *t, const char *path)
{
	start(t, path);
	int rc = 0;
	struct csvr *r = csvr_open(path, CSVR_COMMENTS | CSVR_TRIM, &rc);
	if (!r) {
		if (rc == GS_EINVAL && t->nerrors++ == 0)
			snprintf(t->err, sizeof t->err, "not a text file (it holds a NUL byte)");
		return rc;
	}
	char dir[1024] = "";
	const char *slash = strrchr(path, '/');
	if (slash)
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path == 0 ? 1 : slash - path), path);
	rc = load(t, r, dir);
	csvr_free(r);
	return rc;
}

void score_family_of_mode(const char *mode, char *out, size_t size)
{
	size_t k = 0;
	for (const char *p = mode; *p && k + 1 < size; p++) {
		/* a group size follows a layout letter: dp2, tp4, pp2 (not the 1 of 1f1b) */
		if (isdigit((unsigned char)*p) && p > mode && p[-1] == 'p')
			while (isdigit((unsigned char)p[1]))
				p++;
		else
			out[k++] = *p;
	}
	out[k] = 0;
}

double score_rel_err(double predicted, double measured)
{
	return (predicted - measured) / measured;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double score_median(const double *v, int n)
{
	if (n <= 0)
		return NAN;
	double *s = xmalloc((size_t)n * sizeof *s);
	memcpy(s, v, (size_t)n * sizeof *s);
	qsort(s, (size_t)n, sizeof *s, cmp_double);
	double m = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
	free(s);
	return m;
}

double score_megatron_flops(double batch, double seq, double layers, double hidden, double vocab)
{
	return 96.0 * batch * seq * layers * hidden * hidden *
	       (1.0 + seq / (6.0 * hidden) + vocab / (16.0 * layers * hidden));
}

double score_tflops_per_gpu(double flops, double step_s, int gpus)
{
	return flops / (step_s * gpus) / 1e12;
}

void score_set_prediction(struct score_table *t, int i, double predicted, double step_s)
{
	struct score_row *r = &t->rows[i];
	r->predicted_ok = true;
	r->predicted = predicted;
	r->predicted_step_s = step_s;
	r->error[0] = '\0';
}

void score_set_memory(struct score_table *t, int i, double bytes)
{
	t->rows[i].predicted_mem = bytes;
}

void score_set_band(struct score_table *t, int i, double a, double b)
{
	t->rows[i].band_lo = a < b ? a : b;
	t->rows[i].band_hi = a < b ? b : a;
}

void score_set_failure(struct score_table *t, int i, const char *why)
{
	struct score_row *r = &t->rows[i];
	r->predicted_ok = false;
	r->predicted = r->predicted_step_s = NAN;
	snprintf(r->error, sizeof r->error, "%s", why);
}

void score_summarize(struct score_table *t, struct score_summary *sum)
{
	memset(sum, 0, sizeof *sum);
	sum->rows = t->n;
	sum->worst = -1;
	sum->median_abs_err = sum->max_abs_err = NAN;
	double *abs_err = xmalloc(((size_t)t->n + 1) * sizeof *abs_err);
	for (int i = 0; i < t->n; i++) {
		struct score_row *r = &t->rows[i];
		r->has_speedup = r->speedup_host_side = false;
		r->rel_err = NAN;
		if (!r->predicted_ok) {
			sum->failed++;
			continue;
		}
		r->rel_err = score_rel_err(r->predicted, r->measured);
		double a = fabs(r->rel_err);
		abs_err[sum->predicted++] = a;
		if (sum->worst < 0 || a > sum->max_abs_err) {
			sum->max_abs_err = a;
			sum->worst = i;
		}
		const struct score_row *b = r->baseline >= 0 ? &t->rows[r->baseline] : NULL;
		if (t->metric == SCORE_STEP_S && b && b->predicted_ok) {
			r->has_speedup = true;
			r->measured_speedup = b->measured / r->measured;
			r->predicted_speedup = b->predicted_step_s / r->predicted_step_s;
			r->speedup_sign_ok = (r->measured_speedup > 1.0) == (r->predicted_speedup > 1.0);
			sum->speedup_rows++;
			if (!r->speedup_sign_ok)
				sum->speedup_sign_wrong++;
			double fast = (b->band_hi > 0 ? b->band_lo : b->predicted_step_s) /
				      (r->band_hi > 0 ? r->band_lo : r->predicted_step_s);
			double slow = (b->band_hi > 0 ? b->band_hi : b->predicted_step_s) /
				      (r->band_hi > 0 ? r->band_hi : r->predicted_step_s);
			r->speedup_host_side = (fast > 1.0) != (slow > 1.0);
			if (r->speedup_host_side) {
				sum->speedup_host_side++;
				sum->speedup_host_side_wrong += !r->speedup_sign_ok;
			}
		}
	}
	sum->median_abs_err = score_median(abs_err, sum->predicted);
	for (int i = 0; i < t->n; i++) {
		const struct score_row *r = &t->rows[i];
		if (r->predicted_ok && r->band_hi > 0) {
			sum->band_rows++;
			sum->band_inside += r->measured >= r->band_lo && r->measured <= r->band_hi;
		}
	}
	/* peak memory, where both are known */
	sum->mem_worst = -1;
	sum->mem_median_abs_err = sum->mem_max_abs_err = NAN;
	for (int i = 0; i < t->n; i++) {
		struct score_row *r = &t->rows[i];
		r->mem_rel_err = NAN;
		if (!r->predicted_ok || r->measured_mem <= 0 || r->predicted_mem <= 0)
			continue;
		r->mem_rel_err = score_rel_err(r->predicted_mem, r->measured_mem);
		double a = fabs(r->mem_rel_err);
		abs_err[sum->mem_rows++] = a;
		if (sum->mem_worst < 0 || a > sum->mem_max_abs_err) {
			sum->mem_max_abs_err = a;
			sum->mem_worst = i;
		}
	}
	sum->mem_median_abs_err = score_median(abs_err, sum->mem_rows);
	free(abs_err);
}

static const char *group_key(const struct score_row *r, enum score_by by)
{
	if (by == SCORE_BY_BOUND)
		return r->band_hi > 0 ? "host" : "gpu";
	return by == SCORE_BY_FAMILY ? r->family : by == SCORE_BY_DEVICE ? r->device : r->role;
}

int score_groups(const struct score_table *t, enum score_by by, struct score_group *out, int max)
{
	int ng = 0;
	double *abs_err = xmalloc(((size_t)t->n + 1) * sizeof *abs_err);
	for (int i = 0; i < t->n; i++) {
		const char *key = group_key(&t->rows[i], by);
		int g = 0;
		while (g < ng && strcmp(out[g].key, key) != 0)
			g++;
		if (g < ng || ng == max)
			continue;  /* seen, or no room */
		struct score_group *sg = &out[ng++];
		memset(sg, 0, sizeof *sg);
		snprintf(sg->key, sizeof sg->key, "%s", key);
		sg->worst = -1;
		sg->max_abs_err = NAN;
		for (int j = i; j < t->n; j++) {
			const struct score_row *r = &t->rows[j];
			if (!r->predicted_ok || strcmp(group_key(r, by), key) != 0)
				continue;
			double a = fabs(r->rel_err);
			abs_err[sg->rows++] = a;
			if (sg->worst < 0 || a > sg->max_abs_err) {
				sg->max_abs_err = a;
				sg->worst = j;
			}
		}
		sg->median_abs_err = score_median(abs_err, sg->rows);
	}
	free(abs_err);
	return ng;
}
