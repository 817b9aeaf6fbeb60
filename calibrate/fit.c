/* fit: segmented weighted least squares and the lower envelope (see fit.h for the model and its invariants). */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_fit.h>
#include "calibrate/fit.h"
#include "util/gserr.h"

#define MAX_PTS 128

/* slope of t - a = c x through the points, weights w: c = sum w x (t - a) / sum w x^2 */
static double slope_at(const double *x, const double *t, const double *w, int n, double a)
{
	double sxy = 0, sxx = 0;
	for (int p = 0; p < n; p++) {
		sxy += w[p] * x[p] * (t[p] - a);
		sxx += w[p] * x[p] * x[p];
	}
	return sxx > 0 ? sxy / sxx : 0;
}

/* the smallest alpha that keeps alpha + c*x at or above the points below segment i (p < i), each taken as the
 * smallest time at its size or any larger one (lo[p], the data's monotone lower hull): a later line may not undercut
 * what the sizes below it need, yet a noisy high point cannot hold it up */
static double alpha_needed(const double *x, const double *lo, int i, double c)
{
	double a = -INFINITY;
	for (int p = 0; p < i; p++)
		a = fmax(a, lo[p] - c * x[p]);
	return a;
}

/* Fit one line to points i..j of (x, t) with weights 1/t^2, alpha >= floor_us, and the line at or above every
 * earlier point (p < i), so in the lower envelope it never undercuts the sizes below its segment; return the
 * weighted residual sum of squares, i.e. the sum of squared relative errors over i..j. Depends on i, j and the
 * data only, so the segmentation below stays a dynamic program. */
static double seg_fit(const double *x, const double *t, const double *lo, int i, int j, double floor_us,
		      struct fit_line *l)
{
	int n = j - i + 1;
	double w[MAX_PTS], c0, c1, cov00, cov01, cov11, chisq = 0;
	if (n < 1 || n > MAX_PTS)
		return INFINITY;
	for (int p = 0; p < n; p++)
		w[p] = 1.0 / (t[i + p] * t[i + p]);
	gsl_fit_wlinear(x + i, 1, w, 1, t + i, 1, (size_t)n, &c0, &c1, &cov00, &cov01, &cov11, &chisq);
	if (!isfinite(c0) || !isfinite(c1) || c1 < 0)
		c1 = 0, c0 = -INFINITY;
	/* constraints alpha >= max(floor, needed(c1)): pin alpha there and refit the slope, until both hold */
	for (int it = 0; it < 16; it++) {
		double need = fmax(floor_us, alpha_needed(x, lo, i, c1));
		if (c0 >= need - 1e-12 * fabs(need))
			break;
		c0 = need;
		c1 = fmax(0, slope_at(x + i, t + i, w, n, c0));
	}
	if (!(c1 > 0)) {
		/* flat: the weighted mean, raised to the constraints */
		double sw = 0, swt = 0;
		for (int p = 0; p < n; p++) {
			sw += w[p];
			swt += w[p] * t[i + p];
		}
		c1 = 0;
		c0 = fmax(swt / sw, fmax(floor_us, alpha_needed(x, lo, i, 0)));
	}
	chisq = 0;
	for (int p = 0; p < n; p++) {
		double r = t[i + p] - c0 - c1 * x[i + p];
		chisq += w[p] * r * r;
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

/* The DP of fit_lines for all segment counts up to kmax at once: cand[k] is the best k-line envelope
 * (nlines 0 when k segments of FIT_MIN_SEG points do not fit). */
static int fit_all(const double *bytes, const double *us, int npts, double busfactor, int kmax, bool hull,
		   struct fit_result *cand)
{
	double cost[MAX_PTS][MAX_PTS];   /* cost[i][j]: one line through i..j (128 KiB of stack) */
	double x[MAX_PTS], lo[MAX_PTS], floor_us = INFINITY;
	double best[FIT_MAX_LINES + 1][MAX_PTS + 1];
	int from[FIT_MAX_LINES + 1][MAX_PTS + 1];

	if (npts < 2 || npts > MAX_PTS || !(busfactor > 0) || kmax < 1 || kmax > FIT_MAX_LINES)
		return GS_EINVAL;
	for (int i = 0; i < npts; i++) {
		if (!(us[i] > 0) || !(bytes[i] > 0) || (i && bytes[i] <= bytes[i - 1]))
			return GS_EINVAL;
		x[i] = bytes[i] * busfactor;
		floor_us = fmin(floor_us, us[i]);
	}
	floor_us *= 0.99;  /* a line may promise 1% less than the fastest time seen, no more */
	lo[npts - 1] = us[npts - 1];
	for (int i = npts - 2; i >= 0; i--)
		lo[i] = hull ? fmin(us[i], lo[i + 1]) : us[i];
	int minseg = npts < FIT_MIN_SEG ? npts : FIT_MIN_SEG;

	for (int i = 0; i < npts; i++)
		for (int j = i + minseg - 1; j < npts; j++) {
			struct fit_line l;
			cost[i][j] = seg_fit(x, us, lo, i, j, floor_us, &l);
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
			seg_fit(x, us, lo, seg[s], seg[s + 1] - 1, floor_us, &r->line[s]);
			if (s + 1 < k)
				r->line[s].max_bytes = sqrt(bytes[seg[s + 1] - 1] * bytes[seg[s + 1]]);
		}
		fit_errors(r, bytes, us, npts, NULL);
	}
	return 0;
}

int fit_lines(const double *bytes, const double *us, int npts, double busfactor, int k, struct fit_result *out)
{
	struct fit_result cand[FIT_MAX_LINES + 1];
	int rc = fit_all(bytes, us, npts, busfactor, k, false, cand);
	memset(out, 0, sizeof *out);
	if (rc)
		return rc;
	if (!cand[k].nlines)
		return GS_EINVAL;
	*out = cand[k];
	return 0;
}

int fit_envelope(const double *bytes, const double *us, int npts, double busfactor, int max_lines,
		 struct fit_result *out)
{
	struct fit_result cand[2][FIT_MAX_LINES + 1];
	double best_rms = INFINITY;
	int kmax, rc;
	memset(out, 0, sizeof *out);
	if (max_lines < 1)
		max_lines = 1;
	kmax = max_lines < FIT_MAX_LINES ? max_lines : FIT_MAX_LINES;
	if (npts / FIT_MIN_SEG < kmax)
		kmax = npts / FIT_MIN_SEG > 0 ? npts / FIT_MIN_SEG : 1;
	/* two ways to keep later lines from undercutting earlier sizes: above every measured point (exact for clean
	 * data: the envelope is then never worse than each segment's own line) or above the monotone lower hull
	 * (better when a noisy high point would hold every later line up); the envelope's own error decides */
	for (int h = 0; h < 2; h++)
		if ((rc = fit_all(bytes, us, npts, busfactor, kmax, h == 1, cand[h])))
			return rc;
	for (int h = 0; h < 2; h++)
		for (int k = 1; k <= kmax; k++)
			if (cand[h][k].nlines && cand[h][k].rms_rel_err < best_rms)
				best_rms = cand[h][k].rms_rel_err;
	/* the fewest lines whose rms relative error is within 2% (+0.2 points) of the best, or under 0.5%: rms, not
	 * max, so one noisy point cannot make every count look alike */
	for (int k = 1; k <= kmax; k++)
		for (int h = 0; h < 2; h++)
			if (cand[h][k].nlines && cand[h][k].rms_rel_err <= fmax(0.005, 1.02 * best_rms + 0.002)) {
				*out = cand[h][k];
				return 0;
			}
	return GS_EINVAL;
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
