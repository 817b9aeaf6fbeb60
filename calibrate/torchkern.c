/* torchkern: run the PyTorch kernel probe and turn its rows into gpu.kernels (see torchkern.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "calibrate/torchkern.h"
#include "calibrate/torchkern_internal.h"
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

double torchkern_median(double *v, int n)
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
	out->latency_us = round(torchkern_median(lat, nl) * 1000) / 1000;
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
		out->us[out->npoints++] = round(torchkern_median(v, nv) * 1000) / 1000;
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
	*call_us = torchkern_median(v, n);
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
