/* csvr: the one CSV reader of gpusim (sweep tables, measured-run tables, calibration raw data). RFC 4180
 * quoting ("a, b" and "say ""hi""" are one cell each), no line breaks inside cells, lines of any length, CRLF or
 * LF endings, a UTF-8 byte order mark skipped, blank lines skipped. With CSVR_COMMENTS a line whose first
 * non-blank character is '#' is skipped; with CSVR_TRIM spaces around unquoted cells are dropped. Errors print
 * "gpusim: file:line:col: message" (util/diag.h). */
#ifndef CSVR_H
#define CSVR_H

#include <stddef.h>

enum { CSVR_COMMENTS = 1, CSVR_TRIM = 2 };

struct csvr;

/* csvr_open: read the whole file at path. NULL after printing why, with *err GS_EENV (cannot be read) or
 * GS_EINVAL (not text: it holds a NUL byte). */
struct csvr *csvr_open(const char *path, int flags, int *err);
/* csvr_new: a reader of len bytes of text (copied); name is used in messages. */
struct csvr *csvr_new(const char *name, const char *text, size_t len, int flags);
void csvr_free(struct csvr *r);

/* csvr_next: the next record: its cell count (>= 1), 0 at the end, or GS_EINVAL after printing a syntax error
 * (an unterminated quote, text after a closing quote). */
int csvr_next(struct csvr *r);
int csvr_count(const struct csvr *r);
/* csvr_cell: cell i of the current record, unquoted; "" when i is out of range. */
const char *csvr_cell(const struct csvr *r, int i);
/* csvr_line, csvr_col: the current record's line and cell i's 1-based column, for messages. */
int csvr_line(const struct csvr *r);
int csvr_col(const struct csvr *r, int i);
const char *csvr_name(const struct csvr *r);

#endif
