/* plan: the search for the fastest (or cheapest) parallel layout of a scenario on N GPUs of one hardware model,
 * and what that layout costs to train. The search space is the product of the rows of ONE option table
 * (plan/plan.c, `options[]`): tensor and pipeline parallelism, the data-parallel width they leave, micro-batch
 * size, pipeline schedule and its interleaving depth, activation recompute, expert and expert-tensor
 * parallelism, the ZeRO stage, pipeline scatter/gather and data-parallel overlap; a new scenario key
 * (sequence or context parallelism, a distributed optimizer) is searched by adding one row there.
 *
 * Every combination is a candidate. A candidate that breaks a layout rule (scenario_check_layout) or puts a
 * tensor-parallel group across nodes is dropped; options without an effect in a layout (the ZeRO stage at dp 1,
 * the schedule at pp 1) are set to their neutral value, so layouts that are the same are simulated once; a
 * candidate whose weights, gradients, optimizer state and least activations exceed the GPU's memory is dropped
 * before simulation; the rest are simulated (predict_run: the simulator's own step time and memory) in order of
 * their fastest possible step (each stage's compute and TP all-reduces for every micro-batch plus the pipeline's
 * fill and drain, plan_time_lower_bound), and the search stops once that bound cannot
 * beat the K-th best step found: the top K are exactly those an exhaustive search finds. Each drop is counted
 * by reason. Deterministic: ties are broken by the layout's description. */
#ifndef PLAN_H
#define PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "hardware/hwmodel.h"
#include "scenario/scenario.h"
#include "sim/predict.h"

enum plan_reject {
	PLAN_REJ_RULE,        /* breaks a layout rule: divisibility of heads/layers/batch, dense lists run tp = pp = 1 */
	PLAN_REJ_TP_NODE,     /* a tensor-parallel group wider than a node */
	PLAN_REJ_SAME,        /* the same layout as another candidate (an option without effect there) */
	PLAN_REJ_MEMORY,      /* weights, gradients, optimizer state and the least activations exceed GPU memory */
	PLAN_REJ_MEMORY_SIM,  /* simulated, and its peak memory exceeds the GPU's */
	PLAN_REJ_BOUND,       /* its fastest possible step is slower than the K-th best found: cannot be in the top */
	PLAN_NREJ
};
/* plan_reject_name: a short phrase for the reason ("breaks a layout rule", ...). */
const char *plan_reject_name(enum plan_reject r);

/* One searched option: a scenario key and the values it takes. */
#define PLAN_MAX_OPTIONS 24
/* The planner tries context parallelism only where each sequence chunk holds at least this many tokens: one tile
 * of queries of a fused attention kernel (FlashAttention's 128-row blocks); shorter chunks leave the kernel and
 * the ring hops mostly idle, and at the sequences where CP pays (8K and more) they allow cp up to 32 and beyond */
#define PLAN_CP_MIN_CHUNK 128
int plan_option_count(void);
const char *plan_option_key(int i);    /* "parallel.tp", "training.micro_batch", ... */
const char *plan_option_label(int i);  /* column label: "tp", "mb", ... */
/* plan_option_matters: whether option i has an effect in s (the schedule does not at pp 1, ...). */
bool plan_option_matters(int i, const struct scenario *s);
/* plan_option_width: characters a table column of option i needs (its label, its longest value name, >= 4). */
int plan_option_width(int i);
/* plan_option_value: option i of s as text ("8", "interleaved", "full", "true"). */
void plan_option_value(int i, const struct scenario *s, char *buf, size_t n);

/* plan_describe: a layout in one line, every option that matters: "tp 8 pp 16 dp 8 mb 1 interleaved v2 full
 * zero 1" (an option without an effect in s, such as the schedule at pp 1, is left out). */
void plan_describe(const struct scenario *s, char *buf, size_t n);

/* What a run costs at a given step time. */
struct plan_cost {
	double steps;             /* optimizer steps to train (from --tokens or --steps; 0 = not asked) */
	double time_to_train_s;   /* steps * step time */
	double gpu_hours;         /* time_to_train_s / 3600 * gpus */
	double usd;               /* gpu_hours * price (0 when no price is known) */
};

/* plan_cost_of: steps = tokens / (global_batch * seq) when tokens > 0, else steps (either may be 0: then only
 * a cost per step is meaningful and the fields are 0); price in USD per GPU-hour. */
void plan_cost_of(const struct scenario *s, double step_time_s, double tokens, double steps, double price,
		  struct plan_cost *out);

struct plan_entry {
	struct scenario sc;       /* the layout (the base scenario with the searched options set) */
	struct result r;          /* its simulated step */
	struct plan_cost cost;
	char desc[160];           /* plan_describe(sc) */
};

enum plan_by { PLAN_BY_TIME, PLAN_BY_COST };

struct plan_spec {
	const struct scenario *base;  /* a loaded scenario: model, training and the options not searched */
	const struct hwmodel *hw;
	int gpus;
	int top;                      /* K >= 1 */
	double tokens, steps;         /* what to train, for the cost (0: not asked) */
	double price;                 /* USD per GPU-hour; 0: the hardware model's cost.usd_per_gpu_hour */
	bool exhaustive;              /* simulate every memory-feasible layout (no bound): for tests and checks */
};

struct plan_result {
	int gpus;
	char hardware[64];
	double price;                 /* the price used (0: unknown) */
	long long candidates;         /* combinations of the option table */
	long long rejected[PLAN_NREJ];
	char rule_example[160];       /* the first layout rule broken, as scenario_check_layout says it */
	long long simulated;
	int ntop;                     /* entries in top (<= spec.top) */
	struct plan_entry *top;       /* fastest first (caller frees with plan_result_release) */
	double wall_s;                /* seconds the search took (monotonic clock) */
	double cpu_s;                 /* CPU seconds this process spent in it (one core; the rate to quote on a
	                               * shared machine) */
};

/* plan_search: the top K layouts of spec->base on spec->gpus GPUs of spec->hw. 0 (ntop may be 0 when nothing
 * fits: see rejected[]), or a negative GS_* code after a message when a simulation fails. */
int plan_search(const struct plan_spec *spec, struct plan_result *out);
void plan_result_release(struct plan_result *r);

/* The bounds the search prunes with (exposed so tests can check they never exceed the simulator's numbers):
 * bytes per GPU the layout needs at least, and the seconds its step takes at least. */
double plan_memory_lower_bound(const struct scenario *s);
double plan_time_lower_bound(const struct scenario *s, const struct hwmodel *hw);

#endif
