/* hwwrite_gpu: the gpu section: rates, memory-bound model, GEMM model and tables, power, attention (see hwwrite.h). */
#include <stdio.h>

#include "hardware/hwwrite_internal.h"

static void write_attn(FILE *f, const char *key, const struct hw_attn *a)
{
	if (!a->present)
		return;
	fprintf(f, "    %s:\n", key);
	hww_kv_str(f, 6, "impl", a->impl);
	if (a->burst)
		hww_kv_str(f, 6, "rates", "burst");
	if (a->max_clock)
		hww_kv_str(f, 6, "clock", "max");
	if (a->power > 0) {
		hww_kv_num(f, 6, "power", a->power);
		if (a->clock_exponent > 0)
			hww_kv_num(f, 6, "clock_exponent", a->clock_exponent);
		if (a->clock_exponent > 0 && a->clock_anchor > 0)
			hww_kv_num(f, 6, "clock_anchor", a->clock_anchor);
	}
	if (a->fwd_eff > 0)
		hww_kv_num(f, 6, "fwd_eff", a->fwd_eff);
	if (a->bwd_eff > 0)
		hww_kv_num(f, 6, "bwd_eff", a->bwd_eff);
	if (a->nrows > 0) {
		fputs("      rows:\n", f);
		for (int i = 0; i < a->nrows; i++) {
			const struct attn_row *r = &a->row[i];
			fputs("        - {seq: ", f);
			hww_num(f, r->seq);
			fprintf(f, ", head_dim: %d, causal: %s", r->head_dim, r->causal ? "true" : "false");
			if (r->bh > 0) {
				fputs(", bh: ", f);
				hww_num(f, r->bh);
			}
			fputs(", fwd_tflops: ", f);
			hww_num(f, r->fwd_tflops);
			fputs(", bwd_tflops: ", f);
			hww_num(f, r->bwd_tflops);
			fputs("}\n", f);
		}
	}
	hww_kv_str(f, 6, "source", a->source);
}

static void write_gemm_model(FILE *f, const struct hw_gpu *g)
{
	fputs("    model:\n", f);
	hww_kv_num(f, 6, "max_eff", g->gemm_max_eff);
	fprintf(f, "      tile_m: %d\n      tile_n: %d\n", g->gemm_tile_m, g->gemm_tile_n);
	hww_kv_num(f, 6, "k_half", g->gemm_k_half);
	bool any_de = g->gemm_fp4_eff > 0;
	for (int dt = 0; dt < DT_COUNT; dt++)
		any_de |= g->gemm_dtype_eff[dt] > 0;
	if (any_de) {
		fputs("      dtype_eff:\n", f);
		for (int dt = 0; dt < DT_COUNT; dt++)
			if (g->gemm_dtype_eff[dt] > 0)
				hww_kv_num(f, 8, dtype_name((enum dtype)dt), g->gemm_dtype_eff[dt]);
		if (g->gemm_fp4_eff > 0)
			hww_kv_num(f, 8, "fp4", g->gemm_fp4_eff);
	}
	hww_kv_own_source(f, 6, g->gemm_model_source, g->source);
}

/* Measured GEMM efficiency on a log2 grid, one table per dtype. */
static void write_gemm_tables(FILE *f, const struct hw_gpu *g)
{
	bool any = false;
	for (int dt = 0; dt < DT_COUNT; dt++)
		any |= g->gemm[dt].present;
	if (!any)
		return;
	fputs("    tables:\n", f);
	for (int dt = 0; dt < DT_COUNT; dt++) {
		const struct gemm_table *t = &g->gemm[dt];
		if (!t->present)
			continue;
		fprintf(f, "      - dtype: %s\n", dtype_name((enum dtype)dt));
		hww_list_num(f, 8, "m", t->m, t->nm);
		hww_list_num(f, 8, "n", t->n, t->nn);
		hww_list_num(f, 8, "k", t->k, t->nk);
		hww_list_num(f, 8, "eff", t->eff, (long long)t->nm * t->nn * t->nk);
		hww_kv_str(f, 8, "source", t->source);
	}
}

static void write_power(FILE *f, const struct hw_gpu *g)
{
	fputs("  power:\n", f);
	hww_kv_num(f, 4, "burst_speedup", g->burst_speedup);
	hww_kv_num(f, 4, "exponent", g->power_exponent);
	hww_kv_num(f, 4, "memory_bound", g->power_mem_frac);
	hww_kv_num(f, 4, "comm", g->power_comm_frac);
	hww_kv_num(f, 4, "idle", g->power_idle_frac);
	if (g->ngpu_rates > 0)
		hww_list_num(f, 4, "gpu_rates", g->gpu_rates, g->ngpu_rates);
	if (g->power_window_ms > 0)
		hww_kv_num(f, 4, "window_ms", g->power_window_ms);
	hww_kv_own_source(f, 4, g->power_source, g->source);
}

static void write_kernels(FILE *f, const struct hw_gpu *g)
{
	if (!g->kern.present)
		return;
	fputs("  kernels:\n", f);
	hww_kv_num(f, 4, "gap_us", g->kern.gap_us);
	if (g->kern.gemm_extra_kernels > 0) {
		fputs("    gemm_extra: {kernels: ", f);
		hww_num(f, g->kern.gemm_extra_kernels);
		fputs(", us: ", f);
		hww_num(f, g->kern.gemm_extra_us);
		fputs("}\n", f);
	}
	for (int k = 0; k < KF_N; k++)
		if (g->kern.fam[k].gbps > 0) {
			fprintf(f, "    %s: {gbps: ", hw_kern_family_names[k]);
			hww_num(f, g->kern.fam[k].gbps);
			fputs(", latency_us: ", f);
			hww_num(f, g->kern.fam[k].latency_us);
			for (int l = 0; l < 2 && g->kern.fam[k].npoints > 0; l++) {
				const double *v = l ? g->kern.fam[k].us : g->kern.fam[k].bytes;
				fputs(l ? ", us: [" : ", bytes: [", f);
				for (int i = 0; i < g->kern.fam[k].npoints; i++) {
					fputs(i ? ", " : "", f);
					hww_num(f, v[i]);
				}
				fputs("]", f);
			}
			fputs("}\n", f);
		}
	hww_kv_own_source(f, 4, g->kern.source, g->source);
}

void hwwrite_gpu(FILE *f, const struct hw_gpu *g, unsigned parts)
{
	fputs("gpu:\n", f);
	hww_kv_str(f, 2, "name", g->name);
	fprintf(f, "  sm_count: %d\n", g->sm_count);
	hww_kv_num(f, 2, "memory_bytes", g->memory_bytes);
	hww_kv_num(f, 2, "hbm_gbps", g->hbm_gbps);
	fputs("  peak_tflops:\n", f);
	for (int dt = 0; dt < DT_COUNT; dt++)
		if (g->peak_tflops[dt] > 0)
			hww_kv_num(f, 4, dtype_name((enum dtype)dt), g->peak_tflops[dt]);
	if (g->peak_fp4_tflops > 0)
		hww_kv_num(f, 4, "fp4", g->peak_fp4_tflops);
	hww_kv_num(f, 2, "launch_us", g->launch_us);
	if (parts & HWW_WORKSPACE)
		hww_kv_num(f, 2, "workspace_bytes", g->workspace_bytes);
	fputs("  memory_bound:\n", f);
	hww_kv_num(f, 4, "eff", g->mem_eff);
	hww_kv_num(f, 4, "half_bytes", g->mem_half_bytes);
	hww_kv_own_source(f, 4, g->mem_source, g->source);
	fputs("  gemm:\n", f);
	if (g->gemm_burst)
		hww_kv_str(f, 4, "rates", "burst");
	write_gemm_model(f, g);
	write_gemm_tables(f, g);
	if (parts & HWW_POWER)
		write_power(f, g);
	if (g->attn[ATTN_FUSED].present || g->attn[ATTN_UNFUSED].present || g->attn[ATTN_CUDNN].present) {
		fputs("  attention:\n", f);
		write_attn(f, "fused", &g->attn[ATTN_FUSED]);
		write_attn(f, "unfused", &g->attn[ATTN_UNFUSED]);
		write_attn(f, "cudnn", &g->attn[ATTN_CUDNN]);
	}
	write_kernels(f, g);
	hww_kv_str(f, 2, "source", g->source);
}
