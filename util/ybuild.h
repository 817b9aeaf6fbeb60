/* ybuild: builds a libyaml document (a tree of maps, sequences and scalars) one call at a time, the calls in the
 * order the text reads: free-form data such as a calibration's provenance (`meta:`, written by hardware/hwwrite).
 * Numbers are formatted here (6 significant digits, integers exactly), strings quoted whenever plain text could
 * read as something else. The first failure (out of memory, nesting too deep) is kept and every later call does
 * nothing, so a builder checks once, at ybuild_finish. */
#ifndef YBUILD_H
#define YBUILD_H

#include <stdbool.h>
#include <yaml.h>

#define YBUILD_DEPTH 32

struct ybuild {
	yaml_document_t doc;
	int stack[YBUILD_DEPTH];  /* the open maps and sequences, innermost last */
	int depth;
	int key;                  /* a map's key waiting for its value, 0 none */
	bool failed;
};

int ybuild_init(struct ybuild *b);       /* 0, or GS_ENOMEM; the document is empty until the first map */
/* ybuild_finish: 0 with every map and sequence closed, else GS_EINVAL (unbalanced) or GS_ENOMEM. */
int ybuild_finish(struct ybuild *b);
void ybuild_release(struct ybuild *b);   /* frees the document */

void ybuild_map(struct ybuild *b, bool flow);
void ybuild_seq(struct ybuild *b, bool flow);
void ybuild_end(struct ybuild *b);       /* closes the innermost map or sequence */

void ybuild_key(struct ybuild *b, const char *k);
void ybuild_str(struct ybuild *b, const char *s);       /* plain when it cannot be misread, else double-quoted */
void ybuild_literal(struct ybuild *b, const char *s);   /* block literal (|), for multi-line text */
void ybuild_num(struct ybuild *b, double v);            /* 6 significant digits; integers exactly */
void ybuild_int(struct ybuild *b, long long v);
void ybuild_bool(struct ybuild *b, bool v);
void ybuild_nums(struct ybuild *b, const double *v, int n);  /* flow sequence of numbers */

/* key + value shorthands */
void ybuild_kstr(struct ybuild *b, const char *k, const char *s);
void ybuild_knum(struct ybuild *b, const char *k, double v);
void ybuild_kint(struct ybuild *b, const char *k, long long v);
void ybuild_kbool(struct ybuild *b, const char *k, bool v);
void ybuild_knums(struct ybuild *b, const char *k, const double *v, int n);

#endif
