/* yemit: a thin layer over libyaml's event emitter for writing hardware files: one call per map, sequence or
 * scalar, numbers formatted so they read back exactly enough, strings quoted whenever plain text could read as
 * something else. The first failure is kept (sticky) and every later call does nothing, so a writer checks once,
 * at yemit_close. */
#ifndef YEMIT_H
#define YEMIT_H

#include <stdbool.h>
#include <stdio.h>
#include <yaml.h>

struct yemit {
	yaml_emitter_t em;
	bool failed;
	char error[160];
};

int yemit_open(struct yemit *e, FILE *f);   /* stream and document start */
int yemit_close(struct yemit *e);           /* document and stream end; 0, or GS_EENV with e->error set */

void yemit_map(struct yemit *e, bool flow);
void yemit_seq(struct yemit *e, bool flow);
void yemit_end_map(struct yemit *e);
void yemit_end_seq(struct yemit *e);

void yemit_key(struct yemit *e, const char *k);
void yemit_str(struct yemit *e, const char *s);       /* plain when it cannot be misread, else double-quoted */
void yemit_literal(struct yemit *e, const char *s);   /* block literal (|), for multi-line text */
void yemit_num(struct yemit *e, double v);            /* 6 significant digits; integers exactly */
void yemit_int(struct yemit *e, long long v);
void yemit_bool(struct yemit *e, bool v);
void yemit_nums(struct yemit *e, const double *v, int n);  /* flow sequence of numbers */

/* key + value shorthands */
void yemit_kstr(struct yemit *e, const char *k, const char *s);
void yemit_knum(struct yemit *e, const char *k, double v);
void yemit_kint(struct yemit *e, const char *k, long long v);
void yemit_kbool(struct yemit *e, const char *k, bool v);
void yemit_knums(struct yemit *e, const char *k, const double *v, int n);

/* yemit_copy: re-emit node of doc (a preset read with libyaml), keeping scalar styles. When source is not NULL,
 * the copied top map's `source:` becomes source (added when absent) and nested maps' sources get it as a prefix. */
void yemit_copy(struct yemit *e, yaml_document_t *doc, yaml_node_t *node, const char *source);

#endif
