/* calmeta: a calibration's provenance, the `meta:` tree of the model it writes (calibrate/calmodel.c builds the model,
 * hardware/hwwrite_meta.c writes the tree). */
#ifndef CALMETA_H
#define CALMETA_H

#include "calibrate/calib.h"
#include "hardware/hwmodel.h"

struct ybuild;

/* calmeta_build: c's provenance tree, with host_node (the measuring host's node) under meta.node when not NULL;
 * 0, or GS_ENOMEM (b released). */
int calmeta_build(const struct calib *c, const struct hw_node *host_node, struct ybuild *b);

#endif
