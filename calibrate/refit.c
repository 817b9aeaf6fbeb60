/* refit: `gpusim calibrate --refit DIR`: a model from raw measurements written earlier (--raw DIR), fitted and
 * written again without touching a GPU, so a new fitting method or base model never needs a new measurement, and
 * machines without CUDA can do it. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "calibrate/base.h"
#include "calibrate/calib.h"
#include "calibrate/gemmtab.h"
#include "calibrate/calmodel.h"
#include "calibrate/rawio.h"
#include "calibrate/run.h"
#include "util/gserr.h"

void calibrate_default_name(const char *gpu_name, int ngpus, char *buf, size_t len)
{
	char slug[32] = "gpu";
	const char *p = gpu_name;
	while (*p) {
		while (*p == ' ')
			p++;
		const char *t = p;
		bool digit = false;
		while (*p && *p != ' ') {
			digit |= isdigit((unsigned char)*p) != 0;
			p++;
		}
		if (digit && p > t) {
			size_t n = 0;
			for (const char *q = t; q < p && *q != '-' && n + 1 < sizeof slug; q++)
				if (isalnum((unsigned char)*q))
					slug[n++] = (char)tolower((unsigned char)*q);
			slug[n] = 0;
			break;
		}
	}
	snprintf(buf, len, "%sx%d-measured", slug[0] ? slug : "gpu", ngpus);
}

/* The grid points a measurement left slower than a larger product (cal_gemm_dominating), said once: kept as
 * measured here (a refit has no GPU to time them again; calibrate does since 2026-11-28). */
static void gemm_dominated_note(const struct calib *c)
{
	int n = 0, grid = 0, worst = -1, by = -1;
	for (int i = 0; i < c->ngemm; i++) {
		grid += c->gemm[i].grid;
		int j = cal_gemm_dominating(c, i);
		if (j < 0)
			continue;
		n++;
		if (worst < 0 || c->gemm[i].us / c->gemm[j].us > c->gemm[worst].us / c->gemm[by].us) {
			worst = i;
			by = j;
		}
	}
	if (n)
		fprintf(stderr, "calibrate: gemm: %d of %d grid series slower than a larger product by over %.2fx, kept as "
			"measured (the most: %s %ldx%ldx%ld at %.1f us, %ldx%ldx%ld at %.1f)\n", n, grid, CAL_DOMINATED,
			cal_dtype_name(c->gemm[worst].dt), c->gemm[worst].m, c->gemm[worst].n, c->gemm[worst].k,
			c->gemm[worst].us, c->gemm[by].m, c->gemm[by].n, c->gemm[by].k, c->gemm[by].us);
}

int calibrate_refit(const struct cal_opts *o)
{
	struct calib c;
	struct cal_base base;
	struct calmodel_opts yo;
	char out[1024], name[64];
	int rc;
	calib_init(&c);
	memset(&base, 0, sizeof base);
	if ((rc = rawio_read(&c, o->refit_dir)))
		goto done;
	if (o->base) {
		if ((rc = base_load(&base, o->base)))
			goto done;
	} else {
		const char *b = base_default(c.id.gpu_name);
		if (b && base_load(&base, b) == 0)
			fprintf(stderr, "calibrate: network and inter-node collectives from preset '%s' (--base to change)\n", b);
	}
	gemmtab_set_peaks(&c);
	gemm_dominated_note(&c);
	calib_fit(&c, stderr);
	calibrate_default_name(c.id.gpu_name, c.id.ngpus * (c.id.nodes > 0 ? c.id.nodes : 1), name, sizeof name);
	if (o->out) {
		const char *slash = strrchr(o->out, '/');
		snprintf(name, sizeof name, "%.63s", slash ? slash + 1 : o->out);
		if (strlen(name) > 5 && strcmp(name + strlen(name) - 5, ".yaml") == 0)
			name[strlen(name) - 5] = 0;
		snprintf(out, sizeof out, "%s", o->out);
	} else
		snprintf(out, sizeof out, "%s.yaml", name);
	yo.name = name;
	yo.base = &base;
	if ((rc = calmodel_write(&c, &yo, out)))
		goto done;
	if (o->raw_dir && (rc = rawio_write(&c, o->raw_dir)))
		goto done;
	fprintf(stderr, "calibrate: refitted %s into %s\n", o->refit_dir, out);
done:
	base_release(&base);
	calib_release(&c);
	return rc;
}
