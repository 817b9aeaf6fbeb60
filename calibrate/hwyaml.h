/* hwyaml: writes a calibration as a gpusim-hw/1 hardware model (docs/hardware-model.md) that `gpusim predict --hw`
 * loads unchanged. Schema keys only outside `meta:`; raw tables, residuals, fit quality, clocks and identity go
 * under `meta:` (free-form) and in each section's `source:` string. What was not measured comes from the base
 * model, marked `source: preset ...`, or is left out. */
#ifndef HWYAML_H
#define HWYAML_H

#include <stdio.h>
#include "calibrate/base.h"
#include "calibrate/calib.h"

struct hwyaml_opts {
	const char *name;          /* the model's name: field */
	struct cal_base *base;     /* may be NULL or not loaded */
};

/* hwyaml_emit: the YAML text on f; 0, or GS_EENV after printing why. c's series must be fitted (calib_fit). */
int hwyaml_emit(const struct calib *c, const struct hwyaml_opts *o, FILE *f);
/* hwyaml_write: write path.tmp, then rename it to path, so path is never half-written; 0 or GS_EENV. */
int hwyaml_write(const struct calib *c, const struct hwyaml_opts *o, const char *path);

#endif
