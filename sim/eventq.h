/* eventq: the simulator's event queue, ordered by (time, sequence number). The sequence number is the order
 * of insertion, so events at equal times pop in the order they were pushed and a run is deterministic
 * (libuv's timer heap does the same with start_id).
 * Symmetric ranks finish their work at exactly the same times, so a large simulation has far fewer distinct
 * times than events. The queue keeps one FIFO bucket per distinct time, found through a hash of the time's
 * value, and a binary min-heap of the buckets: pushing to an existing time is O(1), and the heap only holds
 * distinct times. A queue that has never held more than EVENTQ_SMALL events at once (one rank per stage: a
 * handful pending) is a plain array of the events instead with the index of its least (time, sequence): a push
 * appends, a pop takes that one and finds the next least in one pass over a few events, no hashing; the push that
 * would pass EVENTQ_SMALL moves them into the buckets, sequence numbers kept, and the queue stays there until
 * eventq_clear. Both pop in the same order. (16: 70b_64gpu's
 * simulations never hold more; with --all-ranks, where many events share a time, the buckets take over early.) */
#ifndef EVENTQ_H
#define EVENTQ_H

#include <stddef.h>
#include <stdint.h>

struct event {
	int64_t t;       /* since the start of the step, >= 0, in the engine's units (sim/engine.h: SIM_TICKS_PER_S) */
	uint64_t seq;    /* insertion order: the tie-break */
	uint32_t what;   /* payload: meaning owned by the engine */
	uint32_t kind;
};

struct eventq_node {
	struct event e;
	uint32_t next;               /* the next node of its bucket, or of the free list (EVENTQ_NIL: none) */
};
#define EVENTQ_NIL UINT32_MAX
struct eventq_bucket {
	uint64_t tbits;              /* the bucket's time */
	uint32_t head, tail;         /* its events, oldest first (node ids) */
};

enum { EVENTQ_SMALL = 16 };

struct eventq {
	struct event *small;            /* while !big: the events, in no order */
	uint32_t smin;                  /* while !big and len > 0: the index in small of the least by (t, seq) */
	int big;                        /* the buckets below hold the events */
	struct eventq_node *nodes;      /* pool; free ones chained from free_node */
	uint32_t nnodes, capnodes, free_node;
	struct eventq_bucket *buckets;  /* pool; free ones chained from free_bucket */
	uint32_t nbuckets, capbuckets, free_bucket;
	uint32_t *heap;                 /* bucket ids, min-heap by time */
	uint32_t heaplen;
	uint32_t *hash;                 /* open addressing: bucket id + 1, 0 = empty */
	uint32_t hashcap, hashlen;
	size_t len;
	uint64_t next_seq;
	uint32_t last_bucket;           /* the bucket the last push went to (NIL: none): symmetric ranks push runs of
	                                 * events at one time, found then without the hash */
};

void eventq_init(struct eventq *q);
void eventq_release(struct eventq *q);
/* Empty the queue, keeping its memory for the next run. */
void eventq_clear(struct eventq *q);
/* The out-of-line push and pop: every case (eventq_push and eventq_pop below take the common ones inline). */
void eventq_push_any(struct eventq *q, int64_t t, uint32_t kind, uint32_t what);
int eventq_pop_any(struct eventq *q, struct event *out);
/* A push to the time of the last push (symmetric ranks push runs of events at one time) with a free node is the
 * common case of a large run: inline, the same as eventq_push_any. */
static inline void eventq_push(struct eventq *q, int64_t t, uint32_t kind, uint32_t what)
{
	uint32_t b = q->last_bucket, n = q->free_node;
	if (q->big && t >= 0 && b != EVENTQ_NIL && n != EVENTQ_NIL && q->buckets[b].tbits == (uint64_t)t) {
		struct eventq_bucket *bk = &q->buckets[b];
		q->free_node = q->nodes[n].next;
		q->nodes[n] = (struct eventq_node){ { t, q->next_seq++, what, kind }, EVENTQ_NIL };
		if (bk->tail == EVENTQ_NIL)
			bk->head = n;
		else
			q->nodes[bk->tail].next = n;
		bk->tail = n;
		q->len++;
		return;
	}
	eventq_push_any(q, t, kind, what);
}
/* eventq_pop: 1 and *out filled, or 0 when empty. Inline while the least time's bucket keeps an event. */
static inline int eventq_pop(struct eventq *q, struct event *out)
{
	if (q->big && q->len) {
		struct eventq_bucket *bk = &q->buckets[q->heap[0]];
		uint32_t n = bk->head, next = q->nodes[n].next;
		if (next != EVENTQ_NIL) {
			*out = q->nodes[n].e;
			bk->head = next;
			q->nodes[n].next = q->free_node;
			q->free_node = n;
			q->len--;
			return 1;
		}
	}
	return eventq_pop_any(q, out);
}
static inline size_t eventq_len(const struct eventq *q) { return q->len; }
/* The event pushed last, to change its payload in place (what, kind: the caller's): only while it is pending and
 * nothing was pushed or popped since (the caller knows: it checks next_seq, and pops only events of its current
 * time, before that event's). */
static inline struct event *eventq_last(struct eventq *q)
{
	return q->big ? &q->nodes[q->buckets[q->last_bucket].tail].e : &q->small[q->len - 1];
}
/* Take out the pending event (t, kind, what) while the queue is a plain array: 1, or 0 (nothing taken) when there
 * is none or the queue holds buckets, where the caller leaves it to be skipped when it pops (a superseded end). */
int eventq_drop(struct eventq *q, int64_t t, uint32_t kind, uint32_t what);
/* While the queue is a plain array (at most EVENTQ_SMALL events, never more since eventq_clear): its events in
 * the order eventq_pop would return them, into out[EVENTQ_SMALL], and their number; -1 once it holds buckets. */
int eventq_small_events(const struct eventq *q, struct event out[EVENTQ_SMALL]);
/* Every event dt later, the order kept (sim/steady: passes taken as translations in time); only while the queue
 * is a plain array: 0, or -1 (nothing moved) once it holds buckets. */
int eventq_shift(struct eventq *q, int64_t dt);
/* The time of the event eventq_pop would return next; the queue must not be empty. Inline: the engine asks
 * after every event. */
static inline int64_t eventq_next_time(const struct eventq *q)
{
	return q->big ? (int64_t)q->buckets[q->heap[0]].tbits : q->small[q->smin].t;
}

#endif
