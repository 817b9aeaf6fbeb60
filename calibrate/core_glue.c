/* core_glue: the only places calibrate calls into the simulator's library: a base model's text from the built-in
 * presets (hwmodel_preset_text) or a file, and a scenario's GEMM shapes (scenario_load). Kept apart so the fitting,
 * the YAML writer and their tests link without the simulator. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "calibrate/base.h"
#include "hardware/hwmodel.h"
#include "calibrate/scenshapes.h"
#include "scenario/scenario.h"
#include "util/gserr.h"
#include "util/diag.h"

static char *read_file(const char *path, int *err)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, got;
	if (!f) {
		*err = GS_EENV;
		return NULL;
	}
	do {
		if (len + 4096 + 1 > cap) {
			char *q = realloc(buf, cap = 2 * cap + 8192);
			if (!q) {
				free(buf);
				fclose(f);
				*err = GS_ENOMEM;
				return NULL;
			}
			buf = q;
		}
		got = fread(buf + len, 1, 4096, f);
		len += got;
	} while (got > 0);
	buf[len] = 0;
	if (ferror(f)) {
		free(buf);
		buf = NULL;
		*err = GS_EENV;
	}
	fclose(f);
	return buf;
}

int base_load(struct cal_base *b, const char *name_or_path)
{
	const char *text = hwmodel_preset_text(name_or_path);
	int err = 0, rc;
	memset(b, 0, sizeof *b);
	if (text)
		return base_load_text(b, name_or_path, text);
	char *buf = read_file(name_or_path, &err);
	if (!buf) {
		if (strchr(name_or_path, '/') || strstr(name_or_path, ".yaml") || err != GS_EENV)
			diag_errorf("cannot read base model '%s'", name_or_path);
		else
			diag_errorf("'%s' is neither a built-in preset nor a file (see 'gpusim presets')",
				name_or_path);
		return err == GS_ENOMEM ? err : GS_EINVAL;
	}
	rc = base_load_text(b, name_or_path, buf);
	free(buf);
	return rc;
}

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
	if (hwmodel_is_preset_name(b->name))
		return hwmodel_preset_text(b->name) ? b->name : NULL;
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
