/* runstate: a calibration run's progress line and clock (runstate.h). */
#define _POSIX_C_SOURCE 200809L  /* clock_gettime */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "calibrate/runstate.h"

double run_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* On a terminal, one status line rewritten in place; with --verbose, milestones (phases, series) as lines of
 * their own from every rank, for logs and for finding where a run hangs. */
void run_progress(struct run *r, bool milestone, const char *fmt, ...)
{
	va_list ap;
	if (r->o->verbose) {
		if (!milestone)
			return;
		if (r->mpi)
			fprintf(stderr, "calibrate: [rank %d] ", r->mi.rank);
		else
			fputs("calibrate: ", stderr);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
		return;
	}
	if (!r->o->progress || !r->writer)
		return;
	fputs("\r\033[Kcalibrate: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
}
