/* trace: writes one simulated step as a Chrome trace-event timeline (JSON Object Format; docs/output.md,
 * Timelines) that Perfetto and chrome://tracing open. The engine reports every busy interval of every simulated
 * rank as it learns it; the writer keeps the ranks trace_job.pick names (by default one per pipeline stage: dp 0,
 * tp 0, the representative rank the default simulation runs), writing each slice as it comes (nothing is held
 * in memory but a byte per rank), and gives each rank one process with one thread track per GPU stream and per
 * outgoing link.
 * Invariant: every track that holds a slice has been named (thread_name) before its first slice. */
#ifndef TRACE_H
#define TRACE_H

#include <stdbool.h>
#include <stdio.h>
#include "sim/program.h"

/* A traced rank's tracks: its streams (enum stream_kind), its side channel (INS_SIDE transfers), then its outgoing
 * links (enum link_scope). */
enum { TRACK_SIDE = NSTREAMS, TRACK_LINK, TRACK_N = TRACK_LINK + LINK_N };

/* Which ranks a timeline holds (predict --trace-ranks). */
enum trace_pick {
	TRACE_OVERVIEW,  /* the default: TRACE_STAGES' ranks, op by op on the critical stage (trace_set_critical) and
	                  * one slice per layer's forward or backward and micro-batch on the others */
	TRACE_STAGES,    /* one per pipeline stage: dp 0, tp 0 (the critical rank is one of them), op by op */
	TRACE_CRITICAL,  /* the critical stage's rank dp 0, tp 0 alone (trace_set_critical names the stage) */
	TRACE_LIST,      /* the GPU ranks in trace_job.ranks */
	TRACE_ALL,       /* every rank (needs every rank simulated) */
};

/* What the timeline says about the job (otherData, track names) and which ranks it holds. */
struct trace_job {
	const char *scenario, *hardware, *schedule;  /* not owned; must outlive the trace */
	int gpus, dp, tp, pp, gpus_per_node, num_microbatches, virtual_stages;
	enum trace_pick pick;
	const int *ranks;  /* TRACE_LIST: GPU ranks (Megatron placement: (stage*dp + d)*tp + t), not owned */
	int nranks;
	double max_bytes;  /* the trace's budget: past it no event is written and trace_over says so (0: none) */
};

/* One busy interval of one rank. */
struct trace_span {
	int stage, dp, tp;          /* the rank */
	int track;                  /* a stream_kind, or TRACK_LINK + link_scope */
	const struct instr *in;     /* its category, collective group, send destination and link */
	const struct op *op;        /* its name, micro-batch, layer and bytes (ops are kept with --trace) */
	double t0_s, dur_s;
};

struct trace;

/* trace_new: a writer to f (not owned, not closed; the caller checks it for write errors after trace_end). */
struct trace *trace_new(FILE *f, const struct trace_job *job);
void trace_free(struct trace *t);
/* trace_begin: opens the document (and with TRACE_STAGES or TRACE_OVERVIEW names one process per stage; other
 * picks name a rank's process before its first slice). */
void trace_begin(struct trace *t);
/* TRACE_CRITICAL, TRACE_OVERVIEW: the critical stage (known from a simulation run before). */
void trace_set_critical(struct trace *t, int stage);
/* trace_slice: one "X" event for a span of a traced rank; spans of other ranks are ignored. */
void trace_slice(struct trace *t, const struct trace_span *sp);
/* trace_over: the trace passed job.max_bytes (events after that were not written). */
bool trace_over(const struct trace *t);
/* trace_op_backward: whether an op's name is one of a backward pass (the builder's names: ..._bwd, _dgrad, _wgrad,
 * _recompute, the gradient accumulation and DDP's bucket copies); the overview's slices and plot timeline's colours. */
bool trace_op_backward(const char *name);
/* trace_end: closes the event list and writes otherData (the job, step_time_s, critical_stage). */
void trace_end(struct trace *t, double step_time_s, int critical_stage);

#endif
