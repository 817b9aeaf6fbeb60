/* fit: the latency/bandwidth model of one collective for one group size, fitted to measured times.
 *
 * NCCL picks, per size, the algorithm and protocol its cost model predicts fastest, so measured time is the lower
 * envelope of several lines t = alpha + x/bw (x = bytes * busfactor). fit_envelope recovers such lines: it splits
 * the sizes into contiguous segments on the log2 grid (dynamic programming over breakpoints), fits each segment by
 * weighted least squares with w = 1/t^2 (so the error minimised is relative, and 8 B counts as much as 1 GiB),
 * and gives every line but the last a max_bytes halfway (in log2) to the next segment. The model is then the
 * minimum over the lines that apply (bytes <= max_bytes), exactly the form docs/hardware-model.md reads.
 * Each line is fitted under a constraint that keeps the envelope honest: at every size below its segment it stays
 * at or above the measured times (then the envelope is nowhere worse than each segment's own line), or, tried too,
 * above their monotone lower hull (the smallest time at that size or any larger one), which a single noisy point
 * cannot hold up; the envelope's own error picks between them.
 * Invariants of a result: 1 <= nlines <= FIT_MAX_LINES; alpha_us >= 0.99 x the smallest measured time (no line
 * promises less latency than was ever seen); us_per_byte > 0. */
#ifndef FIT_H
#define FIT_H

#define FIT_MAX_LINES 6
#define FIT_MIN_SEG 3     /* points per segment */

struct fit_line {
	double alpha_us;
	double us_per_byte;   /* per bus byte (bytes * busfactor); bus_gbps = 1 / (us_per_byte * 1e3) */
	double max_bytes;     /* 0 = no limit */
	int first, last;      /* indices of the points it was fitted to */
};

struct fit_result {
	int nlines;
	struct fit_line line[FIT_MAX_LINES];
	double busfactor;
	int npts;
	double median_rel_err, max_rel_err, rms_rel_err;  /* of the envelope over the fitted points */
};

/* fit_envelope: bytes ascending, us > 0, npts >= 2. max_lines caps the segments (1..FIT_MAX_LINES). Picks the
 * fewest lines whose rms relative error is within 2% (+0.2 points) of the best any count reaches, or under 0.5%.
 * Returns 0, or GS_EINVAL for bad input. */
int fit_envelope(const double *bytes, const double *us, int npts, double busfactor, int max_lines,
		 struct fit_result *out);
/* fit_lines: the envelope of exactly k lines (k <= FIT_MAX_LINES), lines kept above the measured points below
 * them; GS_EINVAL when k segments of FIT_MIN_SEG points do not fit in npts. */
int fit_lines(const double *bytes, const double *us, int npts, double busfactor, int k, struct fit_result *out);
/* fit_eval: the envelope's time in us for a size */
double fit_eval(const struct fit_result *f, double bytes);
/* fit_bus_gbps: a line's bus bandwidth in GB/s */
double fit_bus_gbps(const struct fit_line *l);
/* fit_errors: relative errors (model - measured) / measured of each point into err (may be NULL), and the
 * median, max and rms of their absolute values into f. */
void fit_errors(struct fit_result *f, const double *bytes, const double *us, int npts, double *err);

/* fit_affine: weighted (w = 1/y^2) least squares y = c0 + c1 x with c0, c1 >= 0; 0 or GS_EINVAL. Used for
 * memory-bound kernels (time against bytes moved). */
int fit_affine(const double *x, const double *y, int n, double *c0, double *c1);
/* fit_gemm_model: eff(k) = max_eff * k / (k + k_half) through points (k, eff) (large m, n), as a straight line
 * 1/eff = 1/max_eff + (k_half/max_eff)/k. 0, or GS_EINVAL when the points do not determine it. */
int fit_gemm_model(const double *k, const double *eff, int n, double *max_eff, double *k_half);

#endif
