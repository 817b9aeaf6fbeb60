/* tableread: a sweep's table read back (scale_table_read): the CSV and the JSON that table.c writes, each cell
 * checked against its column's type where it stands (file:line:col), rows sorted by their number. */
#include "scale/scale.h"
#include "scale/table_internal.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/csvr.h"
#include "util/diag.h"
#include "util/gserr.h"
#include "util/jsonr.h"
#include "util/slurp.h"

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

/* The header line: where each sweep field and column stands (at[]); every one must be there but the host drift's
 * (W_POSITIVE: a table written before them lacks them; at[] -1). */
static int read_header(struct csvr *c, int n, const char *path, int *at)
{
	for (int i = 0; i < NSWEEP + SCALE_NCOLS; i++)
		at[i] = -1;
	for (int k = 0; k < n; k++)
		for (int i = 0; i < NSWEEP + SCALE_NCOLS; i++)
			if (strcmp(csvr_cell(c, k), i < NSWEEP ? scale_sweep_cols[i] : scale_cols[i - NSWEEP].name) == 0)
				at[i] = k;
	for (int i = 0; i < NSWEEP + SCALE_NCOLS; i++)
		if (at[i] < 0 && (i < NSWEEP || scale_cols[i - NSWEEP].when != W_POSITIVE))
			return diag_error(path, 1, 0, "no column '%s': not a table written by gpusim scale",
					  i < NSWEEP ? scale_sweep_cols[i] : scale_cols[i - NSWEEP].name);
	return 0;
}

/* Sweep field i of a line (sweep id, scenario, mode, rows_total) into sweep, t and *total; false when bad. */
static bool sweep_cell(int i, const char *s, struct scale_table *t, char sweep[17], int *total)
{
	if (i == 0) {
		if (strlen(s) != 16)
			return false;
		memcpy(sweep, s, 17);
		return true;
	}
	if (i == 1) {
		if (strlen(s) >= sizeof t->scenario)
			return false;
		memcpy(t->scenario, s, strlen(s) + 1);
		return true;
	}
	if (i == 2)
		return scale_mode_parse(s, &t->mode) == 0;
	char *end;
	long v = strtol(s, &end, 10);
	*total = (int)v;
	return end != s && *end == '\0' && v > 0 && v <= SCALE_MAX_ROWS;
}

/* One data line of n cells into a new row of t; its sweep fields must be those of the first row. */
static int read_line(struct csvr *c, int n, const char *path, const int *at, struct scale_table *t)
{
	char sweep[17] = "";
	int total = 0, line = csvr_line(c);
	struct scale_row *r = scale_table_add(t);
	for (int i = 0; i < NSWEEP + SCALE_NCOLS; i++) {
		if (at[i] < 0)  /* an optional column the file lacks */
			continue;
		if (at[i] >= n)
			return diag_error(path, line, 0, "the line has %d cells, the header %d", n, NSWEEP + SCALE_NCOLS);
		const char *s = csvr_cell(c, at[i]);
		int col = csvr_col(c, at[i]);
		if (i < NSWEEP) {
			if (!sweep_cell(i, s, t, sweep, &total))
				return diag_error(path, line, col, "bad %s '%s'", scale_sweep_cols[i], s);
			continue;
		}
		const struct col *cl = &scale_cols[i - NSWEEP];
		if (s[0] == '\0' && (cl->type == C_STR || cl->when != W_ALL))
			continue;
		if (set_cell(r, cl, s) != 0)
			return diag_error(path, line, col, "%s: expected %s, got '%s'", cl->name, type_name(cl->type), s);
		if (cl->when == W_POSITIVE && !(*(const double *)field(r, cl) > 0))
			return diag_error(path, line, col, "%s: expected a number above 0, got '%s'", cl->name, s);
	}
	if (t->n == 1) {
		memcpy(t->sweep, sweep, sizeof t->sweep);
		t->rows_total = total;
	} else if (strcmp(t->sweep, sweep) != 0 || t->rows_total != total) {
		return diag_error(path, line, 0, "this row belongs to another sweep (%s of %d rows, not %s of %d)", sweep,
				  total, t->sweep, t->rows_total);
	}
	return 0;
}

/* The tables write_csv writes, read with util/csvr.h (which it frees). */
static int read_csv(struct csvr *c, const char *path, struct scale_table *t)
{
	int rc = 0, n;
	int at[NSWEEP + SCALE_NCOLS];
	bool first = true;
	t->nshards = t->shard = 1;
	while (rc == 0 && (n = csvr_next(c)) != 0) {
		if (n < 0)
			rc = n;
		else if (first)
			rc = read_header(c, n, path, at);
		else
			rc = read_line(c, n, path, at, t);
		first = false;
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
	case C_DBL:
		if (cl->when == W_POSITIVE && !(v->num > 0))
			jerr(j, v, "%s: expected a number above 0, got %.17g", key, v->num);
		*(double *)p = v->num;
		break;
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
	for (int c = 0; c < SCALE_NCOLS; c++) {
		const struct col *cl = &scale_cols[c];
		const struct jv *map = item;
		const char *key = cl->name, *dot = strchr(key, '.');
		if ((cl->when == W_FEASIBLE || cl->when == W_POSITIVE) && !feasible)
			continue;
		if (dot) {
			char parent[64];
			snprintf(parent, sizeof parent, "%.*s", (int)(dot - key), key);
			if (!(map = member(j, item, parent, JV_OBJ, true)))
				continue;
			key = dot + 1;
		}
		jcell(j, map, key, cl, cl->when != W_INFEASIBLE && cl->when != W_POSITIVE, r);
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

