/* runcoll: the collectives phase of a calibration run (calibrate/runcoll.h): every NCCL collective over
 * groups of 2 to all GPUs of the node (one process, runcoll_local) or over MPI groups inside a node and across
 * nodes (runcoll_mpi), each series the median of trials of back-to-back operations sized by the plan, and the
 * GEMM/all-reduce overlap on the largest group. A group is a gb_comm plus, under MPI, the sub-communicator that
 * reduces its times (the slowest rank's). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "calibrate/calib.h"
#include "calibrate/mpiboot.h"
#include "calibrate/plan.h"
#include "calibrate/runcoll.h"
#include "calibrate/runstate.h"
#include "cuda/gpubench.h"
#include "util/diag.h"
#include "util/gserr.h"

struct group {
	struct gb_comm *comm;
	struct calmpi_group *mg;  /* MPI only */
	int n;
};

static int group_max(struct group *g, double *v, int n)
{
#ifdef GPUSIM_HAVE_MPI
	if (g->mg)
		return calmpi_max(g->mg, v, n);
#else
	(void)g;
	(void)v;
	(void)n;
#endif
	return 0;
}

/* gb_overlap_time's agree hook: the max over the group's ranks (a no-op in one process) */
static int agree_max(void *ctx, double *v, int n)
{
	return group_max(ctx, v, n);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int measure_series(struct run *r, struct group *g, enum coll_scope sc, enum coll_op op)
{
	const struct cal_plan *p = &r->plan;
	struct cal_series *s = calib_add_series(&r->c);
	double prev = 0, tr[32];
	int rc;
	if (!s)
		return GS_ENOMEM;
	s->scope = sc;
	s->op = op;
	s->n = g->n;
	for (int i = 0; i < p->ncoll && s->npts < CAL_MAX_PTS; i++) {
		double b = gb_coll_bytes(op, g->n, p->coll_bytes[i]), est;
		int iters, trials = p->coll_trials < 32 ? p->coll_trials : 32;
		if (b <= prev)
			continue;
		prev = b;
		run_progress(r, i == 0, "%s %s n=%d %.0f B", cal_scope_name(sc), cal_op_name(op), g->n, b);
		if ((rc = gb_coll_time(g->comm, op, b, 2, 3, 1, &est)) || (rc = group_max(g, &est, 1)))
			return rc;
		iters = (int)fmin(p->coll_max_iters, fmax(p->coll_min_iters, ceil(p->coll_target_us / est)));
		if ((rc = gb_coll_time(g->comm, op, b, p->coll_warmup, iters, trials, tr)) ||
		    (rc = group_max(g, tr, trials)))
			return rc;
		qsort(tr, (size_t)trials, sizeof *tr, cmp_double);
		s->bytes[s->npts] = b;
		s->us[s->npts] = trials % 2 ? tr[trials / 2] : 0.5 * (tr[trials / 2 - 1] + tr[trials / 2]);
		s->min_us[s->npts] = tr[0];
		s->max_us[s->npts] = tr[trials - 1];
		s->npts++;
	}
	return 0;
}

static double coll_max_bytes(const struct cal_plan *p)
{
	double m = p->ov_bytes;
	for (int i = 0; i < p->ncoll; i++)
		m = fmax(m, p->coll_bytes[i]);
	return m;
}

static int overlap(struct run *r, struct group *g, const int *devs, int nlocal)
{
	struct gb_gemm *gg[GB_MAX_GPUS] = {0};
	struct gb_overlap ov;
	const struct cal_plan *p = &r->plan;
	int rc = 0;
	for (int i = 0; i < nlocal && !rc; i++)
		rc = gb_gemm_new(devs[i], (double)p->ov_m * p->ov_k, (double)p->ov_k * p->ov_n,
				 (double)p->ov_m * p->ov_n, &gg[i]);
	/* the all-reduce beside GEMMs fills the model's overlap slowdowns; the all-gather beside them (the pattern
	 * of TP-communication overlap, issue 13) is kept in meta for the multi-GPU validation (issue 18) */
	static const enum coll_op ops[2] = {COLL_ALL_REDUCE, COLL_ALL_GATHER};
	struct cal_overlap *dst[2] = {&r->c.overlap, &r->c.overlap_ag};
	for (int j = 0; j < 2 && !rc; j++) {
		rc = gb_overlap_time(gg, g->comm, DT_BF16, p->ov_m, p->ov_n, p->ov_k, ops[j], p->ov_bytes, agree_max, g,
				     &ov);
		double v[4] = {ov.gemm_us, ov.gemm_busy_us, ov.comm_us, ov.comm_busy_us};
		if (!rc)
			rc = group_max(g, v, 4);
		if (!rc)
			*dst[j] = (struct cal_overlap){true, DT_BF16, p->ov_m, p->ov_n, p->ov_k,
						       gb_coll_bytes(ops[j], g->n, p->ov_bytes), g->n,
						       v[0], v[1], v[2], v[3], 0};
	}
	for (int i = 0; i < nlocal; i++)
		gb_gemm_free(gg[i]);
	return rc;
}

/* Keep every GPU of the group busy for about target_us with 64 MiB all-reduces. A GPU that sat idle (all but
 * GPU 0 during the GEMM sweep) runs at a low clock, and small collectives measured then take half as long again
 * as in a training step, where the GPUs are busy (seen on two H200s: 15-17 us instead of 11 us at 8 B, and
 * sizes measured while the clock ramped came out non-monotone). */
static int warm_up(struct group *g, double target_us)
{
	double t;
	int rc;
	if ((rc = gb_coll_time(g->comm, COLL_ALL_REDUCE, 67108864.0, 1, 2, 1, &t)) || (rc = group_max(g, &t, 1)))
		return rc;
	int iters = (int)fmin(2000.0, fmax(2.0, ceil(target_us / t)));
	return gb_coll_time(g->comm, COLL_ALL_REDUCE, 67108864.0, 0, iters, 1, &t);
}

static int group_series(struct run *r, struct group *g, enum coll_scope sc, bool check)
{
	int rc = 0;
	if (check && (rc = gb_coll_check(g->comm))) {
		diag_errorf("nccl collectives on %d GPUs gave wrong results", g->n);
		return rc;
	}
	for (int op = 0; op < COLL_NOPS && !rc; op++) {
		if ((rc = warm_up(g, op == 0 ? 400000 : 60000)))
			break;
		rc = measure_series(r, g, sc, (enum coll_op)op);
	}
	return rc;
}

int runcoll_local(struct run *r)
{
	int devs[GB_MAX_GPUS], rc = 0;
	for (int i = 0; i < r->ngpus; i++)
		devs[i] = i;
	for (int n = 2; n <= r->ngpus && !rc; n++) {
		struct group g = {NULL, NULL, n};
		if ((rc = gb_comm_new_local(devs, n, coll_max_bytes(&r->plan), &g.comm)))
			break;
		rc = group_series(r, &g, SCOPE_INTRA, true);
		if (!rc && n == r->ngpus) {
			double t = run_now_s();
			rc = overlap(r, &g, devs, n);
			snprintf(r->phases + strlen(r->phases), sizeof r->phases - strlen(r->phases),
				 "%soverlap %.1f s", r->phases[0] ? ", " : "", run_now_s() - t);
		}
		gb_comm_free(g.comm);
	}
	return rc;
}

#ifdef GPUSIM_HAVE_MPI
/* One group of the world: members build an NCCL communicator from group rank 0's id. Collective over the world. */
static int mpi_group(struct run *r, bool member, enum coll_scope sc, bool do_overlap)
{
	struct group g = {NULL, NULL, 0};
	int grank = 0, gsize = 0, rc;
	unsigned char id[GB_NCCL_ID_BYTES];
	run_progress(r, true, "mpi group (%s, member %d)", cal_scope_name(sc), member);
	if ((rc = calmpi_split(member, &g.mg, &grank, &gsize)))
		return rc;
	if (member) {
		g.n = gsize;
		run_progress(r, true, "nccl communicator of %d ranks (group rank %d, GPU %d)", gsize, grank, r->dev);
		if (grank == 0)
			rc = gb_nccl_unique_id(id);
		if (!rc)
			rc = calmpi_bcast(g.mg, id, sizeof id);
		if (!rc)
			rc = gb_comm_new_rank(id, gsize, grank, r->dev, coll_max_bytes(&r->plan), &g.comm);
		if (!rc)
			rc = group_series(r, &g, sc, true);
		if (!rc && do_overlap)
			rc = overlap(r, &g, &r->dev, 1);
		gb_comm_free(g.comm);
		calmpi_free(g.mg);
		if (rc) {
			/* the other members may be blocked inside NCCL or MPI: end the job, keeping what rank 0 has */
			diag_errorf("rank %d: calibration failed inside a group; ending all ranks", r->mi.rank);
			return rc;
		}
	}
	return calmpi_barrier();
}

int runcoll_mpi(struct run *r)
{
	int rc = 0;
	for (int n = 2; n <= r->mi.local_size_min && !rc; n++)
		rc = mpi_group(r, r->mi.node == 0 && r->mi.local_rank < n, SCOPE_INTRA, n == r->mi.local_size_min);
	for (int n = 2; n <= r->mi.nodes && !rc; n++)
		rc = mpi_group(r, r->mi.local_rank == 0 && r->mi.node < n, SCOPE_INTER,
			       r->mi.local_size_min < 2 && n == r->mi.nodes);
	return rc;
}
#endif
