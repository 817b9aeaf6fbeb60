/* build: stage programs from the scenario (see build.h). Placement is Megatron's: global rank
 * r = t + tp*(c + cp*(d + dp*s)) for TP index t, CP index c, DP replica d and stage s, so TP groups are innermost
 * (inside a node when tp <= GPUs per node), then CP, then DP, then PP; a group's collective pays network costs
 * when it spans nodes. All ranks of a stage share one program: times are computed for the stage's first rank
 * (d = c = t = 0); the CP ranks of a replica do the same work (sim/cp.h), so one stands for all of them and the
 * gradients are reduced over the dp*cp ranks that hold the same weights. */
#include "sim/build.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sim/comm.h"
#include "sim/cp.h"
#include "sim/ddpsplit.h"
#include "sim/fp8.h"
#include "sim/gradcomp.h"
#include "sim/memory.h"
#include "sim/moe.h"
#include "sim/ops.h"
#include "sim/overlap.h"
#include "sim/recompute.h"
#include "sim/schedule.h"
#include "util/diag.h"
#include "util/xalloc.h"

struct deferred {
	double bytes, expert;
	int tensors;
	struct gradcomp_bucket gcb;
};

/* The stage's own op lists (stage_list) and the two repeated layer passes, whose compute-bound time is counted
 * by passes (a tally) instead of added op by op: 70b_64gpu's stages pass ~100,000 layers each. */
enum { TALLY_FWD, TALLY_BWD, TALLY_EFWD, TALLY_EBWD, TALLY_HFWD, TALLY_HBWD, TALLY_RFWD, TALLY_LFWD, TALLY_LBWD,
       TALLY_N };
/* Seconds of the ops whose rate the power model moves (sim/predict.c): compute-bound ones (GEMMs, attention cores
 * that follow the GEMMs' clock) at their sustained rates, and attention cores timed at the maximum clock that
 * slow by their clock_exponent (ops.h, enum op_clock). */
struct clocked {
	double scaled, at_max;
};

static struct clocked clocked_add(struct clocked a, struct clocked b)
{
	return (struct clocked){ a.scaled + b.scaled, a.at_max + b.at_max };
}

static bool clocked_eq(struct clocked a, struct clocked b)
{
	return a.scaled == b.scaled && a.at_max == b.at_max;
}

struct tally {
	struct clocked s;         /* one pass's compute-bound seconds, in list order */
	long long n;              /* passes */
	bool set;                 /* s is this stage's (the lists are timed per stage: time_tp) */
};

struct ctx {
	const struct scenario *sc;
	const struct hwmodel *hw;
	struct program *prog;
	struct opctx oc;
	struct host_cost host;    /* host time per op, collective, bucket and step (ops_host_cost) */
	struct group_shape tp_shape, dp_shape, ep_shape, fp8_shape;  /* fp8_shape: the TP x CP x DP ranks of a stage;
								       * dp_shape: the dp*cp ranks of the gradients */
	struct group_shape cp_shape;   /* the CP group: cp ranks tp apart */
	int rdp;                  /* ranks that reduce gradients together: dp*cp (scenario_grad_ranks) */
	int p, v, m, s, Lv, last_j;
	int layer0;               /* v == 1: the stage's first global layer (the pipeline split may be uneven) */
	/* OPS_MAX each, in one block (lists): zeroing 400 kB of ctx on the stack cost more than a build's own work */
	struct opcost *fwd, *bwd, *efwd, *ebwd, *hfwd, *hbwd;
	int nfwd, nbwd, nefwd, nebwd, nhfwd, nhbwd;
	struct opcost *rfwd;      /* training.recompute op: the forward ops a layer's backward reruns first */
	int nrfwd;
	double pending_bytes;     /* gradients produced but not yet in a bucket */
	double copied_bytes;      /* gradients copied into DDP buckets (dp_bucket_copy), to copy back */
	int pending_tensors;      /* the parameter tensors of pending_bytes (DDP copies each on its own) */
	int copied_tensors;       /* of copied_bytes */
	int layer_tensors;        /* a layer's parameter tensors (its backward list's; dense layers count their own) */
	double pending_expert;    /* of pending_bytes, the routed experts' gradients (reduced over their EDP group) */
	struct group_shape edp_shape;  /* MoE: the ranks holding the same experts (moe_edp of them, ep*etp apart) */
	struct group_shape shard_shape, repl_shape;  /* ZeRO's shard group (parallel.shard_group of the DP replicas,
	                                              * adjacent) and the replicas of a shard (HSDP) */
	struct gradcomp_bucket gcb;  /* the open bucket's make-up, for a reduce dtype or compression hook */
	struct deferred *deferred;   /* buckets held back when dp_overlap is off */
	int ndeferred, capdeferred;
	struct clocked bound;     /* this stage's compute-bound op time per step (GEMMs, attention cores): the
	                           * lists built on the stack, in order; the stage's own lists are tallied */
	struct tally tally[TALLY_N];  /* passes over each of the stage's own lists (count_bound, count_layer) */
	double layer_params;      /* parameters of one layer on one GPU (layer_params_local) */
	struct clocked pass_fwd, pass_bwd;  /* a layer's compute-bound seconds, forward and backward, as the lists were made
	                             * (count_layer) */
	bool *rc;                 /* per local layer of the stage's chunks: its backward reruns its forward */
	int *run;                 /* per local layer l: layers l, l-1, ... whose backward is the same as l's */
	double *act, *transient;  /* per chunk: unit_act_bytes and loss_transient_bytes */
	double send_s[2];         /* a pipeline send's time forward and backward (send); 0: not yet timed */
	char key_layer_bwd;       /* its address names a layer's backward (program_repeat_*) */
	char key_layer_bwd_rc;    /* ... and one with its forward rerun first (full recompute) */
	int *reload_ev;           /* training.offload_layers: copy-stream event of each offloaded layer's reload */
	int *pg_ev;               /* overlap_param_gather: DP-stream event of each of the stage's v*Lv layers' gather */
	bool *pg_done;            /* per chunk: its first forward has waited for the gathers */
	int graphs;               /* compiled DDP: the stage's subgraphs (compiled_ddp_graphs), else 1 */
	double fwd0_host, bwd0_host;  /* a layer's first forward and backward op's own host time, before the share
	                               * of the subgraphs' calls a stage adds to it (stage_graph_calls) */
};

/* Emit an op list: each run of compute ops adds its in-order sum to the open segment; TP all-reduces split it. */
static int dense(const struct ctx *c)
{
	return c->sc->model.type == MODEL_DENSE;
}

/* The parameter tensors whose gradients an op list of a backward pass makes (ops_grad_tensors). */
static int op_tensors(const struct ctx *c, const struct opcost *ops, int n)
{
	int t = 0;
	for (int i = 0; i < n; i++)
		t += ops_grad_tensors(&c->oc, ops[i].name);
	return t;
}

static struct clocked bound_sum(const struct opcost *ops, int n)
{
	struct clocked t = { 0, 0 };
	for (int i = 0; i < n; i++)
		if (ops[i].kind == OPK_COMPUTE && ops[i].compute_bound)
			t.scaled += ops[i].s;
		else if (ops[i].kind == OPK_COMPUTE && ops[i].at_max)
			t.at_max += ops[i].s;
	return t;
}

/* Which tally counts a list's passes: one of the stage's own lists, or -1. */
static int tally_of(const struct ctx *c, const struct opcost *ops)
{
	const struct opcost *own[] = { c->fwd, c->bwd, c->efwd, c->ebwd, c->hfwd, c->hbwd, c->rfwd };
	for (int k = 0; k < (int)(sizeof own / sizeof own[0]); k++)
		if (ops == own[k])
			return k;
	return -1;
}

static void tally_add(struct ctx *c, int k, struct clocked pass_s)
{
	if (!c->tally[k].set) {
		c->tally[k].s = pass_s;
		c->tally[k].set = true;
	}
	c->tally[k].n++;
}

/* The stage's compute-bound time gains the list's compute-bound ops (one pass's sum, in list order): a list on
 * the stack at once, one of the stage's own lists as a pass in its tally. */
static void count_bound(struct ctx *c, const struct opcost *ops, int n)
{
	int k = tally_of(c, ops);
	if (k < 0)
		c->bound = clocked_add(c->bound, bound_sum(ops, n));
	else if (c->tally[k].set)
		c->tally[k].n++;
	else
		tally_add(c, k, bound_sum(ops, n));
}

/* count_bound for a layer's forward or backward that is repeated, from its compute-bound times alone. */
static void count_layer(struct ctx *c, int bwd)
{
	tally_add(c, bwd ? TALLY_LBWD : TALLY_LFWD, bwd ? c->pass_bwd : c->pass_fwd);
}

/* The stage's compute-bound time: what was added at once, then each tally's passes times its pass (a repeated
 * layer's tally joins its list's when the two passes are the same seconds, so the total does not depend on
 * which passes were stored and which repeated, e.g. with --trace). */
static struct clocked tally_total(struct ctx *c)
{
	for (int k = TALLY_LFWD; k <= TALLY_LBWD; k++) {
		struct tally *t = &c->tally[k], *l = &c->tally[k == TALLY_LFWD ? TALLY_FWD : TALLY_BWD];
		if (t->n > 0 && (!l->set || clocked_eq(l->s, t->s))) {
			l->s = t->s;
			l->set = true;
			l->n += t->n;
			t->n = 0;
		}
	}
	struct clocked total = c->bound;
	for (int k = 0; k < TALLY_N; k++)
		if (c->tally[k].n > 0) {
			total.scaled += (double)c->tally[k].n * c->tally[k].s.scaled;
			total.at_max += (double)c->tally[k].n * c->tally[k].s.at_max;
		}
	return total;
}

/* How an op's time follows the stage's clock, for the timeline (enum op_speed). */
static enum op_speed op_speed_of(const struct opcost *o)
{
	return o->at_max ? OPSPD_ATTN : o->compute_bound ? OPSPD_GEMM : OPSPD_FIXED;
}

/* Side transfers go to the rank's side channel (program_side), so a layer's list is compute-stream instructions
 * only and is replayed like any other. */
static void emit_ops(struct ctx *c, const struct opcost *ops, int n, int layer, int mb)
{
	for (int i = 0; i < n;) {
		if (ops_is_side(ops[i].kind)) {
			/* issued here, after the compute so far, on the side channel */
			program_host(c->prog, c->host.coll);
			program_side(c->prog, ops[i].name, ops[i].s, ops[i].bytes, layer, mb);
			i++;
			continue;
		}
		if (ops[i].kind == OPK_SIDE_WAIT) {
			program_side_wait(c->prog);
			i++;
			continue;
		}
		if (ops[i].kind != OPK_COMPUTE) {
			/* the MoE all-to-all joins the EP ranks, which lie along DP (the group the engine syncs); its
			 * waits count as model-parallel communication, with TP's */
			enum group_kind g = ops[i].kind == OPK_EP_ALLTOALL ? GROUP_DP : GROUP_TP;
			program_host(c->prog, c->host.coll);
			program_coll(c->prog, STREAM_COMPUTE, g, ops[i].s, ops[i].bytes, CAT_TP, ops[i].name, layer, mb);
			i++;
			continue;
		}
		double sum = 0;
		int keep = c->prog->keep_ops, first = i;
		if (!keep)
			program_op(c->prog, NULL, 0, CAT_COMPUTE, layer, mb);  /* open the segment */
		double host = 0;  /* each op's own (sim/ops.c, ops_price_host) */
		for (; i < n && ops[i].kind == OPK_COMPUTE; i++) {
			if (keep) {
				program_op(c->prog, ops[i].name, ops[i].s, CAT_COMPUTE, layer, mb);
				program_op_speed(c->prog, op_speed_of(&ops[i]));
			}
			sum += ops[i].s;
			host += ops[i].host;
		}
		program_add_time(c->prog, i - first, sum, host);
	}
}

/* One of the stage's own op lists (ctx's fwd, bwd, embedding and head lists): the same every time on this
 * stage, so its address can name it for program_repeat_*. A list built on the stack is not: its address is
 * reused by other lists. */
static bool stage_list(const struct ctx *c, const struct opcost *ops)
{
	return ops == c->fwd || ops == c->bwd || ops == c->efwd || ops == c->ebwd || ops == c->hfwd || ops == c->hbwd ||
	       ops == c->rfwd;
}

/* Emit an op list; one of the stage's own lists is stored once and then repeated. */
static void emit(struct ctx *c, const struct opcost *ops, int n, int layer, int mb)
{
	count_bound(c, ops, n);
	if (!stage_list(c, ops)) {
		emit_ops(c, ops, n, layer, mb);
		return;
	}
	if (program_repeat_begin(c->prog, ops))
		return;
	emit_ops(c, ops, n, layer, mb);
	program_repeat_end(c->prog, ops);
}

/* HSDP (parallel.shard_group < dp): the gradient shard a reduce-scatter over the shard group left (bytes/shard of
 * the bytes it reduced) is all-reduced across the dp/shard replicas of the shard, on the DP stream after it. */
static void replicate_allreduce(struct ctx *c, double rs_bytes, int layer)
{
	if (c->repl_shape.n < 2 || rs_bytes <= 0)
		return;
	double b = rs_bytes / c->shard_shape.n;
	program_coll(c->prog, STREAM_DP, GROUP_DP, comm_coll_s(c->hw, COLL_ALL_REDUCE, b, c->repl_shape), b, CAT_DP,
		     "hsdp_replica_allreduce", layer, -1);
}

/* A full bucket: all-reduced, or with ZeRO 1/2 reduce-scattered (each replica keeps the part it updates); with a
 * reduce dtype or a compression hook (sim/gradcomp.c) its compression on the compute stream first and its own
 * collectives and callbacks on the DP stream. */
static void bucket_issue(struct ctx *c, double bytes, double expert, int tensors, const struct gradcomp_bucket *gb)
{
	int zero = c->sc->par.zero >= 1;
	if (c->sc->par.dp_bucket_copy) {
		/* PyTorch DDP (gradient_as_bucket_view=False): as each gradient is ready, the reducer's hook copies it
		 * into its bucket view divided by the world size, one mul_out kernel per parameter tensor (read and
		 * write) on the compute stream, before the bucket's all-reduce (torch/csrc/distributed/c10d/reducer.cpp,
		 * mark_variable_ready_dense) */
		int n = tensors > 0 ? tensors : 1;
		double t = n * ops_mem_s(c->hw, 2 * bytes / n);
		program_op(c->prog, "ddp_bucket_copy", t, CAT_COMPUTE, -1, -1);
		program_add_time(c->prog, n, t, n * c->host.grad_hook);
		c->copied_bytes += bytes;
		c->copied_tensors += n;
	}
	/* the reducer's hook runs on the host between the backward ops and enqueues the all-reduce */
	program_host(c->prog, c->host.bucket);
	bool gc = gradcomp_on(c->sc);
	if (gc)
		gradcomp_bucket_compress(c->prog, c->hw, c->sc, gb, STREAM_COMPUTE);
	int ev = program_record(c->prog, STREAM_COMPUTE);
	program_wait(c->prog, STREAM_DP, ev, CAT_DP);
	enum coll_op op = zero ? COLL_REDUCE_SCATTER : COLL_ALL_REDUCE;
	const char *name = zero ? "dp_reduce_scatter" : "dp_allreduce";
	struct group_shape g = zero ? c->shard_shape : c->dp_shape;
	if (gc)
		gradcomp_bucket_emit(c->prog, c->hw, c->sc, gb, g, op, name);
	else if (bytes - expert > 0)
		program_coll(c->prog, STREAM_DP, GROUP_DP, comm_coll_s(c->hw, op, bytes - expert, g), bytes - expert, CAT_DP,
			     name, -1, -1);
	if (zero)
		replicate_allreduce(c, (bytes - expert) * dtype_bytes(c->sc->par.grad_reduce_dtype) /
					       dtype_bytes(c->sc->train.grad_dtype), -1);
	/* the routed experts' gradients: over the ranks that hold the same experts (none when they are alone), in
	 * the reduce dtype */
	expert *= (double)dtype_bytes(c->sc->par.grad_reduce_dtype) / dtype_bytes(c->sc->train.grad_dtype);
	if (expert > 0 && c->edp_shape.n > 1)
		program_coll(c->prog, STREAM_DP, GROUP_DP, comm_coll_s(c->hw, op, expert, c->edp_shape), expert, CAT_DP,
			     zero ? "edp_reduce_scatter" : "edp_allreduce", -1, -1);
}

/* Gradients of `params` parameters are ready: add them to the open bucket, issue it when full. With ZeRO-3
 * every layer's gradients are reduce-scattered as its backward ends (zero3_*), so no buckets. */
static void grads_ready(struct ctx *c, double params, int tensors, int final)
{
	if (c->rdp < 2 || c->sc->par.zero == 3)
		return;
	c->pending_bytes += params * dtype_bytes(c->sc->train.grad_dtype);
	c->pending_tensors += tensors;
	if (c->pending_bytes < c->sc->par.dp_bucket_bytes && !(final && c->pending_bytes > 0))
		return;
	if (c->sc->par.dp_overlap) {
		bucket_issue(c, c->pending_bytes, c->pending_expert, c->pending_tensors, &c->gcb);
	} else {
		if (c->ndeferred == c->capdeferred) {
			c->capdeferred = c->capdeferred ? 2 * c->capdeferred : 16;
			c->deferred = xrealloc(c->deferred, c->capdeferred * sizeof *c->deferred);
		}
		c->deferred[c->ndeferred++] =
			(struct deferred){ c->pending_bytes, c->pending_expert, c->pending_tensors, c->gcb };
	}
	c->pending_bytes = 0;
	c->pending_tensors = 0;
	c->pending_expert = 0;
	memset(&c->gcb, 0, sizeof c->gcb);
}

static int slot(const struct ctx *c, int mb, int chunk, int bwd)
{
	return (mb * c->v + chunk) * 2 + bwd;
}

static void send(struct ctx *c, int bwd, int mb, int chunk)
{
	const struct scenario *sc = c->sc;
	int dest = bwd ? (c->s - 1 + c->p) % c->p : (c->s + 1) % c->p;
	int dchunk = bwd ? (c->s > 0 ? chunk : chunk - 1) : (c->s + 1 < c->p ? chunk : chunk + 1);
	int stride = sc->par.tp * c->rdp, gpn = c->hw->node.gpus;
	int same = (c->s * stride) / gpn == (dest * stride) / gpn;
	double bytes = c->oc.tokens * sc->model.hidden * dtype_bytes(sc->model.dtype);
	if (sc->par.pp_scatter_gather || sc->par.sp)  /* SP: the activation between stages is sequence-split */
		bytes /= sc->par.tp;
	enum stream_kind st = bwd ? STREAM_SENDB : STREAM_SENDF;
	program_host(c->prog, c->host.coll);
	int ev = program_record(c->prog, STREAM_COMPUTE);
	program_wait(c->prog, st, ev, CAT_PP);
	if (!(c->send_s[bwd] > 0))  /* the same for every unit of the stage */
		c->send_s[bwd] = comm_p2p_s(c->hw, bytes, same);
	program_send(c->prog, st, dest, slot(c, mb, dchunk, bwd), same ? LINK_INTRA : LINK_INTER, c->send_s[bwd], bytes,
		     bwd ? "send_grad" : "send_activation", mb);
	if (!sc->par.pp_overlap) {
		/* blocking p2p: the compute stream goes on only once its send has finished */
		int done = program_record(c->prog, st);
		program_wait(c->prog, STREAM_COMPUTE, done, CAT_PP);
	}
}

/* Wait for a pipeline transfer into slot; with scatter/gather, rebuild the full activation over TP. */
static void recv(struct ctx *c, int mb, int slot_id)
{
	const struct scenario *sc = c->sc;
	program_recv(c->prog, STREAM_COMPUTE, slot_id, CAT_PP);
	if (sc->par.pp_scatter_gather && sc->par.tp > 1 && !sc->par.sp) {  /* SP: the first layer takes it split */
		double bytes = c->oc.tokens * sc->model.hidden * dtype_bytes(sc->model.dtype);
		program_host(c->prog, c->host.coll);
		program_coll(c->prog, STREAM_COMPUTE, GROUP_TP, comm_coll_s(c->hw, COLL_ALL_GATHER, bytes, c->tp_shape),
			     bytes, CAT_PP, "pp_allgather", -1, mb);
	}
}

/* Parameters of global layer `layer` on one TP rank. */
static double layer_params_local(const struct ctx *c, int layer)
{
	if (c->sc->model.type == MODEL_DENSE)
		return scenario_dense_layer_params(c->sc, layer);
	return c->layer_params;
}

/* A layer's parameter tensors: its backward list's (a dense layer's own). */
static int layer_tensors_at(const struct ctx *c, int layer)
{
	if (dense(c)) {
		struct opcost ops[OPS_MAX];
		return op_tensors(c, ops, ops_dense_bwd(&c->oc, layer, ops));
	}
	return c->layer_tensors;
}

/* A layer's gradients are ready: with experts, note which of them are the routed experts' (their own group). */
static void layer_grads_ready(struct ctx *c, int layer, int final)
{
	if (c->rdp < 2 || c->sc->par.zero == 3)
		return;
	if (c->sc->model.moe.experts > 0)
		c->pending_expert += moe_expert_params_local(c->sc) * dtype_bytes(c->sc->train.grad_dtype);
	if (gradcomp_on(c->sc))
		gradcomp_add_layer(c->sc, c->hw, c->sc->par.tp, layer, &c->gcb);
	grads_ready(c, layer_params_local(c, layer), layer_tensors_at(c, layer), final);
}

static double vocab_params_local(const struct ctx *c)
{
	return (double)c->sc->model.vocab * c->sc->model.hidden / c->sc->par.tp;
}

/* The embedding's (final: the step's last gradients) or the head's gradients are ready: one V/tp x h matrix, the
 * tensors of its backward list (the head's with the final norm's). */
static void vocab_grads_ready(struct ctx *c, int final)
{
	if (gradcomp_on(c->sc))
		gradcomp_add_matrix(c->sc, c->hw, (double)c->sc->model.vocab / c->sc->par.tp, c->sc->model.hidden, &c->gcb);
	int tensors = final ? op_tensors(c, c->ebwd, c->nebwd) : op_tensors(c, c->hbwd, c->nhbwd);
	grads_ready(c, vocab_params_local(c), tensors > 0 ? tensors : 1, final);
}

/* The parameters of a layer's linear layers on one rank (what training.fp8 keeps FP8 copies of): the layer's
 * without its two norm vectors (and without the MoE router). */
static double layer_linear_params_local(const struct ctx *c)
{
	if (c->sc->model.moe.experts > 0)
		return moe_layer_params_local(c->sc, 1);
	return (scenario_params_per_layer(c->sc) - 2.0 * c->sc->model.hidden) / c->sc->par.tp;
}

/* training.fp8: the first micro-batch of a step quantizes each layer's weights into their FP8 pair (Transformer
 * Engine's is_first_microbatch; the later ones reuse them): read e, write 2q per parameter (current scaling: an
 * amax pass first). With param_gather the FP8 weights are the parameters and the optimizer writes them. */
static bool fp8_casts_weights(const struct scenario *sc, int mb)
{
	return fp8_on(sc) && mb == 0 && !sc->train.fp8.param_gather && sc->model.type == MODEL_TRANSFORMER;
}

static void fp8_weight_cast(struct ctx *c, int layer, int mb)
{
	if (!fp8_casts_weights(c->sc, mb))
		return;
	struct opcost op[2];
	int n = ops_quantize(&c->oc, op, 0, "fp8_weight_cast", layer_linear_params_local(c));
	emit(c, op, ops_price_host(&c->oc, op, 0, n, 0), layer, mb);
}

/* Delayed scaling: after a unit's forward (backward) the amaxes of its FP8 tensors are all-reduced over the
 * stage's TP x DP ranks (one fp32 each) and the scales updated from the amax history. */
static void fp8_amax_reduce(struct ctx *c, int bwd, int mb)
{
	const struct scenario *sc = c->sc;
	if (!fp8_amax_reduction(sc) || sc->model.type != MODEL_TRANSFORMER)
		return;
	double tensors = (double)c->Lv * fp8_tensors_per_layer(sc, bwd);
	double bytes = 4 * tensors;
	if (c->fp8_shape.n > 1) {
		program_host(c->prog, c->host.coll);
		program_coll(c->prog, STREAM_COMPUTE, GROUP_DP, comm_coll_s(c->hw, COLL_ALL_REDUCE, bytes, c->fp8_shape),
			     bytes, CAT_TP, bwd ? "fp8_amax_allreduce_bwd" : "fp8_amax_allreduce", -1, mb);
	}
	struct opcost op[1];
	int n = ops_put(op, 0, "fp8_scale_update", ops_mem_s(c->hw, fp8_scale_update_bytes(sc, tensors)), false);
	emit(c, op, ops_price_host(&c->oc, op, 0, n, 0), -1, mb);
}

/* A layer's forward or backward: the shared op list, or a dense layer's own (its widths differ by layer). */
static void emit_layer(struct ctx *c, int bwd, int layer, int mb)
{
	if (dense(c)) {  /* not repeated: the list differs by layer */
		struct opcost ops[OPS_MAX];
		int n = bwd ? ops_dense_bwd(&c->oc, layer, ops) : ops_dense_fwd(&c->oc, layer, ops);
		count_bound(c, ops, n);
		emit_ops(c, ops, n, layer, mb);
	} else if (bwd) {
		emit(c, c->bwd, c->nbwd, layer, mb);
	} else {
		emit(c, c->fwd, c->nfwd, layer, mb);
	}
}


/* Global index of layer l of model chunk j (j = chunk * p + s). */
static int layer_at(const struct ctx *c, int j, int l)
{
	return (c->v == 1 ? c->layer0 : j * c->Lv) + l;
}

/* model.tie_embeddings on a one-stage model: the head's weight is the embedding's, so the stage holds, reduces
 * and updates one vocabulary matrix; with pp > 1 the last stage holds a copy (tied_grad_allreduce). */
static bool head_is_embedding(const struct ctx *c)
{
	return c->sc->model.tie_embeddings && c->p * c->v == 1;
}

/* torch.compile of a DDP module (training.execution compiled, gradients reduced by DDP, not ZeRO-3): DDPOptimizer
 * runs the stage's model chunk as ddpsplit_graphs subgraphs (sim/ddpsplit.h), each a forward and a backward call
 * per micro-batch where one graph makes one of each. The nodes it walks from the graph's end: the head (last stage,
 * untied), each layer's ops that make parameter gradients from the top layer down (a bias's with its weight's: one
 * F.linear), the embedding (first stage); a node's bytes are its tensors' share of its layer's parameters, or with
 * training.param_storage flat the whole buffer of the stage's parameters. 1 when the step is not compiled DDP. */
static int compiled_ddp_graphs(const struct ctx *c)
{
	const struct scenario *sc = c->sc;
	if (sc->train.exec != EXEC_COMPILED || c->rdp < 2 || sc->par.zero == 3 || sc->train.host_us_per_op > 0)
		return 1;
	double elem = sc->train.amp ? 4 : dtype_bytes(sc->model.dtype), flat = 0;
	bool head = sc->model.vocab > 0 && c->s == c->last_j && !head_is_embedding(c);
	bool embed = sc->model.vocab > 0 && c->s == 0;
	int cap = 2 + c->Lv * OPS_MAX, n = 0;
	double *bytes = xmalloc((size_t)cap * sizeof *bytes);
	if (head)
		bytes[n++] = vocab_params_local(c) * elem;
	struct opcost ops[OPS_MAX];
	for (int l = c->Lv - 1; l >= 0; l--) {
		int layer = layer_at(c, c->s, l);
		const struct opcost *list = dense(c) ? ops : c->bwd;
		int nl = dense(c) ? ops_dense_bwd(&c->oc, layer, ops) : c->nbwd, tensors = op_tensors(c, list, nl);
		for (int i = 0, open = 0; i < nl; i++) {
			int k = ops_grad_tensors(&c->oc, list[i].name);
			double b = layer_params_local(c, layer) * elem * k / (tensors > 0 ? tensors : 1);
			if (k > 0 && open && strstr(list[i].name, "bias_grad"))
				bytes[n - 1] += b;  /* F.linear's bias: the same node as its weight */
			else if (k > 0)
				bytes[n++] = b;
			open = k > 0;
		}
	}
	if (embed)
		bytes[n++] = vocab_params_local(c) * elem;
	for (int i = 0; i < n; i++)
		flat += bytes[i];
	for (int i = 0; sc->train.flat_params && i < n; i++)
		bytes[i] = flat;
	/* DDPOptimizer asserts first cap <= cap; a smaller bucket_cap_mb is DDP's first bucket too */
	double cap_b = sc->par.dp_bucket_bytes;
	int g = ddpsplit_graphs(bytes, n, fmin(DDPSPLIT_FIRST_CAP, cap_b), cap_b);
	free(bytes);
	return g;
}

/* The stage's subgraphs beyond the first, each a forward and a backward call (host.sub_fwd, sub_bwd): spread
 * over the chunk's layers as a share of each layer's first forward and backward op (DDPOptimizer's subgraphs
 * follow the layers), so that a GPU-bound step keeps them behind its kernels; a layer list (dense) pays them at
 * its forward's start and backward() call instead (unit_forward, unit_backward). */
static void stage_graph_calls(struct ctx *c)
{
	c->graphs = compiled_ddp_graphs(c);
	if (dense(c) || c->nfwd < 1 || c->nbwd < 1)
		return;
	double extra = (c->graphs - 1) / (double)c->Lv;
	c->fwd[0].host = c->fwd0_host + extra * c->host.sub_fwd;
	c->bwd[0].host = c->bwd0_host + extra * c->host.sub_bwd;
}

/* ZeRO-3: a layer's weights are all-gathered over DP on the DP stream before each use, at most two layers'
 * worth at a time (the one computing and the one prefetched): the gather of layer i+2 waits until layer i's
 * compute is done. After a layer's backward its gradients are reduce-scattered. Embedding and head weights
 * travel with the first and last layer of their chunk. */
static int zero3(const struct ctx *c)
{
	return c->sc->par.zero == 3 && c->rdp > 1;
}

static double zero3_layer_params(const struct ctx *c, int j, int l)
{
	double p = layer_params_local(c, layer_at(c, j, l));
	if (c->sc->model.vocab > 0 && j == 0 && l == 0)
		p += vocab_params_local(c);
	if (c->sc->model.vocab > 0 && j == c->last_j && l == c->Lv - 1 && !head_is_embedding(c))
		p += vocab_params_local(c);
	return p;
}

static int zero3_gather(struct ctx *c, int j, int l, int wait_ev)
{
	if (wait_ev >= 0)
		program_wait(c->prog, STREAM_DP, wait_ev, CAT_DP);
	double bytes = zero3_layer_params(c, j, l) * fp8_param_gather_bytes_per_param(c->sc);
	program_coll(c->prog, STREAM_DP, GROUP_DP, comm_coll_s(c->hw, COLL_ALL_GATHER, bytes, c->shard_shape), bytes,
		     CAT_DP, "zero3_allgather", layer_at(c, j, l), -1);
	return program_record(c->prog, STREAM_DP);
}

static void zero3_reduce(struct ctx *c, int j, int l, int done_ev)
{
	program_wait(c->prog, STREAM_DP, done_ev, CAT_DP);
	if (gradcomp_on(c->sc)) {  /* a reduce dtype: cast in, reduce-scatter, cast the shard back, all on the DP
				    * stream as FSDP2's foreach_reduce runs them (gradcomp.c) */
		struct gradcomp_bucket b = { .elems = zero3_layer_params(c, j, l) };
		gradcomp_bucket_compress(c->prog, c->hw, c->sc, &b, STREAM_DP);
		gradcomp_bucket_emit(c->prog, c->hw, c->sc, &b, c->shard_shape, COLL_REDUCE_SCATTER,
				     "zero3_reduce_scatter");
		replicate_allreduce(c, b.elems * dtype_bytes(c->sc->par.grad_reduce_dtype), layer_at(c, j, l));
		return;
	}
	double bytes = zero3_layer_params(c, j, l) * dtype_bytes(c->sc->train.grad_dtype);
	program_coll(c->prog, STREAM_DP, GROUP_DP, comm_coll_s(c->hw, COLL_REDUCE_SCATTER, bytes, c->shard_shape),
		     bytes, CAT_DP, "zero3_reduce_scatter", layer_at(c, j, l), -1);
	replicate_allreduce(c, bytes, layer_at(c, j, l));
}

/* training.grad_accumulation add: the micro-batch's weight gradients of `params` parameters in `tensors` tensors are
 * added into the gradient buffer (read both, write the sum), one kernel a tensor: PyTorch's AccumulateGrad node of
 * each parameter adds its own gradient in place (torch/csrc/autograd/functions/accumulate_grad.h; a profiled
 * t07-pp2-1f1b stage launched 8 such add_ kernels per layer and micro-batch, docs/validation.md), each an element-wise
 * kernel of the measured family (gpu.kernels.elementwise and its gap; the copy rate and launch_us without it). */
static void grad_accumulate(struct ctx *c, double params, int tensors, int layer, int mb)
{
	if (!c->sc->train.grad_accum_add)
		return;
	int n = tensors > 0 ? tensors : 1;
	double t = n * ops_kern_s(c->hw, KF_ELEMENTWISE, 3 * params * dtype_bytes(c->sc->train.grad_dtype) / n);
	program_op(c->prog, "grad_accumulate", t, CAT_COMPUTE, layer, mb);
	program_add_time(c->prog, 1, t, c->host.accum);
}

/* parallel.overlap_param_gather (Megatron's distributed optimizer with --overlap-param-gather): the parameters
 * the last optimizer step updated are all-gathered over DP layer by layer (each replica updated 1/dp of them)
 * on the DP stream from the start of the step, and each layer's first forward waits for its own; the step's end
 * then has no gather. In the steady state that is the gather the previous step's optimizer started. */
static bool param_gather_overlapped(const struct ctx *c)
{
	return c->sc->par.overlap_param_gather && c->rdp > 1 && (c->sc->par.zero == 1 || c->sc->par.zero == 2);
}

static void param_gather_issue(struct ctx *c)
{
	const struct scenario *sc = c->sc;
	double per_param = fp8_param_gather_bytes_per_param(sc);
	for (int j = 0; j < c->v; j++)
		for (int l = 0; l < c->Lv; l++) {
			int chunk_j = j * c->p + c->s;
			double params = layer_params_local(c, layer_at(c, chunk_j, l));
			if (l == 0 && chunk_j == 0 && sc->model.vocab > 0)
				params += vocab_params_local(c);  /* the embedding rides with the first layer */
			if (l == c->Lv - 1 && chunk_j == c->last_j && sc->model.vocab > 0 && !head_is_embedding(c))
				params += vocab_params_local(c);  /* and the head (a copy when tied) with the last */
			double bytes = params * per_param;
			program_coll(c->prog, STREAM_DP, GROUP_DP, comm_coll_s(c->hw, COLL_ALL_GATHER, bytes, c->shard_shape),
				     bytes, CAT_DP, "param_allgather", j * c->Lv + l, -1);
			c->pg_ev[j * c->Lv + l] = program_record(c->prog, STREAM_DP);
		}
}

/* A chunk's first forward waits for layer l's gathered parameters; 1 when it did (no repetition then). */
static bool param_gather_wait(struct ctx *c, int chunk, int l)
{
	if (!param_gather_overlapped(c) || c->pg_done[chunk])
		return false;
	program_wait(c->prog, STREAM_COMPUTE, c->pg_ev[chunk * c->Lv + l], CAT_DP);
	return true;
}

/* training.offload_layers (Megatron-Core's CPU offloading of activations): after its forward, each of the first N
 * layers of a chunk copies what it keeps for its backward (the layer's activation bytes) to host memory on the
 * copy stream, beside the next layers' compute; in the backward, layer l's reload starts when layer l+1's
 * backward starts (one layer ahead, double buffered) and layer l's backward waits for it. The copies take
 * bytes / node.host_gbps each, in order on the one copy stream. */
static int offload_n(const struct ctx *c)
{
	return c->sc->train.offload_layers;
}

static double offload_bytes(const struct ctx *c)
{
	return mem_layer_act_bytes(c->sc, c->sc->par.tp);
}

static void offload_copy(struct ctx *c, int wait_ev, const char *name, int layer, int mb)
{
	program_wait(c->prog, STREAM_COPY, wait_ev, CAT_PP);
	program_side_op(c->prog, STREAM_COPY, name, offload_bytes(c) / (c->hw->node.host_gbps * 1e9), offload_bytes(c),
			CAT_PP, layer, mb);
}

static void offload_out(struct ctx *c, int l, int layer, int mb)
{
	if (l < offload_n(c))
		offload_copy(c, program_record(c->prog, STREAM_COMPUTE), "offload_d2h", layer, mb);
}

/* At the start of local layer l's backward in chunk j: wait for l's reload, start l-1's. */
static void offload_in(struct ctx *c, int j, int l, int mb)
{
	int n = offload_n(c);
	if (l < n)
		program_wait(c->prog, STREAM_COMPUTE, c->reload_ev[l], CAT_PP);
	if (l >= 1 && l - 1 < n) {
		offload_copy(c, program_record(c->prog, STREAM_COMPUTE), "reload_h2d", layer_at(c, j, l - 1), mb);
		c->reload_ev[l - 1] = program_record(c->prog, STREAM_COPY);
	}
}

static void unit_forward(struct ctx *c, int mb, int chunk)
{
	int j = chunk * c->p + c->s, has_vocab = c->sc->model.vocab > 0;
	if (j > 0)
		recv(c, mb, slot(c, mb, chunk, 0));
	if (c->host.fwd > 0)
		/* a compiled forward graph's call (host.compiled.graph_us); a layer list's subgraphs all here */
		program_host(c->prog, c->host.fwd + (dense(c) ? (c->graphs - 1) * c->host.sub_fwd : 0));
	int z = zero3(c), ag[2] = { -1, -1 };
	if (z) {
		ag[0] = zero3_gather(c, j, 0, -1);
		if (c->Lv > 1)
			ag[1] = zero3_gather(c, j, 1, -1);
	}
	if (j == 0 && has_vocab) {
		if (z)
			program_wait(c->prog, STREAM_COMPUTE, ag[0], CAT_DP);
		param_gather_wait(c, chunk, 0);  /* the embedding came with the first layer's gather */
		emit(c, c->efwd, c->nefwd, -1, mb);
	}
	bool gathering = param_gather_overlapped(c) && !c->pg_done[chunk];
	for (int l = 0; l < c->Lv; l++) {
		param_gather_wait(c, chunk, l);
		if (z)
			program_wait(c->prog, STREAM_COMPUTE, ag[l % 2], CAT_DP);
		else if (!dense(c) && !gathering && !fp8_casts_weights(c->sc, mb) && l >= offload_n(c) &&
			 program_repeat_more(c->prog, c->fwd, c->Lv - l)) {
			for (; l < c->Lv; l++)  /* the layers it stands for, in order */
				count_layer(c, 0);
			break;  /* this layer and the rest: repetitions of the one before */
		}
		fp8_weight_cast(c, layer_at(c, j, l), mb);
		emit_layer(c, 0, layer_at(c, j, l), mb);
		offload_out(c, l, layer_at(c, j, l), mb);
		if (z && l + 2 < c->Lv)
			ag[l % 2] = zero3_gather(c, j, l + 2, program_record(c->prog, STREAM_COMPUTE));
	}
	if (j == c->last_j && has_vocab)
		emit(c, c->hfwd, c->nhfwd, -1, mb);
	if (gathering)
		c->pg_done[chunk] = true;
	fp8_amax_reduce(c, 0, mb);
	if (j < c->last_j)
		send(c, 0, mb, chunk);
}

/* The compute-bound ops of one layer's backward (count_bound), for a backward that is repeated; rc: its forward
 * is rerun first. */
static void count_layer_backward(struct ctx *c, bool rc)
{
	if (rc)
		count_layer(c, 0);
	if (c->nrfwd > 0)
		count_bound(c, c->rfwd, c->nrfwd);
	count_layer(c, 1);
}

/* Whether local layer l's backward reruns its forward, and the key its instructions are stored under. */
static bool layer_rc(const struct ctx *c, int l)
{
	return c->rc[l];
}

static const void *bwd_key(const struct ctx *c, int l)
{
	return layer_rc(c, l) ? (const void *)&c->key_layer_bwd_rc : (const void *)&c->key_layer_bwd;
}

/* Layers l, l-1, ... down to 0 whose backward is the same as l's (all of them, but where block recompute
 * reruns only the first recompute_layers). */
static int same_run(const struct ctx *c, int l)
{
	return c->run[l];
}

/* The stage's layers' rc and run (recompute_layer_full, same_run), once per stage: units ask per layer. */
static void layers_prepare(struct ctx *c)
{
	for (int l = 0; l < c->Lv; l++) {
		c->rc[l] = recompute_layer_full(c->sc, l, c->Lv);
		c->run[l] = l > 0 && c->rc[l] == c->rc[l - 1] ? c->run[l - 1] + 1 : 1;
	}
}

/* A layer's backward on the compute stream (with full recompute its forward first; with op recompute the ops
 * the policy reruns). Apart from a dense model's it is the same instructions for every layer and micro-batch:
 * stored once, then repeated. */
static void layer_backward(struct ctx *c, int layer, int l, int mb)
{
	int rep = !dense(c);
	bool rc = layer_rc(c, l);
	const void *key = bwd_key(c, l);
	if (rep && program_repeat_begin(c->prog, key)) {
		count_layer_backward(c, rc);
		return;
	}
	if (rc)
		emit_layer(c, 0, layer, mb);
	if (c->nrfwd > 0)
		emit(c, c->rfwd, c->nrfwd, layer, mb);
	emit_layer(c, 1, layer, mb);
	grad_accumulate(c, layer_params_local(c, layer), layer_tensors_at(c, layer), layer, mb);
	if (rep)
		program_repeat_end(c->prog, key);
}

static void unit_backward(struct ctx *c, int mb, int chunk, int last_of_chunk)
{
	int j = chunk * c->p + c->s, has_vocab = c->sc->model.vocab > 0;
	int z = zero3(c), top = c->Lv - 1, ag[2] = { -1, -1 };
	/* reshard_after_forward false: the parameters gathered for the forward are still there */
	int g = z && !c->sc->par.keep_after_forward;
	if (g) {
		ag[top % 2] = zero3_gather(c, j, top, -1);
		if (top >= 1)
			ag[(top - 1) % 2] = zero3_gather(c, j, top - 1, -1);
	}
	if (j < c->last_j)
		recv(c, mb, slot(c, mb, chunk, 1));
	/* the backward() call (host.<mode>.backward_us); a layer list's subgraphs' backward calls all here */
	program_host(c->prog, c->host.mb + (dense(c) ? (c->graphs - 1) * c->host.sub_bwd : 0));
	if (j == c->last_j && has_vocab) {
		if (g)
			program_wait(c->prog, STREAM_COMPUTE, ag[top % 2], CAT_DP);
		emit(c, c->hbwd, c->nhbwd, -1, mb);
		grad_accumulate(c, vocab_params_local(c), op_tensors(c, c->hbwd, c->nhbwd), -1, mb);
		if (last_of_chunk && !head_is_embedding(c))  /* tied: they add into the embedding's gradient */
			vocab_grads_ready(c, 0);
	}
	for (int l = top; l >= 0; l--) {
		int layer = layer_at(c, j, l);
		if (g)
			program_wait(c->prog, STREAM_COMPUTE, ag[l % 2], CAT_DP);
		else if (!z && !dense(c) && !last_of_chunk) {
			int run = same_run(c, l);
			if (offload_n(c) > 0 && run > l - offload_n(c))
				run = l - offload_n(c);  /* layer N starts the reloads */
			if (run > 0 && program_repeat_more(c->prog, bwd_key(c, l), run)) {
				bool rc = layer_rc(c, l);
				for (int i = 0; i < run; i++)  /* the layers it stands for, in order */
					count_layer_backward(c, rc);
				l -= run - 1;
				continue;  /* this layer and the run below: repetitions of the one before */
			}
		}
		offload_in(c, j, l, mb);
		layer_backward(c, layer, l, mb);
		if (z && !(l == 0 && j == 0 && has_vocab)) {
			int done = program_record(c->prog, STREAM_COMPUTE);
			zero3_reduce(c, j, l, done);
			if (g && l - 2 >= 0)
				ag[l % 2] = zero3_gather(c, j, l - 2, -1);
		}
		if (last_of_chunk)
			layer_grads_ready(c, layer, l == 0 && !(j == 0 && has_vocab));
	}
	if (j == 0 && has_vocab) {
		emit(c, c->ebwd, c->nebwd, -1, mb);
		grad_accumulate(c, vocab_params_local(c), op_tensors(c, c->ebwd, c->nebwd), -1, mb);
		if (z)
			zero3_reduce(c, j, 0, program_record(c->prog, STREAM_COMPUTE));
		if (last_of_chunk)
			vocab_grads_ready(c, 1);
	}
	fp8_amax_reduce(c, 1, mb);
	if (j > 0)
		send(c, 1, mb, chunk);
}

static double unit_act_bytes(const struct ctx *c, int chunk)
{
	const struct scenario *sc = c->sc;
	int j = chunk * c->p + c->s;
	double b = recompute_chunk_act_bytes(sc, c->Lv, sc->par.tp) - offload_n(c) * offload_bytes(c);
	if (sc->model.type == MODEL_DENSE && sc->train.recompute != RECOMPUTE_FULL)
		b = mem_dense_act_bytes(sc);  /* pp = 1: the whole list */
	if (sc->model.vocab > 0 && j == c->last_j)  /* eager: the fp32 log-softmax; compiled: the logits */
		b += c->oc.tokens * ((double)sc->model.vocab / sc->par.tp) *
		     (sc->train.exec == EXEC_COMPILED ? dtype_bytes(sc->model.dtype) : 4);
	if (sc->model.vocab > 0 && j == 0)
		b += c->oc.tokens * sc->model.hidden * dtype_bytes(sc->model.dtype);
	if (sc->train.amp) {
		/* the autocast copies of the chunk's weights, saved for the micro-batch's backward */
		double p = 0;
		for (int l = 0; l < c->Lv; l++)
			p += layer_params_local(c, layer_at(c, j, l));
		if (sc->model.vocab > 0 && j == c->last_j && !head_is_embedding(c))
			p += vocab_params_local(c);
		b += p * dtype_bytes(sc->model.dtype);
	}
	return b;
}

/* The loss's backward over the vocabulary, while everything the micro-batch saved is still alive: beside the
 * saved fp32 log-softmax (in unit_act_bytes) the gradient of its output and of its input, fp32 each:
 * 8 bytes per logit of this TP rank; compiled, the one gradient its fused kernel writes (model dtype). */
static double loss_transient_bytes(const struct ctx *c, int chunk)
{
	const struct scenario *sc = c->sc;
	if (sc->model.vocab == 0 || chunk * c->p + c->s != c->last_j)
		return 0;
	return c->oc.tokens * ((double)sc->model.vocab / sc->par.tp) *
	       (sc->train.exec == EXEC_COMPILED ? dtype_bytes(sc->model.dtype) : 8);
}

/* model.tie_embeddings over pp > 1 stages (Megatron's _allreduce_word_embedding_grads in finalize_model_grads,
 * after the DP gradient sync and before the optimizer): the first stage's embedding and the last stage's head
 * copy of it add their gradients by an all-reduce over the two ranks (same TP and DP index) that hold them,
 * vocab/tp x hidden gradients of grad_dtype. Run as an exchange: each sends its gradients to the other and the
 * compute stream waits for both transfers, each timed as the two-rank all-reduce, so it ends when the later of
 * the two arrives plus the all-reduce's time. */
static int tied_slot(const struct ctx *c)
{
	return 2 * c->m * c->v;
}

static bool tied_exchange(const struct ctx *c)
{
	return c->sc->model.tie_embeddings && c->sc->model.vocab > 0 && c->p > 1 && (c->s == 0 || c->s == c->p - 1);
}

static void tied_grad_allreduce(struct ctx *c)
{
	const struct scenario *sc = c->sc;
	if (!tied_exchange(c))
		return;
	int peer = c->s == 0 ? c->p - 1 : 0, stride = sc->par.tp * c->rdp;
	struct group_shape g = comm_shape(c->hw->node.gpus, 0, stride * (c->p - 1), 2);
	double bytes = vocab_params_local(c) * dtype_bytes(sc->train.grad_dtype);
	enum stream_kind st = c->s == 0 ? STREAM_SENDF : STREAM_SENDB;
	program_host(c->prog, c->host.coll);
	int ev = program_record(c->prog, STREAM_COMPUTE);
	program_wait(c->prog, st, ev, CAT_PP);
	program_send(c->prog, st, peer, tied_slot(c), g.nodes > 1 ? LINK_INTER : LINK_INTRA,
		     comm_coll_s(c->hw, COLL_ALL_REDUCE, bytes, g), bytes, "tied_embedding_allreduce", -1);
	program_recv(c->prog, STREAM_COMPUTE, tied_slot(c), CAT_PP);
	int done = program_record(c->prog, st);
	program_wait(c->prog, STREAM_COMPUTE, done, CAT_PP);
}

/* The builder's own state a unit's emission changes (skip_passes): the tallies' passes, and what must not change. */
struct mark {
	long long tally[TALLY_N];
	struct clocked bound;
	double pending_bytes, copied_bytes, pending_expert;
	int pending_tensors, copied_tensors;
	int ndeferred;
};
enum { MARKS = 64 };  /* unit starts remembered: two passes of up to 32 units */

static void mark_take(const struct ctx *c, struct mark *m)
{
	for (int k = 0; k < TALLY_N; k++)
		m->tally[k] = c->tally[k].n;
	m->bound = c->bound;
	m->pending_bytes = c->pending_bytes;
	m->copied_bytes = c->copied_bytes;
	m->pending_tensors = c->pending_tensors;
	m->copied_tensors = c->copied_tensors;
	m->pending_expert = c->pending_expert;
	m->ndeferred = c->ndeferred;
}

/* What decides a unit's instructions but for the ids they name: the same in two units, the same instructions. */
static int unit_sig(const struct ctx *c, const struct unit *u, int last_of_chunk)
{
	return u->bwd | u->chunk << 2 | last_of_chunk << 1 | (!u->bwd && fp8_casts_weights(c->sc, u->mb)) << 30;
}

/* The activations a unit keeps alive: live bytes and units, and their peaks, as stage_units follows them. */
static void unit_memory(const struct ctx *c, const struct unit *u, double *live, int *live_units, double *peak,
			int *peak_units)
{
	if (!u->bwd) {
		*live += c->act[u->chunk];
		(*live_units)++;
		if (*live > *peak)
			*peak = *live;
		if (*live_units > *peak_units)
			*peak_units = *live_units;
	} else {
		if (*live + c->transient[u->chunk] > *peak)
			*peak = *live + c->transient[u->chunk];
		*live -= c->act[u->chunk];
		(*live_units)--;
	}
}

/* At unit i's start (program_unit_begin done): when the program's last two passes of P units were alike (program_
 * steady), the builder's state moved alike in both (its tallies by the same passes, nothing else), and the units
 * from i on repeat the last pass's k more times, those k passes are not emitted but taken as emitted (program_skip,
 * the tallies, the activations): the same program, instruction for instruction (tests/test_sim.c, check_repeats).
 * Returns the unit to emit next. Not with the features that keep event ids of their own from unit to unit
 * (ZeRO-3's gathers, offloaded layers' reloads, overlapped parameter gathers). */
static int skip_passes(struct ctx *c, const struct unit *order, const int *last_b, int n, int i, struct mark *marks,
		       double *live, int *live_units, double *peak, int *peak_units)
{
	int P = program_steady(c->prog);
	if (P <= 0 || 2 * P >= MARKS || i < 2 * P || zero3(c) || offload_n(c) > 0 || param_gather_overlapped(c))
		return i;
	const struct mark *m0 = &marks[(i - 2 * P) % MARKS], *m1 = &marks[(i - P) % MARKS], *m2 = &marks[i % MARKS];
	for (int k = 0; k < TALLY_N; k++)
		if (m2->tally[k] - m1->tally[k] != m1->tally[k] - m0->tally[k])
			return i;
	if (!clocked_eq(m0->bound, m2->bound) || !clocked_eq(m1->bound, m2->bound) ||
	    m0->pending_bytes != m2->pending_bytes || m0->copied_bytes != m2->copied_bytes ||
	    m0->pending_expert != m2->pending_expert || m0->ndeferred != m2->ndeferred ||
	    m0->pending_tensors != m2->pending_tensors || m0->copied_tensors != m2->copied_tensors)
		return i;
	int same = 0;
	while (i + same < n && unit_sig(c, &order[i + same], i + same == last_b[order[i + same].chunk]) ==
				       unit_sig(c, &order[i + same - P], i + same - P == last_b[order[i + same - P].chunk]))
		same++;
	int k = same / P;
	if (k == 0)
		return i;
	program_skip(c->prog, (uint32_t)k);
	for (int t = 0; t < TALLY_N; t++)
		c->tally[t].n += (long long)k * (m2->tally[t] - m1->tally[t]);
	for (int j = i; j < i + k * P; j++)
		unit_memory(c, &order[j], live, live_units, peak, peak_units);
	return i + k * P;
}

/* Runs the stage's forward and backward units in the schedule's order and follows the activations they keep
 * alive: *peak the most bytes alive at once (the loss's transient included), *peak_units the most units. */
static void stage_units(struct ctx *c, double *peak, int *peak_units)
{
	const struct scenario *sc = c->sc;
	int n = 2 * c->m * c->v;
	struct unit *order = xmalloc(n * sizeof *order);
	sched_order(sc->par.schedule, c->p, c->v, c->m, c->s, order);
	int *last_b = xmalloc(c->v * sizeof *last_b);
	for (int i = 0; i < n; i++)
		if (order[i].bwd)
			last_b[order[i].chunk] = i;

	for (int k = 0; k < c->v; k++) {  /* the same for every micro-batch of a chunk */
		c->act[k] = unit_act_bytes(c, k);
		c->transient[k] = loss_transient_bytes(c, k);
	}
	double live = 0;
	int live_units = 0;
	*peak = 0;
	*peak_units = 0;
	struct mark marks[MARKS];
	for (int i = 0; i < n; i++) {
		program_unit_begin(c->prog);
		mark_take(c, &marks[i % MARKS]);
		int next = skip_passes(c, order, last_b, n, i, marks, &live, &live_units, peak, peak_units);
		if (next != i) {
			i = next;
			mark_take(c, &marks[i % MARKS]);
			if (i == n)
				break;
		}
		const struct unit *u = &order[i];
		if (!u->bwd)
			unit_forward(c, u->mb, u->chunk);
		else
			unit_backward(c, u->mb, u->chunk, i == last_b[u->chunk]);
		unit_memory(c, u, &live, &live_units, peak, peak_units);
	}
	free(order);
	free(last_b);
}

/* After the last backward: the gradient buckets held back are issued, compute waits for the data-parallel
 * reduction, and DDP's copied buckets go back into the gradients. */
static void stage_grads_finish(struct ctx *c)
{
	for (int i = 0; i < c->ndeferred; i++)
		bucket_issue(c, c->deferred[i].bytes, c->deferred[i].expert, c->deferred[i].tensors, &c->deferred[i].gcb);
	if (c->rdp > 1) {
		int done = program_record(c->prog, STREAM_DP);
		program_wait(c->prog, STREAM_COMPUTE, done, CAT_DP);
	}
	tied_grad_allreduce(c);
	if (c->copied_bytes > 0) {
		/* ... and copies the reduced buckets back into the gradients once all are done, one copy per tensor
		 * (reducer.cpp, finalize_bucket_dense) */
		int n = c->copied_tensors > 0 ? c->copied_tensors : 1;
		double t = n * ops_mem_s(c->hw, 2 * c->copied_bytes / n);
		program_unit_begin(c->prog);
		program_op(c->prog, "ddp_copy_back", t, CAT_COMPUTE, -1, -1);
		program_add_time(c->prog, n, t, n * c->host.grad_hook);
	}
}

/* The parameters this pipeline stage holds (one TP rank): its layers of every chunk, the embedding on the
 * first stage and the output layer on the last. */
static double stage_params(const struct ctx *c)
{
	const struct scenario *sc = c->sc;
	double params = 0;
	for (int j = 0; j < c->v; j++)
		for (int l = 0; l < c->Lv; l++)
			params += layer_params_local(c, layer_at(c, j * c->p + c->s, l));
	if (sc->model.vocab > 0) {
		if (c->s == 0)
			params += vocab_params_local(c);
		if (c->s == c->p - 1 && !head_is_embedding(c))
			params += vocab_params_local(c);
	}
	return params;
}

/* The optimizer step over the parameters this rank updates (its ZeRO shard, or all), then with ZeRO 1/2 the
 * all-gather of the updated parameters unless it overlaps the next step's start. */
static void stage_optimizer(struct ctx *c, int zero, double params, double shard)
{
	const struct scenario *sc = c->sc;
	double t_opt = ops_optimizer_s(&c->oc, zero ? shard : params);
	program_unit_begin(c->prog);
	program_op(c->prog, "optimizer", t_opt, CAT_OPTIMIZER, -1, -1);
	program_add_time(c->prog, 1, t_opt, c->host.opt);
	program_flush(c->prog);
	if ((zero == 1 || zero == 2) && !param_gather_overlapped(c)) {
		/* the updated parameters go back to every replica (overlapped: at the next step's start instead) */
		int ev = program_record(c->prog, STREAM_COMPUTE);
		program_wait(c->prog, STREAM_DP, ev, CAT_DP);
		double bytes = params * fp8_param_gather_bytes_per_param(sc);
		program_coll(c->prog, STREAM_DP, GROUP_DP, comm_coll_s(c->hw, COLL_ALL_GATHER, bytes, c->shard_shape),
			     bytes, CAT_DP, "zero_param_allgather", -1, -1);
		int done = program_record(c->prog, STREAM_DP);
		program_wait(c->prog, STREAM_COMPUTE, done, CAT_DP);
	}
}

/* The stage's memory: weights, gradients and optimizer state of what it holds (sharded by the ZeRO stage),
 * the activation peak of its units and how many units were in flight at once. */
static void stage_memory(const struct ctx *c, struct stage_info *info, int zero, double params, double shard,
			 double peak, int peak_units)
{
	const struct scenario *sc = c->sc;
	int dp = c->rdp;  /* the ranks that hold the same weights: dp*cp */
	peak += recompute_transient_bytes(sc, c->Lv, sc->par.tp);
	/* while a layer's attention runs: context parallelism's K/V buffers (sim/cp.h); all the time: the
	 * userbuffers of TP overlap (sim/overlap.h) */
	peak += cp_transient_bytes(sc) + overlap_buffer_bytes(sc);
	if (offload_n(c) > 0)  /* a layer on its way out and one reloaded */
		peak += 2 * offload_bytes(c);
	/* the in-flight outputs, the arriving gradient, the backward's widest temporaries, staged inputs */
	peak += mem_stage_extra_bytes(sc, sc->par.tp, c->s, c->p, (peak_units + c->v - 1) / c->v);
	info->weights = params * mem_weight_bytes_per_param(sc);
	if (fp8_on(sc) && sc->model.type == MODEL_TRANSFORMER)  /* the FP8 weight pairs of the linear layers */
		info->weights += c->v * c->Lv * layer_linear_params_local(c) * fp8_weight_extra_bytes_per_param(sc);
	info->gradients = params * mem_grad_bytes_per_param(sc);
	if (sc->par.gc.method != GC_NONE && dp > 1) {  /* the hook's error feedback and PowerSGD's Q factors */
		struct gradcomp_bucket all = { 0 };
		for (int j = 0; j < c->v; j++)
			for (int l = 0; l < c->Lv; l++)
				gradcomp_add_layer(sc, c->hw, sc->par.tp, layer_at(c, j * c->p + c->s, l), &all);
		for (int k = (c->s == 0) + (c->s == c->p - 1 && !head_is_embedding(c)); sc->model.vocab > 0 && k > 0; k--)
			gradcomp_add_matrix(sc, c->hw, (double)sc->model.vocab / sc->par.tp, sc->model.hidden, &all);
		info->gradients += gradcomp_state_bytes(sc, params, all.q);
	}
	/* PyTorch DDP's buckets: a second gradient buffer. And a run's peak holds a third: on the second step the
	 * reducer rebuilds its buckets in the order the first step's gradients became ready, and the old set stays
	 * allocated through that step's backward (a 1-rank DDP of 268M bf16 parameters on an H100, 2026-11-25,
	 * calibrate/torch_kernels.py: step 2's peak = the other steps' + 2.00 bytes per parameter, with
	 * gradient_as_bucket_view False and True alike; torch.cuda.max_memory_allocated() counts it) */
	if (dp > 1 && sc->par.dp_bucket_copy && zero < 2)
		info->gradients *= 3;
	info->optimizer = (zero >= 1 ? shard : params) * mem_optimizer_bytes_per_param(sc);
	if (zero >= 2 && params > 0)
		info->gradients *= shard / params;
	if (zero == 3)  /* own shard plus the two gathered layers in flight */
		info->weights = info->weights / scenario_shard_group(sc) + (!sc->par.keep_after_forward
			? 2 * zero3_layer_params(c, c->s, 0) * mem_weight_bytes_per_param(sc)
			: info->weights);  /* kept from the forward to the backward: the stage's parameters whole */
	info->activations = peak;
	info->peak_inflight = (peak_units + c->v - 1) / c->v;
	info->host_bytes = peak_units * offload_n(c) * offload_bytes(c);  /* every unit alive keeps its copies there */
}

static void build_stage(struct ctx *c, struct stage_info *info)
{
	const struct scenario *sc = c->sc;
	double peak;
	int peak_units;
	if (param_gather_overlapped(c))
		param_gather_issue(c);
	stage_units(c, &peak, &peak_units);
	stage_grads_finish(c);

	double params = stage_params(c);
	/* ZeRO >= 1: each of the dp*cp ranks holding the same weights updates its 1/(dp*cp) of the parameters; MoE:
	 * the routed experts' 1/edp, the share of the expert-data-parallel group that holds the same experts */
	int zero = c->rdp > 1 ? sc->par.zero : 0;
	double ex = c->v * c->Lv * moe_expert_params_local(sc);
	double shard = (params - ex) / scenario_shard_group(sc) + ex / moe_edp(sc);  /* HSDP: the shard group; else dp*cp */
	stage_optimizer(c, zero, params, shard);
	stage_memory(c, info, zero, params, shard, peak, peak_units);
}

/* Time the TP all-reduces of an op list for this stage's TP group (the rest was timed by ops.c). */
static void time_tp(struct ctx *c, struct opcost *ops, int n)
{
	for (int i = 0; i < n; i++)
		switch (ops[i].kind) {
		case OPK_TP_ALLREDUCE:
			ops[i].s = comm_coll_s(c->hw, COLL_ALL_REDUCE, ops[i].bytes, c->tp_shape);
			break;
		case OPK_TP_ALLGATHER:
		case OPK_SIDE_TP_ALLGATHER:
			ops[i].s = comm_coll_s(c->hw, COLL_ALL_GATHER, ops[i].bytes, c->tp_shape);
			break;
		case OPK_TP_REDUCESCATTER:
		case OPK_SIDE_TP_REDUCESCATTER:
			ops[i].s = comm_coll_s(c->hw, COLL_REDUCE_SCATTER, ops[i].bytes, c->tp_shape);
			break;
		case OPK_EP_ALLTOALL:
			ops[i].s = moe_alltoall_s(c->hw, ops[i].bytes, c->ep_shape);
			break;
		case OPK_CP_ALLGATHER:
			ops[i].s = comm_coll_s(c->hw, COLL_ALL_GATHER, ops[i].bytes, c->cp_shape);
			break;
		case OPK_CP_REDUCESCATTER:
			ops[i].s = comm_coll_s(c->hw, COLL_REDUCE_SCATTER, ops[i].bytes, c->cp_shape);
			break;
		case OPK_SIDE_TP_P2P:  /* every rank sends to its ring neighbour at once: one hop's time, per hop */
		case OPK_SIDE_CP_P2P: {  /* a ring that leaves the node waits for its slowest, inter-node hop */
			int hops = ops[i].hops > 0 ? ops[i].hops : 1;
			struct group_shape g = ops[i].kind == OPK_SIDE_TP_P2P ? c->tp_shape : c->cp_shape;
			ops[i].s = hops * comm_p2p_s(c->hw, ops[i].bytes / hops, g.nodes <= 1);
			break;
		}
		case OPK_COMPUTE:
		case OPK_SIDE_WAIT:
			break;
		}
	double cs, ms;
	hwmodel_tp_overlap(c->hw, &cs, &ms);
	overlap_slowdown(ops, n, cs, ms);
}

static int count_ar(const struct opcost *ops, int n)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		k += ops[i].kind != OPK_COMPUTE;
	return k;
}

/* About how many compute-stream instructions a stage gets: per layer pass, each TP all-reduce splits a
 * segment; per unit a few receives, records and waits. Only a capacity hint. */
static size_t compute_instr_estimate(const struct ctx *c)
{
	size_t fwd = 2 * (size_t)count_ar(c->fwd, c->nfwd) + 1, bwd = 2 * (size_t)count_ar(c->bwd, c->nbwd) + 1;
	if (c->sc->train.recompute == RECOMPUTE_FULL)
		bwd += fwd;
	if (c->sc->par.zero == 3)
		fwd += 2, bwd += 3;
	return (size_t)c->m * c->v * (c->Lv * (fwd + bwd) + 16) + 16;
}

int build_programs(const struct scenario *sc, const struct hwmodel *hw, int keep_ops, struct build *out)
{
	const struct parallel_cfg *par = &sc->par;
	if (par->pp > UINT16_MAX)
		return diag_errorf("parallel.pp: at most %d pipeline stages, got %d", UINT16_MAX, par->pp);
	if (sc->train.offload_layers > 0 && !(hw->node.host_gbps > 0))
		return diag_errorf("training.offload_layers: hardware '%s' gives no node.host_gbps (the GPU's link to "
				   "host memory), so the copies cannot be timed", hw->name);
	out->pp = par->pp;
	out->progs = xcalloc(par->pp, sizeof *out->progs);
	out->stages = xcalloc(par->pp, sizeof *out->stages);

	struct ctx c;
	memset(&c, 0, sizeof c);
	c.sc = sc;
	c.hw = hw;
	struct opcost *lists = xmalloc(7 * OPS_MAX * sizeof *lists);  /* only what the ops fill is read */
	c.fwd = lists, c.bwd = lists + OPS_MAX, c.efwd = lists + 2 * OPS_MAX, c.ebwd = lists + 3 * OPS_MAX;
	c.hfwd = lists + 4 * OPS_MAX, c.hbwd = lists + 5 * OPS_MAX, c.rfwd = lists + 6 * OPS_MAX;
	c.p = par->pp;
	c.v = par->schedule == SCHED_INTERLEAVED ? par->virtual_stages : 1;
	c.m = scenario_num_microbatches(sc);
	c.Lv = scenario_chunk_layers(sc, 0);
	c.last_j = c.p * c.v - 1;
	c.oc = (struct opctx){ hw, sc, par->tp, scenario_rank_tokens(sc), ops_host_rank_factor(hw, sc) };
	c.rdp = scenario_grad_ranks(sc);
	ops_host_cost(hw, sc, &c.host);
	if (sc->model.type != MODEL_DENSE) {
		c.nfwd = ops_layer_fwd(&c.oc, c.fwd);
		c.nbwd = ops_layer_bwd(&c.oc, sc->train.recompute == RECOMPUTE_SELECTIVE, c.bwd);
		if (sc->train.recompute == RECOMPUTE_OP)
			c.nrfwd = recompute_op_list(&c.oc, c.fwd, c.nfwd, c.rfwd);
		c.layer_tensors = op_tensors(&c, c.bwd, c.nbwd);
		c.fwd0_host = c.nfwd > 0 ? c.fwd[0].host : 0;
		c.bwd0_host = c.nbwd > 0 ? c.bwd[0].host : 0;
	}
	c.layer_params = sc->model.moe.experts > 0 ? moe_layer_params_local(sc, 0)
						     : scenario_params_per_layer(sc) / par->tp;
	if (sc->model.vocab > 0) {
		c.nefwd = ops_embed_fwd(&c.oc, c.efwd);
		c.nebwd = ops_embed_bwd(&c.oc, c.ebwd);
		c.nhfwd = ops_head_fwd(&c.oc, c.hfwd);
		c.nhbwd = ops_head_bwd(&c.oc, c.hbwd);
	}
	int gpn = hw->node.gpus;
	c.pg_ev = xcalloc((size_t)c.v * scenario_max_chunk_layers(sc), sizeof *c.pg_ev);
	c.reload_ev = xcalloc((size_t)scenario_max_chunk_layers(sc), sizeof *c.reload_ev);
	c.pg_done = xcalloc((size_t)c.v, sizeof *c.pg_done);
	c.rc = xcalloc((size_t)scenario_max_chunk_layers(sc) + 1, sizeof *c.rc);
	c.run = xcalloc((size_t)scenario_max_chunk_layers(sc) + 1, sizeof *c.run);
	c.act = xcalloc(2 * (size_t)c.v, sizeof *c.act);
	c.transient = c.act + c.v;
	for (int s = 0; s < par->pp; s++) {
		int base = par->tp * c.rdp * s;
		c.s = s;
		c.Lv = scenario_chunk_layers(sc, s);
		c.layer0 = scenario_chunk_first_layer(sc, s);
		c.prog = &out->progs[s];
		c.tp_shape = comm_shape(gpn, base, 1, par->tp);
		/* CP ranks sit between TP and DP: the gradient group is every rank tp apart, dp*cp of them */
		c.dp_shape = comm_shape(gpn, base, par->tp, c.rdp);
		c.cp_shape = comm_shape(gpn, base, par->tp, par->cp > 1 ? par->cp : 1);
		/* EP groups: ep ranks etp apart (Megatron's expert groups, TP innermost) */
		c.ep_shape = comm_shape(gpn, base, scenario_etp(sc), par->ep);
		c.fp8_shape = comm_shape(gpn, base, 1, par->tp * c.rdp);
		c.pending_bytes = 0;
		c.copied_bytes = 0;
		c.pending_tensors = 0;
		c.copied_tensors = 0;
		c.ndeferred = 0;
		c.pending_expert = 0;
		memset(&c.gcb, 0, sizeof c.gcb);
		c.edp_shape = comm_shape(gpn, base, par->ep * scenario_etp(sc), moe_edp(sc));
		int S = scenario_shard_group(sc);
		c.shard_shape = comm_shape(gpn, base, par->tp, S);
		c.repl_shape = comm_shape(gpn, base, par->tp * S, c.rdp / S);
		time_tp(&c, c.fwd, c.nfwd);
		time_tp(&c, c.bwd, c.nbwd);
		time_tp(&c, c.rfwd, c.nrfwd);
		time_tp(&c, c.efwd, c.nefwd);
		time_tp(&c, c.ebwd, c.nebwd);  /* SP: the all-gather of the embedding output's gradient */
		time_tp(&c, c.hfwd, c.nhfwd);
		time_tp(&c, c.hbwd, c.nhbwd);
		/* a repeated layer's compute-bound seconds as its lists are emitted: after time_tp, whose overlap
		 * interference lengthens the GEMM chunks beside a TP transfer (a stored list's are counted so, with
		 * --trace every pass's: the two must agree) */
		c.pass_fwd = bound_sum(c.fwd, c.nfwd);
		c.pass_bwd = bound_sum(c.bwd, c.nbwd);
		stage_graph_calls(&c);
		program_init(c.prog, 2 * c.m * c.v + tied_exchange(&c), keep_ops);
		program_reserve(c.prog, STREAM_COMPUTE, compute_instr_estimate(&c));
		/* each unit's send is a wait, the transfer and (blocking p2p) a record: no regrowing and copying */
		program_reserve(c.prog, STREAM_SENDF, 3 * (size_t)c.m * c.v + 16);
		program_reserve(c.prog, STREAM_SENDB, 3 * (size_t)c.m * c.v + 16);
		program_host(c.prog, c.host.step);
		c.bound = (struct clocked){ 0, 0 };
		memset(c.tally, 0, sizeof c.tally);
		c.send_s[0] = c.send_s[1] = 0;
		layers_prepare(&c);
		for (int k = 0; k < c.v; k++)
			c.pg_done[k] = false;
		build_stage(&c, &out->stages[s]);
		struct clocked bound = tally_total(&c);
		out->stages[s].compute_bound_s = bound.scaled;
		out->stages[s].at_max_s = bound.at_max;
		program_seal(c.prog);
	}
	free(c.deferred);
	free(c.pg_ev);
	free(c.reload_ev);
	free(c.pg_done);
	free(lists);
	free(c.rc);
	free(c.run);
	free(c.act);
	return 0;
}

void build_release(struct build *b)
{
	for (int s = 0; s < b->pp; s++)
		program_release(&b->progs[s]);
	free(b->progs);
	free(b->stages);
	memset(b, 0, sizeof *b);
}
