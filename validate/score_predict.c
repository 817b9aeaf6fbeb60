/* score_predict: the half of `gpusim validate` that runs the simulator: for each row of a loaded table,
 * scenario_load -> scenario_load_hardware -> predict_run (and hostband_run: the host drift band), then the prediction in
 * the table's metric. Hardware
 * models are loaded once per (name, dtype) and shared by the rows that use them. A row that fails is marked and
 * the others go on, so one bad scenario does not hide the errors of the rest. */
#include "validate/score.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hardware/hwmodel.h"
#include "scenario/scenario.h"
#include "sim/hostband.h"
#include "sim/predict.h"
#include "util/xalloc.h"

struct hw_cache {
	int n, cap;
	struct {
		char name[512];
		enum dtype dtype;
		struct hwmodel *hw;
	} *e;
};

/* The hardware model of s, from the cache or loaded (scenario_load_hardware prints its own errors). */
static struct hwmodel *cached_hw(struct hw_cache *c, const struct scenario *s)
{
	for (int i = 0; i < c->n; i++)
		if (c->e[i].dtype == s->model.dtype && strcmp(c->e[i].name, s->hardware) == 0)
			return c->e[i].hw;
	struct hwmodel *hw = NULL;
	if (scenario_load_hardware(s, &hw) != 0)
		return NULL;
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 8;
		c->e = xreallocarray(c->e, (size_t)c->cap, sizeof *c->e);
	}
	snprintf(c->e[c->n].name, sizeof c->e[c->n].name, "%s", s->hardware);
	c->e[c->n].dtype = s->model.dtype;
	c->e[c->n].hw = hw;
	c->n++;
	return hw;
}

/* The table's metric for a predicted step time. */
static double metric_value(const struct score_table *t, const struct score_row *r, const struct scenario *s,
			   double step_s)
{
	if (t->metric == SCORE_STEP_S)
		return step_s;
	const struct model_cfg *m = &s->model;
	double flops = r->flops == SCORE_FLOPS_MEGATRON
		? score_megatron_flops(s->train.global_batch, m->seq, m->layers, m->hidden, m->vocab)
		: scenario_model_flops(s);
	return score_tflops_per_gpu(flops, step_s, s->par.gpus);
}

int score_predict(struct score_table *t, const char *hw, const char *gpu, const char *target_gpu, const char *host)
{
	struct hw_cache cache = {0};
	struct scenario_overrides ov = {.hardware = hw, .gpu = gpu, .target_gpu = target_gpu, .host = host};
	int failed = 0;
	for (int i = 0; i < t->n; i++) {
		struct score_row *r = &t->rows[i];
		struct scenario s;
		struct result res;
		struct hwmodel *m;
		if (scenario_load(r->path, &ov, &s) != 0) {
			score_set_failure(t, i, "scenario does not load");
		} else if (!(m = cached_hw(&cache, &s))) {
			score_set_failure(t, i, "hardware model does not load");
		} else {
			struct predict_opts opts = {0};
			memset(&res, 0, sizeof res);
			if (predict_run(&s, m, &opts, &res) != 0 || hostband_run(&s, m, &opts, &res) != 0)
				score_set_failure(t, i, "simulation failed");
			else if (!(res.step_time_s > 0))
				score_set_failure(t, i, "simulation gave no step time");
			else {
				score_set_prediction(t, i, metric_value(t, r, &s, res.step_time_s), res.step_time_s);
				score_set_memory(t, i, res.mem.total);
				if (res.host_band.hi_s > 0)
					score_set_band(t, i, metric_value(t, r, &s, res.host_band.lo_s),
						       metric_value(t, r, &s, res.host_band.hi_s));
			}
		}
		if (!r->predicted_ok)
			failed++;
	}
	for (int i = 0; i < cache.n; i++)
		hwmodel_free(cache.e[i].hw);
	free(cache.e);
	return failed;
}
