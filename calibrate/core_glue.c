/* core_glue: the only places calibrate calls into the simulator's library, a scenario's GEMM shapes
 * (scenario_load), and the choice of a base among the built-in presets (hardware/, a library of its own that the
 * CUDA module links). Kept apart so the fitting and its tests link without the simulator. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "calibrate/base.h"
#include "hardware/hwmodel.h"
#include "calibrate/scenshapes.h"
#include "scenario/scenario.h"
#include "util/gserr.h"
#include "util/diag.h"

static bool contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++) {
		size_t i = 0;
		while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
			i++;
		if (i == n)
			return true;
	}
	return false;
}

const char *base_default(const char *gpu_name)
{
	static const char *const families[] = {"gh200", "h200", "h100", "h800", "a100", NULL};
	const char *const *names = hwmodel_preset_names();
	if (!names)
		return NULL;
	for (int f = 0; families[f]; f++) {
		if (!contains_ci(gpu_name, families[f]))
			continue;
		for (int i = 0; names[i]; i++)
			if (contains_ci(names[i], families[f]) && !strstr(names[i], "measured"))
				return names[i];
	}
	/* an unknown GPU: the first Hopper preset, for the network and inter-node parts only */
	for (int i = 0; names[i]; i++)
		if (contains_ci(names[i], "h100"))
			return names[i];
	return names[0];
}

int scenshapes_load(const char *path, struct cal_shape *out, int max, int *n)
{
	struct scenario s;
	struct scenario_overrides ov;
	int rc;
	memset(&ov, 0, sizeof ov);
	if ((rc = scenario_load(path, &ov, &s)))
		return rc;
	*n = scenshapes_from(&s, out, max);
	return 0;
}

const char *base_preset_name(const struct cal_base *b)
{
	if (!b || !b->loaded)
		return NULL;
	if (!strchr(b->name, '/') && hwmodel_preset_text(b->name))
		return b->name;
	const char *slash = strrchr(b->name, '/');
	const char *stem = slash ? slash + 1 : b->name;
	size_t n = strlen(stem);
	size_t dir = slash ? (size_t)(slash - b->name) : 0;  /* only the repository's own hardware/NAME.yaml */
	if (n <= 5 || strcmp(stem + n - 5, ".yaml") != 0 || dir < 8 || strncmp(slash - 8, "hardware", 8) != 0 ||
	    (dir > 8 && slash[-9] != '/'))
		return NULL;
	for (const char *const *p = hwmodel_preset_names(); *p; p++)
		if (strlen(*p) == n - 5 && strncmp(*p, stem, n - 5) == 0)
			return *p;
	return NULL;
}
