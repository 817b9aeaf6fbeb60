/* jsonr: a small JSON reader (RFC 8259) for reading back what gpusim writes, such as the trace-event timelines of
 * `predict --trace`, which can hold a million events. The caller walks the outer structure itself (jsonr_peek,
 * jsonr_accept, jsonr_key) and reads one inner value at a time into an arena it clears in between, so memory
 * stays that of one value whatever the file's size. Errors print "gpusim: file:line:col: message" once; every
 * later call then fails too, so a caller checks jsonr_failed at the end.
 * Strings are unescaped (\uXXXX to UTF-8, surrogate pairs joined); numbers are doubles (strtod). */
#ifndef JSONR_H
#define JSONR_H

#include <stdbool.h>
#include <stddef.h>

enum jv_kind { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ };

/* A value in the arena: arrays have n items, objects n keys and n items (keys[i] names items[i]). */
struct jv {
	enum jv_kind kind;
	bool b;
	double num;
	const char *str;
	int n;
	const char **keys;
	struct jv *items;
	int line, col;     /* where the value starts, for messages */
};

struct jsonr;

/* jsonr_open: the whole file in memory; NULL after a message (*err GS_EENV). */
struct jsonr *jsonr_open(const char *path, int *err);
/* jsonr_open_text: a reader of len bytes of text (copied); name is used in messages. */
struct jsonr *jsonr_open_text(const char *name, const char *text, size_t len);
void jsonr_free(struct jsonr *r);

/* The next character after white space, or 0 at the end. */
int jsonr_peek(struct jsonr *r);
/* jsonr_accept: skips white space and c if c is next; true when it was. */
bool jsonr_accept(struct jsonr *r, int c);
/* jsonr_expect: as accept, but an error ("expected ',' or ']'") when c is not next; 0 or GS_EINVAL. */
int jsonr_expect(struct jsonr *r, int c, const char *what);
/* jsonr_key: an object key and its colon; the key lives until the next jsonr_clear. NULL after an error. */
const char *jsonr_key(struct jsonr *r);
/* jsonr_value: the next value, built in the arena (valid until jsonr_clear). NULL after an error. */
const struct jv *jsonr_value(struct jsonr *r);
/* jsonr_clear: empties the arena (everything jsonr_key and jsonr_value returned). */
void jsonr_clear(struct jsonr *r);
/* jsonr_error: reports msg at the current place (once); returns GS_EINVAL. */
int jsonr_error(struct jsonr *r, const char *msg);
bool jsonr_failed(const struct jsonr *r);

/* jv_get: the member key of an object, or NULL (also when o is no object). */
const struct jv *jv_get(const struct jv *o, const char *key);
/* jv_num / jv_str: the member as a number / string, or def when absent or of another kind. */
double jv_num(const struct jv *o, const char *key, double def);
const char *jv_str(const struct jv *o, const char *key, const char *def);

#endif
