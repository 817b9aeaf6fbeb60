/* calib_model: what the calibration tests share: a calibration's identity as the lent 1 x H100 reports it, and
 * its model written (calmodel_write, the file `gpusim calibrate` writes) into a folder and loaded back by the
 * simulator's loader. Include after check.h. */
#ifndef TESTS_CALIB_MODEL_H
#define TESTS_CALIB_MODEL_H

#include <stdio.h>
#include <stdlib.h>
#include "calibrate/calib.h"
#include "calibrate/calmodel.h"
#include "hardware/hwmodel.h"

static inline void calib_model_h100(struct calib *c)
{
	snprintf(c->id.gpu_name, sizeof c->id.gpu_name, "NVIDIA H100 80GB HBM3");
	c->id.ngpus = 1;
	c->id.sm_count = 132;
	c->id.memory_bytes = 85e9;
	c->peak_tflops[DT_BF16] = 989.4;
}

/* dir/model.yaml from c under the model name `name`, loaded; NULL (a failed check) when either step fails */
static inline struct hwmodel *calib_model_load(const struct calib *c, const char *dir, const char *name)
{
	char path[256];
	snprintf(path, sizeof path, "%s/model.yaml", dir);
	struct calmodel_opts yo = { name, NULL };
	CHECK_INT(calmodel_write(c, &yo, path), 0);
	int err = 0;
	struct hwmodel *hw = hwmodel_load(path, &err);
	CHECK(hw != NULL);
	return hw;
}

/* the end of a round trip: the folder removed, both calibrations released */
static inline void calib_model_done(struct calib *c, struct calib *back, const char *dir)
{
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK_INT(system(cmd), 0);
	calib_release(c);
	calib_release(back);
}

#endif
