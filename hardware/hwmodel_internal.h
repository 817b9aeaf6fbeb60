/* hwmodel_internal: what hardware/hwmodel.c (presets, lookups, bases) and hardware/hwload.c (YAML reading)
 * share. */
#ifndef HWMODEL_INTERNAL_H
#define HWMODEL_INTERNAL_H

#include "hardware/hwmodel.h"

struct ydoc;
/* hwload_parse: fill hw from the tree of d. based false: hw is zeroed and every required key must be given;
 * based true: hw holds the file's base model (`base:`), every key is optional and overrides it (maps merge key
 * by key; a given list - gemm.tables, attention rows, a collective's lines/tables - replaces the base's).
 * 0, or GS_EINVAL after printing every error. The `base:` value itself is read by hwmodel.c. */
int hwload_parse(struct ydoc *d, struct hwmodel *hw, bool based);

#endif
