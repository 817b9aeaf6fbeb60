/* run: one calibration run, from the device query to the written model (calibrate/run.c, built only with CUDA). */
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
	bool progress;          /* progress lines on stderr (a terminal) */
};

/* calibrate_run: 0, or a negative GS_* code after the error was printed. */
int calibrate_run(const struct cal_opts *o);
/* calibrate_default_name: "h200x2-measured" for 2 x "NVIDIA H200" */
void calibrate_default_name(const char *gpu_name, int ngpus, char *buf, size_t len);

#endif
