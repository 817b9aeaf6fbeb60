/* module: the boundary between gpusim and its CUDA part. Everything that calls CUDA, cuBLASLt, NCCL or MPI
 * (calibrate/run.c, calibrate/mpiboot.c, cuda/) is built into one shared module, gpusim-cuda.so, that
 * `gpusim calibrate` loads with dlopen when it has something to measure (calibrate/loader.c). gpusim itself
 * names no CUDA library, so every other command starts without them (docs/calibration.md, "Where the CUDA part
 * lives"). The module links the hardware library (hardware/: the gpusim-hw reader and writer and the built-in
 * presets, which need nothing of the simulator) and needs one thing of the simulator's library, scenario loading;
 * the host passes it in as a table (calibrate/module_glue.c), so the module holds no copy of the simulator. */
#ifndef CALMOD_H
#define CALMOD_H

#include <stddef.h>
#include "calibrate/run.h"
#include "hardware/hwmodel.h"
#include "scenario/scenario.h"

/* Bumped whenever struct calmod_host, struct calmod or struct cal_opts change meaning. */
#define CALMOD_ABI 2
/* The one symbol the module exports (a struct calmod). */
#define CALMOD_SYMBOL "gpusim_calmod"

/* What gpusim lends the module: the simulator's entry points that calibrate/core_glue.c calls. */
struct calmod_host {
	int (*scenario_load)(const char *path, const struct scenario_overrides *ov, struct scenario *out);
};

/* What the module offers. The sizes guard against a gpusim and a module built from different trees. */
struct calmod {
	int abi;                 /* CALMOD_ABI */
	const char *version;     /* GPUSIM_VERSION of the module's build */
	size_t opts_size;        /* sizeof(struct cal_opts) */
	size_t scenario_size;    /* sizeof(struct scenario) */
	/* run: calibrate_run with the host's entry points; 0 or a negative GS_* code after the error was printed */
	int (*run)(const struct calmod_host *host, const struct cal_opts *o);
};

/* calibrate_measure: measure this machine (calibrate_run), wherever it lives: through the module in gpusim
 * (calibrate/loader.c), directly in gpusim-calibrate (calibrate/tool_main.c). 0 or a negative GS_* code. */
int calibrate_measure(const struct cal_opts *o);

#endif
