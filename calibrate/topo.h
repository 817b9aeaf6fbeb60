/* topo: the link matrix between local GPUs as `nvidia-smi topo -m` prints it (NV18 = 18 NVLinks, PIX/PXB/PHB/NODE/SYS
 * = a PCIe or system path). Parsing is separate from running the tool so it is unit-tested on captured text. */
#ifndef TOPO_H
#define TOPO_H

#include <stddef.h>
#include "calibrate/calib.h"

/* topo_read: run `nvidia-smi topo -m` into buf; 0, or -1 when it is not there or fails (buf "" then). */
int topo_read(char *buf, size_t len);
/* topo_parse: nv[i][j] = NVLinks between GPU i and j for i, j < n (0 = not NVLink, -1 = not in the text);
 * returns the number of GPU rows found. */
int topo_parse(const char *text, int n, int nv[CAL_MAX_GPUS][CAL_MAX_GPUS]);

#endif
