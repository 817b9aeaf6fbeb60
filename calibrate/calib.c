/* calib: the measurement record's lifecycle, lookups, names and the fit of every collective series. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "calibrate/calib.h"

void calib_init(struct calib *c)
{
	memset(c, 0, sizeof *c);
	c->id.nvlinks = -1;
	c->id.nodes = 1;
	for (int i = 0; i < CAL_MAX_GPUS; i++)
		for (int j = 0; j < CAL_MAX_GPUS; j++)
			c->id.topo_nv[i][j] = -1;
}

void calib_release(struct calib *c)
{
	free(c->gemm);
	free(c->series);
	c->gemm = NULL;
	c->series = NULL;
	c->ngemm = c->gemm_cap = c->nseries = c->series_cap = 0;
}

static void *grow(void *p, int *cap, size_t elem)
{
	int ncap = *cap ? 2 * *cap : 64;
	void *q = realloc(p, (size_t)ncap * elem);
	if (q)
		*cap = ncap;
	return q;
}

struct cal_gemm_pt *calib_add_gemm(struct calib *c)
{
	if (c->ngemm == c->gemm_cap) {
		void *q = grow(c->gemm, &c->gemm_cap, sizeof *c->gemm);
		if (!q)
			return NULL;
		c->gemm = q;
	}
	struct cal_gemm_pt *p = &c->gemm[c->ngemm++];
	memset(p, 0, sizeof *p);
	return p;
}

struct cal_series *calib_add_series(struct calib *c)
{
	if (c->nseries == c->series_cap) {
		void *q = grow(c->series, &c->series_cap, sizeof *c->series);
		if (!q)
			return NULL;
		c->series = q;
	}
	struct cal_series *s = &c->series[c->nseries++];
	memset(s, 0, sizeof *s);
	return s;
}

const struct cal_gemm_pt *calib_find_gemm(const struct calib *c, enum dtype dt, long m, long n, long k)
{
	for (int i = c->ngemm - 1; i >= 0; i--) {
		const struct cal_gemm_pt *p = &c->gemm[i];
		if (p->dt == dt && p->m == m && p->n == n && p->k == k && p->us > 0)
			return p;
	}
	return NULL;
}

const char *cal_dtype_name(enum dtype dt)
{
	static const char *const names[DT_COUNT] = {"fp32", "tf32", "bf16", "fp16", "fp8"};
	return (unsigned)dt < DT_COUNT ? names[dt] : "?";
}

const char *cal_op_name(enum coll_op op)
{
	static const char *const names[COLL_NOPS] = {"all_reduce", "all_gather", "reduce_scatter", "broadcast",
						     "send_recv", "all_to_all"};
	return (unsigned)op < COLL_NOPS ? names[op] : "?";
}

const char *cal_scope_name(enum coll_scope sc)
{
	return sc == SCOPE_INTER ? "inter" : "intra";
}

double cal_busfactor(enum coll_op op, int n)
{
	switch (op) {
	case COLL_ALL_REDUCE: return 2.0 * (n - 1) / n;
	case COLL_ALL_GATHER: case COLL_REDUCE_SCATTER: case COLL_ALL_TO_ALL: return (double)(n - 1) / n;
	default: return 1.0;
	}
}

void calib_fit(struct calib *c, FILE *f)
{
	for (int i = 0; i < c->nseries; i++) {
		struct cal_series *s = &c->series[i];
		s->fitted = fit_envelope(s->bytes, s->us, s->npts, cal_busfactor(s->op, s->n), FIT_MAX_LINES,
					 &s->fit) == 0;
		if (!f)
			continue;
		if (!s->fitted) {
			fprintf(f, "gpusim: calibrate: %s %s n=%d: no fit (%d points)\n", cal_scope_name(s->scope),
				cal_op_name(s->op), s->n, s->npts);
			continue;
		}
		fprintf(f, "calibrate: fit %s %-14s n=%d: %d line%s, relative error median %.1f%% max %.1f%% "
			"over %.0f B..%.0f B\n", cal_scope_name(s->scope), cal_op_name(s->op), s->n, s->fit.nlines,
			s->fit.nlines == 1 ? "" : "s", 100 * s->fit.median_rel_err, 100 * s->fit.max_rel_err,
			s->bytes[0], s->bytes[s->npts - 1]);
		int lo, hi;
		if (s->fit.median_rel_err > CAL_FIT_WARN && cal_series_drop(s, &lo, &hi) > 1 + CAL_FIT_WARN)
			fprintf(f, "calibrate: warning: %s %s n=%d is faster at %.0f B (%.1f us) than at %.0f B (%.1f us): "
				"a disturbed point or a change of NCCL's algorithm, which no envelope of lines follows; "
				"predictions of these collectives carry the %.0f%% median misfit\n", cal_scope_name(s->scope),
				cal_op_name(s->op), s->n, s->bytes[hi], s->us[hi], s->bytes[lo], s->us[lo],
				100 * s->fit.median_rel_err);
	}
}

double cal_series_drop(const struct cal_series *s, int *lo, int *hi)
{
	double worst = 1;
	int a = 0, b = 0;
	for (int i = 0; i < s->npts; i++)
		for (int j = i + 1; j < s->npts; j++)
			if (s->us[j] > 0 && s->bytes[j] > s->bytes[i] && s->us[i] / s->us[j] > worst)
				worst = s->us[i] / s->us[j], a = i, b = j;
	*lo = a;
	*hi = b;
	return worst;
}

int calib_node_gpus(const struct calib *c)
{
	return c->id.host_gpus > c->id.ngpus ? c->id.host_gpus : c->id.ngpus;
}

double calib_attn_flops(const struct cal_attn_pt *a)
{
	return 4.0 * a->bh * (double)a->seq * a->seq * a->head_dim;
}

void calib_nccl_version(char *buf, size_t len, int v)
{
	/* NCCL >= 2.9: major*10000 + minor*100 + patch */
	if (v <= 0)
		snprintf(buf, len, "unknown");
	else
		snprintf(buf, len, "%d.%d.%d", v / 10000, (v / 100) % 100, v % 100);
}

bool cal_series_disturbed(double median_us, double min_us)
{
	return min_us > 0 && median_us > CAL_SERIES_SPREAD * min_us;
}

bool cal_series_better(double a_median_us, double b_median_us)
{
	return b_median_us > 0 && (!(a_median_us > 0) || b_median_us < a_median_us);
}

int cal_gemm_dominating(const struct calib *c, int i)
{
	const struct cal_gemm_pt *p = &c->gemm[i];
	int best = -1;
	if (!p->grid || !(p->us > 0))
		return -1;
	for (int j = 0; j < c->ngemm; j++) {
		const struct cal_gemm_pt *q = &c->gemm[j];
		if (j == i || !q->grid || q->dt != p->dt || q->m < p->m || q->n < p->n || q->k < p->k || !(q->us > 0))
			continue;
		if (q->us * CAL_DOMINATED < p->us && (best < 0 || q->us < c->gemm[best].us))
			best = j;
	}
	return best;
}

void calib_set_str(char *dst, size_t size, const char *s)
{
	size_t n = strlen(s);
	if (n >= size)
		n = size - 1;
	memmove(dst, s, n);
	dst[n] = 0;
}
