/* hwload_value: the values every section of a gpusim-hw file reads alike (hwmodel_internal.h): sources with their
 * defaults, efficiencies, increasing axes. */
#include <stdio.h>

#include "hardware/hwmodel_internal.h"
#include "util/ydoc.h"

/* dst = map's `source:` (cut to fit), else def. */
void hwload_source(struct ydoc *d, const struct ynode *map, char *dst, size_t size, const char *def)
{
	const struct ynode *v = ynode_get(map, "source");
	if (v && ynode_kind(v) != YNODE_SCALAR) {
		char got[32];
		ydoc_error(d, v, "%s: expected a string, got %s", ynode_path(v), ynode_describe(v, got, sizeof got));
	}
	snprintf(dst, size, "%s", v && ynode_str(v) ? ynode_str(v) : def);
}

/* read_source for a section of a file that may have a base: an absent section keeps the base's source. */
void hwload_source_over(struct ydoc *d, const struct ynode *map, char *dst, size_t size, const char *def,
			  bool based)
{
	if (!(based && !map))
		hwload_source(d, map, dst, size, def);
}

/* An efficiency in (0, HW_EFF_MAX]. */
int hwload_eff(struct ydoc *d, const struct ynode *map, const char *key, unsigned flags, double *out)
{
	int rc = ydoc_double(d, map, key, flags | YD_POSITIVE, out);
	if (rc == 1 && *out > HW_EFF_MAX)
		return ydoc_error(d, ynode_get(map, key), "%s.%s: must be in (0, %g], got %g", ynode_path(map), key,
				  HW_EFF_MAX, *out);
	return rc;
}

/* A positive, strictly increasing axis. */
int hwload_axis(struct ydoc *d, const struct ynode *map, const char *key, double **out, int *n)
{
	int rc = ydoc_doubles(d, map, key, YD_REQUIRED | YD_POSITIVE, out, n);
	if (rc != 1)
		return rc;
	const struct ynode *seq = ynode_get(map, key);
	for (int i = 1; i < *n; i++)
		if (!((*out)[i] > (*out)[i - 1]))
			return ydoc_error(d, ynode_item(seq, i), "%s: values must increase (%g after %g)",
					  ynode_path(seq), (*out)[i], (*out)[i - 1]);
	return 1;
}
