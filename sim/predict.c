/* predict: load nothing, decide nothing: glue from (scenario, hardware) to a result.
 * build tasks -> run the engine -> read the critical rank's breakdown and the worst stage's memory. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "sim/predict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdio.h>
#include "sim/build.h"
#include "sim/engine.h"
#include "sim/ops.h"
#include "sim/schedule.h"
#include "sim/tmap.h"
#include "sim/trace.h"
#include "util/diag.h"
#include "util/gserr.h"
#include "util/xalloc.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The power cap (hardware gpu.power; docs/simulation.md). The model's compute-bound rates are sustained: a GPU
 * computing all the time at its power cap. In a step of T seconds a stage does W_c seconds of compute-bound work
 * (GEMMs, attention) and W_m of memory-bound work at those rates, waits T_c in communication (NCCL kernels spin:
 * TP, pipeline and DP waits, bubbles) and T_i for the host. As fractions of the cap, memory-bound kernels draw
 * m, waits c and an idle GPU s (its static power); compute at v times the sustained rate draws s + (1-s) v^x.
 * The average power stays at the cap when
 *     s W_c/v + (1-s) W_c v^(x-1) + m W_m + c T_c + s T_i = W_c/v + W_m + T_c + T_i,
 * i.e. v^(x-1) - 1/v = R with R = ((1-m) W_m + (1-c) T_c + (1-s) T_i) / ((1-s) W_c): v between 1 (R = 0, a GPU
 * that only computes) and burst_speedup. The engine scales whole compute segments, so a stage runs them
 * (W_c + W_m) / (W_c/v + W_m) times faster. T_c and T_i depend on the speeds, so they are found by fixed-point
 * iteration over whole simulations (damped by half once the change grows between two runs); each stage's first
 * rank stands for it. */
static double power_gap(double v, double x1)
{
	return pow(v, x1) - 1 / v;
}

/* Where the bisection below may skip pow: for x1 >= 0, power_gap grows with v (its slope is at least 1/v^2), so
 * with v0 the root by Newton's method, a = v0 (1 - 1e-10) and b = v0 (1 + 1e-10) checked to lie below and above R
 * by a margin far beyond pow's rounding (1e-13 of the terms' size, against their ~1e-16), every v <= a evaluates
 * below R and every v >= b above it, as the bisection would find by evaluating: its steps are unchanged, to the
 * bit, and only the ~8 of them within (a, b) call pow (of ~40). *a = -inf, *b = inf when not certified. */
static void power_bracket(double lo, double hi, double x1, double R, double *a, double *b)
{
	*a = -INFINITY;
	*b = INFINITY;
	if (!(x1 >= 0) || !(hi > lo))
		return;
	double v = 0.5 * (lo + hi);
	for (int i = 0; i < 8; i++) {
		double p = pow(v, x1), d = x1 * p / v + 1 / (v * v), next = fmin(fmax(v - (p - 1 / v - R) / d, lo), hi);
		int done = fabs(next - v) <= 1e-14 * v;
		v = next;
		if (done)
			break;
	}
	double lo_v = v * (1 - 1e-10), hi_v = v * (1 + 1e-10);
	double margin = 1e-13 * (1 + fabs(R) + pow(hi_v, x1) + 1 / lo_v);
	if (power_gap(lo_v, x1) <= R - margin && power_gap(hi_v, x1) >= R + margin) {
		*a = lo_v;
		*b = hi_v;
	}
}

/* The power balance's law for a step: the GPU's, and the attention entry's when its cores are timed at the
 * maximum clock and slow by a measured exponent (enum op_clock's OPCLK_MAX: W_a seconds at the maximum clock). */
struct power_law {
	const struct hw_gpu *g;
	double lambda, p_att;     /* the entry's clock_exponent and power (a fraction of the cap); 0 without */
	double anchor;            /* the GEMMs' speed at which the entry runs at its maximum-clock rate: its
	                           * clock_anchor (burst_speedup where not given) */
	double chip;              /* the job's slowest GPU: its sustained rate over the calibrated GPU's
	                           * (hwmodel_gpu_rate; 1 = the same chip) */
};

/* A stage's speed (its whole compute segments'); *gv and *au (where not NULL) get the GEMMs' speed and, under the
 * attention law, the attention's (0 without it). */
static double stage_target(const struct power_law *law, double Wc, double Wa, double Wm, double Tc, double Ti,
			   double *gv, double *au)
{
	const struct hw_gpu *g = law->g;
	double s = fmin(g->power_idle_frac, 0.99), gemm = 1, att = 0, out;
	if (Wa > 0 && law->p_att > 0) {
		double rhs = (1 - g->power_mem_frac) * Wm + (1 - g->power_comm_frac) * Tc + (1 - s) * Ti;
		double B = g->burst_speedup, A = law->anchor, lam = law->lambda;
		double w = predict_chip_speed_attn(g->power_exponent, B, A, s, lam, law->p_att, law->chip, Wc, Wa, rhs);
		gemm = fmin(w, B);
		att = w < A ? pow(w / A, lam) : 1;  /* at its full rate from the anchor up */
		out = (Wc + Wa + Wm) / (Wc / gemm + Wa * (w < A ? pow(A / w, lam) : 1) + Wm);
	} else {
		Wm += Wa;  /* no law for them: fixed-time work */
		out = 1;
		if (Wc > 0) {
			double R = ((1 - g->power_mem_frac) * Wm + (1 - g->power_comm_frac) * Tc + (1 - s) * Ti) /
				   ((1 - s) * Wc);
			/* a chip f: f^(-x) v^(x-1) - 1/v = R, i.e. u^(x-1) - 1/u = f R in u = v/f (predict_clock_speed) */
			double f = law->chip;
			gemm = f * predict_clock_speed(g->power_exponent - 1, g->burst_speedup / f, f * R);
			out = (Wc + Wm) / (Wc / gemm + Wm);
		}
	}
	if (gv)
		*gv = gemm;
	if (au)
		*au = att;
	return out;
}

/* The balance with attention at the maximum clock (stage_target), in the clock's index w (the GEMMs' speed while
 * it is at most B): the attention cores run at u = (r)^lambda of their maximum-clock rate, r = min(w/A, 1), A the
 * anchor (the GEMMs' speed at which the attention reaches its maximum-clock rate), and draw s + (p_a - s) r^x of
 * the cap (the GEMMs' clock-to-power law: a GEMM at v draws s + (1-s) v^x, and r is the clock's share of its
 * maximum as the GEMMs' rate sees it); the GEMMs run at v = min(w, B) (no GEMM was measured faster than B; with
 * A > B the clock rises between B and A for the attention alone, up to its own maximum-clock rate; with A < B, the
 * anchor a layer mix put there, the attention stays at its full rate while the GEMMs go on up to B), so with the
 * rest as in the comment above
 *     h(w) = (1-s) Wc (v^(x-1) - 1/v) + Wa r^(-lambda) ((p_a - s) r^x - (1-s)) = rhs,
 * rhs = (1-m) Wm + (1-c) Tc + (1-s) Ti. h grows with w for lambda < x (its second term's slope is positive up to
 * A and 0 beyond, the first's is too up to B and 0 beyond), so the root in [1, max(A, B)] is unique where h
 * rises: Newton's method kept inside a shrinking bracket, bisecting where a step leaves it. */
static double attn_h(double w, double x, double B, double A, double s, double lam, double pa, double k, double Wc,
		     double Wa, double *dh)
{
	double v = fmin(w, B), r = fmin(w / A, 1), rl = pow(r, -lam), rx = pow(r, x);
	double gemm = (1 - s) * Wc * (k * pow(v, x - 1) - 1 / v);
	double att = Wa * ((pa - s) * k * rx * rl - (1 - s) * rl);
	*dh = (w < B ? (1 - s) * Wc * (k * (x - 1) * pow(v, x - 2) + 1 / (v * v)) : 0) +
	      (w < A ? Wa * ((pa - s) * k * (x - lam) * rx * rl + (1 - s) * lam * rl) / w : 0);
	return gemm + att;
}

double predict_clock_speed_attn(double x, double B, double A, double s, double lam, double pa, double Wc, double Wa,
				double rhs)
{
	return predict_chip_speed_attn(x, B, A, s, lam, pa, 1, Wc, Wa, rhs);
}

/* The same on a chip f (power_law.chip): every dynamic power term times k = f^(-x) (its draw at a clock over the
 * calibrated chip's), the index from f (pure compute at the cap) up; f = 1 is predict_clock_speed_attn, to the
 * bit (k = 1). */
double predict_chip_speed_attn(double x, double B, double A, double s, double lam, double pa, double f, double Wc,
			       double Wa, double rhs)
{
	double k = pow(f, -x), lo = f, hi = fmax(A, B), dh;
	if (attn_h(hi, x, B, A, s, lam, pa, k, Wc, Wa, &dh) <= rhs)
		return hi;
	if (attn_h(lo, x, B, A, s, lam, pa, k, Wc, Wa, &dh) >= rhs)
		return lo;
	double v = 0.5 * (lo + hi);
	for (int i = 0; i < 100 && hi - lo > 1e-13 * hi; i++) {
		double h = attn_h(v, x, B, A, s, lam, pa, k, Wc, Wa, &dh) - rhs;
		if (h == 0)
			return v;
		if (h < 0)
			lo = v;
		else
			hi = v;
		double next = dh > 0 ? v - h / dh : -1;
		if (!(next > lo && next < hi))
			next = 0.5 * (lo + hi);
		if (fabs(next - v) <= 1e-14 * v)
			return next;
		v = next;
	}
	return v;
}

double predict_clock_speed(double x1, double burst, double R)
{
	double lo = 1, hi = burst, a, b;
	if (power_gap(hi, x1) <= R)
		lo = hi;
	power_bracket(lo, hi, x1, R, &a, &b);
	for (int i = 0; i < 60 && hi - lo > 1e-12; i++) {  /* v^(x-1) - 1/v grows with v */
		double mid = 0.5 * (lo + hi);
		if (mid <= a || (mid < b && power_gap(mid, x1) <= R))
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* What one simulation of the stage clocks' fixed point says about each stage i at the speeds x_i it ran at:
 * W its compute and optimizer work at the sustained rates (seconds), Wc the compute-bound part of it, Wa the
 * attention cores timed at the maximum clock (at that clock's rates; enum op_clock's OPCLK_MAX), C = W/x its
 * compute time, H its host time, Tc its communication waits and tail (stage_target), P its pipeline waits
 * (pipeline transfers, bubble, tail), and the step time T. */
struct clock_obs {
	double *W, *Wc, *Wa, *C, *H, *Tc, *P;
	double T;
};

/* How the step time follows stage j's compute time (model_step): a pipeline's step is its bottleneck stage b's
 * work (the stage with the least pipeline waiting) plus the fill and drain, in which each other stage computes
 * one micro-batch pass of its n (micro-batches times model chunks); times scale, the ratio the last two
 * simulations showed. */
static double step_share(int j, int b, int n, double scale)
{
	return (j == b ? 1.0 : 1.0 / n) * scale;
}

/* The next speeds from one simulation, by a model of how the step responds to them: a stage's time is its
 * compute, its waits and its host time, C + Tc + H = T; when the speeds move to y, each stage's compute moves by
 * W_i/y_i - C_i, T by those moves weighted by step_share, and each stage's waits by the difference. The speeds y
 * at which that model asks for themselves are found by plain iteration (no simulation), from x + f: within the
 * model's error of the fixed point; the simulation at y then measures what is left. */
static void model_step(const struct power_law *g, const struct clock_obs *o, int pp, int b, int n, double scale,
		       const double *x, const double *f, double *y)
{
	for (int i = 0; i < pp; i++)
		y[i] = x[i] + f[i];
	for (int it = 0; it < 30; it++) {
		double dT = 0, d = 0;
		for (int j = 0; j < pp; j++)
			dT += step_share(j, b, n, scale) * (o->W[j] / y[j] - o->C[j]);
		for (int i = 0; i < pp; i++) {
			double Tc = fmax(0, o->Tc[i] + dT - (o->W[i] / y[i] - o->C[i]));
			double v = stage_target(g, o->Wc[i], o->Wa[i], o->W[i] - o->Wc[i] - o->Wa[i], Tc, o->H[i], NULL, NULL);
			d = fmax(d, fabs(v - y[i]));
			y[i] = v;
		}
		if (d < 1e-12)
			break;
	}
}

/* The first iterate, from the programs alone: each stage's compute-stream work at the sustained rates, compute
 * (W) and the collectives it waits for, the step as model_step sees it (the busiest stage's work plus one pass
 * of each other's), each stage's waits the rest of the step, and the speeds that model asks for (model_step from
 * 1). Pipeline transfers, exposed DP and host time are left out: the first simulation measures them. Closer to
 * the fixed point than 1, the model step after it lands closer too (70b_64gpu: 2 simulations instead of 3). */
static void first_guess(const struct power_law *g, const struct build *b, int passes, struct clock_obs *o, double *f,
			double *speed)
{
	int pp = b->pp, bn = 0;
	double *busy = o->P;  /* scratch */
	for (int i = 0; i < pp; i++) {
		/* summed as the program was stored (program.work_s): prefix sums over the instructions, a piece's work a
		 * difference, however often it repeats */
		const struct program *p = &b->progs[i];
		double w = p->work_s, coll = p->coll_s;
		o->W[i] = o->C[i] = w;
		o->Wc[i] = fmin(b->stages[i].compute_bound_s, w);
		o->Wa[i] = fmin(b->stages[i].at_max_s, w - o->Wc[i]);
		o->H[i] = 0;
		busy[i] = w + coll;
		if (busy[i] > busy[bn])
			bn = i;
		speed[i] = 1;
		f[i] = 0;
	}
	double T = 0;
	for (int j = 0; j < pp; j++)
		T += step_share(j, bn, passes, 1) * busy[j];
	for (int i = 0; i < pp; i++)
		o->Tc[i] = fmax(0, T - o->C[i]);
	double *y = o->P;  /* busy is no longer needed */
	model_step(g, o, pp, bn, passes, 1, speed, f, y);
	for (int i = 0; i < pp; i++)
		speed[i] = y[i];
}

/* The stages' speeds at the power cap: a fixed point over whole simulations of one rank per stage (the ranks of
 * a stage run one program in symmetric groups, so with --all-ranks each comes out as this one does; bench/
 * same-output compares --all-ranks reports), each next iterate from model_step. Returns the last simulation, run
 * at the speeds left in speed (its change to the next iterate below 1e-6), for the caller to use or free. speed
 * holds 3 pp values: the stages' speeds, then each stage's GEMM and attention speeds (stage_target's). */
static int stage_clocks(const struct power_law *law, const struct build *b, const struct sim_config *cfg,
			int passes, double *speed, struct sim **last)
{
	struct sim_config c = *cfg;
	c.trace = NULL;
	c.stage_speed = speed;
	c.dp_sim = c.tp_sim = 1;
	int pp = cfg->pp;
	double *mem = xcalloc(10 * (size_t)pp, sizeof *mem), *f = mem, *y = mem + pp, *prev_C = mem + 8 * pp;
	struct clock_obs o = { .W = mem + 2 * pp, .Wc = mem + 3 * pp, .C = mem + 4 * pp, .H = mem + 5 * pp,
			       .Tc = mem + 6 * pp, .P = mem + 7 * pp, .Wa = mem + 9 * pp };
	first_guess(law, b, passes, &o, f, speed);
	double alpha = 1, last_change = INFINITY, scale = 1, prev_T = 0;
	int prev_b = -1;
	*last = NULL;
	struct sim *s = sim_new(&c);  /* one for every iteration: reset at each new speed[] (sim_reset) */
	for (int it = 0; it < 40; it++) {
		if (it > 0)
			sim_reset(s);
		int rc = sim_run(s);
		if (rc < 0) {
			sim_free(s);
			free(mem);
			return rc;
		}
		double change = 0;
		o.T = sim_step_time(s);
		int bn = 0;
		for (int i = 0; i < pp; i++) {
			double acc[ACC_N], busy = 0;
			sim_rank_breakdown(s, i, acc);
			for (int k = 0; k < ACC_PARTS; k++)
				busy += acc[k];
			o.C[i] = acc[ACC_COMPUTE] + acc[ACC_OPTIMIZER];
			o.W[i] = o.C[i] * speed[i];  /* at the sustained rates */
			o.Wc[i] = fmin(b->stages[i].compute_bound_s, o.W[i]);
			/* at the maximum clock: the speeds are the whole segments', so W holds them as they are */
			o.Wa[i] = fmin(b->stages[i].at_max_s, o.W[i] - o.Wc[i]);
			o.H[i] = acc[ACC_HOST];
			/* waits and the rank's tail to the step's end, less what a windowed limiter does not credit */
			double tail = fmax(0, o.T - busy);
			o.Tc[i] = fmax(0, acc[ACC_TP] + acc[ACC_PP] + acc[ACC_DP] + acc[ACC_BUBBLE] + tail - acc[ACC_WAIT_LOST]);
			o.P[i] = acc[ACC_PP] + acc[ACC_BUBBLE] + tail;
			if (o.P[i] < o.P[bn])
				bn = i;
			f[i] = stage_target(law, o.Wc[i], o.Wa[i], o.W[i] - o.Wc[i] - o.Wa[i], o.Tc[i], o.H[i], &speed[pp + 2 * i],
					    &speed[pp + 2 * i + 1]) - speed[i];
			change = fmax(change, fabs(f[i]));
		}
		if (change < 1e-6 || it == 39) {
			*last = s;  /* run at speed[], within 1e-6 of what it asks for */
			break;
		}
		if (change > last_change)
			alpha = 0.5;  /* oscillating: damp, and plain steps from now on */
		/* how the step followed the stages' compute between the last two simulations */
		if (bn == prev_b) {
			double dC = 0;
			for (int j = 0; j < pp; j++)
				dC += step_share(j, bn, passes, 1) * (o.C[j] - prev_C[j]);
			double r = (o.T - prev_T) / dC;
			if (fabs(dC) > 1e-6 * o.T)
				scale = r > 0.5 && r < 2 ? r : 1;
		}
		prev_b = bn;
		prev_T = o.T;
		memcpy(prev_C, o.C, pp * sizeof *prev_C);
		if (alpha == 1) {
			model_step(law, &o, pp, bn, passes, scale, speed, f, y);
			for (int i = 0; i < pp; i++)
				speed[i] = y[i];
		} else {
			for (int i = 0; i < pp; i++)
				speed[i] += alpha * f[i];
		}
		last_change = change;
	}
	free(mem);
	return 0;
}

double predict_estimate_tasks(const struct scenario *s, bool all_ranks)
{
	double ranks = all_ranks ? (double)s->par.dp * s->par.tp : 1;
	return 10.0 * scenario_num_microbatches(s) * s->model.layers * ranks;
}

/* Every number a report prints is finite: 0, or GS_EINVAL naming the first that is not. */
static int check_finite(const struct result *r)
{
	const struct { const char *name; double v; } v[] = {
		{ "step time", r->step_time_s }, { "tokens/s", r->tokens_per_s }, { "MFU", r->mfu },
		{ "compute", r->breakdown_s.compute }, { "TP communication", r->breakdown_s.tp_comm_exposed },
		{ "PP communication", r->breakdown_s.pp_comm_exposed },
		{ "DP communication", r->breakdown_s.dp_comm_exposed }, { "bubble", r->breakdown_s.pipeline_bubble },
		{ "optimizer", r->breakdown_s.optimizer }, { "host wait", r->breakdown_s.host_wait },
		{ "memory", r->mem.total },
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		if (!isfinite(v[i].v) || (i == 0 && !(v[i].v > 0)))
			return diag_errorf("%s: the simulated %s is %g: a number in the hardware model or the scenario is "
					   "out of scale (a rate near 0, a latency near infinity)", r->scenario, v[i].name,
					   v[i].v);
	return 0;
}

/* The timeline writer for opts' --trace, or NULL. */
static struct trace *open_trace(const struct scenario *sc, const struct hwmodel *hw, const struct predict_opts *opts)
{
	const struct parallel_cfg *par = &sc->par;
	if (!opts || !opts->trace)
		return NULL;
	struct trace_job job = {
		.scenario = sc->name, .hardware = hw->name, .schedule = sched_name(par->schedule),
		.gpus = par->gpus, .dp = par->dp, .tp = par->tp, .pp = par->pp, .gpus_per_node = hw->node.gpus,
		.num_microbatches = scenario_num_microbatches(sc),
		.virtual_stages = par->schedule == SCHED_INTERLEAVED ? par->virtual_stages : 1,
		.pick = opts->trace_pick, .ranks = opts->trace_ranks, .nranks = opts->trace_nranks,
		.max_bytes = opts->max_trace_bytes > 0 ? opts->max_trace_bytes : PREDICT_MAX_TRACE_BYTES,
	};
	return trace_new(opts->trace, &job);
}

/* Runs the step: the stage clocks' fixed point when the GPU has a power model (its last simulation is the
 * report, unless the report needs every rank or a timeline), the critical stage for a timeline that needs it,
 * then the simulation the report reads (*out), at the speeds left in cfg->stage_speed (*speed, owned). */
static int simulate(const struct hwmodel *hw, const struct hw_attn *att, const struct build *b, double chip,
		    struct sim_config *cfg, int passes, bool all, enum trace_pick pick, double **speed, struct sim **out)
{
	struct trace *trace = cfg->trace;
	bool need_critical = trace && (pick == TRACE_CRITICAL || pick == TRACE_OVERVIEW);
	struct sim *s = NULL;
	int rc = 0;
	*speed = NULL;
	if (hw->gpu.burst_speedup > 1) {
		*speed = xcalloc(3 * (size_t)cfg->pp, sizeof **speed);  /* each stage's speed, then its GEMMs' and
		                                                           * attention's (stage_target) */
		struct power_law law = { &hw->gpu, att->clock_exponent, att->power,
					 att->clock_anchor > 0 ? att->clock_anchor : hw->gpu.burst_speedup, chip };
		rc = stage_clocks(&law, b, cfg, passes, *speed, &s);
		cfg->stage_speed = *speed;
		cfg->stage_vu = *speed + cfg->pp;  /* the timeline divides each segment by them */
		if (rc == 0 && (trace || all)) {
			/* the same speeds on every rank or traced: the same times (symmetry; fixed-point runs) */
			if (need_critical)
				trace_set_critical(trace, sim_rank_stage(s, sim_critical_rank(s)));
			sim_free(s);
			s = NULL;
		}
	} else if (need_critical) {
		/* the critical stage, from the same simulation untraced (deterministic: the traced one agrees) */
		struct sim_config c = *cfg;
		c.trace = NULL;
		struct sim *s0 = sim_new(&c);
		rc = sim_run(s0);
		if (rc == 0)
			trace_set_critical(trace, sim_rank_stage(s0, sim_critical_rank(s0)));
		sim_free(s0);
	}
	if (rc == 0 && !s) {
		s = sim_new(cfg);
		if (trace)
			trace_begin(trace);
		rc = sim_run(s);
	}
	*out = s;
	return rc;
}

/* The report's figures of the job and of the simulation s: step time, throughput, the critical rank's
 * breakdown, the simulator's own work. */
static void fill_timing(const struct scenario *sc, const struct hwmodel *hw, const struct build *b,
			const struct sim_config *cfg, const struct sim *s, struct result *out)
{
	const struct parallel_cfg *par = &sc->par;
	out->step_time_s = sim_step_time(s);
	double tokens = (double)sc->train.global_batch * sc->model.seq;
	out->tokens_per_s = tokens / out->step_time_s;
	out->model_flops = scenario_model_flops(sc);
	out->mfu = out->model_flops / (out->step_time_s * par->gpus * hw->gpu.peak_tflops[sc->model.dtype] * 1e12);
	out->gpus = par->gpus;
	out->dp = par->dp;
	out->tp = par->tp;
	out->pp = par->pp;
	out->micro_batch = sc->train.micro_batch;
	out->num_microbatches = scenario_num_microbatches(sc);
	out->virtual_stages = par->schedule == SCHED_INTERLEAVED ? par->virtual_stages : 1;
	out->schedule = par->schedule;
	int cr = sim_critical_rank(s);
	double acc[ACC_N];
	sim_rank_breakdown(s, cr, acc);
	out->critical_stage = sim_rank_stage(s, cr);
	out->host_issue_s = tk_s(tmap_host_work(&b->progs[out->critical_stage]));
	out->breakdown_s = (struct breakdown){
		.compute = acc[ACC_COMPUTE], .tp_comm_exposed = acc[ACC_TP], .pp_comm_exposed = acc[ACC_PP],
		.dp_comm_exposed = acc[ACC_DP], .pipeline_bubble = acc[ACC_BUBBLE], .optimizer = acc[ACC_OPTIMIZER],
		.host_wait = acc[ACC_HOST],
	};
	out->events = sim_events(s);
	for (int i = 0; i < b->pp; i++)
		for (int k = 0; k < NSTREAMS; k++)
			out->tasks += (long long)b->progs[i].count[k] * cfg->dp_sim * cfg->tp_sim;
	out->simulated_ranks = sim_nranks(s);
}

/* x (> 0, finite) to n significant digits */
static double round_sig(double x, int n)
{
	double e = pow(10, n - 1 - (int)floor(log10(x)));
	return round(x * e) / e;
}

/* The worst stage's memory, and where the hardware model's parts came from. */
static void fill_memory_origin(const struct scenario *sc, const struct hwmodel *hw, const struct build *b,
			       struct result *out)
{
	int worst = 0;
	double worst_total = -1;
	for (int i = 0; i < b->pp; i++) {
		const struct stage_info *st = &b->stages[i];
		double total = st->weights + st->gradients + st->optimizer + st->activations + hw->gpu.workspace_bytes;
		if (total > worst_total) {
			worst_total = total;
			worst = i;
		}
	}
	const struct stage_info *w = &b->stages[worst];
	out->mem = (struct mem_usage){ w->weights, w->gradients, w->optimizer, w->activations, hw->gpu.workspace_bytes,
				       worst_total };
	out->peak_inflight_microbatches = w->peak_inflight;
	out->memory_capacity_bytes = hw->gpu.memory_bytes;
	out->fits_in_memory = worst_total <= hw->gpu.memory_bytes;
	/* offloaded activations (training.offload_layers) live in the node's host memory, shared by its GPUs */
	double host = 0;
	for (int i = 0; i < b->pp; i++)
		host = fmax(host, b->stages[i].host_bytes);
	int per_node = hw->node.gpus > 0 && hw->node.gpus < sc->par.gpus ? hw->node.gpus : sc->par.gpus;
	out->host_bytes_per_node = host * per_node;
	out->host_capacity_bytes = hw->node.host_memory_bytes;
	if (out->host_capacity_bytes > 0 && out->host_bytes_per_node > out->host_capacity_bytes)
		out->fits_in_memory = false;
	snprintf(out->hardware, sizeof out->hardware, "%s", hw->name);
	out->origin.shown = hw->origin.composed || hw->origin.note[0] || strncmp(hw->origin.gpu, "measured", 8) == 0 ||
			    strncmp(hw->origin.intra, "measured", 8) == 0;
	snprintf(out->origin.gpu, sizeof out->origin.gpu, "%s", hw->origin.gpu);
	snprintf(out->origin.intra, sizeof out->origin.intra, "%s", hw->origin.intra);
	snprintf(out->origin.node, sizeof out->origin.node, "%s", hw->origin.node);
	snprintf(out->origin.note, sizeof out->origin.note, "%s", hw->origin.note);
	double k = ops_host_rank_factor(hw, sc);
	out->origin.shown = out->origin.shown || k > 1;  /* a hand-written rank_spread is said too */
	if (k > 1)
		snprintf(out->origin.host, sizeof out->origin.host, "x%.3f: the slowest of %d processes (rank_spread "
			 "%.1f %% of host speed)", k, sc->par.gpus, 100 * hw->host.mode[sc->train.exec].rank_spread);
	snprintf(out->scenario, sizeof out->scenario, "%s", sc->name);
}

int predict_run(const struct scenario *sc, const struct hwmodel *hw, const struct predict_opts *opts,
		struct result *out)
{
	double t0 = now_s();
	const struct parallel_cfg *par = &sc->par;
	memset(out, 0, sizeof *out);

	double budget = opts && opts->max_tasks > 0 ? opts->max_tasks : PREDICT_MAX_TASKS;
	double est = predict_estimate_tasks(sc, opts && opts->all_ranks);
	if (est > budget)
		return diag_errorf("%s: about %.3g tasks to simulate (%d micro-batches x %d layers%s), over the budget "
				   "of %.3g: raise it with --max-tasks, or simulate fewer micro-batches", sc->name, est,
				   scenario_num_microbatches(sc), sc->model.layers,
				   opts && opts->all_ranks ? " x every rank" : "", budget);

	struct build b;
	bool all = opts && opts->all_ranks;
	enum trace_pick pick = opts && opts->trace ? opts->trace_pick : TRACE_STAGES;
	/* a timeline of ranks other than dp 0, tp 0 needs them simulated */
	if (pick == TRACE_ALL)
		all = true;
	for (int i = 0; pick == TRACE_LIST && i < opts->trace_nranks; i++)
		if (opts->trace_ranks[i] % (par->tp * par->dp) != 0)
			all = true;
	int rc = build_programs(sc, hw, opts && opts->trace, &b);
	if (rc < 0)
		return rc;
	for (int i = 0; all && par->dp * par->tp > 1 && i < par->pp; i++)
		program_flatten(&b.progs[i]);  /* each program walked by dp * tp ranks */
	struct trace *trace = open_trace(sc, hw, opts);
	struct sim_config cfg = {
		.progs = b.progs, .pp = par->pp, .dp_sim = all ? par->dp : 1, .tp_sim = all ? par->tp : 1,
		.compute_slowdown = hw->overlap_compute_slowdown, .comm_slowdown = hw->overlap_comm_slowdown,
		.trace = trace, .power_window_s = hw->gpu.burst_speedup > 1 ? hw->gpu.power_window_ms * 1e-3 : 0,
	};
	double *speed;
	struct sim *s;
	int passes = scenario_num_microbatches(sc) * (par->schedule == SCHED_INTERLEAVED ? par->virtual_stages : 1);
	/* the slowest GPU's pace, where a power model runs the clocks (without one the rates are the GPU's own) */
	double chip = hw->gpu.burst_speedup > 1 ? hwmodel_gpu_rate(hw, par->gpus) : 1;
	rc = simulate(hw, &hw->gpu.attn[ops_attn_path(&sc->model)], &b, chip, &cfg, passes, all, pick, &speed, &s);
	if (rc == 0) {
		fill_timing(sc, hw, &b, &cfg, s, out);
		fill_memory_origin(sc, hw, &b, out);
		const double *vu = speed ? speed + par->pp + 2 * out->critical_stage : NULL;
		if (chip < 1)
			out->gpu_rate = chip;
		if (vu && vu[1] > 0) {  /* the attention law ran: the step's GEMMs and attention at their own speeds */
			/* 9 digits (fixed point to 1e-6): --trace sums their work in another order (cli/repeat.sh) */
			out->clock_gemm = vu[0] > 0 && isfinite(vu[0]) ? round_sig(vu[0], 9) : vu[0];
			out->clock_attn = isfinite(vu[1]) ? round_sig(vu[1], 9) : vu[1];
		}
	}
	bool over = trace && trace_over(trace);
	if (trace && rc == 0)
		trace_end(trace, out->step_time_s, out->critical_stage);
	trace_free(trace);
	sim_free(s);
	free(speed);
	build_release(&b);
	if (rc < 0)
		return rc;
	out->sim_wall_s = now_s() - t0;
	if (over)
		return diag_errorf("%s: the trace would pass its budget of %.3g MB: trace fewer ranks (--trace-ranks "
				   "critical) or raise it with --max-trace-mb", sc->name,
				   (opts->max_trace_bytes > 0 ? opts->max_trace_bytes : PREDICT_MAX_TRACE_BYTES) / 1e6);
	return check_finite(out);
}
