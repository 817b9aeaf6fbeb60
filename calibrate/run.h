/* run: one calibration run, from the device query to the written model (calibrate/run.c, built only with CUDA),
 * or a refit of one from its raw measurements (calibrate/refit.c, built everywhere). */
#ifndef RUN_H
#define RUN_H

#include <stdbool.h>

struct cal_opts {
	const char *out;        /* NULL: <gpu><N>-measured.yaml in the current folder */
	const char *raw_dir;    /* NULL: no CSVs */
	const char *base;       /* NULL: the built-in preset matching the GPU, if any */
	const char *scenario;   /* NULL: grid only */
	bool quick;
	int gpus;               /* 0 = all */
	const char *refit_dir;  /* not NULL: no measuring, refit the raw CSVs of this folder (calibrate/refit.c) */
	bool progress;          /* progress lines on stderr (a terminal) */
	bool verbose;           /* --verbose: milestones as lines of their own, from every MPI rank */
	double sustain_s;       /* --sustain S: the power phase's warm-up in seconds; 0 off; < 0 the default
	                         * (CAL_SUSTAIN_DEFAULT_S in a full run, off with --quick) */
	const char *attention;  /* --attention torch: fused attention rows through PyTorch; NULL: not measured */
	const char *kernels;    /* --kernels torch: PyTorch's memory-bound kernels, gaps, host costs; NULL: not */
};

/* The default warm-up of the power phase: long enough for an H100 and an H200 to settle (docs/calibration.md). */
#define CAL_SUSTAIN_DEFAULT_S 60.0

/* calibrate_run: 0, or a negative GS_* code after the error was printed. */
int calibrate_run(const struct cal_opts *o);
/* calibrate_refit: a model from the raw CSVs of o->refit_dir (any machine, no GPU); 0 or a GS_* code. */
int calibrate_refit(const struct cal_opts *o);
/* calibrate_default_name: "h200x2-measured" for 2 x "NVIDIA H200" */
void calibrate_default_name(const char *gpu_name, int ngpus, char *buf, size_t len);

#endif
