/* core_stubs: what gpusim-calibrate, built without the simulator's library, has in place of the one entry point
 * that calibrate uses: no scenario loading. (The built-in presets are in the hardware library it links.) */
#include <stdio.h>
#include "scenario/scenario.h"
#include "util/gserr.h"
#include "util/diag.h"

int scenario_load(const char *path, const struct scenario_overrides *ov, struct scenario *out)
{
	(void)ov;
	(void)out;
	diag_errorf("%s: gpusim-calibrate cannot read scenarios (use gpusim calibrate --scenario)", path);
	return GS_EINVAL;
}
