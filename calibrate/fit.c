/* fit: segmented weighted least squares and the lower envelope (see fit.h for the model and its invariants). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_fit.h>
#include "calibrate/fit.h"
#include "util/gserr.h"

#define MAX_PTS 128

/* Fit one line to points i..j of (x, t) with weights 1/t^2 and alpha >= floor_us; return the weighted residual
 * sum of squares, i.e. the sum of squared relative errors. */
static double seg_fit(const double *x, const double *t, int i, int j, double floor_us, struct fit_line *l)
{
	int n = j - i + 1;
	double w[MAX_PTS], c0, c1, cov00, cov01, cov11, chisq = 0;
	if (n < 1 || n > MAX_PTS)
		return INFINITY;
	for (int p = 0; p < n; p++)
		w[p] = 1.0 / (t[i + p] * t[i + p]);
	gsl_fit_wlinear(x + i, 1, w, 1, t + i, 1, (size_t)n, &c0, &c1, &cov00, &cov01, &cov11, &chisq);
	if (!(c1 > 0) || !(c0 >= floor_us) || !isfinite(c0) || !isfinite(c1)) {
		/* pin alpha at the floor when the free fit went below it: t - floor = c1 x */
		double sxy = 0, sxx = 0;
		if (!(c0 >= floor_us) && c1 > 0) {
			c0 = floor_us;
			for (int p = 0; p < n; p++) {
				sxy += w[p] * x[i + p] * (t[i + p] - c0);
				sxx += w[p] * x[i + p] * x[i + p];
			}
			c1 = sxx > 0 ? sxy / sxx : 0;
		} else
			c1 = 0;
		if (!(c1 > 0)) {
			/* flat segment: the weighted mean, never below the floor */
			double sw = 0, swt = 0;
			for (int p = 0; p < n; p++) {
				sw += w[p];
				swt += w[p] * t[i + p];
			}
			c0 = fmax(swt / sw, floor_us);
			c1 = 0;
		}
		chisq = 0;
		for (int p = 0; p < n; p++) {
			double r = t[i + p] - c0 - c1 * x[i + p];
			chisq += w[p] * r * r;
		}
	}
	l->alpha_us = c0;
	l->us_per_byte = fmax(c1, 1e-9);  /* a flat line still has a (huge) bandwidth: bus_gbps = 1e6 */
	l->max_bytes = 0;
	l->first = i;
	l->last = j;
	return chisq;
}

double fit_bus_gbps(const struct fit_line *l)
{
	return 1.0 / (l->us_per_byte * 1e3);
}

double fit_eval(const struct fit_result *f, double bytes)
{
	double best = INFINITY;
	for (int i = 0; i < f->nlines; i++) {
		const struct fit_line *l = &f->line[i];
		if (l->max_bytes > 0 && bytes > l->max_bytes)
			continue;
		best = fmin(best, l->alpha_us + bytes * f->busfactor * l->us_per_byte);
	}
	return best;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

void fit_errors(struct fit_result *f, const double *bytes, const double *us, int npts, double *err)
{
	double a[MAX_PTS], ss = 0, mx = 0;
	for (int i = 0; i < npts; i++) {
		double e = (fit_eval(f, bytes[i]) - us[i]) / us[i];
		if (err)
			err[i] = e;
		a[i] = fabs(e);
		ss += e * e;
		mx = fmax(mx, a[i]);
	}
	qsort(a, (size_t)npts, sizeof *a, cmp_double);
	f->npts = npts;
	f->max_rel_err = mx;
	f->rms_rel_err = npts ? sqrt(ss / npts) : 0;
	f->median_rel_err = npts == 0 ? 0 : npts % 2 ? a[npts / 2] : 0.5 * (a[npts / 2 - 1] + a[npts / 2]);
}

int fit_envelope(const double *bytes, const double *us, int npts, double busfactor, int max_lines,
		 struct fit_result *out)
{
	double cost[MAX_PTS][MAX_PTS];   /* cost[i][j]: one line through i..j (128 KiB of stack) */
	double x[MAX_PTS], floor_us = INFINITY;
	double best[FIT_MAX_LINES + 1][MAX_PTS + 1];
	int from[FIT_MAX_LINES + 1][MAX_PTS + 1];
	struct fit_result cand[FIT_MAX_LINES + 1];
	int kmax, chosen = 0;
	double best_max = INFINITY;

	memset(out, 0, sizeof *out);
	if (npts < 2 || npts > MAX_PTS || !(busfactor > 0))
		return GS_EINVAL;
	for (int i = 0; i < npts; i++) {
		if (!(us[i] > 0) || !(bytes[i] > 0) || (i && bytes[i] <= bytes[i - 1]))
			return GS_EINVAL;
		x[i] = bytes[i] * busfactor;
		floor_us = fmin(floor_us, us[i]);
	}
	floor_us *= 0.99;  /* a line may promise 1% less than the fastest time seen, no more */
	if (max_lines < 1)
		max_lines = 1;
	if (max_lines > FIT_MAX_LINES)
		max_lines = FIT_MAX_LINES;
	kmax = npts / FIT_MIN_SEG < max_lines ? npts / FIT_MIN_SEG : max_lines;
	if (kmax < 1)
		kmax = 1;
	int minseg = npts < FIT_MIN_SEG ? npts : FIT_MIN_SEG;

	for (int i = 0; i < npts; i++)
		for (int j = i + minseg - 1; j < npts; j++) {
			struct fit_line l;
			cost[i][j] = seg_fit(x, us, i, j, floor_us, &l);
		}
	/* best[k][j]: the first j points in k segments */
	for (int k = 0; k <= kmax; k++)
		for (int j = 0; j <= npts; j++) {
			best[k][j] = INFINITY;
			from[k][j] = -1;
		}
	best[0][0] = 0;
	for (int k = 1; k <= kmax; k++)
		for (int j = minseg; j <= npts; j++)
			for (int i = (k - 1) * minseg; i + minseg <= j; i++) {
				if (!isfinite(best[k - 1][i]))
					continue;
				double c = best[k - 1][i] + cost[i][j - 1];
				if (c < best[k][j]) {
					best[k][j] = c;
					from[k][j] = i;
				}
			}

	for (int k = 1; k <= kmax; k++) {
		struct fit_result *r = &cand[k];
		int j = npts, seg[FIT_MAX_LINES + 1];
		memset(r, 0, sizeof *r);
		if (!isfinite(best[k][npts]))
			continue;
		for (int s = k; s >= 1; s--) {
			seg[s - 1] = from[s][j];
			j = from[s][j];
		}
		seg[k] = npts;
		r->nlines = k;
		r->busfactor = busfactor;
		for (int s = 0; s < k; s++) {
			seg_fit(x, us, seg[s], seg[s + 1] - 1, floor_us, &r->line[s]);
			if (s + 1 < k)
				r->line[s].max_bytes = sqrt(bytes[seg[s + 1] - 1] * bytes[seg[s + 1]]);
		}
		fit_errors(r, bytes, us, npts, NULL);
		if (r->max_rel_err < best_max)
			best_max = r->max_rel_err;
	}
	for (int k = 1; k <= kmax; k++)
		if (cand[k].nlines && cand[k].max_rel_err <= fmax(0.03, 1.1 * best_max)) {
			chosen = k;
			break;
		}
	if (!chosen)
		return GS_EINVAL;
	*out = cand[chosen];
	return 0;
}

int fit_affine(const double *x, const double *y, int n, double *c0, double *c1)
{
	double w[MAX_PTS], cov00, cov01, cov11, chisq;
	if (n < 2 || n > MAX_PTS)
		return GS_EINVAL;
	for (int i = 0; i < n; i++) {
		if (!(y[i] > 0))
			return GS_EINVAL;
		w[i] = 1.0 / (y[i] * y[i]);
	}
	gsl_fit_wlinear(x, 1, w, 1, y, 1, (size_t)n, c0, c1, &cov00, &cov01, &cov11, &chisq);
	if (*c0 < 0) {
		*c0 = 0;
		gsl_fit_wmul(x, 1, w, 1, y, 1, (size_t)n, c1, &cov11, &chisq);
	}
	if (!(*c1 > 0) || !isfinite(*c0) || !isfinite(*c1))
		return GS_EINVAL;
	return 0;
}

int fit_gemm_model(const double *k, const double *eff, int n, double *max_eff, double *k_half)
{
	double x[MAX_PTS], y[MAX_PTS], c0, c1, cov00, cov01, cov11, ss;
	if (n < 2 || n > MAX_PTS)
		return GS_EINVAL;
	for (int i = 0; i < n; i++) {
		if (!(k[i] > 0) || !(eff[i] > 0))
			return GS_EINVAL;
		x[i] = 1.0 / k[i];
		y[i] = 1.0 / eff[i];
	}
	gsl_fit_linear(x, 1, y, 1, (size_t)n, &c0, &c1, &cov00, &cov01, &cov11, &ss);
	if (!(c0 > 0) || !isfinite(c1))
		return GS_EINVAL;
	*max_eff = 1.0 / c0;
	*k_half = c1 > 0 ? c1 / c0 : 0;
	if (*max_eff > 1.5)
		*max_eff = 1.5;  /* the loader's ceiling */
	return 0;
}
