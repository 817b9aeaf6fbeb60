/* ydoc_get: typed reads of a ydoc tree with the error messages users see for a bad value. Every message starts
 * with the value's dotted path and is printed at the value's position (a missing key: at its map's position).
 *
 * Invariant: a getter either sets *out from a valid value and returns 1, leaves *out alone and returns 0 (absent,
 * not required), or prints exactly one error, counts it in the document and returns GS_EINVAL. */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/gserr.h"
#include "util/strsim.h"
#include "util/xalloc.h"
#include "util/ydoc_internal.h"

/* "model.layers" for key in map, into buf. */
static const char *key_path(const struct ynode *map, const char *key, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s", map->path, map->path[0] ? "." : "", key);
	return buf;
}

/* The value of key, or NULL with *rc = 0 (absent, fine) or GS_EINVAL (required and missing: reported).
 * An explicit null reads as absent. */
static const struct ynode *lookup(struct ydoc *d, const struct ynode *map, const char *key, unsigned flags, int *rc)
{
	char kp[256];
	*rc = 0;
	if (!map || map->kind != YNODE_MAP)
		return NULL;
	const struct ynode *v = ynode_get(map, key);
	if (v && !ynode_is_null(v))
		return v;
	if (flags & YD_REQUIRED) {
		if (v)
			*rc = ydoc_error(d, v, "missing value for required key '%s'", key_path(map, key, kp, sizeof kp));
		else
			*rc = ydoc_error(d, map, "missing required key '%s'", key_path(map, key, kp, sizeof kp));
	}
	return NULL;
}

static int type_error(struct ydoc *d, const struct ynode *n, const char *want)
{
	char got[96];
	return ydoc_error(d, n, "%s: expected %s, got %s", n->path, want, ynode_describe(n, got, sizeof got));
}

/* Strict number syntax: digits, sign, point, exponent; no hex, inf, nan or underscores. */
static int parse_number(const char *s, double *out)
{
	if (!*s)
		return -1;
	for (const char *p = s; *p; p++)
		if (!isdigit((unsigned char)*p) && !strchr("+-.eE", *p))
			return -1;
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end)
		return -1;
	*out = v;
	return 0;
}

void ydoc_set_ranges(struct ydoc *d, const struct yrange *ranges)
{
	d->ranges = ranges;
}

/* path ("gpu.gemm.tables[0].m[2]") against a pattern ("gpu.gemm.tables[].m[]": "[]" any index, "*" any key) */
static bool path_matches(const char *pat, const char *path)
{
	while (*pat && *path) {
		if (pat[0] == '[' && pat[1] == ']' && *path == '[') {
			const char *close = strchr(path, ']');
			if (!close)
				return false;
			pat += 2;
			path = close + 1;
			continue;
		}
		if (*pat == '*') {
			pat++;
			path += strcspn(path, ".[");
			continue;
		}
		if (*pat++ != *path++)
			return false;
	}
	return !*pat && !*path;
}

struct yrange ydoc_range_of(const struct ydoc *d, const char *path)
{
	for (const struct yrange *r = d ? d->ranges : NULL; r && r->path; r++)
		if ((r->path[0] == path[0] || r->path[0] == '*' || r->path[0] == '[') && path_matches(r->path, path))
			return *r;
	return (struct yrange){ path, -YDOC_DEFAULT_MAX, YDOC_DEFAULT_MAX };
}

/* "1 to 100000", "0 to 1e+05" */
static void range_text(double lo, double hi, char *buf, size_t n)
{
	snprintf(buf, n, "%.10g to %.10g", lo, hi);
}

static int check_range(struct ydoc *d, const struct ynode *n, double v)
{
	struct yrange r = ydoc_range_of(d, n->path);
	if (v >= r.lo && v <= r.hi)
		return 0;
	char range[96];
	range_text(r.lo, r.hi, range, sizeof range);
	return ydoc_error(d, n, "%s: %s is out of range (%s)", n->path, n->str, range);
}

static int check_sign(struct ydoc *d, const struct ynode *n, unsigned flags, double v)
{
	if ((flags & YD_POSITIVE) && !(v > 0))
		return ydoc_error(d, n, "%s: must be positive, got %s", n->path, n->str);
	if ((flags & YD_NONNEG) && !(v >= 0))
		return ydoc_error(d, n, "%s: must not be negative, got %s", n->path, n->str);
	return 0;
}

int ydoc_node_double(struct ydoc *d, const struct ynode *n, unsigned flags, double *out)
{
	double v;
	if (!n || n->kind != YNODE_SCALAR || !n->plain || parse_number(n->str, &v) != 0)
		return type_error(d, n, "a number");
	if (!isfinite(v))
		return ydoc_error(d, n, "%s: %s is out of range", n->path, n->str);
	if (check_sign(d, n, flags, v) != 0 || check_range(d, n, v) != 0)
		return GS_EINVAL;
	*out = v;
	return 1;
}

int ydoc_node_int(struct ydoc *d, const struct ynode *n, unsigned flags, int *out)
{
	double v;
	if (!n || n->kind != YNODE_SCALAR || !n->plain || parse_number(n->str, &v) != 0 || v != floor(v))
		return type_error(d, n, "an integer");
	if (!(fabs(v) <= INT_MAX))
		return ydoc_error(d, n, "%s: %s is out of range (at most %d)", n->path, n->str, INT_MAX);
	if (check_sign(d, n, flags, v) != 0 || check_range(d, n, v) != 0)
		return GS_EINVAL;
	*out = (int)v;
	return 1;
}

int ydoc_int(struct ydoc *d, const struct ynode *map, const char *key, unsigned flags, int *out)
{
	int rc;
	const struct ynode *v = lookup(d, map, key, flags, &rc);
	return v ? ydoc_node_int(d, v, flags, out) : rc;
}

int ydoc_double(struct ydoc *d, const struct ynode *map, const char *key, unsigned flags, double *out)
{
	int rc;
	const struct ynode *v = lookup(d, map, key, flags, &rc);
	return v ? ydoc_node_double(d, v, flags, out) : rc;
}

int ydoc_bool(struct ydoc *d, const struct ynode *map, const char *key, unsigned flags, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on" }, *const no[] = { "false", "no", "off" };
	int rc;
	const struct ynode *v = lookup(d, map, key, flags, &rc);
	if (!v)
		return rc;
	if (v->kind == YNODE_SCALAR && v->plain) {
		char low[8];
		size_t i;
		for (i = 0; i < sizeof low - 1 && v->str[i]; i++)
			low[i] = (char)tolower((unsigned char)v->str[i]);
		low[i] = '\0';
		if (!v->str[i]) {
			for (int j = 0; j < 3; j++) {
				if (strcmp(low, yes[j]) == 0)
					return *out = true, 1;
				if (strcmp(low, no[j]) == 0)
					return *out = false, 1;
			}
		}
	}
	return type_error(d, v, "true or false");
}

int ydoc_string(struct ydoc *d, const struct ynode *map, const char *key, unsigned flags, char *buf, size_t size)
{
	int rc;
	const struct ynode *v = lookup(d, map, key, flags, &rc);
	if (!v)
		return rc;
	if (v->kind != YNODE_SCALAR)
		return type_error(d, v, "a string");
	if (strlen(v->str) >= size)
		return ydoc_error(d, v, "%s: too long (at most %zu characters)", v->path, size - 1);
	memcpy(buf, v->str, strlen(v->str) + 1);
	return 1;
}

/* "a, b, c" into buf. */
static const char *join(const char *const *names, char *buf, size_t size)
{
	size_t used = 0;
	buf[0] = '\0';
	for (const char *const *p = names; *p && used < size; p++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s", p == names ? "" : ", ", *p);
	return buf;
}

int ydoc_enum(struct ydoc *d, const struct ynode *map, const char *key, unsigned flags, const char *const *names,
	      int *out)
{
	int rc;
	const struct ynode *v = lookup(d, map, key, flags, &rc);
	if (!v)
		return rc;
	char list[512];
	if (v->kind != YNODE_SCALAR)
		return ydoc_error(d, v, "%s: expected one of %s, got %s", v->path, join(names, list, sizeof list),
				  v->kind == YNODE_MAP ? "a mapping" : "a sequence");
	for (int i = 0; names[i]; i++)
		if (strcmp(v->str, names[i]) == 0)
			return *out = i, 1;
	const char *hint = strsim_suggest(v->str, names);
	if (hint)
		return ydoc_error(d, v, "%s: unknown value '%s' (did you mean '%s'?)", v->path, v->str, hint);
	return ydoc_error(d, v, "%s: unknown value '%s' (expected one of: %s)", v->path, v->str,
			  join(names, list, sizeof list));
}

static int get_kind(struct ydoc *d, const struct ynode *map, const char *key, unsigned flags,
		    const struct ynode **out, enum ynode_kind kind)
{
	int rc;
	const struct ynode *v = lookup(d, map, key, flags, &rc);
	if (!v)
		return rc;
	if (v->kind != kind)
		return type_error(d, v, kind == YNODE_MAP ? "a mapping" : "a sequence");
	*out = v;
	return 1;
}

int ydoc_map(struct ydoc *d, const struct ynode *map, const char *key, unsigned flags, const struct ynode **out)
{
	return get_kind(d, map, key, flags, out, YNODE_MAP);
}

int ydoc_seq(struct ydoc *d, const struct ynode *map, const char *key, unsigned flags, const struct ynode **out)
{
	return get_kind(d, map, key, flags, out, YNODE_SEQ);
}

int ydoc_doubles(struct ydoc *d, const struct ynode *map, const char *key, unsigned flags, double **out, int *n)
{
	const struct ynode *seq = NULL;
	int rc = ydoc_seq(d, map, key, flags, &seq);
	if (rc <= 0)
		return rc;
	if (seq->n == 0)
		return ydoc_error(d, seq, "%s: expected at least one number", seq->path);
	double *v = xmalloc((size_t)seq->n * sizeof *v);
	for (int i = 0; i < seq->n; i++) {
		if (ydoc_node_double(d, seq->items[i], flags, &v[i]) < 0) {
			free(v);
			return GS_EINVAL;
		}
	}
	*out = v;
	*n = seq->n;
	return 1;
}

int ydoc_check_keys(struct ydoc *d, const struct ynode *map, const char *const *allowed)
{
	int rc = 0;
	if (!map || map->kind != YNODE_MAP)
		return 0;
	for (int i = 0; i < map->n; i++) {
		const char *key = map->keys[i].name;
		const char *const *a;
		for (a = allowed; *a && strcmp(*a, key) != 0; a++)
			;
		if (*a)
			continue;
		const char *hint = strsim_suggest(key, allowed);
		char list[512];
		if (hint)
			rc = ydoc_error_at(d, map->keys[i].line, map->keys[i].col,
					   "unknown key '%s' (did you mean '%s'?)", key, hint);
		else
			rc = ydoc_error_at(d, map->keys[i].line, map->keys[i].col,
					   "unknown key '%s'%s%s (expected one of: %s)", key,
					   map->path[0] ? " in " : "", map->path, join(allowed, list, sizeof list));
	}
	return rc;
}
