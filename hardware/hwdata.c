/* hwdata: a model as plain data: the names of its enums (the YAML keys), a deep copy, clearing and freeing its
 * tables (hwmodel.h). Below the reader, the writer, composing and loading, which all use it. */
#include <stdlib.h>
#include <string.h>

#include "hardware/hwmodel.h"
#include "util/xalloc.h"

static const char *const fabric_names[] = { "nvswitch", "nvlink", "pcie" };

const char *hwmodel_fabric_name(enum fabric f)
{
	return f >= FABRIC_NVSWITCH && f <= FABRIC_PCIE ? fabric_names[f] : "?";
}

static const char *const op_names[COLL_NOPS] = { "all_reduce", "all_gather", "reduce_scatter", "broadcast",
						 "send_recv", "all_to_all" };

const char *const exec_mode_names[] = { "eager", "cuda_graphs", "compiled", NULL };

const char *coll_op_name(enum coll_op op)
{
	return op >= 0 && op < COLL_NOPS ? op_names[op] : "?";
}

const char *coll_scope_name(enum coll_scope sc)
{
	return sc == SCOPE_INTRA ? "intra" : sc == SCOPE_INTER ? "inter" : "?";
}

static double *dup_doubles(const double *a, int n)
{
	if (!a || n <= 0)
		return NULL;
	double *c = xcalloc((size_t)n, sizeof *c);
	memcpy(c, a, (size_t)n * sizeof *c);
	return c;
}

struct hwmodel *hwmodel_copy(const struct hwmodel *src)
{
	struct hwmodel *hw = xcalloc(1, sizeof *hw);
	*hw = *src;
	for (int dt = 0; dt < DT_COUNT; dt++) {
		struct gemm_table *t = &hw->gpu.gemm[dt];
		long long cells = (long long)t->nm * t->nn * t->nk;
		t->m = dup_doubles(t->m, t->nm);
		t->n = dup_doubles(t->n, t->nn);
		t->k = dup_doubles(t->k, t->nk);
		t->eff = dup_doubles(t->eff, (int)cells);
	}
	for (int sc = 0; sc < SCOPE_N; sc++)
		for (int op = 0; op < COLL_NOPS; op++) {
			struct coll_model *cm = &hw->coll[sc][op];
			const struct coll_model *o = &src->coll[sc][op];
			cm->lines = NULL;
			cm->tables = NULL;
			if (o->nlines) {
				cm->lines = xcalloc((size_t)o->nlines, sizeof *cm->lines);
				memcpy(cm->lines, o->lines, (size_t)o->nlines * sizeof *cm->lines);
			}
			if (o->ntables) {
				cm->tables = xcalloc((size_t)o->ntables, sizeof *cm->tables);
				for (int i = 0; i < o->ntables; i++) {
					cm->tables[i] = o->tables[i];
					cm->tables[i].bytes = dup_doubles(o->tables[i].bytes, o->tables[i].npts);
					cm->tables[i].time_us = dup_doubles(o->tables[i].time_us, o->tables[i].npts);
				}
			}
		}
	return hw;
}

void hwmodel_gemm_clear(struct hw_gpu *g)
{
	for (int dt = 0; dt < DT_COUNT; dt++) {
		struct gemm_table *t = &g->gemm[dt];
		free(t->m);
		free(t->n);
		free(t->k);
		free(t->eff);
		memset(t, 0, sizeof *t);
	}
}

void hwmodel_coll_clear(struct coll_model *cm)
{
	for (int i = 0; i < cm->ntables; i++) {
		free(cm->tables[i].bytes);
		free(cm->tables[i].time_us);
	}
	free(cm->tables);
	free(cm->lines);
	cm->tables = NULL;
	cm->lines = NULL;
	cm->ntables = cm->nlines = 0;
}

void hwmodel_free(struct hwmodel *hw)
{
	if (!hw)
		return;
	hwmodel_gemm_clear(&hw->gpu);
	for (int sc = 0; sc < SCOPE_N; sc++)
		for (int op = 0; op < COLL_NOPS; op++)
			hwmodel_coll_clear(&hw->coll[sc][op]);
	free(hw);
}
