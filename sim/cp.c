/* cp: context parallelism's attention (see cp.h). */
#include "sim/cp.h"

#include "sim/fp8.h"
#include "sim/overlap.h"

static int cp_of(const struct scenario *sc)
{
	return sc->par.cp > 1 ? sc->par.cp : 1;
}

double cp_kv_bytes(const struct scenario *sc)
{
	const struct model_cfg *m = &sc->model;
	double hd = (double)m->hidden / m->heads;
	/* FP8 attention (training.fp8.attention): TE passes the FP8 K and V around the ring */
	double e = fp8_on(sc) && sc->train.fp8.attention ? fp8_elem_bytes(sc) : dtype_bytes(m->dtype);
	return scenario_rank_tokens(sc) * 2.0 * m->kv_heads / sc->par.tp * hd * e;
}

/* One fused attention kernel over `pairs` query-key pairs per (sequence, head) of this TP rank, at the rate the
 * hardware model gives a kernel over the rank's seq/cp tokens (causal: the masked diagonal block). */
static double block_s(const struct opctx *c, double pairs, bool causal, int bwd)
{
	const struct model_cfg *m = &c->sc->model;
	const struct hwmodel *hw = c->hw;
	double heads = (double)m->heads / c->tp, hd = (double)m->hidden / m->heads;
	double flops = 4 * c->sc->train.micro_batch * heads * pairs * hd * (bwd ? 2.5 : 1.0);
	double tf = hwmodel_attn_tflops_bh(hw, ops_attn_path(m), m->dtype, (double)m->seq / cp_of(c->sc), (int)hd,
					   causal, bwd, c->sc->train.micro_batch * heads);
	return fp8_attention_factor(hw, c->sc) * flops / (tf * 1e12) + ops_kernel_overhead_s(hw);
}

/* Query-key pairs of ring step i (per sequence and head): the causal diagonal (sl^2/2, sl = seq/cp) or half
 * an off-diagonal block (sl * sl/2); without a mask a whole block sl^2. */
static double step_pairs(const struct scenario *sc, int i)
{
	(void)i;  /* the same count at every step: that is the balance the two-chunk layout buys */
	double sl = (double)sc->model.seq / cp_of(sc);
	return sc->model.causal ? sl * sl / 2 : sl * sl;
}

static int put(struct opcost *out, int n, const char *name, double s, enum op_clock clk)
{
	return ops_put_attn(out, n, name, s, clk);
}

static int put_coll(struct opcost *out, int n, enum opkind kind, const char *name, double bytes)
{
	out[n] = (struct opcost){ name, kind, 0, bytes, false, 0, 0, 0, false };
	return n + 1;
}

/* The output of this TP rank's heads for the rank's tokens, model dtype: what a correction reads and writes. */
static double out_bytes(const struct opctx *c)
{
	return c->tokens * c->sc->model.hidden / c->tp * dtype_bytes(c->sc->model.dtype);
}

static int ring_fwd(const struct opctx *c, struct opcost *out, int n)
{
	int cp = cp_of(c->sc);
	double kv = cp_kv_bytes(c->sc), o = out_bytes(c);
	for (int i = 0; i < cp; i++) {
		if (i + 1 < cp)
			n = overlap_put_side(out, n, OPK_SIDE_CP_P2P, "cp_kv_send", kv);
		n = put(out, n, "cp_attention", block_s(c, step_pairs(c->sc, i), c->sc->model.causal && i == 0, 0),
			ops_attn_clock(c));
		if (i > 0)  /* out += out_i * exp(lse_i - lse), lse updated: read out and out_i, write out */
			n = put(out, n, "cp_out_correction", ops_mem_s(c->hw, 3 * o), OPCLK_FIXED);
		if (i + 1 < cp)
			n = overlap_put_wait(out, n);
	}
	return n;
}

static int ring_bwd(const struct opctx *c, struct opcost *out, int n)
{
	int cp = cp_of(c->sc);
	double kv = cp_kv_bytes(c->sc), o = out_bytes(c);
	for (int i = 0; i < cp; i++) {
		/* step 0 passes K/V on, the middle steps K/V with the dK/dV gathered so far, the last dK/dV alone */
		double b = i == 0 || i + 1 == cp ? kv : 2 * kv;
		n = overlap_put_side(out, n, OPK_SIDE_CP_P2P, i + 1 == cp ? "cp_dkv_send" : "cp_kv_send_bwd", b);
		n = put(out, n, "cp_attention_bwd", block_s(c, step_pairs(c->sc, i), c->sc->model.causal && i == 0, 1),
			ops_attn_clock(c));
		/* dq += dq_i, dkv += dkv_i: read both, write one, each */
		n = put(out, n, "cp_grad_accumulate", ops_mem_s(c->hw, 3 * (o + kv)), OPCLK_FIXED);
		n = overlap_put_wait(out, n);
	}
	return n;
}

/* all_gather: the rank's two chunks (causal) attend against the gathered K/V: half the rank's pairs each. */
static int gathered_blocks(const struct opctx *c, struct opcost *out, int n, int bwd)
{
	const struct scenario *sc = c->sc;
	double total = 0;
	for (int i = 0; i < cp_of(sc); i++)
		total += step_pairs(sc, i);
	const char *name = bwd ? "cp_attention_bwd" : "cp_attention";
	enum op_clock cb = ops_attn_clock(c);
	if (!sc->model.causal)
		return put(out, n, name, block_s(c, total, false, bwd), cb);
	n = put(out, n, name, block_s(c, total / 2, true, bwd), cb);
	return put(out, n, name, block_s(c, total / 2, true, bwd), cb);
}

int cp_attn_fwd(const struct opctx *c, struct opcost *out, int n)
{
	const struct scenario *sc = c->sc;
	if (cp_of(sc) < 2)
		return put(out, n, "attention", ops_attn_s(c, 0), ops_attn_clock(c));
	if (sc->par.cp_comm == CP_P2P)
		return ring_fwd(c, out, n);
	n = put_coll(out, n, OPK_CP_ALLGATHER, "cp_kv_allgather", cp_of(sc) * cp_kv_bytes(sc));
	return gathered_blocks(c, out, n, 0);
}

int cp_attn_bwd(const struct opctx *c, int recompute, struct opcost *out, int n)
{
	const struct scenario *sc = c->sc;
	if (cp_of(sc) < 2) {
		if (recompute)
			n = put(out, n, "attention_recompute", ops_attn_s(c, 0), ops_attn_clock(c));
		return put(out, n, "attention_bwd", ops_attn_s(c, 1), ops_attn_clock(c));
	}
	if (recompute)
		n = cp_attn_fwd(c, out, n);
	if (sc->par.cp_comm == CP_P2P)
		return ring_bwd(c, out, n);
	double g = cp_of(sc) * cp_kv_bytes(sc);
	if (!recompute)  /* the gathered K/V is not kept: gather it again */
		n = put_coll(out, n, OPK_CP_ALLGATHER, "cp_kv_allgather_bwd", g);
	n = gathered_blocks(c, out, n, 1);
	return put_coll(out, n, OPK_CP_REDUCESCATTER, "cp_dkv_reducescatter", g);
}

double cp_transient_bytes(const struct scenario *sc)
{
	if (cp_of(sc) < 2)
		return 0;
	double kv = cp_kv_bytes(sc);
	return sc->par.cp_comm == CP_P2P ? 4 * kv : 2.0 * cp_of(sc) * kv;
}

double cp_saved_bytes(const struct scenario *sc)
{
	if (cp_of(sc) < 2 || sc->par.cp_comm != CP_P2P)
		return 0;
	return (cp_of(sc) - 1) * scenario_rank_tokens(sc) * ((double)sc->model.heads / sc->par.tp) * 4;
}
