/* torchprobe: run one of the PyTorch probes compiled into gpusim (calibrate/torch_attention.py,
 * calibrate/torch_kernels.py) with the python3 on PATH and parse what it prints. The script travels as text inside
 * gpusim (never a path read from a file or the environment): it is written to a temporary file, run, removed. */
#ifndef TORCHPROBE_H
#define TORCHPROBE_H

#include <stdio.h>
#include "calibrate/calib.h"

typedef int (*torchprobe_parse_fn)(FILE *f, const char *name, struct calib *c);

/* torchprobe_run: python3 SCRIPT ARGS... (args: NULL-terminated, after the script's path); its stdout goes to
 * parse. what: the option in messages ("--attention torch"), file: the script's name in the repository. 0, or
 * GS_EENV after one line saying why (no python3, no torch, a failed or unreadable probe). */
int torchprobe_run(const char *script, const char *what, const char *file, const char *const *args,
		   torchprobe_parse_fn parse, struct calib *c);

#endif
