/* schedule: the order in which one pipeline stage runs the forward and backward passes of its micro-batches,
 * for GPipe, 1F1B (PipeDream-flush) and Megatron's interleaved 1F1B. Only the order is decided here; the
 * timing, and so the bubble, comes out of the simulation of that order. */
#ifndef SCHEDULE_H
#define SCHEDULE_H

#include "scenario/scenario.h"

struct unit {
	int bwd;    /* 0 forward, 1 backward */
	int mb;     /* micro-batch 0..m-1 */
	int chunk;  /* model chunk on this stage 0..v-1; virtual stage = chunk*p + stage */
};

/* sched_order: fills out[2*m*v] with the order stage s of p runs, v chunks per stage, m micro-batches.
 * Returns the count (2*m*v). Interleaving needs m to be a multiple of p (the loader checks). */
int sched_order(enum schedule sc, int p, int v, int m, int s, struct unit *out);
const char *sched_name(enum schedule sc);

#endif
