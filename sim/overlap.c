/* overlap: side-channel transfers and TP communication overlap (see overlap.h). */
#include "sim/overlap.h"

#include "sim/fp8.h"

int overlap_put_side(struct opcost *out, int n, enum opkind kind, const char *name, double bytes)
{
	out[n] = (struct opcost){ name, kind, 0, bytes, false, 0, 0, 0, false };
	return n + 1;
}

int overlap_put_wait(struct opcost *out, int n)
{
	out[n] = (struct opcost){ "side_wait", OPK_SIDE_WAIT, 0, 0, false, 0, 0, 0, false };
	return n + 1;
}

bool overlap_tp(const struct opctx *c)
{
	return c->sc->par.tp_comm_overlap && c->sc->par.sp && c->tp > 1;
}

static int chunks(const struct opctx *c)
{
	return c->tp < OVERLAP_MAX_CHUNKS ? c->tp : OVERLAP_MAX_CHUNKS;
}

/* One of k chunks of a rows x n x k GEMM. Transformer Engine runs the chunk GEMMs on several compute streams,
 * so the tiles of consecutive chunks share the SMs' waves: a chunk takes 1/k of the whole GEMM's time (its
 * efficiency, as batched GEMMs in ops.c) plus a launch of its own. */
static double chunk_s(const struct opctx *c, int k, double rows, double gn, double gk)
{
	double launch = c->hw->gpu.launch_us * 1e-6;
	return (fp8_linear_gemm_s(c->hw, c->sc, rows, gn, gk) - launch) / k + launch;
}

static int put_gemm(struct opcost *out, int n, const char *name, double s)
{
	out[n] = (struct opcost){ name, OPK_COMPUTE, s, 0, true, 0, 0, 0, false };
	return n + 1;
}

static int put_ring(struct opcost *out, int n, const char *name, double bytes, int hops)
{
	n = overlap_put_side(out, n, OPK_SIDE_TP_P2P, name, bytes);
	out[n - 1].hops = hops;
	return n;
}

/* Ring exchange, step by step: hop i (chunk i+1 to this rank) starts once hop i-1 and GEMM chunk i-1 are done,
 * and chunk i+1 computes once hop i is done. With k equal chunks of g seconds and hops of h seconds the GEMM
 * ends at g + (k-1)*max(g, h) = max(k*g, g + (k-1)*h): the same as the k-1 hops in a row (one transfer of
 * (k-1)*h) beside the first k-1 chunks, then the last chunk. That form is emitted: one transfer, one wait. */
int overlap_ag_gemm(const struct opctx *c, struct opcost *out, int n, const char *gemm, const char *xfer,
		    double act_bytes, double rows, double gn, double gk)
{
	int k = chunks(c);
	double g = chunk_s(c, k, rows, gn, gk);
	n = put_ring(out, n, xfer, act_bytes * (k - 1) / k, k - 1);
	for (int i = 0; i + 1 < k; i++)
		n = put_gemm(out, n, gemm, g);
	n = overlap_put_wait(out, n);
	return put_gemm(out, n, gemm, g);
}

/* Reduce-scatter, step by step: after GEMM chunk i (i < k-1) its output goes to its owner (a hop of act/k)
 * while chunk i+1 computes; the last chunk is the rank's own. The last hop ends at g + (k-1)*max(g, h) when
 * hops queue, the GEMMs at k*g: as the k-1 hops in a row issued after the first chunk, beside the other k-1. */
int overlap_gemm_rs(const struct opctx *c, struct opcost *out, int n, const char *gemm, const char *xfer,
		    const char *sum, double act_bytes, double rows, double gn, double gk)
{
	int k = chunks(c);
	double g = chunk_s(c, k, rows, gn, gk);
	n = put_gemm(out, n, gemm, g);
	n = put_ring(out, n, xfer, act_bytes * (k - 1) / k, k - 1);
	for (int i = 1; i < k; i++)
		n = put_gemm(out, n, gemm, g);
	n = overlap_put_wait(out, n);
	/* the k partial sums of the rank's own chunk: read k chunks of act/k, write one */
	double s = ops_mem_s(c->hw, (k + 1) * act_bytes / k);
	out[n] = (struct opcost){ sum, OPK_COMPUTE, s, 0, false, 0, 0, 0, false };
	return n + 1;
}

int overlap_bulk(const struct opctx *c, struct opcost *out, int n, enum opkind kind, const char *name, double bytes)
{
	(void)c;
	return overlap_put_side(out, n, kind, name, bytes);
}

void overlap_slowdown(struct opcost *ops, int n, double cs, double ms)
{
	for (int i = 0; i < n; i++) {
		if (ops[i].kind == OPK_COMPUTE && ops[i].solo > 0)
			ops[i].s = ops[i].solo;  /* as alone, before this pass */
	}
	if (!(cs > 0) && !(ms > 0))
		return;
	for (int i = 0; i < n; i++) {
		if (!ops_is_side(ops[i].kind))
			continue;
		double w = 0;
		int j = i + 1;
		for (; j < n && ops[j].kind == OPK_COMPUTE; j++)
			w += ops[j].solo > 0 ? ops[j].solo : ops[j].s;
		double ov = ops[i].s < w ? ops[i].s : w;
		if (!(ov > 0))
			continue;
		for (int k = i + 1; k < j; k++) {
			if (!(ops[k].solo > 0))
				ops[k].solo = ops[k].s;
			ops[k].s += ops[k].solo / w * ov * cs;
		}
		ops[i].s += ov * ms;
	}
}

bool overlap_has_side(const struct opcost *ops, int n)
{
	for (int i = 0; i < n; i++)
		if (ops_is_side(ops[i].kind))
			return true;
	return false;
}

double overlap_buffer_bytes(const struct scenario *sc)
{
	if (!(sc->par.tp_comm_overlap && sc->par.sp && sc->par.tp > 1) || sc->model.type != MODEL_TRANSFORMER)
		return 0;
	return 10 * scenario_rank_tokens(sc) * sc->model.hidden * dtype_bytes(sc->model.dtype);
}

/* SP's collectives where a TP region opens (all-gather) and closes (reduce-scatter, or the all-reduce without SP),
 * as ops.c lays them out. */
static bool sp_on(const struct opctx *c)
{
	return c->sc->par.sp && c->tp > 1;
}

static int put_reduce(const struct opctx *c, struct opcost *out, int n, const char *ar, const char *rs, double act)
{
	return ops_put_coll(c, out, n, sp_on(c) ? OPK_TP_REDUCESCATTER : OPK_TP_ALLREDUCE, sp_on(c) ? rs : ar, act);
}

int overlap_gather_gemm(const struct opctx *c, struct opcost *out, int n, const char *ag, const char *xfer,
			const char *gemm, double act, double rows, double gn, double gk)
{
	if (overlap_tp(c))
		return overlap_ag_gemm(c, out, n, gemm, xfer, act, rows, gn, gk);
	if (sp_on(c))
		n = ops_put_coll(c, out, n, OPK_TP_ALLGATHER, ag, act);
	return put_gemm(out, n, gemm, fp8_linear_gemm_s(c->hw, c->sc, rows, gn, gk));
}

int overlap_gemm_reduce(const struct opctx *c, struct opcost *out, int n, const char *gemm, const char *ar,
			const char *rs, const char *xfer, const char *sum, double act, double rows, double gn, double gk)
{
	if (overlap_tp(c))
		return overlap_gemm_rs(c, out, n, gemm, xfer, sum, act, rows, gn, gk);
	n = put_gemm(out, n, gemm, fp8_linear_gemm_s(c->hw, c->sc, rows, gn, gk));
	return put_reduce(c, out, n, ar, rs, act);
}

int overlap_dgrad_wgrad(const struct opctx *c, struct opcost *out, int n, const char *dgrad, double dgrad_s,
			const char *wgrad, double wgrad_s, const char *ag, const char *ar, const char *rs, double act)
{
	if (!overlap_tp(c)) {
		n = put_gemm(out, n, dgrad, dgrad_s);
		n = put_gemm(out, n, wgrad, wgrad_s);
		return put_reduce(c, out, n, ar, rs, act);
	}
	n = overlap_bulk(c, out, n, OPK_SIDE_TP_ALLGATHER, ag, act);
	n = put_gemm(out, n, dgrad, dgrad_s);
	n = overlap_put_wait(out, n);
	n = overlap_bulk(c, out, n, OPK_SIDE_TP_REDUCESCATTER, rs, act);
	n = put_gemm(out, n, wgrad, wgrad_s);
	return overlap_put_wait(out, n);
}
