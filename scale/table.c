/* table: a sweep's rows on paper and back. One column list (cols[] below) drives the CSV header, the CSV cells,
 * the JSON keys and both readers, so a column added there is written and read everywhere alike. A row that is
 * not feasible has only the columns up to "reason"; its other cells are empty (CSV) or absent (JSON).
 * Doubles are written in shortest round-trip form and read with strtod, so read-then-write is byte-identical:
 * merged shards print exactly what the whole sweep prints. */
#include "scale/scale.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/csvr.h"
#include "util/csvw.h"
#include "util/diag.h"
#include "util/gserr.h"
#include "util/jsonr.h"
#include "util/jsonw.h"
#include "util/slurp.h"
#include "util/xalloc.h"

enum ctype { C_INT, C_DBL, C_BOOL, C_STR };

/* Which rows have a column: every row, feasible rows (the prediction), infeasible ones (the reason). */
enum when { W_ALL, W_FEASIBLE, W_INFEASIBLE };

struct col {
	const char *name;     /* CSV header; "parent.child" nests in JSON */
	enum ctype type;
	size_t off, size;
	enum when when;
};

#define COL(n, t, m, f) {n, t, offsetof(struct scale_row, m), sizeof(((struct scale_row *)0)->m), f}
static const struct col cols[] = {
	COL("row", C_INT, row, W_ALL),
	COL("hardware", C_STR, hardware, W_ALL),
	COL("gpus", C_INT, gpus, W_ALL),
	COL("dp", C_INT, dp, W_ALL),
	COL("tp", C_INT, tp, W_ALL),
	COL("pp", C_INT, pp, W_ALL),
	COL("global_batch", C_INT, global_batch, W_ALL),
	COL("micro_batch", C_INT, micro_batch, W_ALL),
	COL("feasible", C_BOOL, feasible, W_ALL),
	COL("reason", C_STR, reason, W_INFEASIBLE),
	COL("num_microbatches", C_INT, num_microbatches, W_FEASIBLE),
	COL("base_gpus", C_INT, base_gpus, W_FEASIBLE),
	COL("step_time_s", C_DBL, step_time_s, W_FEASIBLE),
	COL("tokens_per_s", C_DBL, tokens_per_s, W_FEASIBLE),
	COL("speedup", C_DBL, speedup, W_FEASIBLE),
	COL("scaling_efficiency", C_DBL, efficiency, W_FEASIBLE),
	COL("mfu", C_DBL, mfu, W_FEASIBLE),
	COL("exposed_comm_share", C_DBL, exposed_comm_share, W_FEASIBLE),
	COL("bubble_share", C_DBL, bubble_share, W_FEASIBLE),
	COL("breakdown_s.compute", C_DBL, breakdown_s.compute, W_FEASIBLE),
	COL("breakdown_s.tp_comm_exposed", C_DBL, breakdown_s.tp_comm_exposed, W_FEASIBLE),
	COL("breakdown_s.pp_comm_exposed", C_DBL, breakdown_s.pp_comm_exposed, W_FEASIBLE),
	COL("breakdown_s.dp_comm_exposed", C_DBL, breakdown_s.dp_comm_exposed, W_FEASIBLE),
	COL("breakdown_s.pipeline_bubble", C_DBL, breakdown_s.pipeline_bubble, W_FEASIBLE),
	COL("breakdown_s.optimizer", C_DBL, breakdown_s.optimizer, W_FEASIBLE),
	COL("breakdown_s.host_wait", C_DBL, breakdown_s.host_wait, W_FEASIBLE),
	COL("memory_per_gpu_bytes", C_DBL, memory_per_gpu_bytes, W_FEASIBLE),
	COL("memory_capacity_bytes", C_DBL, memory_capacity_bytes, W_FEASIBLE),
	COL("fits_in_memory", C_BOOL, fits_in_memory, W_FEASIBLE),
};
#define NCOLS ((int)(sizeof cols / sizeof cols[0]))
/* The sweep's own fields, repeated at the start of every CSV line. */
static const char *const sweep_cols[] = { "sweep", "scenario", "mode", "rows_total" };
#define NSWEEP 4

/* Whether row r has column c. */
static bool has(const struct scale_row *r, const struct col *c)
{
	return c->when == W_ALL || (c->when == W_FEASIBLE) == r->feasible;
}

static void *field(struct scale_row *r, const struct col *c)
{
	return (char *)r + c->off;
}

static const void *cfield(const struct scale_row *r, const struct col *c)
{
	return (const char *)r + c->off;
}

static int finish(FILE *f)
{
	return fflush(f) != 0 || ferror(f) ? GS_EENV : GS_OK;
}

/* ---- CSV ---- */

/* The text of a column's value (empty for a value the row does not have). */
static const char *cell_text(const struct scale_row *r, const struct col *c, char *buf, size_t n)
{
	if (!has(r, c))
		return "";
	const void *p = cfield(r, c);
	switch (c->type) {
	case C_INT: snprintf(buf, n, "%d", *(const int *)p); return buf;
	case C_DBL: return isfinite(*(const double *)p) ? jsonw_format_double(*(const double *)p, buf, n) : "";
	case C_BOOL: return *(const bool *)p ? "true" : "false";
	case C_STR: return (const char *)p;
	}
	return "";
}

static int write_csv(FILE *f, const struct scale_table *t)
{
	for (int i = 0; i < NSWEEP; i++)
		fprintf(f, "%s,", sweep_cols[i]);
	for (int c = 0; c < NCOLS; c++)
		fprintf(f, "%s%c", cols[c].name, c + 1 < NCOLS ? ',' : '\n');
	for (int i = 0; i < t->n; i++) {
		const struct scale_row *r = &t->rows[i];
		fprintf(f, "%s,", t->sweep);
		csvw_cell(f, t->scenario);
		fprintf(f, ",%s,%d,", scale_mode_name(t->mode), t->rows_total);
		for (int c = 0; c < NCOLS; c++) {
			char buf[48];
			csvw_cell(f, cell_text(r, &cols[c], buf, sizeof buf));
			fputc(c + 1 < NCOLS ? ',' : '\n', f);
		}
	}
	return finish(f);
}

/* ---- JSON ---- */

static int write_json(FILE *f, const struct scale_table *t)
{
	struct jsonw w;
	jsonw_init(&w, f);
	jsonw_object_begin(&w);
	jsonw_kv_string(&w, "scenario", t->scenario);
	jsonw_kv_string(&w, "mode", scale_mode_name(t->mode));
	jsonw_kv_string(&w, "sweep", t->sweep);
	jsonw_kv_int(&w, "rows_total", t->rows_total);
	jsonw_kv_int(&w, "shard", t->shard);
	jsonw_kv_int(&w, "shards", t->nshards);
	jsonw_key(&w, "rows");
	jsonw_array_begin(&w);
	for (int i = 0; i < t->n; i++) {
		const struct scale_row *r = &t->rows[i];
		jsonw_object_begin(&w);
		const char *open = NULL;  /* the parent object now open, "breakdown_s." */
		size_t open_len = 0;
		for (int c = 0; c < NCOLS; c++) {
			const struct col *col = &cols[c];
			if (!has(r, col))
				continue;
			const char *dot = strchr(col->name, '.');
			const char *key = col->name;
			if (open && (!dot || strncmp(col->name, open, open_len) != 0)) {
				jsonw_object_end(&w);
				open = NULL;
			}
			if (dot) {
				if (!open) {
					char parent[64];
					snprintf(parent, sizeof parent, "%.*s", (int)(dot - col->name), col->name);
					jsonw_key(&w, parent);
					jsonw_object_begin(&w);
					open = col->name;
					open_len = (size_t)(dot - col->name) + 1;
				}
				key = dot + 1;
			}
			const void *p = cfield(r, col);
			switch (col->type) {
			case C_INT: jsonw_kv_int(&w, key, *(const int *)p); break;
			case C_DBL: jsonw_kv_double(&w, key, *(const double *)p); break;
			case C_BOOL: jsonw_kv_bool(&w, key, *(const bool *)p); break;
			case C_STR: jsonw_kv_string(&w, key, (const char *)p); break;
			}
		}
		if (open)
			jsonw_object_end(&w);
		jsonw_object_end(&w);
	}
	jsonw_array_end(&w);
	jsonw_object_end(&w);
	return jsonw_finish(&w);
}

/* ---- table for people ---- */

/* A hardware none of whose rows fits in memory still has a baseline (its first feasible row): say so once per
 * hardware, since its speedups then compare layouts that could not run. */
static void write_unfit_baselines(FILE *f, const struct scale_table *t)
{
	for (int i = 0; i < t->n; i++) {
		const struct scale_row *r = &t->rows[i];
		if (!r->feasible || r->gpus != r->base_gpus || r->fits_in_memory)
			continue;
		fprintf(f, "note: no row of %s fits in GPU memory; its speedups are relative to %d GPUs, which does not "
			"fit either\n", r->hardware, r->gpus);
	}
}

static int write_people(FILE *f, const struct scale_table *t)
{
	int hw_w = 8;
	bool oom = false, host = false;
	for (int i = 0; i < t->n; i++) {
		int len = (int)strlen(t->rows[i].hardware);
		hw_w = len > hw_w ? len : hw_w;
		oom |= t->rows[i].feasible && !t->rows[i].fits_in_memory;
		host |= t->rows[i].feasible && t->rows[i].breakdown_s.host_wait > 0;
	}
	fprintf(f, "%s: %s scaling (%s), tp and pp as in the scenario, dp = GPUs / (tp*pp)\n", t->scenario,
		scale_mode_name(t->mode),
		t->mode == SCALE_STRONG ? "global batch kept" : "batch per DP replica kept, global batch grows");
	if (t->nshards > 1)
		fprintf(f, "shard %d of %d: rows %d, %d, ... of %d (join the shards with 'gpusim merge')\n", t->shard,
			t->nshards, t->shard - 1, t->shard - 1 + t->nshards, t->rows_total);
	fputc('\n', f);
	fprintf(f, "%-*s %6s %15s %7s %12s %14s %8s %10s %8s %7s %9s\n", hw_w, "hardware", "gpus", "dp x tp x pp",
		"batch", "step (ms)", "tokens/s", "speedup", "efficiency", "comm", "bubble", "GB/GPU");
	for (int i = 0; i < t->n; i++) {
		const struct scale_row *r = &t->rows[i];
		char layout[48];
		snprintf(layout, sizeof layout, "%d x %d x %d", r->dp, r->tp, r->pp);
		fprintf(f, "%-*s %6d ", hw_w, r->hardware, r->gpus);
		if (!r->feasible) {
			fprintf(f, "infeasible: %s\n", r->reason);
			continue;
		}
		char tok[48];
		report_group_digits(r->tokens_per_s, tok, sizeof tok);
		fprintf(f, "%15s %7d %12.3f %14s %8.2f %8.1f %% %6.1f %% %5.1f %% %8.1f%s\n", layout, r->global_batch,
			r->step_time_s * 1e3, tok, r->speedup, r->efficiency * 100, r->exposed_comm_share * 100,
			r->bubble_share * 100, r->memory_per_gpu_bytes / 1e9, r->fits_in_memory ? "" : " !");
	}
	fputs("\nspeedup: tokens/s over the first row of the same hardware that fits in memory (the first feasible\n"
	      "row when none fits); efficiency: speedup / (gpus / its gpus); comm: exposed TP + PP + DP\n"
	      "communication, share of the step on the critical rank\n", f);
	if (oom)
		fputs("!: does not fit in GPU memory (gpusim predict shows the memory breakdown and what would fit)\n", f);
	write_unfit_baselines(f, t);
	if (host)
		fputs("some rows wait for the host (training.execution): see breakdown_s.host_wait in csv/json\n",
		      f);
	return finish(f);
}

int scale_table_write(FILE *f, enum report_format fmt, const struct scale_table *t)
{
	switch (fmt) {
	case REPORT_CSV: return write_csv(f, t);
	case REPORT_JSON: return write_json(f, t);
	case REPORT_TABLE: return write_people(f, t);
	}
	return GS_EUSAGE;
}

/* ---- reading ---- */

/* Set a column from text; -1 when the text is not of the column's type. */
static int set_cell(struct scale_row *r, const struct col *c, const char *s)
{
	void *p = field(r, c);
	char *end;
	errno = 0;
	switch (c->type) {
	case C_INT: {
		long v = strtol(s, &end, 10);
		if (errno || end == s || *end || v < -2147483647L - 1 || v > 2147483647L)
			return -1;
		*(int *)p = (int)v;
		return 0;
	}
	case C_DBL: {
		double v = strtod(s, &end);
		/* numbers only: strtod would also take nan, inf and hexadecimal */
		if (errno || end == s || *end || !isfinite(v) || strspn(s, "+-.eE0123456789") != strlen(s))
			return -1;
		*(double *)p = v;
		return 0;
	}
	case C_BOOL:
		if (strcmp(s, "true") == 0)
			*(bool *)p = true;
		else if (strcmp(s, "false") == 0)
			*(bool *)p = false;
		else
			return -1;
		return 0;
	case C_STR:
		if (strlen(s) >= c->size)
			return -1;
		memcpy(p, s, strlen(s) + 1);
		return 0;
	}
	return -1;
}

static const char *type_name(enum ctype t)
{
	return t == C_INT ? "an integer" : t == C_DBL ? "a number" : t == C_BOOL ? "true or false" : "a short text";
}

/* The tables write_csv writes, read with util/csvr.h (which it frees). */
static int read_csv(struct csvr *c, const char *path, struct scale_table *t)
{
	int rc = 0, n;
	int at[NSWEEP + NCOLS];
	for (int i = 0; i < NSWEEP + NCOLS; i++)
		at[i] = -1;
	bool first = true;
	t->nshards = t->shard = 1;
	while (rc == 0 && (n = csvr_next(c)) != 0) {
		if (n < 0) {
			rc = n;
			break;
		}
		int line = csvr_line(c);
		if (first) {
			first = false;
			for (int k = 0; k < n; k++)
				for (int i = 0; i < NSWEEP + NCOLS; i++)
					if (strcmp(csvr_cell(c, k), i < NSWEEP ? sweep_cols[i] : cols[i - NSWEEP].name) == 0)
						at[i] = k;
			for (int i = 0; i < NSWEEP + NCOLS && rc == 0; i++)
				if (at[i] < 0)
					rc = diag_error(path, 1, 0, "no column '%s': not a table written by gpusim scale",
							i < NSWEEP ? sweep_cols[i] : cols[i - NSWEEP].name);
			continue;
		}
		char sweep[17] = "";
		int total = 0;
		struct scale_row *r = scale_table_add(t);
		for (int i = 0; i < NSWEEP + NCOLS && rc == 0; i++) {
			if (at[i] >= n) {
				rc = diag_error(path, line, 0, "the line has %d cells, the header %d", n, NSWEEP + NCOLS);
				break;
			}
			const char *s = csvr_cell(c, at[i]);
			int col = csvr_col(c, at[i]);
			if (i < NSWEEP) {
				bool ok;
				if (i == 0) {
					ok = strlen(s) == 16;
					if (ok)
						memcpy(sweep, s, 17);
				} else if (i == 1) {
					ok = strlen(s) < sizeof t->scenario;
					if (ok)
						memcpy(t->scenario, s, strlen(s) + 1);
				} else if (i == 2) {
					ok = scale_mode_parse(s, &t->mode) == 0;
				} else {
					char *end;
					long v = strtol(s, &end, 10);
					ok = end != s && *end == '\0' && v > 0 && v <= SCALE_MAX_ROWS;
					total = (int)v;
				}
				if (!ok)
					rc = diag_error(path, line, col, "bad %s '%s'", sweep_cols[i], s);
				continue;
			}
			const struct col *cl = &cols[i - NSWEEP];
			if (s[0] == '\0' && (cl->type == C_STR || cl->when != W_ALL))
				continue;
			if (set_cell(r, cl, s) != 0)
				rc = diag_error(path, line, col, "%s: expected %s, got '%s'", cl->name, type_name(cl->type),
						s);
		}
		if (rc != 0)
			break;
		if (t->n == 1) {
			memcpy(t->sweep, sweep, sizeof t->sweep);
			t->rows_total = total;
		} else if (strcmp(t->sweep, sweep) != 0 || t->rows_total != total) {
			rc = diag_error(path, line, 0, "this row belongs to another sweep (%s of %d rows, not %s of %d)",
					sweep, total, t->sweep, t->rows_total);
		}
	}
	if (rc == 0 && first)
		rc = diag_error(path, 0, 0, "empty file: not a table written by gpusim scale");
	else if (rc == 0 && t->n == 0)
		rc = diag_error(path, 0, 0, "a header and no rows: nothing to read (a table written by gpusim scale has "
				"a row per GPU count)");
	csvr_free(c);
	return rc;
}

/* ---- JSON, through util/jsonr.h: the table is one value; each cell is checked where it stands ---- */

struct jtab {
	const char *path;
	int errors;
};

static void jerr(struct jtab *j, const struct jv *at, const char *fmt, ...) DIAG_PRINTF(3, 4);
static void jerr(struct jtab *j, const struct jv *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_verror(j->path, at->line, at->col, fmt, ap);
	va_end(ap);
	j->errors++;
}

static const char *jkind(enum jv_kind k)
{
	static const char *const names[] = { "null", "true or false", "a number", "a string", "a list", "an object" };
	return names[k];
}

/* Member key of o, of kind want: NULL when absent (an error if required) or of another kind (an error). */
static const struct jv *member(struct jtab *j, const struct jv *o, const char *key, enum jv_kind want,
			       bool required)
{
	const struct jv *v = jv_get(o, key);
	if (!v) {
		if (required)
			jerr(j, o, "missing required key '%s'", key);
		return NULL;
	}
	if (v->kind != want) {
		jerr(j, v, "%s: expected %s, got %s", key, jkind(want), jkind(v->kind));
		return NULL;
	}
	return v;
}

/* A number that must be a whole int in [lo, hi]. */
static bool jint(struct jtab *j, const struct jv *v, const char *key, double lo, double hi, int *out)
{
	if (v->num != floor(v->num) || v->num < lo || v->num > hi) {
		jerr(j, v, "%s: expected an integer from %.0f to %.0f, got %.17g", key, lo, hi, v->num);
		return false;
	}
	*out = (int)v->num;
	return true;
}

static void jcell(struct jtab *j, const struct jv *map, const char *key, const struct col *cl, bool required,
		  struct scale_row *r)
{
	static const enum jv_kind kinds[] = { [C_INT] = JV_NUM, [C_DBL] = JV_NUM, [C_BOOL] = JV_BOOL, [C_STR] = JV_STR };
	const struct jv *v = member(j, map, key, kinds[cl->type], required);
	void *p = field(r, cl);
	if (!v)
		return;
	switch (cl->type) {
	case C_INT: jint(j, v, key, INT_MIN, INT_MAX, (int *)p); break;
	case C_DBL: *(double *)p = v->num; break;
	case C_BOOL: *(bool *)p = v->b; break;
	case C_STR:
		if (strlen(v->str) >= cl->size)
			jerr(j, v, "%s: longer than %zu characters", key, cl->size - 1);
		else
			memcpy(p, v->str, strlen(v->str) + 1);
		break;
	}
}

static void read_json_row(struct jtab *j, const struct jv *item, struct scale_row *r)
{
	if (item->kind != JV_OBJ) {
		jerr(j, item, "rows: expected an object, got %s", jkind(item->kind));
		return;
	}
	const struct jv *f = member(j, item, "feasible", JV_BOOL, true);
	bool feasible = f ? f->b : true;
	for (int c = 0; c < NCOLS; c++) {
		const struct col *cl = &cols[c];
		const struct jv *map = item;
		const char *key = cl->name, *dot = strchr(key, '.');
		if (cl->when == W_FEASIBLE && !feasible)
			continue;
		if (dot) {
			char parent[64];
			snprintf(parent, sizeof parent, "%.*s", (int)(dot - key), key);
			if (!(map = member(j, item, parent, JV_OBJ, true)))
				continue;
			key = dot + 1;
		}
		jcell(j, map, key, cl, cl->when != W_INFEASIBLE, r);
	}
}

/* The tables write_json writes, read with util/jsonr.h (which it frees). */
static int read_json(struct jsonr *r, const char *path, struct scale_table *t)
{
	struct jtab j = { .path = path };
	const struct jv *root = jsonr_value(r), *v;
	if (root && jsonr_peek(r) != 0)
		jsonr_error(r, "text after the table");
	if (jsonr_failed(r) || !root) {
		jsonr_free(r);
		return GS_EINVAL;
	}
	if (root->kind != JV_OBJ) {
		jerr(&j, root, "expected the JSON object gpusim scale writes, got %s", jkind(root->kind));
	} else {
		static const struct { const char *key; size_t off; double hi; } ints[] = {
			{ "rows_total", offsetof(struct scale_table, rows_total), SCALE_MAX_ROWS },
			{ "shard", offsetof(struct scale_table, shard), SCALE_MAX_SHARDS },
			{ "shards", offsetof(struct scale_table, nshards), SCALE_MAX_SHARDS },
		};
		if ((v = member(&j, root, "scenario", JV_STR, true)))
			snprintf(t->scenario, sizeof t->scenario, "%s", v->str);
		if ((v = member(&j, root, "mode", JV_STR, true)) && scale_mode_parse(v->str, &t->mode) != 0)
			jerr(&j, v, "mode: expected strong or weak, got '%s'", v->str);
		if ((v = member(&j, root, "sweep", JV_STR, true))) {
			if (strlen(v->str) >= sizeof t->sweep)
				jerr(&j, v, "sweep: longer than %zu characters", sizeof t->sweep - 1);
			else
				snprintf(t->sweep, sizeof t->sweep, "%s", v->str);
		}
		for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
			if ((v = member(&j, root, ints[i].key, JV_NUM, true)))
				jint(&j, v, ints[i].key, 1, ints[i].hi, (int *)((char *)t + ints[i].off));
		if ((v = member(&j, root, "rows", JV_ARR, true)) && v->n == 0)
			jerr(&j, v, "rows: empty: nothing to read (a table written by gpusim scale has a row per GPU count)");
		for (int i = 0; v && i < v->n; i++)
			read_json_row(&j, &v->items[i], scale_table_add(t));
	}
	jsonr_free(r);
	return j.errors ? GS_EINVAL : 0;
}

static int cmp_row(const void *a, const void *b)
{
	const struct scale_row *x = a, *y = b;
	return (x->row > y->row) - (x->row < y->row);
}

int scale_table_read_text(const char *path, const char *text, size_t len, struct scale_table *t)
{
	scale_table_init(t);
	size_t at = 0;
	while (at < len && strchr(" \t\r\n", text[at]) && text[at])
		at++;
	int rc;
	if (at < len && text[at] == '{') {
		rc = read_json(jsonr_open_text(path, text, len), path, t);
	} else if (memchr(text, '\0', len)) {
		rc = diag_error(path, 0, 0, "not a text file (it holds a NUL byte)");
	} else {
		rc = read_csv(csvr_new(path, text, len, 0), path, t);
	}
	if (rc != 0)
		return rc;
	for (int i = 0; i < t->n; i++)
		if (t->rows[i].row < 0 || t->rows[i].row >= t->rows_total)
			return diag_error(path, 0, 0, "row %d is outside the sweep's %d rows", t->rows[i].row,
					  t->rows_total);
	if (t->n > 1)  /* rows is NULL in an empty table: qsort(NULL, 0, ...) is undefined */
		qsort(t->rows, (size_t)t->n, sizeof *t->rows, cmp_row);
	return 0;
}

int scale_table_read(const char *path, struct scale_table *t)
{
	size_t len;
	int err = 0;
	scale_table_init(t);
	char *text = slurp_file(path, &len, &err);
	if (!text)
		return err;
	int rc = scale_table_read_text(path, text, len, t);
	free(text);
	return rc;
}

int scale_table_merge(const struct scale_table *tabs, const char *const *names, int n, struct scale_table *out)
{
	scale_table_init(out);
	if (n <= 0)
		return diag_errorf("merge: no tables");
	const struct scale_table *a = &tabs[0];
	int total = a->rows_total;
	for (int i = 1; i < n; i++) {
		const struct scale_table *b = &tabs[i];
		if (strcmp(a->sweep, b->sweep) != 0 || a->rows_total != b->rows_total || a->mode != b->mode)
			return diag_errorf("%s and %s come from different sweeps (ids %s and %s): shards to merge must "
					   "come from one 'gpusim scale' command line with --shard i/N", names[0], names[i],
					   a->sweep, b->sweep);
	}
	int *from = xcalloc((size_t)total, sizeof *from);  /* 1 + the table holding each row, 0 none */
	const struct scale_row **rows = xcalloc((size_t)total, sizeof *rows);
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++)
		for (int k = 0; k < tabs[i].n; k++) {
			int r = tabs[i].rows[k].row;
			if (from[r]) {
				rc = diag_errorf("row %d is in both %s and %s (the same shard given twice?)", r,
						 names[from[r] - 1], names[i]);
				break;
			}
			from[r] = i + 1;
			rows[r] = &tabs[i].rows[k];
		}
	if (rc == 0) {
		char missing[256] = "";
		int nmiss = 0;
		size_t len = 0;
		for (int r = 0; r < total; r++)
			if (!from[r] && nmiss++ < 12)
				len += (size_t)snprintf(missing + len, sizeof missing - len, "%s%d", nmiss > 1 ? ", " : "",
							r);
		if (nmiss)
			rc = diag_errorf("%d of the sweep's %d rows are in none of the files: rows %s%s (a shard "
					 "missing?)", nmiss, total, missing, nmiss > 12 ? ", ..." : "");
	}
	if (rc == 0) {
		memcpy(out->scenario, a->scenario, sizeof out->scenario);
		memcpy(out->sweep, a->sweep, sizeof out->sweep);
		out->mode = a->mode;
		out->rows_total = total;
		for (int r = 0; r < total; r++)
			*scale_table_add(out) = *rows[r];
	}
	free(from);
	free(rows);
	return rc;
}
