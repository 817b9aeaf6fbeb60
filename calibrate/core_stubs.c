/* core_stubs: what gpusim-calibrate, built without the simulator's library, has in place of its two entry points
 * that calibrate uses: no built-in presets (--base takes a YAML path), no scenario loading. */
#include <stdio.h>
#include "hardware/hwmodel.h"
#include "scenario/scenario.h"
#include "util/gserr.h"
#include "util/diag.h"

const char *hwmodel_preset_text(const char *name)
{
	(void)name;
	return NULL;
}

const char *const *hwmodel_preset_names(void)
{
	static const char *const none[] = {NULL};
	return none;
}

int scenario_load(const char *path, const struct scenario_overrides *ov, struct scenario *out)
{
	(void)ov;
	(void)out;
	diag_errorf("%s: gpusim-calibrate cannot read scenarios (use gpusim calibrate --scenario)", path);
	return GS_EINVAL;
}
