/* eventq: FIFO buckets of equal times under a min-heap of distinct times (see eventq.h).
 * Invariants: every bucket in the heap is non-empty and is in the hash under its time; no two buckets hold
 * the same time; inside a bucket events are in push order, so their seq increase; the heap is ordered by
 * time, and distinct times make that order total. Popping a bucket's last event removes the bucket from the
 * heap (it is the root) and from the hash (backward-shift deletion keeps probe chains intact). */
#include "sim/eventq.h"

#include <stdlib.h>
#include <string.h>
#include "util/xalloc.h"

#define NIL EVENTQ_NIL
#define FREED_TIME UINT64_MAX  /* a free bucket's tbits: times are non-negative int64, so no push has it */

/* Times are non-negative integers: as unsigned they order like the values. */
static inline uint64_t tbits_of(int64_t t)
{
	return (uint64_t)t;
}

static inline uint32_t hash_of(uint64_t x, uint32_t mask)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (uint32_t)x & mask;
}

void eventq_init(struct eventq *q)
{
	memset(q, 0, sizeof *q);
	q->free_node = q->free_bucket = q->last_bucket = NIL;
}

void eventq_clear(struct eventq *q)
{
	q->big = 0;
	q->nnodes = q->nbuckets = q->heaplen = q->hashlen = 0;
	q->free_node = q->free_bucket = q->last_bucket = NIL;
	if (q->hash)
		memset(q->hash, 0, q->hashcap * sizeof *q->hash);
	q->len = 0;
	q->next_seq = 0;
}

void eventq_release(struct eventq *q)
{
	free(q->nodes);
	free(q->buckets);
	free(q->heap);
	free(q->hash);
	free(q->small);
	eventq_init(q);
}

static void hash_insert(struct eventq *q, uint32_t b);

static void hash_grow(struct eventq *q)
{
	uint32_t *old = q->hash, oldcap = q->hashcap;
	q->hashcap = oldcap ? 2 * oldcap : 1024;
	q->hash = xcalloc(q->hashcap, sizeof *q->hash);
	q->hashlen = 0;
	for (uint32_t i = 0; i < oldcap; i++)
		if (old[i])
			hash_insert(q, old[i] - 1);
	free(old);
}

static void hash_insert(struct eventq *q, uint32_t b)
{
	if (2 * (q->hashlen + 1) > q->hashcap)
		hash_grow(q);
	uint32_t mask = q->hashcap - 1, i = hash_of(q->buckets[b].tbits, mask);
	while (q->hash[i])
		i = (i + 1) & mask;
	q->hash[i] = b + 1;
	q->hashlen++;
}

static uint32_t hash_find(const struct eventq *q, uint64_t tb)
{
	if (!q->hashcap)
		return NIL;
	uint32_t mask = q->hashcap - 1, i = hash_of(tb, mask);
	while (q->hash[i]) {
		if (q->buckets[q->hash[i] - 1].tbits == tb)
			return q->hash[i] - 1;
		i = (i + 1) & mask;
	}
	return NIL;
}

static void hash_remove(struct eventq *q, uint64_t tb)
{
	uint32_t mask = q->hashcap - 1, i = hash_of(tb, mask);
	while (q->buckets[q->hash[i] - 1].tbits != tb)
		i = (i + 1) & mask;
	/* backward-shift: move later entries of the probe chain into the hole when that keeps them findable */
	uint32_t j = i;
	for (;;) {
		q->hash[i] = 0;
		for (;;) {
			j = (j + 1) & mask;
			if (!q->hash[j]) {
				q->hashlen--;
				return;
			}
			uint32_t home = hash_of(q->buckets[q->hash[j] - 1].tbits, mask);
			/* the entry at j may fill i unless its home lies cyclically in (i, j] */
			if (i <= j ? (home <= i || home > j) : (home <= i && home > j))
				break;
		}
		q->hash[i] = q->hash[j];
		i = j;
	}
}

static void heap_up(struct eventq *q, uint32_t i)
{
	uint32_t b = q->heap[i];
	uint64_t tb = q->buckets[b].tbits;
	while (i > 0) {
		uint32_t parent = (i - 1) / 2;
		if (q->buckets[q->heap[parent]].tbits <= tb)
			break;
		q->heap[i] = q->heap[parent];
		i = parent;
	}
	q->heap[i] = b;
}

static void heap_pop_root(struct eventq *q)
{
	uint32_t n = --q->heaplen;
	if (n == 0)
		return;
	uint32_t b = q->heap[n], i = 0;
	uint64_t tb = q->buckets[b].tbits;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && q->buckets[q->heap[c + 1]].tbits < q->buckets[q->heap[c]].tbits)
			c++;
		if (q->buckets[q->heap[c]].tbits >= tb)
			break;
		q->heap[i] = q->heap[c];
		i = c;
	}
	q->heap[i] = b;
}

static uint32_t new_bucket(struct eventq *q, uint64_t tb)
{
	uint32_t b;
	if (q->free_bucket != NIL) {
		b = q->free_bucket;
		q->free_bucket = q->buckets[b].head;
	} else {
		if (q->nbuckets == q->capbuckets) {
			q->capbuckets = q->capbuckets ? 2 * q->capbuckets : 256;
			q->buckets = xrealloc(q->buckets, q->capbuckets * sizeof *q->buckets);
			q->heap = xrealloc(q->heap, q->capbuckets * sizeof *q->heap);
		}
		b = q->nbuckets++;
	}
	q->buckets[b] = (struct eventq_bucket){ tb, NIL, NIL };
	hash_insert(q, b);
	q->heap[q->heaplen++] = b;
	heap_up(q, q->heaplen - 1);
	return b;
}

static inline int ev_before(const struct event *a, const struct event *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

/* The small array (q->small, n events): the index of its least by (t, seq). */
static inline uint32_t small_least(const struct eventq *q, size_t n)
{
	uint32_t m = 0;
	for (uint32_t i = 1; i < n; i++)
		if (ev_before(&q->small[i], &q->small[m]))
			m = i;
	return m;
}

static inline void bucket_push(struct eventq *q, int64_t t, uint64_t seq, uint32_t kind, uint32_t what);

/* The small array is full: its events go into the buckets in (t, seq) order, so each bucket's FIFO keeps them
 * in sequence order and the later pushes append behind them. */
__attribute__((noinline, cold)) static void go_big(struct eventq *q)
{
	for (size_t n = q->len; n > 0; n--) {
		uint32_t m = small_least(q, n);
		struct event e = q->small[m];
		q->small[m] = q->small[n - 1];
		bucket_push(q, e.t, e.seq, e.kind, e.what);
	}
	q->big = 1;
}

void eventq_push_any(struct eventq *q, int64_t t, uint32_t kind, uint32_t what)
{
	if (t < 0)
		t = 0;
	uint64_t seq = q->next_seq++;
	if (!q->big) {
		if (q->len < EVENTQ_SMALL) {
			if (!q->small)
				q->small = xmalloc(EVENTQ_SMALL * sizeof *q->small);
			q->small[q->len] = (struct event){ t, seq, what, kind };
			if (q->len == 0 || t < q->small[q->smin].t)  /* its seq is the largest: least only by time */
				q->smin = (uint32_t)q->len;
			q->len++;
			return;
		}
		go_big(q);
	}
	bucket_push(q, t, seq, kind, what);
	q->len++;
}

static inline void bucket_push(struct eventq *q, int64_t t, uint64_t seq, uint32_t kind, uint32_t what)
{
	uint64_t tb = tbits_of(t);
	uint32_t b = q->last_bucket;
	if (b == NIL || q->buckets[b].tbits != tb) {  /* a freed bucket's time is FREED_TIME, never a push's */
		b = hash_find(q, tb);
		if (b == NIL)
			b = new_bucket(q, tb);
		q->last_bucket = b;
	}
	uint32_t n;
	if (q->free_node != NIL) {
		n = q->free_node;
		q->free_node = q->nodes[n].next;
	} else {
		if (q->nnodes == q->capnodes) {
			q->capnodes = q->capnodes ? 2 * q->capnodes : 256;
			q->nodes = xrealloc(q->nodes, q->capnodes * sizeof *q->nodes);
		}
		n = q->nnodes++;
	}
	q->nodes[n] = (struct eventq_node){ { t, seq, what, kind }, NIL };
	struct eventq_bucket *bk = &q->buckets[b];
	if (bk->tail == NIL)
		bk->head = n;
	else
		q->nodes[bk->tail].next = n;
	bk->tail = n;
}

int eventq_pop_any(struct eventq *q, struct event *out)
{
	if (q->len == 0)
		return 0;
	if (!q->big) {
		*out = q->small[q->smin];
		q->small[q->smin] = q->small[--q->len];
		q->smin = small_least(q, q->len);
		return 1;
	}
	uint32_t b = q->heap[0];
	struct eventq_bucket *bk = &q->buckets[b];
	uint32_t n = bk->head;
	*out = q->nodes[n].e;
	bk->head = q->nodes[n].next;
	q->nodes[n].next = q->free_node;
	q->free_node = n;
	q->len--;
	if (bk->head == NIL) {
		hash_remove(q, bk->tbits);
		heap_pop_root(q);
		bk->head = q->free_bucket;
		bk->tbits = FREED_TIME;
		q->free_bucket = b;
	}
	return 1;
}

int eventq_drop(struct eventq *q, int64_t t, uint32_t kind, uint32_t what)
{
	if (q->big)
		return 0;
	for (size_t i = 0; i < q->len; i++)
		if (q->small[i].t == t && q->small[i].kind == kind && q->small[i].what == what) {
			q->small[i] = q->small[--q->len];
			q->smin = small_least(q, q->len);
			return 1;
		}
	return 0;
}

int eventq_small_events(const struct eventq *q, struct event out[EVENTQ_SMALL])
{
	if (q->big)
		return -1;
	int n = (int)q->len;
	for (int i = 0; i < n; i++) {  /* insertion by (t, seq): a handful */
		struct event e = q->small[i];
		int j = i;
		for (; j > 0 && ev_before(&e, &out[j - 1]); j--)
			out[j] = out[j - 1];
		out[j] = e;
	}
	return n;
}

int eventq_shift(struct eventq *q, int64_t dt)
{
	if (q->big)
		return -1;
	for (size_t i = 0; i < q->len; i++)
		q->small[i].t += dt;
	return 0;
}
