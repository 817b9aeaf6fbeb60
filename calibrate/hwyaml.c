/* hwyaml: the gpusim-hw/1 writer and the raw CSVs (see hwyaml.h). The order of sections follows
 * docs/hardware-model.md; every measured section's source says what was measured, how, and how well it fits. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "calibrate/gemmtab.h"
#include "calibrate/hwyaml.h"
#include "calibrate/sustain.h"
#include "calibrate/torchattn.h"
#include "calibrate/yemit.h"
#include "util/gserr.h"
#include "util/outfile.h"

#ifndef GPUSIM_VERSION
#define GPUSIM_VERSION "unknown"
#endif

static void version_str(char *buf, size_t len, int v, int major_div, int minor_div, int minor_mod)
{
	if (v <= 0)
		snprintf(buf, len, "unknown");
	else
		snprintf(buf, len, "%d.%d", v / major_div, (v / minor_div) % minor_mod);
}

static void nccl_version_str(char *buf, size_t len, int v)
{
	/* NCCL >= 2.9: major*10000 + minor*100 + patch */
	if (v <= 0)
		snprintf(buf, len, "unknown");
	else
		snprintf(buf, len, "%d.%d.%d", v / 10000, (v / 100) % 100, v % 100);
}

static void preset_source(char *buf, size_t len, const struct cal_base *b)
{
	snprintf(buf, len, "preset: %s", b->name);
}

/* copy base's node at path under key, marked as coming from the preset; false when base lacks it */
static bool copy_base(struct yemit *e, struct cal_base *b, const char *key, const char *path)
{
	yaml_node_t *n = b ? base_get(b, path) : NULL;
	char src[200];
	if (!n)
		return false;
	preset_source(src, sizeof src, b);
	yemit_key(e, key);
	yemit_copy(e, &b->doc, n, n->type == YAML_MAPPING_NODE ? src : NULL);
	return true;
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

static double attn_flops(const struct cal_attn_pt *a)  /* forward */
{
	return 4.0 * a->bh * (double)a->seq * a->seq * a->head_dim;
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

static void emit_versions(struct yemit *e, const struct calib *c)
{
	char buf[32];
	yemit_key(e, "versions");
	yemit_map(e, true);
	yemit_kstr(e, "driver", c->id.driver[0] ? c->id.driver : "unknown");
	version_str(buf, sizeof buf, c->id.cuda_runtime, 1000, 10, 100);
	yemit_kstr(e, "cuda_runtime", buf);
	version_str(buf, sizeof buf, c->id.cuda_driver, 1000, 10, 100);
	yemit_kstr(e, "cuda_driver", buf);
	if (c->id.cublaslt_version > 0) {
		snprintf(buf, sizeof buf, "%d.%d.%d", c->id.cublaslt_version / 10000, (c->id.cublaslt_version / 100) % 100,
			 c->id.cublaslt_version % 100);
		yemit_kstr(e, "cublaslt", buf);
	}
	nccl_version_str(buf, sizeof buf, c->id.nccl_version);
	yemit_kstr(e, "nccl", buf);
	yemit_end_map(e);
}

static void emit_matrix_int(struct yemit *e, const char *key, int n, int (*get)(const struct calib *, int, int),
			    const struct calib *c)
{
	yemit_key(e, key);
	yemit_seq(e, false);
	for (int i = 0; i < n; i++) {
		yemit_seq(e, true);
		for (int j = 0; j < n; j++)
			yemit_int(e, get(c, i, j));
		yemit_end_seq(e);
	}
	yemit_end_seq(e);
}

static int get_p2p(const struct calib *c, int i, int j) { return c->id.p2p[i][j]; }
static int get_nv(const struct calib *c, int i, int j) { return c->id.topo_nv[i][j]; }

/* The node's size: the host's GPUs, also when fewer were measured (their fabric is the host's). */
static int node_gpus(const struct calib *c)
{
	return c->id.host_gpus > c->id.ngpus ? c->id.host_gpus : c->id.ngpus;
}

static void emit_node(struct yemit *e, const struct calib *c, struct cal_base *b);

/* node_in_meta: the measuring host's node goes under meta.node (a fact, not a claim about the cluster: the
 * model's node and network come from its base). */
static void emit_meta(struct yemit *e, const struct calib *c, struct cal_base *b, bool node_in_meta)
{
	char buf[160];
	int n = c->id.ngpus < CAL_MAX_GPUS ? c->id.ngpus : CAL_MAX_GPUS;
	yemit_key(e, "meta");
	yemit_map(e, false);
	yemit_kstr(e, "tool", "gpusim calibrate " GPUSIM_VERSION);
	yemit_kstr(e, "mode", c->id.mode);
	yemit_kstr(e, "status", c->status[0] ? c->status : "complete");
	yemit_kstr(e, "date", c->id.date);
	yemit_kstr(e, "host", c->id.host);
	yemit_kint(e, "nodes", c->id.nodes);
	yemit_kint(e, "gpus", c->id.ngpus);
	yemit_kint(e, "host_gpus", node_gpus(c));
	yemit_key(e, "gpu");
	yemit_map(e, true);
	yemit_kstr(e, "name", c->id.gpu_name);
	snprintf(buf, sizeof buf, "%d.%d", c->id.cc_major, c->id.cc_minor);
	yemit_kstr(e, "compute_capability", buf);
	yemit_kint(e, "sm_count", c->id.sm_count);
	yemit_knum(e, "memory_bytes", c->id.memory_bytes);
	yemit_knum(e, "l2_bytes", c->id.l2_bytes);
	yemit_kint(e, "sm_clock_max_mhz", c->id.sm_clock_max_mhz);
	yemit_kint(e, "mem_clock_max_mhz", c->id.mem_clock_max_mhz);
	yemit_knum(e, "power_limit_w", c->id.power_limit_w);
	yemit_end_map(e);
	emit_versions(e, c);
	yemit_kstr(e, "env", c->id.env);

	yemit_key(e, "topology");
	yemit_map(e, false);
	yemit_kint(e, "nvlinks_per_gpu", c->id.nvlinks);
	yemit_kbool(e, "nvlink_to_nvswitch", c->id.nvswitch);
	if (n > 0) {
		emit_matrix_int(e, "p2p", n, get_p2p, c);
		emit_matrix_int(e, "nvlinks", n, get_nv, c);
	}
	if (c->id.topo_text[0]) {
		yemit_key(e, "nvidia_smi_topo");
		yemit_literal(e, c->id.topo_text);
	}
	yemit_end_map(e);

	yemit_kstr(e, "peak_source", c->peak_source);
	if (c->nclocks) {
		yemit_key(e, "clocks");
		yemit_seq(e, false);
		for (int i = 0; i < c->nclocks; i++) {
			const struct cal_clock *k = &c->clocks[i];
			yemit_map(e, true);
			yemit_kstr(e, "after", k->phase);
			yemit_kint(e, "sm_mhz", k->sm_mhz);
			yemit_kint(e, "mem_mhz", k->mem_mhz);
			snprintf(buf, sizeof buf, "0x%llx", k->reasons);
			yemit_kstr(e, "throttle_reasons", buf);
			yemit_knum(e, "power_w", round(k->power_w));
			yemit_knum(e, "temp_c", k->temp_c);
			yemit_end_map(e);
		}
		yemit_end_seq(e);
	}
	if (c->have_launch) {
		yemit_key(e, "launch");
		yemit_map(e, true);
		yemit_knum(e, "back_to_back_us", c->launch_us);
		yemit_knum(e, "roundtrip_us", c->launch_roundtrip_us);
		yemit_end_map(e);
	}
	/* the bf16 reference product and the scenario's exact shapes */
	{
		bool any = false;
		const struct cal_gemm_pt *ref = NULL;
		for (int i = 0; i < c->ngemm; i++) {
			const struct cal_gemm_pt *p = &c->gemm[i];
			if (p->dt == DT_BF16 && p->m == 8192 && p->n == 8192 && p->k == 8192 && p->us > 0 &&
			    (!ref || (ref->grid && !p->grid)))
				ref = p;
		}
		/* the reference product measured on its own, before the sweep warmed the GPU up to its power limit (after
		 * the power phase's warm-up with --sustain: meta.sustained has its cool and held rates) */
		for (const struct cal_gemm_pt *p = ref; p; p = NULL) {
			yemit_key(e, "gemm_reference");
			yemit_map(e, true);
			yemit_kstr(e, "dtype", "bf16");
			yemit_kint(e, "m", p->m);
			yemit_kint(e, "n", p->n);
			yemit_kint(e, "k", p->k);
			yemit_knum(e, "us", p->us);
			yemit_knum(e, "tflops", gemm_tflops(p->m, p->n, p->k, p->us));
			yemit_kstr(e, "algo", p->algo);
			yemit_end_map(e);
		}
		for (int i = 0; i < c->nshapes; i++) {
			const struct cal_shape *s = &c->shapes[i];
			const struct cal_gemm_pt *p = calib_find_gemm(c, s->dt, s->m, s->n, s->k);
			if (!any) {
				yemit_key(e, "scenario_gemms");
				yemit_seq(e, false);
				any = true;
			}
			yemit_map(e, true);
			yemit_kstr(e, "name", s->name);
			yemit_kstr(e, "dtype", cal_dtype_name(s->dt));
			yemit_kint(e, "m", s->m);
			yemit_kint(e, "n", s->n);
			yemit_kint(e, "k", s->k);
			if (p) {
				double tf = gemm_tflops(p->m, p->n, p->k, p->us);
				yemit_knum(e, "us", p->us);
				yemit_knum(e, "tflops", tf);
				if (c->peak_tflops[s->dt] > 0)
					yemit_knum(e, "eff", tf / c->peak_tflops[s->dt]);
			}
			yemit_end_map(e);
		}
		if (any)
			yemit_end_seq(e);
	}
	if (c->nmem) {
		yemit_key(e, "memory_bound_gbps");
		yemit_seq(e, false);
		for (int i = 0; i < c->nmem; i++) {
			const struct cal_mem_pt *m = &c->mem[i];
			yemit_map(e, true);
			yemit_kstr(e, "kernel", m->kind == CAL_MEM_COPY ? "copy" : "add");
			yemit_knum(e, "bytes", m->bytes);
			yemit_knum(e, "us", m->us);
			yemit_knum(e, "gbps", m->bytes / (m->us * 1e3));
			yemit_end_map(e);
		}
		yemit_end_seq(e);
	}
	if (c->nattn) {
		yemit_key(e, "attention");
		yemit_seq(e, false);
		for (int i = 0; i < c->nattn; i++) {
			const struct cal_attn_pt *a = &c->attn[i];
			double f = attn_flops(a);
			yemit_map(e, true);
			yemit_kint(e, "bh", a->bh);
			yemit_kint(e, "seq", a->seq);
			yemit_kint(e, "head_dim", a->head_dim);
			yemit_knum(e, "fwd_us", a->fwd_us);
			yemit_knum(e, "bwd_us", a->bwd_us);
			yemit_knum(e, "fwd_tflops", f / (a->fwd_us * 1e6));
			yemit_knum(e, "bwd_tflops", 2 * f / (a->bwd_us * 1e6));
			yemit_end_map(e);
		}
		yemit_end_seq(e);
	}
	sustain_emit_meta(e, c);
	if (c->overlap.have) {
		const struct cal_overlap *o = &c->overlap;
		yemit_key(e, "overlap");
		yemit_map(e, true);
		yemit_kstr(e, "gemm", cal_dtype_name(o->dt));
		yemit_kint(e, "m", o->m);
		yemit_kint(e, "n", o->n);
		yemit_kint(e, "k", o->k);
		yemit_knum(e, "all_reduce_bytes", o->comm_bytes);
		yemit_kint(e, "ranks", o->ranks);
		yemit_knum(e, "gemm_us", o->gemm_us);
		yemit_knum(e, "gemm_busy_us", o->gemm_busy_us);
		yemit_knum(e, "all_reduce_us", o->comm_us);
		yemit_knum(e, "all_reduce_busy_us", o->comm_busy_us);
		yemit_end_map(e);
	}
	if (c->nseries) {
		yemit_key(e, "fit");
		yemit_seq(e, false);
		for (int i = 0; i < c->nseries; i++) {
			const struct cal_series *s = &c->series[i];
			struct fit_result f = s->fit;
			double err[CAL_MAX_PTS];
			yemit_map(e, false);
			yemit_kstr(e, "scope", cal_scope_name(s->scope));
			yemit_kstr(e, "op", cal_op_name(s->op));
			yemit_kint(e, "n", s->n);
			if (s->fitted) {
				fit_errors(&f, s->bytes, s->us, s->npts, err);
				for (int j = 0; j < s->npts; j++)
					err[j] = round(err[j] * 1e4) / 1e4;
				yemit_kint(e, "lines", f.nlines);
				yemit_knum(e, "median_rel_err", round(f.median_rel_err * 1e4) / 1e4);
				yemit_knum(e, "max_rel_err", round(f.max_rel_err * 1e4) / 1e4);
				yemit_knum(e, "rms_rel_err", round(f.rms_rel_err * 1e4) / 1e4);
				yemit_knums(e, "rel_err", err, s->npts);
			} else
				yemit_kstr(e, "fit", "none");
			yemit_knums(e, "time_min_us", s->min_us, s->npts);
			yemit_knums(e, "time_max_us", s->max_us, s->npts);
			yemit_end_map(e);
		}
		yemit_end_seq(e);
	}
	if (node_in_meta)
		emit_node(e, c, b);
	yemit_end_map(e);
}

/* 4 significant digits, never rounding a positive efficiency to 0 */
static double sig4(double v)
{
	if (!(v > 0))
		return v;
	double scale = pow(10, 3 - floor(log10(v)));
	return round(v * scale) / scale;
}

static void emit_gemm(struct yemit *e, const struct calib *c, struct cal_base *b)
{
	struct gemmtab tabs[DT_COUNT];
	int ntabs = 0;
	double max_eff = 0, k_half = 0;
	bool model = false;
	char src[512];
	for (int d = 0; d < DT_COUNT; d++)
		if (gemmtab_build(c, (enum dtype)d, &tabs[ntabs]) == 0)
			ntabs++;
	yemit_key(e, "gemm");
	yemit_map(e, false);
	/* the analytic model, fitted to the bf16 table (else the first), for dtypes without a table */
	for (int i = 0; i < ntabs && !model; i++)
		if (tabs[i].dt == DT_BF16 && gemmtab_model(&tabs[i], &max_eff, &k_half) == 0)
			model = true;
	for (int i = 0; i < ntabs && !model; i++)
		if (gemmtab_model(&tabs[i], &max_eff, &k_half) == 0)
			model = true;
	if (model) {
		yemit_key(e, "model");
		yemit_map(e, true);
		yemit_knum(e, "max_eff", round(max_eff * 1e4) / 1e4);
		yemit_kint(e, "tile_m", 128);
		yemit_kint(e, "tile_n", 256);
		yemit_knum(e, "k_half", round(k_half));
		yemit_kstr(e, "source", "measured: fitted to the largest-m, largest-n column of the GEMM table; "
			   "tiles assumed (cuBLASLt Hopper 128x256)");
		yemit_end_map(e);
	} else if (!copy_base(e, b, "model", "gpu.gemm.model")) {
		yemit_key(e, "model");
		yemit_map(e, true);
		yemit_knum(e, "max_eff", 0.8);
		yemit_kint(e, "tile_m", 128);
		yemit_kint(e, "tile_n", 256);
		yemit_knum(e, "k_half", 256);
		yemit_kstr(e, "source", "estimate: not measured, no base model");
		yemit_end_map(e);
	}
	if (ntabs) {
		yemit_key(e, "tables");
		yemit_seq(e, false);
		for (int i = 0; i < ntabs; i++) {
			const struct gemmtab *t = &tabs[i];
			yemit_map(e, false);
			yemit_kstr(e, "dtype", cal_dtype_name(t->dt));
			yemit_knums(e, "m", t->m, t->nm);
			yemit_knums(e, "n", t->n, t->nn);
			yemit_knums(e, "k", t->k, t->nk);
			{
				int total = t->nm * t->nn * t->nk;
				double *r = malloc(sizeof *r * (size_t)total);
				if (r) {
					for (int j = 0; j < total; j++)
						r[j] = sig4(t->eff[j]);
					yemit_knums(e, "eff", r, total);
					free(r);
				} else
					yemit_knums(e, "eff", t->eff, total);
			}
			snprintf(src, sizeof src, "measured: cuBLASLt %s TN, heuristic algo 0, 32 MiB workspace, random "
				 "data, median of %s; eff of %.1f TFLOP/s (%s)%s", cal_dtype_name(t->dt),
				 strcmp(c->id.mode, "quick") == 0 ? "3" : "5", c->peak_tflops[t->dt], c->peak_source,
				 t->nmissing ? "; missing points filled from neighbours" : "");
			yemit_kstr(e, "source", src);
			yemit_end_map(e);
		}
		yemit_end_seq(e);
	}
	yemit_end_map(e);
	for (int i = 0; i < ntabs; i++)
		gemmtab_release(&tabs[i]);
}

/* the unfused attention entry (a map) from the measured point a */
static void emit_unfused(struct yemit *e, const struct calib *c, const struct cal_attn_pt *a, char *src, size_t len)
{
	double f = attn_flops(a), peak = c->peak_tflops[DT_BF16] * 1e12;
	yemit_map(e, true);
	yemit_knum(e, "fwd_eff", round(f / (a->fwd_us * 1e-6) / peak * 1e4) / 1e4);
	yemit_knum(e, "bwd_eff", round(2 * f / (a->bwd_us * 1e-6) / peak * 1e4) / 1e4);
	yemit_kstr(e, "impl", "cublas_unfused");
	snprintf(src, len, "measured: bf16 strided-batched cuBLASLt QK^T and PV + softmax kernels, bh %d, seq %d, "
		 "head_dim %d, no mask; fwd 4*bh*s^2*d FLOPs, bwd 8*bh*s^2*d", a->bh, a->seq, a->head_dim);
	yemit_kstr(e, "source", src);
	yemit_end_map(e);
}

static void emit_gpu(struct yemit *e, const struct calib *c, struct cal_base *b)
{
	char src[512];
	double eff, half, gbps;
	const struct cal_attn_pt *a = attn_pick(c);
	yemit_key(e, "gpu");
	yemit_map(e, false);
	yemit_kstr(e, "name", c->id.gpu_name);
	yemit_kint(e, "sm_count", c->id.sm_count);
	yemit_knum(e, "memory_bytes", c->id.memory_bytes);
	if (c->hbm_gbps > 0)
		yemit_knum(e, "hbm_gbps", round(c->hbm_gbps));
	else if (!copy_base(e, b, "hbm_gbps", "gpu.hbm_gbps"))
		yemit_knum(e, "hbm_gbps", 2000);  /* estimate: nothing measured, no base */
	bool any_peak = false;
	for (int d = 0; d < DT_COUNT; d++)
		any_peak |= c->peak_tflops[d] > 0;
	if (any_peak) {
		yemit_key(e, "peak_tflops");
		yemit_map(e, true);
		for (int d = 0; d < DT_COUNT; d++)
			if (c->peak_tflops[d] > 0)
				yemit_knum(e, cal_dtype_name((enum dtype)d), round(c->peak_tflops[d] * 10) / 10);
		yemit_end_map(e);  /* the loader takes no source here: the peaks' source is in gpu.source and meta */
	} else if (!copy_base(e, b, "peak_tflops", "gpu.peak_tflops")) {
		yemit_key(e, "peak_tflops");
		yemit_map(e, true);
		yemit_knum(e, "bf16", 100);  /* estimate: an unknown GPU with no GEMM measured, no base */
		yemit_end_map(e);
	}
	if (c->have_launch)
		yemit_knum(e, "launch_us", round(c->launch_us * 100) / 100);
	else if (!copy_base(e, b, "launch_us", "gpu.launch_us"))
		yemit_knum(e, "launch_us", 4);
	if (mem_fit(c, &eff, &half, &gbps) == 0) {
		yemit_key(e, "memory_bound");
		yemit_map(e, true);
		yemit_knum(e, "eff", round(eff * 1e3) / 1e3);
		yemit_knum(e, "half_bytes", round(half));
		snprintf(src, sizeof src, "measured: copy kernel %.0f GB/s asymptotic (read + write) of %.0f (%s), "
			 "t = bytes/bw + %.2f us fitted to kernels over 2 launch intervals", gbps, c->hbm_gbps, c->hbm_source,
			 half / (gbps * 1e3));
		yemit_kstr(e, "source", src);
		yemit_end_map(e);
	} else if (!copy_base(e, b, "memory_bound", "gpu.memory_bound")) {
		yemit_key(e, "memory_bound");
		yemit_map(e, true);
		yemit_knum(e, "eff", 0.85);
		yemit_knum(e, "half_bytes", 2e6);
		yemit_kstr(e, "source", "estimate: not measured, no base model");
		yemit_end_map(e);
	}
	sustain_emit_power(e, c, b);
	emit_gemm(e, c, b);
	if (c->nfattn) {
		/* fused families measured through PyTorch, and the unfused path (if measured) beside them */
		yemit_key(e, "attention");
		yemit_map(e, false);
		torchattn_emit(e, c, "flash");
		torchattn_emit(e, c, "cudnn");
		if (a && c->peak_tflops[DT_BF16] > 0) {
			yemit_key(e, "unfused");
			emit_unfused(e, c, a, src, sizeof src);
		}
		yemit_end_map(e);
	} else if (a && c->peak_tflops[DT_BF16] > 0) {
		yemit_key(e, "attention");
		emit_unfused(e, c, a, src, sizeof src);
	} else if (!copy_base(e, b, "attention", "gpu.attention")) {
		yemit_key(e, "attention");
		yemit_map(e, true);
		yemit_knum(e, "fwd_eff", 0.5);
		yemit_knum(e, "bwd_eff", 0.4);
		yemit_kstr(e, "source", "estimate: not measured, no base model");
		yemit_end_map(e);
	}
	snprintf(src, sizeof src, "measured: gpusim calibrate on %s, %s; peaks %s", c->id.host, c->id.date,
		 c->peak_source);
	yemit_kstr(e, "source", src);
	yemit_end_map(e);
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

static void emit_node(struct yemit *e, const struct calib *c, struct cal_base *b)
{
	int links = nvlinks(c);
	char src[256];
	yemit_key(e, "node");
	yemit_map(e, true);
	yemit_kint(e, "gpus", node_gpus(c));
	if (links > 0) {
		double per_link = c->id.cc_major >= 10 ? 50 : 25;  /* NVLink5 : NVLink3/4, GB/s per direction */
		yemit_kstr(e, "fabric", c->id.nvswitch ? "nvswitch" : "nvlink");
		yemit_knum(e, "link_gbps", links * per_link);
		snprintf(src, sizeof src, "measured: %d active NVLinks per GPU (%s) x %.0f GB/s per direction%s", links,
			 c->id.nvlinks > 0 ? "NVML" : "nvidia-smi topo -m", per_link,
			 c->id.nvswitch ? ", links end at NVSwitches" : "");
	} else {
		const struct cal_series *s = find_series(c, SCOPE_INTRA, COLL_SEND_RECV, 2);
		yemit_kstr(e, "fabric", "pcie");
		if (s && s->fitted) {
			yemit_knum(e, "link_gbps", round(fit_bus_gbps(&s->fit.line[s->fit.nlines - 1])));
			snprintf(src, sizeof src, "measured: no NVLink; link_gbps is the NCCL send/recv bandwidth");
		} else if (copy_base(e, b, "link_gbps", "node.link_gbps")) {
			snprintf(src, sizeof src, "measured: no NVLink; link_gbps from preset %s", b->name);
		} else {
			yemit_knum(e, "link_gbps", 25);
			snprintf(src, sizeof src, "measured: no NVLink; link_gbps estimated (PCIe Gen4 x16)");
		}
	}
	if (node_gpus(c) > c->id.ngpus) {
		size_t len = strlen(src);
		snprintf(src + len, sizeof src - len, "; gpus: the host's %d, collectives measured on groups of up to %d",
			 node_gpus(c), c->id.ngpus);
	}
	yemit_kstr(e, "source", src);
	yemit_end_map(e);
}

static void emit_series_lines(struct yemit *e, const struct cal_series *s, bool any_n)
{
	for (int l = 0; l < s->fit.nlines; l++) {
		const struct fit_line *fl = &s->fit.line[l];
		char algo[32];
		snprintf(algo, sizeof algo, "fit%d%s", l + 1, any_n ? "_any_n" : "");
		yemit_map(e, true);
		yemit_kstr(e, "algo", algo);
		if (!any_n)
			yemit_kint(e, "n", s->n);
		yemit_knum(e, "alpha_us", fl->alpha_us);
		yemit_knum(e, "step_us", 0);
		yemit_knum(e, "bus_gbps", fit_bus_gbps(fl));
		if (fl->max_bytes > 0)
			yemit_knum(e, "max_bytes", round(fl->max_bytes));
		yemit_end_map(e);
	}
}

static void emit_coll_scope(struct yemit *e, const struct calib *c, struct cal_base *b, enum coll_scope sc)
{
	char path[96], src[320], nccl[32];
	nccl_version_str(nccl, sizeof nccl, c->id.nccl_version);
	yemit_key(e, cal_scope_name(sc));
	yemit_map(e, false);
	for (int op = 0; op < COLL_NOPS; op++) {
		const struct cal_series *largest = NULL;
		int nser = 0;
		double worst_med = 0, worst_max = 0;
		for (int i = 0; i < c->nseries; i++) {
			const struct cal_series *s = &c->series[i];
			if (s->scope != sc || s->op != (enum coll_op)op || !s->fitted)
				continue;
			nser++;
			if (!largest || s->n > largest->n)
				largest = s;
			worst_med = fmax(worst_med, s->fit.median_rel_err);
			worst_max = fmax(worst_max, s->fit.max_rel_err);
		}
		if (!nser) {
			snprintf(path, sizeof path, "collectives.%s.%s", cal_scope_name(sc), cal_op_name((enum coll_op)op));
			copy_base(e, b, cal_op_name((enum coll_op)op), path);
			continue;
		}
		yemit_key(e, cal_op_name((enum coll_op)op));
		yemit_map(e, false);
		snprintf(src, sizeof src, "measured: NCCL %s, float, out of place, back-to-back ops between CUDA events, "
			 "max over ranks, median of trials; envelope fit w=1/t^2: median rel err <= %.1f%%, max <= %.1f%%; "
			 "lines without n extrapolate from n=%d", nccl, 100 * worst_med, 100 * worst_max, largest->n);
		yemit_kstr(e, "source", src);
		yemit_key(e, "lines");
		yemit_seq(e, false);
		for (int i = 0; i < c->nseries; i++) {
			const struct cal_series *s = &c->series[i];
			if (s->scope == sc && s->op == (enum coll_op)op && s->fitted)
				emit_series_lines(e, s, false);
		}
		emit_series_lines(e, largest, true);
		yemit_end_seq(e);
		yemit_key(e, "tables");
		yemit_seq(e, false);
		for (int i = 0; i < c->nseries; i++) {
			const struct cal_series *s = &c->series[i];
			if (s->scope != sc || s->op != (enum coll_op)op || s->npts < 2)
				continue;
			yemit_map(e, false);
			yemit_kint(e, "n", s->n);
			yemit_knums(e, "bytes", s->bytes, s->npts);
			yemit_knums(e, "time_us", s->us, s->npts);
			yemit_end_map(e);
		}
		yemit_end_seq(e);
		yemit_end_map(e);
	}
	yemit_end_map(e);
}

static bool have_scope(const struct calib *c, enum coll_scope sc)
{
	for (int i = 0; i < c->nseries; i++)
		if (c->series[i].scope == sc && c->series[i].fitted)
			return true;
	return false;
}

int hwyaml_emit(const struct calib *c, const struct hwyaml_opts *o, FILE *f)
{
	struct yemit e;
	struct cal_base *b = o->base && o->base->loaded ? o->base : NULL;
	char buf[320];
	int rc;
	if ((rc = yemit_open(&e, f)))
		return rc;
	yemit_map(&e, false);
	yemit_kstr(&e, "schema", "gpusim-hw/1");
	yemit_kstr(&e, "name", o->name);
	/* one node and a base that is a built-in preset: the file claims only what it measured (the GPU, the
	 * collectives of the groups it had, the overlap) and names the preset as its base for the node, the network,
	 * the inter-node collectives and the cost (docs/calibration.md, "What a calibration claims") */
	const char *bp = b && c->id.nodes <= 1 ? base_preset_name(b) : NULL;
	if (bp)
		yemit_kstr(&e, "base", bp);
	snprintf(buf, sizeof buf, "%d x %s measured by gpusim calibrate (%s) on %s, %s%s", c->id.ngpus,
		 c->id.gpu_name, c->id.mode, c->id.host, c->id.date, c->status[0] ? " (stopped early)" : "");
	yemit_kstr(&e, "description", buf);
	if (bp)
		snprintf(buf, sizeof buf, "measured: gpusim calibrate %s; node, network, inter-node collectives and cost "
			 "not measured: base %s (the host's node is under meta.node)", GPUSIM_VERSION, bp);
	else if (b)
		snprintf(buf, sizeof buf, "measured: gpusim calibrate %s; network, inter-node collectives and cost from "
			 "preset %s", GPUSIM_VERSION, b->name);
	else
		snprintf(buf, sizeof buf, "measured: gpusim calibrate %s", GPUSIM_VERSION);
	yemit_kstr(&e, "source", buf);
	emit_meta(&e, c, b, bp != NULL);
	emit_gpu(&e, c, b);
	if (!bp)
		emit_node(&e, c, b);
	if (!bp && !copy_base(&e, b, "network", "network")) {
		yemit_key(&e, "network");
		yemit_map(&e, true);
		yemit_kint(&e, "nics", 8);
		yemit_knum(&e, "nic_gbps", 50);
		yemit_knum(&e, "latency_us", 5);
		yemit_knum(&e, "oversubscription", 1);
		yemit_kstr(&e, "source", "estimate: not measurable on one machine and no base model: one 400 Gb/s NIC "
			   "per GPU assumed");
		yemit_end_map(&e);
	}
	yemit_key(&e, "collectives");
	yemit_map(&e, false);
	if (have_scope(c, SCOPE_INTRA))
		emit_coll_scope(&e, c, b, SCOPE_INTRA);
	else if (!bp)
		copy_base(&e, b, "intra", "collectives.intra");
	if (have_scope(c, SCOPE_INTER))
		emit_coll_scope(&e, c, b, SCOPE_INTER);
	else if (!bp)
		copy_base(&e, b, "inter", "collectives.inter");
	yemit_end_map(&e);
	if (c->overlap.have && c->overlap.gemm_us > 0 && c->overlap.comm_us > 0) {
		const struct cal_overlap *ov = &c->overlap;
		yemit_key(&e, "overlap");
		yemit_map(&e, true);
		yemit_knum(&e, "compute_slowdown", round(fmax(0, ov->gemm_busy_us / ov->gemm_us - 1) * 1e3) / 1e3);
		yemit_knum(&e, "comm_slowdown", round(fmax(0, ov->comm_busy_us / ov->comm_us - 1) * 1e3) / 1e3);
		snprintf(buf, sizeof buf, "measured: %s %ldx%ldx%ld GEMMs beside %.0f MiB all-reduces on another stream "
			 "of the same %d GPUs, against each alone", cal_dtype_name(ov->dt), ov->m, ov->n, ov->k,
			 ov->comm_bytes / 1048576, ov->ranks);
		yemit_kstr(&e, "source", buf);
		yemit_end_map(&e);
	} else if (!bp)
		copy_base(&e, b, "overlap", "overlap");
	if (!bp)
		copy_base(&e, b, "cost", "cost");
	yemit_end_map(&e);
	rc = yemit_close(&e);
	if (rc)
		fprintf(stderr, "gpusim: cannot write the hardware model: %s\n", e.error);
	return rc;
}

int hwyaml_write(const struct calib *c, const struct hwyaml_opts *o, const char *path)
{
	struct outfile out;  /* a temporary beside path, renamed into place only when the whole model was written */
	int rc = outfile_open(&out, path);
	if (rc)
		return rc;
	if ((rc = hwyaml_emit(c, o, out.f)) != 0) {
		outfile_discard(&out);
		return rc;
	}
	return outfile_commit(&out);
}
