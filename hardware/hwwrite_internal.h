/* hwwrite_internal: the scalar helpers the parts of the writer share (hardware/hwwrite*.c). */
#ifndef HWWRITE_INTERNAL_H
#define HWWRITE_INTERNAL_H

#include <stdio.h>
#include "hardware/hwmodel.h"
#include "hardware/hwwrite.h"

void hww_str(FILE *f, const char *s);     /* a YAML double-quoted scalar */
void hww_num(FILE *f, double v);          /* the fewest digits (15 to 17) that read back as v */
void hww_kv_num(FILE *f, int indent, const char *key, double v);
void hww_kv_str(FILE *f, int indent, const char *key, const char *v);
/* key: v only when v says something its parent's source does not (a section's own source) */
void hww_kv_own_source(FILE *f, int indent, const char *v, const char *parent);
void hww_list_num(FILE *f, int indent, const char *key, const double *v, long long n);

void hwwrite_gpu(FILE *f, const struct hw_gpu *g, unsigned parts);
void hwwrite_collectives(FILE *f, const struct hwmodel *hw, unsigned parts);
/* hwwrite_meta: `meta:` with the tree of doc, or with meta.node of a model that records its measuring host; 0 or
 * GS_EENV. */
int hwwrite_meta(FILE *f, const struct hwmodel *hw, struct yaml_document_s *doc);

#endif
