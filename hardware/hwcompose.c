/* hwcompose: a measured GPU inside a cluster's node and network (`--gpu FILE`, hwmodel_compose), a node grown
 * from a smaller NVSwitch measurement by NCCL's ring, and a measured GPU carried to another GPU's datasheet
 * (`--target-gpu`, hwmodel_retarget). Rules and expected errors: docs/hardware-model.md, "Compose".
 *
 * Invariant: the models made here are copies of loaded (checked) models whose tables keep increasing axes and
 * positive times, so the lookups in hwmodel.c hold for them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hardware/hwmodel.h"
#include "util/xalloc.h"

/* NCCL's per-step ring latency over NVLink (NVIDIA/nccl src/graph/tuning.cc, hwLat[NVLINK][RING]): LL 0.6 us,
 * used while a step moves at most LL_MAX_BYTES per link (NCCL's LL protocol range), LL128 1.9 us above. */
#define RING_STEP_LL_US 0.6
#define RING_STEP_LL128_US 1.9
#define LL_MAX_BYTES 65536.0

static void add_line(struct coll_model *cm, const struct coll_line *l)
{
	cm->lines = xrealloc(cm->lines, (size_t)(cm->nlines + 1) * sizeof *cm->lines);
	cm->lines[cm->nlines++] = *l;
}

static void add_table(struct coll_model *cm, int n, int npts, const double *bytes, const double *time_us)
{
	cm->tables = xrealloc(cm->tables, (size_t)(cm->ntables + 1) * sizeof *cm->tables);
	struct coll_table *t = &cm->tables[cm->ntables++];
	t->n = n;
	t->npts = npts;
	t->bytes = xcalloc((size_t)npts, sizeof *t->bytes);
	t->time_us = xcalloc((size_t)npts, sizeof *t->time_us);
	memcpy(t->bytes, bytes, (size_t)npts * sizeof *bytes);
	memcpy(t->time_us, time_us, (size_t)npts * sizeof *time_us);
}

/* The lines of src that apply to a group of exactly n, added to dst with n set (so that they apply to n only). */
static void add_lines_for(struct coll_model *dst, const struct coll_model *src, int n)
{
	for (int i = 0; i < src->nlines; i++)
		if (src->lines[i].n == 0 || src->lines[i].n == n) {
			struct coll_line l = src->lines[i];
			l.n = n;
			add_line(dst, &l);
		}
}

static const struct coll_table *table_for(const struct coll_model *cm, int n)
{
	for (int i = 0; i < cm->ntables; i++)
		if (cm->tables[i].n == n)
			return &cm->tables[i];
	return NULL;
}

/* Grows the measured curve of m ranks to n > m ranks on an NVSwitch node. NCCL's ring moves busfactor(op, n) of the
 * bytes through each GPU's link (nccl-tests doc/PERFORMANCE.md: busBw = algBw * 2(n-1)/n for all-reduce, (n-1)/n
 * for all-gather and reduce-scatter), and through a switch every GPU keeps its full link whatever n is, so a
 * collective of B bytes on n ranks moves per link what one of B * busfactor(op, n) / busfactor(op, m) bytes moves
 * on m ranks; the ring has steps(op, n) steps (2(n-1) for all-reduce, n-1 for the others) where m ranks had
 * steps(op, m), each costing NCCL's per-step NVLink latency. So time_n(B) = time_m(B * bf_n / bf_m) +
 * (steps_n - steps_m) * step_us. A table becomes a table on the scaled axis; a line keeps its bus bandwidth (it is
 * already per link) and gains the extra steps' latency. */
static void grow(struct coll_model *dst, const struct coll_model *meas, enum coll_op op, int m, int n)
{
	double bfm = coll_busfactor(op, m), bfn = coll_busfactor(op, n);
	double extra = coll_steps(op, n) - coll_steps(op, m);
	const struct coll_table *t = table_for(meas, m);
	if (t && bfm > 0 && bfn > 0) {
		double *b = xcalloc((size_t)t->npts, sizeof *b), *us = xcalloc((size_t)t->npts, sizeof *us);
		for (int i = 0; i < t->npts; i++) {
			double per_link = t->bytes[i] * bfm / (double)m;  /* bytes one step moves over a link */
			b[i] = t->bytes[i] * bfm / bfn;
			us[i] = t->time_us[i] + extra * (per_link <= LL_MAX_BYTES ? RING_STEP_LL_US : RING_STEP_LL128_US);
		}
		add_table(dst, n, t->npts, b, us);
		free(b);
		free(us);
	}
	for (int i = 0; i < meas->nlines; i++)
		if (meas->lines[i].n == 0 || meas->lines[i].n == m) {
			struct coll_line l = meas->lines[i];
			l.n = n;
			l.alpha_us += extra * RING_STEP_LL128_US;
			add_line(dst, &l);
		}
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void note_add(struct hwmodel *hw, const char *text)
{
	size_t used = strlen(hw->origin.note);
	snprintf(hw->origin.note + used, sizeof hw->origin.note - used, "%s%s", used ? "; " : "", text);
}

static const char *const fabric_label[] = { "nvswitch", "nvlink", "pcie" };

struct hwmodel *hwmodel_compose(const struct hwmodel *cluster, const struct hwmodel *measured)
{
	struct hwmodel *hw = hwmodel_copy(cluster);
	struct hwmodel *tmp = hwmodel_copy(measured);
	struct hw_gpu g = hw->gpu;  /* swap: hw takes the measured GPU, tmp the cluster's (freed with tmp) */
	hw->gpu = tmp->gpu;
	tmp->gpu = g;
	if (!starts(measured->host.source, "none:"))
		hw->host = measured->host;
	snprintf(hw->name, sizeof hw->name, "%.30s@%.32s", measured->name, cluster->name);
	snprintf(hw->base, sizeof hw->base, "%s", cluster->name);
	if (measured->description[0])  /* what the model is: the measured GPU, in the cluster's node and network */
		snprintf(hw->description, sizeof hw->description, "%.380s, in the node and network of %.100s",
			 measured->description, cluster->name);
	hw->origin = cluster->origin;
	hw->origin.composed = true;
	hw->origin.calibrated = false;
	hw->origin.note[0] = '\0';
	snprintf(hw->origin.gpu, sizeof hw->origin.gpu, "%s", measured->origin.gpu);

	int m = measured->origin.measured_group, nodeg = cluster->node.gpus;
	enum fabric mfab = measured->origin.host_gpus ? measured->origin.host_fabric : measured->node.fabric;
	int mgpus = measured->origin.host_gpus ? measured->origin.host_gpus : measured->node.gpus;
	bool same = strcmp(measured->gpu.name, cluster->gpu.name) == 0 && mfab == cluster->node.fabric;
	char buf[400];
	if (strcmp(measured->gpu.name, cluster->gpu.name) != 0) {
		snprintf(buf, sizeof buf, "GPU %.60s (measured) in the node of %.40s, which holds %.60s", measured->gpu.name,
			 cluster->name, cluster->gpu.name);
		note_add(hw, buf);
	}
	if (m >= 2 && same) {
		bool grown = cluster->node.fabric == FABRIC_NVSWITCH && nodeg > m;
		for (int op = 0; op < COLL_NOPS; op++) {
			const struct coll_model *mc = &measured->coll[SCOPE_INTRA][op];
			struct coll_model *cm = &hw->coll[SCOPE_INTRA][op];
			if (mc->nlines + mc->ntables == 0 || !starts(mc->source, "measured"))
				continue;  /* not measured (a calibration's copy of its base): the cluster's */
			struct coll_model pre = *cm;  /* the cluster's curves, for groups the measurement cannot grow to */
			memset(cm, 0, sizeof *cm);
			snprintf(cm->source, sizeof cm->source, "%.127s", mc->source);
			for (int k = 2; k <= m && k <= nodeg; k++) {
				const struct coll_table *t = table_for(mc, k);
				if (t)
					add_table(cm, k, t->npts, t->bytes, t->time_us);
				add_lines_for(cm, mc, k);
			}
			for (int k = m + 1; k <= nodeg; k++) {
				if (grown)
					grow(cm, mc, (enum coll_op)op, m, k);
				else {
					const struct coll_table *t = table_for(&pre, k);
					if (t)
						add_table(cm, k, t->npts, t->bytes, t->time_us);
					add_lines_for(cm, &pre, k);
				}
			}
			hwmodel_coll_clear(&pre);
		}
		hw->overlap_compute_slowdown = measured->overlap_compute_slowdown;
		hw->overlap_comm_slowdown = measured->overlap_comm_slowdown;
		hw->overlap_tp_set = measured->overlap_tp_set;
		hw->overlap_tp_compute_slowdown = measured->overlap_tp_compute_slowdown;
		hw->overlap_tp_comm_slowdown = measured->overlap_tp_comm_slowdown;
		snprintf(hw->overlap_source, sizeof hw->overlap_source, "%s", measured->overlap_source);
		if (grown)
			snprintf(hw->origin.intra, sizeof hw->origin.intra,
				 "measured (%.80s) for groups of 2 to %d; groups of %d to %d grown from them by NCCL's ring on "
				 "NVSwitch",
				 measured->path, m, m + 1, nodeg);
		else
			snprintf(hw->origin.intra, sizeof hw->origin.intra, "measured (%.80s) for groups of 2 to %d%s%.40s",
				 measured->path, m, nodeg > m ? "; larger groups: preset " : "",
				 nodeg > m ? cluster->name : "");
	} else {
		if (m < 2)  /* a calibration of one GPU: nothing of the node was measured */
			snprintf(buf, sizeof buf, "intra-node collectives are %.40s's: the calibration measured no group "
				 "of GPUs", cluster->name);
		else
			snprintf(buf, sizeof buf, "intra-node collectives are %.40s's: the measured node (%d x %.40s, %s) "
				 "is not the same kind as the target (%d x %.40s, %s)",
				 cluster->name, mgpus, measured->gpu.name, fabric_label[mfab], nodeg,
				 cluster->gpu.name, fabric_label[cluster->node.fabric]);
		if (m >= 2 || mgpus > 1)
			note_add(hw, buf);
		snprintf(hw->origin.intra, sizeof hw->origin.intra, "preset %.60s%s", cluster->name,
			 m < 2 ? " (none measured)" : " (measured node of another kind)");
	}
	snprintf(hw->origin.node, sizeof hw->origin.node, "preset %.60s (node of %d, network)", cluster->name, nodeg);
	/* what the composed model measured, as a second composition reads it: a calibration that names its base is
	 * composed into it as it loads, and `--hw PRESET --gpu FILE` composes that again (loadhw.c) */
	hw->origin.measured_group = m >= 2 && same ? (m < nodeg ? m : nodeg) : 0;
	hw->origin.host_gpus = mgpus;
	hw->origin.host_fabric = mfab;
	hwmodel_free(tmp);
	return hw;
}

void hwmodel_retarget(struct hwmodel *hw, const struct hwmodel *target)
{
	struct hw_gpu *g = &hw->gpu;
	const struct hw_gpu *t = &target->gpu;
	char buf[480];
	double bf = g->peak_tflops[DT_BF16] > 0 && t->peak_tflops[DT_BF16] > 0 ? t->peak_tflops[DT_BF16] /
										    g->peak_tflops[DT_BF16] : 1;
	for (int p = 0; p < ATTN_PATHS; p++)  /* measured attention rows are TFLOP/s: carried as fractions of bf16 */
		for (int i = 0; i < g->attn[p].nrows; i++) {
			g->attn[p].row[i].fwd_tflops *= bf;
			g->attn[p].row[i].bwd_tflops *= bf;
		}
	snprintf(buf, sizeof buf, "GPU rates carried from %.50s to %.50s: GEMM, attention and memory-bound "
		 "efficiencies (achieved/peak) as measured, peaks (bf16 %g -> %g TFLOP/s), HBM (%g -> %g GB/s), SMs and "
		 "memory from the %.40s datasheet", g->name, t->name, g->peak_tflops[DT_BF16], t->peak_tflops[DT_BF16],
		 g->hbm_gbps, t->hbm_gbps, target->name);
	for (int dt = 0; dt < DT_COUNT; dt++)
		g->peak_tflops[dt] = t->peak_tflops[dt];
	g->peak_fp4_tflops = t->peak_fp4_tflops;
	g->hbm_gbps = t->hbm_gbps;
	g->memory_bytes = t->memory_bytes;
	g->sm_count = t->sm_count;
	snprintf(g->name, sizeof g->name, "%s", t->name);
	char name[64];
	snprintf(name, sizeof name, "%.40s~%.22s", hw->name, target->name);  /* "measured@cluster~target" */
	snprintf(hw->name, sizeof hw->name, "%s", name);
	size_t used = strlen(hw->origin.note);
	snprintf(hw->origin.note + used, sizeof hw->origin.note - used, "%s%s", used ? "; " : "", buf);
	used = strlen(hw->origin.gpu);
	snprintf(hw->origin.gpu + used, sizeof hw->origin.gpu - used, ", carried to %s", target->name);
}
