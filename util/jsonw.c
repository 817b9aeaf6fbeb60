/* jsonw: streaming JSON writer. Invariant: before any value at depth d > 0, the writer has emitted either ": "
 * (after a key) or the separator of its container: "\n" plus indentation for the first item, ",\n" plus
 * indentation for the next ones. Containers close on their own line unless empty ("{}", "[]"). */
#include "util/jsonw.h"

#include <math.h>
#include <stdlib.h>
#include "util/gserr.h"

void jsonw_init(struct jsonw *w, FILE *f)
{
	w->f = f;
	w->depth = 0;
	w->after_key = false;
	for (int i = 0; i < JSONW_MAX_DEPTH; i++)
		w->has_items[i] = false;
}

static void indent(struct jsonw *w, int depth)
{
	for (int i = 0; i < depth; i++)
		fputs("  ", w->f);
}

/* Separator before a value or key at the current depth. */
static void item_start(struct jsonw *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->depth == 0)
		return;
	fputs(w->has_items[w->depth] ? ",\n" : "\n", w->f);
	w->has_items[w->depth] = true;
	indent(w, w->depth);
}

static void open_container(struct jsonw *w, char c)
{
	item_start(w);
	fputc(c, w->f);
	if (w->depth + 1 < JSONW_MAX_DEPTH)
		w->depth++;
	w->has_items[w->depth] = false;
}

static void close_container(struct jsonw *w, char c)
{
	bool had = w->has_items[w->depth];
	if (w->depth > 0)
		w->depth--;
	if (had) {
		fputc('\n', w->f);
		indent(w, w->depth);
	}
	fputc(c, w->f);
}

void jsonw_object_begin(struct jsonw *w) { open_container(w, '{'); }
void jsonw_object_end(struct jsonw *w) { close_container(w, '}'); }
void jsonw_array_begin(struct jsonw *w) { open_container(w, '['); }
void jsonw_array_end(struct jsonw *w) { close_container(w, ']'); }

void jsonw_put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);  /* UTF-8 passes through unchanged */
		}
	}
	fputc('"', f);
}

void jsonw_key(struct jsonw *w, const char *key)
{
	item_start(w);
	jsonw_put_string(w->f, key);
	fputs(": ", w->f);
	w->after_key = true;
}

void jsonw_string(struct jsonw *w, const char *s)
{
	item_start(w);
	if (s)
		jsonw_put_string(w->f, s);
	else
		fputs("null", w->f);
}

char *jsonw_format_double(double v, char *buf, size_t n)
{
	if (isnan(v)) {
		snprintf(buf, n, "nan");
		return buf;
	}
	if (isinf(v)) {
		snprintf(buf, n, v < 0 ? "-inf" : "inf");
		return buf;
	}
	if (v == trunc(v) && fabs(v) < 1e17) {
		/* whole numbers (bytes, counts) read better without an exponent; below 1e17 "%.0f" is exact */
		snprintf(buf, n, "%.0f", v);
		return buf;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, n, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}

void jsonw_double(struct jsonw *w, double v)
{
	char buf[40];
	item_start(w);
	if (!isfinite(v)) {
		fputs("null", w->f);
		return;
	}
	fputs(jsonw_format_double(v, buf, sizeof buf), w->f);
}

void jsonw_int(struct jsonw *w, long long v)
{
	item_start(w);
	fprintf(w->f, "%lld", v);
}

void jsonw_bool(struct jsonw *w, bool v)
{
	item_start(w);
	fputs(v ? "true" : "false", w->f);
}

void jsonw_null(struct jsonw *w)
{
	item_start(w);
	fputs("null", w->f);
}

void jsonw_kv_string(struct jsonw *w, const char *key, const char *s) { jsonw_key(w, key); jsonw_string(w, s); }
void jsonw_kv_double(struct jsonw *w, const char *key, double v) { jsonw_key(w, key); jsonw_double(w, v); }
void jsonw_kv_int(struct jsonw *w, const char *key, long long v) { jsonw_key(w, key); jsonw_int(w, v); }
void jsonw_kv_bool(struct jsonw *w, const char *key, bool v) { jsonw_key(w, key); jsonw_bool(w, v); }

int jsonw_finish(struct jsonw *w)
{
	fputc('\n', w->f);
	if (fflush(w->f) != 0 || ferror(w->f))
		return GS_EENV;
	return GS_OK;
}
