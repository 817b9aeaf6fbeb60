/* build: stage programs from the scenario (see build.h). Placement is Megatron's: global rank
 * r = t + tp*(d + dp*s) for TP index t, DP replica d and stage s, so TP groups are innermost (inside a node
 * when tp <= GPUs per node), then DP, then PP; a group's collective pays network costs when it spans nodes.
 * All ranks of a stage share one program: times are computed for the stage's first rank (d = t = 0). */
#include "sim/build.h"

#include <stdlib.h>
#include <string.h>
#include "sim/comm.h"
#include "sim/memory.h"
#include "sim/ops.h"
#include "sim/schedule.h"
#include "util/xalloc.h"

struct ctx {
	const struct scenario *sc;
	const struct hwmodel *hw;
	struct program *prog;
	struct opctx oc;
	struct group_shape tp_shape, dp_shape;
	int p, v, m, s, Lv, last_j;
	struct opcost fwd[OPS_MAX], bwd[OPS_MAX], efwd[OPS_MAX], ebwd[OPS_MAX], hfwd[OPS_MAX], hbwd[OPS_MAX];
	int nfwd, nbwd, nefwd, nebwd, nhfwd, nhbwd;
	double pending_bytes;     /* gradients produced but not yet in a bucket */
	double *deferred;         /* buckets held back when dp_overlap is off */
	int ndeferred, capdeferred;
};

/* Emit an op list: each run of compute ops adds its in-order sum to the open segment; TP all-reduces split it. */
static void emit(struct ctx *c, const struct opcost *ops, int n, int layer, int mb)
{
	for (int i = 0; i < n;) {
		if (ops[i].kind != OPK_COMPUTE) {
			program_coll(c->prog, STREAM_COMPUTE, GROUP_TP, ops[i].s, CAT_TP, ops[i].name, layer, mb);
			i++;
			continue;
		}
		double sum = 0;
		int keep = c->prog->keep_ops, first = i;
		if (!keep)
			program_op(c->prog, NULL, 0, CAT_COMPUTE, layer, mb);  /* open the segment */
		for (; i < n && ops[i].kind == OPK_COMPUTE; i++) {
			if (keep)
				program_op(c->prog, ops[i].name, ops[i].s, CAT_COMPUTE, layer, mb);
			sum += ops[i].s;
		}
		program_add_time(c->prog, i - first, sum);
	}
}

static void bucket_issue(struct ctx *c, double bytes)
{
	int ev = program_record(c->prog, STREAM_COMPUTE);
	program_wait(c->prog, STREAM_DP, ev, CAT_DP);
	program_coll(c->prog, STREAM_DP, GROUP_DP, comm_coll_s(c->hw, COLL_ALL_REDUCE, bytes, c->dp_shape), CAT_DP,
		     "dp_allreduce", -1, -1);
}

/* Gradients of `params` parameters are ready: add them to the open bucket, issue it when full. */
static void grads_ready(struct ctx *c, double params, int final)
{
	if (c->sc->par.dp < 2)
		return;
	c->pending_bytes += params * dtype_bytes(c->sc->train.grad_dtype);
	if (c->pending_bytes < c->sc->par.dp_bucket_bytes && !(final && c->pending_bytes > 0))
		return;
	if (c->sc->par.dp_overlap) {
		bucket_issue(c, c->pending_bytes);
	} else {
		if (c->ndeferred == c->capdeferred) {
			c->capdeferred = c->capdeferred ? 2 * c->capdeferred : 16;
			c->deferred = xrealloc(c->deferred, c->capdeferred * sizeof *c->deferred);
		}
		c->deferred[c->ndeferred++] = c->pending_bytes;
	}
	c->pending_bytes = 0;
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
	int stride = sc->par.tp * sc->par.dp, gpn = c->hw->node.gpus;
	int same = (c->s * stride) / gpn == (dest * stride) / gpn;
	double bytes = c->oc.tokens * sc->model.hidden * dtype_bytes(sc->model.dtype);
	if (sc->par.pp_scatter_gather)
		bytes /= sc->par.tp;
	enum stream_kind st = bwd ? STREAM_SENDB : STREAM_SENDF;
	int ev = program_record(c->prog, STREAM_COMPUTE);
	program_wait(c->prog, st, ev, CAT_PP);
	program_send(c->prog, st, dest, slot(c, mb, dchunk, bwd), same ? LINK_INTRA : LINK_INTER,
		     comm_p2p_s(c->hw, bytes, same), bwd ? "send_grad" : "send_activation", mb);
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
	if (sc->par.pp_scatter_gather && sc->par.tp > 1) {
		double bytes = c->oc.tokens * sc->model.hidden * dtype_bytes(sc->model.dtype);
		program_coll(c->prog, STREAM_COMPUTE, GROUP_TP, comm_coll_s(c->hw, COLL_ALL_GATHER, bytes, c->tp_shape),
			     CAT_PP, "pp_allgather", -1, mb);
	}
}

static double layer_params_local(const struct ctx *c)
{
	return scenario_params_per_layer(c->sc) / c->sc->par.tp;
}

static double vocab_params_local(const struct ctx *c)
{
	return (double)c->sc->model.vocab * c->sc->model.hidden / c->sc->par.tp;
}

static void unit_forward(struct ctx *c, int mb, int chunk)
{
	int j = chunk * c->p + c->s, has_vocab = c->sc->model.vocab > 0;
	program_unit_begin(c->prog);
	if (j > 0)
		recv(c, mb, slot(c, mb, chunk, 0));
	if (j == 0 && has_vocab)
		emit(c, c->efwd, c->nefwd, -1, mb);
	for (int l = 0; l < c->Lv; l++)
		emit(c, c->fwd, c->nfwd, j * c->Lv + l, mb);
	if (j == c->last_j && has_vocab)
		emit(c, c->hfwd, c->nhfwd, -1, mb);
	if (j < c->last_j)
		send(c, 0, mb, chunk);
}

static void unit_backward(struct ctx *c, int mb, int chunk, int last_of_chunk)
{
	int j = chunk * c->p + c->s, has_vocab = c->sc->model.vocab > 0;
	int full = c->sc->train.recompute == RECOMPUTE_FULL;
	program_unit_begin(c->prog);
	if (j < c->last_j)
		recv(c, mb, slot(c, mb, chunk, 1));
	if (j == c->last_j && has_vocab) {
		emit(c, c->hbwd, c->nhbwd, -1, mb);
		if (last_of_chunk)
			grads_ready(c, vocab_params_local(c), 0);
	}
	for (int l = c->Lv - 1; l >= 0; l--) {
		int layer = j * c->Lv + l;
		if (full)
			emit(c, c->fwd, c->nfwd, layer, mb);
		emit(c, c->bwd, c->nbwd, layer, mb);
		if (last_of_chunk)
			grads_ready(c, layer_params_local(c), l == 0 && !(j == 0 && has_vocab));
	}
	if (j == 0 && has_vocab) {
		emit(c, c->ebwd, c->nebwd, -1, mb);
		if (last_of_chunk)
			grads_ready(c, vocab_params_local(c), 1);
	}
	if (j > 0)
		send(c, 1, mb, chunk);
}

static double unit_act_bytes(const struct ctx *c, int chunk)
{
	const struct scenario *sc = c->sc;
	int j = chunk * c->p + c->s;
	double b = c->Lv * mem_layer_act_bytes(sc, sc->par.tp);
	if (sc->model.vocab > 0 && j == c->last_j)  /* fp32 softmax of the vocab-parallel logits */
		b += c->oc.tokens * ((double)sc->model.vocab / sc->par.tp) * 4;
	if (sc->model.vocab > 0 && j == 0)
		b += c->oc.tokens * sc->model.hidden * dtype_bytes(sc->model.dtype);
	return b;
}

static void build_stage(struct ctx *c, struct stage_info *info)
{
	const struct scenario *sc = c->sc;
	int n = 2 * c->m * c->v;
	struct unit *order = xmalloc(n * sizeof *order);
	sched_order(sc->par.schedule, c->p, c->v, c->m, c->s, order);
	int *last_b = xmalloc(c->v * sizeof *last_b);
	for (int i = 0; i < n; i++)
		if (order[i].bwd)
			last_b[order[i].chunk] = i;

	double live = 0, peak = 0;
	int live_units = 0, peak_units = 0;
	for (int i = 0; i < n; i++) {
		const struct unit *u = &order[i];
		if (!u->bwd) {
			unit_forward(c, u->mb, u->chunk);
			live += unit_act_bytes(c, u->chunk);
			live_units++;
			if (live > peak)
				peak = live;
			if (live_units > peak_units)
				peak_units = live_units;
		} else {
			unit_backward(c, u->mb, u->chunk, i == last_b[u->chunk]);
			live -= unit_act_bytes(c, u->chunk);
			live_units--;
		}
	}
	for (int i = 0; i < c->ndeferred; i++)
		bucket_issue(c, c->deferred[i]);
	if (sc->par.dp > 1) {
		int done = program_record(c->prog, STREAM_DP);
		program_wait(c->prog, STREAM_COMPUTE, done, CAT_DP);
	}

	double params = c->v * c->Lv * layer_params_local(c);
	if (sc->model.vocab > 0) {
		if (c->s == 0)
			params += vocab_params_local(c);
		if (c->s == c->p - 1)
			params += vocab_params_local(c);
	}
	double t_opt = ops_optimizer_s(&c->oc, params);
	program_unit_begin(c->prog);
	program_op(c->prog, "optimizer", t_opt, CAT_OPTIMIZER, -1, -1);
	program_add_time(c->prog, 1, t_opt);
	program_flush(c->prog);

	if (sc->train.recompute == RECOMPUTE_FULL)
		peak += mem_layer_full_act_bytes(sc, sc->par.tp);
	info->params = params;
	info->weights = params * mem_weight_bytes_per_param(sc);
	info->gradients = params * mem_grad_bytes_per_param(sc);
	info->optimizer = params * mem_optimizer_bytes_per_param(sc);
	info->activations = peak;
	info->peak_units = peak_units;
	info->peak_inflight = (peak_units + c->v - 1) / c->v;
	free(order);
	free(last_b);
}

/* Time the TP all-reduces of an op list for this stage's TP group (the rest was timed by ops.c). */
static void time_tp(struct ctx *c, struct opcost *ops, int n)
{
	for (int i = 0; i < n; i++)
		if (ops[i].kind == OPK_TP_ALLREDUCE)
			ops[i].s = comm_coll_s(c->hw, COLL_ALL_REDUCE, ops[i].bytes, c->tp_shape);
}

int build_programs(const struct scenario *sc, const struct hwmodel *hw, int keep_ops, struct build *out)
{
	const struct parallel_cfg *par = &sc->par;
	out->pp = par->pp;
	out->progs = xcalloc(par->pp, sizeof *out->progs);
	out->stages = xcalloc(par->pp, sizeof *out->stages);

	struct ctx c;
	memset(&c, 0, sizeof c);
	c.sc = sc;
	c.hw = hw;
	c.p = par->pp;
	c.v = par->schedule == SCHED_INTERLEAVED ? par->virtual_stages : 1;
	c.m = scenario_num_microbatches(sc);
	c.Lv = sc->model.layers / (c.p * c.v);
	c.last_j = c.p * c.v - 1;
	c.oc = (struct opctx){ hw, sc, par->tp, (double)sc->train.micro_batch * sc->model.seq };
	c.nfwd = ops_layer_fwd(&c.oc, c.fwd);
	c.nbwd = ops_layer_bwd(&c.oc, sc->train.recompute == RECOMPUTE_SELECTIVE, c.bwd);
	if (sc->model.vocab > 0) {
		c.nefwd = ops_embed_fwd(&c.oc, c.efwd);
		c.nebwd = ops_embed_bwd(&c.oc, c.ebwd);
		c.nhfwd = ops_head_fwd(&c.oc, c.hfwd);
		c.nhbwd = ops_head_bwd(&c.oc, c.hbwd);
	}
	int gpn = hw->node.gpus;
	for (int s = 0; s < par->pp; s++) {
		int base = par->tp * par->dp * s;
		c.s = s;
		c.prog = &out->progs[s];
		c.tp_shape = comm_shape(gpn, base, 1, par->tp);
		c.dp_shape = comm_shape(gpn, base, par->tp, par->dp);
		c.pending_bytes = 0;
		c.ndeferred = 0;
		time_tp(&c, c.fwd, c.nfwd);
		time_tp(&c, c.bwd, c.nbwd);
		time_tp(&c, c.efwd, c.nefwd);
		time_tp(&c, c.hfwd, c.nhfwd);
		time_tp(&c, c.hbwd, c.nhbwd);
		program_init(c.prog, 2 * c.m * c.v, keep_ops);
		build_stage(&c, &out->stages[s]);
	}
	free(c.deferred);
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
