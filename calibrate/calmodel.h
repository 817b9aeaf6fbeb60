/* calmodel: the measurement -> model step of gpusim calibrate: a fitted calibration becomes a hardware model (struct
 * hwmodel) with what the file claims and its provenance (`meta:`), written by the one gpusim-hw writer
 * (hardware/hwwrite.h) that `gpusim predict --hw` loads unchanged. What was not measured comes from the base
 * model, its source saying `preset: NAME (...)`, or is left out; with one node and a built-in preset as base the
 * file claims only what it measured and names the preset as `base:` (docs/calibration.md, "What a calibration
 * claims"). */
#ifndef CALMODEL_H
#define CALMODEL_H

#include <stdio.h>
#include "calibrate/base.h"
#include "calibrate/calib.h"
#include "hardware/hwwrite.h"

struct ybuild;

struct calmodel_opts {
	const char *name;          /* the model's name: field */
	struct cal_base *base;     /* may be NULL or not loaded */
};

/* A calibration's model and what its file says about it. */
struct calmodel {
	struct hwmodel *hw;
	struct hwwrite_opts wo;    /* the parts it claims, its base, its meta tree */
	char base[128];
	struct ybuild *meta;
};

/* calmodel_build: the model of c (its series fitted, calib_fit); 0, or GS_ENOMEM. Release with calmodel_release. */
int calmodel_build(const struct calib *c, const struct calmodel_opts *o, struct calmodel *m);
void calmodel_release(struct calmodel *m);
/* calmodel_emit: the model's file on f; calmodel_write: into path through a temporary renamed into place, so path
 * is never half-written. 0, or GS_EENV / GS_ENOMEM after printing why. */
int calmodel_emit(const struct calib *c, const struct calmodel_opts *o, FILE *f);
int calmodel_write(const struct calib *c, const struct calmodel_opts *o, const char *path);


#endif
