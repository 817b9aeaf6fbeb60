/* test_eventq: the heap pops in (time, insertion) order, so equal times keep their push order. */
#include "sim/eventq.h"
#include "check.h"

int main(void)
{
	struct eventq q;
	eventq_init(&q);
	double t[] = { 5, 1, 3, 1, 2, 5, 0.5, 3 };
	for (unsigned i = 0; i < 8; i++)
		eventq_push(&q, t[i], 0, i);
	/* expected: 0.5(6) 1(1) 1(3) 2(4) 3(2) 3(7) 5(0) 5(5) */
	unsigned want[] = { 6, 1, 3, 4, 2, 7, 0, 5 };
	struct event e;
	for (unsigned i = 0; i < 8; i++) {
		CHECK(eventq_pop(&q, &e));
		CHECK_INT(e.what, want[i]);
	}
	CHECK(!eventq_pop(&q, &e));
	/* many events: popped times never decrease */
	for (unsigned i = 0; i < 10000; i++)
		eventq_push(&q, (double)((i * 7919u) % 1000), 0, i);
	double last = -1;
	int sorted = 1;
	uint64_t last_seq = 0;
	while (eventq_pop(&q, &e)) {
		if (e.t < last || (e.t == last && e.seq < last_seq))
			sorted = 0;
		last = e.t;
		last_seq = e.seq;
	}
	CHECK(sorted);
	eventq_release(&q);
	return check_result();
}
