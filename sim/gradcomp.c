/* gradcomp: reduction dtype and compression hooks of the DP gradient reduction (see gradcomp.h). */
#include "sim/gradcomp.h"

#include <math.h>
#include "sim/ops.h"

bool gradcomp_on(const struct scenario *sc)
{
	return sc->par.gc.method != GC_NONE || sc->par.grad_reduce_dtype != sc->train.grad_dtype;
}

/* The hook's GEMMs run in the gradients' dtype (fp32 matmuls for fp32 gradients, PyTorch's default), or in the
 * model's where the hardware model has no rate for it. */
static double gemm_s(const struct scenario *sc, const struct hwmodel *hw, double m, double n, double k)
{
	enum dtype dt = hw->gpu.peak_tflops[sc->train.grad_dtype] > 0 ? sc->train.grad_dtype : sc->model.dtype;
	return ops_gemm_s(hw, dt, m, n, k);
}

void gradcomp_add_matrix(const struct scenario *sc, const struct hwmodel *hw, double n, double m,
			 struct gradcomp_bucket *b)
{
	b->elems += n * m;
	if (sc->par.gc.method != GC_POWERSGD)
		return;
	/* PyTorch's powerSGD_hook views each gradient of two or more dimensions as an n x m matrix M and keeps an
	 * m x r factor Q (warm-started from the last step): P = M Q, then Q = M^T P, M ~ P Q^T */
	double r = sc->par.gc.rank < n && sc->par.gc.rank < m ? sc->par.gc.rank : fmin(n, m);
	b->p += n * r;
	b->q += m * r;
	b->t_p += gemm_s(sc, hw, n, r, m);
	b->t_q += gemm_s(sc, hw, m, r, n);
	b->t_approx += gemm_s(sc, hw, n, m, r);
}

/* A layer's matrices on one TP rank, as gpusim's op lists run them (sim/ops.c): QKV (qkv/tp x h), the output
 * projection (h x h/tp), fc1 (f_in/tp x h) and fc2 (h x f/tp); an MLP layer only the last two; a dense layer
 * widths[l+1] x widths[l]. The rest of the layer's parameters (norm weights, biases) are vectors, sent
 * uncompressed. */
void gradcomp_add_layer(const struct scenario *sc, const struct hwmodel *hw, int tp, int l, struct gradcomp_bucket *b)
{
	const struct model_cfg *m = &sc->model;
	double before = b->elems, params;
	if (m->type == MODEL_DENSE) {
		gradcomp_add_matrix(sc, hw, m->widths[l + 1], m->widths[l], b);
		params = scenario_dense_layer_params(sc, l);
	} else {
		double h = m->hidden, f = (double)m->ffn_hidden / tp, f_in = m->ffn == FFN_SWIGLU ? 2 * f : f;
		if (m->type == MODEL_TRANSFORMER) {
			double qkv = (h + 2.0 * m->kv_heads * (h / m->heads)) / tp;
			gradcomp_add_matrix(sc, hw, qkv, h, b);
			gradcomp_add_matrix(sc, hw, h, h / tp, b);
		}
		gradcomp_add_matrix(sc, hw, f_in, h, b);
		gradcomp_add_matrix(sc, hw, h, f, b);
		params = scenario_params_per_layer(sc) / tp;
	}
	double vec = params - (b->elems - before);
	if (vec > 0) {
		b->vec += vec;
		b->elems += vec;
	}
}

/* Work of the hook's callbacks on the DP stream: PyTorch runs a communication future's callbacks with the
 * future's (the NCCL) stream current, so their kernels queue behind the collectives and beside the backward. */
static void dp_work(struct program *prog, const char *name, double s)
{
	program_side_op(prog, STREAM_DP, name, s, 0, CAT_DP, -1, -1);
}

static void coll(struct program *prog, const struct hwmodel *hw, enum coll_op op, double bytes, struct group_shape g,
		 const char *name)
{
	if (bytes > 0)
		program_coll(prog, STREAM_DP, GROUP_DP, comm_coll_s(hw, op, bytes, g), bytes, CAT_DP, name, -1, -1);
}

/* One kernel of s seconds on stream st; on the compute stream the host issues it (host_s, ops_host_cost's op). */
static void compute_op(struct program *prog, enum stream_kind st, const char *name, double s, double host_s)
{
	if (st != STREAM_COMPUTE) {
		program_side_op(prog, st, name, s, 0, CAT_DP, -1, -1);
		return;
	}
	program_op(prog, name, s, CAT_COMPUTE, -1, -1);
	program_add_time(prog, 1, s, host_s);
}

static double topk_k(const struct scenario *sc, const struct gradcomp_bucket *b)
{
	return ceil(sc->par.gc.ratio * b->elems);
}

/* On the compute stream, in the hook (before the bucket's first collective), e = gradient bytes per element:
 *   powersgd: error feedback M += E (read 2, write 1: 3e per element), the copy M0 kept for the new error (2e),
 *             P = M Q over the bucket's matrices;
 *   topk:     error feedback (3e), |M| (2e), the selection (torch.topk's radix select: about 4 reads, 4e) and the
 *             new error E = M with the sent entries zeroed (2e): 11e per element;
 *   a narrower grad_reduce_dtype alone: the cast into it (read e, write the reduce dtype's bytes). */
void gradcomp_bucket_compress(struct program *prog, const struct hwmodel *hw, const struct scenario *sc,
			      const struct gradcomp_bucket *b, enum stream_kind st)
{
	double e = dtype_bytes(sc->train.grad_dtype), rb = dtype_bytes(sc->par.grad_reduce_dtype);
	struct host_cost hc;
	ops_host_cost(hw, sc, &hc);
	switch (sc->par.gc.method) {
	case GC_POWERSGD:
		compute_op(prog, st, "powersgd_error_feedback", ops_mem_s(hw, 5 * b->elems * e), hc.op);
		compute_op(prog, st, "powersgd_p_gemm", b->t_p, hc.op);
		return;
	case GC_TOPK:
		compute_op(prog, st, "topk_select", ops_mem_s(hw, 11 * b->elems * e), hc.op);
		return;
	case GC_NONE:
		break;
	}
	if (rb != e)
		compute_op(prog, st, "grad_reduce_cast", ops_mem_s(hw, b->elems * (e + rb)), hc.op);
}

/* On the DP stream, r bytes per element of the reduce dtype:
 *   powersgd: all-reduce the vectors (vec r), all-reduce the P factors (p r), orthogonalize them (Gram-Schmidt,
 *             column by column: about 3 passes over n x (r - i) for column i, 3e p (r+1)/2 bytes), Q = M^T P,
 *             all-reduce the Q factors (q r), M = P Q^T, the new error E = M0 - M (3e per element);
 *   topk:     all-gather the k = ceil(ratio * elements) values (dp k r bytes) and their int64 indices (dp k 8),
 *             then zero the bucket and add the dp x k entries into it (e per element + dp k (r + 8 + e)), and
 *             divide by dp (2e per element);
 *   otherwise the plain collective of elements x r bytes, and the cast back when r differs (read r, write e;
 *   a reduce-scatter's output is the 1/dp shard). */
void gradcomp_bucket_emit(struct program *prog, const struct hwmodel *hw, const struct scenario *sc,
			  const struct gradcomp_bucket *b, struct group_shape g, enum coll_op op, const char *name)
{
	double e = dtype_bytes(sc->train.grad_dtype), rb = dtype_bytes(sc->par.grad_reduce_dtype);
	double r = sc->par.gc.rank, dp = g.n;
	switch (sc->par.gc.method) {
	case GC_POWERSGD:
		coll(prog, hw, COLL_ALL_REDUCE, b->vec * rb, g, "powersgd_allreduce_vectors");
		coll(prog, hw, COLL_ALL_REDUCE, b->p * rb, g, "powersgd_allreduce_p");
		dp_work(prog, "powersgd_orthogonalize_q_gemm", ops_mem_s(hw, 3 * e * b->p * (r + 1) / 2) + b->t_q);
		coll(prog, hw, COLL_ALL_REDUCE, b->q * rb, g, "powersgd_allreduce_q");
		dp_work(prog, "powersgd_decompress", b->t_approx + ops_mem_s(hw, 3 * b->elems * e));
		return;
	case GC_TOPK: {
		double k = topk_k(sc, b);
		coll(prog, hw, COLL_ALL_GATHER, dp * k * rb, g, "topk_allgather_values");
		coll(prog, hw, COLL_ALL_GATHER, dp * k * 8, g, "topk_allgather_indices");
		dp_work(prog, "topk_scatter_add", ops_mem_s(hw, 3 * b->elems * e + dp * k * (rb + 8 + e)));
		return;
	}
	case GC_NONE:
		break;
	}
	coll(prog, hw, op, b->elems * rb, g, name);
	if (rb != e) {
		double out = op == COLL_REDUCE_SCATTER ? b->elems / dp : b->elems;
		dp_work(prog, "grad_reduce_uncast", ops_mem_s(hw, out * (rb + e)));
	}
}

double gradcomp_state_bytes(const struct scenario *sc, double params, double q_elems)
{
	double e = dtype_bytes(sc->train.grad_dtype);
	switch (sc->par.gc.method) {
	case GC_POWERSGD: return (params + q_elems) * e;
	case GC_TOPK: return params * e;
	case GC_NONE: break;
	}
	return 0;
}
