/* test_fit: the collective envelope fit, the affine and GEMM-model fits, and GEMM table assembly, on synthetic
 * measurements made from known lines, so every expected number is derivable by hand. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/check.h"
#include "calibrate/calib.h"
#include "calibrate/fit.h"
#include "calibrate/gemmtab.h"

/* t(bytes) = min over lines of alpha + bytes*bf/bw (bw GB/s -> bytes/us = bw*1e3), each up to its max */
struct tline { double alpha, gbps, max; };
static double truth(const struct tline *l, int n, double bytes, double bf)
{
	double best = INFINITY;
	for (int i = 0; i < n; i++)
		if (!(l[i].max > 0) || bytes <= l[i].max)
			best = fmin(best, l[i].alpha + bytes * bf / (l[i].gbps * 1e3));
	return best;
}

/* deterministic noise in [-a, a] */
static double noise(unsigned *s, double a)
{
	*s = *s * 1664525u + 1013904223u;
	return a * (2.0 * ((*s >> 8) / 16777216.0) - 1.0);
}

static int sizes(double *b, double from, double to)
{
	int n = 0;
	for (double x = from; x <= to; x *= 2)
		b[n++] = x;
	return n;
}

static void test_two_lines_exact(void)
{
	/* LL-like (8 us, 40 GB/s) below Simple-like (25 us, 350 GB/s); they cross where
	 * 8 + x/40e3 = 25 + x/350e3, x = 17 / (1/40e3 - 1/350e3) = 767,742 bytes */
	struct tline tl[] = {{8, 40, 0}, {25, 350, 0}};
	double b[40], t[40];
	int n = sizes(b, 8, 1073741824.0);
	struct fit_result f;
	for (int i = 0; i < n; i++)
		t[i] = truth(tl, 2, b[i], 1.0);
	CHECK_INT(fit_envelope(b, t, n, 1.0, FIT_MAX_LINES, &f), 0);
	CHECK_INT(f.nlines, 2);
	/* noiseless points split at the crossing lie exactly on their lines */
	CHECK_NEAR(f.line[0].alpha_us, 8, 1e-6);
	CHECK_NEAR(fit_bus_gbps(&f.line[0]), 40, 1e-6);
	CHECK_NEAR(f.line[1].alpha_us, 25, 1e-6);
	CHECK_NEAR(fit_bus_gbps(&f.line[1]), 350, 1e-6);
	CHECK(f.max_rel_err < 1e-6);
	/* the first line stops between the last point it fitted (512 KiB) and the next (1 MiB) */
	CHECK_NEAR(f.line[0].max_bytes, sqrt(524288.0 * 1048576.0), 1e-9);
	CHECK(f.line[1].max_bytes == 0);
	/* at the kink the envelope is the lower line */
	CHECK_NEAR(fit_eval(&f, 524288.0), 8 + 524288.0 / 40e3, 1e-9);
	CHECK_NEAR(fit_eval(&f, 1048576.0), 25 + 1048576.0 / 350e3, 1e-9);
}

static void test_three_regimes_noisy(void)
{
	/* all-reduce of n = 4 (busfactor 1.5): flat 10 us to 4 KiB, LL128-like, Simple-like; +-2% noise */
	struct tline tl[] = {{10, 1e6, 4096}, {14, 120, 0}, {40, 360, 0}};
	double b[40], t[40], bf = 2.0 * 3 / 4;
	unsigned seed = 12345;
	int n = sizes(b, 8, 4294967296.0);
	struct fit_result f;
	for (int i = 0; i < n; i++)
		t[i] = truth(tl, 3, b[i], bf) * (1 + noise(&seed, 0.02));
	CHECK_INT(fit_envelope(b, t, n, bf, FIT_MAX_LINES, &f), 0);
	CHECK(f.nlines >= 3 && f.nlines <= 4);
	/* relative noise of 2% at most: a good fit leaves residuals of that size, no more */
	CHECK(f.median_rel_err < 0.02);
	CHECK(f.max_rel_err < 0.04);
	/* the last line's bandwidth comes from ~12 points of +-2% noise: within 3% */
	CHECK_NEAR(fit_bus_gbps(&f.line[f.nlines - 1]), 360, 0.03);
	/* invariant: no line below the smallest measured time */
	double tmin = INFINITY;
	for (int i = 0; i < n; i++)
		tmin = fmin(tmin, t[i]);
	for (int l = 0; l < f.nlines; l++) {
		CHECK(f.line[l].alpha_us >= 0.99 * tmin - 1e-12);
		CHECK(f.line[l].us_per_byte > 0);
	}
	/* the envelope follows each regime: 1 KiB flat, 256 KiB LL128, 1 GiB Simple (within the noise) */
	CHECK_NEAR(fit_eval(&f, 1024), 10, 0.03);
	CHECK_NEAR(fit_eval(&f, 262144), 14 + 262144 * bf / 120e3, 0.03);
	CHECK_NEAR(fit_eval(&f, 1073741824.0), 40 + 1073741824.0 * bf / 360e3, 0.03);
}

static void test_flat_and_one_line(void)
{
	double b[] = {8, 16, 32, 64}, t[] = {5, 5, 5, 5}, t2[4];
	struct fit_result f;
	CHECK_INT(fit_envelope(b, t, 4, 1.0, FIT_MAX_LINES, &f), 0);
	CHECK_INT(f.nlines, 1);
	CHECK_NEAR(f.line[0].alpha_us, 5, 1e-12);
	CHECK(fit_bus_gbps(&f.line[0]) >= 1e5);  /* flat: no size term to speak of */
	/* a line through the origin is pinned at 0.99 x the smallest time (2 us) */
	for (int i = 0; i < 4; i++)
		t2[i] = b[i] / 4.0;  /* 2, 4, 8, 16 */
	CHECK_INT(fit_envelope(b, t2, 4, 1.0, 1, &f), 0);
	CHECK_NEAR(f.line[0].alpha_us, 1.98, 1e-12);
	/* bad input */
	double bad[] = {8, 8};
	CHECK_INT(fit_envelope(bad, t, 2, 1.0, 2, &f), -1);
	CHECK_INT(fit_envelope(b, t, 1, 1.0, 2, &f), -1);
}

static void test_affine_and_gemm_model(void)
{
	/* copy kernel: 2 us ramp + 4000 GB/s: t = 2 + b/4e6 us */
	double x[8], y[8], c0, c1, k[6], e[6], me, kh;
	for (int i = 0; i < 8; i++) {
		x[i] = 65536.0 * pow(8, i);
		y[i] = 2 + x[i] / 4e6;
	}
	CHECK_INT(fit_affine(x, y, 8, &c0, &c1), 0);
	CHECK_NEAR(c0, 2, 1e-9);
	CHECK_NEAR(1 / (c1 * 1e3), 4000, 1e-9);
	/* eff = 0.8 k/(k+256) */
	for (int i = 0; i < 6; i++) {
		k[i] = 512 * pow(2, i);
		e[i] = 0.8 * k[i] / (k[i] + 256);
	}
	CHECK_INT(fit_gemm_model(k, e, 6, &me, &kh), 0);
	CHECK_NEAR(me, 0.8, 1e-9);
	CHECK_NEAR(kh, 256, 1e-9);
}

static void add_gemm(struct calib *c, enum dtype dt, long m, long n, long k, double eff, double peak)
{
	struct cal_gemm_pt *p = calib_add_gemm(c);
	p->dt = dt;
	p->m = m;
	p->n = n;
	p->k = k;
	/* time for that efficiency: 2mnk / (eff * peak TFLOP/s) in us */
	p->us = 2.0 * m * n * k / (eff * peak * 1e12) * 1e6;
}

static void test_gemm_table(void)
{
	struct calib c;
	struct gemmtab t;
	long v[] = {1024, 4096};
	calib_init(&c);
	snprintf(c.id.gpu_name, sizeof c.id.gpu_name, "NVIDIA H200");
	gemmtab_set_peaks(&c);
	CHECK_NEAR(c.peak_tflops[DT_BF16], 989.4, 1e-12);
	CHECK_NEAR(c.peak_tflops[DT_FP8], 1978.9, 1e-12);
	CHECK_NEAR(c.hbm_gbps, 4800, 1e-12);
	CHECK_CONTAINS(c.peak_source, "datasheet");
	struct cal_grid *g = &c.grid[DT_BF16];
	g->nm = g->nn = g->nk = 2;
	for (int i = 0; i < 2; i++)
		g->m[i] = g->n[i] = g->k[i] = v[i];
	/* eff = 0.1*(1 + im + 2*in + 4*ik) on 7 of 8 points; (4096, 4096, 4096) missing */
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 2; b++)
			for (int k = 0; k < 2; k++)
				if (a + b + k < 3)
					add_gemm(&c, DT_BF16, v[a], v[b], v[k], 0.1 * (1 + a + 2 * b + 4 * k), 989.4);
	CHECK_INT(gemmtab_build(&c, DT_BF16, &t), 0);
	CHECK_INT(t.nmissing, 1);
	CHECK_NEAR(t.eff[0], 0.1, 1e-9);                       /* (0,0,0) */
	CHECK_NEAR(t.eff[(0 * 2 + 1) * 2 + 1], 0.7, 1e-9);     /* m=1024, n=4096, k=4096 */
	CHECK_NEAR(t.eff[(1 * 2 + 0) * 2 + 1], 0.6, 1e-9);     /* m=4096, n=1024, k=4096 */
	/* the hole takes its first nearest neighbour (log2 distance 2 each): (1024,4096,4096) = 0.7 */
	CHECK_NEAR(t.eff[7], 0.7, 1e-9);
	gemmtab_release(&t);
	/* no measurement for fp16: no table */
	CHECK_INT(gemmtab_build(&c, DT_FP16, &t), -1);
	/* an efficiency above the loader's 1.5 is clamped and counted; 1.2 is kept */
	add_gemm(&c, DT_BF16, 4096, 4096, 4096, 1.6, 989.4);
	add_gemm(&c, DT_BF16, 1024, 1024, 1024, 1.2, 989.4);
	CHECK_INT(gemmtab_build(&c, DT_BF16, &t), 0);
	CHECK_INT(t.nclamped, 1);
	CHECK_NEAR(t.eff[7], 1.5, 1e-12);
	CHECK_NEAR(t.eff[0], 1.2, 1e-9);
	gemmtab_release(&t);
	calib_release(&c);

	/* an unknown GPU: peaks are the best measured */
	calib_init(&c);
	snprintf(c.id.gpu_name, sizeof c.id.gpu_name, "Some Future GPU");
	add_gemm(&c, DT_BF16, 4096, 4096, 4096, 0.5, 1000);  /* 500 TFLOP/s */
	gemmtab_set_peaks(&c);
	CHECK_NEAR(c.peak_tflops[DT_BF16], 500, 1e-9);
	CHECK_CONTAINS(c.peak_source, "measured");
	calib_release(&c);

	double pk[DT_COUNT], hbm;
	const char *label;
	CHECK_INT(gemmtab_datasheet("NVIDIA GH200 480GB", pk, &hbm, &label), 1);
	CHECK_CONTAINS(label, "GH200");
	CHECK_INT(gemmtab_datasheet("NVIDIA H100 PCIe", pk, &hbm, &label), 1);
	CHECK_NEAR(pk[DT_BF16], 756.5, 1e-12);
	CHECK_INT(gemmtab_datasheet("Radeon", pk, &hbm, &label), 0);
}

/* one intra-node series of op over n GPUs in c (initialised here) */
static struct cal_series *one_series(struct calib *c, enum coll_op op, int n)
{
	calib_init(c);
	struct cal_series *s = calib_add_series(c);
	s->scope = SCOPE_INTRA;
	s->op = op;
	s->n = n;
	return s;
}

/* what calib_fit prints for c, into buf */
static void fit_log(struct calib *c, char *buf, size_t len)
{
	FILE *f = tmpfile();
	buf[0] = 0;
	CHECK(f != NULL);
	if (!f)
		return;
	calib_fit(c, f);
	rewind(f);
	buf[fread(buf, 1, len - 1, f)] = 0;
	fclose(f);
}

static void test_calib_fit_series(void)
{
	struct calib c;
	struct cal_series *s = one_series(&c, COLL_ALL_GATHER, 2);
	/* all-gather n=2: busfactor 1/2; t = 6 + bytes*0.5/(300e3) */
	for (double b = 64; b <= 1 << 30; b *= 4)
		s->bytes[s->npts] = b, s->us[s->npts++] = 6 + b * 0.5 / 300e3;
	calib_fit(&c, NULL);
	CHECK(s->fitted);
	CHECK_NEAR(fit_bus_gbps(&s->fit.line[s->fit.nlines - 1]), 300, 1e-6);
	CHECK_NEAR(cal_busfactor(COLL_ALL_REDUCE, 8), 1.75, 1e-12);
	CHECK_NEAR(cal_busfactor(COLL_SEND_RECV, 8), 1, 1e-12);
	CHECK_STR(cal_op_name(COLL_ALL_TO_ALL), "all_to_all");
	CHECK_STR(cal_dtype_name(DT_FP8), "fp8");
	int lo = -1, hi = -1;
	CHECK_NEAR(cal_series_drop(s, &lo, &hi), 1, 0);  /* rising everywhere: no drop */
	calib_release(&c);
}

/* A sweep that falls with size (the 4 x H100 all_reduce of 4 GPUs, 2026-11-28, rounded: 40 us from 8 B to 8 KiB, 25
 * us from 16 KiB to 2 MiB, then bandwidth-bound at 360 GB/s bus): the largest fall is 40 / 25 = 1.6, from 8 B to 16
 * KiB (the first 40 and the first 25: later equal ones do not replace them), and the fit line plus a warning naming
 * that pair are printed. */
static void test_series_falls(void)
{
	struct calib c;
	struct cal_series *s = one_series(&c, COLL_ALL_REDUCE, 4);
	for (double b = 8; b <= 1 << 30; b *= 2) {
		double t = b <= 8192 ? 40 : b <= (1 << 21) ? 25 : 25 + b * 1.5 / 360e3;
		s->bytes[s->npts] = b, s->us[s->npts++] = t;
	}
	int lo = -1, hi = -1;
	CHECK_NEAR(cal_series_drop(s, &lo, &hi), 1.6, 1e-12);
	CHECK_NEAR(s->bytes[lo], 8, 0);
	CHECK_NEAR(s->bytes[hi], 16384, 0);
	char buf[2048];
	fit_log(&c, buf, sizeof buf);
	CHECK(s->fitted);
	CHECK(strstr(buf, "calibrate: fit intra all_reduce") != NULL);
	CHECK(s->fit.median_rel_err > CAL_FIT_WARN);  /* 24.3 %: the lower envelope sits between 25 and 40 us */
	CHECK(strstr(buf, "calibrate: warning: intra all_reduce n=4 is faster at 16384 B (25.0 us) than at 8 B "
			  "(40.0 us)") != NULL);
	/* the same sweep rising everywhere (40 us flat, then the bandwidth line): a fit and no warning */
	for (int i = 0; i < s->npts; i++)
		s->us[i] = s->bytes[i] <= (1 << 21) ? 40 : 40 + s->bytes[i] * 1.5 / 360e3;
	fit_log(&c, buf, sizeof buf);
	CHECK(strstr(buf, "calibrate: fit intra all_reduce") != NULL);
	CHECK(strstr(buf, "warning") == NULL);
	calib_release(&c);
}

/* A disturbed GEMM series, with the numbers of hardware/h100x4-1128c-measured/gemm.csv: 8192x1024x1024 at a median
 * of 39.728 us for a fastest sample of 32.974 (39.728 / 32.974 = 1.205 > 1.1: timed again), 8192x8192x8192 at
 * 1395.14 for 1385.73 (1.007: kept), a series exactly 1.1x its minimum kept (the bound is strict); a second timing
 * replaces the first only with a lower median (33.2 < 39.7), never with a failed one (0), and fills a failed first. */
static void test_series_disturbed(void)
{
	CHECK(cal_series_disturbed(39.728, 32.974));
	CHECK(!cal_series_disturbed(1395.14, 1385.73));
	CHECK(!cal_series_disturbed(110.0, 100.0));
	CHECK(!cal_series_disturbed(39.728, 0));
	CHECK(cal_series_better(39.728, 33.2));
	CHECK(!cal_series_better(33.2, 39.728));
	CHECK(!cal_series_better(33.2, 33.2));
	CHECK(!cal_series_better(33.2, 0));
	CHECK(cal_series_better(0, 33.2));
}

static void add_pt(struct calib *c, enum dtype dt, long m, long n, long k, double us, bool grid)
{
	struct cal_gemm_pt *p = calib_add_gemm(c);
	if (!p)
		return;
	p->dt = dt;
	p->m = m;
	p->n = n;
	p->k = k;
	p->us = us;
	p->min_us = us;
	p->grid = grid;
}

/* A grid point slower than a larger product, with the numbers of hardware/h100x2-1128e-measured/gemm.csv:
 * 4096x1024x1024 at 75.06 us where 4096x1024x2048 (every axis at least as large, twice the work) took 38.32:
 * 75.06 / 38.32 = 1.96 > 1.25, dominated; 4096x1024x1536 at 81.75 by the same; 4096x1024x2048 by nothing (the
 * larger 4096x1536x2048 is slower); a point 1.227x a larger one kept (cuBLAS's kernels differ that much), 1.373x
 * not, and the fastest of its dominating points named; another dtype and a non-grid point never count, nor does a
 * smaller product, however fast. */
static void test_gemm_dominated(void)
{
	struct calib c;
	calib_init(&c);
	add_pt(&c, DT_BF16, 4096, 1024, 1024, 75.0573, true);  /* 0 */
	add_pt(&c, DT_BF16, 4096, 1024, 1536, 81.7547, true);  /* 1 */
	add_pt(&c, DT_BF16, 4096, 1024, 2048, 38.3185, true);  /* 2 */
	add_pt(&c, DT_BF16, 4096, 1536, 2048, 45.0, true);     /* 3 */
	add_pt(&c, DT_BF16, 2048, 1024, 1024, 12.0, true);     /* 4 */
	add_pt(&c, DT_FP16, 8192, 8192, 8192, 1.0, true);      /* 5: another dtype */
	add_pt(&c, DT_BF16, 8192, 8192, 8192, 1.0, false);     /* 6: not a grid point */
	add_pt(&c, DT_BF16, 1024, 512, 512, 11.0, true);       /* 7 */
	add_pt(&c, DT_BF16, 1024, 512, 256, 13.5, true);       /* 8: 13.5 / 11 = 1.227 over 7 */
	CHECK_INT(cal_gemm_dominating(&c, 0), 2);
	CHECK_INT(cal_gemm_dominating(&c, 1), 2);
	CHECK_INT(cal_gemm_dominating(&c, 2), -1);
	CHECK_INT(cal_gemm_dominating(&c, 3), -1);
	CHECK_INT(cal_gemm_dominating(&c, 4), -1);
	CHECK_INT(cal_gemm_dominating(&c, 5), -1);
	CHECK_INT(cal_gemm_dominating(&c, 6), -1);
	CHECK_INT(cal_gemm_dominating(&c, 7), -1);
	CHECK_INT(cal_gemm_dominating(&c, 8), -1);
	c.gemm[8].us = 15.1;  /* 1.373 over 7 (11 us) and 1.258 over 4 (12 us): the faster, 7 */
	CHECK_INT(cal_gemm_dominating(&c, 8), 7);
	calib_release(&c);
}

int main(void)
{
	test_series_disturbed();
	test_gemm_dominated();
	test_series_falls();
	test_two_lines_exact();
	test_three_regimes_noisy();
	test_flat_and_one_line();
	test_affine_and_gemm_model();
	test_gemm_table();
	test_calib_fit_series();
	return check_result();
}
