/* sustain: the power phase's measurements -> gpu.power (see sustain.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "calibrate/gemmtab.h"
#include "calibrate/sustain.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double sustain_settle(const struct cal_hold_pt *p, int n, double tol, double *final_us)
{
	double v[CAL_MAX_HOLD];
	int q = n / 4 > 0 ? n / 4 : 1;
	*final_us = 0;
	if (n < 1)
		return -1;
	for (int i = 0; i < q; i++)
		v[i] = p[n - q + i].us;
	qsort(v, (size_t)q, sizeof *v, cmp_double);
	*final_us = q % 2 ? v[q / 2] : 0.5 * (v[q / 2 - 1] + v[q / 2]);
	int first = n;
	for (int i = n - 1; i >= 0 && fabs(p[i].us / *final_us - 1) <= tol; i--)
		first = i;
	return first < n ? p[first].t_s : -1;
}

double sustain_exponent(double v, double R)
{
	/* v^(x-1) = R + 1/v: x - 1 = ln(R + 1/v) / ln v */
	if (!(v > 1) || !(R + 1 / v > 1))
		return 0;
	return 1 + log(R + 1 / v) / log(v);
}

static const struct cal_rate *ref_rate(const struct calib *c)
{
	for (int i = 0; i < c->power.nrates; i++)
		if (strcmp(c->power.rate[i].name, "ref") == 0 && c->power.rate[i].peak_us > 0 &&
		    c->power.rate[i].sus_us > 0)
			return &c->power.rate[i];
	return NULL;
}

void sustain_derive(const struct calib *c, struct sustain_model *m)
{
	const struct cal_power *p = &c->power;
	const struct cal_rate *r = ref_rate(c);
	double cap = c->id.power_limit_w;
	memset(m, 0, sizeof *m);
	m->settle_s = sustain_settle(p->ramp, p->nramp, SUSTAIN_SETTLE_TOL, &m->ramp_final_us);
	if (!p->have || !r || !(cap > 0))
		return;
	m->ok = true;
	m->peak_tflops = gemm_tflops(r->m, r->n, r->k, r->peak_us);
	m->sus_tflops = gemm_tflops(r->m, r->n, r->k, r->sus_us);
	/* A GEMM's rate follows the SM clock when held at the cap (measured on an H100: 0.499 TFLOP/s per MHz, 0.495
	 * on zeros at 1650 MHz), and a short run on a cool GPU is already clipped by the power limiter within
	 * milliseconds. The clock ratio (max over held: 1.435 on the H100) is where the rate would go if nothing
	 * else held it; no measurement saw a GEMM there: the short run reached 1.16x, the GEMM of a GEMM + copy mix
	 * 1.17x (the mix's median clock, 1860 MHz, counts its copy phases), and held-out steps agree (a pipeline
	 * stage idle half its step: 1.08x measured, 1.19x predicted with the clock ratio; docs/validation.md). So
	 * the model's ceiling is the fastest rate measured; the clock ratio only bounds the exponent fit. */
	m->peak_speedup = fmax(1.0, r->sus_us / r->peak_us);
	m->clock_speedup = m->peak_speedup;
	if (c->id.sm_clock_max_mhz > 0 && r->sus_mhz > 0)
		m->clock_speedup = fmax(m->clock_speedup, (double)c->id.sm_clock_max_mhz / r->sus_mhz);
	m->burst_speedup = m->peak_speedup;  /* raised below to the fastest mix */
	if (p->idle_w > 0)
		m->idle_frac = fmin(p->idle_w / cap, 0.99);
	if (p->copy_w > 0)
		m->mem_frac = fmin(p->copy_w / cap, 0.99);
	/* a mix: W_c seconds of compute (the GEMMs at their sustained time) and W_m of copies per cycle. The copies
	 * keep their own time (memory-bound: the SM clock does not set it), so the GEMMs took T - W_m and ran
	 * v = W_c / (T - W_m) times faster than held alone; the power balance then gives x. A v at 1 or at the
	 * ceiling (the clock's) says nothing about x. The fine mixes (a
	 * training step's phase lengths) give the exponent when they determine it, else the coarse ones. */
	double s = m->idle_frac, mf = m->mem_frac, sum[2] = {0, 0};
	int cnt[2] = {0, 0};
	for (int i = 0; i < p->nmix; i++) {
		const struct cal_mix *x = &p->mix[i];
		const struct cal_rate *g = NULL;
		for (int j = 0; j < p->nrates; j++)
			if (p->rate[j].dt == DT_BF16 && p->rate[j].m == x->m && p->rate[j].n == x->n && p->rate[j].k == x->k)
				g = &p->rate[j];
		if (!g || !(g->sus_us > 0) || !(g->peak_us > 0))
			continue;
		double Wc = x->ngemm * g->sus_us, Wm = x->ncopy * x->copy_us, t = x->cycle_us - Wm;
		if (!(Wc > 0) || !(t > 0) || !(x->copy_us > 0) || !(mf > 0) || !(s > 0))
			continue;
		double v = Wc / t, R = (1 - mf) * Wm / ((1 - s) * Wc), e = 0;
		m->mix_v[i] = v;
		m->burst_speedup = fmax(m->burst_speedup, fmin(v, m->clock_speedup));  /* the clock bounds it */
		if (v > 1.005 && v < 0.99 * m->clock_speedup)
			e = sustain_exponent(v, R);
		if (e > 1 && e <= 10) {  /* an exponent at all; the range check is on the mean below */
			int f = strcmp(x->name, "fine") == 0;
			m->mix_x[i] = e;
			sum[f] += e;
			cnt[f]++;
		}
	}
	m->exponent_fine = cnt[1] > 0;
	m->nexp = cnt[1] ? cnt[1] : cnt[0];
	m->exponent_fit = m->nexp ? sum[cnt[1] > 0] / m->nexp : 0;
	m->exponent = m->exponent_fit >= SUSTAIN_EXP_MIN && m->exponent_fit <= SUSTAIN_EXP_MAX ? m->exponent_fit : 0;
}

bool sustain_power(const struct calib *c, const struct cal_base *b, struct hw_gpu *g)
{
	struct sustain_model m;
	char src[512];
	sustain_derive(c, &m);
	if (!m.ok)
		return false;
	/* the base's comm and exponent when it models power, else the loader's defaults (0.5, 3) */
	const struct hw_gpu *bg = b && b->loaded && b->hw && b->hw->gpu.burst_speedup > 1 ? &b->hw->gpu : NULL;
	double comm = bg ? bg->power_comm_frac : 0.5;
	double x = m.exponent > 0 ? m.exponent : bg ? bg->power_exponent : 3;
	g->burst_speedup = round(m.burst_speedup * 1000) / 1000;
	g->power_exponent = round(x * 100) / 100;
	g->power_mem_frac = m.mem_frac > 0 ? round(m.mem_frac * 1000) / 1000 : bg ? bg->power_mem_frac : 0.6;
	g->power_comm_frac = comm;
	g->power_idle_frac = m.idle_frac > 0 ? round(m.idle_frac * 1000) / 1000 : bg ? bg->power_idle_frac : 0.15;
	/* at most 159 characters (gpu.power.source) */
	snprintf(src, sizeof src, "measured: bf16 8192^3 %.0f TFLOP/s cool, %.0f held %.0f s (%d of %d MHz, %.0f W); "
		 "idle %.0f W, copy %.0f W; exponent: %s; comm: %s", m.peak_tflops, m.sus_tflops, c->power.hold_s,
		 c->power.rate[0].sus_mhz, c->id.sm_clock_max_mhz, c->id.power_limit_w, c->power.idle_w, c->power.copy_w,
		 m.exponent > 0 ? (m.exponent_fine ? "fine mixes" : "coarse mixes") :
		 m.exponent_fit > 0 ? "base (mixes' fit off range)" : "base (no mix)", bg ? "base" : "default");
	snprintf(g->power_source, sizeof g->power_source, "%.159s", src);
	sustain_gpu_rates(c, g);
	/* the limiter's time constant from the gap bursts, where the fit lands inside the probe's gaps' reach */
	double tau = 0, emax = 0;
	g->power_window_ms = 0;
	if (sustain_gap_fit(&c->power, sustain_gap_held_us(&c->power), &tau, &emax) && emax > 0 && tau >= 0.1 &&
	    tau <= 5000)
		g->power_window_ms = round(tau * 100) / 100;
	return true;
}

void sustain_gpu_rates(const struct calib *c, struct hw_gpu *g)
{
	const struct cal_power *p = &c->power;
	double ref = p->nrates > 0 ? p->rate[0].sus_us : 0;
	g->ngpu_rates = 0;
	if (p->ngpu < 2 || !(ref > 0) || p->ngpu > HW_MAX_GPU_RATES)
		return;
	for (int i = 0; i < p->ngpu; i++)  /* devices 0..n-1 in order, each settled, or none of them */
		if (p->gpu[i].dev != i || !(p->gpu[i].us > 0))
			return;
	for (int i = 0; i < p->ngpu; i++)
		g->gpu_rates[i] = round(ref / p->gpu[i].us * 1e4) / 1e4;
	g->ngpu_rates = p->ngpu;
}

/* the fit's residual at tau (ms) over n gaps g (ms) with extra work y (ms); *a the best e_max there */
static double gap_resid(const double *g, const double *y, int n, double tau, double *a)
{
	double fy = 0, ff = 0, r = 0;
	for (int i = 0; i < n; i++) {
		double f = 1 - exp(-g[i] / tau);
		fy += f * y[i];
		ff += f * f;
	}
	*a = ff > 0 ? fy / ff : 0;
	for (int i = 0; i < n; i++) {
		double d = y[i] - *a * (1 - exp(-g[i] / tau));
		r += d * d;
	}
	return r;
}

double sustain_gap_extra_ms(const struct cal_gap *x, double held_us, double *peak, double *at_ms)
{
	double e = 0, best = 0, at = 0;
	for (int b = 0; b < x->nbins && held_us > 0; b++)
		if (x->us[b] > 0) {
			double s = held_us / x->us[b];
			e += (s - 1) * x->bin_us / 1e3;
			if (s > best)
				best = s, at = b * x->bin_us / 1e3;
		}
	if (peak)
		*peak = best;
	if (at_ms)
		*at_ms = at;
	return e;
}

double sustain_gap_held_us(const struct cal_power *p)
{
	for (int i = 0; p->ngap && i < p->nrates; i++)
		if (p->rate[i].m == p->gap[0].m && p->rate[i].n == p->gap[0].n && p->rate[i].k == p->gap[0].k &&
		    p->rate[i].sus_us > 0)
			return p->rate[i].sus_us;
	return 0;
}

bool sustain_gap_fit(const struct cal_power *p, double held_us, double *tau_ms, double *emax_ms)
{
	double g[CAL_MAX_GAPS], y[CAL_MAX_GAPS], a = 0;
	int n = 0;
	bool pos = false;
	for (int i = 0; i < p->ngap && held_us > 0; i++) {
		const struct cal_gap *x = &p->gap[i];
		double e = sustain_gap_extra_ms(x, held_us, NULL, NULL);
		g[n] = (x->idle_us > 0 ? x->idle_us : x->gap_us) / 1e3;
		y[n++] = e;
		pos |= e > 0;
	}
	if (n < 3 || !pos)
		return false;
	/* log grid, then golden section between the best point's neighbours */
	const int N = 400;
	double lo = log(0.01), hi = log(1e4), best = lo, rbest = INFINITY;
	for (int k = 0; k <= N; k++) {
		double t = lo + (hi - lo) * k / N, r = gap_resid(g, y, n, exp(t), &a);
		if (r < rbest)
			rbest = r, best = t;
	}
	double step = (hi - lo) / N, l = best - step, h = best + step, phi = (sqrt(5) - 1) / 2;
	for (int it = 0; it < 100 && h - l > 1e-12; it++) {
		double m1 = h - phi * (h - l), m2 = l + phi * (h - l);
		if (gap_resid(g, y, n, exp(m1), &a) <= gap_resid(g, y, n, exp(m2), &a))
			h = m2;
		else
			l = m1;
	}
	gap_resid(g, y, n, exp(0.5 * (l + h)), &a);
	*tau_ms = exp(0.5 * (l + h));
	*emax_ms = a;
	return true;
}

void sustain_meta(struct ybuild *e, const struct calib *c)
{
	const struct cal_power *p = &c->power;
	struct sustain_model m;
	if (!p->have)
		return;
	sustain_derive(c, &m);
	ybuild_key(e, "sustained");
	ybuild_map(e, false);
	ybuild_knum(e, "hold_s", p->hold_s);
	ybuild_knum(e, "settle_s", m.settle_s);
	ybuild_knum(e, "settle_tol", SUSTAIN_SETTLE_TOL);
	ybuild_knum(e, "peak_speedup", round(m.peak_speedup * 1000) / 1000);
	ybuild_knum(e, "exponent_fit", round(m.exponent_fit * 100) / 100);
	ybuild_knum(e, "clock_speedup", round(m.clock_speedup * 1000) / 1000);
	ybuild_knum(e, "burst_speedup", round(m.burst_speedup * 1000) / 1000);
	ybuild_knum(e, "idle_w", p->idle_w);
	ybuild_kint(e, "idle_sm_mhz", p->idle_mhz);
	ybuild_key(e, "copy");
	ybuild_map(e, true);
	ybuild_knum(e, "bytes", p->copy_bytes);
	ybuild_knum(e, "us", p->copy_us);
	if (p->copy_us > 0)
		ybuild_knum(e, "gbps", p->copy_bytes / (p->copy_us * 1e3));
	ybuild_knum(e, "power_w", p->copy_w);
	ybuild_kint(e, "sm_mhz", p->copy_mhz);
	ybuild_end(e);
	ybuild_key(e, "rates");
	ybuild_seq(e, false);
	for (int i = 0; i < p->nrates; i++) {
		const struct cal_rate *r = &p->rate[i];
		ybuild_map(e, true);
		ybuild_kstr(e, "name", r->name);
		ybuild_kstr(e, "dtype", cal_dtype_name(r->dt));
		ybuild_kint(e, "m", r->m);
		ybuild_kint(e, "n", r->n);
		ybuild_kint(e, "k", r->k);
		ybuild_knum(e, "peak_tflops", r->peak_us > 0 ? gemm_tflops(r->m, r->n, r->k, r->peak_us) : 0);
		ybuild_kint(e, "peak_sm_mhz", r->peak_mhz);
		ybuild_knum(e, "peak_w", round(r->peak_w));
		ybuild_knum(e, "sustained_tflops", r->sus_us > 0 ? gemm_tflops(r->m, r->n, r->k, r->sus_us) : 0);
		ybuild_kint(e, "sustained_sm_mhz", r->sus_mhz);
		ybuild_knum(e, "sustained_w", round(r->sus_w));
		ybuild_knum(e, "sustained_temp_c", r->sus_temp_c);
		ybuild_end(e);
	}
	ybuild_end(e);
	if (p->nmix) {
		ybuild_key(e, "mixes");
		ybuild_seq(e, false);
		for (int i = 0; i < p->nmix; i++) {
			const struct cal_mix *x = &p->mix[i];
			ybuild_map(e, true);
			ybuild_kstr(e, "name", x->name);
			ybuild_kint(e, "m", x->m);
			ybuild_kint(e, "n", x->n);
			ybuild_kint(e, "k", x->k);
			ybuild_kint(e, "gemms", x->ngemm);
			ybuild_kint(e, "copies", x->ncopy);
			ybuild_knum(e, "copy_bytes", x->copy_bytes);
			ybuild_knum(e, "copy_us", x->copy_us);
			ybuild_knum(e, "cycle_us", x->cycle_us);
			ybuild_kint(e, "sm_mhz", x->sm_mhz);
			ybuild_knum(e, "power_w", round(x->power_w));
			ybuild_knum(e, "speedup", round(m.mix_v[i] * 1e4) / 1e4);
			ybuild_knum(e, "exponent", round(m.mix_x[i] * 100) / 100);
			ybuild_end(e);
		}
		ybuild_end(e);
	}
	/* GEMM bursts after idle gaps: each bin's rate over the same GEMM's held rate (the "fine" rate row), 0 where
	 * the bin had none */
	double held = sustain_gap_held_us(p);
	if (p->ngap && held > 0) {
		ybuild_key(e, "gaps");
		ybuild_seq(e, false);
		for (int i = 0; i < p->ngap; i++) {
			const struct cal_gap *x = &p->gap[i];
			double v[CAL_MAX_GAP_BINS];
			for (int b = 0; b < x->nbins; b++)
				v[b] = x->us[b] > 0 ? round(held / x->us[b] * 1000) / 1000 : 0;
			ybuild_map(e, true);
			ybuild_knum(e, "gap_ms", x->gap_us / 1e3);
			ybuild_knum(e, "idle_ms", round(x->idle_us) / 1e3);
			ybuild_knum(e, "bin_ms", x->bin_us / 1e3);
			ybuild_knums(e, "speed", v, x->nbins);
			ybuild_end(e);
		}
		ybuild_end(e);
		double tau = 0, emax = 0;
		if (sustain_gap_fit(p, held, &tau, &emax)) {
			ybuild_key(e, "gap_fit");
			ybuild_map(e, true);
			ybuild_knum(e, "tau_ms", round(tau * 1000) / 1000);
			ybuild_knum(e, "extra_ms", round(emax * 1000) / 1000);
			ybuild_end(e);
		}
	}
	/* every GPU held together: each one's settled rate, clock, power and temperature */
	if (p->ngpu && p->rate[0].m > 0) {
		ybuild_key(e, "gpus_held");
		ybuild_seq(e, false);
		for (int i = 0; i < p->ngpu; i++) {
			const struct cal_gpu_held *h = &p->gpu[i];
			ybuild_map(e, true);
			ybuild_kint(e, "gpu", h->dev);
			ybuild_knum(e, "tflops", h->us > 0 ? round(gemm_tflops(p->rate[0].m, p->rate[0].n, p->rate[0].k,
									    h->us) * 10) / 10 : 0);
			ybuild_kint(e, "sm_mhz", h->sm_mhz);
			ybuild_knum(e, "power_w", round(h->power_w));
			ybuild_knum(e, "temp_c", h->temp_c);
			ybuild_end(e);
		}
		ybuild_end(e);
	}
	/* the warm-up, thinned to at most 60 points: t, TFLOP/s, SM clock, power, temperature */
	if (p->nramp && p->rate[0].m > 0) {
		int step = (p->nramp + 59) / 60;
		ybuild_key(e, "warmup");
		ybuild_seq(e, false);
		for (int i = 0; i < p->nramp; i += step) {
			const struct cal_hold_pt *h = &p->ramp[i];
			double row[5] = {round(h->t_s * 100) / 100,
					 round(gemm_tflops(p->rate[0].m, p->rate[0].n, p->rate[0].k, h->us) * 10) / 10,
					 h->sm_mhz, round(h->power_w), h->temp_c};
			ybuild_nums(e, row, 5);
		}
		ybuild_end(e);
	}
	ybuild_end(e);
}
