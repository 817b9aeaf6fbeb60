/* ops: the operations of one layer (and of the embedding, the output head and the optimizer) for one
 * micro-batch on one TP rank, each timed from the hardware model by shape and dtype, plus launch overhead.
 * Megatron's split: QKV and fc1 are column-parallel (output features / tp), proj and fc2 row-parallel
 * (input features / tp); a row-parallel output and a column-parallel input gradient need a TP all-reduce.
 * GEMM time = max(2mnk / (peak * eff(m,n,k)), bytes moved / HBM bandwidth) + launch. */
#ifndef OPS_H
#define OPS_H

#include <stdbool.h>
#include "scenario/scenario.h"
#include "hardware/hwmodel.h"

enum opkind { OPK_COMPUTE, OPK_TP_ALLREDUCE };

struct opcost {
	const char *name;   /* static */
	enum opkind kind;
	double s;           /* OPK_COMPUTE: seconds */
	double bytes;       /* OPK_TP_ALLREDUCE: bytes all-reduced over the TP group */
	bool compute_bound; /* a GEMM or attention core, whose rate follows the SM clock; else memory-bound */
};

struct opctx {
	const struct hwmodel *hw;
	const struct scenario *sc;
	int tp;
	double tokens;       /* micro_batch * seq */
};

#define OPS_MAX 64

/* Host time, in seconds, to issue work in the scenario's execution mode (training.execution picks host.<mode> of
 * the hardware model; training.host_us_per_op overrides op and coll):
 *   op     = op_us + launch_us                  one op and its kernel
 *   coll   = op_us + coll_us                    a TP collective or pipeline send: the call and its enqueue
 *   bucket = bucket_us + coll_us                a DDP bucket: the reducer's hook and its all-reduce call
 *   step   = step_us                            once per step, before the first op */
struct host_cost {
	double step, op, coll, bucket;
};
void ops_host_cost(const struct hwmodel *hw, const struct scenario *sc, struct host_cost *out);

double ops_gemm_s(const struct hwmodel *hw, enum dtype dt, double m, double n, double k);
double ops_mem_s(const struct hwmodel *hw, double bytes);
/* Attention core (scores, softmax, weighted sum) of one micro-batch on one TP rank. */
double ops_attn_s(const struct opctx *c, int backward);

/* Each fills out[] (at most OPS_MAX) in execution order and returns the count. recompute_attn adds the
 * attention core's forward to the backward (selective recompute). */
int ops_layer_fwd(const struct opctx *c, struct opcost *out);
int ops_layer_bwd(const struct opctx *c, int recompute_attn, struct opcost *out);
/* Dense layer l of a layer list (model.type dense): forward, and backward in execution order. */
int ops_dense_fwd(const struct opctx *c, int l, struct opcost *out);
int ops_dense_bwd(const struct opctx *c, int l, struct opcost *out);
int ops_embed_fwd(const struct opctx *c, struct opcost *out);
int ops_embed_bwd(const struct opctx *c, struct opcost *out);
int ops_head_fwd(const struct opctx *c, struct opcost *out);
int ops_head_bwd(const struct opctx *c, struct opcost *out);
/* Optimizer step over params (local to the GPU), as one memory-bound pass. */
double ops_optimizer_s(const struct opctx *c, double params);
/* Bytes per parameter the optimizer step reads and writes. */
double ops_optimizer_bytes_per_param(const struct scenario *sc);

#endif
