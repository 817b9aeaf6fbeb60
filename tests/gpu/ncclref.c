/* gpusim-ncclref: the reference gpusim calibrate's NCCL numbers are checked against: nccl-tests' own timing loop
 * (all_reduce_perf and friends, src/common.cu): one process, all local GPUs, warm-up, then iters back-to-back
 * operations timed with the host's monotonic clock up to the synchronisation of every stream, out of place and
 * in place. Prints nccl-tests' columns, plus the time calibrate's event-based method gives for the same size.
 * usage: gpusim-ncclref [-b BYTES] [-e BYTES] [-f FACTOR] [-n ITERS] [-w WARMUP] [-g GPUS] [-o OP] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cuda/gpubench.h"

static double busfactor(enum coll_op op, int n)
{
	switch (op) {
	case COLL_ALL_REDUCE: return 2.0 * (n - 1) / n;
	case COLL_ALL_GATHER: case COLL_REDUCE_SCATTER: case COLL_ALL_TO_ALL: return (double)(n - 1) / n;
	default: return 1.0;
	}
}

int main(int argc, char **argv)
{
	static const char *const ops[] = {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "send_recv",
					  "all_to_all"};
	double b = 1 << 30, e = 1 << 30, f = 2;
	int iters = 20, warm = 5, ngpu = 0, devs[GB_MAX_GPUS], rc;
	enum coll_op op = COLL_ALL_REDUCE;
	struct gb_comm *c = NULL;
	for (int i = 1; i + 1 < argc; i += 2) {
		const char *a = argv[i], *v = argv[i + 1];
		if (!strcmp(a, "-b")) b = atof(v);
		else if (!strcmp(a, "-e")) e = atof(v);
		else if (!strcmp(a, "-f")) f = atof(v);
		else if (!strcmp(a, "-n")) iters = atoi(v);
		else if (!strcmp(a, "-w")) warm = atoi(v);
		else if (!strcmp(a, "-g")) ngpu = atoi(v);
		else if (!strcmp(a, "-o")) {
			int k = 0;
			while (k < COLL_NOPS && strcmp(ops[k], v))
				k++;
			if (k == COLL_NOPS) {
				fprintf(stderr, "gpusim-ncclref: unknown op '%s'\n", v);
				return 2;
			}
			op = (enum coll_op)k;
		} else {
			fprintf(stderr, "gpusim-ncclref: unknown option '%s'\n", a);
			return 2;
		}
	}
	int n = gb_device_count();
	if (n <= 0) {
		fprintf(stderr, "gpusim-ncclref: no CUDA GPU\n");
		return 3;
	}
	if (ngpu > 0 && ngpu < n)
		n = ngpu;
	for (int i = 0; i < n; i++)
		devs[i] = i;
	if ((rc = gb_comm_new_local(devs, n, e, &c)))
		return 3;
	printf("# gpusim-ncclref %s, %d GPUs, iters %d, warmup %d, host clock (nccl-tests loop) vs CUDA events\n",
	       ops[op], n, iters, warm);
	printf("# %12s %10s %10s %8s %8s %10s %8s %8s %10s %8s\n", "size(B)", "oop_us", "algbw", "busbw", "", "ip_us",
	       "algbw", "busbw", "events_us", "busbw");
	for (double s = b; s <= e; s *= f) {
		double bytes = gb_coll_bytes(op, n, s), t_oop, t_ip, tr[3];
		if ((rc = gb_coll_time_hostclock(c, op, bytes, false, warm, iters, &t_oop)) ||
		    (rc = gb_coll_time_hostclock(c, op, bytes, true, warm, iters, &t_ip)) ||
		    (rc = gb_coll_time(c, op, bytes, warm, iters, 3, tr)))
			break;
		/* median of three event trials */
		double lo = fmin(tr[0], fmin(tr[1], tr[2])), hi = fmax(tr[0], fmax(tr[1], tr[2]));
		double med = tr[0] + tr[1] + tr[2] - lo - hi;
		double bf = busfactor(op, n);
		printf("  %12.0f %10.1f %10.2f %8.2f %8s %10.1f %8.2f %8.2f %10.1f %8.2f\n", bytes, t_oop,
		       bytes / (t_oop * 1e3), bytes / (t_oop * 1e3) * bf, "", t_ip, bytes / (t_ip * 1e3),
		       bytes / (t_ip * 1e3) * bf, med, bytes / (med * 1e3) * bf);
		if (f <= 1)
			break;
	}
	gb_comm_free(c);
	return rc ? 3 : 0;
}
