/* torchkern: run the PyTorch kernel probe and turn its rows into gpu.kernels (see torchkern.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "calibrate/torchkern.h"
#include "calibrate/torchprobe.h"
#include "util/diag.h"
#include "util/gserr.h"

static const char header[] = "section,name,size,bytes,kernels,us";

/* The probe's ops and the family each measures (hardware/hwmodel.h, enum kern_family). */
static const struct {
	const char *op;
	enum kern_family fam;
} op_family[] = {
	{ "elementwise.add", KF_ELEMENTWISE }, { "elementwise.mul", KF_ELEMENTWISE },
	{ "elementwise.gelu", KF_ELEMENTWISE }, { "elementwise.silu", KF_ELEMENTWISE },
	{ "elementwise.gelu_bwd", KF_ELEMENTWISE }, { "cast.to_fp32", KF_UPCAST }, { "cast.to_bf16", KF_DOWNCAST },
	{ "fill.zero", KF_FILL }, { "norm.layer_norm", KF_LAYERNORM }, { "norm.layer_norm_bwd", KF_LAYERNORM_BWD },
	{ "norm.rms_norm", KF_RMSNORM }, { "norm.rms_norm_bwd", KF_RMSNORM_BWD },
	{ "softmax.log_softmax", KF_SOFTMAX }, { "softmax.log_softmax_bwd", KF_SOFTMAX_BWD },
	{ "adam.fused_adamw", KF_ADAM },
};

static int family_of(const char *op)
{
	for (size_t i = 0; i < sizeof op_family / sizeof *op_family; i++)
		if (strcmp(op_family[i].op, op) == 0)
			return (int)op_family[i].fam;
	return -1;
}

int torchkern_parse(FILE *f, const char *name, struct calib *c)
{
	char line[512];
	int ln = 0;
	bool have_header = false;
	c->ntkern = 0;
	while (fgets(line, sizeof line, f)) {
		ln++;
		line[strcspn(line, "\r\n")] = 0;
		if (!line[0])
			continue;
		if (line[0] == '#') {
			if (!c->tkern_source[0])
				snprintf(c->tkern_source, sizeof c->tkern_source, "%s", line + 1 + (line[1] == ' '));
			continue;
		}
		if (!have_header) {
			if (strcmp(line, header) != 0)
				return diag_error(name, ln, 0, "expected the header '%s'", header);
			have_header = true;
			continue;
		}
		if (c->ntkern >= CAL_MAX_TKERN)
			return diag_error(name, ln, 0, "more than %d rows", CAL_MAX_TKERN);
		struct cal_tkern *t = &c->tkern[c->ntkern];
		int used = 0;
		memset(t, 0, sizeof *t);
		if (sscanf(line, "%7[^,],%39[^,],%lf,%lf,%lf,%lf%n", t->section, t->name, &t->size, &t->bytes, &t->kernels,
			   &t->us, &used) != 6 || line[used])
			return diag_error(name, ln, 0, "expected %s", header);
		bool known = strcmp(t->section, "kernel") == 0 || strcmp(t->section, "gap") == 0 ||
			     strcmp(t->section, "host") == 0 || strcmp(t->section, "memory") == 0 ||
			     strcmp(t->section, "extra") == 0;
		if (!known)
			return diag_error(name, ln, 0, "unknown section '%s' (kernel, gap, host, memory, extra)", t->section);
		if (!isfinite(t->size) || !isfinite(t->bytes) || !isfinite(t->us) || t->us < 0 ||
		    (strcmp(t->section, "kernel") == 0 && !(t->us > 0 && t->bytes > 0)))
			return diag_error(name, ln, 0, "a size or a time out of range");
		/* a row measured again (a lease's host rows appended to a calibration's raw CSV, docs/validation.md)
		 * replaces the earlier one of its section, name and size, in its place */
		int i = 0;
		while (i < c->ntkern && !(strcmp(c->tkern[i].section, t->section) == 0 &&
					  strcmp(c->tkern[i].name, t->name) == 0 && c->tkern[i].size == t->size))
			i++;
		if (i < c->ntkern)
			c->tkern[i] = *t;
		else
			c->ntkern++;
	}
	if (!have_header)
		return diag_error(name, 0, 0, "no CSV header (did the probe run?)");
	return 0;
}

void torchkern_write(FILE *f, const struct calib *c)
{
	if (c->tkern_source[0])
		fprintf(f, "# %s\n", c->tkern_source);
	fprintf(f, "%s\n", header);
	for (int i = 0; i < c->ntkern; i++) {
		const struct cal_tkern *t = &c->tkern[i];
		fprintf(f, "%s,%s,%.0f,%.0f,%.2f,%.3f\n", t->section, t->name, t->size, t->bytes, t->kernels, t->us);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One family: least squares of us against bytes over its rows of at least `floor` bytes (two sizes at least), and
 * the median time at its smallest size. False when it has too few rows. Two sizes are two element counts: the ops of
 * one family move different bytes at one size (elementwise: 6 bytes an element for add, 4 for gelu), and a line
 * through one size of each is the ops' difference, not the rate (--quick's sweep to 64 Mi elements once had one
 * size above the floor and read 6,237 GB/s on an H200, whose memory moves 4,800) */
static bool fit_family(const struct calib *c, enum kern_family fam, double floor, struct hw_kern *out)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, bmin = -1, bmax = -1, smallest = -1, nmin = -1, nmax = -1;
	int n = 0;
	for (int i = 0; i < c->ntkern; i++) {
		const struct cal_tkern *t = &c->tkern[i];
		if (strcmp(t->section, "kernel") != 0 || family_of(t->name) != (int)fam)
			continue;
		if (smallest < 0 || t->size < smallest)
			smallest = t->size;
		if (t->bytes < floor)
			continue;
		sx += t->bytes;
		sy += t->us;
		sxx += t->bytes * t->bytes;
		sxy += t->bytes * t->us;
		bmin = bmin < 0 || t->bytes < bmin ? t->bytes : bmin;
		bmax = t->bytes > bmax ? t->bytes : bmax;
		nmin = nmin < 0 || t->size < nmin ? t->size : nmin;
		nmax = t->size > nmax ? t->size : nmax;
		n++;
	}
	if (n < 2 || !(bmax > bmin) || !(nmax > nmin))
		return false;
	double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);  /* us per byte */
	if (!(slope > 0))
		return false;
	double lat[CAL_MAX_TKERN];
	int nl = 0;
	for (int i = 0; i < c->ntkern; i++) {
		const struct cal_tkern *t = &c->tkern[i];
		if (strcmp(t->section, "kernel") == 0 && family_of(t->name) == (int)fam && t->size == smallest)
			lat[nl++] = t->us;
	}
	out->gbps = round(1e-3 / slope * 10) / 10;   /* bytes/us = MB/s */
	out->latency_us = round(median(lat, nl) * 1000) / 1000;
	/* the points: every size of at least `floor` bytes, when one kernel defines the family (norms, softmax, casts,
	 * fill, Adam); a family of several ops (elementwise: unary ones at 4 bytes an element run slower than binary
	 * ones at 6) keeps its least-squares line, which points pooled over the ops would zig-zag around */
	out->npoints = 0;
	const char *op = NULL;
	for (int i = 0; i < c->ntkern; i++) {
		const struct cal_tkern *t = &c->tkern[i];
		if (strcmp(t->section, "kernel") != 0 || family_of(t->name) != (int)fam)
			continue;
		if (op && strcmp(op, t->name) != 0)
			return true;
		op = t->name;
	}
	double prev = 0;
	for (;;) {
		double next = -1;
		for (int i = 0; i < c->ntkern; i++) {
			const struct cal_tkern *t = &c->tkern[i];
			if (strcmp(t->section, "kernel") == 0 && family_of(t->name) == (int)fam && t->bytes >= floor &&
			    t->bytes > prev && (next < 0 || t->bytes < next))
				next = t->bytes;
		}
		if (next < 0 || out->npoints == HW_KERN_POINTS)
			break;
		double v[CAL_MAX_TKERN];
		int nv = 0;
		for (int i = 0; i < c->ntkern; i++) {
			const struct cal_tkern *t = &c->tkern[i];
			if (strcmp(t->section, "kernel") == 0 && family_of(t->name) == (int)fam && t->bytes == next)
				v[nv++] = t->us;
		}
		out->bytes[out->npoints] = next;
		out->us[out->npoints++] = round(median(v, nv) * 1000) / 1000;
		prev = next;
	}
	return true;
}

bool torchkern_fill(const struct calib *c, double l2_bytes, struct hw_kernels *k)
{
	struct hw_kernels m;
	memset(&m, 0, sizeof m);
	double floor = 2 * (l2_bytes > 0 ? l2_bytes : 50 * 1048576.0);
	bool any = false;
	for (int f = 0; f < KF_N; f++)
		any |= fit_family(c, (enum kern_family)f, floor, &m.fam[f]);
	if (!any)
		return false;
	m.gap_us = -1;  /* the mixed stream's (GEMMs and elementwise kernels, as a step issues), else the smallest */
	for (int i = 0; i < c->ntkern; i++) {
		const struct cal_tkern *t = &c->tkern[i];
		if (strcmp(t->section, "gap") != 0)
			continue;
		if (strcmp(t->name, "mixed") == 0) {
			m.gap_us = t->us;
			break;
		}
		if (m.gap_us < 0 || t->us < m.gap_us)
			m.gap_us = t->us;
	}
	if (m.gap_us < 0)
		m.gap_us = 0;
	/* the kernels beside a layer's GEMMs (extra rows: SIZE GEMMs a call, KERNELS others taking US of GPU time) */
	double gemms = 0, others = 0, others_us = 0;
	for (int i = 0; i < c->ntkern; i++) {
		const struct cal_tkern *t = &c->tkern[i];
		if (strcmp(t->section, "extra") == 0 && t->size > 0 && t->kernels >= 0) {
			gemms += t->size;
			others += t->kernels;
			others_us += t->us;
		}
	}
	if (gemms > 0 && others > 0) {
		m.gemm_extra_kernels = round(others / gemms * 1000) / 1000;
		m.gemm_extra_us = round(others_us / others * 1000) / 1000;
	}
	m.present = true;
	snprintf(m.source, sizeof m.source, "measured: eager PyTorch kernels (calibrate/torch_kernels.py, torch.profiler), "
		 "rates above %.0f MiB; %.80s", floor / 1048576, c->tkern_source);
	*k = m;
	return true;
}

bool torchkern_coll_us(const struct calib *c, double *coll_us, double *op_us, double *call_us)
{
	double v[CAL_MAX_TKERN], op = -1;
	int n = 0;
	for (int i = 0; i < c->ntkern; i++) {
		const struct cal_tkern *t = &c->tkern[i];
		if (strcmp(t->section, "host") != 0)
			continue;
		if (strcmp(t->name, "all_reduce") == 0)
			v[n++] = t->us;
		else if (strcmp(t->name, "eager_add") == 0)
			op = t->us;
	}
	if (!n || op < 0)
		return false;
	*call_us = median(v, n);
	*op_us = op;
	*coll_us = fmax(0, round((*call_us - op) * 10) / 10);
	return true;
}

int torchkern_run(struct calib *c, bool quick)
{
	static const char *const quick_args[] = { "--quick", NULL };
	static const char *const full_args[] = { NULL };
	int rc = torchprobe_run(torchkern_script, "--kernels torch", "calibrate/torch_kernels.py",
				quick ? quick_args : full_args, torchkern_parse, c);
	if (rc)
		return rc;
	if (!c->ntkern) {
		diag_errorf("--kernels torch: the probe measured no row");
		return GS_EENV;
	}
	return 0;
}

/* The us of the probe's host row `name` (host_class_rows), or -1. */
static double host_row(const struct calib *c, const char *name)
{
	for (int i = 0; i < c->ntkern; i++)
		if (strcmp(c->tkern[i].section, "host") == 0 && strcmp(c->tkern[i].name, name) == 0)
			return c->tkern[i].us;
	return -1;
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

bool torchkern_rank_spread(const struct calib *c, double *spread, int *ranks, int *rounds)
{
	double sum = 0;
	int nr = 0, most = 0;
	bool done[CAL_MAX_TKERN] = { false };  /* rows already counted with an earlier row's round */
	for (int i = 0; i < c->ntkern; i++) {
		if (done[i] || !rank_row(&c->tkern[i]))
			continue;
		double s = 0, s2 = 0;
		int n = 0;
		for (int j = i; j < c->ntkern; j++) {  /* the rows of its round: one per rank */
			const struct cal_tkern *u = &c->tkern[j];
			if (rank_row(u) && strcmp(u->name, c->tkern[i].name) == 0) {
				done[j] = true;
				s += u->us;
				s2 += u->us * u->us;
				n++;
			}
		}
		if (n < 2)
			continue;
		double mean = s / n, var = fmax(0, (s2 - n * mean * mean) / (n - 1));
		sum += var / (mean * mean);
		nr++;
		most = n > most ? n : most;
	}
	if (nr == 0)
		return false;
	*spread = sqrt(sum / nr);
	*ranks = most;
	*rounds = nr;
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
	*step_gap = ng ? median(gap, ng) : 0;
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
		 * calls (zero_grad, Python); one of the two, so that host.source keeps within its 255 characters */
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
	size_t n = strlen(src);
	snprintf(src + n, size - n, "; compiled: %s; rest eager", note);
	return true;
}
