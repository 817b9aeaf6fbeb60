/* test_schedule: unit orders that can be written down by hand. */
#include "sim/schedule.h"
#include "check.h"

static void order_str(enum schedule sc, int p, int v, int m, int s, char *buf)
{
	struct unit u[256];
	int n = sched_order(sc, p, v, m, s, u);
	buf[0] = 0;
	for (int i = 0; i < n; i++)
		sprintf(buf + strlen(buf), "%s%c%d%s", i ? " " : "", u[i].bwd ? 'B' : 'F', u[i].mb,
			v > 1 ? (u[i].chunk ? "b" : "a") : "");
}

int main(void)
{
	char buf[4096];
	order_str(SCHED_GPIPE, 4, 1, 3, 0, buf);
	CHECK_STR(buf, "F0 F1 F2 B0 B1 B2");
	/* 1F1B, p = 4, m = 6: stage 0 warms up with 3 forwards, stage 3 with none */
	order_str(SCHED_1F1B, 4, 1, 6, 0, buf);
	CHECK_STR(buf, "F0 F1 F2 F3 B0 F4 B1 F5 B2 B3 B4 B5");
	order_str(SCHED_1F1B, 4, 1, 6, 3, buf);
	CHECK_STR(buf, "F0 B0 F1 B1 F2 B2 F3 B3 F4 B4 F5 B5");
	/* fewer micro-batches than stages: all forwards, then all backwards */
	order_str(SCHED_1F1B, 4, 1, 2, 0, buf);
	CHECK_STR(buf, "F0 F1 B0 B1");
	/* interleaved, p = 2, v = 2, m = 4 (Megatron): stage 1 warm-up = 0*2 + 1*2 = 2 units;
	 * forwards walk chunk a for mb 0,1 then chunk b for mb 0,1, then mb 2,3; backwards start with chunk b */
	order_str(SCHED_INTERLEAVED, 2, 2, 4, 1, buf);
	CHECK_STR(buf, "F0a F1a F0b B0b F1b B1b F2a B0a F3a B1a F2b B2b F3b B3b B2a B3a");
	/* stage 0 warm-up = 1*2 + 1*2 = 4 units */
	order_str(SCHED_INTERLEAVED, 2, 2, 4, 0, buf);
	CHECK_STR(buf, "F0a F1a F0b F1b F2a B0b F3a B1b F2b B0a F3b B1a B2b B3b B2a B3a");
	/* m == p: Megatron runs every forward first */
	order_str(SCHED_INTERLEAVED, 2, 2, 2, 0, buf);
	CHECK_STR(buf, "F0a F1a F0b F1b B0b B1b B0a B1a");
	return check_result();
}
