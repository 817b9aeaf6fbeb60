/* hwwrite_coll: the collectives section: per scope and operation, the fitted lines and the measured tables (see
 * hwwrite.h). An operation with neither is left out (the loader's ring fallback, or the base's). */
#include <stdio.h>

#include "hardware/hwwrite_internal.h"

static void write_lines(FILE *f, const struct coll_model *cm)
{
	if (cm->nlines)
		fputs("      lines:\n", f);
	for (int i = 0; i < cm->nlines; i++) {
		const struct coll_line *l = &cm->lines[i];
		fputs("        - {algo: ", f);
		hww_str(f, l->algo);
		fprintf(f, ", n: %d, alpha_us: ", l->n);
		hww_num(f, l->alpha_us);
		fputs(", step_us: ", f);
		hww_num(f, l->step_us);
		fputs(", bus_gbps: ", f);
		hww_num(f, l->bus_gbps);
		fputs(", max_bytes: ", f);
		hww_num(f, l->max_bytes);
		fputs("}\n", f);
	}
}

static void write_tables(FILE *f, const struct coll_model *cm)
{
	if (cm->ntables)
		fputs("      tables:\n", f);
	for (int i = 0; i < cm->ntables; i++) {
		const struct coll_table *t = &cm->tables[i];
		fprintf(f, "        - n: %d\n", t->n);
		hww_list_num(f, 10, "bytes", t->bytes, t->npts);
		hww_list_num(f, 10, "time_us", t->time_us, t->npts);
	}
}

static bool scope_written(const struct hwmodel *hw, int sc, unsigned parts)
{
	if (!(parts & (sc == SCOPE_INTRA ? HWW_INTRA : HWW_INTER)))
		return false;
	for (int op = 0; op < COLL_NOPS; op++)
		if (hw->coll[sc][op].nlines + hw->coll[sc][op].ntables > 0)
			return true;
	return false;
}

void hwwrite_collectives(FILE *f, const struct hwmodel *hw, unsigned parts)
{
	if (!scope_written(hw, SCOPE_INTRA, parts) && !scope_written(hw, SCOPE_INTER, parts))
		return;
	fputs("collectives:\n", f);
	for (int sc = 0; sc < SCOPE_N; sc++) {
		if (!scope_written(hw, sc, parts))
			continue;
		fprintf(f, "  %s:\n", coll_scope_name((enum coll_scope)sc));
		for (int op = 0; op < COLL_NOPS; op++) {
			const struct coll_model *cm = &hw->coll[sc][op];
			if (cm->nlines + cm->ntables == 0)
				continue;
			fprintf(f, "    %s:\n", coll_op_name((enum coll_op)op));
			write_lines(f, cm);
			write_tables(f, cm);
			hww_kv_str(f, 6, "source", cm->source);
		}
	}
}
