/* study: plan_search for one scenario at several GPU counts on several hardware models (the purchase options),
 * the Pareto front of time-to-train against cost over their best layouts, and the scaling advice ("is a second
 * GPU worth it") built on the same searches. Writers: a table for people, CSV, JSON, and a Markdown report with
 * gnuplot plots. */
#ifndef PLAN_STUDY_H
#define PLAN_STUDY_H

#include <stdbool.h>
#include <stdio.h>

#include "plan/plan.h"
#include "report/report.h"

struct plan_study_spec {
	const char *scenario;         /* scenario YAML path */
	const char *const *hw;        /* nhw hardware presets or files; nhw 0: the scenario's own */
	int nhw;
	const char *gpu;              /* --gpu FILE: a calibrated GPU composed into every model (hwmodel_compose) */
	const char *host;             /* --host FILE|PRESET: that model's host costs in every model (NULL: none) */
	const int *gpus;              /* ngpus GPU counts */
	int ngpus;
	int top;                      /* layouts listed per option (K) */
	double tokens, steps;         /* what to train (0 both: one step) */
	double price;                 /* USD per GPU-hour for every model; 0: each model's cost.usd_per_gpu_hour */
	enum plan_by by;              /* how options are ranked against each other */
};

/* One purchase option: a hardware model at a GPU count, and its search. */
struct plan_option_result {
	struct plan_result res;       /* res.top[0] is the option's best layout (ntop 0: nothing fits) */
	bool pareto;                  /* on the front: no other option trains both sooner and for less */
	int rank;                     /* 1-based among the options with a layout, by spec.by; 0 none */
};

struct plan_study {
	char scenario[128];
	double tokens, steps;         /* as asked; steps_used is what the costs are for */
	double steps_used;            /* optimizer steps every cost is computed for (1 when nothing was asked) */
	enum plan_by by;
	int top;
	int n;                        /* options: nhw * ngpus, hardware-major, GPU counts in the order given */
	struct plan_option_result *opt;
	bool priced;                  /* every option with a layout has a price: costs are in USD, else GPU-hours */
	double wall_s;
};

/* plan_study_run: 0, or a negative GS_* code after a message (a bad scenario or hardware model, a failed
 * simulation). Release out in either case. */
int plan_study_run(const struct plan_study_spec *spec, struct plan_study *out);
void plan_study_release(struct plan_study *st);

/* plan_study_cost: the option's cost on the study's scale (USD when priced, else GPU-hours); its time: the
 * time to train (seconds). For the best layout; the option must have one. */
double plan_study_cost(const struct plan_study *st, const struct plan_option_result *o);

/* plan_study_write: table, CSV (a row per listed layout) or JSON. 0, or GS_EENV on a write error. */
int plan_study_write(FILE *f, enum report_format fmt, const struct plan_study *st);

/* ---- advise: 1, 2, 4, ... GPUs of one hardware model ---- */

struct plan_advice {
	struct plan_study st;         /* one hardware model, GPU counts 1, 2, 4, ... */
	double speedup[32], efficiency[32];  /* per option, of the best layout, over the one-GPU best */
	int best;                     /* index of the fastest option */
	int stop;                     /* index of the first count that is not faster than the count before it (-1:
				       * every step up is faster) */
	int over;                     /* index of the first count whose best step waits (communication, bubble,
				       * host) longer than it computes (-1: none) */
	char text[1024];              /* the verdict: two or three plain sentences */
};

/* plan_advise: the scenario (its own hardware, or hw when not NULL) on 1, 2, 4, ... up to max_gpus GPUs (0: the
 * larger of the scenario's GPU count and the node's). 0, or a negative GS_* code after a message. */
int plan_advise(const char *scenario, const char *hw, int max_gpus, struct plan_advice *out);
void plan_advice_release(struct plan_advice *a);
int plan_advice_write(FILE *f, enum report_format fmt, const struct plan_advice *a);

/* ---- the report: DIR/plan.md and its plots ---- */

/* plan_report_write: DIR/plan.md (the tables, the verdict when a is not NULL) and PNG plots beside it, drawn by
 * gnuplot (gnuplot: the program; when it is missing the page says so and lists the plot scripts). 0, or
 * GS_EENV after a message when the folder or a file cannot be written, GS_EINVAL when gnuplot failed. */
int plan_report_write(const char *dir, const struct plan_study *st, const struct plan_advice *a,
		      const char *gnuplot);

#endif
