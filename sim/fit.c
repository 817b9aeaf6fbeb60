/* fit: single changes that make a layout fit in memory (see fit.h). */
#include "sim/fit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/predict.h"
#include "util/xalloc.h"

#define MAX_CANDIDATES 32

struct cand {
	struct scenario s;
	char change[96];
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

int fit_suggest(const struct scenario *sc, const struct hwmodel *hw, struct fit_hint *out, int max)
{
	struct cand *c = xcalloc(MAX_CANDIDATES, sizeof *c);
	struct fit_hint *h = xcalloc(MAX_CANDIDATES, sizeof *h);
	int n = candidates(sc, hw, c), k = 0, rc = 0;
	for (int i = 0; i < n; i++) {
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
