/* fit: single changes that make a layout fit in memory (see fit.h). */
#include "sim/fit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/build.h"
#include "sim/ops.h"
#include "sim/predict.h"
#include "sim/tmap.h"
#include "util/xalloc.h"

#define MAX_CANDIDATES 32

struct cand {
	struct scenario s;
	char change[96];
	int64_t bound;  /* a lower bound of its step, ticks (host_bound) */
	int order;      /* its place in the list (ties in bound keep it) */
};

static void add(struct cand *c, int *n, const struct scenario *s, const char *change)
{
	char why[256];
	if (*n >= MAX_CANDIDATES || scenario_check_layout(s, why, sizeof why) != 0)
		return;
	c[*n].s = *s;
	snprintf(c[*n].change, sizeof c[*n].change, "%s", change);
	(*n)++;
}

/* The candidates: each differs from sc in one setting, towards less memory per GPU. */
static int candidates(const struct scenario *sc, const struct hwmodel *hw, struct cand *c)
{
	int n = 0;
	char what[96];
	struct scenario t = *sc;
	if (sc->train.recompute == RECOMPUTE_NONE && sc->model.type == MODEL_TRANSFORMER &&
	    !sc->model.flash_attention) {
		t.train.recompute = RECOMPUTE_SELECTIVE;
		add(c, &n, &t, "training.recompute: selective");
	}
	if (sc->train.recompute != RECOMPUTE_FULL) {
		t = *sc;
		t.train.recompute = RECOMPUTE_FULL;
		add(c, &n, &t, "training.recompute: full");
	}
	for (int z = sc->par.zero + 1; z <= 3 && scenario_grad_ranks(sc) > 1; z++) {
		t = *sc;
		t.par.zero = z;
		snprintf(what, sizeof what, "parallel.zero: %d", z);
		add(c, &n, &t, what);
	}
	for (int mb = sc->train.micro_batch - 1; mb >= 1; mb--) {
		if (sc->train.micro_batch % mb != 0)
			continue;
		t = *sc;
		t.train.micro_batch = mb;
		snprintf(what, sizeof what, "training.micro_batch: %d", mb);
		add(c, &n, &t, what);
	}
	/* more model parallelism at the same GPU count: dp shrinks by the same factor */
	for (int f = 2; f <= sc->par.dp; f *= 2) {
		if (sc->par.dp % f != 0)
			break;
		t = *sc;
		t.par.tp = sc->par.tp * f;
		t.par.dp = sc->par.dp / f;
		if (t.par.tp <= hw->node.gpus) {
			snprintf(what, sizeof what, "parallel.tp: %d (dp %d)", t.par.tp, t.par.dp);
			add(c, &n, &t, what);
		}
		t = *sc;
		t.par.pp = sc->par.pp * f;
		t.par.dp = sc->par.dp / f;
		snprintf(what, sizeof what, "parallel.pp: %d (dp %d)", t.par.pp, t.par.dp);
		add(c, &n, &t, what);
		/* context parallelism: each rank keeps 1/cp of every sequence (a transformer with fused attention and
		 * seq in 2*cp chunks; add() drops the rest) */
		if (sc->model.type == MODEL_TRANSFORMER && sc->model.flash_attention) {
			t = *sc;
			t.par.cp = (sc->par.cp > 1 ? sc->par.cp : 1) * f;
			t.par.dp = sc->par.dp / f;
			snprintf(what, sizeof what, "parallel.cp: %d (dp %d)", t.par.cp, t.par.dp);
			add(c, &n, &t, what);
		}
	}
	return n;
}

static int by_step(const void *a, const void *b)
{
	const struct fit_hint *x = a, *y = b;
	if (x->step_time_s != y->step_time_s)
		return x->step_time_s < y->step_time_s ? -1 : 1;
	return strcmp(x->change, y->change);
}

/* The busiest stage's host work (tmap_host_work): no stage's compute stream, hence no step, ends before it. A
 * change that makes each GPU's host issue far more ops (context parallelism's ring: a call per hop) shows here
 * without a simulation. */
static int host_bound(const struct scenario *s, const struct hwmodel *hw, int64_t *out)
{
	struct build b;
	int rc = build_programs(s, hw, 0, &b);
	if (rc < 0)
		return rc;
	*out = 0;
	for (int i = 0; i < b.pp; i++) {
		int64_t h = tmap_host_work(&b.progs[i]);
		*out = h > *out ? h : *out;
	}
	build_release(&b);
	return 0;
}

static int by_bound(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	if (x->bound != y->bound)
		return x->bound < y->bound ? -1 : 1;
	return x->order - y->order;
}

/* The max-th fastest step found so far, or +inf while fewer fit. */
static double kth_step(const struct fit_hint *h, int k, int max)
{
	if (k < max)
		return INFINITY;
	double *v = xcalloc((size_t)k, sizeof *v);
	for (int i = 0; i < k; i++)
		v[i] = h[i].step_time_s;
	for (int i = 0; i < max; i++)  /* partial selection: v[0..max-1] the smallest, in order */
		for (int j = i + 1; j < k; j++)
			if (v[j] < v[i]) {
				double x = v[i];
				v[i] = v[j];
				v[j] = x;
			}
	double r = v[max - 1];
	free(v);
	return r;
}

int fit_suggest(const struct scenario *sc, const struct hwmodel *hw, struct fit_hint *out, int max)
{
	struct cand *c = xcalloc(MAX_CANDIDATES, sizeof *c);
	struct fit_hint *h = xcalloc(MAX_CANDIDATES, sizeof *h);
	int n = candidates(sc, hw, c), k = 0, rc = 0;
	/* simulated in the order of their bound: once the next one's bound is above the max-th fastest step found,
	 * neither it nor any after it can be among the max fastest (a tie in step is still simulated: names break
	 * it) */
	for (int i = 0; i < n && rc == 0; i++) {
		c[i].order = i;
		rc = host_bound(&c[i].s, hw, &c[i].bound);
	}
	if (rc == 0)
		qsort(c, (size_t)n, sizeof *c, by_bound);
	for (int i = 0; i < n && rc == 0 && max > 0; i++) {
		if (tk_s(c[i].bound) > kth_step(h, k, max))
			break;
		struct result r;
		if ((rc = predict_run(&c[i].s, hw, NULL, &r)) != 0)
			break;
		if (!r.fits_in_memory)
			continue;
		snprintf(h[k].change, sizeof h[k].change, "%s", c[i].change);
		h[k].mem_total = r.mem.total;
		h[k].step_time_s = r.step_time_s;
		k++;
	}
	if (rc == 0) {
		qsort(h, (size_t)k, sizeof *h, by_step);
		k = k < max ? k : max;
		memcpy(out, h, (size_t)k * sizeof *h);
	}
	free(c);
	free(h);
	return rc != 0 ? rc : k;
}
