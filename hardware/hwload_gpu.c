/* hwload_gpu: the gpu section of a gpusim-hw/1 file (docs/hardware-model.md, "gpu"): the rates, the memory-bound
 * model, the GEMM model and tables, power and the attention entries with their rows (hwmodel_internal.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hardware/hwmodel_internal.h"
#include "util/ydoc.h"

static const char *const gpu_keys[] = { "name", "sm_count", "memory_bytes", "hbm_gbps", "peak_tflops", "launch_us",
					"memory_bound", "gemm", "attention", "power", "workspace_bytes", "kernels",
					"source", NULL };
static const char *const power_keys[] = { "burst_speedup", "exponent", "memory_bound", "comm", "idle", "gpu_rates",
					  "window_ms", "source", NULL };
static const char *const membound_keys[] = { "eff", "half_bytes", "source", NULL };
static const char *const kern_fam_keys[] = { "gbps", "latency_us", "bytes", "us", NULL };
static const char *const gemm_keys[] = { "model", "tables", "rates", "source", NULL };
static const char *const gemm_model_keys[] = { "max_eff", "dtype_eff", "tile_m", "tile_n", "k_half", "source",
						NULL };
static const char *const gemm_table_keys[] = { "dtype", "m", "n", "k", "eff", "source", NULL };
static const char *const attn_keys[] = { "fwd_eff", "bwd_eff", "impl", "source", "fused", "unfused", "cudnn",
					 NULL };
static const char *const attn_entry_keys[] = { "impl", "fwd_eff", "bwd_eff", "rows", "rates", "clock",
					       "clock_exponent", "clock_anchor", "power", "source", NULL };
static const char *const attn_row_keys[] = { "seq", "head_dim", "causal", "bh", "fwd_tflops", "bwd_tflops", NULL };

/* A family's measured points: bytes (ascending) and us, of one length (at most HW_KERN_POINTS), or neither. */
static void read_kern_points(struct ydoc *d, const struct ynode *fam, struct hw_kern *k)
{
	double *b = NULL, *u = NULL;
	int nb = 0, nu = 0;
	int hb = ydoc_doubles(d, fam, "bytes", YD_POSITIVE, &b, &nb), hu = ydoc_doubles(d, fam, "us", YD_POSITIVE, &u, &nu);
	if (hb == 1 || hu == 1) {
		bool ok = hb == 1 && hu == 1 && nb == nu && nb <= HW_KERN_POINTS;
		for (int i = 1; ok && i < nb; i++)
			ok = b[i] > b[i - 1];
		if (!ok)
			ydoc_error(d, fam, "%s: bytes and us: lists of one length (at most %d), bytes ascending",
				   ynode_path(fam), HW_KERN_POINTS);
		else {
			k->npoints = nb;
			memcpy(k->bytes, b, nb * sizeof *b);
			memcpy(k->us, u, nb * sizeof *u);
		}
	}
	free(b);
	free(u);
}

/* gpu.kernels, when given: gap_us and one {gbps, latency_us} per family (any subset); a based file's section
 * replaces the base's whole. */
static void read_kernels(struct ydoc *d, const struct ynode *gpu, struct hw_gpu *g)
{
	const struct ynode *kern = NULL;
	if (ydoc_map(d, gpu, "kernels", 0, &kern) != 1)
		return;
	const char *keys[KF_N + 4];
	int nk = 0;
	for (int f = 0; f < KF_N; f++)
		keys[nk++] = hw_kern_family_names[f];
	keys[nk++] = "gap_us";
	keys[nk++] = "gemm_extra";
	keys[nk++] = "source";
	keys[nk] = NULL;
	ydoc_check_keys(d, kern, keys);
	memset(&g->kern, 0, sizeof g->kern);
	g->kern.present = true;
	hwload_source(d, kern, g->kern.source, sizeof g->kern.source, g->source);
	ydoc_double(d, kern, "gap_us", YD_REQUIRED | YD_NONNEG, &g->kern.gap_us);
	const struct ynode *ex = NULL;
	if (ydoc_map(d, kern, "gemm_extra", 0, &ex) == 1) {
		static const char *const ex_keys[] = { "kernels", "us", NULL };
		ydoc_check_keys(d, ex, ex_keys);
		ydoc_double(d, ex, "kernels", YD_REQUIRED | YD_NONNEG, &g->kern.gemm_extra_kernels);
		ydoc_double(d, ex, "us", YD_REQUIRED | YD_NONNEG, &g->kern.gemm_extra_us);
	}
	for (int f = 0; f < KF_N; f++) {
		const struct ynode *fam = NULL;
		if (ydoc_map(d, kern, hw_kern_family_names[f], 0, &fam) != 1)
			continue;
		ydoc_check_keys(d, fam, kern_fam_keys);
		ydoc_double(d, fam, "gbps", YD_REQUIRED | YD_POSITIVE, &g->kern.fam[f].gbps);
		ydoc_double(d, fam, "latency_us", YD_REQUIRED | YD_NONNEG, &g->kern.fam[f].latency_us);
		read_kern_points(d, fam, &g->kern.fam[f]);
	}
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
	hwload_source(d, t, gt->source, sizeof gt->source, def_source);
	int ne = 0;
	if (hwload_axis(d, t, "m", &gt->m, &gt->nm) != 1 || hwload_axis(d, t, "n", &gt->n, &gt->nn) != 1 ||
	    hwload_axis(d, t, "k", &gt->k, &gt->nk) != 1 ||
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
		if (gt->eff[i] > HW_EFF_MAX) {
			ydoc_error(d, ynode_item(effs, i), "%s[%d]: must be in (0, %g], got %g", ynode_path(effs), i,
				   HW_EFF_MAX, gt->eff[i]);
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
	hwload_source(d, e, a->source, sizeof a->source, def_src);
	static const char *const rates[] = { "sustained", "burst", NULL };
	int kind = a->burst;
	ydoc_enum(d, e, "rates", 0, rates, &kind);
	a->burst = kind == 1;
	static const char *const clocks[] = { "scaled", "max", NULL };
	int clock = a->max_clock;
	ydoc_enum(d, e, "clock", 0, clocks, &clock);
	a->max_clock = clock == 1;
	ydoc_double(d, e, "power", YD_POSITIVE, &a->power);
	ydoc_double(d, e, "clock_exponent", 0, &a->clock_exponent);
	if (a->power > 0 && (!a->max_clock || a->power > 1.5))
		ydoc_error(d, e, "%s: power (%g, a fraction of the power limit) needs clock: max and at most 1.5",
			   ynode_path(e), a->power);
	if (a->clock_exponent != 0 && (!(a->power > 0) || !(a->clock_exponent > 0) || a->clock_exponent > 2))
		ydoc_error(d, e, "%s: clock_exponent (%g) needs power and lies in (0, 2]", ynode_path(e),
			   a->clock_exponent);
	ydoc_double(d, e, "clock_anchor", 0, &a->clock_anchor);
	if (a->clock_anchor != 0 && (!(a->clock_exponent > 0) || !(a->clock_anchor >= 1) || a->clock_anchor > 4))
		ydoc_error(d, e, "%s: clock_anchor (%g, the GEMMs' speed at which the kernel runs at its maximum-clock "
			   "rate) needs clock_exponent and lies in [1, 4]", ynode_path(e), a->clock_anchor);
	int have_rows = ydoc_seq(d, e, "rows", 0, &rows) == 1 && ynode_len(rows) > 0;
	unsigned req = have_rows || (inherited && (a->nrows > 0 || a->fwd_eff > 0)) ? 0 : YD_REQUIRED;
	hwload_eff(d, e, "fwd_eff", req, &a->fwd_eff);
	hwload_eff(d, e, "bwd_eff", req, &a->bwd_eff);
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
		ar->bh = 0;
		ydoc_double(d, r, "bh", YD_POSITIVE, &ar->bh);
		ydoc_double(d, r, "fwd_tflops", YD_REQUIRED | YD_POSITIVE, &ar->fwd_tflops);
		ydoc_double(d, r, "bwd_tflops", YD_REQUIRED | YD_POSITIVE, &ar->bwd_tflops);
		for (int j = 0; j + 1 < a->nrows; j++)
			if (a->row[j].head_dim == ar->head_dim && a->row[j].causal == ar->causal && a->row[j].seq == ar->seq &&
			    a->row[j].bh == ar->bh)
				ydoc_error(d, r, "%s: a second row for seq %g, head_dim %d, causal %s%s", ynode_path(r),
					   ar->seq, ar->head_dim, ar->causal ? "true" : "false", ar->bh > 0 ? " at that bh" : "");
	}
}

/* gpu.attention: the entries `fused` and `unfused`; the older flat form (fwd_eff, bwd_eff, impl) is the entry of
 * the path its impl names (an impl containing "unfused" is the unfused one). A missing fused entry is taken from
 * the built-in preset of the same GPU after loading (hwmodel.c). */
static void read_attention(struct ydoc *d, const struct ynode *attn, struct hw_gpu *g)
{
	const struct ynode *fused = NULL, *unfused = NULL, *cudnn = NULL;
	char src[160];
	ydoc_check_keys(d, attn, attn_keys);
	hwload_source(d, attn, src, sizeof src, g->source);
	if (ydoc_map(d, attn, "fused", 0, &fused) == 1)
		read_attn_entry(d, fused, &g->attn[ATTN_FUSED], "flash", src);
	if (ydoc_map(d, attn, "unfused", 0, &unfused) == 1)
		read_attn_entry(d, unfused, &g->attn[ATTN_UNFUSED], "cublas_unfused", src);
	if (ydoc_map(d, attn, "cudnn", 0, &cudnn) == 1)
		read_attn_entry(d, cudnn, &g->attn[ATTN_CUDNN], "cudnn", src);
	const struct ynode *flat = ynode_get(attn, "fwd_eff") ? ynode_get(attn, "fwd_eff") : ynode_get(attn, "impl");
	if (flat || (!fused && !unfused && !cudnn)) {
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
		hwload_eff(d, attn, "fwd_eff", req, &a->fwd_eff);
		hwload_eff(d, attn, "bwd_eff", req, &a->bwd_eff);
	}
}

/* A phase's power as a fraction of the cap, in [0, 1). */
static void read_power_frac(struct ydoc *d, const struct ynode *power, const char *key, double *out)
{
	if (ydoc_double(d, power, key, YD_NONNEG, out) == 1 && *out >= 1)
		ydoc_error(d, ynode_get(power, key), "gpu.power.%s: must be in [0, 1), got %g", key, *out);
}

/* power.gpu_rates: one number per GPU of the measured host, each in (0, 2] (a GPU's sustained rate held with the
 * others over the calibrated GPU's held alone), at most HW_MAX_GPU_RATES. A file that gives power without them
 * keeps the base's (none where there is no base). */
static void read_gpu_rates(struct ydoc *d, const struct ynode *power, struct hw_gpu *g)
{
	double *v = NULL;
	int n = 0;
	if (ydoc_doubles(d, power, "gpu_rates", YD_POSITIVE, &v, &n) != 1)
		return;
	if (n < 1 || n > HW_MAX_GPU_RATES)
		ydoc_error(d, ynode_get(power, "gpu_rates"), "gpu.power.gpu_rates: 1 to %d numbers (one per GPU of the "
			   "measured host), got %d", HW_MAX_GPU_RATES, n);
	else {
		g->ngpu_rates = n;
		for (int i = 0; i < n; i++) {
			if (v[i] > 2)
				ydoc_error(d, ynode_get(power, "gpu_rates"), "gpu.power.gpu_rates: GPU %d's rate %g is not in "
					   "(0, 2] (a fraction of the calibrated GPU's)", i, v[i]);
			g->gpu_rates[i] = v[i];
		}
	}
	free(v);
}

/* gpu.power: the power cap's model (the loader's defaults for a file of its own, the base's where it has one). */
static void read_power(struct ydoc *d, const struct ynode *gpu, struct hw_gpu *g, bool based, unsigned req)
{
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
		hwload_source(d, power, g->power_source, sizeof g->power_source, g->source);
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
		read_gpu_rates(d, power, g);
		ydoc_double(d, power, "window_ms", YD_POSITIVE, &g->power_window_ms);
	}
}

/* based: g holds the base's GPU; every key is optional and overrides it (gemm.tables replaces all its tables). */
void hwload_gpu(struct ydoc *d, const struct ynode *gpu, struct hw_gpu *g, const char *file_source, bool based)
{
	unsigned req = based ? 0 : YD_REQUIRED;
	const struct ynode *peaks = NULL, *mb = NULL, *gemm = NULL, *model = NULL, *tables = NULL, *attn = NULL;
	ydoc_check_keys(d, gpu, gpu_keys);
	hwload_source_over(d, gpu, g->source, sizeof g->source, file_source, based);
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
	hwload_source_over(d, mb, g->mem_source, sizeof g->mem_source, g->source, based);
	hwload_eff(d, mb, "eff", req, &g->mem_eff);
	ydoc_double(d, mb, "half_bytes", YD_NONNEG, &g->mem_half_bytes);

	ydoc_map(d, gpu, "gemm", req, &gemm);
	ydoc_check_keys(d, gemm, gemm_keys);
	static const char *const rates[] = { "sustained", "burst", NULL };
	int kind = g->gemm_burst;
	ydoc_enum(d, gemm, "rates", 0, rates, &kind);
	g->gemm_burst = kind == 1;
	ydoc_map(d, gemm, "model", req, &model);
	ydoc_check_keys(d, model, gemm_model_keys);
	hwload_source_over(d, model, g->gemm_model_source, sizeof g->gemm_model_source, g->source, based);
	hwload_eff(d, model, "max_eff", req, &g->gemm_max_eff);
	const struct ynode *de = NULL;
	if (ydoc_map(d, model, "dtype_eff", 0, &de) == 1) {
		const char *names[DT_COUNT + 2];
		dtype_keys(names);
		ydoc_check_keys(d, de, names);
		for (int i = 0; i < DT_COUNT; i++)
			hwload_eff(d, de, names[i], 0, &g->gemm_dtype_eff[i]);
		hwload_eff(d, de, "fp4", 0, &g->gemm_fp4_eff);
	}
	ydoc_int(d, model, "tile_m", req | YD_POSITIVE, &g->gemm_tile_m);
	ydoc_int(d, model, "tile_n", req | YD_POSITIVE, &g->gemm_tile_n);
	ydoc_double(d, model, "k_half", YD_NONNEG, &g->gemm_k_half);
	if (ydoc_seq(d, gemm, "tables", 0, &tables) == 1) {
		char src[128];
		hwload_source(d, gemm, src, sizeof src, g->source);
		hwmodel_gemm_clear(g);
		for (int i = 0; i < ynode_len(tables); i++)
			read_gemm_table(d, ynode_item(tables, i), g, src);
	}

	read_power(d, gpu, g, based, req);

	if (ydoc_map(d, gpu, "attention", req, &attn) == 1)
		read_attention(d, attn, g);
	read_kernels(d, gpu, g);
}
