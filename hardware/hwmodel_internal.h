/* hwmodel_internal: what hardware/hwmodel.c (presets, lookups) and hardware/hwload.c (YAML reading) share. */
#ifndef HWMODEL_INTERNAL_H
#define HWMODEL_INTERNAL_H

#include "hardware/hwmodel.h"

struct ydoc;
/* hwload_parse: fill a zeroed hw from the tree of d. 0, or GS_EINVAL after printing every error. */
int hwload_parse(struct ydoc *d, struct hwmodel *hw);

#endif
