/* hwwrite: a loaded model written back as one complete gpusim-hw/1 file (docs/hardware-model.md), every section
 * with its provenance as `source:` and every number with 17 significant digits, so that writing a model and
 * loading the text gives the same numbers (`gpusim presets show FILE` of a file with `base:` prints the merged
 * model this way; tests/test_hwmodel.c checks the round trip). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hardware/hwmodel.h"

static const char *const fabric_names[] = { "nvswitch", "nvlink", "pcie" };

/* s as a YAML double-quoted scalar: backslash and quote escaped, control characters as spaces. */
static void put_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fputc('\\', f);
		fputc(c < 0x20 || c == 0x7f ? ' ' : c, f);
	}
	fputc('"', f);
}

/* v with the fewest significant digits (15 to 17) that read back as the same double. */
static void put_num(FILE *f, double v)
{
	char buf[40];
	for (int p = 15; p <= 17; p++) {
		snprintf(buf, sizeof buf, "%.*g", p, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	fputs(buf, f);
}

static void kv_num(FILE *f, int indent, const char *key, double v)
{
	fprintf(f, "%*s%s: ", indent, "", key);
	put_num(f, v);
	fputc('\n', f);
}

static void kv_str(FILE *f, int indent, const char *key, const char *v)
{
	fprintf(f, "%*s%s: ", indent, "", key);
	put_str(f, v);
	fputc('\n', f);
}

static void list_num(FILE *f, int indent, const char *key, const double *v, long long n)
{
	fprintf(f, "%*s%s: [", indent, "", key);
	for (long long i = 0; i < n; i++)
	{
		fputs(i ? ", " : "", f);
		put_num(f, v[i]);
	}
	fputs("]\n", f);
}

static void write_attn(FILE *f, const char *key, const struct hw_attn *a)
{
	if (!a->present)
		return;
	fprintf(f, "    %s:\n", key);
	kv_str(f, 6, "impl", a->impl);
	if (a->burst)
		kv_str(f, 6, "rates", "burst");
	if (a->max_clock)
		kv_str(f, 6, "clock", "max");
	if (a->fwd_eff > 0)
		kv_num(f, 6, "fwd_eff", a->fwd_eff);
	if (a->bwd_eff > 0)
		kv_num(f, 6, "bwd_eff", a->bwd_eff);
	if (a->nrows > 0) {
		fputs("      rows:\n", f);
		for (int i = 0; i < a->nrows; i++) {
			const struct attn_row *r = &a->row[i];
			fputs("        - {seq: ", f);
			put_num(f, r->seq);
			fprintf(f, ", head_dim: %d, causal: %s, fwd_tflops: ", r->head_dim, r->causal ? "true" : "false");
			put_num(f, r->fwd_tflops);
			fputs(", bwd_tflops: ", f);
			put_num(f, r->bwd_tflops);
			fputs("}\n", f);
		}
	}
	kv_str(f, 6, "source", a->source);
}

static void write_gpu(FILE *f, const struct hw_gpu *g)
{
	fputs("gpu:\n", f);
	kv_str(f, 2, "name", g->name);
	fprintf(f, "  sm_count: %d\n", g->sm_count);
	kv_num(f, 2, "memory_bytes", g->memory_bytes);
	kv_num(f, 2, "hbm_gbps", g->hbm_gbps);
	fputs("  peak_tflops:\n", f);
	for (int dt = 0; dt < DT_COUNT; dt++)
		if (g->peak_tflops[dt] > 0)
			kv_num(f, 4, dtype_name((enum dtype)dt), g->peak_tflops[dt]);
	if (g->peak_fp4_tflops > 0)
		kv_num(f, 4, "fp4", g->peak_fp4_tflops);
	kv_num(f, 2, "launch_us", g->launch_us);
	kv_num(f, 2, "workspace_bytes", g->workspace_bytes);
	fputs("  memory_bound:\n", f);
	kv_num(f, 4, "eff", g->mem_eff);
	kv_num(f, 4, "half_bytes", g->mem_half_bytes);
	fputs("  gemm:\n", f);
	if (g->gemm_burst)
		kv_str(f, 4, "rates", "burst");
	fputs("    model:\n", f);
	kv_num(f, 6, "max_eff", g->gemm_max_eff);
	fprintf(f, "      tile_m: %d\n      tile_n: %d\n", g->gemm_tile_m, g->gemm_tile_n);
	kv_num(f, 6, "k_half", g->gemm_k_half);
	bool any_de = g->gemm_fp4_eff > 0;
	for (int dt = 0; dt < DT_COUNT; dt++)
		any_de |= g->gemm_dtype_eff[dt] > 0;
	if (any_de) {
		fputs("      dtype_eff:\n", f);
		for (int dt = 0; dt < DT_COUNT; dt++)
			if (g->gemm_dtype_eff[dt] > 0)
				kv_num(f, 8, dtype_name((enum dtype)dt), g->gemm_dtype_eff[dt]);
		if (g->gemm_fp4_eff > 0)
			kv_num(f, 8, "fp4", g->gemm_fp4_eff);
	}
	bool any = false;
	for (int dt = 0; dt < DT_COUNT; dt++)
		any |= g->gemm[dt].present;
	if (any) {
		fputs("    tables:\n", f);
		for (int dt = 0; dt < DT_COUNT; dt++) {
			const struct gemm_table *t = &g->gemm[dt];
			if (!t->present)
				continue;
			fprintf(f, "      - dtype: %s\n", dtype_name((enum dtype)dt));
			list_num(f, 8, "m", t->m, t->nm);
			list_num(f, 8, "n", t->n, t->nn);
			list_num(f, 8, "k", t->k, t->nk);
			list_num(f, 8, "eff", t->eff, (long long)t->nm * t->nn * t->nk);
			kv_str(f, 8, "source", t->source);
		}
	}
	fputs("  power:\n", f);
	kv_num(f, 4, "burst_speedup", g->burst_speedup);
	kv_num(f, 4, "exponent", g->power_exponent);
	kv_num(f, 4, "memory_bound", g->power_mem_frac);
	kv_num(f, 4, "comm", g->power_comm_frac);
	kv_num(f, 4, "idle", g->power_idle_frac);
	fputs("  attention:\n", f);
	write_attn(f, "fused", &g->attn[ATTN_FUSED]);
	write_attn(f, "unfused", &g->attn[ATTN_UNFUSED]);
	write_attn(f, "cudnn", &g->attn[ATTN_CUDNN]);
	kv_str(f, 2, "source", g->source);
}

static void write_collectives(FILE *f, const struct hwmodel *hw)
{
	bool any = false;
	for (int sc = 0; sc < SCOPE_N; sc++)
		for (int op = 0; op < COLL_NOPS; op++)
			any |= hw->coll[sc][op].nlines + hw->coll[sc][op].ntables > 0;
	if (!any)
		return;
	fputs("collectives:\n", f);
	for (int sc = 0; sc < SCOPE_N; sc++) {
		bool scope = false;
		for (int op = 0; op < COLL_NOPS; op++) {
			const struct coll_model *cm = &hw->coll[sc][op];
			if (cm->nlines + cm->ntables == 0)
				continue;
			if (!scope)
				fprintf(f, "  %s:\n", coll_scope_name((enum coll_scope)sc));
			scope = true;
			fprintf(f, "    %s:\n", coll_op_name((enum coll_op)op));
			if (cm->nlines)
				fputs("      lines:\n", f);
			for (int i = 0; i < cm->nlines; i++) {
				const struct coll_line *l = &cm->lines[i];
				fputs("        - {algo: ", f);
				put_str(f, l->algo);
				fprintf(f, ", n: %d, alpha_us: ", l->n);
				put_num(f, l->alpha_us);
				fputs(", step_us: ", f);
				put_num(f, l->step_us);
				fputs(", bus_gbps: ", f);
				put_num(f, l->bus_gbps);
				fputs(", max_bytes: ", f);
				put_num(f, l->max_bytes);
				fputs("}\n", f);
			}
			if (cm->ntables)
				fputs("      tables:\n", f);
			for (int i = 0; i < cm->ntables; i++) {
				const struct coll_table *t = &cm->tables[i];
				fprintf(f, "        - n: %d\n", t->n);
				list_num(f, 10, "bytes", t->bytes, t->npts);
				list_num(f, 10, "time_us", t->time_us, t->npts);
			}
			kv_str(f, 6, "source", cm->source);
		}
	}
}

void hwmodel_write(FILE *f, const struct hwmodel *hw)
{
	fputs("# gpusim-hw/1, written by gpusim from the loaded model", f);
	if (hw->base[0])
		fprintf(f, " (%s, base: %s, merged)", hw->path, hw->base);
	fputc('\n', f);
	/* where the parts came from (docs/hardware-model.md, "Origin"): comments, so the text loads the same */
	fprintf(f, "# origin: gpu %s\n# origin: intra-node collectives %s\n# origin: node and network %s\n",
		hw->origin.gpu[0] ? hw->origin.gpu : "?", hw->origin.intra[0] ? hw->origin.intra : "?",
		hw->origin.node[0] ? hw->origin.node : "?");
	if (hw->origin.note[0])
		fprintf(f, "# assumed: %s\n", hw->origin.note);
	fputs("schema: gpusim-hw/1\n", f);
	kv_str(f, 0, "name", hw->name);
	write_gpu(f, &hw->gpu);
	fputs("node:\n", f);
	fprintf(f, "  gpus: %d\n  fabric: %s\n", hw->node.gpus, fabric_names[hw->node.fabric]);
	kv_num(f, 2, "link_gbps", hw->node.link_gbps);
	kv_str(f, 2, "source", hw->node.source);
	fputs("network:\n", f);
	fprintf(f, "  nics: %d\n", hw->net.nics);
	kv_num(f, 2, "nic_gbps", hw->net.nic_gbps);
	kv_num(f, 2, "latency_us", hw->net.latency_us);
	kv_num(f, 2, "oversubscription", hw->net.oversubscription);
	kv_str(f, 2, "source", hw->net.source);
	write_collectives(f, hw);
	fputs("overlap:\n", f);
	kv_num(f, 2, "compute_slowdown", hw->overlap_compute_slowdown);
	kv_num(f, 2, "comm_slowdown", hw->overlap_comm_slowdown);
	fputs("cost:\n", f);
	kv_num(f, 2, "usd_per_gpu_hour", hw->usd_per_gpu_hour);
	fputs("host:\n", f);
	for (int m = 0; m < EXEC_N; m++) {
		const struct hw_host_cost *c = &hw->host.mode[m];
		fprintf(f, "  %s: {step_us: ", exec_mode_names[m]);
		put_num(f, c->step_us);
		fputs(", op_us: ", f);
		put_num(f, c->op_us);
		fputs(", launch_us: ", f);
		put_num(f, c->launch_us);
		fputs(", coll_us: ", f);
		put_num(f, c->coll_us);
		fputs(", bucket_us: ", f);
		put_num(f, c->bucket_us);
		fputs("}\n", f);
	}
	kv_str(f, 2, "source", hw->host.source);
}
