/* runstate: one calibration run's state, which its phases share (calibrate/run.c, calibrate/runcoll.c), with its
 * progress line and its clock (calibrate/runstate.c). */
#ifndef RUNSTATE_H
#define RUNSTATE_H

#include <stdbool.h>
#include "calibrate/base.h"
#include "calibrate/calib.h"
#include "calibrate/mpiboot.h"
#include "calibrate/plan.h"
#include "calibrate/run.h"
#include "cuda/gpubench.h"

struct run {
	const struct cal_opts *o;
	struct calib c;
	struct cal_plan plan;
	struct gb_system sys;
	struct cal_base base;
	bool mpi;
	struct calmpi_info mi;
	int dev;                /* this process's GPU */
	int ngpus;              /* GPUs per node calibrated */
	bool writer;            /* the process that measures the GPU alone and writes the model */
	char out[1024];
	double t0, tphase;
	char phases[512];
	const char *phase;
	int gemm_disturbed, gemm_still;  /* GEMM series timed again (cal_series_disturbed), and still so after it */
	int gemm_dominated, gemm_dominated_still;  /* grid series slower than a larger product (cal_gemm_dominating)
						    * timed again, and still so after it */
};

/* run_now_s: a monotonic clock in seconds. */
double run_now_s(void);
/* run_progress: on a terminal, one status line rewritten in place; with --verbose, milestones (phases, series) as
 * lines of their own from every rank, for logs and for finding where a run hangs. */
void run_progress(struct run *r, bool milestone, const char *fmt, ...);

#endif
