/* calmodel: a fitted calibration as a hardware model (see calmodel.h). Sections in the order of
 * docs/hardware-model.md; every measured section's source says what was measured, how, and how well it fits.
 * Numbers keep the precision they were measured with: fitted collective lines and times 6 significant digits,
 * GEMM efficiencies 4, the rest as rounded below. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "calibrate/calmeta.h"
#include "calibrate/calmodel.h"
#include "calibrate/sustain.h"
#include "calibrate/torchattn.h"
#include "calibrate/torchkern.h"
#include "calibrate/gemmtab.h"
#include "util/diag.h"
#include "util/gserr.h"
#include "util/xalloc.h"
#include "util/ybuild.h"

#ifndef GPUSIM_VERSION
#define GPUSIM_VERSION "unknown"
#endif

/* v to n significant digits, never rounding a positive value to 0 */
static double sig(double v, int n)
{
	if (!(v > 0) || !isfinite(v))
		return v;
	double scale = pow(10, n - 1 - floor(log10(v)));
	return round(v * scale) / scale;
}

/* v as the old writer printed it: integers exactly, else 6 significant digits */
static double num6(double v)
{
	return v == floor(v) && fabs(v) < 1e15 ? v : sig(v, 6);
}

/* src becomes "preset: BASE (src)": a section taken from the base model */
static void mark_base(char *src, size_t size, const struct cal_base *b)
{
	char buf[800];
	snprintf(buf, sizeof buf, "preset: %.100s (%.600s)", b->name, src);
	calib_set_str(src, size, buf);
}

static const struct cal_attn_pt *attn_pick(const struct calib *c)
{
	const struct cal_attn_pt *best = NULL;
	for (int i = 0; i < c->nattn; i++) {
		const struct cal_attn_pt *a = &c->attn[i];
		if (!(a->fwd_us > 0 && a->bwd_us > 0))
			continue;
		if (a->seq == 4096)
			return a;
		if (!best || a->seq > best->seq)
			best = a;
	}
	return best;
}

/* fit of copy-kernel time against bytes moved: *eff of hbm_gbps, *half_bytes */
static int mem_fit(const struct calib *c, double *eff, double *half_bytes, double *gbps)
{
	double x[CAL_MAX_MEM], y[CAL_MAX_MEM], c0, c1;
	int n = 0;
	/* only kernels that outlast two launch intervals: below that, back-to-back launches time the host's issue rate,
	 * which the simulator adds separately (launch_us) */
	for (int pass = 0; pass < 2 && n < 3; pass++) {
		double tmin = pass == 0 && c->have_launch ? 2 * c->launch_us : 0;
		n = 0;
		for (int i = 0; i < c->nmem; i++)
			if (c->mem[i].kind == CAL_MEM_COPY && c->mem[i].us > tmin) {
				x[n] = c->mem[i].bytes;
				y[n] = c->mem[i].us;
				n++;
			}
	}
	if (n < 2 || !(c->hbm_gbps > 0) || fit_affine(x, y, n, &c0, &c1))
		return GS_EINVAL;
	*gbps = 1.0 / (c1 * 1e3);
	*eff = fmin(1.0, *gbps / c->hbm_gbps);
	*half_bytes = c0 / c1;
	return 0;
}

/* GPU rates: measured where measured, else the base's, else a stated estimate. */
static void gpu_rates(const struct calib *c, const struct hw_gpu *bg, struct hw_gpu *g)
{
	bool any_peak = false;
	for (int d = 0; d < DT_COUNT; d++)
		any_peak |= c->peak_tflops[d] > 0;
	g->hbm_gbps = c->hbm_gbps > 0 ? round(c->hbm_gbps) : bg ? bg->hbm_gbps : 2000;
	if (any_peak) {
		for (int d = 0; d < DT_COUNT; d++)
			g->peak_tflops[d] = c->peak_tflops[d] > 0 ? round(c->peak_tflops[d] * 10) / 10 : 0;
	} else if (bg) {
		memcpy(g->peak_tflops, bg->peak_tflops, sizeof g->peak_tflops);
		g->peak_fp4_tflops = bg->peak_fp4_tflops;
	} else
		g->peak_tflops[DT_BF16] = 100;  /* estimate: an unknown GPU with no GEMM measured, no base */
	g->launch_us = c->have_launch ? round(c->launch_us * 100) / 100 : bg ? bg->launch_us : 4;
}

static void gpu_memory_bound(const struct calib *c, const struct cal_base *b, struct hw_gpu *g)
{
	double eff, half, gbps;
	if (mem_fit(c, &eff, &half, &gbps) == 0) {
		g->mem_eff = round(eff * 1e3) / 1e3;
		g->mem_half_bytes = round(half);
		snprintf(g->mem_source, sizeof g->mem_source, "measured: copy kernel %.0f GB/s asymptotic (read + write) "
			 "of %.0f (%.60s), t = bytes/bw + %.2f us fitted to kernels over 2 launch intervals", gbps,
			 c->hbm_gbps, c->hbm_source, half / (gbps * 1e3));
	} else if (b) {
		g->mem_eff = b->hw->gpu.mem_eff;
		g->mem_half_bytes = b->hw->gpu.mem_half_bytes;
		snprintf(g->mem_source, sizeof g->mem_source, "%s", b->hw->gpu.mem_source);
		mark_base(g->mem_source, sizeof g->mem_source, b);
	} else {
		g->mem_eff = 0.85;
		g->mem_half_bytes = 2e6;
		snprintf(g->mem_source, sizeof g->mem_source, "estimate: not measured, no base model");
	}
}

static void gpu_gemm_table(const struct calib *c, const struct gemmtab *t, struct gemm_table *gt)
{
	size_t total = (size_t)t->nm * t->nn * t->nk;
	gt->present = true;
	gt->nm = t->nm;
	gt->nn = t->nn;
	gt->nk = t->nk;
	gt->m = xmalloc(sizeof *gt->m * (size_t)t->nm);
	gt->n = xmalloc(sizeof *gt->n * (size_t)t->nn);
	gt->k = xmalloc(sizeof *gt->k * (size_t)t->nk);
	gt->eff = xmalloc(sizeof *gt->eff * total);
	memcpy(gt->m, t->m, sizeof *gt->m * (size_t)t->nm);
	memcpy(gt->n, t->n, sizeof *gt->n * (size_t)t->nn);
	memcpy(gt->k, t->k, sizeof *gt->k * (size_t)t->nk);
	for (size_t j = 0; j < total; j++)
		gt->eff[j] = sig(t->eff[j], 4);
	char src[512];
	/* 5 samples a point in both modes since 2026-11-28 (calibrate/plan.c); the raw CSV does not say how many */
	const char *samples = strcmp(c->id.mode, "quick") == 0 ? "5 (3 in --quick runs before 2026-11-28)" : "5";
	snprintf(src, sizeof src, "measured: cuBLASLt %s TN, heuristic algo 0, 32 MiB workspace, random data, median of "
		 "%s; eff of %.1f TFLOP/s (%.200s)%s", cal_dtype_name(t->dt), samples, c->peak_tflops[t->dt],
		 c->peak_source, t->nmissing ? "; missing points filled from neighbours" : "");
	calib_set_str(gt->source, sizeof gt->source, src);
}

/* The measured GEMM tables and the analytic model fitted to the bf16 table (else the first), for dtypes without
 * a table; no table: the base's model, else an estimate. */
static void gpu_gemm(const struct calib *c, const struct cal_base *b, struct hw_gpu *g)
{
	struct gemmtab tabs[DT_COUNT];
	int ntabs = 0;
	double max_eff = 0, k_half = 0;
	bool model = false;
	for (int d = 0; d < DT_COUNT; d++)
		if (gemmtab_build(c, (enum dtype)d, &tabs[ntabs]) == 0)
			ntabs++;
	for (int i = 0; i < ntabs && !model; i++)
		if (tabs[i].dt == DT_BF16 && gemmtab_model(&tabs[i], &max_eff, &k_half) == 0)
			model = true;
	for (int i = 0; i < ntabs && !model; i++)
		if (gemmtab_model(&tabs[i], &max_eff, &k_half) == 0)
			model = true;
	g->gemm_tile_m = 128;
	g->gemm_tile_n = 256;
	if (model) {
		g->gemm_max_eff = round(max_eff * 1e4) / 1e4;
		g->gemm_k_half = round(k_half);
		snprintf(g->gemm_model_source, sizeof g->gemm_model_source, "measured: fitted to the largest-m, largest-n "
			 "column of the GEMM table; tiles assumed (cuBLASLt Hopper 128x256)");
	} else if (b) {
		const struct hw_gpu *bg = &b->hw->gpu;
		g->gemm_max_eff = bg->gemm_max_eff;
		g->gemm_tile_m = bg->gemm_tile_m;
		g->gemm_tile_n = bg->gemm_tile_n;
		g->gemm_k_half = bg->gemm_k_half;
		memcpy(g->gemm_dtype_eff, bg->gemm_dtype_eff, sizeof g->gemm_dtype_eff);
		g->gemm_fp4_eff = bg->gemm_fp4_eff;
		snprintf(g->gemm_model_source, sizeof g->gemm_model_source, "%s", bg->gemm_model_source);
		mark_base(g->gemm_model_source, sizeof g->gemm_model_source, b);
	} else {
		g->gemm_max_eff = 0.8;
		g->gemm_k_half = 256;
		snprintf(g->gemm_model_source, sizeof g->gemm_model_source, "estimate: not measured, no base model");
	}
	for (int i = 0; i < ntabs; i++) {
		gpu_gemm_table(c, &tabs[i], &g->gemm[tabs[i].dt]);
		gemmtab_release(&tabs[i]);
	}
}

/* The measured attention is the unfused path (cuBLASLt GEMMs and a softmax kernel) and, with --attention torch,
 * the fused families (flash, cudnn: calibrate/torchattn.c); without those the loader takes the fused entry from the
 * built-in preset of the same GPU. Nothing measured: the base's entries, else an estimate. */
static void gpu_attention(const struct calib *c, const struct cal_base *b, struct hw_gpu *g)
{
	const struct cal_attn_pt *a = attn_pick(c);
	bool fused = torchattn_fill(c, "flash", &g->attn[ATTN_FUSED]);
	fused |= torchattn_fill(c, "cudnn", &g->attn[ATTN_CUDNN]);
	if (fused && !(a && c->peak_tflops[DT_BF16] > 0))
		return;
	if (a && c->peak_tflops[DT_BF16] > 0) {
		struct hw_attn *u = &g->attn[ATTN_UNFUSED];
		double f = calib_attn_flops(a), peak = c->peak_tflops[DT_BF16] * 1e12;
		u->present = true;
		snprintf(u->impl, sizeof u->impl, "cublas_unfused");
		u->fwd_eff = round(f / (a->fwd_us * 1e-6) / peak * 1e4) / 1e4;
		u->bwd_eff = round(2 * f / (a->bwd_us * 1e-6) / peak * 1e4) / 1e4;
		snprintf(u->source, sizeof u->source, "measured: bf16 strided-batched cuBLASLt QK^T and PV + softmax "
			 "kernels, bh %d, seq %d, head_dim %d, no mask; fwd 4*bh*s^2*d FLOPs, bwd 8*bh*s^2*d", a->bh, a->seq,
			 a->head_dim);
	} else if (b) {
		for (int p = 0; p < ATTN_PATHS; p++) {
			g->attn[p] = b->hw->gpu.attn[p];
			if (g->attn[p].present)
				mark_base(g->attn[p].source, sizeof g->attn[p].source, b);
		}
	} else {
		struct hw_attn *fa = &g->attn[ATTN_FUSED];
		fa->present = true;
		snprintf(fa->impl, sizeof fa->impl, "flash");
		fa->fwd_eff = 0.5;
		fa->bwd_eff = 0.4;
		snprintf(fa->source, sizeof fa->source, "estimate: not measured, no base model");
	}
}

static void build_gpu(const struct calib *c, const struct cal_base *b, struct hw_gpu *g)
{
	snprintf(g->name, sizeof g->name, "%s", c->id.gpu_name);
	g->sm_count = c->id.sm_count;
	g->memory_bytes = c->id.memory_bytes;
	gpu_rates(c, b ? &b->hw->gpu : NULL, g);
	gpu_memory_bound(c, b, g);
	gpu_gemm(c, b, g);
	gpu_attention(c, b, g);
	torchkern_fill(c, c->id.l2_bytes, &g->kern);  /* --kernels torch: gpu.kernels */
	char src[512];
	snprintf(src, sizeof src, "measured: gpusim calibrate on %.100s, %.40s; peaks %.200s", c->id.host, c->id.date,
		 c->peak_source);
	calib_set_str(g->source, sizeof g->source, src);
}

/* NVLinks of one GPU: NVML's count, else the largest count nvidia-smi shows to another GPU */
static int nvlinks(const struct calib *c)
{
	int best = c->id.nvlinks;
	if (best > 0)
		return best;
	for (int j = 1; j < c->id.ngpus && j < CAL_MAX_GPUS; j++)
		if (c->id.topo_nv[0][j] > best)
			best = c->id.topo_nv[0][j];
	return best;
}

static const struct cal_series *find_series(const struct calib *c, enum coll_scope sc, enum coll_op op, int n)
{
	for (int i = 0; i < c->nseries; i++)
		if (c->series[i].scope == sc && c->series[i].op == op && c->series[i].n == n)
			return &c->series[i];
	return NULL;
}

/* The measuring host's node: its GPUs, NVLink (NVML or nvidia-smi) or PCIe with the send/recv bandwidth. */
static void build_node(const struct calib *c, const struct cal_base *b, struct hw_node *nd)
{
	int links = nvlinks(c);
	char src[512];
	size_t size = sizeof src;
	nd->gpus = calib_node_gpus(c);
	nd->host_gbps = b ? b->hw->node.host_gbps : 0;  /* the host link is not measured: the base's, else unknown */
	nd->host_memory_bytes = b ? b->hw->node.host_memory_bytes : 0;
	if (links > 0) {
		double per_link = c->id.cc_major >= 10 ? 50 : 25;  /* NVLink5 : NVLink3/4, GB/s per direction */
		nd->fabric = c->id.nvswitch ? FABRIC_NVSWITCH : FABRIC_NVLINK;
		nd->link_gbps = links * per_link;
		snprintf(src, size, "measured: %d active NVLinks per GPU (%s) x %.0f GB/s per direction%s", links,
			 c->id.nvlinks > 0 ? "NVML" : "nvidia-smi topo -m", per_link,
			 c->id.nvswitch ? ", links end at NVSwitches" : "");
	} else {
		const struct cal_series *s = find_series(c, SCOPE_INTRA, COLL_SEND_RECV, 2);
		nd->fabric = FABRIC_PCIE;
		if (s && s->fitted) {
			nd->link_gbps = round(fit_bus_gbps(&s->fit.line[s->fit.nlines - 1]));
			snprintf(src, size, "measured: no NVLink; link_gbps is the NCCL send/recv bandwidth");
		} else if (b) {
			nd->link_gbps = b->hw->node.link_gbps;
			snprintf(src, size, "measured: no NVLink; link_gbps from preset %.60s", b->name);
		} else {
			nd->link_gbps = 25;
			snprintf(src, size, "measured: no NVLink; link_gbps estimated (PCIe Gen4 x16)");
		}
	}
	if (nd->gpus > c->id.ngpus) {
		size_t len = strlen(src);
		snprintf(src + len, size - len, "; gpus: the host's %d, collectives measured on groups of up to %d",
			 nd->gpus, c->id.ngpus);
	}
	calib_set_str(nd->source, sizeof nd->source, src);
}

static void add_lines(struct coll_model *cm, const struct cal_series *s, bool any_n)
{
	cm->lines = xrealloc(cm->lines, sizeof *cm->lines * (size_t)(cm->nlines + s->fit.nlines));
	for (int l = 0; l < s->fit.nlines; l++) {
		const struct fit_line *fl = &s->fit.line[l];
		struct coll_line *cl = &cm->lines[cm->nlines++];
		memset(cl, 0, sizeof *cl);
		snprintf(cl->algo, sizeof cl->algo, "fit%d%s", l + 1, any_n ? "_any_n" : "");
		cl->n = any_n ? 0 : s->n;
		cl->alpha_us = num6(fl->alpha_us);
		cl->bus_gbps = num6(fit_bus_gbps(fl));
		cl->max_bytes = fl->max_bytes > 0 ? round(fl->max_bytes) : 0;
	}
}

static void add_table(struct coll_model *cm, const struct cal_series *s)
{
	cm->tables = xrealloc(cm->tables, sizeof *cm->tables * (size_t)(cm->ntables + 1));
	struct coll_table *t = &cm->tables[cm->ntables++];
	t->n = s->n;
	t->npts = s->npts;
	t->bytes = xmalloc(sizeof *t->bytes * (size_t)s->npts);
	t->time_us = xmalloc(sizeof *t->time_us * (size_t)s->npts);
	for (int j = 0; j < s->npts; j++) {
		t->bytes[j] = num6(s->bytes[j]);
		t->time_us[j] = num6(s->us[j]);
	}
}

/* One measured collective: the fitted lines of each group size, the lines of the largest group again for any
 * size, and the measured tables. */
static void build_op(const struct calib *c, enum coll_scope sc, enum coll_op op, struct coll_model *cm)
{
	const struct cal_series *largest = NULL;
	double worst_med = 0, worst_max = 0;
	char nccl[32];
	hwmodel_coll_clear(cm);
	for (int i = 0; i < c->nseries; i++) {
		const struct cal_series *s = &c->series[i];
		if (s->scope != sc || s->op != op || !s->fitted)
			continue;
		if (!largest || s->n > largest->n)
			largest = s;
		worst_med = fmax(worst_med, s->fit.median_rel_err);
		worst_max = fmax(worst_max, s->fit.max_rel_err);
		add_lines(cm, s, false);
	}
	add_lines(cm, largest, true);
	for (int i = 0; i < c->nseries; i++) {
		const struct cal_series *s = &c->series[i];
		if (s->scope == sc && s->op == op && s->npts >= 2)
			add_table(cm, s);
	}
	calib_nccl_version(nccl, sizeof nccl, c->id.nccl_version);
	snprintf(cm->source, sizeof cm->source, "measured: NCCL %s, float, out of place, back-to-back ops between CUDA "
		 "events, max over ranks, median of trials; envelope fit w=1/t^2: median rel err <= %.1f%%, max <= %.1f%%; "
		 "lines without n extrapolate from n=%d", nccl, 100 * worst_med, 100 * worst_max, largest->n);
}

static bool measured_op(const struct calib *c, enum coll_scope sc, enum coll_op op)
{
	for (int i = 0; i < c->nseries; i++)
		if (c->series[i].scope == sc && c->series[i].op == op && c->series[i].fitted)
			return true;
	return false;
}

static bool measured_scope(const struct calib *c, enum coll_scope sc)
{
	for (int op = 0; op < COLL_NOPS; op++)
		if (measured_op(c, sc, (enum coll_op)op))
			return true;
	return false;
}

/* A scope with measurements: the measured collectives, the base's for the others (marked). */
static void build_scope(const struct calib *c, const struct cal_base *b, enum coll_scope sc, struct hwmodel *hw)
{
	for (int op = 0; op < COLL_NOPS; op++) {
		struct coll_model *cm = &hw->coll[sc][op];
		if (measured_op(c, sc, (enum coll_op)op))
			build_op(c, sc, (enum coll_op)op, cm);
		else if (b && cm->nlines + cm->ntables > 0)
			mark_base(cm->source, sizeof cm->source, b);
	}
}

/* The model's own sections beside the gpu: node, network, collectives, overlap, cost, and the parts it claims. */
static unsigned build_rest(const struct calib *c, const struct cal_base *b, bool based, struct hwmodel *hw,
			   struct hw_node *host)
{
	unsigned parts = 0;
	build_node(c, b, host);
	if (!based) {
		hw->node = *host;
		parts |= HWW_NODE | HWW_NETWORK;
		if (b)
			mark_base(hw->net.source, sizeof hw->net.source, b);
		else {
			hw->net = (struct hw_net){8, 50, 5, 1, "estimate: not measurable on one machine and no base model: "
							   "one 400 Gb/s NIC per GPU assumed"};
		}
	}
	for (int sc = 0; sc < SCOPE_N; sc++) {
		unsigned bit = sc == SCOPE_INTRA ? HWW_INTRA : HWW_INTER;
		if (measured_scope(c, (enum coll_scope)sc)) {
			build_scope(c, b, (enum coll_scope)sc, hw);
			parts |= bit;
		} else if (!based && b) {
			build_scope(c, b, (enum coll_scope)sc, hw);
			parts |= bit;
		}
	}
	const struct cal_overlap *ov = &c->overlap;
	/* one GPU's stand-in (GEMMs beside a few-block copy) stays in meta.overlap: on an H100 (2026-11-25) its GEMMs ran
	 * 6 % faster beside the copy than alone (the power cap, most likely, not SM sharing): it does not measure the key */
	if (ov->have && ov->gemm_us > 0 && ov->comm_us > 0 && !ov->copy_blocks) {
		hw->overlap_compute_slowdown = round(fmax(0, ov->gemm_busy_us / ov->gemm_us - 1) * 1e3) / 1e3;
		hw->overlap_comm_slowdown = round(fmax(0, ov->comm_busy_us / ov->comm_us - 1) * 1e3) / 1e3;
		snprintf(hw->overlap_source, sizeof hw->overlap_source, "measured: %s %ldx%ldx%ld GEMMs beside %.0f MiB "
			 "all-reduces on another stream of the same %d GPUs, against each alone", cal_dtype_name(ov->dt),
			 ov->m, ov->n, ov->k, ov->comm_bytes / 1048576, ov->ranks);
		parts |= HWW_OVERLAP;
	} else if (!based && b) {
		mark_base(hw->overlap_source, sizeof hw->overlap_source, b);
		parts |= HWW_OVERLAP;
	}
	if (!based && b) {
		mark_base(hw->cost_source, sizeof hw->cost_source, b);
		parts |= HWW_COST;
	}
	return parts;
}

int calmodel_build(const struct calib *c, const struct calmodel_opts *o, struct calmodel *m)
{
	const struct cal_base *b = o->base && o->base->loaded ? o->base : NULL;
	struct hw_node host;
	memset(m, 0, sizeof *m);
	/* the base's model, whose sections fill what was not measured; the gpu section is the calibration's own */
	m->hw = b ? hwmodel_copy(b->hw) : xcalloc(1, sizeof *m->hw);
	struct hwmodel *hw = m->hw;
	hwmodel_gemm_clear(&hw->gpu);
	memset(&hw->gpu, 0, sizeof hw->gpu);
	memset(&hw->origin, 0, sizeof hw->origin);
	hw->base[0] = hw->path[0] = 0;
	snprintf(hw->name, sizeof hw->name, "%s", o->name);
	/* one node and a base that is a built-in preset: the file claims only what it measured (the GPU, the
	 * collectives of the groups it had, the overlap) and names the preset as its base for the node, the network,
	 * the inter-node collectives and the cost (docs/calibration.md, "What a calibration claims") */
	const char *bp = b && c->id.nodes <= 1 ? base_preset_name(b) : NULL;
	snprintf(hw->description, sizeof hw->description, "%d x %.96s measured by gpusim calibrate (%.16s) on %.64s, "
		 "%.32s%s", c->id.ngpus, c->id.gpu_name, c->id.mode, c->id.host, c->id.date,
		 c->status[0] ? " (stopped early)" : "");
	if (bp)
		snprintf(hw->source, sizeof hw->source, "measured: gpusim calibrate %s; node, network, inter-node "
			 "collectives and cost not measured: base %.60s (the host's node is under meta.node)",
			 GPUSIM_VERSION, bp);
	else if (b)
		snprintf(hw->source, sizeof hw->source, "measured: gpusim calibrate %s; network, inter-node collectives "
			 "and cost from preset %.100s", GPUSIM_VERSION, b->name);
	else
		snprintf(hw->source, sizeof hw->source, "measured: gpusim calibrate %s", GPUSIM_VERSION);
	build_gpu(c, b, &hw->gpu);
	m->wo.parts = build_rest(c, b, bp != NULL, hw, &host);
	if (sustain_power(c, b, &hw->gpu)) {  /* the power phase (--sustain): gpu.power is measured */
		m->wo.parts |= HWW_POWER;
		torchattn_clock_laws(c, &hw->gpu);
	}
	if (torchkern_host_section(c, hw))
		m->wo.parts |= HWW_HOST;
	if (bp) {
		snprintf(m->base, sizeof m->base, "%s", bp);
		m->wo.base = m->base;
	}
	m->meta = xcalloc(1, sizeof *m->meta);
	int rc = calmeta_build(c, bp ? &host : NULL, m->meta);
	if (rc) {
		free(m->meta);
		m->meta = NULL;
		calmodel_release(m);
		return rc;
	}
	m->wo.meta = &m->meta->doc;
	return 0;
}

void calmodel_release(struct calmodel *m)
{
	if (m->meta) {
		ybuild_release(m->meta);
		free(m->meta);
	}
	hwmodel_free(m->hw);
	memset(m, 0, sizeof *m);
}

int calmodel_emit(const struct calib *c, const struct calmodel_opts *o, FILE *f)
{
	struct calmodel m;
	int rc = calmodel_build(c, o, &m);
	if (rc == 0)
		rc = hwwrite(f, m.hw, &m.wo);
	if (rc)
		diag_errorf("cannot write the hardware model (%s)", rc == GS_ENOMEM ? "out of memory" : "write error");
	calmodel_release(&m);
	return rc;
}

int calmodel_write(const struct calib *c, const struct calmodel_opts *o, const char *path)
{
	struct calmodel m;
	int rc = calmodel_build(c, o, &m);
	if (rc) {
		diag_errorf("cannot build the hardware model: out of memory");
		return rc;
	}
	rc = hwwrite_file(path, m.hw, &m.wo);
	calmodel_release(&m);
	return rc;
}
