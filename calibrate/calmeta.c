/* calmeta: a calibration's provenance, the `meta:` tree of the model it writes (hardware/hwwrite_meta.c writes it):
 * the tool and its mode, the machine's identity, versions and topology, clocks and throttling during the run, the
 * raw measurements behind each fitted section and the fits' residuals. Free-form for the loader (which reads only
 * meta.node); for a person checking where a number came from. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "calibrate/calib.h"
#include "calibrate/calmeta.h"
#include "calibrate/sustain.h"
#include "calibrate/gemmtab.h"
#include "util/ybuild.h"

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

static void emit_versions(struct ybuild *e, const struct calib *c)
{
	char buf[32];
	ybuild_key(e, "versions");
	ybuild_map(e, true);
	ybuild_kstr(e, "driver", c->id.driver[0] ? c->id.driver : "unknown");
	version_str(buf, sizeof buf, c->id.cuda_runtime, 1000, 10, 100);
	ybuild_kstr(e, "cuda_runtime", buf);
	version_str(buf, sizeof buf, c->id.cuda_driver, 1000, 10, 100);
	ybuild_kstr(e, "cuda_driver", buf);
	if (c->id.cublaslt_version > 0) {
		snprintf(buf, sizeof buf, "%d.%d.%d", c->id.cublaslt_version / 10000, (c->id.cublaslt_version / 100) % 100,
			 c->id.cublaslt_version % 100);
		ybuild_kstr(e, "cublaslt", buf);
	}
	calib_nccl_version(buf, sizeof buf, c->id.nccl_version);
	ybuild_kstr(e, "nccl", buf);
	ybuild_end(e);
}

static void emit_matrix_int(struct ybuild *e, const char *key, int n, int (*get)(const struct calib *, int, int),
			    const struct calib *c)
{
	ybuild_key(e, key);
	ybuild_seq(e, false);
	for (int i = 0; i < n; i++) {
		ybuild_seq(e, true);
		for (int j = 0; j < n; j++)
			ybuild_int(e, get(c, i, j));
		ybuild_end(e);
	}
	ybuild_end(e);
}

static int get_p2p(const struct calib *c, int i, int j) { return c->id.p2p[i][j]; }
static int get_nv(const struct calib *c, int i, int j) { return c->id.topo_nv[i][j]; }

/* the run and the machine: tool, mode, status, date, host, GPUs, versions, environment */
static void meta_identity(struct ybuild *e, const struct calib *c)
{
	char buf[160];
	ybuild_kstr(e, "tool", "gpusim calibrate " GPUSIM_VERSION);
	ybuild_kstr(e, "mode", c->id.mode);
	ybuild_kstr(e, "status", c->status[0] ? c->status : "complete");
	ybuild_kstr(e, "date", c->id.date);
	ybuild_kstr(e, "host", c->id.host);
	ybuild_kint(e, "nodes", c->id.nodes);
	ybuild_kint(e, "gpus", c->id.ngpus);
	ybuild_kint(e, "host_gpus", calib_node_gpus(c));
	ybuild_key(e, "gpu");
	ybuild_map(e, true);
	ybuild_kstr(e, "name", c->id.gpu_name);
	snprintf(buf, sizeof buf, "%d.%d", c->id.cc_major, c->id.cc_minor);
	ybuild_kstr(e, "compute_capability", buf);
	ybuild_kint(e, "sm_count", c->id.sm_count);
	ybuild_knum(e, "memory_bytes", c->id.memory_bytes);
	ybuild_knum(e, "l2_bytes", c->id.l2_bytes);
	ybuild_kint(e, "sm_clock_max_mhz", c->id.sm_clock_max_mhz);
	ybuild_kint(e, "mem_clock_max_mhz", c->id.mem_clock_max_mhz);
	ybuild_knum(e, "power_limit_w", c->id.power_limit_w);
	ybuild_end(e);
	emit_versions(e, c);
	ybuild_kstr(e, "env", c->id.env);
}

/* how the GPUs connect: NVLinks, peer access, nvidia-smi topo -m */
static void meta_topology(struct ybuild *e, const struct calib *c)
{
	int n = c->id.ngpus < CAL_MAX_GPUS ? c->id.ngpus : CAL_MAX_GPUS;
	ybuild_key(e, "topology");
	ybuild_map(e, false);
	ybuild_kint(e, "nvlinks_per_gpu", c->id.nvlinks);
	ybuild_kbool(e, "nvlink_to_nvswitch", c->id.nvswitch);
	if (n > 0) {
		emit_matrix_int(e, "p2p", n, get_p2p, c);
		emit_matrix_int(e, "nvlinks", n, get_nv, c);
	}
	if (c->id.topo_text[0]) {
		ybuild_key(e, "nvidia_smi_topo");
		ybuild_literal(e, c->id.topo_text);
	}
	ybuild_end(e);
}

/* clocks, throttle reasons, power and temperature after each phase; the launch interval */
static void meta_clocks(struct ybuild *e, const struct calib *c)
{
	char buf[32];
	if (c->nclocks) {
		ybuild_key(e, "clocks");
		ybuild_seq(e, false);
		for (int i = 0; i < c->nclocks; i++) {
			const struct cal_clock *k = &c->clocks[i];
			ybuild_map(e, true);
			ybuild_kstr(e, "after", k->phase);
			ybuild_kint(e, "sm_mhz", k->sm_mhz);
			ybuild_kint(e, "mem_mhz", k->mem_mhz);
			snprintf(buf, sizeof buf, "0x%llx", k->reasons);
			ybuild_kstr(e, "throttle_reasons", buf);
			ybuild_knum(e, "power_w", round(k->power_w));
			ybuild_knum(e, "temp_c", k->temp_c);
			ybuild_end(e);
		}
		ybuild_end(e);
	}
	if (c->have_launch) {
		ybuild_key(e, "launch");
		ybuild_map(e, true);
		ybuild_knum(e, "back_to_back_us", c->launch_us);
		ybuild_knum(e, "roundtrip_us", c->launch_roundtrip_us);
		ybuild_end(e);
	}
}

/* the bf16 reference product (measured on its own, before the sweep warmed the GPU up to its power limit) and the scenario's exact GEMM shapes */
static void meta_gemms(struct ybuild *e, const struct calib *c)
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
		ybuild_key(e, "gemm_reference");
		ybuild_map(e, true);
		ybuild_kstr(e, "dtype", "bf16");
		ybuild_kint(e, "m", p->m);
		ybuild_kint(e, "n", p->n);
		ybuild_kint(e, "k", p->k);
		ybuild_knum(e, "us", p->us);
		ybuild_knum(e, "tflops", gemm_tflops(p->m, p->n, p->k, p->us));
		ybuild_kstr(e, "algo", p->algo);
		ybuild_end(e);
	}
	for (int i = 0; i < c->nshapes; i++) {
		const struct cal_shape *s = &c->shapes[i];
		const struct cal_gemm_pt *p = calib_find_gemm(c, s->dt, s->m, s->n, s->k);
		if (!any) {
			ybuild_key(e, "scenario_gemms");
			ybuild_seq(e, false);
			any = true;
		}
		ybuild_map(e, true);
		ybuild_kstr(e, "name", s->name);
		ybuild_kstr(e, "dtype", cal_dtype_name(s->dt));
		ybuild_kint(e, "m", s->m);
		ybuild_kint(e, "n", s->n);
		ybuild_kint(e, "k", s->k);
		if (p) {
			double tf = gemm_tflops(p->m, p->n, p->k, p->us);
			ybuild_knum(e, "us", p->us);
			ybuild_knum(e, "tflops", tf);
			if (c->peak_tflops[s->dt] > 0)
				ybuild_knum(e, "eff", tf / c->peak_tflops[s->dt]);
		}
		ybuild_end(e);
	}
	if (any)
		ybuild_end(e);
}
/* A GEMM timed beside a collective (meta.overlap: an all-reduce; meta.overlap_all_gather: an all-gather): the
 * shapes, and each one's time alone and together, under key, the collective's figures named after coll. */
static void overlap_meta(struct ybuild *e, const char *key, const char *coll, const struct cal_overlap *o)
{
	char name[48];
	ybuild_key(e, key);
	ybuild_map(e, true);
	ybuild_kstr(e, "gemm", cal_dtype_name(o->dt));
	ybuild_kint(e, "m", o->m);
	ybuild_kint(e, "n", o->n);
	ybuild_kint(e, "k", o->k);
	snprintf(name, sizeof name, "%s_bytes", coll);
	ybuild_knum(e, name, o->comm_bytes);
	ybuild_kint(e, "ranks", o->ranks);
	ybuild_knum(e, "gemm_us", o->gemm_us);
	ybuild_knum(e, "gemm_busy_us", o->gemm_busy_us);
	snprintf(name, sizeof name, "%s_us", coll);
	ybuild_knum(e, name, o->comm_us);
	snprintf(name, sizeof name, "%s_busy_us", coll);
	ybuild_knum(e, name, o->comm_busy_us);
	ybuild_end(e);
}


/* the raw memory-bound and attention points and the overlap measurement behind the fitted sections */
static void meta_points(struct ybuild *e, const struct calib *c)
{
	if (c->nmem) {
		ybuild_key(e, "memory_bound_gbps");
		ybuild_seq(e, false);
		for (int i = 0; i < c->nmem; i++) {
			const struct cal_mem_pt *m = &c->mem[i];
			ybuild_map(e, true);
			ybuild_kstr(e, "kernel", m->kind == CAL_MEM_COPY ? "copy" : "add");
			ybuild_knum(e, "bytes", m->bytes);
			ybuild_knum(e, "us", m->us);
			ybuild_knum(e, "gbps", m->bytes / (m->us * 1e3));
			ybuild_end(e);
		}
		ybuild_end(e);
	}
	if (c->nattn) {
		ybuild_key(e, "attention");
		ybuild_seq(e, false);
		for (int i = 0; i < c->nattn; i++) {
			const struct cal_attn_pt *a = &c->attn[i];
			double f = calib_attn_flops(a);
			ybuild_map(e, true);
			ybuild_kint(e, "bh", a->bh);
			ybuild_kint(e, "seq", a->seq);
			ybuild_kint(e, "head_dim", a->head_dim);
			ybuild_knum(e, "fwd_us", a->fwd_us);
			ybuild_knum(e, "bwd_us", a->bwd_us);
			ybuild_knum(e, "fwd_tflops", f / (a->fwd_us * 1e6));
			ybuild_knum(e, "bwd_tflops", 2 * f / (a->bwd_us * 1e6));
			ybuild_end(e);
		}
		ybuild_end(e);
	}
	sustain_meta(e, c);
	if (c->overlap.have)
		overlap_meta(e, "overlap", "all_reduce", &c->overlap);
	if (c->overlap_ag.have)
		overlap_meta(e, "overlap_all_gather", "all_gather", &c->overlap_ag);
}

/* each collective series' fit: lines, relative errors per point, the spread of the trials */
static void meta_fits(struct ybuild *e, const struct calib *c)
{
	if (c->nseries) {
		ybuild_key(e, "fit");
		ybuild_seq(e, false);
		for (int i = 0; i < c->nseries; i++) {
			const struct cal_series *s = &c->series[i];
			struct fit_result f = s->fit;
			double err[CAL_MAX_PTS];
			ybuild_map(e, false);
			ybuild_kstr(e, "scope", cal_scope_name(s->scope));
			ybuild_kstr(e, "op", cal_op_name(s->op));
			ybuild_kint(e, "n", s->n);
			if (s->fitted) {
				fit_errors(&f, s->bytes, s->us, s->npts, err);
				for (int j = 0; j < s->npts; j++)
					err[j] = round(err[j] * 1e4) / 1e4;
				ybuild_kint(e, "lines", f.nlines);
				ybuild_knum(e, "median_rel_err", round(f.median_rel_err * 1e4) / 1e4);
				ybuild_knum(e, "max_rel_err", round(f.max_rel_err * 1e4) / 1e4);
				ybuild_knum(e, "rms_rel_err", round(f.rms_rel_err * 1e4) / 1e4);
				ybuild_knums(e, "rel_err", err, s->npts);
			} else
				ybuild_kstr(e, "fit", "none");
			ybuild_knums(e, "time_min_us", s->min_us, s->npts);
			ybuild_knums(e, "time_max_us", s->max_us, s->npts);
			ybuild_end(e);
		}
		ybuild_end(e);
	}
}

/* The provenance tree; host_node: the measuring host's node under meta.node (a fact, not a claim about the
 * cluster: a based model's node and network come from its base). */
static void emit_meta(struct ybuild *e, const struct calib *c, const struct hw_node *host_node)
{
	ybuild_map(e, false);
	meta_identity(e, c);
	meta_topology(e, c);
	ybuild_kstr(e, "peak_source", c->peak_source);
	meta_clocks(e, c);
	meta_gemms(e, c);
	meta_points(e, c);
	meta_fits(e, c);
	if (host_node) {
		ybuild_key(e, "node");
		ybuild_map(e, true);
		ybuild_kint(e, "gpus", host_node->gpus);
		ybuild_kstr(e, "fabric", hwmodel_fabric_name(host_node->fabric));
		ybuild_knum(e, "link_gbps", host_node->link_gbps);
		ybuild_kstr(e, "source", host_node->source);
		ybuild_end(e);
	}
	ybuild_end(e);
}

int calmeta_build(const struct calib *c, const struct hw_node *host_node, struct ybuild *b)
{
	int rc = ybuild_init(b);
	if (rc)
		return rc;
	emit_meta(b, c, host_node);
	if ((rc = ybuild_finish(b)) != 0)
		ybuild_release(b);
	return rc;
}
