/* hwlookup: the questions the simulator asks a hardware model: GEMM efficiency, attention rate, memory-bound
 * bandwidth, collective time (hwmodel.h). Formulas and lookup order: docs/hardware-model.md.
 *
 * Invariant: the lookups read only models that hwload_parse accepted (positive peaks, bandwidths and tile
 * sizes, strictly increasing table axes), so they never divide by zero and always return a finite value. */
#include <math.h>
#include <string.h>
#include <stdbool.h>

#include "hardware/hwmodel.h"

/* NCCL's ring Simple latencies (src/graph/tuning.cc): base 8.4 us, per step 3.4 us over NVLink, 5.7 us over PCIe;
 * used only by the fallback when a scope/op has no line that applies. */
#define FALLBACK_BASE_US 8.4
#define FALLBACK_NVLINK_STEP_US 3.4
#define FALLBACK_PCIE_STEP_US 5.7

/* Where x falls on axis a[0..n-1] in log2 space: *i and weight *w of a[*i + 1]; clamped at both ends. */
static void axis_locate(const double *a, int n, double x, int *i, double *w)
{
	*i = 0;
	*w = 0;
	if (n < 2 || x <= a[0])
		return;
	if (x >= a[n - 1]) {
		*i = n - 1;
		return;
	}
	int j = 0;
	while (j + 1 < n - 1 && a[j + 1] <= x)
		j++;
	*i = j;
	*w = (log2(x) - log2(a[j])) / (log2(a[j + 1]) - log2(a[j]));
}

/* The rate of rows r[0..n-1] (those of one head dimension and mask, in row order) at sequence s, interpolated in
 * bh among them (sorted by bh, in row order where equal); the last by bh where bh is 0 or the rows have none. */
static double seq_rate(const struct attn_row *const *r, int n, double s, bool backward, double bh)
{
	double b[HW_ATTN_ROWS], v[HW_ATTN_ROWS];
	int nb = 0;
	for (int j = 0; j < n; j++) {
		const struct attn_row *q = r[j];
		if (q->seq != s)
			continue;
		int at = nb++;
		while (at > 0 && b[at - 1] > q->bh) {
			b[at] = b[at - 1];
			v[at] = v[at - 1];
			at--;
		}
		b[at] = q->bh;
		v[at] = backward ? q->bwd_tflops : q->fwd_tflops;
	}
	double x = v[nb - 1];
	if (bh > 0 && b[0] > 0) {
		int ib;
		double wb;
		axis_locate(b, nb, bh, &ib, &wb);
		x = v[ib] + wb * (v[ib + (wb > 0)] - v[ib]);
	}
	return x;
}

/* The rate at (seq, bh) from the rows of head dimension hd and mask causal, or -1 when there are none: at each
 * seq measured, the rate at bh log2-interpolated between its rows' bh (clamped; bh <= 0 or rows without bh: the
 * row of the largest bh), then log2-interpolated between the seqs (clamped); only the two seqs around seq are
 * evaluated (seq_rate), over the rows of (hd, causal) gathered once. */
static double attn_rate(const struct hw_attn *a, int hd, bool causal, double seq, bool backward, double bh)
{
	/* the rows of (hd, causal) in row order, and their distinct sequence lengths, sorted */
	const struct attn_row *rows[HW_ATTN_ROWS];
	double seqs[HW_ATTN_ROWS];
	int nr = 0, ns = 0;
	for (int i = 0; i < a->nrows; i++) {
		const struct attn_row *r = &a->row[i];
		if (r->head_dim != hd || r->causal != causal)
			continue;
		rows[nr++] = r;
		int k = 0;
		while (k < ns && seqs[k] < r->seq)
			k++;
		if (k < ns && seqs[k] == r->seq)
			continue;
		for (int m = ns; m > k; m--)
			seqs[m] = seqs[m - 1];
		seqs[k] = r->seq;
		ns++;
	}
	if (ns == 0)
		return -1;
	int i;
	double w;
	axis_locate(seqs, ns, seq, &i, &w);
	double lo = seq_rate(rows, nr, seqs[i], backward, bh);
	double hi = w > 0 ? seq_rate(rows, nr, seqs[i + 1], backward, bh) : lo;
	return lo + w * (hi - lo);
}

double hwmodel_attn_tflops(const struct hwmodel *hw, enum attn_path p, enum dtype dt, double seq, int hd, bool causal,
			   bool backward)
{
	return hwmodel_attn_tflops_bh(hw, p, dt, seq, hd, causal, backward, 0);
}

double hwmodel_attn_tflops_bh(const struct hwmodel *hw, enum attn_path p, enum dtype dt, double seq, int hd,
			      bool causal, bool backward, double bh)
{
	const struct hw_attn *a = &hw->gpu.attn[p];
	if (!a->present)
		return 0;
	double scale = a->burst && !a->max_clock ? 1 / hw->gpu.burst_speedup : 1;
	if (a->nrows == 0)
		return scale * (backward ? a->bwd_eff : a->fwd_eff) * hw->gpu.peak_tflops[dt];
	/* the nearest head dimension (log distance, i.e. the ratio's distance from 1 either way; the smaller on a
	 * tie) */
	int best = a->row[0].head_dim;
	double db = best > hd ? (double)best / hd : (double)hd / best;
	for (int i = 1; i < a->nrows && db > 1; i++) {
		int h = a->row[i].head_dim;
		if (h == best)  /* a row of the head dimension held changes nothing (most rows repeat it) */
			continue;
		double dn = h > hd ? (double)h / hd : (double)hd / h;
		if (dn < db || (dn == db && h < best))
			best = h, db = dn;
	}
	double r = attn_rate(a, best, causal, seq, backward, bh);
	if (r > 0)
		return scale * r;
	/* only the other mask at that head dimension: take it times the mask's ratio at a head dimension that has
	 * both (the first in the file), else as it is */
	r = attn_rate(a, best, !causal, seq, backward, bh);
	for (int i = 0; i < a->nrows; i++) {
		double num = attn_rate(a, a->row[i].head_dim, causal, seq, backward, bh);
		double den = attn_rate(a, a->row[i].head_dim, !causal, seq, backward, bh);
		if (num > 0 && den > 0)
			return scale * r * num / den;
	}
	return scale * r;
}

static double table_eff(const struct gemm_table *t, double m, double n, double k)
{
	int im, in, ik;
	double wm, wn, wk, eff = 0;
	axis_locate(t->m, t->nm, m, &im, &wm);
	axis_locate(t->n, t->nn, n, &in, &wn);
	axis_locate(t->k, t->nk, k, &ik, &wk);
	for (int c = 0; c < 8; c++) {
		int dm = c >> 2 & 1, dn = c >> 1 & 1, dk = c & 1;
		double w = (dm ? wm : 1 - wm) * (dn ? wn : 1 - wn) * (dk ? wk : 1 - wk);
		if (w == 0)
			continue;
		eff += w * t->eff[((im + dm) * t->nn + (in + dn)) * t->nk + (ik + dk)];
	}
	return eff;
}

/* The analytic model's shape terms: wave quantization of the m x n tiles over the SMs, and k/(k + k_half). A GEMM
 * whose tiles leave SMs idle has its k split (cuBLAS's split-K, stream-K on Hopper): s slices of k/s make
 * tiles * s units of work, each as short as k/s. The shape term is the best over the splits: s = 1, and s up to
 * GEMM_SPLIT_MAX while a slice keeps at least one k block (GEMM_K_BLOCK). Against the 31 committed calibrations'
 * measured bf16/fp16 tables (GEMMs of 20 us or more; validate/gemm_model.py), the unsplit model was +40 % slow
 * (median) where there are fewer tiles than SMs; split, +3 % (docs/hardware-model.md, Lookups). */
#define GEMM_SPLIT_MAX 64
#define GEMM_K_BLOCK 64	/* k depth of one main-loop stage of a bf16 tensor-core tile (cuBLAS, CUTLASS) */

static double analytic_shape_eff(const struct hw_gpu *g, double m, double n, double k)
{
	double tiles = ceil(m / g->gemm_tile_m) * ceil(n / g->gemm_tile_n);
	double best = 0;
	for (int s = 1; s <= GEMM_SPLIT_MAX && (s == 1 || k / s >= GEMM_K_BLOCK); s++) {
		double units = tiles * s, waves = ceil(units / g->sm_count), ks = k / s;
		if (ks / (ks + g->gemm_k_half) <= best)
			break;  /* the wave term is at most 1 and the k term falls with s: no later split does better */
		double eff = units / (waves * g->sm_count) * ks / (ks + g->gemm_k_half);
		if (eff > best)
			best = eff;
	}
	return best;
}

double hwmodel_gemm_eff(const struct hwmodel *hw, enum dtype dt, double m, double n, double k)
{
	const struct hw_gpu *g = &hw->gpu;
	m = fmax(m, 1);
	n = fmax(n, 1);
	k = fmax(k, 1);
	double scale = g->gemm_burst ? 1 / g->burst_speedup : 1;  /* short-run rates to sustained ones */
	if (dt >= 0 && dt < DT_COUNT && g->gemm[dt].present)
		return scale * table_eff(&g->gemm[dt], m, n, k);
	double ceiling = dt >= 0 && dt < DT_COUNT && g->gemm_dtype_eff[dt] > 0 ? g->gemm_dtype_eff[dt] : g->gemm_max_eff;
	return scale * ceiling * analytic_shape_eff(g, m, n, k);
}

double hwmodel_gemm_fp4_s(const struct hwmodel *hw, double m, double n, double k)
{
	const struct hw_gpu *g = &hw->gpu;
	double scale = g->gemm_burst ? 1 / g->burst_speedup : 1;
	double ceiling = g->gemm_fp4_eff > 0 ? g->gemm_fp4_eff : g->gemm_max_eff;
	double eff = scale * ceiling * analytic_shape_eff(g, fmax(m, 1), fmax(n, 1), fmax(k, 1));
	return 2 * m * n * k / (g->peak_fp4_tflops * 1e12 * eff);
}

const char *const hw_kern_family_names[KF_N] = { "elementwise", "upcast", "downcast", "fill", "layernorm",
						 "layernorm_bwd", "rmsnorm", "rmsnorm_bwd", "softmax", "softmax_bwd",
						 "adam" };

double hwmodel_kern_us(const struct hw_kern *k, double bytes)
{
	int n = k->npoints;
	if (n == 0)
		return k->latency_us + bytes / (k->gbps * 1e3);
	if (bytes <= k->bytes[0])
		return k->latency_us + bytes / k->bytes[0] * (k->us[0] - k->latency_us);
	if (bytes >= k->bytes[n - 1])
		return k->us[n - 1] + (bytes - k->bytes[n - 1]) / (k->gbps * 1e3);
	int i = 0;
	while (k->bytes[i + 1] < bytes)
		i++;
	double w = (bytes - k->bytes[i]) / (k->bytes[i + 1] - k->bytes[i]);
	return k->us[i] + w * (k->us[i + 1] - k->us[i]);
}

double hwmodel_mem_gbps(const struct hwmodel *hw, double bytes)
{
	const struct hw_gpu *g = &hw->gpu;
	if (!(bytes > 0) || g->mem_half_bytes == 0)
		return g->hbm_gbps * g->mem_eff;
	return g->hbm_gbps * g->mem_eff * bytes / (bytes + g->mem_half_bytes);
}

double coll_busfactor(enum coll_op op, int n)
{
	if (n < 2)
		return 0;
	switch (op) {
	case COLL_ALL_REDUCE:
		return 2.0 * (n - 1) / n;
	case COLL_ALL_GATHER:
	case COLL_REDUCE_SCATTER:
	case COLL_ALL_TO_ALL:
		return (double)(n - 1) / n;
	default:
		return 1.0;
	}
}

double coll_steps(enum coll_op op, int n)
{
	if (n < 2)
		return 0;
	switch (op) {
	case COLL_ALL_REDUCE:
		return 2.0 * (n - 1);
	case COLL_SEND_RECV:
		return 1.0;
	default:
		return n - 1.0;
	}
}

/* NCCL's tree (src/graph/tuning.cc): an all-reduce as a reduce up and a broadcast down a binary tree, 2 log2i(n)
 * steps (log2i: the floor); its algorithm bandwidth is half the bus bandwidth whatever n (the ring's is
 * n / 2(n-1)), so a rank's link carries the bytes twice; NCCL scales the tree's bandwidth at medium sizes by its
 * own correction, by protocol and log2i(bytes / 64) from 64 B to 256 MB (treeCorrectionFactor, copied here). A line
 * whose algo starts with "tree" is one; tree_ll and tree_ll128 take those protocols' rows, any other tree the
 * Simple row. NCCL runs no other op as a tree: for them the line does not apply. */
static const double tree_correction[3][23] = {
	{ 1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0 },
	{ 1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0 },
	{ .9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9 },
};

static int log2i(double x)
{
	int l = 0;
	while (x >= 2) {
		x /= 2;
		l++;
	}
	return l;
}

static double tree_line_us(const struct coll_line *l, enum coll_op op, int n, double bytes)
{
	if (op != COLL_ALL_REDUCE)
		return INFINITY;
	int proto = strcmp(l->algo, "tree_ll") == 0 ? 0 : strcmp(l->algo, "tree_ll128") == 0 ? 1 : 2;
	double corr = 1;
	if (bytes >= 64) {
		int ls = log2i(bytes / 64);
		if (ls < 23)
			corr = tree_correction[proto][ls];
	}
	return l->alpha_us + l->step_us * 2.0 * log2i(n) + bytes * 2.0 / (l->bus_gbps * corr * 1e3);
}

static double line_us(const struct coll_line *l, enum coll_op op, int n, double bytes)
{
	if (strncmp(l->algo, "tree", 4) == 0)
		return tree_line_us(l, op, n, bytes);
	return l->alpha_us + l->step_us * coll_steps(op, n) + bytes * coll_busfactor(op, n) / (l->bus_gbps * 1e3);
}

/* Log-log interpolation of a table known to contain bytes in its range. */
static double table_us(const struct coll_table *t, double bytes)
{
	int i = 0;
	while (i + 2 < t->npts && t->bytes[i + 1] <= bytes)
		i++;
	double w = (log(bytes) - log(t->bytes[i])) / (log(t->bytes[i + 1]) - log(t->bytes[i]));
	return exp(log(t->time_us[i]) + w * (log(t->time_us[i + 1]) - log(t->time_us[i])));
}

/* Ring over the scope's raw link: the node's per-GPU link inside a node; across nodes the GPU's share of the
 * node's NICs, divided by the oversubscription, with the network latency per step. */
static double fallback_us(const struct hwmodel *hw, enum coll_scope sc, enum coll_op op, int n, double bytes)
{
	struct coll_line l = { .alpha_us = FALLBACK_BASE_US };
	if (sc == SCOPE_INTRA) {
		l.step_us = hw->node.fabric == FABRIC_PCIE ? FALLBACK_PCIE_STEP_US : FALLBACK_NVLINK_STEP_US;
		l.bus_gbps = hw->node.link_gbps;
	} else {
		l.step_us = hw->net.latency_us;
		l.bus_gbps = hw->net.nic_gbps * hw->net.nics / hw->node.gpus / hw->net.oversubscription;
	}
	return line_us(&l, op, n, bytes);
}

double hwmodel_coll_us(const struct hwmodel *hw, enum coll_scope sc, enum coll_op op, int n, double bytes)
{
	if (n < 2 || sc < 0 || sc >= SCOPE_N || op < 0 || op >= COLL_NOPS)
		return 0;
	bytes = fmax(bytes, 0);
	const struct coll_model *cm = &hw->coll[sc][op];
	for (int i = 0; i < cm->ntables; i++) {
		const struct coll_table *t = &cm->tables[i];
		if (t->n == n && bytes >= t->bytes[0] && bytes <= t->bytes[t->npts - 1])
			return table_us(t, bytes);
	}
	double best = INFINITY;
	for (int i = 0; i < cm->nlines; i++) {
		const struct coll_line *l = &cm->lines[i];
		if ((l->n == 0 || l->n == n) && (l->max_bytes == 0 || bytes <= l->max_bytes))
			best = fmin(best, line_us(l, op, n, bytes));
	}
	return isfinite(best) ? best : fallback_us(hw, sc, op, n, bytes);
}

void hwmodel_tp_overlap(const struct hwmodel *hw, double *compute_slowdown, double *comm_slowdown)
{
	*compute_slowdown = hw->overlap_tp_set ? hw->overlap_tp_compute_slowdown : hw->overlap_compute_slowdown;
	*comm_slowdown = hw->overlap_tp_set ? hw->overlap_tp_comm_slowdown : hw->overlap_comm_slowdown;
}

/* The job's slowest GPU (gpu.power.gpu_rates, measured with every GPU of the host held at its cap together): a
 * synchronous step waits for it at every collective, so each stage runs at its pace. A job of one GPU runs on the
 * calibrated GPU alone (1); one of G GPUs within the measured host on its GPUs 0..G-1, as torchrun places ranks;
 * a larger one on at least every measured GPU (their slowest: a bigger cluster's slowest chip is not
 * extrapolated). Never above 1: the calibrated GPU alone is the rates' reference. The chips share the clock-to-
 * rate law (the same design); a slower one draws more power at a clock (leakage), by chip^(-exponent) under the
 * GPU's power law, so it reaches the cap at chip times the sustained rate. */
double hwmodel_gpu_rate(const struct hwmodel *hw, int gpus)
{
	const struct hw_gpu *g = &hw->gpu;
	if (gpus < 2 || g->ngpu_rates < 1)
		return 1;
	int n = gpus < g->ngpu_rates ? gpus : g->ngpu_rates;
	double f = 1;
	for (int i = 0; i < n; i++)
		f = fmin(f, g->gpu_rates[i]);
	return f;
}
