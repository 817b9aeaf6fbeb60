/* table: a sweep's rows on paper (CSV, JSON, a table for people) and shards merged into one sweep; read back in
 * tableread.c. One column list (scale_cols[] below) drives the CSV header, the CSV cells, the JSON keys and both
 * readers, so a column added there is written and read everywhere alike. A row that is
 * not feasible has only the columns up to "reason"; its other cells are empty (CSV) or absent (JSON).
 * Doubles are written in shortest round-trip form and read with strtod, so read-then-write is byte-identical:
 * merged shards print exactly what the whole sweep prints. */
#include "scale/scale.h"
#include "scale/table_internal.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/csvr.h"
#include "util/csvw.h"
#include "util/diag.h"
#include "util/gserr.h"
#include "util/jsonr.h"
#include "util/jsonw.h"
#include "util/slurp.h"
#include "util/xalloc.h"

/* The column list (table_internal.h): one list drives the CSV header, the CSV cells, the JSON keys and both
 * readers (tableread.c). */
#define COL(n, t, m, f) {n, t, offsetof(struct scale_row, m), sizeof(((struct scale_row *)0)->m), f}
const struct col scale_cols[] = {
	COL("row", C_INT, row, W_ALL),
	COL("hardware", C_STR, hardware, W_ALL),
	COL("gpus", C_INT, gpus, W_ALL),
	COL("dp", C_INT, dp, W_ALL),
	COL("tp", C_INT, tp, W_ALL),
	COL("pp", C_INT, pp, W_ALL),
	COL("global_batch", C_INT, global_batch, W_ALL),
	COL("micro_batch", C_INT, micro_batch, W_ALL),
	COL("feasible", C_BOOL, feasible, W_ALL),
	COL("reason", C_STR, reason, W_INFEASIBLE),
	COL("num_microbatches", C_INT, num_microbatches, W_FEASIBLE),
	COL("base_gpus", C_INT, base_gpus, W_FEASIBLE),
	COL("step_time_s", C_DBL, step_time_s, W_FEASIBLE),
	COL("tokens_per_s", C_DBL, tokens_per_s, W_FEASIBLE),
	COL("speedup", C_DBL, speedup, W_FEASIBLE),
	COL("scaling_efficiency", C_DBL, efficiency, W_FEASIBLE),
	COL("mfu", C_DBL, mfu, W_FEASIBLE),
	COL("exposed_comm_share", C_DBL, exposed_comm_share, W_FEASIBLE),
	COL("bubble_share", C_DBL, bubble_share, W_FEASIBLE),
	COL("breakdown_s.compute", C_DBL, breakdown_s.compute, W_FEASIBLE),
	COL("breakdown_s.tp_comm_exposed", C_DBL, breakdown_s.tp_comm_exposed, W_FEASIBLE),
	COL("breakdown_s.pp_comm_exposed", C_DBL, breakdown_s.pp_comm_exposed, W_FEASIBLE),
	COL("breakdown_s.dp_comm_exposed", C_DBL, breakdown_s.dp_comm_exposed, W_FEASIBLE),
	COL("breakdown_s.pipeline_bubble", C_DBL, breakdown_s.pipeline_bubble, W_FEASIBLE),
	COL("breakdown_s.optimizer", C_DBL, breakdown_s.optimizer, W_FEASIBLE),
	COL("breakdown_s.host_wait", C_DBL, breakdown_s.host_wait, W_FEASIBLE),
	COL("memory_per_gpu_bytes", C_DBL, memory_per_gpu_bytes, W_FEASIBLE),
	COL("memory_capacity_bytes", C_DBL, memory_capacity_bytes, W_FEASIBLE),
	COL("fits_in_memory", C_BOOL, fits_in_memory, W_FEASIBLE),
	COL("step_lo_s", C_DBL, step_lo_s, W_POSITIVE),
	COL("step_hi_s", C_DBL, step_hi_s, W_POSITIVE),
	COL("speedup_fast_host", C_DBL, speedup_fast_host, W_POSITIVE),
	COL("speedup_slow_host", C_DBL, speedup_slow_host, W_POSITIVE),
};
_Static_assert(sizeof scale_cols / sizeof scale_cols[0] == SCALE_NCOLS, "SCALE_NCOLS counts scale_cols");
const char *const scale_sweep_cols[] = { "sweep", "scenario", "mode", "rows_total" };

static int finish(FILE *f)
{
	return fflush(f) != 0 || ferror(f) ? GS_EENV : GS_OK;
}

/* ---- CSV ---- */

/* The text of a column's value (empty for a value the row does not have). */
static const char *cell_text(const struct scale_row *r, const struct col *c, char *buf, size_t n)
{
	if (!has(r, c))
		return "";
	const void *p = cfield(r, c);
	switch (c->type) {
	case C_INT: snprintf(buf, n, "%d", *(const int *)p); return buf;
	case C_DBL: return isfinite(*(const double *)p) ? jsonw_format_double(*(const double *)p, buf, n) : "";
	case C_BOOL: return *(const bool *)p ? "true" : "false";
	case C_STR: return (const char *)p;
	}
	return "";
}

static int write_csv(FILE *f, const struct scale_table *t)
{
	for (int i = 0; i < NSWEEP; i++)
		fprintf(f, "%s,", scale_sweep_cols[i]);
	for (int c = 0; c < SCALE_NCOLS; c++)
		fprintf(f, "%s%c", scale_cols[c].name, c + 1 < SCALE_NCOLS ? ',' : '\n');
	for (int i = 0; i < t->n; i++) {
		const struct scale_row *r = &t->rows[i];
		fprintf(f, "%s,", t->sweep);
		csvw_cell(f, t->scenario);
		fprintf(f, ",%s,%d,", scale_mode_name(t->mode), t->rows_total);
		for (int c = 0; c < SCALE_NCOLS; c++) {
			char buf[48];
			csvw_cell(f, cell_text(r, &scale_cols[c], buf, sizeof buf));
			fputc(c + 1 < SCALE_NCOLS ? ',' : '\n', f);
		}
	}
	return finish(f);
}

/* ---- JSON ---- */

static int write_json(FILE *f, const struct scale_table *t)
{
	struct jsonw w;
	jsonw_init(&w, f);
	jsonw_object_begin(&w);
	jsonw_kv_string(&w, "scenario", t->scenario);
	jsonw_kv_string(&w, "mode", scale_mode_name(t->mode));
	jsonw_kv_string(&w, "sweep", t->sweep);
	jsonw_kv_int(&w, "rows_total", t->rows_total);
	jsonw_kv_int(&w, "shard", t->shard);
	jsonw_kv_int(&w, "shards", t->nshards);
	jsonw_key(&w, "rows");
	jsonw_array_begin(&w);
	for (int i = 0; i < t->n; i++) {
		const struct scale_row *r = &t->rows[i];
		jsonw_object_begin(&w);
		const char *open = NULL;  /* the parent object now open, "breakdown_s." */
		size_t open_len = 0;
		for (int c = 0; c < SCALE_NCOLS; c++) {
			const struct col *col = &scale_cols[c];
			if (!has(r, col))
				continue;
			const char *dot = strchr(col->name, '.');
			const char *key = col->name;
			if (open && (!dot || strncmp(col->name, open, open_len) != 0)) {
				jsonw_object_end(&w);
				open = NULL;
			}
			if (dot) {
				if (!open) {
					char parent[64];
					snprintf(parent, sizeof parent, "%.*s", (int)(dot - col->name), col->name);
					jsonw_key(&w, parent);
					jsonw_object_begin(&w);
					open = col->name;
					open_len = (size_t)(dot - col->name) + 1;
				}
				key = dot + 1;
			}
			const void *p = cfield(r, col);
			switch (col->type) {
			case C_INT: jsonw_kv_int(&w, key, *(const int *)p); break;
			case C_DBL: jsonw_kv_double(&w, key, *(const double *)p); break;
			case C_BOOL: jsonw_kv_bool(&w, key, *(const bool *)p); break;
			case C_STR: jsonw_kv_string(&w, key, (const char *)p); break;
			}
		}
		if (open)
			jsonw_object_end(&w);
		jsonw_object_end(&w);
	}
	jsonw_array_end(&w);
	jsonw_object_end(&w);
	return jsonw_finish(&w);
}

/* ---- table for people ---- */

/* A hardware none of whose rows fits in memory still has a baseline (its first feasible row): say so once per
 * hardware, since its speedups then compare layouts that could not run. */
static void write_unfit_baselines(FILE *f, const struct scale_table *t)
{
	for (int i = 0; i < t->n; i++) {
		const struct scale_row *r = &t->rows[i];
		if (!r->feasible || r->gpus != r->base_gpus || r->fits_in_memory)
			continue;
		fprintf(f, "note: no row of %s fits in GPU memory; its speedups are relative to %d GPUs, which does not "
			"fit either\n", r->hardware, r->gpus);
	}
}

/* The host's drift (sim/hostband.h): each row it moves, its step on a fast and a slow host and its speedup with its
 * base row on the same host, and whether the host decides the speedup's side of 1. */
static void write_host_drift(FILE *f, const struct scale_table *t, int hw_w)
{
	bool any = false;
	for (int i = 0; i < t->n && !any; i++)
		any = t->rows[i].feasible && (t->rows[i].step_hi_s > 0 || t->rows[i].speedup_fast_host > 0);
	if (!any)
		return;
	fprintf(f, "\nhost drift: the rows the host's speed moves, on a host as fast and as slow as the model's host range\n"
		"(docs/output.md, \"The host's drift\"); speedup: each row and its base on the same host\n"
		"%-*s %6s %22s %22s\n", hw_w, "hardware", "gpus", "step (ms)", "speedup fast, slow");
	for (int i = 0; i < t->n; i++) {
		const struct scale_row *r = &t->rows[i];
		if (!r->feasible || !(r->step_hi_s > 0 || r->speedup_fast_host > 0))
			continue;
		char step[48] = "", sp[48] = "";
		if (r->step_hi_s > 0)
			snprintf(step, sizeof step, "%.3f to %.3f", r->step_lo_s * 1e3, r->step_hi_s * 1e3);
		else
			snprintf(step, sizeof step, "%.3f", r->step_time_s * 1e3);
		if (r->gpus == r->base_gpus)
			snprintf(sp, sizeof sp, "(the base)");
		else if (r->speedup_fast_host > 0)
			snprintf(sp, sizeof sp, "%.2f, %.2f", r->speedup_fast_host, r->speedup_slow_host);
		bool decides = r->speedup_fast_host > 0 && (r->speedup_fast_host > 1) != (r->speedup_slow_host > 1);
		fprintf(f, "%-*s %6d %22s %22s%s\n", hw_w, r->hardware, r->gpus, step, sp,
			decides ? "  the host decides" : "");
	}
}

static int write_people(FILE *f, const struct scale_table *t)
{
	int hw_w = 8;
	bool oom = false, host = false;
	for (int i = 0; i < t->n; i++) {
		int len = (int)strlen(t->rows[i].hardware);
		hw_w = len > hw_w ? len : hw_w;
		oom |= t->rows[i].feasible && !t->rows[i].fits_in_memory;
		host |= t->rows[i].feasible && t->rows[i].breakdown_s.host_wait > 0;
	}
	/* context parallelism: GPUs beyond dp*tp*pp (a row's cp ranks) */
	long long cp = 1;
	for (int i = 0; i < t->n && cp == 1; i++) {
		long long mp = (long long)t->rows[i].dp * t->rows[i].tp * t->rows[i].pp;
		if (mp > 0 && t->rows[i].gpus > mp)
			cp = t->rows[i].gpus / mp;
	}
	const char *how = t->mode == SCALE_STRONG ? "global batch kept" : "batch per DP replica kept, global batch grows";
	if (cp > 1)
		fprintf(f, "%s: %s scaling (%s), tp, pp and cp %lld as in the scenario, dp = GPUs / (tp*pp*cp)\n",
			t->scenario, scale_mode_name(t->mode), how, cp);
	else
		fprintf(f, "%s: %s scaling (%s), tp and pp as in the scenario, dp = GPUs / (tp*pp)\n", t->scenario,
			scale_mode_name(t->mode), how);
	if (t->nshards > 1)
		fprintf(f, "shard %d of %d: rows %d, %d, ... of %d (join the shards with 'gpusim merge')\n", t->shard,
			t->nshards, t->shard - 1, t->shard - 1 + t->nshards, t->rows_total);
	fputc('\n', f);
	fprintf(f, "%-*s %6s %15s %7s %12s %14s %8s %10s %8s %7s %9s\n", hw_w, "hardware", "gpus", "dp x tp x pp",
		"batch", "step (ms)", "tokens/s", "speedup", "efficiency", "comm", "bubble", "GB/GPU");
	for (int i = 0; i < t->n; i++) {
		const struct scale_row *r = &t->rows[i];
		char layout[48];
		snprintf(layout, sizeof layout, "%d x %d x %d", r->dp, r->tp, r->pp);
		fprintf(f, "%-*s %6d ", hw_w, r->hardware, r->gpus);
		if (!r->feasible) {
			fprintf(f, "infeasible: %s\n", r->reason);
			continue;
		}
		char tok[48];
		report_group_digits(r->tokens_per_s, tok, sizeof tok);
		fprintf(f, "%15s %7d %12.3f %14s %8.2f %8.1f %% %6.1f %% %5.1f %% %8.1f%s\n", layout, r->global_batch,
			r->step_time_s * 1e3, tok, r->speedup, r->efficiency * 100, r->exposed_comm_share * 100,
			r->bubble_share * 100, r->memory_per_gpu_bytes / 1e9, r->fits_in_memory ? "" : " !");
	}
	fputs("\nspeedup: tokens/s over the first row of the same hardware that fits in memory (the first feasible\n"
	      "row when none fits); efficiency: speedup / (gpus / its gpus); comm: exposed TP + PP + DP\n"
	      "communication, share of the step on the critical rank\n", f);
	if (oom)
		fputs("!: does not fit in GPU memory (gpusim predict shows the memory breakdown and what would fit)\n", f);
	write_unfit_baselines(f, t);
	if (host)
		fputs("some rows wait for the host (training.execution): see breakdown_s.host_wait in csv/json\n",
		      f);
	write_host_drift(f, t, hw_w);
	return finish(f);
}

int scale_table_write(FILE *f, enum report_format fmt, const struct scale_table *t)
{
	switch (fmt) {
	case REPORT_CSV: return write_csv(f, t);
	case REPORT_JSON: return write_json(f, t);
	case REPORT_TABLE: return write_people(f, t);
	}
	return GS_EUSAGE;
}

int scale_table_merge(const struct scale_table *tabs, const char *const *names, int n, struct scale_table *out)
{
	scale_table_init(out);
	if (n <= 0)
		return diag_errorf("merge: no tables");
	const struct scale_table *a = &tabs[0];
	int total = a->rows_total;
	for (int i = 1; i < n; i++) {
		const struct scale_table *b = &tabs[i];
		if (strcmp(a->sweep, b->sweep) != 0 || a->rows_total != b->rows_total || a->mode != b->mode)
			return diag_errorf("%s and %s come from different sweeps (ids %s and %s): shards to merge must "
					   "come from one 'gpusim scale' command line with --shard i/N", names[0], names[i],
					   a->sweep, b->sweep);
	}
	int *from = xcalloc((size_t)total, sizeof *from);  /* 1 + the table holding each row, 0 none */
	const struct scale_row **rows = xcalloc((size_t)total, sizeof *rows);
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++)
		for (int k = 0; k < tabs[i].n; k++) {
			int r = tabs[i].rows[k].row;
			if (from[r]) {
				rc = diag_errorf("row %d is in both %s and %s (the same shard given twice?)", r,
						 names[from[r] - 1], names[i]);
				break;
			}
			from[r] = i + 1;
			rows[r] = &tabs[i].rows[k];
		}
	if (rc == 0) {
		char missing[256] = "";
		int nmiss = 0;
		size_t len = 0;
		for (int r = 0; r < total; r++)
			if (!from[r] && nmiss++ < 12)
				len += (size_t)snprintf(missing + len, sizeof missing - len, "%s%d", nmiss > 1 ? ", " : "",
							r);
		if (nmiss)
			rc = diag_errorf("%d of the sweep's %d rows are in none of the files: rows %s%s (a shard "
					 "missing?)", nmiss, total, missing, nmiss > 12 ? ", ..." : "");
	}
	if (rc == 0) {
		memcpy(out->scenario, a->scenario, sizeof out->scenario);
		memcpy(out->sweep, a->sweep, sizeof out->sweep);
		out->mode = a->mode;
		out->rows_total = total;
		for (int r = 0; r < total; r++)
			*scale_table_add(out) = *rows[r];
	}
	free(from);
	free(rows);
	return rc;
}
