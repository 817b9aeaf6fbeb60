/* module_glue: the CUDA module's side of calibrate/module.h. calibrate/core_glue.c calls one of the simulator's
 * entry points (scenario loading); in the module it forwards to the table gpusim passed to run(), so the module
 * links none of the simulator (as calibrate/core_stubs.c does for gpusim-calibrate, which has no simulator at
 * all). The table is kept for the duration of one run(): the only
 * state of the module, set and cleared here. */
#include <stdio.h>
#include "calibrate/module.h"
#include "util/gserr.h"
#include "util/diag.h"

#ifndef GPUSIM_VERSION
#define GPUSIM_VERSION "unknown"
#endif

static const struct calmod_host *host;  /* during run() only */

int scenario_load(const char *path, const struct scenario_overrides *ov, struct scenario *out)
{
	if (!host) {
		diag_errorf("%s: no scenario loader in this calibrate module", path);
		return GS_EINVAL;
	}
	return host->scenario_load(path, ov, out);
}

static int module_run(const struct calmod_host *h, const struct cal_opts *o)
{
	int rc;
	host = h;
	rc = calibrate_run(o);
	host = NULL;
	return rc;
}

/* The module's one exported symbol (calibrate/module.map). */
const struct calmod gpusim_calmod = {
	.abi = CALMOD_ABI,
	.version = GPUSIM_VERSION,
	.opts_size = sizeof(struct cal_opts),
	.scenario_size = sizeof(struct scenario),
	.run = module_run,
};
