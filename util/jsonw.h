/* jsonw: a small streaming JSON writer (objects, arrays, strings, numbers, booleans) that keeps the commas, the
 * nesting and the escaping right, so callers only say what to write. Output is pretty-printed with two spaces per
 * level and one value per line, so every top-level key of an object sits on a line of its own (golden tests drop
 * a key with a one-line sed). Numbers use the shortest text that reads back to the same double, so the same result
 * always gives byte-identical output. The writer never fails on its own: the caller checks the stream at the end
 * (jsonw_finish). */
#ifndef JSONW_H
#define JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define JSONW_MAX_DEPTH 32

struct jsonw {
	FILE *f;
	int depth;
	bool has_items[JSONW_MAX_DEPTH];  /* has_items[d]: the container at depth d already holds a value */
	bool after_key;                   /* a key was written; the next value goes on the same line */
};

/* jsonw_init: start writing one JSON value to f (the writer does not own f). */
void jsonw_init(struct jsonw *w, FILE *f);
/* jsonw_finish: end the document with a newline and flush; 0, or GS_EENV when the stream had a write error. */
int jsonw_finish(struct jsonw *w);

void jsonw_object_begin(struct jsonw *w);
void jsonw_object_end(struct jsonw *w);
void jsonw_array_begin(struct jsonw *w);
void jsonw_array_end(struct jsonw *w);
/* jsonw_key: the key of the next value inside an object. */
void jsonw_key(struct jsonw *w, const char *key);

void jsonw_string(struct jsonw *w, const char *s);  /* NULL writes null */
void jsonw_double(struct jsonw *w, double v);       /* NaN and infinities write null (JSON has no such numbers) */
void jsonw_int(struct jsonw *w, long long v);
void jsonw_bool(struct jsonw *w, bool v);
void jsonw_null(struct jsonw *w);

/* Key and value in one call. */
void jsonw_kv_string(struct jsonw *w, const char *key, const char *s);
void jsonw_kv_double(struct jsonw *w, const char *key, double v);
void jsonw_kv_int(struct jsonw *w, const char *key, long long v);
void jsonw_kv_bool(struct jsonw *w, const char *key, bool v);

/* jsonw_put_string: s as one quoted, escaped JSON string, straight to f, for writers that lay out their own
 * compact JSON (the trace writer's one event per line) and only need the escaping. */
void jsonw_put_string(FILE *f, const char *s);

/* jsonw_format_double: whole numbers below 1e17 as plain integers ("17500000000"), others as the shortest %g text
 * (1 to 17 digits) that strtod reads back as exactly v, into buf (n >= 32). NaN and infinities give "nan", "inf", "-inf" (the caller decides what those mean). Returns buf. */
char *jsonw_format_double(double v, char *buf, size_t n);

#endif
