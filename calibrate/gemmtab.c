/* gemmtab: efficiency tables and peaks (see gemmtab.h). Peaks are dense (no sparsity) datasheet figures; the
 * H100 SXM / H200 numbers are those of docs calibration-notes section 5. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "calibrate/gemmtab.h"
#include "util/gserr.h"

struct sheet {
	const char *match;      /* substring of the CUDA device name; first match wins */
	double fp32, tf32, bf16, fp16, fp8, hbm;
	const char *label;
};

static const struct sheet sheets[] = {
	{"GH200", 66.9, 494.7, 989.4, 989.4, 1978.9, 4000, "NVIDIA GH200 datasheet (dense)"},
	{"H200 NVL", 60.0, 417.5, 835.5, 835.5, 1671.0, 4800, "NVIDIA H200 NVL datasheet (dense)"},
	{"H200", 66.9, 494.7, 989.4, 989.4, 1978.9, 4800, "NVIDIA H200 SXM datasheet (dense)"},
	{"H100 NVL", 60.0, 417.5, 835.5, 835.5, 1671.0, 3900, "NVIDIA H100 NVL datasheet (dense)"},
	{"H100 PCIe", 51.2, 378.0, 756.5, 756.5, 1513.0, 2000, "NVIDIA H100 PCIe datasheet (dense)"},
	{"H100", 66.9, 494.7, 989.4, 989.4, 1978.9, 3350, "NVIDIA H100 SXM datasheet (dense)"},
	{"H800", 66.9, 494.7, 989.4, 989.4, 1978.9, 3350, "NVIDIA H800 SXM datasheet (dense)"},
	{"A100-SXM4-80GB", 19.5, 156.0, 312.0, 312.0, 0, 2039, "NVIDIA A100 80GB SXM datasheet (dense)"},
	{"A100", 19.5, 156.0, 312.0, 312.0, 0, 1555, "NVIDIA A100 datasheet (dense)"},
};

int gemmtab_datasheet(const char *gpu_name, double peak[DT_COUNT], double *hbm_gbps, const char **label)
{
	for (size_t i = 0; i < sizeof sheets / sizeof sheets[0]; i++) {
		const struct sheet *s = &sheets[i];
		if (!strstr(gpu_name, s->match))
			continue;
		peak[DT_FP32] = s->fp32;
		peak[DT_TF32] = s->tf32;
		peak[DT_BF16] = s->bf16;
		peak[DT_FP16] = s->fp16;
		peak[DT_FP8] = s->fp8;
		*hbm_gbps = s->hbm;
		*label = s->label;
		return 1;
	}
	return 0;
}

double gemm_tflops(long m, long n, long k, double us)
{
	return 2.0 * (double)m * (double)n * (double)k / (us * 1e-6) / 1e12;
}

void gemmtab_set_peaks(struct calib *c)
{
	const char *label;
	double best[DT_COUNT] = {0}, best_copy = 0;
	if (gemmtab_datasheet(c->id.gpu_name, c->peak_tflops, &c->hbm_gbps, &label)) {
		snprintf(c->peak_source, sizeof c->peak_source, "datasheet: %s", label);
		snprintf(c->hbm_source, sizeof c->hbm_source, "datasheet: %s", label);
		return;
	}
	for (int i = 0; i < c->ngemm; i++) {
		const struct cal_gemm_pt *p = &c->gemm[i];
		if (p->us > 0)
			best[p->dt] = fmax(best[p->dt], gemm_tflops(p->m, p->n, p->k, p->us));
	}
	for (int d = 0; d < DT_COUNT; d++)
		c->peak_tflops[d] = best[d];
	snprintf(c->peak_source, sizeof c->peak_source,
		 "measured: best GEMM of the sweep per dtype (GPU not in gpusim's datasheet table)");
	for (int i = 0; i < c->nmem; i++)
		if (c->mem[i].us > 0)
			best_copy = fmax(best_copy, c->mem[i].bytes / (c->mem[i].us * 1e3));
	c->hbm_gbps = best_copy;
	snprintf(c->hbm_source, sizeof c->hbm_source,
		 "measured: best memory-bound kernel (GPU not in gpusim's datasheet table)");
}

void gemmtab_release(struct gemmtab *t)
{
	free(t->eff);
	t->eff = NULL;
}

int gemmtab_build(const struct calib *c, enum dtype dt, struct gemmtab *t)
{
	const struct cal_grid *g = &c->grid[dt];
	int total = g->nm * g->nn * g->nk;
	double peak = c->peak_tflops[dt];
	bool *have;
	memset(t, 0, sizeof *t);
	t->dt = dt;
	if (total == 0 || !(peak > 0))
		return GS_EINVAL;
	t->nm = g->nm;
	t->nn = g->nn;
	t->nk = g->nk;
	for (int i = 0; i < g->nm; i++) t->m[i] = (double)g->m[i];
	for (int i = 0; i < g->nn; i++) t->n[i] = (double)g->n[i];
	for (int i = 0; i < g->nk; i++) t->k[i] = (double)g->k[i];
	t->eff = calloc((size_t)total, sizeof *t->eff);
	have = calloc((size_t)total, sizeof *have);
	if (!t->eff || !have) {
		free(have);
		gemmtab_release(t);
		return GS_ENOMEM;
	}
	int nhave = 0;
	for (int a = 0; a < g->nm; a++)
		for (int b = 0; b < g->nn; b++)
			for (int k = 0; k < g->nk; k++) {
				const struct cal_gemm_pt *p = calib_find_gemm(c, dt, g->m[a], g->n[b], g->k[k]);
				int i = (a * g->nn + b) * g->nk + k;
				if (!p)
					continue;
				double e = gemm_tflops(p->m, p->n, p->k, p->us) / peak;
				if (e > GEMMTAB_EFF_MAX) {
					e = GEMMTAB_EFF_MAX;
					t->nclamped++;
				}
				t->eff[i] = e;
				t->max_eff = fmax(t->max_eff, e);
				have[i] = true;
				nhave++;
			}
	if (nhave == 0) {
		free(have);
		gemmtab_release(t);
		return GS_EINVAL;
	}
	/* fill the holes (a shape that failed, a run stopped early) from the nearest measured point */
	for (int a = 0; a < g->nm; a++)
		for (int b = 0; b < g->nn; b++)
			for (int k = 0; k < g->nk; k++) {
				int i = (a * g->nn + b) * g->nk + k;
				double bestd = INFINITY;
				if (have[i])
					continue;
				t->nmissing++;
				for (int a2 = 0; a2 < g->nm; a2++)
					for (int b2 = 0; b2 < g->nn; b2++)
						for (int k2 = 0; k2 < g->nk; k2++) {
							int j = (a2 * g->nn + b2) * g->nk + k2;
							if (!have[j])
								continue;
							double d = fabs(log2(t->m[a] / t->m[a2])) +
								   fabs(log2(t->n[b] / t->n[b2])) +
								   fabs(log2(t->k[k] / t->k[k2]));
							if (d < bestd) {
								bestd = d;
								t->eff[i] = t->eff[j];
							}
						}
			}
	free(have);
	return 0;
}

int gemmtab_model(const struct gemmtab *t, double *max_eff, double *k_half)
{
	double k[CAL_MAX_AXIS], e[CAL_MAX_AXIS];
	int n = 0;
	if (!t->eff || t->nk < 2)
		return GS_EINVAL;
	for (int i = 0; i < t->nk; i++) {
		k[n] = t->k[i];
		e[n] = t->eff[((t->nm - 1) * t->nn + (t->nn - 1)) * t->nk + i];
		n++;
	}
	return fit_gemm_model(k, e, n, max_eff, k_half);
}
