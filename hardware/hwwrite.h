/* hwwrite: the one writer of gpusim-hw/1 files (docs/hardware-model.md), the pair of hwload: `gpusim presets show`
 * writes a loaded model whole, `gpusim calibrate` and `calibrate --refit` write the model a calibration made, with
 * what it claims, the base it names for the rest and its provenance under `meta:`. Every number is written with the
 * fewest significant digits (15 to 17) that read back as the same double, so loading what was written gives the
 * same model, and writing that again the same text (tests/test_hwfile.c checks it for every file in hardware/).
 * Split by what it writes: hwwrite.c the file and its small sections, hwwrite_gpu.c the gpu section (GEMM model
 * and tables, attention rows, power), hwwrite_coll.c the collectives, hwwrite_meta.c the provenance (`meta:`). */
#ifndef HWWRITE_H
#define HWWRITE_H

#include <stdbool.h>
#include <stdio.h>
#include "hardware/hwmodel.h"

struct yaml_document_s;

/* The parts of a model a file claims beside the gpu section (always written) and the collectives that have lines
 * or tables: a calibration claims what it measured and leaves the rest to its base (or to the loader's defaults). */
enum hwwrite_part {
	HWW_NODE = 1 << 0,
	HWW_NETWORK = 1 << 1,
	HWW_INTRA = 1 << 2,       /* collectives.intra */
	HWW_INTER = 1 << 3,       /* collectives.inter */
	HWW_OVERLAP = 1 << 4,
	HWW_COST = 1 << 5,
	HWW_HOST = 1 << 6,
	HWW_POWER = 1 << 7,       /* gpu.power */
	HWW_WORKSPACE = 1 << 8,   /* gpu.workspace_bytes */
	HWW_ALL = (1 << 9) - 1
};

struct hwwrite_opts {
	unsigned parts;                    /* enum hwwrite_part bits */
	const char *base;                  /* written as `base:`, NULL or "" for none */
	bool origin;                       /* leading comments: written by gpusim, where the model's parts came from */
	struct yaml_document_s *meta;      /* written under `meta:` (a calibration's provenance), NULL for none:
	                                    * then meta.node of a model that records its measuring host */
};

/* hwwrite: hw as a gpusim-hw/1 file on f; 0, or GS_EENV when f failed or the meta tree could not be written. */
int hwwrite(FILE *f, const struct hwmodel *hw, const struct hwwrite_opts *o);
/* hwwrite_file: the same into path through a temporary renamed into place (util/outfile), so path is never
 * half-written; 0 or GS_EENV after the error was printed. */
int hwwrite_file(const char *path, const struct hwmodel *hw, const struct hwwrite_opts *o);

#endif
