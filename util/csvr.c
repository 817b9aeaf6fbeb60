/* csvr: the one CSV reader (see csvr.h). The text is held whole; each record's cells are unquoted into buf,
 * NUL-separated, with their columns kept for messages. */
#include "util/csvr.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/gserr.h"
#include "util/slurp.h"
#include "util/xalloc.h"

struct csvr {
	char *name;
	char *text;          /* the whole input, NUL-terminated */
	size_t len, pos;     /* pos: start of the next line */
	int flags;
	int line;            /* of the current record */
	char **cells;
	int *cols;
	int n, cap;
	char *buf;           /* unquoted cells of the current record */
	size_t bufcap;
};

struct csvr *csvr_new(const char *name, const char *text, size_t len, int flags)
{
	struct csvr *r = xcalloc(1, sizeof *r);
	r->name = xstrdup(name ? name : "-");
	r->text = xmalloc(len + 1);
	memcpy(r->text, text, len);
	r->text[len] = '\0';
	r->len = len;
	r->flags = flags;
	if (len >= 3 && memcmp(r->text, "\xEF\xBB\xBF", 3) == 0)
		r->pos = 3;
	return r;
}

struct csvr *csvr_open(const char *path, int flags, int *err)
{
	size_t len;
	char *buf = slurp_file(path, &len, err);
	if (!buf)
		return NULL;
	if (memchr(buf, '\0', len)) {
		free(buf);
		diag_error(path, 0, 0, "not a text file (it holds a NUL byte)");
		*err = GS_EINVAL;
		return NULL;
	}
	struct csvr *r = csvr_new(path, buf, len, flags);
	free(buf);
	return r;
}

void csvr_free(struct csvr *r)
{
	if (!r)
		return;
	free(r->name);
	free(r->text);
	free(r->cells);
	free(r->cols);
	free(r->buf);
	free(r);
}

static void push_cell(struct csvr *r, char *at, int col)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 32;
		r->cells = xrealloc(r->cells, (size_t)r->cap * sizeof *r->cells);
		r->cols = xrealloc(r->cols, (size_t)r->cap * sizeof *r->cols);
	}
	r->cells[r->n] = at;
	r->cols[r->n] = col;
	r->n++;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Split line[0..len) into cells. */
static int split(struct csvr *r, const char *line, size_t len)
{
	if (len + 1 > r->bufcap) {
		r->bufcap = len + 1;
		r->buf = xrealloc(r->buf, r->bufcap);
	}
	char *o = r->buf;
	const char *p = line, *end = line + len;
	bool trim = r->flags & CSVR_TRIM;
	r->n = 0;
	for (;;) {
		if (trim)
			while (p < end && is_blank(*p))
				p++;
		char *cell = o;
		push_cell(r, cell, (int)(p - line) + 1);
		if (p < end && *p == '"') {
			p++;
			for (;;) {
				if (p >= end)
					return diag_error(r->name, r->line, (int)(p - line) + 1, "unterminated quoted cell");
				if (*p == '"' && p + 1 < end && p[1] == '"') {
					*o++ = '"';
					p += 2;
				} else if (*p == '"') {
					p++;
					break;
				} else {
					*o++ = *p++;
				}
			}
			if (trim)
				while (p < end && is_blank(*p))
					p++;
			if (p < end && *p != ',')
				return diag_error(r->name, r->line, (int)(p - line) + 1, "text after a quoted cell");
		} else {
			while (p < end && *p != ',')
				*o++ = *p++;
			if (trim)
				while (o > cell && is_blank(o[-1]))
					o--;
		}
		*o++ = '\0';
		if (p >= end)
			return r->n;
		p++;  /* the comma */
	}
}

int csvr_next(struct csvr *r)
{
	while (r->pos < r->len) {
		const char *line = r->text + r->pos;
		const char *nl = memchr(line, '\n', r->len - r->pos);
		size_t len = nl ? (size_t)(nl - line) : r->len - r->pos;
		r->pos += len + (nl ? 1 : 0);
		r->line++;
		if (len > 0 && line[len - 1] == '\r')
			len--;
		size_t i = 0;
		while (i < len && is_blank(line[i]))
			i++;
		if (i == len || ((r->flags & CSVR_COMMENTS) && line[i] == '#'))
			continue;
		return split(r, line, len);
	}
	r->n = 0;
	return 0;
}

int csvr_count(const struct csvr *r) { return r->n; }
const char *csvr_cell(const struct csvr *r, int i) { return i >= 0 && i < r->n ? r->cells[i] : ""; }
int csvr_line(const struct csvr *r) { return r->line; }
int csvr_col(const struct csvr *r, int i) { return i >= 0 && i < r->n ? r->cols[i] : 0; }
const char *csvr_name(const struct csvr *r) { return r->name; }
