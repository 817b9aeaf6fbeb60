/* jsonr: the reader of jsonr.h. The file is read whole; values are built in an arena of chunks that jsonr_clear
 * rewinds without freeing, so reading a million small events allocates a few chunks once. Arrays and objects
 * collect their items in a scratch vector per depth and are copied into the arena when they close, so each
 * value's items are one contiguous block. Line and column are counted as the reader moves, for messages. */
#include "util/jsonr.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/gserr.h"
#include "util/slurp.h"
#include "util/xalloc.h"

#define JSONR_MAX_DEPTH 64
#define CHUNK (1 << 20)

struct chunk {
	struct chunk *next;
	size_t used, size;
	char data[];
};

/* Items of an open array or object at one depth. */
struct scratch {
	struct jv *items;
	const char **keys;
	int n, cap;
};

struct jsonr {
	char *path;
	char *text;
	size_t len, pos;
	int line, col;
	bool failed;
	struct chunk *first, *cur;   /* arena */
	struct scratch stack[JSONR_MAX_DEPTH];
	int depth;
};

static void *arena(struct jsonr *r, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	while (r->cur && r->cur->used + n > r->cur->size) {
		if (!r->cur->next) {
			size_t size = n > CHUNK ? n : CHUNK;
			struct chunk *c = xmalloc(sizeof *c + size);
			c->next = NULL;
			c->used = 0;
			c->size = size;
			r->cur->next = c;
		}
		r->cur = r->cur->next;
		r->cur->used = 0;
	}
	void *p = r->cur->data + r->cur->used;
	r->cur->used += n;
	return p;
}

/* A reader of text (owned from here on), named name in messages. */
static struct jsonr *reader(const char *name, char *text, size_t len)
{
	struct jsonr *r = xcalloc(1, sizeof *r);
	r->text = text;
	r->len = len;
	r->path = xstrdup(name);
	r->line = r->col = 1;
	r->first = r->cur = xmalloc(sizeof *r->first + CHUNK);
	r->first->next = NULL;
	r->first->used = 0;
	r->first->size = CHUNK;
	return r;
}

struct jsonr *jsonr_open(const char *path, int *err)
{
	size_t len;
	char *text = slurp_file(path, &len, err);
	return text ? reader(path, text, len) : NULL;
}

struct jsonr *jsonr_open_text(const char *name, const char *text, size_t len)
{
	char *copy = xmalloc(len + 1);
	memcpy(copy, text, len);
	copy[len] = '\0';
	return reader(name, copy, len);
}

void jsonr_free(struct jsonr *r)
{
	if (!r)
		return;
	for (struct chunk *c = r->first, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	for (int i = 0; i < JSONR_MAX_DEPTH; i++) {
		free(r->stack[i].items);
		free(r->stack[i].keys);
	}
	free(r->text);
	free(r->path);
	free(r);
}

void jsonr_clear(struct jsonr *r)
{
	r->cur = r->first;
	r->cur->used = 0;
}

int jsonr_error(struct jsonr *r, const char *msg)
{
	if (!r->failed)
		diag_error(r->path, r->line, r->col, "%s", msg);
	r->failed = true;
	return GS_EINVAL;
}

bool jsonr_failed(const struct jsonr *r)
{
	return r->failed;
}

static void advance(struct jsonr *r)
{
	if (r->text[r->pos] == '\n') {
		r->line++;
		r->col = 1;
	} else {
		r->col++;
	}
	r->pos++;
}

static void skip_ws(struct jsonr *r)
{
	char c;
	while ((c = r->text[r->pos]) == ' ' || c == '\t' || c == '\n' || c == '\r')
		advance(r);
}

int jsonr_peek(struct jsonr *r)
{
	if (r->failed)
		return 0;
	skip_ws(r);
	return r->pos < r->len ? (unsigned char)r->text[r->pos] : 0;
}

bool jsonr_accept(struct jsonr *r, int c)
{
	if (jsonr_peek(r) != c || c == 0)
		return false;
	advance(r);
	return true;
}

int jsonr_expect(struct jsonr *r, int c, const char *what)
{
	if (jsonr_accept(r, c))
		return 0;
	char msg[96];
	snprintf(msg, sizeof msg, "expected %s", what);
	return jsonr_error(r, msg);
}

static int hex4(const char *s)
{
	int v = 0;
	for (int i = 0; i < 4; i++) {
		int c = s[i], d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
				  c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

static char *put_utf8(char *o, uint32_t u)
{
	if (u < 0x80) {
		*o++ = (char)u;
	} else if (u < 0x800) {
		*o++ = (char)(0xc0 | u >> 6);
		*o++ = (char)(0x80 | (u & 0x3f));
	} else if (u < 0x10000) {
		*o++ = (char)(0xe0 | u >> 12);
		*o++ = (char)(0x80 | (u >> 6 & 0x3f));
		*o++ = (char)(0x80 | (u & 0x3f));
	} else {
		*o++ = (char)(0xf0 | u >> 18);
		*o++ = (char)(0x80 | (u >> 12 & 0x3f));
		*o++ = (char)(0x80 | (u >> 6 & 0x3f));
		*o++ = (char)(0x80 | (u & 0x3f));
	}
	return o;
}

/* A string at the current '"', unescaped into the arena. */
static const char *string(struct jsonr *r)
{
	if (jsonr_expect(r, '"', "a string") != 0)
		return NULL;
	size_t start = r->pos, end = start;
	while (end < r->len && r->text[end] != '"') {
		if ((unsigned char)r->text[end] < 0x20) {
			while (r->pos < end)
				advance(r);
			jsonr_error(r, "control character in a string");
			return NULL;
		}
		end += r->text[end] == '\\' && end + 1 < r->len ? 2 : 1;
	}
	if (end >= r->len) {
		jsonr_error(r, "unterminated string");
		return NULL;
	}
	char *out = arena(r, end - start + 1), *o = out;  /* unescaping never lengthens */
	while (r->pos < end) {
		char c = r->text[r->pos];
		if (c != '\\') {
			*o++ = c;
			advance(r);
			continue;
		}
		char e = r->text[r->pos + 1];
		const char *simple = strchr("\"\\/bfnrt", e);
		if (e && simple) {
			*o++ = "\"\\/\b\f\n\r\t"[simple - "\"\\/bfnrt"];
			advance(r);
			advance(r);
			continue;
		}
		int u = e == 'u' && r->pos + 6 <= end ? hex4(r->text + r->pos + 2) : -1;
		if (u < 0) {
			jsonr_error(r, "bad escape in a string");
			return NULL;
		}
		for (int i = 0; i < 6; i++)
			advance(r);
		uint32_t cp = (uint32_t)u;
		if (cp >= 0xd800 && cp < 0xdc00 && r->pos + 6 <= end && r->text[r->pos] == '\\' &&
		    r->text[r->pos + 1] == 'u') {
			int lo = hex4(r->text + r->pos + 2);
			if (lo >= 0xdc00 && lo < 0xe000) {
				cp = 0x10000 + ((cp - 0xd800) << 10) + (uint32_t)(lo - 0xdc00);
				for (int i = 0; i < 6; i++)
					advance(r);
			}
		}
		o = put_utf8(o, cp);
	}
	*o = '\0';
	advance(r);  /* the closing quote */
	return out;
}

const char *jsonr_key(struct jsonr *r)
{
	if (r->failed)
		return NULL;
	const char *k = string(r);
	if (k && jsonr_expect(r, ':', "':' after an object key") != 0)
		return NULL;
	return k;
}

static bool word(struct jsonr *r, const char *w)
{
	size_t n = strlen(w);
	if (strncmp(r->text + r->pos, w, n) != 0)
		return false;
	for (size_t i = 0; i < n; i++)
		advance(r);
	return true;
}

static int value(struct jsonr *r, struct jv *v);

/* The items of an array or object up to its closer, copied into the arena at the end. */
static int container(struct jsonr *r, struct jv *v, bool object)
{
	if (r->depth == JSONR_MAX_DEPTH)
		return jsonr_error(r, "nested too deeply");
	struct scratch *s = &r->stack[r->depth++];
	s->n = 0;
	advance(r);  /* '[' or '{' */
	int close = object ? '}' : ']', rc = 0;
	if (!jsonr_accept(r, close)) {
		do {
			if (s->n == s->cap) {
				s->cap = s->cap ? 2 * s->cap : 16;
				s->items = xrealloc(s->items, (size_t)s->cap * sizeof *s->items);
				s->keys = xrealloc(s->keys, (size_t)s->cap * sizeof *s->keys);
			}
			const char *k = NULL;
			if (object && !(k = jsonr_key(r))) {
				rc = GS_EINVAL;
				break;
			}
			/* the item goes in place once parsed: inner containers use deeper scratch vectors */
			struct jv item;
			if ((rc = value(r, &item)) != 0)
				break;
			s->keys[s->n] = k;
			s->items[s->n++] = item;
		} while (jsonr_accept(r, ','));
		if (rc == 0)
			rc = jsonr_expect(r, close, object ? "',' or '}'" : "',' or ']'");
	}
	r->depth--;
	if (rc != 0)
		return rc;
	*v = (struct jv){ .kind = object ? JV_OBJ : JV_ARR, .n = s->n };
	v->items = arena(r, (size_t)s->n * sizeof *v->items + 1);
	if (s->n > 0)  /* an empty container's scratch may be NULL: memcpy(x, NULL, 0) is undefined */
		memcpy(v->items, s->items, (size_t)s->n * sizeof *v->items);
	if (object) {
		v->keys = arena(r, (size_t)s->n * sizeof *v->keys + 1);
		if (s->n > 0)
			memcpy(v->keys, s->keys, (size_t)s->n * sizeof *v->keys);
	}
	return 0;
}

static int value(struct jsonr *r, struct jv *v)
{
	int c = jsonr_peek(r), line = r->line, col = r->col;
	memset(v, 0, sizeof *v);
	if (c == '{' || c == '[') {
		int rc = container(r, v, c == '{');
		v->line = line;
		v->col = col;
		return rc;
	}
	v->line = line;
	v->col = col;
	if (c == '"') {
		v->kind = JV_STR;
		v->str = string(r);
		return v->str ? 0 : GS_EINVAL;
	}
	if (word(r, "true") || (c == 'f' && word(r, "false"))) {
		v->kind = JV_BOOL;
		v->b = c == 't';
		return 0;
	}
	if (word(r, "null"))
		return 0;
	if (c == '-' || (c >= '0' && c <= '9')) {
		char *end;
		errno = 0;
		v->kind = JV_NUM;
		v->num = strtod(r->text + r->pos, &end);
		/* JSON numbers only: strtod would also take "-inf", "-nan" and hexadecimal */
		bool plain = end > r->text + r->pos;
		for (const char *q = r->text + r->pos; q < end && plain; q++)
			plain = strchr("-+.eE0123456789", *q) != NULL;
		if (!plain || errno == ERANGE || !isfinite(v->num))
			return jsonr_error(r, "bad number");
		while (r->text + r->pos < end)
			advance(r);
		return 0;
	}
	return jsonr_error(r, c ? "expected a value" : "unexpected end of file");
}

const struct jv *jsonr_value(struct jsonr *r)
{
	if (r->failed)
		return NULL;
	struct jv *v = arena(r, sizeof *v);
	return value(r, v) == 0 ? v : NULL;
}

const struct jv *jv_get(const struct jv *o, const char *key)
{
	if (!o || o->kind != JV_OBJ)
		return NULL;
	for (int i = 0; i < o->n; i++)
		if (strcmp(o->keys[i], key) == 0)
			return &o->items[i];
	return NULL;
}

double jv_num(const struct jv *o, const char *key, double def)
{
	const struct jv *v = jv_get(o, key);
	return v && v->kind == JV_NUM ? v->num : def;
}

const char *jv_str(const struct jv *o, const char *key, const char *def)
{
	const struct jv *v = jv_get(o, key);
	return v && v->kind == JV_STR ? v->str : def;
}
