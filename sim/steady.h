/* steady: a simulation's steady state taken as translations in time. A 1F1B stage's steady state is one loop
 * (sim/program.h, struct loop): once every stream's state after a pass is its state before it moved one pass on
 * (cursors a pass or a repetition further, times later by the pass's length, event ids and mailbox slots a pass's
 * step further, the pending events alike), the next passes run the same, each later by the same length, so they
 * are applied at once instead of simulated. Times are integer ticks, so the result is the same to the tick as
 * simulating them, and a run that never repeats exactly is simply simulated on.
 * Only for one rank per stage (rank r runs stage r's program: dp_sim = tp_sim = 1) and no timeline: the stage
 * clocks' simulations (sim/predict.c), which are most of a prediction's work. */
#ifndef STEADY_H
#define STEADY_H

#include <stddef.h>
#include <stdint.h>
#include "sim/eventq.h"
#include "sim/program.h"

/* A stream's state in the engine (sim/engine.c). */
enum steady_stream { STEADY_RUN, STEADY_BUSY, STEADY_BLOCKED, STEADY_DONE };

/* The engine's tables a pass moves, as sim/engine.c keeps them (not owned): per rank*NSTREAMS pc .. block_id,
 * per rank ev_done (evwords words), mb_done (slotwords words), acc (ACC_N), idle_since .. waiting, per
 * rank*LINK_N link_busy, link_nwait, link_start, and link_wait two per link. */
struct steady_view {
	int nranks;
	size_t evwords, slotwords;
	const struct program *const *prog_of;
	struct program_cursor *pc;
	uint16_t *state;             /* enum steady_stream, not a character type: a store to it does not alias every table */
	int64_t *busy_from, *busy_until, *arrive;
	int32_t *block_id;
	uint64_t *ev_done, *mb_done;
	int64_t *acc, *idle_since, *host_t, *side_t;
	int64_t *run_comp;           /* the compute ticks of each rank's current run (interference reads it) */
	int16_t *block_cat;
	int32_t *block_slot;
	uint16_t *waiting;
	uint16_t *link_busy, *link_nwait;
	uint8_t *link_wait;
	int64_t *link_start;
	struct eventq *q;
	long long *events;
};

struct steady;

struct steady *steady_new(const struct steady_view *v);
/* Forget what was seen (a new run of the step from its start). */
void steady_reset(struct steady *st);
void steady_free(struct steady *st);
/* At a checkpoint of the run (now; no stream runnable: each busy, blocked or done), once a pass: compares the
 * state with the last checkpoint's, and when it is that state one pass on, applies as many more passes as every
 * stream's loop still holds (leaving the last ones to the simulation). Returns the ticks the state moved on (0:
 * none; the caller's clock moves with it). Gives up after a few checkpoints that do not repeat, and after one
 * skip. */
int64_t steady_pass(struct steady *st, const struct steady_view *v, int64_t now);
/* The passes applied since the start (0 when every pass was simulated; st may be NULL). */
long steady_applied(const struct steady *st);

#endif
