/* eventq: binary min-heap of events keyed by (t, seq). Invariant: for every i > 0,
 * key(heap[(i-1)/2]) <= key(heap[i]); seq values are unique, so the order is total. */
#include "sim/eventq.h"

#include <stdlib.h>
#include "util/xalloc.h"

static inline int before(const struct event *a, const struct event *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

void eventq_init(struct eventq *q)
{
	q->heap = NULL;
	q->len = q->cap = 0;
	q->next_seq = 0;
}

void eventq_release(struct eventq *q)
{
	free(q->heap);
	eventq_init(q);
}

void eventq_push(struct eventq *q, double t, uint32_t kind, uint32_t what)
{
	if (q->len == q->cap) {
		q->cap = q->cap ? 2 * q->cap : 256;
		q->heap = xrealloc(q->heap, q->cap * sizeof *q->heap);
	}
	struct event e = { t, q->next_seq++, what, kind };
	size_t i = q->len++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (!before(&e, &q->heap[parent]))
			break;
		q->heap[i] = q->heap[parent];
		i = parent;
	}
	q->heap[i] = e;
}

int eventq_pop(struct eventq *q, struct event *out)
{
	if (q->len == 0)
		return 0;
	*out = q->heap[0];
	struct event last = q->heap[--q->len];
	size_t n = q->len, i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && before(&q->heap[c + 1], &q->heap[c]))
			c++;
		if (!before(&q->heap[c], &last))
			break;
		q->heap[i] = q->heap[c];
		i = c;
	}
	if (n)
		q->heap[i] = last;
	return 1;
}
