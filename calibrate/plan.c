/* plan: the sweep of a calibration run (see plan.h). Grid axes are kept ascending and without duplicates. */
#include <math.h>
#include <string.h>
#include "calibrate/plan.h"
#include "util/gserr.h"

/* powers of two from..to, and with half_steps the 1.5x points between them */
static void axis(long *v, int *n, long from, long to, bool half_steps)
{
	*n = 0;
	for (long x = from; x <= to; x *= 2) {
		v[(*n)++] = x;
		if (half_steps && x * 2 <= to)
			v[(*n)++] = x * 3 / 2;
	}
}

static void axis_list(long *v, int *n, const long *list, int cnt)
{
	memcpy(v, list, sizeof *list * (size_t)cnt);
	*n = cnt;
}

void plan_init(struct cal_plan *p, bool quick, int cc_major, int cc_minor)
{
	memset(p, 0, sizeof *p);
	p->quick = quick;
	p->ref_m = p->ref_n = p->ref_k = 8192;
	if (quick) {
		static const long m[] = {256, 1024, 4096, 16384}, nk[] = {1024, 4096, 16384};
		struct cal_grid *g = &p->grid[DT_BF16];
		axis_list(g->m, &g->nm, m, 4);
		axis_list(g->n, &g->nn, nk, 3);
		axis_list(g->k, &g->nk, nk, 3);
	} else {
		enum dtype dts[] = {DT_BF16, DT_FP16, DT_TF32, DT_FP8};
		for (int i = 0; i < 4; i++) {
			struct cal_grid *g = &p->grid[dts[i]];
			if (dts[i] == DT_FP8 && !(cc_major > 8 || (cc_major == 8 && cc_minor >= 9)))
				continue;
			/* bf16, the training dtype, also at 1.5x points, where tile and wave quantization show */
			axis(g->m, &g->nm, 128, 16384, dts[i] == DT_BF16);
			axis(g->n, &g->nn, 512, 32768, dts[i] == DT_BF16);
			axis(g->k, &g->nk, 512, 32768, dts[i] == DT_BF16);
		}
	}
	/* each point timed alike in both (until 2026-11-28 --quick took 3 batches of 300 us): its fewer points are a
	 * subset of the full grid's (the full table cut to them fits the same GPU-bound steps to about 1 %), so a quick
	 * table differs from a full one by the GPU and the lease alone (docs/validation.md, "Quick calibrations"); the 37
	 * points take about half a second */
	p->gemm_samples = 5;
	p->gemm_batch_us = 500;
	/* memory-bound kernels: 64 KiB .. 4 GiB moved (x4 in quick, x2 in full) */
	for (double b = 65536; b <= 4294967296.0; b *= quick ? 4 : 2)
		p->mem_bytes[p->nmem++] = b;
	p->mem_samples = quick ? 3 : 5;
	/* attention: batch*heads 32, head dim 128 */
	p->attn_bh = 32;
	p->attn_head_dim = 128;
	if (quick) {
		p->attn_seq[p->nattn++] = 4096;
	} else {
		for (int s = 1024; s <= 8192; s *= 2)
			p->attn_seq[p->nattn++] = s;
	}
	p->attn_samples = quick ? 3 : 5;
	/* collectives: 8 B .. 1 GiB (x4 in quick), 8 B .. 4 GiB (x2 in full) */
	if (quick) {
		for (double b = 8; b <= 1073741824.0; b *= 4)
			p->coll_bytes[p->ncoll++] = b;
		p->coll_bytes[p->ncoll++] = 1073741824.0;  /* the largest, for the 1 GiB bandwidth */
	} else {
		for (double b = 8; b <= 4294967296.0; b *= 2)
			p->coll_bytes[p->ncoll++] = b;
	}
	p->coll_warmup = 5;
	p->coll_trials = quick ? 2 : 3;
	p->coll_min_iters = quick ? 5 : 20;
	p->coll_max_iters = quick ? 200 : 1000;
	p->coll_target_us = quick ? 1000 : 3000;
	/* overlap: a 8192^3 bf16 GEMM against 256 MiB all-reduces (a DP gradient bucket or ten) */
	p->ov_m = p->ov_n = p->ov_k = 8192;
	p->ov_bytes = 268435456.0;
}

static int insert(long *v, int *n, long x)
{
	int i = 0;
	while (i < *n && v[i] < x)
		i++;
	if (i < *n && v[i] == x)
		return 0;
	if (*n >= CAL_MAX_AXIS)
		return GS_EINVAL;
	memmove(v + i + 1, v + i, sizeof *v * (size_t)(*n - i));
	v[i] = x;
	(*n)++;
	return 0;
}

int plan_add_shapes(struct cal_plan *p, const struct cal_shape *s, int n)
{
	for (int i = 0; i < n; i++) {
		struct cal_grid *g = &p->grid[s[i].dt];
		if (insert(g->m, &g->nm, s[i].m) || insert(g->n, &g->nn, s[i].n) || insert(g->k, &g->nk, s[i].k))
			return GS_EINVAL;
	}
	return 0;
}

int plan_gemm_count(const struct cal_plan *p)
{
	int n = 0;
	for (int d = 0; d < DT_COUNT; d++)
		n += p->grid[d].nm * p->grid[d].nn * p->grid[d].nk;
	return n;
}

void plan_max_elems(const struct cal_plan *p, double *a, double *b, double *c)
{
	*a = (double)p->ref_m * p->ref_k;
	*b = (double)p->ref_k * p->ref_n;
	*c = (double)p->ref_m * p->ref_n;
	*a = fmax(*a, (double)p->ov_m * p->ov_k);
	*b = fmax(*b, (double)p->ov_k * p->ov_n);
	*c = fmax(*c, (double)p->ov_m * p->ov_n);
	for (int d = 0; d < DT_COUNT; d++) {
		const struct cal_grid *g = &p->grid[d];
		if (!g->nm)
			continue;
		double m = (double)g->m[g->nm - 1], n = (double)g->n[g->nn - 1], k = (double)g->k[g->nk - 1];
		*a = fmax(*a, m * k);
		*b = fmax(*b, k * n);
		*c = fmax(*c, m * n);
	}
}
