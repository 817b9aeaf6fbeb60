/* rawio: a calibration's raw measurements as small CSV files, written beside the model and read back, so a model
 * can be refitted and rewritten without a GPU (gpusim calibrate --refit DIR). The files: identity.csv (key,value),
 * gemm.csv, collectives.csv, memory.csv, attention.csv, clocks.csv, misc.csv (launch, overlap), shapes.csv
 * (scenario GEMMs, when any) and topology.txt (nvidia-smi topo -m). Invariant: rawio_read(rawio_write(c))
 * gives back every measured number of c (to 6 significant digits) and its identity. */
#ifndef RAWIO_H
#define RAWIO_H

#include "calibrate/calib.h"

/* rawio_write: dir is created if absent; 0, or GS_EENV after printing which file failed. */
int rawio_write(const struct calib *c, const char *dir);
/* rawio_read: into an initialised calib (calib_init); the GEMM grids are rebuilt from the points marked grid.
 * 0, GS_EENV when a file cannot be read, GS_EINVAL after "gpusim: file:line: ..." for a malformed one. */
int rawio_read(struct calib *c, const char *dir);

#endif
