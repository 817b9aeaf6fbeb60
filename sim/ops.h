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

/* A compute op, or a collective on the compute stream: over the TP group (all-reduce, all-gather) or the EP
 * group (the MoE all-to-all), or the CP group (context parallelism's all_gather variant). bytes follow the
 * nccl-tests convention of hwmodel.h.
 * OPK_SIDE_*: a transfer on the rank's side channel (INS_SIDE), issued where it stands in the list: it starts once
 * the compute stream has done every op before it and the side channel its earlier transfers; the compute ops
 * after it overlap it until an OPK_SIDE_WAIT, where the compute stream waits for every side transfer issued so
 * far (sim/overlap.h). */
enum opkind {
	OPK_COMPUTE, OPK_TP_ALLREDUCE, OPK_TP_ALLGATHER, OPK_TP_REDUCESCATTER, OPK_EP_ALLTOALL,
	OPK_CP_ALLGATHER, OPK_CP_REDUCESCATTER,   /* blocking, over the CP group */
	OPK_SIDE_TP_P2P,                          /* one hop of a ring over the TP group: bytes to the next rank */
	OPK_SIDE_TP_ALLGATHER, OPK_SIDE_TP_REDUCESCATTER,  /* bulk overlap: a whole collective over TP */
	OPK_SIDE_CP_P2P,                          /* one hop of the K/V ring over the CP group */
	OPK_SIDE_WAIT,                            /* the compute stream waits for the side channel */
};

struct opcost {
	const char *name;   /* static */
	enum opkind kind;
	double s;           /* OPK_COMPUTE: seconds; a collective or transfer: its time once build.c has timed it */
	double bytes;       /* collectives: bytes all-reduced / gathered over TP, or each rank's all-to-all buffer */
	bool compute_bound; /* a GEMM or attention core, whose rate follows the SM clock; else memory-bound */
	double solo;        /* OPK_COMPUTE inside an overlap window: its time alone, before the SM-sharing slowdown
			     * build.c adds (0: as s) */
	int hops;           /* OPK_SIDE_TP_P2P / OPK_SIDE_CP_P2P: ring hops in a row, bytes/hops each (0: one) */
	double host;        /* OPK_COMPUTE: the host's seconds to issue it (ops_price_host, by class); 0 otherwise (the
			     * builder prices collectives with host_cost.coll) */
	bool at_max;        /* an attention core timed at the maximum SM clock that slows by the entry's
			     * clock_exponent as the GEMMs' clock falls (OPCLK_MAX; compute_bound is then false) */
};

/* How an op's time follows the SM clock that the power model sets (sim/predict.c). */
enum op_clock {
	OPCLK_FIXED,   /* not at all: memory-bound, or an attention core at the maximum clock (clock: max) */
	OPCLK_SCALED,  /* as the GEMMs: compute_bound */
	OPCLK_MAX,     /* from its maximum-clock time by (v / burst_speedup)^clock_exponent: at_max */
};

/* Whether an op runs on the side channel (OPK_SIDE_TP_P2P .. OPK_SIDE_CP_P2P). */
static inline bool ops_is_side(enum opkind k)
{
	return k >= OPK_SIDE_TP_P2P && k <= OPK_SIDE_CP_P2P;
}

struct opctx {
	const struct hwmodel *hw;
	const struct scenario *sc;
	int tp;
	double tokens;       /* micro_batch * seq / cp (scenario_rank_tokens) */
	double host_k;       /* ops_host_rank_factor(hw, sc), computed once by the builder; 0: computed per call;
			      * OPS_NO_HOST: every op's host time left 0 (the planner's time bound counts none) */
};
#define OPS_NO_HOST (-1.0)

/* An op list's capacity: TP overlap splits four GEMMs in up to OVERLAP_MAX_CHUNKS chunks with a transfer and a
 * wait each, the CP ring runs up to 64 steps of four ops (forward, and backward with its recomputed forward) */
#define OPS_MAX 1024

/* Host time, in seconds, to issue work in the scenario's execution mode (training.execution picks host.<mode> of
 * the hardware model; training.host_us_per_op overrides op, coll, accum and opt and zeroes mb):
 *   op     = op_us + launch_us                  one op and its kernel (an op the builder makes itself)
 *   coll   = op_us + coll_us + group_us         a TP collective or pipeline send: the call and its enqueue on
 *                                               a group of 2 or more ranks
 *   bucket = bucket_us + coll_us + group_us     a DDP bucket: the reducer's hook and its all-reduce call
 *   step   = step_us                            once per step, before the first op
 *   mb     = backward_us                        once per micro-batch, before its backward: the backward() call
 *   fwd    = graph_us                           once per micro-batch and model chunk, before its forward: a
 *                                               compiled forward graph's call (0 otherwise: nothing issued)
 *   accum  = op (0 with accum_us measured)      the builder's grad_accumulate op: with accum_us, each parameter
 *                                               tensor's AccumulateGrad is priced on the op making its gradient
 *   opt    = opt_us, else op                    the builder's optimizer op
 * The ops of the op lists carry their own host time (struct opcost.host, ops_price_host). */
struct host_cost {
	double step, op, coll, bucket, mb, fwd, accum, opt;
	double grad_hook;  /* a kernel a C++ hook of backward launches per parameter tensor (DDP's bucket copies):
	                    * accum_us where measured (AccumulateGrad's: the same kind of call), else op */
	double sub_fwd, sub_bwd;  /* a compiled DDP module's subgraph beyond the first (sim/ddpsplit.h), forward and
	                           * backward: subgraph_us and bwd_subgraph_us where measured, else fwd and mb */
};
void ops_host_cost(const struct hwmodel *hw, const struct scenario *sc, struct host_cost *out);
/* E[max of n independent standard normals] (0 for n < 2; 0.5642 for 2, 1.0294 for 4, 1.4236 for 8, 3.2414 for
 * 1,000). */
double ops_max_normal(int n);
/* What every host cost of the job is multiplied by: 1 + host.<mode>.rank_spread * ops_max_normal(GPUs), a
 * synchronous step going at its slowest process (hardware/hwmodel.h, rank_spread); 1 where not measured or on one
 * GPU. Applied by ops_host_cost and ops_price_host. */
double ops_host_rank_factor(const struct hwmodel *hw, const struct scenario *sc);
/* The parameter tensors whose gradient op `name` of a backward pass makes (a wgrad, a bias gradient, the
 * embedding's backward: 1; a norm's backward: LayerNorm's weight and bias 2, RMSNorm's 1; a recompute op and any
 * other op: 0): the AccumulateGrad calls and DDP's per-tensor bucket copies it brings. */
int ops_grad_tensors(const struct opctx *c, const char *name);
/* Sets out[i].host for the ops of a list from `from` to n and returns n: by class (docs/hardware-model.md, host),
 * each class's key of host.<mode>, where 0 op_us + launch_us:
 *   forward   a GEMM (gemm_us; gemm2d_us for an MLP or dense layer list, whose activations are 2-D), the
 *             attention core (attn_us), a norm (norm_us), any other op (op_us + launch_us)
 *   backward  a GEMM's dgrad or wgrad (bwd_gemm_us / bwd_gemm2d_us), the attention core's (bwd_attn_us), any
 *             other kernel (bwd_op_us)
 *   plus accum_us for each parameter tensor whose gradient the op makes (a wgrad, a norm's backward: weight and
 *   LayerNorm's bias, a bias gradient, the embedding's backward).
 * Where the mode gives a compiled graph's kernel keys (kernel_us, kernel2d_us, bwd_kernel_us, bwd_kernel2d_us:
 * host.compiled measured), every op is one kernel of a graph instead, whatever its class: kernel_us forward,
 * bwd_kernel_us backward (the 2d keys for an MLP or dense layer list; a key not given takes its other family's,
 * backward and forward each other's), plus the accum_us above.
 * bwd: the list is a backward pass (an op named "*recompute*" in it is a forward op). Collectives and side
 * transfers get 0. training.host_us_per_op, when given, is every op's host time. */
int ops_price_host(const struct opctx *c, struct opcost *out, int from, int n, int bwd);
/* ops_price_host over a layer's whole list (ops_layer_fwd, ops_layer_bwd): where the compiled mode also gives the
 * kernels its layer's graph launches (host.compiled.layer_kernels, bwd_layer_kernels; the 2d keys for an MLP or
 * dense layer), the layer's graph costs kernel_us x that count, spread evenly over the list's ops of that graph,
 * instead of one kernel per op (inductor fuses and splits differently from gpusim's op list); an expert (MoE)
 * layer, unlike the probe's dense ones, keeps one kernel an op. */
int ops_price_layer_host(const struct opctx *c, struct opcost *out, int n, int bwd);

double ops_gemm_s(const struct hwmodel *hw, enum dtype dt, double m, double n, double k);
double ops_mem_s(const struct hwmodel *hw, double bytes);
/* A memory-bound kernel of family f (gpu.kernels) moving `bytes` as the op model counts them: the family's
 * measured time at that size (hwmodel_kern_us) and the GPU's gap before the next kernel; a family the model does
 * not measure (or KF_COPY) costs ops_mem_s. */
double ops_kern_s(const struct hwmodel *hw, enum kern_family f, double bytes);
/* The fixed cost a GEMM (ops_gemm_overhead_s) or another compute kernel timed alone (ops_kernel_overhead_s: the
 * attention core) adds on the GPU's timeline: gpu.launch_us; with gpu.kernels none for a GEMM (its table times
 * back-to-back products, each holding one gap) and gap_us for the others. */
double ops_gemm_overhead_s(const struct hwmodel *hw);
double ops_kernel_overhead_s(const struct hwmodel *hw);
/* Attention core (scores, softmax, weighted sum) of one micro-batch on one TP rank. */
double ops_attn_s(const struct opctx *c, int backward);
/* The hardware model's attention entry the model runs (unfused, fused flash, or cuDNN's), and how its core
 * follows the SM clock (gpu.power): as a GEMM does (OPCLK_SCALED), not at all (OPCLK_FIXED: clock: max), or by the
 * entry's clock_exponent from its maximum-clock rate (OPCLK_MAX: clock: max with a measured power). */
enum attn_path ops_attn_path(const struct model_cfg *m);
enum op_clock ops_attn_clock(const struct opctx *c);

/* Building blocks for op lists written outside ops.c (sim/moe.c): append one op at out[n] and return n + 1.
 * ops_put_coll appends nothing for a TP collective when tp < 2. */
int ops_put(struct opcost *out, int n, const char *name, double s, bool compute_bound);
/* An attention core's op, its clock class from ops_attn_clock. */
int ops_put_attn(struct opcost *out, int n, const char *name, double s, enum op_clock clk);
int ops_put_coll(const struct opctx *c, struct opcost *out, int n, enum opkind kind, const char *name, double bytes);
/* The FFN activation over rows x f outputs (GeLU, or SwiGLU over the two halves of the fc1 output: eager kernel
 * by kernel or fused when compiled), forward or backward. */
int ops_ffn_act(const struct opctx *c, struct opcost *out, int n, double rows, double f, int bwd);
/* training.fp8: quantize `elems` elements before an FP8 GEMM (with current scaling their amax pass first);
 * nothing without FP8. */
int ops_quantize(const struct opctx *c, struct opcost *out, int n, const char *name, double elems);

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
