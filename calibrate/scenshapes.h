/* scenshapes: the exact GEMMs one transformer layer of a scenario runs on one GPU (tensor parallel split applied):
 * QKV, attention output projection, MLP up and down, and the output head, each forward (m = tokens), and its
 * backward data-gradient and weight-gradient products, as m x n x k with k the reduction. */
#ifndef SCENSHAPES_H
#define SCENSHAPES_H

#include "calibrate/calib.h"
#include "scenario/scenario.h"

/* scenshapes_from: up to max distinct shapes of s into out; returns how many. */
int scenshapes_from(const struct scenario *s, struct cal_shape *out, int max);
/* scenshapes_load: scenario_load(path) then scenshapes_from; 0 or the loader's GS_* code (already reported). */
int scenshapes_load(const char *path, struct cal_shape *out, int max, int *n);

#endif
