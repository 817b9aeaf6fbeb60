/* torchkern_internal: what calibrate/torchkern.c and torchkern_host.c share, not part of torchkern.h. */
#ifndef TORCHKERN_INTERNAL_H
#define TORCHKERN_INTERNAL_H

/* The median of v[0..n-1] (n > 0), sorting v in place. */
double torchkern_median(double *v, int n);

#endif
