/* table_internal: the column list a sweep's table is written (table.c) and read (tableread.c) by. */
#ifndef SCALE_TABLE_INTERNAL_H
#define SCALE_TABLE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include "scale/scale.h"

enum ctype { C_INT, C_DBL, C_BOOL, C_STR };

/* Which rows have a column: every row, feasible rows (the prediction), infeasible ones (the reason), feasible
 * rows where the number is above 0 (the host's drift: a table written before those columns lacks them, and reads
 * as 0). */
enum when { W_ALL, W_FEASIBLE, W_INFEASIBLE, W_POSITIVE };

struct col {
	const char *name;     /* CSV header; "parent.child" nests in JSON */
	enum ctype type;
	size_t off, size;
	enum when when;
};

#define SCALE_NCOLS 33  /* the columns of scale_cols (a static assert in table.c keeps them equal) */
extern const struct col scale_cols[SCALE_NCOLS];
/* The sweep's own fields, repeated at the start of every CSV line. */
extern const char *const scale_sweep_cols[];
#define NSWEEP 4

/* Whether row r has column c. */
static inline bool has(const struct scale_row *r, const struct col *c)
{
	if (c->when == W_POSITIVE)
		return r->feasible && *(const double *)((const char *)r + c->off) > 0;
	return c->when == W_ALL || (c->when == W_FEASIBLE) == r->feasible;
}

static inline void *field(struct scale_row *r, const struct col *c)
{
	return (char *)r + c->off;
}

static inline const void *cfield(const struct scale_row *r, const struct col *c)
{
	return (const char *)r + c->off;
}

#endif
