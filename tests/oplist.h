/* oplist: finding a named op in an op list (sim/ops.h) for the tests that check what a layer's lists hold. */
#ifndef OPLIST_H
#define OPLIST_H

#include <string.h>
#include "sim/ops.h"

/* The first op called name in o[0..n), NULL when absent. */
static inline const struct opcost *op(const struct opcost *o, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(o[i].name, name) == 0)
			return &o[i];
	return NULL;
}

/* Its seconds, -1 when absent. */
static inline double op_s(const struct opcost *o, int n, const char *name)
{
	const struct opcost *p = op(o, n, name);
	return p ? p->s : -1;
}

/* How many ops are called name. */
static inline int op_count(const struct opcost *o, int n, const char *name)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		k += strcmp(o[i].name, name) == 0;
	return k;
}

#endif
