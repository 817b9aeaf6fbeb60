/* hwmodel: the built-in presets (hardware/<name>.yaml embedded by cmake/embed.cmake), loading a model by preset name
 * or path with its bases, copying and freeing one. The lookups the simulator times work with are in hwlookup.c,
 * reading in hwload.c, writing in hwwrite*.c. */
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

#define HOST_KEY(k) { #k, offsetof(struct hw_host_cost, k) }
const struct hw_host_key hw_host_keys[] = {
	HOST_KEY(step_us), HOST_KEY(op_us), HOST_KEY(launch_us), HOST_KEY(coll_us), HOST_KEY(bucket_us),
	HOST_KEY(group_us), HOST_KEY(gemm_us), HOST_KEY(gemm2d_us), HOST_KEY(attn_us), HOST_KEY(norm_us),
	HOST_KEY(bwd_op_us), HOST_KEY(bwd_gemm_us), HOST_KEY(bwd_gemm2d_us), HOST_KEY(bwd_attn_us), HOST_KEY(accum_us),
	HOST_KEY(backward_us), HOST_KEY(opt_us), HOST_KEY(graph_us), HOST_KEY(kernel_us), HOST_KEY(kernel2d_us),
	HOST_KEY(bwd_kernel_us), HOST_KEY(bwd_kernel2d_us), HOST_KEY(subgraph_us), HOST_KEY(bwd_subgraph_us),
	HOST_KEY(graph2d_us), HOST_KEY(backward2d_us), HOST_KEY(layer_kernels), HOST_KEY(bwd_layer_kernels),
	HOST_KEY(layer2d_kernels), HOST_KEY(bwd_layer2d_kernels), HOST_KEY(rank_spread), HOST_KEY(drift_lo),
	HOST_KEY(drift_hi),
	{ NULL, 0 },
};
#undef HOST_KEY

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
		/* packed at build time from this same text (hardware/gen/presetgen.c): a copy, not a parse */
		for (const struct hw_preset_model *m = hw_preset_models; m->name; m++) {
			struct hwmodel *hw = strcmp(m->name, name_or_path) == 0 ? hwmodel_unpack(m->words, m->len) : NULL;
			if (hw) {
				if (err)
					*err = 0;
				return hw;
			}
		}
		char file[160];
		snprintf(file, sizeof file, "hardware/%s.yaml", name_or_path);
		struct ydoc *d = ydoc_load_string(file, text, strlen(text), err);
		return d ? load_doc(d, file, err, true, &chain) : NULL;
	}
	struct ydoc *d = ydoc_load_file(name_or_path, err);
	return d ? load_doc(d, name_or_path, err, true, &chain) : NULL;
}

