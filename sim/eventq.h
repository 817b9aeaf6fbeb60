/* eventq: the simulator's event queue, a binary min-heap ordered by (time, sequence number).
 * The sequence number is the order of insertion, so events at equal times pop in the order they were
 * pushed and a run is deterministic (libuv's timer heap does the same with start_id). */
#ifndef EVENTQ_H
#define EVENTQ_H

#include <stddef.h>
#include <stdint.h>

struct event {
	double t;        /* seconds since the start of the step */
	uint64_t seq;    /* insertion order: the tie-break */
	uint32_t what;   /* payload: meaning owned by the engine */
	uint32_t kind;
};

struct eventq {
	struct event *heap;
	size_t len, cap;
	uint64_t next_seq;
};

void eventq_init(struct eventq *q);
void eventq_release(struct eventq *q);
void eventq_push(struct eventq *q, double t, uint32_t kind, uint32_t what);
/* eventq_pop: 1 and *out filled, or 0 when empty. */
int eventq_pop(struct eventq *q, struct event *out);
static inline size_t eventq_len(const struct eventq *q) { return q->len; }

#endif
