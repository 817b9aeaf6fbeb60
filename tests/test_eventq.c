/* test_eventq: the queue pops in (time, insertion) order, so equal times keep their push order. */
#include "sim/eventq.h"
#include "check.h"

/* Pushes and pops interleaved, with many equal times, at most cap pending: the same order as a linear-scan
 * reference. From an empty (cleared) queue with cap over EVENTQ_SMALL this crosses from the small array to the
 * buckets in the middle of the run. */
static void interleaved(struct eventq *q, int cap)
{
	struct event ref[512], e;
	int nref = 0, same = 1;
	uint64_t seq = q->next_seq;
	unsigned x = 12345;
	int64_t now = 0;
	for (int step = 0; step < 20000; step++) {
		x = x * 1103515245u + 12345u;
		if ((x >> 16) % 3 != 0 && nref < cap) {
			int64_t tn = now + (int64_t)((x >> 8) % 7);
			eventq_push(q, tn, 1, (uint32_t)step);
			ref[nref++] = (struct event){ tn, seq++, (uint32_t)step, 1 };
		} else if (nref > 0) {
			int best = 0;
			for (int i = 1; i < nref; i++)
				if (ref[i].t < ref[best].t || (ref[i].t == ref[best].t && ref[i].seq < ref[best].seq))
					best = i;
			CHECK(eventq_pop(q, &e));
			CHECK(eventq_len(q) == 0 || eventq_next_time(q) >= e.t);
			if (e.what != ref[best].what || e.t != ref[best].t || e.seq != ref[best].seq)
				same = 0;
			now = e.t;
			ref[best] = ref[--nref];
		}
	}
	CHECK(same);
	CHECK_INT((long long)eventq_len(q), nref);
}

int main(void)
{
	struct eventq q;
	eventq_init(&q);
	int64_t t[] = { 50, 10, 30, 10, 20, 50, 5, 30 };
	for (unsigned i = 0; i < 8; i++)
		eventq_push(&q, t[i], 0, i);
	/* expected: 5(6) 10(1) 10(3) 20(4) 30(2) 30(7) 50(0) 50(5) */
	unsigned want[] = { 6, 1, 3, 4, 2, 7, 0, 5 };
	struct event e;
	for (unsigned i = 0; i < 8; i++) {
		CHECK(eventq_pop(&q, &e));
		CHECK_INT(e.what, want[i]);
	}
	CHECK(!eventq_pop(&q, &e));
	/* eventq_drop while small: the pending (t, kind, what) goes, a later push to its new time pops in order; a
	 * missing one is not found */
	eventq_push(&q, 40, 1, 7);
	eventq_push(&q, 20, 0, 8);
	eventq_push(&q, 10, 0, 9);
	CHECK_INT(eventq_drop(&q, 40, 0, 7), 0);  /* another kind */
	CHECK_INT(eventq_drop(&q, 10, 0, 9), 1);
	eventq_push(&q, 25, 0, 9);
	unsigned want2[] = { 8, 9, 7 };
	for (unsigned i = 0; i < 3; i++) {
		CHECK(eventq_pop(&q, &e));
		CHECK_INT(e.what, want2[i]);
	}
	CHECK(!eventq_pop(&q, &e));
	/* many events: popped times never decrease */
	for (unsigned i = 0; i < 10000; i++)
		eventq_push(&q, (int64_t)((i * 7919u) % 1000), 0, i);
	int64_t last = -1;
	int sorted = 1;
	uint64_t last_seq = 0;
	while (eventq_pop(&q, &e)) {
		if (e.t < last || (e.t == last && e.seq < last_seq))
			sorted = 0;
		last = e.t;
		last_seq = e.seq;
	}
	CHECK(sorted);

	eventq_push(&q, 5, 0, 1);
	CHECK_INT(eventq_drop(&q, 5, 0, 1), 0);  /* buckets: left to be skipped when it pops */
	CHECK(eventq_pop(&q, &e) && e.what == 1);
		interleaved(&q, 512);  /* the buckets (the queue has held 10,000) */
	eventq_clear(&q);
	interleaved(&q, EVENTQ_SMALL);  /* never more than EVENTQ_SMALL pending: the small array throughout */
	eventq_clear(&q);
	interleaved(&q, 512);  /* from the small array into the buckets midway */
	eventq_release(&q);
	return check_result();
}
