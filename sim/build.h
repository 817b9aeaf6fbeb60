/* build: turns a scenario and a hardware model into the stage programs the engine runs: every micro-batch's
 * forward and backward on every pipeline stage in the schedule's order, made of the layer's ops; TP
 * all-reduces on the compute stream; pipeline sends on the send streams and receives before the unit that needs
 * them; DP gradient buckets on the DP stream as the last micro-batch's backward produces them; the optimizer
 * step after the last bucket. Also the memory each stage holds. */
#ifndef BUILD_H
#define BUILD_H

#include "scenario/scenario.h"
#include "hardware/hwmodel.h"
#include "sim/program.h"

struct stage_info {
	double weights, gradients, optimizer, activations;  /* bytes per GPU */
	int peak_inflight;        /* micro-batches (of all its chunks) alive at once */
	double host_bytes;        /* host memory per GPU: the offloaded activations of the units alive at once
	                           * (training.offload_layers), 0 without offload */
	double compute_bound_s;   /* seconds of compute-bound ops (GEMMs, attention cores) per step, at the model's
	                           * sustained rates */
	double at_max_s;          /* seconds of attention cores per step timed at the maximum clock that slow by
	                           * their clock_exponent (enum op_clock's OPCLK_MAX); the rest of the compute
	                           * stream's work is memory-bound */
};

struct build {
	int pp;
	struct program *progs;    /* pp programs */
	struct stage_info *stages;
};

/* build_programs: 0 or a negative GS_* code. keep_ops: keep every op for a timeline. */
int build_programs(const struct scenario *sc, const struct hwmodel *hw, int keep_ops, struct build *out);
void build_release(struct build *b);

#endif
