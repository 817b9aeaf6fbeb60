/* runcoll: the collectives phase of a calibration run (calibrate/runcoll.c). */
#ifndef RUNCOLL_H
#define RUNCOLL_H

#include "calibrate/runstate.h"

/* The collectives phase: 0 or a negative GS_* code after printing why. runcoll_mpi only with GPUSIM_HAVE_MPI. */
int runcoll_local(struct run *r);
int runcoll_mpi(struct run *r);

#endif
