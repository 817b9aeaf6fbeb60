/* hwmodel: the built-in presets (hardware/<name>.yaml embedded by cmake/embed.cmake), loading a model by preset name
 * or path, and the lookups the simulator times work with: GEMM efficiency, memory-bound bandwidth, collective
 * time. Formulas and lookup order: docs/hardware-model.md.
 *
 * Invariant: the lookups read only models that hwload_parse accepted (positive peaks, bandwidths and tile
 * sizes, strictly increasing table axes), so they never divide by zero and always return a finite value. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hardware/hwmodel_internal.h"
#include "util/diag.h"
#include "util/gserr.h"
#include "util/strsim.h"
#include "util/xalloc.h"
#include "util/ydoc.h"

/* Defined in the generated presets.c (cmake/embed.cmake); the list ends with {NULL, NULL}. */
struct hw_preset {
	const char *name;
	const char *text;
};
extern const struct hw_preset hw_presets[];

#define HW_MAX_PRESETS 256

/* NCCL's ring Simple latencies (src/graph/tuning.cc): base 8.4 us, per step 3.4 us over NVLink, 5.7 us over PCIe;
 * used only by the fallback when a scope/op has no line that applies. */
#define FALLBACK_BASE_US 8.4
#define FALLBACK_NVLINK_STEP_US 3.4
#define FALLBACK_PCIE_STEP_US 5.7

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

const char *const *hwmodel_preset_names(void)
{
	/* The one mutable static of the library: a sorted cache of the generated const table, filled on the first
	 * call and identical on every call after. */
	static const char *names[HW_MAX_PRESETS + 1];
	static int filled;
	if (!filled) {
		int n = 0;
		for (const struct hw_preset *p = hw_presets; p->name && n < HW_MAX_PRESETS; p++) {
			int i = n++;
			while (i > 0 && strcmp(names[i - 1], p->name) > 0) {
				names[i] = names[i - 1];
				i--;
			}
			names[i] = p->name;
		}
		names[n] = NULL;
		filled = 1;
	}
	return names;
}

const char *hwmodel_preset_text(const char *name)
{
	for (const struct hw_preset *p = hw_presets; p->name; p++)
		if (strcmp(p->name, name) == 0)
			return p->text;
	return NULL;
}

bool hwmodel_is_preset_name(const char *s)
{
	size_t n = strlen(s);
	if (strchr(s, '/'))
		return false;
	return !(n >= 5 && strcmp(s + n - 5, ".yaml") == 0) && !(n >= 4 && strcmp(s + n - 4, ".yml") == 0);
}

int hwmodel_unknown_preset(const char *file, int line, int col, const char *name)
{
	const char *const *names = hwmodel_preset_names();
	char list[1024], hint[160] = "";
	size_t used = 0;
	list[0] = '\0';
	for (const char *const *p = names; *p && used < sizeof list; p++)
		used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", p == names ? "" : ", ", *p);
	const char *s = strsim_suggest(name, names);
	if (s)
		snprintf(hint, sizeof hint, "did you mean '%s'? ", s);
	if (!file)
		line = col = 0;
	return diag_error(file, line, col, "unknown hardware preset '%s' (%spresets: %s)", name, hint, list);
}

/* The files being loaded, outermost first, to find a cycle of `base:` references. */
#define HW_MAX_BASE_DEPTH 8
struct base_chain {
	int n;
	char id[HW_MAX_BASE_DEPTH][512];  /* the file's path as given; a preset's is hardware/NAME.yaml */
};

static struct hwmodel *load_doc(struct ydoc *d, const char *path, int *err, bool fallback, struct base_chain *chain);

/* A model without a fused attention entry (a calibration that measured only the unfused path) takes the fused
 * entry of the built-in preset for the same GPU (gpu.name), its source saying so. Presets all have one. */
static int attn_from_preset(struct hwmodel *hw)
{
	if (hw->gpu.attn[ATTN_FUSED].present)
		return 0;
	for (const struct hw_preset *p = hw_presets; p->name; p++) {
		int e = 0;
		struct base_chain chain = { 0 };
		struct ydoc *d = ydoc_load_string(p->name, p->text, strlen(p->text), &e);
		struct hwmodel *pre = d ? load_doc(d, p->name, &e, false, &chain) : NULL;  /* no fallback: no recursion */
		if (pre && strcmp(pre->gpu.name, hw->gpu.name) == 0 && pre->gpu.attn[ATTN_FUSED].present) {
			struct hw_attn *a = &hw->gpu.attn[ATTN_FUSED];
			*a = pre->gpu.attn[ATTN_FUSED];
			snprintf(a->source, sizeof a->source, "preset %s (no fused entry measured): %.100s", p->name,
				 pre->gpu.attn[ATTN_FUSED].source);
			hwmodel_free(pre);
			return 0;
		}
		hwmodel_free(pre);
	}
	return diag_error(hw->path, 0, 0,
			  "gpu.attention: no fused entry (attention.fused) and no built-in preset for GPU '%s' to take "
			  "one from; measure it (gpusim calibrate) or add one (docs/hardware-model.md)",
			  hw->gpu.name);
}

/* The model a `base:` value names, loaded with its own bases: a preset name, or a path relative to the directory
 * of the file that names it. NULL after an error at the value's place in d (unknown preset, unreadable file, a
 * cycle, too deep) or in the base's own file. */
static struct hwmodel *load_base(struct ydoc *d, const struct ynode *base, const char *path, struct base_chain *chain,
				 int *err)
{
	const char *name = ynode_str(base);
	char file[512];
	struct ydoc *bd = NULL;
	if (hwmodel_is_preset_name(name)) {
		snprintf(file, sizeof file, "hardware/%s.yaml", name);
	} else {
		const char *slash = strrchr(path, '/');
		if (name[0] == '/' || !slash || hwmodel_is_preset_name(path))
			snprintf(file, sizeof file, "%s", name);
		else
			snprintf(file, sizeof file, "%.*s/%s", (int)(slash - path), path, name);
	}
	for (int i = 0; i < chain->n; i++)
		if (strcmp(chain->id[i], file) == 0) {
			char cyc[1024];
			size_t used = 0;
			for (int j = i; j < chain->n && used < sizeof cyc; j++)
				used += (size_t)snprintf(cyc + used, sizeof cyc - used, "%s -> ", chain->id[j]);
			if (used < sizeof cyc)
				snprintf(cyc + used, sizeof cyc - used, "%s", file);
			*err = ydoc_error(d, base, "base: '%s' makes a cycle of bases (%s)", name, cyc);
			return NULL;
		}
	if (chain->n == HW_MAX_BASE_DEPTH) {
		*err = ydoc_error(d, base, "base: more than %d nested bases", HW_MAX_BASE_DEPTH);
		return NULL;
	}
	if (hwmodel_is_preset_name(name)) {
		const char *text = hwmodel_preset_text(name);
		if (!text) {
			*err = hwmodel_unknown_preset(ydoc_file(d), ynode_line(base), ynode_col(base), name);
			return NULL;
		}
		bd = ydoc_load_string(file, text, strlen(text), err);
	} else {
		struct stat st;
		if (stat(file, &st) != 0) {
			*err = ydoc_error(d, base, "base: cannot read '%s' (%s); give a preset name (gpusim presets) or a "
					  "path relative to this file", file, strerror(errno));
			return NULL;
		}
		if (!S_ISREG(st.st_mode)) {  /* a device or FIFO (/dev/zero, /dev/stdin) would never end */
			*err = ydoc_error(d, base, "base: '%s' is not a regular file", file);
			return NULL;
		}
		bd = ydoc_load_file(file, err);
	}
	return bd ? load_doc(bd, file, err, false, chain) : NULL;
}

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* hw->origin of a model as loaded: a part whose source begins "measured" came from measurement (the file's path),
 * the rest from the preset or file itself (docs/hardware-model.md, "Origin"). */
static void origin_set(struct hwmodel *hw)
{
	struct hw_origin *o = &hw->origin;
	char what[200], stem[96] = "";
	const char *base = starts_with(hw->path, "hardware/") ? hw->path + 9 : "";  /* after "hardware/" */
	size_t n = strlen(base);
	if (!strchr(base, '/') && n > 5 && n - 5 < sizeof stem &&
	    strcmp(base + n - 5, ".yaml") == 0)
		snprintf(stem, sizeof stem, "%.*s", (int)(n - 5), base);
	if (stem[0] && hwmodel_preset_text(stem))
		snprintf(what, sizeof what, "preset %s", stem);
	else
		snprintf(what, sizeof what, "file %.120s%s%.60s", hw->path, hw->base[0] ? ", base " : "", hw->base);
	int host_gpus = o->host_gpus;
	enum fabric host_fabric = o->host_fabric;
	memset(o, 0, sizeof *o);
	o->host_gpus = host_gpus;
	o->host_fabric = host_fabric;
	o->calibrated = starts_with(hw->gpu.source, "measured: gpusim calibrate");
	if (starts_with(hw->gpu.source, "measured"))
		snprintf(o->gpu, sizeof o->gpu, "measured (%.150s)", hw->path);
	else
		snprintf(o->gpu, sizeof o->gpu, "%s", what);
	for (int op = 0; op < COLL_NOPS; op++) {
		const struct coll_model *cm = &hw->coll[SCOPE_INTRA][op];
		if (!starts_with(cm->source, "measured"))
			continue;
		for (int i = 0; i < cm->ntables; i++)
			o->measured_group = cm->tables[i].n > o->measured_group ? cm->tables[i].n : o->measured_group;
		for (int i = 0; i < cm->nlines; i++)
			o->measured_group = cm->lines[i].n > o->measured_group ? cm->lines[i].n : o->measured_group;
	}
	if (o->measured_group >= 2)
		snprintf(o->intra, sizeof o->intra, "measured (%.150s) for groups of 2 to %d", hw->path, o->measured_group);
	else if (starts_with(hw->coll[SCOPE_INTRA][COLL_ALL_REDUCE].source, "preset")) {  /* a base copied in */
		const char *src = hw->coll[SCOPE_INTRA][COLL_ALL_REDUCE].source, *cut = strstr(src, " (");
		snprintf(o->intra, sizeof o->intra, "%.*s, copied into %.120s", cut ? (int)(cut - src) : 100, src,
			 hw->path);
	}
	else
		snprintf(o->intra, sizeof o->intra, "%s", what);
	if (starts_with(hw->node.source, "measured") && !host_gpus)
		snprintf(o->node, sizeof o->node, "the measuring host (%.120s): nodes of %d", hw->path, hw->node.gpus);
	else
		snprintf(o->node, sizeof o->node, "%s", what);
}

static struct hwmodel *load_doc(struct ydoc *d, const char *path, int *err, bool fallback, struct base_chain *chain)
{
	struct hwmodel *hw = NULL;
	const struct ynode *base = ynode_get(ydoc_root(d), "base");
	int rc = 0;
	if (chain->n < HW_MAX_BASE_DEPTH)
		snprintf(chain->id[chain->n++], sizeof chain->id[0], "%s", path);
	struct hwmodel *base_model = NULL;  /* kept for a calibration with a base: composed into it below */
	if (base && ynode_kind(base) == YNODE_SCALAR && !ynode_is_null(base)) {
		hw = load_base(d, base, path, chain, &rc);
		if (!hw) {
			ydoc_free(d);
			if (err)
				*err = rc ? rc : GS_EINVAL;
			return NULL;
		}
		snprintf(hw->base, sizeof hw->base, "%s", ynode_str(base));
		if (fallback)
			base_model = hwmodel_copy(hw);
	} else {
		hw = xcalloc(1, sizeof *hw);
	}
	snprintf(hw->path, sizeof hw->path, "%s", path);
	/* calibrate's based files record their host under meta.node: such a file claims only what it measured */
	bool gpu_only = ynode_kind(ynode_get(ynode_get(ydoc_root(d), "meta"), "node")) == YNODE_MAP;
	rc = hwload_parse(d, hw, base != NULL);
	ydoc_free(d);
	if (rc == 0 && fallback)
		rc = attn_from_preset(hw);
	if (rc == 0 && fallback)
		origin_set(hw);
	if (rc == 0 && base_model && gpu_only && hw->origin.calibrated) {
		/* a calibration that names its base claims the GPU and the collectives it measured: the same model as
		 * --hw BASE --gpu FILE, measured curves used only where the base's node is of the measured kind */
		struct hwmodel *c = hwmodel_compose(base_model, hw);
		snprintf(c->name, sizeof c->name, "%s", hw->name);
		snprintf(c->path, sizeof c->path, "%s", hw->path);
		hwmodel_free(hw);
		hw = c;
	}
	hwmodel_free(base_model);
	if (err)
		*err = rc;
	if (rc != 0) {
		hwmodel_free(hw);
		return NULL;
	}
	return hw;
}

struct hwmodel *hwmodel_load_string(const char *name, const char *text, int *err)
{
	struct base_chain chain = { 0 };
	struct ydoc *d = ydoc_load_string(name, text, strlen(text), err);
	return d ? load_doc(d, name, err, true, &chain) : NULL;
}

struct hwmodel *hwmodel_load(const char *name_or_path, int *err)
{
	struct base_chain chain = { 0 };
	if (hwmodel_is_preset_name(name_or_path)) {
		const char *text = hwmodel_preset_text(name_or_path);
		if (!text) {
			int rc = hwmodel_unknown_preset(NULL, 0, 0, name_or_path);
			if (err)
				*err = rc;
			return NULL;
		}
		char file[160];
		snprintf(file, sizeof file, "hardware/%s.yaml", name_or_path);
		struct ydoc *d = ydoc_load_string(file, text, strlen(text), err);
		return d ? load_doc(d, file, err, true, &chain) : NULL;
	}
	struct ydoc *d = ydoc_load_file(name_or_path, err);
	return d ? load_doc(d, name_or_path, err, true, &chain) : NULL;
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

void hwmodel_free(struct hwmodel *hw)
{
	if (!hw)
		return;
	for (int dt = 0; dt < DT_COUNT; dt++) {
		struct gemm_table *t = &hw->gpu.gemm[dt];
		free(t->m);
		free(t->n);
		free(t->k);
		free(t->eff);
	}
	for (int sc = 0; sc < SCOPE_N; sc++) {
		for (int op = 0; op < COLL_NOPS; op++) {
			struct coll_model *cm = &hw->coll[sc][op];
			for (int i = 0; i < cm->ntables; i++) {
				free(cm->tables[i].bytes);
				free(cm->tables[i].time_us);
			}
			free(cm->tables);
			free(cm->lines);
		}
	}
	free(hw);
}

/* Where x falls on axis a[0..n-1] in log2 space: *i and weight *w of a[*i + 1]; clamped at both ends. */
static void axis_locate(const double *a, int n, double x, int *i, double *w)
{
	*i = 0;
	*w = 0;
	if (n < 2 || x <= a[0])
		return;
	if (x >= a[n - 1]) {
		*i = n - 1;
		return;
	}
	int j = 0;
	while (j + 1 < n - 1 && a[j + 1] <= x)
		j++;
	*i = j;
	*w = (log2(x) - log2(a[j])) / (log2(a[j + 1]) - log2(a[j]));
}

/* The rate at seq over rows idx[0..n) of one head dimension and mask, sorted by seq: log2-interpolated between
 * neighbours, clamped at both ends. */
static double attn_rows_rate(const struct attn_row *rows, const int *idx, int n, double seq, bool backward)
{
	double a[HW_ATTN_ROWS];
	for (int i = 0; i < n; i++)
		a[i] = rows[idx[i]].seq;
	int i;
	double w;
	axis_locate(a, n, seq, &i, &w);
	const struct attn_row *lo = &rows[idx[i]], *hi = &rows[idx[i + (w > 0)]];
	double rl = backward ? lo->bwd_tflops : lo->fwd_tflops, rh = backward ? hi->bwd_tflops : hi->fwd_tflops;
	return rl + w * (rh - rl);
}

/* The rate at seq from the rows of head dimension hd and mask causal, or -1 when there are none. */
static double attn_rate(const struct hw_attn *a, int hd, bool causal, double seq, bool backward)
{
	int idx[HW_ATTN_ROWS], n = 0;
	for (int i = 0; i < a->nrows; i++)
		if (a->row[i].head_dim == hd && a->row[i].causal == causal)
			idx[n++] = i;
	if (n == 0)
		return -1;
	for (int i = 1; i < n; i++)  /* sort by seq (few rows: insertion sort) */
		for (int j = i; j > 0 && a->row[idx[j]].seq < a->row[idx[j - 1]].seq; j--) {
			int x = idx[j];
			idx[j] = idx[j - 1];
			idx[j - 1] = x;
		}
	return attn_rows_rate(a->row, idx, n, seq, backward);
}

double hwmodel_attn_tflops(const struct hwmodel *hw, enum attn_path p, enum dtype dt, double seq, int hd, bool causal,
			   bool backward)
{
	const struct hw_attn *a = &hw->gpu.attn[p];
	if (!a->present)
		return 0;
	double scale = a->burst && !a->max_clock ? 1 / hw->gpu.burst_speedup : 1;
	if (a->nrows == 0)
		return scale * (backward ? a->bwd_eff : a->fwd_eff) * hw->gpu.peak_tflops[dt];
	/* the nearest head dimension (log distance; the smaller on a tie) */
	int best = a->row[0].head_dim;
	for (int i = 1; i < a->nrows; i++) {
		double dn = fabs(log2((double)a->row[i].head_dim / hd)), db = fabs(log2((double)best / hd));
		if (dn < db || (dn == db && a->row[i].head_dim < best))
			best = a->row[i].head_dim;
	}
	double r = attn_rate(a, best, causal, seq, backward);
	if (r > 0)
		return scale * r;
	/* only the other mask at that head dimension: take it times the mask's ratio at a head dimension that has
	 * both (the first in the file), else as it is */
	r = attn_rate(a, best, !causal, seq, backward);
	for (int i = 0; i < a->nrows; i++) {
		double num = attn_rate(a, a->row[i].head_dim, causal, seq, backward);
		double den = attn_rate(a, a->row[i].head_dim, !causal, seq, backward);
		if (num > 0 && den > 0)
			return scale * r * num / den;
	}
	return scale * r;
}

static double table_eff(const struct gemm_table *t, double m, double n, double k)
{
	int im, in, ik;
	double wm, wn, wk, eff = 0;
	axis_locate(t->m, t->nm, m, &im, &wm);
	axis_locate(t->n, t->nn, n, &in, &wn);
	axis_locate(t->k, t->nk, k, &ik, &wk);
	for (int c = 0; c < 8; c++) {
		int dm = c >> 2 & 1, dn = c >> 1 & 1, dk = c & 1;
		double w = (dm ? wm : 1 - wm) * (dn ? wn : 1 - wn) * (dk ? wk : 1 - wk);
		if (w == 0)
			continue;
		eff += w * t->eff[((im + dm) * t->nn + (in + dn)) * t->nk + (ik + dk)];
	}
	return eff;
}

/* The analytic model's shape terms: wave quantization of the m x n tiles over the SMs, and k/(k + k_half). */
static double analytic_shape_eff(const struct hw_gpu *g, double m, double n, double k)
{
	double tiles = ceil(m / g->gemm_tile_m) * ceil(n / g->gemm_tile_n);
	double waves = ceil(tiles / g->sm_count);
	return tiles / (waves * g->sm_count) * k / (k + g->gemm_k_half);
}

double hwmodel_gemm_eff(const struct hwmodel *hw, enum dtype dt, double m, double n, double k)
{
	const struct hw_gpu *g = &hw->gpu;
	m = fmax(m, 1);
	n = fmax(n, 1);
	k = fmax(k, 1);
	double scale = g->gemm_burst ? 1 / g->burst_speedup : 1;  /* short-run rates to sustained ones */
	if (dt >= 0 && dt < DT_COUNT && g->gemm[dt].present)
		return scale * table_eff(&g->gemm[dt], m, n, k);
	double ceiling = dt >= 0 && dt < DT_COUNT && g->gemm_dtype_eff[dt] > 0 ? g->gemm_dtype_eff[dt] : g->gemm_max_eff;
	return scale * ceiling * analytic_shape_eff(g, m, n, k);
}

double hwmodel_gemm_fp4_s(const struct hwmodel *hw, double m, double n, double k)
{
	const struct hw_gpu *g = &hw->gpu;
	double scale = g->gemm_burst ? 1 / g->burst_speedup : 1;
	double ceiling = g->gemm_fp4_eff > 0 ? g->gemm_fp4_eff : g->gemm_max_eff;
	double eff = scale * ceiling * analytic_shape_eff(g, fmax(m, 1), fmax(n, 1), fmax(k, 1));
	return 2 * m * n * k / (g->peak_fp4_tflops * 1e12 * eff);
}

double hwmodel_mem_gbps(const struct hwmodel *hw, double bytes)
{
	const struct hw_gpu *g = &hw->gpu;
	if (!(bytes > 0) || g->mem_half_bytes == 0)
		return g->hbm_gbps * g->mem_eff;
	return g->hbm_gbps * g->mem_eff * bytes / (bytes + g->mem_half_bytes);
}

double coll_busfactor(enum coll_op op, int n)
{
	if (n < 2)
		return 0;
	switch (op) {
	case COLL_ALL_REDUCE:
		return 2.0 * (n - 1) / n;
	case COLL_ALL_GATHER:
	case COLL_REDUCE_SCATTER:
	case COLL_ALL_TO_ALL:
		return (double)(n - 1) / n;
	default:
		return 1.0;
	}
}

double coll_steps(enum coll_op op, int n)
{
	if (n < 2)
		return 0;
	switch (op) {
	case COLL_ALL_REDUCE:
		return 2.0 * (n - 1);
	case COLL_SEND_RECV:
		return 1.0;
	default:
		return n - 1.0;
	}
}

static double line_us(const struct coll_line *l, enum coll_op op, int n, double bytes)
{
	return l->alpha_us + l->step_us * coll_steps(op, n) + bytes * coll_busfactor(op, n) / (l->bus_gbps * 1e3);
}

/* Log-log interpolation of a table known to contain bytes in its range. */
static double table_us(const struct coll_table *t, double bytes)
{
	int i = 0;
	while (i + 2 < t->npts && t->bytes[i + 1] <= bytes)
		i++;
	double w = (log(bytes) - log(t->bytes[i])) / (log(t->bytes[i + 1]) - log(t->bytes[i]));
	return exp(log(t->time_us[i]) + w * (log(t->time_us[i + 1]) - log(t->time_us[i])));
}

/* Ring over the scope's raw link: the node's per-GPU link inside a node; across nodes the GPU's share of the
 * node's NICs, divided by the oversubscription, with the network latency per step. */
static double fallback_us(const struct hwmodel *hw, enum coll_scope sc, enum coll_op op, int n, double bytes)
{
	struct coll_line l = { .alpha_us = FALLBACK_BASE_US };
	if (sc == SCOPE_INTRA) {
		l.step_us = hw->node.fabric == FABRIC_PCIE ? FALLBACK_PCIE_STEP_US : FALLBACK_NVLINK_STEP_US;
		l.bus_gbps = hw->node.link_gbps;
	} else {
		l.step_us = hw->net.latency_us;
		l.bus_gbps = hw->net.nic_gbps * hw->net.nics / hw->node.gpus / hw->net.oversubscription;
	}
	return line_us(&l, op, n, bytes);
}

double hwmodel_coll_us(const struct hwmodel *hw, enum coll_scope sc, enum coll_op op, int n, double bytes)
{
	if (n < 2 || sc < 0 || sc >= SCOPE_N || op < 0 || op >= COLL_NOPS)
		return 0;
	bytes = fmax(bytes, 0);
	const struct coll_model *cm = &hw->coll[sc][op];
	for (int i = 0; i < cm->ntables; i++) {
		const struct coll_table *t = &cm->tables[i];
		if (t->n == n && bytes >= t->bytes[0] && bytes <= t->bytes[t->npts - 1])
			return table_us(t, bytes);
	}
	double best = INFINITY;
	for (int i = 0; i < cm->nlines; i++) {
		const struct coll_line *l = &cm->lines[i];
		if ((l->n == 0 || l->n == n) && (l->max_bytes == 0 || bytes <= l->max_bytes))
			best = fmin(best, line_us(l, op, n, bytes));
	}
	return isfinite(best) ? best : fallback_us(hw, sc, op, n, bytes);
}
