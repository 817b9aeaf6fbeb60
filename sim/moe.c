/* moe: the MoE layer's ops, parameters, activations and all-to-all (see moe.h). Shapes on one rank, T tokens
 * of the micro-batch, h hidden, e bytes of the model dtype, E experts, El = E/ep local experts, k = top_k,
 * fe = moe.ffn_hidden / etp (fe_in = 2*fe for SwiGLU), rows = moe_expert_rows:
 *   router        GEMM (T, E, h) in the model dtype; softmax and top-k over the fp32 logits
 *   permute       gather the R routed tokens' rows into A = R*k expert-ordered rows: read R*h*e, write A*h*e
 *   dispatch      all-to-all over the EP group of rows*h*e bytes (the busiest rank's receive buffer)
 *   fc1, fc2      grouped GEMMs: El GEMMs of rows/El rows each, (rows/El, fe_in, h) and (rows/El, h, fe)
 *   combine       all-to-all back, the same bytes
 *   unpermute     the top-k outputs weighted and summed per token: read A*h*e, write R*h*e
 *   shared        every token through the shared experts, a TP-sharded MLP of width S = shared*shared_ffn/tp
 * then the TP reduction of the MLP output (etp = tp: an all-reduce of T*h*e, as a dense MLP's; etp < tp: an
 * all-gather of the tp/etp token slices, T*h*e). The backward runs the same in reverse with dgrad and wgrad. */
#include "sim/moe.h"

#include <math.h>
#include "sim/fp8.h"

struct mdim {
	double T, R, A, rows, h, e, E, El, fe, fe_in, S, S_in;
	int tp, etp, ep;
};

static struct mdim mdim_of(const struct opctx *c)
{
	const struct scenario *sc = c->sc;
	const struct moe_cfg *mo = &sc->model.moe;
	struct mdim d;
	d.tp = sc->par.tp;
	d.etp = scenario_etp(sc);
	d.ep = sc->par.ep;
	d.T = c->tokens;
	d.R = moe_routed_rows(sc, c->tokens);
	d.A = d.R * mo->top_k;
	d.rows = moe_expert_rows(sc, c->tokens);
	d.h = sc->model.hidden;
	d.e = dtype_bytes(sc->model.dtype);
	d.E = mo->experts;
	d.El = (double)mo->experts / d.ep;
	d.fe = (double)mo->ffn_hidden / d.etp;
	d.fe_in = sc->model.ffn == FFN_SWIGLU ? 2 * d.fe : d.fe;
	d.S = (double)mo->shared_experts * mo->shared_ffn_hidden / d.tp;
	d.S_in = sc->model.ffn == FFN_SWIGLU ? 2 * d.S : d.S;
	return d;
}

double moe_routed_rows(const struct scenario *sc, double tokens)
{
	return tokens * scenario_etp(sc) / sc->par.tp;
}

double moe_expert_rows(const struct scenario *sc, double tokens)
{
	const struct moe_cfg *mo = &sc->model.moe;
	double A = moe_routed_rows(sc, tokens) * mo->top_k;
	return mo->capacity_factor > 0 ? mo->capacity_factor * A : mo->imbalance * A;
}

static int put_a2a(const struct opctx *c, const struct mdim *d, struct opcost *out, int n, const char *name)
{
	return d->ep < 2 ? n : ops_put_coll(c, out, n, OPK_EP_ALLTOALL, name, d->rows * d->h * d->e);
}

/* The MLP output's TP reduction (forward) or the input gradient's (backward). */
static int put_tp(const struct opctx *c, const struct mdim *d, struct opcost *out, int n, int bwd)
{
	if (d->etp == d->tp)
		return ops_put_coll(c, out, n, OPK_TP_ALLREDUCE, bwd ? "tp_allreduce_moe_bwd" : "tp_allreduce_moe",
				    d->T * d->h * d->e);
	return ops_put_coll(c, out, n, OPK_TP_ALLGATHER, bwd ? "tp_allgather_moe_bwd" : "tp_allgather_moe",
			    d->T * d->h * d->e);
}

static int shared_fwd(const struct opctx *c, const struct mdim *d, struct opcost *out, int n)
{
	if (d->S == 0)
		return n;
	const struct hwmodel *hw = c->hw;
	n = ops_put(out, n, "shared_fc1", fp8_linear_gemm_s(hw, c->sc, d->T, d->S_in, d->h), true);
	n = ops_ffn_act(c, out, n, d->T, d->S, 0);
	n = ops_quantize(c, out, n, "shared_fc2_quantize", d->T * d->S);
	n = ops_put(out, n, "shared_fc2", fp8_linear_gemm_s(hw, c->sc, d->T, d->h, d->S), true);
	if (d->etp < d->tp)  /* the shared experts' own partial sums; with etp = tp they join the routed ones */
		n = ops_put_coll(c, out, n, OPK_TP_ALLREDUCE, "tp_allreduce_shared", d->T * d->h * d->e);
	return n;
}

static int shared_bwd(const struct opctx *c, const struct mdim *d, struct opcost *out, int n)
{
	if (d->S == 0)
		return n;
	const struct hwmodel *hw = c->hw;
	n = ops_quantize(c, out, n, "shared_fc2_grad_quantize", d->T * d->h);
	n = ops_put(out, n, "shared_fc2_dgrad", fp8_linear_gemm_s(hw, c->sc, d->T, d->S, d->h), true);
	n = ops_put(out, n, "shared_fc2_wgrad", fp8_linear_gemm_s(hw, c->sc, d->h, d->S, d->T), true);
	n = ops_ffn_act(c, out, n, d->T, d->S, 1);
	n = ops_quantize(c, out, n, "shared_fc1_grad_quantize", d->T * d->S_in);
	n = ops_put(out, n, "shared_fc1_dgrad", fp8_linear_gemm_s(hw, c->sc, d->T, d->h, d->S_in), true);
	n = ops_put(out, n, "shared_fc1_wgrad", fp8_linear_gemm_s(hw, c->sc, d->S_in, d->h, d->T), true);
	if (d->etp < d->tp)
		n = ops_put_coll(c, out, n, OPK_TP_ALLREDUCE, "tp_allreduce_shared_bwd", d->T * d->h * d->e);
	return n;
}

int moe_mlp_fwd(const struct opctx *c, struct opcost *out, int n)
{
	const struct hwmodel *hw = c->hw;
	const struct scenario *sc = c->sc;
	struct mdim d = mdim_of(c);
	double m = d.rows / d.El;
	n = ops_put(out, n, "moe_router", ops_gemm_s(hw, sc->model.dtype, d.T, d.E, d.h), true);
	/* the logits upcast and softmax (read e, write 4, read 4, write 4) and top-k (read 4, write k indices and
	 * probabilities, 8 + 4 each) */
	n = ops_put(out, n, "moe_router_topk", ops_mem_s(hw, d.T * d.E * (d.e + 12) + d.T * 12 * sc->model.moe.top_k),
		    false);
	n = ops_put(out, n, "moe_permute", ops_mem_s(hw, (d.R + d.A) * d.h * d.e), false);
	n = put_a2a(c, &d, out, n, "ep_dispatch_alltoall");
	n = ops_quantize(c, out, n, "expert_fc1_quantize", d.rows * d.h);
	n = ops_put(out, n, "expert_fc1", fp8_grouped_gemm_s(hw, sc, d.El, m, d.fe_in, d.h), true);
	n = ops_ffn_act(c, out, n, d.rows, d.fe, 0);
	n = ops_quantize(c, out, n, "expert_fc2_quantize", d.rows * d.fe);
	n = ops_put(out, n, "expert_fc2", fp8_grouped_gemm_s(hw, sc, d.El, m, d.h, d.fe), true);
	n = put_a2a(c, &d, out, n, "ep_combine_alltoall");
	n = ops_put(out, n, "moe_unpermute", ops_mem_s(hw, (d.A + d.R) * d.h * d.e), false);
	n = shared_fwd(c, &d, out, n);
	return put_tp(c, &d, out, n, 0);
}

int moe_mlp_bwd(const struct opctx *c, struct opcost *out, int n)
{
	const struct hwmodel *hw = c->hw;
	const struct scenario *sc = c->sc;
	struct mdim d = mdim_of(c);
	double m = d.rows / d.El;
	n = shared_bwd(c, &d, out, n);
	/* the unpermute's backward: each token's gradient scattered to its k rows, scaled by their probabilities,
	 * and the probabilities' gradient (read R*h*e and A*h*e saved outputs, write A*h*e) */
	n = ops_put(out, n, "moe_unpermute_bwd", ops_mem_s(hw, (d.R + 2 * d.A) * d.h * d.e), false);
	n = put_a2a(c, &d, out, n, "ep_combine_alltoall_bwd");
	n = ops_quantize(c, out, n, "expert_fc2_grad_quantize", d.rows * d.h);
	n = ops_put(out, n, "expert_fc2_dgrad", fp8_grouped_gemm_s(hw, sc, d.El, m, d.fe, d.h), true);
	n = ops_put(out, n, "expert_fc2_wgrad", fp8_grouped_gemm_s(hw, sc, d.El, d.h, d.fe, m), true);
	n = ops_ffn_act(c, out, n, d.rows, d.fe, 1);
	n = ops_quantize(c, out, n, "expert_fc1_grad_quantize", d.rows * d.fe_in);
	n = ops_put(out, n, "expert_fc1_dgrad", fp8_grouped_gemm_s(hw, sc, d.El, m, d.h, d.fe_in), true);
	n = ops_put(out, n, "expert_fc1_wgrad", fp8_grouped_gemm_s(hw, sc, d.El, d.fe_in, d.h, m), true);
	n = put_a2a(c, &d, out, n, "ep_dispatch_alltoall_bwd");
	n = ops_put(out, n, "moe_permute_bwd", ops_mem_s(hw, (d.A + d.R) * d.h * d.e), false);
	/* softmax backward (read probabilities and their gradient, write the logits' gradient, fp32), then the
	 * router's dgrad and wgrad */
	n = ops_put(out, n, "moe_router_softmax_bwd", ops_mem_s(hw, 3 * d.T * d.E * 4), false);
	n = ops_put(out, n, "moe_router_dgrad", ops_gemm_s(hw, sc->model.dtype, d.T, d.h, d.E), true);
	n = ops_put(out, n, "moe_router_wgrad", ops_gemm_s(hw, sc->model.dtype, d.E, d.h, d.T), true);
	return put_tp(c, &d, out, n, 1);
}

double moe_layer_params_local(const struct scenario *sc, int linear_only)
{
	const struct model_cfg *m = &sc->model;
	double h = m->hidden, kv_dim = h * m->kv_heads / m->heads;
	double attn = (2.0 * h * h + 2.0 * h * kv_dim) / sc->par.tp;
	double experts = moe_expert_params_local(sc);
	double shared = scenario_shared_expert_params(sc) / sc->par.tp;
	double rest = linear_only ? 0 : (double)m->moe.experts * h + 2.0 * h;
	return attn + experts + shared + rest;
}

double moe_expert_params_local(const struct scenario *sc)
{
	const struct moe_cfg *mo = &sc->model.moe;
	if (mo->experts == 0)
		return 0;
	return (double)mo->experts / sc->par.ep * scenario_expert_params(sc) / scenario_etp(sc);
}

int moe_edp(const struct scenario *sc)
{
	int g = (sc->par.ep > 1 ? sc->par.ep : 1) * scenario_etp(sc);  /* a scenario built by hand may leave ep 0 */
	int ranks = sc->par.tp * scenario_grad_ranks(sc);  /* tp*cp*dp: with CP the expert grid spans the CP ranks */
	return ranks / g > 0 ? ranks / g : 1;
}

double moe_mlp_act_bytes(const struct scenario *sc, double tokens, double xe)
{
	const struct moe_cfg *mo = &sc->model.moe;
	double rows = moe_expert_rows(sc, tokens), h = sc->model.hidden, e = dtype_bytes(sc->model.dtype);
	double fe = (double)mo->ffn_hidden / scenario_etp(sc), swiglu = sc->model.ffn == FFN_SWIGLU;
	double eager = swiglu && sc->train.exec != EXEC_COMPILED;
	double S = (double)mo->shared_experts * mo->shared_ffn_hidden / sc->par.tp;
	double b = tokens * h * xe            /* router and shared-expert input (the ln2 output) */
		 + tokens * mo->experts * 4   /* router probabilities, fp32 */
		 + rows * h * xe              /* permuted tokens: expert fc1 input */
		 + rows * fe * (1 + swiglu) * e  /* expert fc1 output */
		 + rows * fe * xe             /* expert fc2 input */
		 + eager * rows * fe * e      /* eager SwiGLU: silu's output */
		 + rows * h * e               /* expert output, for the weighted unpermute */
		 + (sc->model.dropout > 0) * tokens * h;  /* dropout mask */
	if (S > 0)
		b += tokens * S * (1 + swiglu) * e + tokens * S * xe + eager * tokens * S * e;
	return b;
}

double moe_alltoall_s(const struct hwmodel *hw, double bytes, struct group_shape g)
{
	if (g.n < 2)
		return 0;
	if (g.nodes == 1)
		return hwmodel_coll_us(hw, SCOPE_INTRA, COLL_ALL_TO_ALL, g.n, bytes) * 1e-6;
	/* of each rank's buffer, per_node/n stays on the node and (n - per_node)/n leaves it */
	double on = bytes * g.per_node / g.n, off = bytes * (g.n - g.per_node) / g.n;
	double intra = g.per_node > 1 ? hwmodel_coll_us(hw, SCOPE_INTRA, COLL_ALL_TO_ALL, g.per_node, on) : 0;
	/* the inter-node line over the whole group, fed the bytes whose (n-1)/n bus share is the off-node part,
	 * and never faster than the GPU's share of the network */
	double inter = hwmodel_coll_us(hw, SCOPE_INTER, COLL_ALL_TO_ALL, g.n, off * g.n / (g.n - 1));
	inter = fmax(inter, off / (comm_net_share_gbps(hw) * 1e3));
	return fmax(intra, inter) * 1e-6;
}
