/* ydoc: builds the node tree from libyaml's event stream (not its document API, so that positions, duplicate
 * keys and aliases are under our control) and answers the node accessors of ydoc.h.
 *
 * Invariant kept while building: a node is linked into its parent only when it is complete, and an anchor is
 * registered only when its node is complete, so an alias always copies a finished subtree and the structure
 * stays a tree that ydoc_free can release recursively. On any error the partial node is freed on the way out. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "util/diag.h"
#include "util/gserr.h"
#include "util/xalloc.h"
#include "util/ydoc_internal.h"

#define YDOC_MAX_DEPTH 100
#define YDOC_MAX_NODES 50000  /* values in one file, alias copies included; the largest model (a calibration
				    * with its tables) has 5,700 */

struct anchor {
	char *name;
	const struct ynode *node;
};

struct loader {
	yaml_parser_t parser;
	struct ydoc *d;
	struct anchor *anchors;
	int nanchors, capanchors;
	int depth;
	long nodes;  /* in the tree so far, alias copies included (capped: YDOC_MAX_NODES) */
};

static void node_free(struct ynode *n)
{
	if (!n)
		return;
	for (int i = 0; i < n->n; i++) {
		node_free(n->items[i]);
		if (n->keys)
			free(n->keys[i].name);
	}
	free(n->items);
	free(n->keys);
	free(n->str);
	free(n->path);
	free(n);
}

static struct ynode *node_new(enum ynode_kind kind, yaml_mark_t mark, const char *path)
{
	struct ynode *n = xcalloc(1, sizeof *n);
	n->kind = kind;
	n->line = (int)mark.line + 1;
	n->col = (int)mark.column + 1;
	n->path = xstrdup(path);
	n->size = 1;
	return n;
}

static void node_append(struct ynode *n, struct ynode *child, const char *key, int line, int col)
{
	if (n->n == n->cap) {
		n->cap = n->cap ? 2 * n->cap : 4;
		n->items = xreallocarray(n->items, (size_t)n->cap, sizeof *n->items);
		if (n->kind == YNODE_MAP)
			n->keys = xreallocarray(n->keys, (size_t)n->cap, sizeof *n->keys);
	}
	n->items[n->n] = child;
	n->size += child->size;
	if (n->kind == YNODE_MAP)
		n->keys[n->n] = (struct ykey){ xstrdup(key), line, col };
	n->n++;
}

/* "path.key", or "path[index]" (joined by hand: every node of a preset gets one, and snprintf was a tenth of
 * loading it) */
static char *child_path(const char *path, const char *key, int index)
{
	size_t lp = strlen(path), lk = key ? strlen(key) : 0;
	char *p = xmalloc(lp + (key ? lk : 24) + 4);
	memcpy(p, path, lp);
	if (key) {
		size_t at = lp;
		if (lp)
			p[at++] = '.';
		memcpy(p + at, key, lk + 1);
	} else {
		snprintf(p + lp, 28, "[%d]", index);
	}
	return p;
}

/* A copy of n (an anchored subtree) placed at path; positions stay those of the original. */
static struct ynode *node_copy(const struct ynode *n, const char *path)
{
	struct ynode *c = xcalloc(1, sizeof *c);
	c->kind = n->kind;
	c->line = n->line;
	c->col = n->col;
	c->path = xstrdup(path);
	c->str = n->str ? xstrdup(n->str) : NULL;
	c->plain = n->plain;
	c->size = 1;
	for (int i = 0; i < n->n; i++) {
		const char *key = n->kind == YNODE_MAP ? n->keys[i].name : NULL;
		char *cp = child_path(path, key, i);
		node_append(c, node_copy(n->items[i], cp), key, key ? n->keys[i].line : 0, key ? n->keys[i].col : 0);
		free(cp);
	}
	return c;
}

static int syntax_error(struct loader *L)
{
	yaml_parser_t *p = &L->parser;
	yaml_mark_t m = p->error == YAML_READER_ERROR ? p->mark : p->problem_mark;
	const char *file = L->d->file;
	L->d->errors++;
	if (p->error == YAML_MEMORY_ERROR)
		return diag_error(file, 0, 0, "out of memory while parsing yaml");
	if (p->context)
		return diag_error(file, (int)m.line + 1, (int)m.column + 1, "syntax error: %s %s (started at %d:%d)",
				  p->problem ? p->problem : "invalid yaml", p->context,
				  (int)p->context_mark.line + 1, (int)p->context_mark.column + 1);
	return diag_error(file, (int)m.line + 1, (int)m.column + 1, "syntax error: %s",
			  p->problem ? p->problem : "invalid yaml");
}

static int next_event(struct loader *L, yaml_event_t *ev)
{
	if (!yaml_parser_parse(&L->parser, ev))
		return syntax_error(L);
	return 0;
}

static int load_error(struct loader *L, yaml_mark_t m, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_verror(L->d->file, (int)m.line + 1, (int)m.column + 1, fmt, ap);
	va_end(ap);
	L->d->errors++;
	return GS_EINVAL;
}

static void anchor_add(struct loader *L, const char *name, const struct ynode *n)
{
	if (L->nanchors == L->capanchors) {
		L->capanchors = L->capanchors ? 2 * L->capanchors : 8;
		L->anchors = xreallocarray(L->anchors, (size_t)L->capanchors, sizeof *L->anchors);
	}
	L->anchors[L->nanchors++] = (struct anchor){ xstrdup(name), n };
}

static struct ynode *build(struct loader *L, yaml_event_t *ev, const char *path);

static struct ynode *build_map(struct loader *L, yaml_event_t *start, const char *path)
{
	struct ynode *n = node_new(YNODE_MAP, start->start_mark, path);
	for (;;) {
		yaml_event_t k, v;
		if (next_event(L, &k) != 0)
			goto fail;
		if (k.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&k);
			return n;
		}
		if (k.type != YAML_SCALAR_EVENT) {
			load_error(L, k.start_mark, "%s: keys must be plain strings", path[0] ? path : "document");
			yaml_event_delete(&k);
			goto fail;
		}
		char *key = xstrndup((const char *)k.data.scalar.value, k.data.scalar.length);
		yaml_mark_t km = k.start_mark;
		yaml_event_delete(&k);
		for (int i = 0; i < n->n; i++) {
			if (strcmp(n->keys[i].name, key) == 0) {
				load_error(L, km, "duplicate key '%s' (first at line %d)", key, n->keys[i].line);
				free(key);
				goto fail;
			}
		}
		char *cp = child_path(path, key, 0);
		struct ynode *child = NULL;
		if (next_event(L, &v) == 0)
			child = build(L, &v, cp);
		free(cp);
		if (!child) {
			free(key);
			goto fail;
		}
		node_append(n, child, key, (int)km.line + 1, (int)km.column + 1);
		free(key);
	}
fail:
	node_free(n);
	return NULL;
}

static struct ynode *build_seq(struct loader *L, yaml_event_t *start, const char *path)
{
	struct ynode *n = node_new(YNODE_SEQ, start->start_mark, path);
	for (;;) {
		yaml_event_t ev;
		if (next_event(L, &ev) != 0)
			goto fail;
		if (ev.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&ev);
			return n;
		}
		char *cp = child_path(path, NULL, n->n);
		struct ynode *child = build(L, &ev, cp);
		free(cp);
		if (!child)
			goto fail;
		node_append(n, child, NULL, 0, 0);
	}
fail:
	node_free(n);
	return NULL;
}

/* Builds the node that starts with *ev (which it deletes) and everything up to its end event. */
static struct ynode *build(struct loader *L, yaml_event_t *ev, const char *path)
{
	struct ynode *n = NULL;
	const yaml_char_t *anchor = NULL;
	if (++L->depth > YDOC_MAX_DEPTH) {
		load_error(L, ev->start_mark, "nesting deeper than %d levels", YDOC_MAX_DEPTH);
		goto out;
	}
	if (ev->type != YAML_ALIAS_EVENT && ++L->nodes > YDOC_MAX_NODES) {
		load_error(L, ev->start_mark, "more than %d values in one file", YDOC_MAX_NODES);
		goto out;
	}
	switch (ev->type) {
	case YAML_SCALAR_EVENT: {
		const char *tag = (const char *)ev->data.scalar.tag;
		n = node_new(YNODE_SCALAR, ev->start_mark, path);
		n->str = xstrndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
		if (strlen(n->str) != ev->data.scalar.length) {
			load_error(L, ev->start_mark, "%s: string contains a NUL character", path);
			node_free(n);
			n = NULL;
			goto out;
		}
		n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
			   !(tag && strcmp(tag, YAML_STR_TAG) == 0);
		anchor = ev->data.scalar.anchor;
		break;
	}
	case YAML_MAPPING_START_EVENT:
		anchor = ev->data.mapping_start.anchor;
		n = build_map(L, ev, path);
		break;
	case YAML_SEQUENCE_START_EVENT:
		anchor = ev->data.sequence_start.anchor;
		n = build_seq(L, ev, path);
		break;
	case YAML_ALIAS_EVENT: {
		const char *name = (const char *)ev->data.alias.anchor;
		const struct ynode *target = NULL;
		for (int i = L->nanchors - 1; i >= 0 && !target; i--)
			if (strcmp(L->anchors[i].name, name) == 0)
				target = L->anchors[i].node;
		/* an alias is a copy: count it before making it, so aliases of aliases ("billion laughs") stop at
		 * the cap in microseconds instead of copying gigabytes */
		if (!target)
			load_error(L, ev->start_mark, "unknown alias '*%s'", name);
		else if ((L->nodes += target->size) > YDOC_MAX_NODES)
			load_error(L, ev->start_mark, "alias '*%s' expands the file past %d values (aliases are copies)",
				   name, YDOC_MAX_NODES);
		else
			n = node_copy(target, path);
		break;
	}
	default:
		load_error(L, ev->start_mark, "unexpected yaml event");
		break;
	}
	if (n && anchor)
		anchor_add(L, (const char *)anchor, n);
out:
	L->depth--;
	yaml_event_delete(ev);
	return n;
}

/* Parses the stream: exactly one document (or none: an empty file). 0 or GS_EINVAL. */
static int load_stream(struct loader *L)
{
	yaml_event_t ev;
	int rc = GS_EINVAL;
	if (next_event(L, &ev) != 0)
		return GS_EINVAL;
	yaml_event_delete(&ev); /* stream start */
	if (next_event(L, &ev) != 0)
		return GS_EINVAL;
	if (ev.type == YAML_STREAM_END_EVENT) {
		yaml_event_delete(&ev);
		return load_error(L, (yaml_mark_t){ 0, 0, 0 }, "empty document");
	}
	yaml_event_delete(&ev); /* document start */
	if (next_event(L, &ev) != 0)
		return GS_EINVAL;
	L->d->root = build(L, &ev, "");
	if (!L->d->root)
		return GS_EINVAL;
	if (next_event(L, &ev) != 0)
		return GS_EINVAL;
	yaml_event_delete(&ev); /* document end */
	if (next_event(L, &ev) != 0)
		return GS_EINVAL;
	if (ev.type == YAML_STREAM_END_EVENT)
		rc = 0;
	else
		rc = load_error(L, ev.start_mark, "only one yaml document is allowed per file");
	yaml_event_delete(&ev);
	return rc;
}

struct ydoc *ydoc_load_string(const char *name, const char *text, size_t len, int *err)
{
	struct loader L = { 0 };
	int rc;
	L.d = xcalloc(1, sizeof *L.d);
	L.d->file = xstrdup(name);
	if (!yaml_parser_initialize(&L.parser)) {
		rc = diag_errorf("cannot initialise the yaml parser");
		goto out;
	}
	yaml_parser_set_input_string(&L.parser, (const unsigned char *)text, len);
	rc = load_stream(&L);
	yaml_parser_delete(&L.parser);
	if (rc == 0 && ynode_is_null(L.d->root)) {
		L.d->errors++;
		rc = diag_error(name, 1, 1, "empty document");
	}
out:
	for (int i = 0; i < L.nanchors; i++)
		free(L.anchors[i].name);
	free(L.anchors);
	if (err)
		*err = rc;
	if (rc != 0) {
		ydoc_free(L.d);
		return NULL;
	}
	return L.d;
}

struct ydoc *ydoc_load_file(const char *path, int *err)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		diag_errorf("cannot read '%s': %s", path, strerror(errno));
		if (err)
			*err = GS_EENV;
		return NULL;
	}
	size_t len = 0, cap = 1 << 16;
	char *buf = xmalloc(cap);
	for (;;) {
		size_t got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (len < cap)
			break;
		cap *= 2;
		buf = xrealloc(buf, cap);
	}
	int bad = ferror(f);
	int saved = errno;
	fclose(f);
	if (bad) {
		diag_errorf("cannot read '%s': %s", path, strerror(saved));
		free(buf);
		if (err)
			*err = GS_EENV;
		return NULL;
	}
	struct ydoc *d = ydoc_load_string(path, buf, len, err);
	free(buf);
	return d;
}

void ydoc_free(struct ydoc *d)
{
	if (!d)
		return;
	node_free(d->root);
	free(d->file);
	free(d);
}

const char *ydoc_file(const struct ydoc *d) { return d->file; }
const struct ynode *ydoc_root(const struct ydoc *d) { return d->root; }
int ydoc_errors(const struct ydoc *d) { return d->errors; }

int ydoc_error_at(struct ydoc *d, int line, int col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_verror(d->file, line, col, fmt, ap);
	va_end(ap);
	d->errors++;
	return GS_EINVAL;
}

int ydoc_error_arg(struct ydoc *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_verror(NULL, 0, 0, fmt, ap);
	va_end(ap);
	d->errors++;
	return GS_EINVAL;
}

int ydoc_error(struct ydoc *d, const struct ynode *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_verror(d->file, n ? n->line : 1, n ? n->col : 1, fmt, ap);
	va_end(ap);
	d->errors++;
	return GS_EINVAL;
}

int ynode_kind(const struct ynode *n) { return n ? (int)n->kind : -1; }
int ynode_line(const struct ynode *n) { return n ? n->line : 0; }
int ynode_col(const struct ynode *n) { return n ? n->col : 0; }
const char *ynode_path(const struct ynode *n) { return n ? n->path : NULL; }
const char *ynode_str(const struct ynode *n) { return n && n->kind == YNODE_SCALAR ? n->str : NULL; }
int ynode_len(const struct ynode *n) { return n && n->kind != YNODE_SCALAR ? n->n : 0; }

bool ynode_is_null(const struct ynode *n)
{
	if (!n || n->kind != YNODE_SCALAR || !n->plain)
		return false;
	const char *s = n->str;
	return !*s || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 || strcmp(s, "Null") == 0 ||
	       strcmp(s, "NULL") == 0;
}

const struct ynode *ynode_item(const struct ynode *n, int i)
{
	return n && n->kind != YNODE_SCALAR && i >= 0 && i < n->n ? n->items[i] : NULL;
}

const char *ynode_key(const struct ynode *map, int i)
{
	return map && map->kind == YNODE_MAP && i >= 0 && i < map->n ? map->keys[i].name : NULL;
}

int ynode_key_line(const struct ynode *map, int i)
{
	return ynode_key(map, i) ? map->keys[i].line : 0;
}

int ynode_key_col(const struct ynode *map, int i)
{
	return ynode_key(map, i) ? map->keys[i].col : 0;
}

const struct ynode *ynode_get(const struct ynode *map, const char *key)
{
	if (!map || map->kind != YNODE_MAP)
		return NULL;
	for (int i = 0; i < map->n; i++)
		if (strcmp(map->keys[i].name, key) == 0)
			return map->items[i];
	return NULL;
}

const char *ynode_describe(const struct ynode *n, char *buf, size_t size)
{
	if (!n)
		snprintf(buf, size, "nothing");
	else if (n->kind == YNODE_MAP)
		snprintf(buf, size, "a mapping");
	else if (n->kind == YNODE_SEQ)
		snprintf(buf, size, "a sequence");
	else if (ynode_is_null(n))
		snprintf(buf, size, "null");
	else if (strlen(n->str) > 40)
		snprintf(buf, size, n->plain ? "'%.37s...'" : "the string \"%.37s...\"", n->str);
	else
		snprintf(buf, size, n->plain ? "'%s'" : "the string \"%s\"", n->str);
	return buf;
}
