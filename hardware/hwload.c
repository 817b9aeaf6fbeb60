/* hwload: reads a gpusim-hw/1 YAML tree (docs/hardware-model.md) into struct hwmodel, with the same error
 * quality as scenarios: unknown keys with did-you-mean, missing keys at their map, bad values at their place.
 *
 * Invariant: hwload_parse fills every field (a default where the schema has one) and gives every part a
 * provenance string, the nearest `source:` up the tree or the file's own; it returns 0 only when the document
 * raised no error, so a model that reaches the simulator has positive peaks, consistent tables with increasing
 * axes and efficiencies in (0, 1.5]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hardware/hwmodel_internal.h"
#include "util/gserr.h"
#include "util/xalloc.h"
#include "util/ydoc.h"

#define EFF_MAX 1.5

/* The physical range of every number a hardware model holds (docs/hardware-model.md, "Ranges"; keys with a
 * narrower rule of their own, such as gemm max_eff or the power fractions, check it after this): a typo or a
 * hostile file (launch_us: 1e308) is an error at its place, not a 1e305 ms step. */
static const struct yrange ranges[] = {
	{ "gpu.sm_count", 1, 1e4 },
	{ "gpu.memory_bytes", 1e6, 1e14 },
	{ "gpu.hbm_gbps", 1e-3, 1e6 },
	{ "gpu.peak_tflops.*", 1e-3, 1e5 },
	{ "gpu.launch_us", 0, 1e5 },
	{ "gpu.workspace_bytes", 0, 1e12 },
	{ "gpu.memory_bound.eff", 1e-3, 1 },
	{ "gpu.memory_bound.half_bytes", 0, 1e12 },
	{ "gpu.gemm.model.max_eff", 0, 10 },
	{ "gpu.gemm.model.tile_m", 1, 1e5 },
	{ "gpu.gemm.model.tile_n", 1, 1e5 },
	{ "gpu.gemm.model.k_half", 0, 1e9 },
	{ "gpu.gemm.tables[].m[]", 1, 1e8 },
	{ "gpu.gemm.tables[].n[]", 1, 1e8 },
	{ "gpu.gemm.tables[].k[]", 1, 1e8 },
	{ "gpu.gemm.tables[].eff[]", 1e-6, 2 },
	{ "gpu.attention.fwd_eff", 1e-3, 2 },
	{ "gpu.attention.bwd_eff", 1e-3, 2 },
	{ "gpu.attention.*.fwd_eff", 1e-3, 2 },
	{ "gpu.attention.*.bwd_eff", 1e-3, 2 },
	{ "gpu.attention.*.rows[].seq", 1, 1e8 },
	{ "gpu.attention.*.rows[].head_dim", 1, 1e5 },
	{ "gpu.attention.*.rows[].fwd_tflops", 1e-3, 1e5 },
	{ "gpu.attention.*.rows[].bwd_tflops", 1e-3, 1e5 },
	{ "gpu.power.burst_speedup", 0, 10 },
	{ "gpu.power.exponent", 0, 10 },
	{ "gpu.power.*", 0, 10 },
	{ "node.gpus", 1, 1e6 },
	{ "node.link_gbps", 1e-3, 1e7 },
	{ "node.host_gbps", 1e-3, 1e7 },
	{ "node.host_memory_bytes", 1e6, 1e16 },
	{ "network.nics", 0, 1e4 },
	{ "network.nic_gbps", 1e-3, 1e7 },
	{ "network.latency_us", 0, 1e7 },
	{ "network.oversubscription", 1e-3, 1e3 },
	{ "collectives.*.*.lines[].n", 0, 1e7 },
	{ "collectives.*.*.lines[].alpha_us", 0, 1e9 },
	{ "collectives.*.*.lines[].step_us", 0, 1e9 },
	{ "collectives.*.*.lines[].bus_gbps", 1e-3, 1e7 },
	{ "collectives.*.*.lines[].max_bytes", 0, 1e16 },
	{ "collectives.*.*.tables[].n", 0, 1e7 },
	{ "collectives.*.*.tables[].bytes[]", 0, 1e16 },
	{ "collectives.*.*.tables[].time_us[]", 0, 1e12 },
	{ "overlap.*", 0, 100 },
	{ "cost.usd_per_gpu_hour", 0, 1e4 },
	{ "host.*.*", 0, 1e7 },
	{ NULL, 0, 0 },
};

static const char *const top_keys[] = { "schema", "name", "description", "source", "meta", "base", "gpu", "node",
					"network", "collectives", "overlap", "cost", "host", NULL };
static const char *const gpu_keys[] = { "name", "sm_count", "memory_bytes", "hbm_gbps", "peak_tflops", "launch_us",
					"memory_bound", "gemm", "attention", "power", "workspace_bytes", "source",
					NULL };
static const char *const power_keys[] = { "burst_speedup", "exponent", "memory_bound", "comm", "idle", "source",
					  NULL };
static const char *const membound_keys[] = { "eff", "half_bytes", "source", NULL };
static const char *const gemm_keys[] = { "model", "tables", "rates", "source", NULL };
static const char *const gemm_model_keys[] = { "max_eff", "dtype_eff", "tile_m", "tile_n", "k_half", "source",
						NULL };
static const char *const gemm_table_keys[] = { "dtype", "m", "n", "k", "eff", "source", NULL };
static const char *const attn_keys[] = { "fwd_eff", "bwd_eff", "impl", "source", "fused", "unfused", NULL };
static const char *const attn_entry_keys[] = { "impl", "fwd_eff", "bwd_eff", "rows", "rates", "source", NULL };
static const char *const attn_row_keys[] = { "seq", "head_dim", "causal", "fwd_tflops", "bwd_tflops", NULL };
static const char *const node_keys[] = { "gpus", "fabric", "link_gbps", "host_gbps", "host_memory_bytes", "source",
					 NULL };
static const char *const net_keys[] = { "nics", "nic_gbps", "latency_us", "oversubscription", "source", NULL };
static const char *const scope_keys[] = { "all_reduce", "all_gather", "reduce_scatter", "broadcast", "send_recv",
					  "all_to_all", "source", NULL };
static const char *const op_keys[] = { "lines", "tables", "source", NULL };
static const char *const line_keys[] = { "algo", "n", "alpha_us", "step_us", "bus_gbps", "max_bytes", NULL };
static const char *const table_keys[] = { "n", "bytes", "time_us", NULL };
static const char *const overlap_keys[] = { "compute_slowdown", "comm_slowdown", "source", NULL };
static const char *const cost_keys[] = { "usd_per_gpu_hour", "source", NULL };
static const char *const host_keys[] = { "eager", "cuda_graphs", "compiled", "source", NULL };
static const char *const host_cost_keys[] = { "step_us", "op_us", "launch_us", "coll_us", "bucket_us", NULL };
static const char *const fabric_names[] = { "nvswitch", "nvlink", "pcie", NULL };
static const char *const scope_names[] = { "intra", "inter", "source", NULL };

/* dst = map's `source:` (cut to fit), else def. */
static void read_source(struct ydoc *d, const struct ynode *map, char *dst, size_t size, const char *def)
{
	const struct ynode *v = ynode_get(map, "source");
	if (v && ynode_kind(v) != YNODE_SCALAR) {
		char got[32];
		ydoc_error(d, v, "%s: expected a string, got %s", ynode_path(v), ynode_describe(v, got, sizeof got));
	}
	snprintf(dst, size, "%s", v && ynode_str(v) ? ynode_str(v) : def);
}

/* read_source for a section of a file that may have a base: an absent section keeps the base's source. */
static void read_source_over(struct ydoc *d, const struct ynode *map, char *dst, size_t size, const char *def,
			     bool based)
{
	if (!(based && !map))
		read_source(d, map, dst, size, def);
}

/* An efficiency in (0, EFF_MAX]. */
static int read_eff(struct ydoc *d, const struct ynode *map, const char *key, unsigned flags, double *out)
{
	int rc = ydoc_double(d, map, key, flags | YD_POSITIVE, out);
	if (rc == 1 && *out > EFF_MAX)
		return ydoc_error(d, ynode_get(map, key), "%s.%s: must be in (0, %g], got %g", ynode_path(map), key,
				  EFF_MAX, *out);
	return rc;
}

/* A positive, strictly increasing axis. */
static int read_axis(struct ydoc *d, const struct ynode *map, const char *key, double **out, int *n)
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

/* The keys of a per-dtype mapping (peak_tflops, gemm.model.dtype_eff): the dtype names and fp4, the 4-bit
 * tensor format of Blackwell (NVFP4), which is a GEMM rate only, never a tensor dtype of a scenario. */
static void dtype_keys(const char *names[DT_COUNT + 2])
{
	for (int i = 0; i < DT_COUNT; i++)
		names[i] = dtype_name((enum dtype)i);
	names[DT_COUNT] = "fp4";
	names[DT_COUNT + 1] = NULL;
}

static void read_peaks(struct ydoc *d, const struct ynode *map, struct hw_gpu *g, bool based)
{
	const char *names[DT_COUNT + 2];
	int found = 0;
	dtype_keys(names);
	ydoc_check_keys(d, map, names);
	for (int i = 0; i < DT_COUNT; i++)
		found += ydoc_double(d, map, names[i], YD_POSITIVE, &g->peak_tflops[i]) == 1;
	ydoc_double(d, map, "fp4", YD_POSITIVE, &g->peak_fp4_tflops);
	if (map && !found && !based && ydoc_errors(d) == 0)
		ydoc_error(d, map, "gpu.peak_tflops: give the peak of at least one dtype (bf16: ...)");
}

static void read_gemm_table(struct ydoc *d, const struct ynode *t, struct hw_gpu *g, const char *def_source)
{
	const char *names[DT_COUNT + 1];
	for (int i = 0; i < DT_COUNT; i++)
		names[i] = dtype_name((enum dtype)i);
	names[DT_COUNT] = NULL;
	if (ynode_kind(t) != YNODE_MAP) {
		char got[32];
		ydoc_error(d, t, "%s: expected a mapping, got %s", ynode_path(t), ynode_describe(t, got, sizeof got));
		return;
	}
	ydoc_check_keys(d, t, gemm_table_keys);
	int dt;
	if (ydoc_enum(d, t, "dtype", YD_REQUIRED, names, &dt) != 1)
		return;
	struct gemm_table *gt = &g->gemm[dt];
	if (gt->present) {
		ydoc_error(d, ynode_get(t, "dtype"), "%s.dtype: a second table for %s", ynode_path(t), names[dt]);
		return;
	}
	gt->present = true;
	read_source(d, t, gt->source, sizeof gt->source, def_source);
	int ne = 0;
	if (read_axis(d, t, "m", &gt->m, &gt->nm) != 1 || read_axis(d, t, "n", &gt->n, &gt->nn) != 1 ||
	    read_axis(d, t, "k", &gt->k, &gt->nk) != 1 ||
	    ydoc_doubles(d, t, "eff", YD_REQUIRED | YD_POSITIVE, &gt->eff, &ne) != 1)
		return;
	const struct ynode *effs = ynode_get(t, "eff");
	long long cells = (long long)gt->nm * gt->nn * gt->nk;  /* 64-bit: three long axes overflow an int */
	if (ne != cells) {
		ydoc_error(d, effs, "%s: has %d values, expected len(m)*len(n)*len(k) = %d*%d*%d = %lld",
			   ynode_path(effs), ne, gt->nm, gt->nn, gt->nk, cells);
		return;
	}
	for (int i = 0; i < ne; i++)
		if (gt->eff[i] > EFF_MAX) {
			ydoc_error(d, ynode_item(effs, i), "%s[%d]: must be in (0, %g], got %g", ynode_path(effs), i,
				   EFF_MAX, gt->eff[i]);
			return;
		}
}

/* One attention path: impl, and measured rows or the fractions of peak (one of them required). */
static void read_attn_entry(struct ydoc *d, const struct ynode *e, struct hw_attn *a, const char *def_impl,
			    const char *def_src)
{
	const struct ynode *rows = NULL;
	bool inherited = a->present;  /* the base's entry: keys given here override it, rows given replace its rows */
	ydoc_check_keys(d, e, attn_entry_keys);
	a->present = true;
	if (!inherited)
		snprintf(a->impl, sizeof a->impl, "%s", def_impl);
	ydoc_string(d, e, "impl", 0, a->impl, sizeof a->impl);
	read_source(d, e, a->source, sizeof a->source, def_src);
	static const char *const rates[] = { "sustained", "burst", NULL };
	int kind = a->burst;
	ydoc_enum(d, e, "rates", 0, rates, &kind);
	a->burst = kind == 1;
	int have_rows = ydoc_seq(d, e, "rows", 0, &rows) == 1 && ynode_len(rows) > 0;
	unsigned req = have_rows || (inherited && (a->nrows > 0 || a->fwd_eff > 0)) ? 0 : YD_REQUIRED;
	read_eff(d, e, "fwd_eff", req, &a->fwd_eff);
	read_eff(d, e, "bwd_eff", req, &a->bwd_eff);
	if (!have_rows)
		return;
	a->nrows = 0;
	if (ynode_len(rows) > HW_ATTN_ROWS) {
		ydoc_error(d, rows, "%s: at most %d rows, got %d", ynode_path(rows), HW_ATTN_ROWS, ynode_len(rows));
		return;
	}
	for (int i = 0; i < ynode_len(rows); i++) {
		const struct ynode *r = ynode_item(rows, i);
		struct attn_row *ar = &a->row[a->nrows++];
		if (ynode_kind(r) != YNODE_MAP) {
			char got[32];
			ydoc_error(d, r, "%s: expected a mapping, got %s", ynode_path(r), ynode_describe(r, got, sizeof got));
			continue;
		}
		ydoc_check_keys(d, r, attn_row_keys);
		ydoc_double(d, r, "seq", YD_REQUIRED | YD_POSITIVE, &ar->seq);
		ydoc_int(d, r, "head_dim", YD_REQUIRED | YD_POSITIVE, &ar->head_dim);
		ar->causal = false;
		ydoc_bool(d, r, "causal", 0, &ar->causal);
		ydoc_double(d, r, "fwd_tflops", YD_REQUIRED | YD_POSITIVE, &ar->fwd_tflops);
		ydoc_double(d, r, "bwd_tflops", YD_REQUIRED | YD_POSITIVE, &ar->bwd_tflops);
		for (int j = 0; j + 1 < a->nrows; j++)
			if (a->row[j].head_dim == ar->head_dim && a->row[j].causal == ar->causal && a->row[j].seq == ar->seq)
				ydoc_error(d, r, "%s: a second row for seq %g, head_dim %d, causal %s", ynode_path(r), ar->seq,
					   ar->head_dim, ar->causal ? "true" : "false");
	}
}

/* gpu.attention: the entries `fused` and `unfused`; the older flat form (fwd_eff, bwd_eff, impl) is the entry of
 * the path its impl names (an impl containing "unfused" is the unfused one). A missing fused entry is taken from
 * the built-in preset of the same GPU after loading (hwmodel.c). */
static void read_attention(struct ydoc *d, const struct ynode *attn, struct hw_gpu *g)
{
	const struct ynode *fused = NULL, *unfused = NULL;
	char src[160];
	ydoc_check_keys(d, attn, attn_keys);
	read_source(d, attn, src, sizeof src, g->source);
	if (ydoc_map(d, attn, "fused", 0, &fused) == 1)
		read_attn_entry(d, fused, &g->attn[ATTN_FUSED], "flash", src);
	if (ydoc_map(d, attn, "unfused", 0, &unfused) == 1)
		read_attn_entry(d, unfused, &g->attn[ATTN_UNFUSED], "cublas_unfused", src);
	const struct ynode *flat = ynode_get(attn, "fwd_eff") ? ynode_get(attn, "fwd_eff") : ynode_get(attn, "impl");
	if (flat || (!fused && !unfused)) {
		char impl[32] = "flash";
		ydoc_string(d, attn, "impl", 0, impl, sizeof impl);
		enum attn_path p = strstr(impl, "unfused") ? ATTN_UNFUSED : ATTN_FUSED;
		if (g->attn[p].present && (fused || unfused)) {
			ydoc_error(d, flat, "%s: the %s entry is given twice (flat keys and attention.%s)",
				   ynode_path(attn), p == ATTN_FUSED ? "fused" : "unfused",
				   p == ATTN_FUSED ? "fused" : "unfused");
			return;
		}
		struct hw_attn *a = &g->attn[p];
		unsigned req = a->present ? 0 : YD_REQUIRED;  /* a base's entry: the flat keys override it */
		if (!a->present || ynode_get(attn, "fwd_eff"))
			a->nrows = 0;  /* flat fractions given: they replace a base's measured rows */
		a->present = true;
		snprintf(a->impl, sizeof a->impl, "%s", impl);
		snprintf(a->source, sizeof a->source, "%s", src);
		read_eff(d, attn, "fwd_eff", req, &a->fwd_eff);
		read_eff(d, attn, "bwd_eff", req, &a->bwd_eff);
	}
}

/* A phase's power as a fraction of the cap, in [0, 1). */
static void read_power_frac(struct ydoc *d, const struct ynode *power, const char *key, double *out)
{
	if (ydoc_double(d, power, key, YD_NONNEG, out) == 1 && *out >= 1)
		ydoc_error(d, ynode_get(power, key), "gpu.power.%s: must be in [0, 1), got %g", key, *out);
}

/* based: g holds the base's GPU; every key is optional and overrides it (gemm.tables replaces all its tables). */
static void read_gpu(struct ydoc *d, const struct ynode *gpu, struct hw_gpu *g, const char *file_source, bool based)
{
	unsigned req = based ? 0 : YD_REQUIRED;
	const struct ynode *peaks = NULL, *mb = NULL, *gemm = NULL, *model = NULL, *tables = NULL, *attn = NULL;
	ydoc_check_keys(d, gpu, gpu_keys);
	read_source_over(d, gpu, g->source, sizeof g->source, file_source, based);
	ydoc_string(d, gpu, "name", req, g->name, sizeof g->name);
	ydoc_int(d, gpu, "sm_count", req | YD_POSITIVE, &g->sm_count);
	ydoc_double(d, gpu, "memory_bytes", req | YD_POSITIVE, &g->memory_bytes);
	ydoc_double(d, gpu, "hbm_gbps", req | YD_POSITIVE, &g->hbm_gbps);
	if (ydoc_map(d, gpu, "peak_tflops", req, &peaks) == 1)
		read_peaks(d, peaks, g, based);
	ydoc_double(d, gpu, "launch_us", req | YD_NONNEG, &g->launch_us);
	ydoc_double(d, gpu, "workspace_bytes", YD_NONNEG, &g->workspace_bytes);

	ydoc_map(d, gpu, "memory_bound", req, &mb);
	ydoc_check_keys(d, mb, membound_keys);
	read_source_over(d, mb, g->mem_source, sizeof g->mem_source, g->source, based);
	read_eff(d, mb, "eff", req, &g->mem_eff);
	ydoc_double(d, mb, "half_bytes", YD_NONNEG, &g->mem_half_bytes);

	ydoc_map(d, gpu, "gemm", req, &gemm);
	ydoc_check_keys(d, gemm, gemm_keys);
	static const char *const rates[] = { "sustained", "burst", NULL };
	int kind = g->gemm_burst;
	ydoc_enum(d, gemm, "rates", 0, rates, &kind);
	g->gemm_burst = kind == 1;
	ydoc_map(d, gemm, "model", req, &model);
	ydoc_check_keys(d, model, gemm_model_keys);
	read_source_over(d, model, g->gemm_model_source, sizeof g->gemm_model_source, g->source, based);
	read_eff(d, model, "max_eff", req, &g->gemm_max_eff);
	const struct ynode *de = NULL;
	if (ydoc_map(d, model, "dtype_eff", 0, &de) == 1) {
		const char *names[DT_COUNT + 2];
		dtype_keys(names);
		ydoc_check_keys(d, de, names);
		for (int i = 0; i < DT_COUNT; i++)
			read_eff(d, de, names[i], 0, &g->gemm_dtype_eff[i]);
		read_eff(d, de, "fp4", 0, &g->gemm_fp4_eff);
	}
	ydoc_int(d, model, "tile_m", req | YD_POSITIVE, &g->gemm_tile_m);
	ydoc_int(d, model, "tile_n", req | YD_POSITIVE, &g->gemm_tile_n);
	ydoc_double(d, model, "k_half", YD_NONNEG, &g->gemm_k_half);
	if (ydoc_seq(d, gemm, "tables", 0, &tables) == 1) {
		char src[128];
		read_source(d, gemm, src, sizeof src, g->source);
		hwmodel_gemm_clear(g);
		for (int i = 0; i < ynode_len(tables); i++)
			read_gemm_table(d, ynode_item(tables, i), g, src);
	}

	const struct ynode *power = NULL;
	if (!based) {
		g->burst_speedup = 1;
		g->power_exponent = 3;
		g->power_mem_frac = 0.6;
		g->power_comm_frac = 0.5;
		g->power_idle_frac = 0.15;
	}
	bool have_power = ydoc_map(d, gpu, "power", 0, &power) == 1;
	if (have_power || !based)
		read_source(d, power, g->power_source, sizeof g->power_source, g->source);
	if (have_power) {
		ydoc_check_keys(d, power, power_keys);
		if (ydoc_double(d, power, "burst_speedup", req | YD_POSITIVE, &g->burst_speedup) == 1 &&
		    g->burst_speedup < 1)
			ydoc_error(d, ynode_get(power, "burst_speedup"), "gpu.power.burst_speedup: must be >= 1, got %g",
				   g->burst_speedup);
		if (ydoc_double(d, power, "exponent", YD_POSITIVE, &g->power_exponent) == 1 && g->power_exponent <= 1)
			ydoc_error(d, ynode_get(power, "exponent"), "gpu.power.exponent: must be > 1, got %g",
				   g->power_exponent);
		read_power_frac(d, power, "memory_bound", &g->power_mem_frac);
		read_power_frac(d, power, "comm", &g->power_comm_frac);
		read_power_frac(d, power, "idle", &g->power_idle_frac);
	}

	if (ydoc_map(d, gpu, "attention", req, &attn) == 1)
		read_attention(d, attn, g);
}

static void read_line(struct ydoc *d, const struct ynode *l, struct coll_line *cl)
{
	if (ynode_kind(l) != YNODE_MAP) {
		char got[32];
		ydoc_error(d, l, "%s: expected a mapping, got %s", ynode_path(l), ynode_describe(l, got, sizeof got));
		return;
	}
	ydoc_check_keys(d, l, line_keys);
	ydoc_string(d, l, "algo", YD_REQUIRED, cl->algo, sizeof cl->algo);
	if (ydoc_int(d, l, "n", YD_NONNEG, &cl->n) == 1 && cl->n == 1)
		ydoc_error(d, ynode_get(l, "n"), "%s.n: must be 0 (any group) or a group size >= 2", ynode_path(l));
	ydoc_double(d, l, "alpha_us", YD_REQUIRED | YD_NONNEG, &cl->alpha_us);
	ydoc_double(d, l, "step_us", YD_NONNEG, &cl->step_us);
	ydoc_double(d, l, "bus_gbps", YD_REQUIRED | YD_POSITIVE, &cl->bus_gbps);
	ydoc_double(d, l, "max_bytes", YD_NONNEG, &cl->max_bytes);
}

static void read_table(struct ydoc *d, const struct ynode *t, struct coll_model *cm, int index)
{
	struct coll_table *ct = &cm->tables[index];
	if (ynode_kind(t) != YNODE_MAP) {
		char got[32];
		ydoc_error(d, t, "%s: expected a mapping, got %s", ynode_path(t), ynode_describe(t, got, sizeof got));
		return;
	}
	ydoc_check_keys(d, t, table_keys);
	if (ydoc_int(d, t, "n", YD_REQUIRED | YD_POSITIVE, &ct->n) == 1) {
		if (ct->n < 2)
			ydoc_error(d, ynode_get(t, "n"), "%s.n: a group has at least 2 ranks", ynode_path(t));
		for (int i = 0; i < index; i++)
			if (cm->tables[i].n == ct->n)
				ydoc_error(d, ynode_get(t, "n"), "%s.n: a second table for groups of %d", ynode_path(t),
					   ct->n);
	}
	int nt = 0;
	if (read_axis(d, t, "bytes", &ct->bytes, &ct->npts) != 1 ||
	    ydoc_doubles(d, t, "time_us", YD_REQUIRED | YD_POSITIVE, &ct->time_us, &nt) != 1)
		return;
	const struct ynode *times = ynode_get(t, "time_us");
	if (nt != ct->npts)
		ydoc_error(d, times, "%s: has %d values, bytes has %d", ynode_path(times), nt, ct->npts);
	else if (ct->npts < 2)
		ydoc_error(d, ynode_get(t, "bytes"), "%s.bytes: a table needs at least 2 sizes", ynode_path(t));
}

static void read_op(struct ydoc *d, const struct ynode *op, struct coll_model *cm, const char *def_source)
{
	const struct ynode *lines = NULL, *tables = NULL;
	hwmodel_coll_clear(cm);  /* a base's lines and tables for this collective are replaced, not merged */
	ydoc_check_keys(d, op, op_keys);
	read_source(d, op, cm->source, sizeof cm->source, def_source);
	if (ydoc_seq(d, op, "lines", 0, &lines) == 1 && ynode_len(lines) > 0) {
		cm->nlines = ynode_len(lines);
		cm->lines = xcalloc((size_t)cm->nlines, sizeof *cm->lines);
		for (int i = 0; i < cm->nlines; i++)
			read_line(d, ynode_item(lines, i), &cm->lines[i]);
	}
	if (ydoc_seq(d, op, "tables", 0, &tables) == 1 && ynode_len(tables) > 0) {
		cm->ntables = ynode_len(tables);
		cm->tables = xcalloc((size_t)cm->ntables, sizeof *cm->tables);
		for (int i = 0; i < cm->ntables; i++)
			read_table(d, ynode_item(tables, i), cm, i);
	}
	if (!cm->nlines && !cm->ntables && op)
		ydoc_error(d, op, "%s: give at least one of lines or tables", ynode_path(op));
}

static void read_collectives(struct ydoc *d, const struct ynode *coll, struct hwmodel *hw, const char *def_source)
{
	char csrc[128];
	ydoc_check_keys(d, coll, scope_names);
	read_source(d, coll, csrc, sizeof csrc, def_source);
	for (int sc = 0; sc < SCOPE_N; sc++) {
		const struct ynode *scope = NULL;
		char ssrc[128];
		if (ydoc_map(d, coll, coll_scope_name((enum coll_scope)sc), 0, &scope) != 1)
			continue;
		ydoc_check_keys(d, scope, scope_keys);
		read_source(d, scope, ssrc, sizeof ssrc, csrc);
		for (int op = 0; op < COLL_NOPS; op++) {
			const struct ynode *opmap = NULL;
			if (ydoc_map(d, scope, coll_op_name((enum coll_op)op), 0, &opmap) == 1)
				read_op(d, opmap, &hw->coll[sc][op], ssrc);
		}
	}
}

/* host: per execution mode, each key a nonnegative time in us; a mode or key left out costs 0. */
static void read_host(struct ydoc *d, const struct ynode *host, struct hw_host *h, const char *def_source)
{
	ydoc_check_keys(d, host, host_keys);
	read_source(d, host, h->source, sizeof h->source, def_source);
	for (int m = 0; m < EXEC_N; m++) {
		const struct ynode *mm = NULL;
		if (ydoc_map(d, host, exec_mode_names[m], 0, &mm) != 1)
			continue;
		ydoc_check_keys(d, mm, host_cost_keys);
		struct hw_host_cost *c = &h->mode[m];
		double *dst[] = { &c->step_us, &c->op_us, &c->launch_us, &c->coll_us, &c->bucket_us };
		for (int i = 0; host_cost_keys[i]; i++)
			ydoc_double(d, mm, host_cost_keys[i], YD_NONNEG, dst[i]);
	}
}

/* The file's head: schema, name, the kinds of base/description/meta, the measuring host (meta.node), the
 * description and the file's own source (into src, the default of every section's). */
static void read_head(struct ydoc *d, const struct ynode *root, struct hwmodel *hw, bool based, char *src,
		      size_t size)
{
	char schema[32], def_src[128], got[64];
	if (ydoc_string(d, root, "schema", YD_REQUIRED, schema, sizeof schema) == 1 &&
	    strcmp(schema, "gpusim-hw/1") != 0)
		ydoc_error(d, ynode_get(root, "schema"), "schema: expected 'gpusim-hw/1', got '%s'", schema);
	ydoc_string(d, root, "name", YD_REQUIRED, hw->name, sizeof hw->name);
	const struct ynode *base = ynode_get(root, "base");
	if (base && (ynode_kind(base) != YNODE_SCALAR || ynode_is_null(base)))
		ydoc_error(d, base, "base: expected a preset name or a file path, got %s",
			   ynode_describe(base, got, sizeof got));
	const struct ynode *desc = ynode_get(root, "description"), *meta = ynode_get(root, "meta");
	if (desc && ynode_kind(desc) != YNODE_SCALAR)
		ydoc_error(d, desc, "description: expected a string, got %s", ynode_describe(desc, got, sizeof got));
	if (meta && ynode_kind(meta) != YNODE_MAP)
		ydoc_error(d, meta, "meta: expected a mapping, got %s", ynode_describe(meta, got, sizeof got));
	const struct ynode *hostnode = ynode_get(meta, "node");  /* calibrate's record of its host */
	if (ynode_kind(hostnode) == YNODE_MAP) {
		int f = FABRIC_NVSWITCH, g = 0;
		if (ydoc_int(d, hostnode, "gpus", YD_POSITIVE, &g) == 1 &&
		    ydoc_enum(d, hostnode, "fabric", YD_REQUIRED, fabric_names, &f) == 1) {
			hw->origin.host_gpus = g;
			hw->origin.host_fabric = (enum fabric)f;
		}
	}
	snprintf(def_src, sizeof def_src, "unspecified: %s gives no source", ydoc_file(d));
	read_source(d, root, src, size, def_src);
	if (!based || ynode_get(root, "source"))
		snprintf(hw->source, sizeof hw->source, "%s", src);
	if (desc && ynode_str(desc))  /* kept whole up to the field's size, like sources */
		snprintf(hw->description, sizeof hw->description, "%s", ynode_str(desc));
}

static void read_node(struct ydoc *d, const struct ynode *root, struct hw_node *nd, bool based, const char *src)
{
	unsigned req = based ? 0 : YD_REQUIRED;
	const struct ynode *node = NULL;
	int fabric = (int)nd->fabric;
	ydoc_map(d, root, "node", req, &node);
	ydoc_check_keys(d, node, node_keys);
	read_source_over(d, node, nd->source, sizeof nd->source, src, based);
	ydoc_int(d, node, "gpus", req | YD_POSITIVE, &nd->gpus);
	ydoc_enum(d, node, "fabric", req, fabric_names, &fabric);
	nd->fabric = (enum fabric)fabric;
	ydoc_double(d, node, "link_gbps", req | YD_POSITIVE, &nd->link_gbps);
	ydoc_double(d, node, "host_gbps", YD_POSITIVE, &nd->host_gbps);
	ydoc_double(d, node, "host_memory_bytes", YD_POSITIVE, &nd->host_memory_bytes);
}

static void read_network(struct ydoc *d, const struct ynode *root, struct hw_net *n, bool based, const char *src)
{
	unsigned req = based ? 0 : YD_REQUIRED;
	const struct ynode *net = NULL;
	ydoc_map(d, root, "network", req, &net);
	ydoc_check_keys(d, net, net_keys);
	read_source_over(d, net, n->source, sizeof n->source, src, based);
	ydoc_int(d, net, "nics", req | YD_POSITIVE, &n->nics);
	ydoc_double(d, net, "nic_gbps", req | YD_POSITIVE, &n->nic_gbps);
	ydoc_double(d, net, "latency_us", req | YD_NONNEG, &n->latency_us);
	if (!based)
		n->oversubscription = 1.0;
	if (ydoc_double(d, net, "oversubscription", YD_POSITIVE, &n->oversubscription) == 1 && n->oversubscription < 1.0)
		ydoc_error(d, ynode_get(net, "oversubscription"), "network.oversubscription: must be >= 1, got %g",
			   n->oversubscription);
}

/* overlap and cost: optional; a section given (or, without a base, left out) takes its source or the file's */
static void read_overlap_cost(struct ydoc *d, const struct ynode *root, struct hwmodel *hw, bool based,
			      const char *src)
{
	const struct ynode *overlap = NULL, *cost = NULL;
	bool have = ydoc_map(d, root, "overlap", 0, &overlap) == 1;
	if (have || !based)
		read_source(d, overlap, hw->overlap_source, sizeof hw->overlap_source, src);
	if (have) {
		ydoc_check_keys(d, overlap, overlap_keys);
		ydoc_double(d, overlap, "compute_slowdown", YD_NONNEG, &hw->overlap_compute_slowdown);
		ydoc_double(d, overlap, "comm_slowdown", YD_NONNEG, &hw->overlap_comm_slowdown);
	}
	have = ydoc_map(d, root, "cost", 0, &cost) == 1;
	if (have || !based)
		read_source(d, cost, hw->cost_source, sizeof hw->cost_source, src);
	if (have) {
		ydoc_check_keys(d, cost, cost_keys);
		ydoc_double(d, cost, "usd_per_gpu_hour", YD_NONNEG, &hw->usd_per_gpu_hour);
	}
}

int hwload_parse(struct ydoc *d, struct hwmodel *hw, bool based)
{
	const struct ynode *root = ydoc_root(d), *gpu = NULL, *coll = NULL, *host = NULL;
	char src[256], got[64];
	ydoc_set_ranges(d, ranges);
	if (ynode_kind(root) != YNODE_MAP)
		return ydoc_error(d, root, "expected a gpusim-hw/1 hardware model (a mapping), got %s",
				  ynode_describe(root, got, sizeof got));
	ydoc_check_keys(d, root, top_keys);
	read_head(d, root, hw, based, src, sizeof src);
	if (ydoc_map(d, root, "gpu", based ? 0 : YD_REQUIRED, &gpu) == 1)
		read_gpu(d, gpu, &hw->gpu, src, based);
	read_node(d, root, &hw->node, based, src);
	read_network(d, root, &hw->net, based, src);
	for (int sc = 0; sc < SCOPE_N && !based; sc++)
		for (int op = 0; op < COLL_NOPS; op++)
			snprintf(hw->coll[sc][op].source, sizeof hw->coll[sc][op].source,
				 "fallback: ring formula from %s", sc == SCOPE_INTRA ? "node.link_gbps" : "network");
	if (ydoc_map(d, root, "collectives", 0, &coll) == 1)
		read_collectives(d, coll, hw, src);
	read_overlap_cost(d, root, hw, based, src);
	if (!based)
		snprintf(hw->host.source, sizeof hw->host.source,
			 "none: no host section, the host keeps ahead of the GPU");
	if (ydoc_map(d, root, "host", 0, &host) == 1)
		read_host(d, host, &hw->host, src);
	return ydoc_errors(d) ? GS_EINVAL : 0;
}
