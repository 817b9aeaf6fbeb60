/* base: loading a base hardware model with the one gpusim-hw reader (see base.h). */
#include <string.h>
#include "calibrate/base.h"
#include "hardware/hwmodel.h"
#include "util/gserr.h"

static int loaded(struct cal_base *b, const char *name, struct hwmodel *hw, int err)
{
	if (!hw)
		return err ? err : GS_EINVAL;
	snprintf(b->name, sizeof b->name, "%s", name);
	b->hw = hw;
	b->loaded = true;
	return 0;
}

int base_load_text(struct cal_base *b, const char *name, const char *text)
{
	int err = 0;
	memset(b, 0, sizeof *b);
	return loaded(b, name, hwmodel_load_string(name, text, &err), err);
}

int base_load(struct cal_base *b, const char *name_or_path)
{
	int err = 0;
	memset(b, 0, sizeof *b);
	return loaded(b, name_or_path, hwmodel_load(name_or_path, &err), err);
}

void base_release(struct cal_base *b)
{
	if (b->loaded)
		hwmodel_free(b->hw);
	memset(b, 0, sizeof *b);
}
