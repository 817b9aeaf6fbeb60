/* predict: the whole path from a loaded scenario and hardware model to one step's prediction:
 * build tasks (sim/build.c) -> simulate (sim/engine.c) -> collect the result. Reentrant: all state lives in a
 * struct sim created and freed inside predict_run, so sweeps and tests run many side by side. */
#ifndef PREDICT_H
#define PREDICT_H

#include <stdbool.h>
#include <stdio.h>
#include "scenario/scenario.h"
#include "hardware/hwmodel.h"
#include "sim/trace.h"

struct predict_opts {
	bool all_ranks;        /* simulate every rank instead of one representative per symmetric group */
	FILE *trace;           /* optional: write a Chrome trace-event timeline here (docs/output.md, Timelines) */
	double max_tasks;      /* the task budget (0: PREDICT_MAX_TASKS): a larger job stops before it is built */
	double max_trace_bytes; /* the trace's budget (0: PREDICT_MAX_TRACE_BYTES): past it the run is an error */
	enum trace_pick trace_pick;  /* which ranks it holds (default TRACE_STAGES) */
	const int *trace_ranks;      /* TRACE_LIST: GPU ranks, each in [0, gpus) */
	int trace_nranks;
};

/* The default task budget: about 10 tasks per layer and micro-batch on each simulated rank (docs/simulation.md);
 * 1e8 tasks take about 1 GB and tens of seconds. --max-tasks raises it. */
#define PREDICT_MAX_TASKS 1e8
/* The default trace budget: 1 GB, far past what a timeline viewer opens (--max-trace-mb raises it). */
#define PREDICT_MAX_TRACE_BYTES 1e9
/* predict_estimate_tasks: that estimate for a job, before anything is built. */
double predict_estimate_tasks(const struct scenario *s, bool all_ranks);
/* predict_clock_speed: the clock v in [1, burst] at which a stage's power stays at its cap, v^x1 - 1/v = R
 * (x1 = gpu.power.exponent - 1; docs/simulation.md, "Power cap"): burst when even that is under R, else found by
 * bisection to 1e-12 (pow skipped where a checked Newton bracket already decides a step: the same v, to the bit). */
double predict_clock_speed(double x1, double burst, double R);
/* predict_clock_speed_attn: the same clock as an index w in [1, max(A, B)] (the GEMMs' rate over their sustained
 * one, v = min(w, B)) when Wa seconds of attention cores timed at the maximum clock run at r^lam of that rate and
 * draw s + (pa - s) r^x of the cap, r = min(w/A, 1), A the GEMMs' speed at which the attention reaches its
 * maximum-clock rate (the entry's clock_anchor): the root of (1-s) Wc (v^(x-1) - 1/v) + Wa r^(-lam) ((pa - s) r^x
 * - (1-s)) = rhs (sim/predict.c). */
double predict_clock_speed_attn(double x, double B, double A, double s, double lam, double pa, double Wc, double Wa,
				double rhs);
/* predict_chip_speed_attn: the same on a chip f of the calibrated one's sustained rate (gpu.power.gpu_rates): its
 * dynamic power at a clock is f^(-x) times the calibrated chip's, the index runs from f (f = 1: the above). */
double predict_chip_speed_attn(double x, double B, double A, double s, double lam, double pa, double f, double Wc,
			       double Wa, double rhs);

struct breakdown {
	double compute;          /* compute ops on the critical rank's compute stream (incl. recompute) */
	double tp_comm_exposed;  /* TP collectives on the compute stream (blocking) */
	double pp_comm_exposed;  /* compute stream idle while a p2p transfer it waits for is in flight */
	double dp_comm_exposed;  /* waiting for DP gradient all-reduce after the last backward */
	double pipeline_bubble;  /* compute stream idle for any other reason (schedule warm-up/cool-down) */
	double optimizer;        /* optimizer step */
	double host_wait;        /* compute stream waiting for the host to issue kernels (training.host_us_per_op) */
};

struct mem_usage {
	double weights, gradients, optimizer, activations;  /* bytes per GPU, worst stage */
	double workspace;          /* the framework's own buffers (hardware gpu.workspace_bytes) */
	double total;
};

struct result {
	double step_time_s;
	double tokens_per_s;
	double mfu;                /* model FLOPs (no recompute) / (step time * gpus * peak of model dtype) */
	double model_flops;        /* per step */
	int gpus, dp, tp, pp, micro_batch, num_microbatches, virtual_stages;
	enum schedule schedule;
	struct breakdown breakdown_s;   /* of the critical rank; sums to step_time_s */
	int critical_stage;
	double host_issue_s;            /* the critical stage's host work in the step: every op's and call's host cost,
	                                 * the slowest process's (host.<mode>.rank_spread); the step waits for it where
	                                 * it is above the GPU's work (host_wait). 0: the model has no host costs */
	double gpu_rate;                /* the job's slowest GPU's sustained rate over the calibrated GPU's, where
	                                 * gpu.power.gpu_rates has one below 1 (0: not applied) */
	double clock_gemm, clock_attn;  /* where the power balance times attention at the maximum clock (a calibrated
	                                 * gpu.attention clock law, docs/simulation.md "Attention beside GEMMs"): the
	                                 * critical stage's GEMMs over their sustained rate and attention over its
	                                 * maximum-clock rate; 0 elsewhere */
	/* the step on a host as fast and as slow as the model's host range read it (host.<mode>.drift_lo,
	 * drift_hi): set by hostband_run (sim/hostband.h), not by predict_run; all 0: no band (not measured, or a step
	 * the GPU bounds) */
	struct {
		double lo_s, hi_s;  /* step time with every host cost times f_lo, f_hi */
		double f_lo, f_hi;
	} host_band;
	struct mem_usage mem;
	int peak_inflight_microbatches; /* activations held at once on the worst stage */
	bool fits_in_memory;      /* GPU memory, and the node's host memory when activations are offloaded */
	double memory_capacity_bytes;
	double host_bytes_per_node;     /* offloaded activations of the node's GPUs (0: nothing offloaded) */
	double host_capacity_bytes;     /* the node's host memory (hardware node.host_memory_bytes; 0: not given) */
	long long events;
	long long tasks;
	int simulated_ranks;
	double sim_wall_s;
	char hardware[64];
	char scenario[128];
	/* where the hardware model's parts came from (hw->origin): shown in reports when shown is true, i.e. when
	 * a part was measured or the model was composed (--gpu) or retargeted (docs/output.md, origin) */
	struct {
		bool shown;
		char gpu[200], intra[240], node[200], note[480];
		char host[160];  /* the slowest process's share of the host (host.<mode>.rank_spread), or empty */
	} origin;
};

/* predict_run: simulate one training step. 0, or a negative GS_* code after printing the reason: GS_EINVAL when
 * the job is over the task budget, or when the result is not finite (a hardware model whose numbers overflow a
 * step time: never a printed inf or nan). */
int predict_run(const struct scenario *s, const struct hwmodel *hw, const struct predict_opts *opts,
		struct result *out);

#endif
