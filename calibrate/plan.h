/* plan: what a calibration run measures and how hard it tries, for --quick and the full run, plus the exact GEMM
 * shapes of a scenario. Everything time-critical is a number here, so the budget (full under 5 minutes, --quick
 * under 45 s on two GPUs) is read in one place. */
#ifndef PLAN_H
#define PLAN_H

#include <stdbool.h>
#include "calibrate/calib.h"

#define PLAN_MAX_SIZES 40

struct cal_plan {
	bool quick;
	/* GEMM */
	struct cal_grid grid[DT_COUNT];   /* nm == 0: dtype skipped */
	int gemm_samples;
	double gemm_batch_us;             /* aim per event pair */
	long ref_m, ref_n, ref_k;         /* the bf16 reference product reported on its own */
	/* memory-bound kernels and launch */
	int nmem;
	double mem_bytes[PLAN_MAX_SIZES];
	int mem_samples;
	/* attention */
	int attn_bh, attn_head_dim, nattn;
	int attn_seq[CAL_MAX_ATTN];
	int attn_samples;
	/* collectives */
	int ncoll;
	double coll_bytes[PLAN_MAX_SIZES];
	int coll_warmup, coll_trials, coll_min_iters, coll_max_iters;
	double coll_target_us;            /* time to aim for per trial */
	/* overlap */
	long ov_m, ov_n, ov_k;
	double ov_bytes;
};

/* plan_init: the default plan; fp8 only where the GPU has it (compute capability 8.9 and later). */
void plan_init(struct cal_plan *p, bool quick, int cc_major, int cc_minor);
/* plan_add_shapes: measure these exact shapes too, by adding their m, n and k to their dtype's grid axes
 * (creating a grid for a dtype that had none). GS_EINVAL when an axis would exceed CAL_MAX_AXIS. */
int plan_add_shapes(struct cal_plan *p, const struct cal_shape *s, int n);
/* plan_gemm_count: shapes in all grids; plan_max_elems: the largest m*k, k*n, m*n over all grids and the
 * reference shapes (to size buffers). */
int plan_gemm_count(const struct cal_plan *p);
void plan_max_elems(const struct cal_plan *p, double *a, double *b, double *c);

#endif
