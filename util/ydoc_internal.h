/* ydoc_internal: the node layout shared by ydoc.c (loading) and ydoc_get.c (typed getters). Nothing outside
 * util/ydoc*.c includes it: the rest of gpusim sees the opaque types and accessors of ydoc.h. */
#ifndef YDOC_INTERNAL_H
#define YDOC_INTERNAL_H

#include <stdbool.h>

#include "util/ydoc.h"

struct ykey {
	char *name;
	int line, col;
};

struct ynode {
	enum ynode_kind kind;
	int line, col;        /* 1-based */
	char *path;           /* dotted path for messages, "" for the root */
	char *str;            /* scalar text */
	bool plain;           /* unquoted, untagged scalar: may be a number, a boolean or null */
	int n, cap;           /* items (sequence) or pairs (map) */
	long size;            /* nodes in this subtree, itself included */
	struct ynode **items; /* sequence items, or map values */
	struct ykey *keys;    /* map only: keys[i] names items[i] */
};

struct ydoc {
	char *file;
	struct ynode *root;
	int errors;
	const struct yrange *ranges;  /* ydoc_set_ranges; NULL: the default range only */
};

#endif
