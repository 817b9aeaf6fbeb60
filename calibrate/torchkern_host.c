/* torchkern_host: the probe's host rows into the hardware model's host section (see torchkern.h): the eager op
 * classes, their mixed-stream and whole-step ratios, the drift and rank spread, the compiled graphs' keys. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "calibrate/torchkern.h"
#include "calibrate/torchkern_internal.h"
#include "util/diag.h"

/* The us of the probe's host row `name` (host_class_rows), or -1. */
static double host_row(const struct calib *c, const char *name)
{
	for (int i = 0; i < c->ntkern; i++)
		if (strcmp(c->tkern[i].section, "host") == 0 && strcmp(c->tkern[i].name, name) == 0)
			return c->tkern[i].us;
	return -1;
}

/* The host row `name` at size `size` (a compiled stack's layers): its us and kernels; false when absent. */
static bool host_row_at(const struct calib *c, const char *name, double size, double *us, double *kernels)
{
	for (int i = 0; i < c->ntkern; i++) {
		const struct cal_tkern *t = &c->tkern[i];
		if (strcmp(t->section, "host") == 0 && strcmp(t->name, name) == 0 && t->size == size) {
			*us = t->us;
			*kernels = t->kernels;
			return true;
		}
	}
	return false;
}

bool torchkern_tp_coll(const struct calib *c, double *us)
{
	double v = host_row(c, "tp_coll");
	if (!(v > 0))
		return false;
	*us = v;
	return true;
}

bool torchkern_mix_spread(const struct calib *c, double *lo, double *hi)
{
	double a = host_row(c, "mix_fwd_min"), b = host_row(c, "mix_fwd_max");
	if (!(a > 0) || !(b >= a))
		return false;
	*lo = a;
	*hi = b;
	return true;
}

bool torchkern_drift(const struct calib *c, double *lo, double *hi)
{
	static const char *const dir[2] = { "mix_fwd", "mix_bwd" };
	double l = 1, h = 1;
	for (int i = 0; i < 2; i++) {
		char a[24], b[24];
		snprintf(a, sizeof a, "%s_min", dir[i]);
		snprintf(b, sizeof b, "%s_max", dir[i]);
		double med = host_row(c, dir[i]), mn = host_row(c, a), mx = host_row(c, b);
		if (!(med > 0 && mn > 0 && mx >= mn))
			return false;
		l = fmin(l, mn / med);
		h = fmax(h, mx / med);
	}
	*lo = round(l * 1e3) / 1e3;
	*hi = round(h * 1e3) / 1e3;
	return true;
}

/* a row of the rank probe: host,rank_block_ROUND,RANK */
static bool rank_row(const struct cal_tkern *t)
{
	return strcmp(t->section, "host") == 0 && strncmp(t->name, "rank_block_", 11) == 0 && t->us > 0;
}

enum { RANK_MAX = 64, ROUND_MAX = 32 };

bool torchkern_rank_spread(const struct calib *c, double *spread, int *ranks, int *rounds)
{
	/* the rounds (by name, in file order), each one's log us per rank and how many rows gave it */
	char name[ROUND_MAX][40];
	double x[ROUND_MAX][RANK_MAX];
	int seen[ROUND_MAX][RANK_MAX] = { { 0 } }, nround = 0, most = 0;
	for (int i = 0; i < c->ntkern; i++) {
		const struct cal_tkern *t = &c->tkern[i];
		int k = (int)t->size, r = 0;
		if (!rank_row(t) || k < 0 || k >= RANK_MAX || t->size != k)
			continue;
		while (r < nround && strcmp(name[r], t->name) != 0)
			r++;
		if (r == nround) {
			if (nround == ROUND_MAX)
				continue;
			snprintf(name[nround++], sizeof name[0], "%s", t->name);
		}
		x[r][k] = log(t->us);
		seen[r][k]++;
		most = k + 1 > most ? k + 1 : most;
	}
	/* the rounds with every rank 0 .. most-1 once */
	int full[ROUND_MAX], nfull = 0;
	for (int r = 0; r < nround; r++) {
		int k = 0;
		while (k < most && seen[r][k] == 1)
			k++;
		if (k == most)
			full[nfull++] = r;
	}
	if (most < 2 || nfull < 2)
		return false;
	/* two-way analysis of variance without replication: the ranks' effect beyond the rounds' noise */
	double gm = 0, rm[ROUND_MAX] = { 0 }, km[RANK_MAX] = { 0 };
	for (int a = 0; a < nfull; a++)
		for (int k = 0; k < most; k++) {
			double v = x[full[a]][k];
			gm += v / (nfull * most);
			rm[a] += v / most;
			km[k] += v / nfull;
		}
	double ssk = 0, sse = 0;
	for (int k = 0; k < most; k++)
		ssk += nfull * (km[k] - gm) * (km[k] - gm);
	for (int a = 0; a < nfull; a++)
		for (int k = 0; k < most; k++) {
			double e = x[full[a]][k] - rm[a] - km[k] + gm;
			sse += e * e;
		}
	double msk = ssk / (most - 1), mse = sse / ((nfull - 1) * (most - 1));
	*spread = sqrt(fmax(0, (msk - mse) / nfull));
	*ranks = most;
	*rounds = nfull;
	return true;
}

bool torchkern_step_pieces(const struct calib *c, const char *mode, double *fwd, double *bwd, double *opt_us,
			   int *nstacks)
{
	static const char *const fams[2] = { "mlp", "block" };
	double sf = 0, f = 0, sb = 0, b = 0, opt[CAL_MAX_TKERN];
	int n = 0;
	for (int k = 0; k < 2; k++) {
		char name[5][40];
		static const char *const part[5] = { "fwd", "bwd", "step_fwd", "step_bwd", "step_opt" };
		for (int j = 0; j < 5; j++)
			snprintf(name[j], sizeof name[j], "%s_%s_%s", mode, fams[k], part[j]);
		for (int i = 0; i < c->ntkern; i++) {
			const struct cal_tkern *t = &c->tkern[i];
			double v[5], kn;
			if (strcmp(t->section, "host") != 0 || strcmp(t->name, name[0]) != 0)
				continue;
			bool all = true;
			for (int j = 0; j < 5 && all; j++)
				all = host_row_at(c, name[j], t->size, &v[j], &kn) && v[j] > 0;
			if (!all)
				continue;
			f += v[0];
			b += v[1];
			sf += v[2];
			sb += v[3];
			opt[n++] = v[4];
		}
	}
	if (nstacks)
		*nstacks = n;
	if (n < 2)
		return false;
	*fwd = round(sf / f * 1e3) / 1e3;
	*bwd = round(sb / b * 1e3) / 1e3;
	*opt_us = round(torchkern_median(opt, n) * 100) / 100;
	return true;
}

bool torchkern_host(const struct calib *c, struct hw_host_cost *h, double *mix_fwd, double *mix_bwd)
{
	double fl = host_row(c, "fwd_linear"), fe = host_row(c, "fwd_elementwise"), fn = host_row(c, "fwd_norm");
	double fa = host_row(c, "fwd_attention"), bl = host_row(c, "bwd_linear"), be = host_row(c, "bwd_elementwise");
	double bn = host_row(c, "bwd_norm"), ba = host_row(c, "bwd_attention"), acc = host_row(c, "accumulate_grad");
	double mf = host_row(c, "mix_fwd"), mb = host_row(c, "mix_bwd");
	if (fl < 0 || fe < 0 || fn < 0 || fa < 0 || bl < 0 || be < 0 || bn < 0 || ba < 0 || acc < 0 || !(mf > 0) ||
	    !(mb > 0))
		return false;
	double fl2 = host_row(c, "fwd_linear_2d"), bl2 = host_row(c, "bwd_linear_2d");
	double call = host_row(c, "backward_call"), opt = host_row(c, "optimizer_step");
	*mix_fwd = mf;
	*mix_bwd = mb;
	/* the classes as a whole step runs them (its forward, backward and optimizer after each other) rather than
	 * each repeated alone, where the probe's eager stacks measured both */
	double sf, sb, so;
	if (torchkern_step_pieces(c, "eager", &sf, &sb, &so, NULL)) {
		mf *= sf;
		mb *= sb;
		opt = so;
	}
	/* to 0.01 us, as the probe prints them */
#define R(x) (round((x) * 100) / 100)
	h->op_us = R(fe * mf);
	h->launch_us = 0;  /* each class's time holds its kernel's launch */
	h->gemm_us = R(fl * mf);
	h->gemm2d_us = R((fl2 >= 0 ? fl2 : fl) * mf);
	h->attn_us = R(fa * mf);
	h->norm_us = R(fn * mf);
	h->accum_us = R(acc * mb);
	/* one linear's backward: its two GEMMs (each with half the node) and the weight's AccumulateGrad */
	h->bwd_gemm_us = R(fmax(0, bl - acc) / 2 * mb);
	h->bwd_gemm2d_us = R(fmax(0, (bl2 >= 0 ? bl2 : bl) - acc) / 2 * mb);
	h->bwd_attn_us = R(ba * mb);
	h->bwd_op_us = R((be + bn) / 2 * mb);
	h->backward_us = R(fmax(0, call));
	h->opt_us = R(fmax(0, opt));
#undef R
	return true;
}

/* The least-squares line y = a + s x over n points; false without two different x. */
static bool line_fit(const double *x, const double *y, int n, double *a, double *s)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	for (int i = 0; i < n; i++) {
		sx += x[i];
		sy += y[i];
		sxx += x[i] * x[i];
		sxy += x[i] * y[i];
	}
	double den = n * sxx - sx * sx;
	if (n < 2 || !(den > 1e-12 * (sxx > 1 ? sxx : 1)))
		return false;
	*s = (n * sxy - sx * sy) / den;
	*a = (sy - *s * sx) / n;
	return true;
}

/* One family's lines over its stacks' layers L (see torchkern_compiled): f[0] + f[1] L the forward's host us,
 * fk its kernels' slope (per layer); b[0] + b[1] L the backward's less accum_us per parameter tensor, bk the slope
 * of its graph's kernels (the tensors' add kernels not counted); step_gap the median of each stack's step less
 * its forward, backward and optimizer over ngap stacks. False without two stacks of different depths. */
static bool compiled_family(const struct calib *c, const char *fam, double accum_us, double f[2], double *fk,
			    double b[2], double *bk, double *step_gap, int *ngap, int *nstacks)
{
	double L[CAL_MAX_TKERN], fy[CAL_MAX_TKERN], fn[CAL_MAX_TKERN], by[CAL_MAX_TKERN], bn[CAL_MAX_TKERN];
	double gap[CAL_MAX_TKERN], a;
	int n = 0, ng = 0;
	char fname[40], bname[40], pname[40], sname[40], oname[40];
	snprintf(fname, sizeof fname, "compiled_%s_fwd", fam);
	snprintf(bname, sizeof bname, "compiled_%s_bwd", fam);
	snprintf(pname, sizeof pname, "compiled_%s_params", fam);
	snprintf(sname, sizeof sname, "compiled_%s_step", fam);
	snprintf(oname, sizeof oname, "compiled_%s_opt", fam);
	for (int i = 0; i < c->ntkern; i++) {
		const struct cal_tkern *t = &c->tkern[i];
		double bus, bkn, pk, pus, sus, sk, ous, ok;
		if (strcmp(t->section, "host") != 0 || strcmp(t->name, fname) != 0)
			continue;
		if (!host_row_at(c, bname, t->size, &bus, &bkn) || !host_row_at(c, pname, t->size, &pus, &pk))
			continue;
		L[n] = t->size;
		fy[n] = t->us;
		fn[n] = t->kernels;
		/* the parameters' AccumulateGrad run eagerly after the graph: an add kernel and accum_us each */
		by[n] = bus - pk * accum_us;
		bn[n] = bkn - pk;
		n++;
		if (host_row_at(c, sname, t->size, &sus, &sk) && host_row_at(c, oname, t->size, &ous, &ok))
			gap[ng++] = sus - t->us - bus - ous;
	}
	*nstacks = n;
	*ngap = ng;
	*step_gap = ng ? torchkern_median(gap, ng) : 0;
	return line_fit(L, fy, n, &f[0], &f[1]) && line_fit(L, fn, n, &a, fk) && line_fit(L, by, n, &b[0], &b[1]) &&
	       line_fit(L, bn, n, &a, bk) && *fk > 0 && *bk > 0;
}

/* The compiled DDP rows (compiled_ddp_rows in calibrate/torch_kernels.py): the same module as one graph and as
 * n subgraphs; a subgraph's forward and backward host us are the slopes between the two. False without both. */
static bool compiled_subgraphs(const struct calib *c, double *fwd_us, double *bwd_us)
{
	int n = 0;
	double size[2], f[2], b[2], k;
	for (int i = 0; i < c->ntkern && n < 2; i++) {
		const struct cal_tkern *t = &c->tkern[i];
		if (strcmp(t->section, "host") == 0 && strcmp(t->name, "compiled_ddp_fwd") == 0 && t->size >= 1 &&
		    host_row_at(c, "compiled_ddp_bwd", t->size, &b[n], &k)) {
			size[n] = t->size;
			f[n++] = t->us;
		}
	}
	if (n < 2 || size[0] == size[1])
		return false;
	*fwd_us = round(fmax(0, (f[1] - f[0]) / (size[1] - size[0])) * 100) / 100;
	*bwd_us = round(fmax(0, (b[1] - b[0]) / (size[1] - size[0])) * 100) / 100;
	return true;
}

bool torchkern_compiled(const struct calib *c, double accum_us, struct hw_host_cost *h, char *note, size_t size)
{
	double f3[2], b3[2], f2[2], b2[2], k3, bk3, k2, bk2, g3, g2;
	int n3, n2, m3, m2;
	bool blk = compiled_family(c, "block", accum_us, f3, &k3, b3, &bk3, &g3, &m3, &n3);
	bool mlp = compiled_family(c, "mlp", accum_us, f2, &k2, b2, &bk2, &g2, &m2, &n2);
	if (!blk && !mlp)
		return false;
#define R(x) (round(fmax(0, (x)) * 100) / 100)
	/* a layer's graph: its host us per layer over its kernels per layer (kernel_us x layer_kernels is the layer's
	 * slope); the calls' fixed costs: the lines' intercepts at 0 layers, per family (a transformer's graph_us and
	 * backward_us, the 2d keys a dense layer list's; a family not measured takes the other's) */
	h->graph_us = R(blk ? f3[0] : f2[0]);
	h->backward_us = R(blk ? b3[0] : b2[0]);
	h->graph2d_us = mlp ? R(f2[0]) : 0;
	h->backward2d_us = mlp ? R(b2[0]) : 0;
	h->kernel_us = blk ? R(f3[1] / k3) : 0;
	h->bwd_kernel_us = blk ? R(b3[1] / bk3) : 0;
	h->kernel2d_us = mlp ? R(f2[1] / k2) : 0;
	h->bwd_kernel2d_us = mlp ? R(b2[1] / bk2) : 0;
	h->layer_kernels = blk ? R(k3) : 0;
	h->bwd_layer_kernels = blk ? R(bk3) : 0;
	h->layer2d_kernels = mlp ? R(k2) : 0;
	h->bwd_layer2d_kernels = mlp ? R(bk2) : 0;
#undef R
	bool sub = compiled_subgraphs(c, &h->subgraph_us, &h->bwd_subgraph_us);
	if (note) {
		/* per family block/mlp: the call's us + kernels a layer x us a kernel */
		int w = snprintf(note, size, "%s (%d+%d): fwd %.0f/%.0f + %g/%g x %.1f/%.1f, bwd %.0f/%.0f + %g/%g x "
				 "%.1f/%.1f us",
				 blk && mlp ? "block/mlp" : blk ? "block" : "mlp", n3, n2, h->graph_us, h->graph2d_us,
				 h->layer_kernels, h->layer2d_kernels, h->kernel_us, h->kernel2d_us, h->backward_us,
				 h->backward2d_us, h->bwd_layer_kernels, h->bwd_layer2d_kernels, h->bwd_kernel_us,
				 h->bwd_kernel2d_us);
		/* the DDP subgraphs where measured, else a check that is not modelled: the runner's step around its
		 * calls (zero_grad, Python); one of the two, so that host.source keeps within its 511 characters */
		if (sub && w > 0 && (size_t)w < size)
			snprintf(note + w, size - w, ", DDP subgraph %.0f/%.0f", h->subgraph_us, h->bwd_subgraph_us);
		else if (m3 + m2 > 0 && w > 0 && (size_t)w < size)
			snprintf(note + w, size - w, ", step-parts %.0f", ((m3 ? g3 : 0) + (m2 ? g2 : 0)) /
				 ((m3 > 0) + (m2 > 0)));
	}
	return true;
}

bool torchkern_compiled_host(const struct calib *c, struct hw_host *host, char *src, size_t size)
{
	const struct hw_host_cost *e = &host->mode[EXEC_EAGER];
	struct hw_host_cost *k = &host->mode[EXEC_COMPILED];
	char note[200];
	if (!torchkern_compiled(c, e->accum_us, k, note, sizeof note))
		return false;
	k->step_us = e->step_us;
	k->op_us = e->op_us;
	k->launch_us = e->launch_us;
	k->accum_us = e->accum_us;
	k->opt_us = e->opt_us;
	/* the graphs' calls as a whole step runs them, where the compiled stacks were timed so (torchkern_step_pieces) */
	double sf, sb, so;
	size_t n = strlen(src);
	if (torchkern_step_pieces(c, "compiled", &sf, &sb, &so, NULL)) {
		double *fwd[] = { &k->graph_us, &k->graph2d_us, &k->kernel_us, &k->kernel2d_us, &k->subgraph_us };
		double *bwd[] = { &k->backward_us, &k->backward2d_us, &k->bwd_kernel_us, &k->bwd_kernel2d_us,
				  &k->bwd_subgraph_us };
		for (size_t i = 0; i < sizeof fwd / sizeof fwd[0]; i++)
			*fwd[i] = round(*fwd[i] * sf * 100) / 100;
		for (size_t i = 0; i < sizeof bwd / sizeof bwd[0]; i++)
			*bwd[i] = round(*bwd[i] * sb * 100) / 100;
		snprintf(src + n, size - n, "; compiled (in-step x%.2f/x%.2f): %s; rest eager", sf, sb, note);
	} else {
		snprintf(src + n, size - n, "; compiled: %s; rest eager", note);
	}
	return true;
}

bool torchkern_host_section(const struct calib *c, struct hwmodel *hw)
{
	double coll_us, op_us, call_us, mf, mb, tp, lo, hi, sf, sb, so;
	if (!torchkern_coll_us(c, &coll_us, &op_us, &call_us))
		return false;
	hw->host.mode[EXEC_EAGER].coll_us = hw->host.mode[EXEC_COMPILED].coll_us = coll_us;
	char src[640];
	snprintf(src, sizeof src, "coll_us measured (NCCL all_reduce %.1f - eager op %.1f us); %.200s", call_us, op_us,
		 hw->host.source[0] ? hw->host.source : "the rest not measured");
	calib_set_str(hw->host.source, sizeof hw->host.source, src);
	struct hw_host_cost *e = &hw->host.mode[EXEC_EAGER];
	if (!torchkern_host(c, e, &mf, &mb)) {  /* the eager op classes */
		torchkern_compiled_host(c, &hw->host, src, sizeof src);
		calib_set_str(hw->host.source, sizeof hw->host.source, src);
		return true;
	}
	char mix[128];
	int n = snprintf(mix, sizeof mix, "mix x%.2f/x%.2f", mf, mb);
	if (torchkern_step_pieces(c, "eager", &sf, &sb, &so, NULL))  /* torchkern_host applied them */
		n += snprintf(mix + n, sizeof mix - n, ", in-step x%.2f/x%.2f opt %.0f", sf, sb, so);
	if (torchkern_mix_spread(c, &lo, &hi)) {
		snprintf(mix + n, sizeof mix - n, ", rounds x%.2f-%.2f", lo, hi);
		if (hi > 1.5 * lo)  /* single rounds this far apart: the host drifted while it was measured */
			diag_warning("calibrate: the host drifted while its probe ran (the mixed-stream ratio x%.2f to x%.2f "
				     "over its rounds; the median x%.2f is kept): predictions of host-bound steps carry that "
				     "spread (docs/calibration.md)", lo, hi, mf);
	}
	/* the host's drift over the rounds: predict's band (sim/hostband.h). Not from --quick's two rounds: two
	 * readings seconds apart say little of how far a host moves in minutes (docs/validation.md: the quick
	 * calibrations' own host-bound rows lay inside such a band 21 times in 74); without a range of its own the
	 * host keeps its base's (a preset's: how far the lent hosts lie from their median), said in the source */
	double dl, dh;
	bool own_range = strcmp(c->id.mode, "quick") != 0 && torchkern_drift(c, &dl, &dh);
	if (own_range)
		for (int m = 0; m < EXEC_N; m++) {
			hw->host.mode[m].drift_lo = dl;
			hw->host.mode[m].drift_hi = dh;
		}
	double rs;
	int rranks, rrounds;
	if (torchkern_rank_spread(c, &rs, &rranks, &rrounds)) {
		/* the processes of one job on this host differ in speed by this much at one time: a step goes at its
		 * slowest (hardware/hwmodel.h, rank_spread), in every mode */
		rs = round(rs * 1e4) / 1e4;
		for (int m = 0; m < EXEC_N; m++)
			hw->host.mode[m].rank_spread = rs;
		size_t k = strlen(mix);
		snprintf(mix + k, sizeof mix - k, ", ranks %.1f %%", 100 * rs);
	}
	if (torchkern_tp_coll(c, &tp)) {
		/* a collective as a step issues it (Megatron's f/g in a mixed stream), not one all_reduce's tight loop:
		 * op_us + coll_us is that call on the probe's 1-rank group; a real group's extra (group_us): the base's */
		e->coll_us = fmax(0, round((tp - e->op_us) * 100) / 100);
		snprintf(src, sizeof src, "measured: op classes (%s), coll_us = TP call in a block %.1f - op %.1f us; "
			 "step, bucket, group_us: base", mix, tp, e->op_us);
	} else {
		snprintf(src, sizeof src, "measured: eager op classes (%s), coll_us (all_reduce %.1f - op %.1f us); step, "
			 "bucket, group_us: base", mix, call_us, op_us);
	}
	if (!own_range && e->drift_hi > 0) {
		size_t k = strlen(src);
		snprintf(src + k, sizeof src - k, "; host range: base x%.3g-x%.3g", e->drift_lo, e->drift_hi);
	}
	torchkern_compiled_host(c, &hw->host, src, sizeof src);
	calib_set_str(hw->host.source, sizeof hw->host.source, src);
	return true;
}
