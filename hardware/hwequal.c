/* hwequal: two models compared field by field (hwmodel_equal in hwmodel.h), for the writer's round-trip test:
 * every number exactly, every string, every table and line, in order. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hardware/hwmodel.h"

struct cmp {
	char *why;
	size_t len;
	bool same;
};

static void differ(struct cmp *c, const char *fmt, ...)
{
	if (!c->same)
		return;  /* the first difference only */
	c->same = false;
	va_list ap;
	va_start(ap, fmt);
	if (c->why && c->len)
		vsnprintf(c->why, c->len, fmt, ap);
	va_end(ap);
}

/* A difference's label: a path and a suffix, cut to fit the buffer (a long path only shortens the message). Not
 * snprintf itself: at -O3 gcc cannot see that the paths passed down stay short and warns of truncation. */
__attribute__((format(printf, 3, 4))) static void label(char *w, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(w, n, fmt, ap);
	va_end(ap);
}

static void num(struct cmp *c, const char *what, double a, double b)
{
	if (!(a == b || (a != a && b != b)))
		differ(c, "%s: %.17g != %.17g", what, a, b);
}

static void str(struct cmp *c, const char *what, const char *a, const char *b)
{
	if (strcmp(a, b) != 0)
		differ(c, "%s: \"%s\" != \"%s\"", what, a, b);
}

static void nums(struct cmp *c, const char *what, const double *a, const double *b, long long n)
{
	char w[96];
	for (long long i = 0; i < n; i++) {
		label(w, sizeof w, "%s[%lld]", what, i);
		num(c, w, a[i], b[i]);
	}
}

static void attn(struct cmp *c, const char *what, const struct hw_attn *a, const struct hw_attn *b)
{
	char w[96];
	num(c, what, a->present, b->present);
	str(c, what, a->impl, b->impl);
	num(c, what, a->fwd_eff, b->fwd_eff);
	num(c, what, a->bwd_eff, b->bwd_eff);
	num(c, what, a->burst, b->burst);
	num(c, what, a->max_clock, b->max_clock);
	num(c, what, a->clock_exponent, b->clock_exponent);
	num(c, what, a->clock_anchor, b->clock_anchor);
	num(c, what, a->power, b->power);
	str(c, what, a->source, b->source);
	num(c, what, a->nrows, b->nrows);
	for (int i = 0; i < a->nrows && i < b->nrows; i++) {
		label(w, sizeof w, "%s.rows[%d]", what, i);
		num(c, w, a->row[i].head_dim, b->row[i].head_dim);
		num(c, w, a->row[i].causal, b->row[i].causal);
		num(c, w, a->row[i].seq, b->row[i].seq);
		num(c, w, a->row[i].bh, b->row[i].bh);
		num(c, w, a->row[i].fwd_tflops, b->row[i].fwd_tflops);
		num(c, w, a->row[i].bwd_tflops, b->row[i].bwd_tflops);
	}
}

static void gemm(struct cmp *c, int dt, const struct gemm_table *a, const struct gemm_table *b)
{
	char w[64];
	label(w, sizeof w, "gpu.gemm.tables[%s]", dtype_name((enum dtype)dt));
	num(c, w, a->present, b->present);
	if (!a->present || !b->present)
		return;
	num(c, w, a->nm, b->nm);
	num(c, w, a->nn, b->nn);
	num(c, w, a->nk, b->nk);
	if (!c->same)
		return;
	nums(c, w, a->m, b->m, a->nm);
	nums(c, w, a->n, b->n, a->nn);
	nums(c, w, a->k, b->k, a->nk);
	nums(c, w, a->eff, b->eff, (long long)a->nm * a->nn * a->nk);
	str(c, w, a->source, b->source);
}

static void gpu(struct cmp *c, const struct hw_gpu *a, const struct hw_gpu *b)
{
	str(c, "gpu.name", a->name, b->name);
	num(c, "gpu.sm_count", a->sm_count, b->sm_count);
	num(c, "gpu.memory_bytes", a->memory_bytes, b->memory_bytes);
	num(c, "gpu.hbm_gbps", a->hbm_gbps, b->hbm_gbps);
	nums(c, "gpu.peak_tflops", a->peak_tflops, b->peak_tflops, DT_COUNT);
	num(c, "gpu.peak_tflops.fp4", a->peak_fp4_tflops, b->peak_fp4_tflops);
	num(c, "gpu.launch_us", a->launch_us, b->launch_us);
	num(c, "gpu.workspace_bytes", a->workspace_bytes, b->workspace_bytes);
	num(c, "gpu.memory_bound.eff", a->mem_eff, b->mem_eff);
	num(c, "gpu.memory_bound.half_bytes", a->mem_half_bytes, b->mem_half_bytes);
	str(c, "gpu.memory_bound.source", a->mem_source, b->mem_source);
	num(c, "gpu.gemm.model.max_eff", a->gemm_max_eff, b->gemm_max_eff);
	num(c, "gpu.gemm.model.tile_m", a->gemm_tile_m, b->gemm_tile_m);
	num(c, "gpu.gemm.model.tile_n", a->gemm_tile_n, b->gemm_tile_n);
	num(c, "gpu.gemm.model.k_half", a->gemm_k_half, b->gemm_k_half);
	nums(c, "gpu.gemm.model.dtype_eff", a->gemm_dtype_eff, b->gemm_dtype_eff, DT_COUNT);
	num(c, "gpu.gemm.model.dtype_eff.fp4", a->gemm_fp4_eff, b->gemm_fp4_eff);
	str(c, "gpu.gemm.model.source", a->gemm_model_source, b->gemm_model_source);
	for (int dt = 0; dt < DT_COUNT; dt++)
		gemm(c, dt, &a->gemm[dt], &b->gemm[dt]);
	num(c, "gpu.gemm.rates", a->gemm_burst, b->gemm_burst);
	attn(c, "gpu.attention.fused", &a->attn[ATTN_FUSED], &b->attn[ATTN_FUSED]);
	attn(c, "gpu.attention.unfused", &a->attn[ATTN_UNFUSED], &b->attn[ATTN_UNFUSED]);
	attn(c, "gpu.attention.cudnn", &a->attn[ATTN_CUDNN], &b->attn[ATTN_CUDNN]);
	num(c, "gpu.power.burst_speedup", a->burst_speedup, b->burst_speedup);
	num(c, "gpu.power.exponent", a->power_exponent, b->power_exponent);
	num(c, "gpu.power.memory_bound", a->power_mem_frac, b->power_mem_frac);
	num(c, "gpu.power.comm", a->power_comm_frac, b->power_comm_frac);
	num(c, "gpu.power.idle", a->power_idle_frac, b->power_idle_frac);
	num(c, "gpu.power.gpu_rates", a->ngpu_rates, b->ngpu_rates);
	num(c, "gpu.power.window_ms", a->power_window_ms, b->power_window_ms);
	for (int i = 0; i < a->ngpu_rates && i < b->ngpu_rates; i++)
		num(c, "gpu.power.gpu_rates", a->gpu_rates[i], b->gpu_rates[i]);
	str(c, "gpu.power.source", a->power_source, b->power_source);
	num(c, "gpu.kernels", a->kern.present, b->kern.present);
	num(c, "gpu.kernels.gap_us", a->kern.gap_us, b->kern.gap_us);
	num(c, "gpu.kernels.gemm_extra.kernels", a->kern.gemm_extra_kernels, b->kern.gemm_extra_kernels);
	num(c, "gpu.kernels.gemm_extra.us", a->kern.gemm_extra_us, b->kern.gemm_extra_us);
	for (int f = 0; f < KF_N; f++) {
		char w[64];
		snprintf(w, sizeof w, "gpu.kernels.%s.gbps", hw_kern_family_names[f]);
		num(c, w, a->kern.fam[f].gbps, b->kern.fam[f].gbps);
		snprintf(w, sizeof w, "gpu.kernels.%s.latency_us", hw_kern_family_names[f]);
		num(c, w, a->kern.fam[f].latency_us, b->kern.fam[f].latency_us);
		snprintf(w, sizeof w, "gpu.kernels.%s.bytes", hw_kern_family_names[f]);
		num(c, w, a->kern.fam[f].npoints, b->kern.fam[f].npoints);
		nums(c, w, a->kern.fam[f].bytes, b->kern.fam[f].bytes, a->kern.fam[f].npoints);
		snprintf(w, sizeof w, "gpu.kernels.%s.us", hw_kern_family_names[f]);
		nums(c, w, a->kern.fam[f].us, b->kern.fam[f].us, a->kern.fam[f].npoints);
	}
	str(c, "gpu.kernels.source", a->kern.source, b->kern.source);
	str(c, "gpu.source", a->source, b->source);
}

static void coll(struct cmp *c, const char *what, const struct coll_model *a, const struct coll_model *b)
{
	char w[128];
	num(c, what, a->nlines, b->nlines);
	num(c, what, a->ntables, b->ntables);
	str(c, what, a->source, b->source);
	if (!c->same)
		return;
	for (int i = 0; i < a->nlines; i++) {
		const struct coll_line *x = &a->lines[i], *y = &b->lines[i];
		label(w, sizeof w, "%s.lines[%d]", what, i);
		str(c, w, x->algo, y->algo);
		num(c, w, x->n, y->n);
		num(c, w, x->alpha_us, y->alpha_us);
		num(c, w, x->step_us, y->step_us);
		num(c, w, x->bus_gbps, y->bus_gbps);
		num(c, w, x->max_bytes, y->max_bytes);
	}
	for (int i = 0; i < a->ntables; i++) {
		const struct coll_table *x = &a->tables[i], *y = &b->tables[i];
		label(w, sizeof w, "%s.tables[%d]", what, i);
		num(c, w, x->n, y->n);
		num(c, w, x->npts, y->npts);
		if (c->same) {
			nums(c, w, x->bytes, y->bytes, x->npts);
			nums(c, w, x->time_us, y->time_us, x->npts);
		}
	}
}

bool hwmodel_equal(const struct hwmodel *a, const struct hwmodel *b, char *why, size_t len)
{
	struct cmp c = { why, len, true };
	char w[96];
	if (why && len)
		why[0] = 0;
	str(&c, "name", a->name, b->name);
	str(&c, "description", a->description, b->description);
	str(&c, "source", a->source, b->source);
	gpu(&c, &a->gpu, &b->gpu);
	num(&c, "node.gpus", a->node.gpus, b->node.gpus);
	num(&c, "node.fabric", a->node.fabric, b->node.fabric);
	num(&c, "node.link_gbps", a->node.link_gbps, b->node.link_gbps);
	num(&c, "node.host_gbps", a->node.host_gbps, b->node.host_gbps);
	num(&c, "node.host_memory_bytes", a->node.host_memory_bytes, b->node.host_memory_bytes);
	str(&c, "node.source", a->node.source, b->node.source);
	num(&c, "network.nics", a->net.nics, b->net.nics);
	num(&c, "network.nic_gbps", a->net.nic_gbps, b->net.nic_gbps);
	num(&c, "network.latency_us", a->net.latency_us, b->net.latency_us);
	num(&c, "network.oversubscription", a->net.oversubscription, b->net.oversubscription);
	str(&c, "network.source", a->net.source, b->net.source);
	for (int sc = 0; sc < SCOPE_N; sc++)
		for (int op = 0; op < COLL_NOPS; op++) {
			label(w, sizeof w, "collectives.%s.%s", coll_scope_name((enum coll_scope)sc),
				 coll_op_name((enum coll_op)op));
			coll(&c, w, &a->coll[sc][op], &b->coll[sc][op]);
		}
	num(&c, "overlap.compute_slowdown", a->overlap_compute_slowdown, b->overlap_compute_slowdown);
	num(&c, "overlap.comm_slowdown", a->overlap_comm_slowdown, b->overlap_comm_slowdown);
	num(&c, "overlap.tp_set", a->overlap_tp_set, b->overlap_tp_set);
	num(&c, "overlap.tp_compute_slowdown", a->overlap_tp_compute_slowdown, b->overlap_tp_compute_slowdown);
	num(&c, "overlap.tp_comm_slowdown", a->overlap_tp_comm_slowdown, b->overlap_tp_comm_slowdown);
	str(&c, "overlap.source", a->overlap_source, b->overlap_source);
	num(&c, "cost.usd_per_gpu_hour", a->usd_per_gpu_hour, b->usd_per_gpu_hour);
	str(&c, "cost.source", a->cost_source, b->cost_source);
	for (int m = 0; m < EXEC_N; m++) {
		const struct hw_host_cost *x = &a->host.mode[m], *y = &b->host.mode[m];
		label(w, sizeof w, "host.%s", exec_mode_names[m]);
		for (int i = 0; hw_host_keys[i].key; i++)
			num(&c, w, hw_host_value(x, i), hw_host_value(y, i));
	}
	str(&c, "host.source", a->host.source, b->host.source);
	num(&c, "meta.node.gpus", a->origin.host_gpus, b->origin.host_gpus);
	num(&c, "meta.node.fabric", a->origin.host_fabric, b->origin.host_fabric);
	return c.same;
}
