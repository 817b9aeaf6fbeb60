/* gemmtab: from measured GEMM times to the efficiency tables of docs/hardware-model.md (achieved / peak on a grid
 * of m, n, k, k fastest), the datasheet peaks they are relative to, and the analytic fallback model. */
#ifndef GEMMTAB_H
#define GEMMTAB_H

#include "calibrate/calib.h"

/* The loader's ceiling (docs/hardware-model.md): an efficiency may pass 1 where a datasheet peak is quoted at a
 * lower clock than the card runs at, up to 1.5. */
#define GEMMTAB_EFF_MAX 1.5

struct gemmtab {
	enum dtype dt;
	int nm, nn, nk;
	double m[CAL_MAX_AXIS], n[CAL_MAX_AXIS], k[CAL_MAX_AXIS];
	double *eff;      /* nm*nn*nk, owned; eff[(im*nn + in)*nk + ik] */
	int nmissing;     /* grid points not measured, filled from their nearest measured neighbour (log2 distance) */
	int nclamped;     /* points above GEMMTAB_EFF_MAX (peak far too low), written as that */
	double max_eff;
};

/* gemmtab_datasheet: dense peaks (TFLOP/s) and HBM bandwidth (GB/s) of a known GPU by its CUDA name; returns 1 and
 * fills peak[DT_COUNT] (0 where the GPU lacks the dtype), *hbm_gbps and *label, or 0 for an unknown GPU. */
int gemmtab_datasheet(const char *gpu_name, double peak[DT_COUNT], double *hbm_gbps, const char **label);
/* gemmtab_set_peaks: c->peak_tflops and c->peak_source from the datasheet, or, for an unknown GPU, from the best
 * measured GEMM of each dtype (said so in peak_source). Same for hbm_gbps from the copy measurements. */
void gemmtab_set_peaks(struct calib *c);
/* gemmtab_build: the table of dtype dt over c->grid[dt]; 0, or GS_EINVAL when nothing was measured for it. */
int gemmtab_build(const struct calib *c, enum dtype dt, struct gemmtab *t);
void gemmtab_release(struct gemmtab *t);
/* gemmtab_model: the analytic model's max_eff and k_half fitted to a table's largest-m, largest-n column;
 * 0 or GS_EINVAL. */
int gemmtab_model(const struct gemmtab *t, double *max_eff, double *k_half);
/* achieved TFLOP/s of one GEMM */
double gemm_tflops(long m, long n, long k, double us);

#endif
