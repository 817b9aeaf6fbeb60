/* recompute: the recompute variants (see recompute.h). */
#include "sim/recompute.h"

#include <string.h>
#include "sim/fp8.h"
#include "sim/memory.h"

static int group(const struct scenario *sc, int Lv)
{
	int n = sc->train.recompute_layers;
	return n < 1 ? 1 : n > Lv ? Lv : n;
}

bool recompute_layer_full(const struct scenario *sc, int l, int Lv)
{
	if (sc->train.recompute != RECOMPUTE_FULL)
		return false;
	/* block: the first N layers; uniform (and the default): every layer */
	return !(sc->train.recompute_layers > 0 && sc->train.recompute_block) || l < group(sc, Lv);
}

int recompute_full_layers(const struct scenario *sc, int Lv)
{
	if (sc->train.recompute != RECOMPUTE_FULL)
		return 0;
	return sc->train.recompute_layers > 0 && sc->train.recompute_block ? group(sc, Lv) : Lv;
}

/* A layer's input, the tensor a full recompute keeps (with SP its sequence share). */
static double input_bytes(const struct scenario *sc, int tp)
{
	double T = scenario_rank_tokens(sc);  /* context parallelism: seq/cp of each sequence */
	return T * sc->model.hidden * dtype_bytes(sc->model.dtype) / (sc->par.sp && tp > 1 ? tp : 1);
}

/* Megatron's uniform method keeps the input of each group of N layers (ceil(Lv/N) of them); block keeps the
 * input of its first N layers and everything of the others. */
double recompute_chunk_act_bytes(const struct scenario *sc, int Lv, int tp)
{
	if (sc->train.recompute != RECOMPUTE_FULL || sc->train.recompute_layers < 1 || sc->model.type == MODEL_DENSE)
		return Lv * mem_layer_act_bytes(sc, tp);
	int N = group(sc, Lv);
	if (sc->train.recompute_block)
		return N * input_bytes(sc, tp) + (Lv - N) * mem_layer_full_act_bytes(sc, tp);
	return ((Lv + N - 1) / N) * input_bytes(sc, tp);
}

double recompute_transient_bytes(const struct scenario *sc, int Lv, int tp)
{
	switch (sc->train.recompute) {
	case RECOMPUTE_FULL:  /* uniform: a whole group's forward is alive while its backward runs */
		if (sc->train.recompute_layers > 0 && !sc->train.recompute_block)
			return group(sc, Lv) * mem_layer_full_act_bytes(sc, tp);
		return mem_layer_full_act_bytes(sc, tp);
	case RECOMPUTE_OP:    /* what the rerun rebuilds for the layer's backward */
		return mem_layer_full_act_bytes(sc, tp) - recompute_op_saved_bytes(sc, tp);
	case RECOMPUTE_NONE:
	case RECOMPUTE_SELECTIVE:
		break;
	}
	return 0;
}

/* torchtitan's op policy (torchtitan/models/llama3/infra/parallelize.py, _save_list and _custom_policy): it saves
 * the outputs of the attention kernel (SDPA), of reduce-scatters and of every odd matmul of a layer, counted in
 * the order torchtitan's modules call them (wq, wk, wv, wo, then w1, w3, w2 for SwiGLU or w1, w2 for GeLU),
 * and reruns the rest. Saved here: the layer's input, wq's output (T*h/tp), wv's (T*kv/tp), the attention's
 * output (T*h/tp) and log-sum-exp (fp32 per head and row), w1's (T*f/tp) and, with SwiGLU, w2's (the row-parallel
 * partial sum, T*h); with SP the two reduce-scatters' outputs (T*h/tp each). Model dtype throughout (the FP8
 * saved inputs are not modelled here). */
double recompute_op_saved_bytes(const struct scenario *sc, int tp)
{
	const struct model_cfg *m = &sc->model;
	double T = scenario_rank_tokens(sc), h = m->hidden, e = dtype_bytes(m->dtype);
	double kv = (double)m->kv_heads * (h / m->heads), f = (double)m->ffn_hidden / tp;
	double b = input_bytes(sc, tp) + T * h / tp * e + T * kv / tp * e + T * h / tp * e + T * m->heads / tp * 4;
	if (m->moe.experts > 0)
		return b + T * h * e;  /* the MoE block's output (its grouped GEMMs' outputs kept by the policy) */
	b += T * f * e;
	if (m->ffn == FFN_SWIGLU)
		b += T * h * e;
	if (sc->par.sp && tp > 1)
		b += 2 * T * h / tp * e;
	return b;
}

static int put_gemm(const struct opctx *c, struct opcost *out, int n, const char *name, double m, double nn,
		    double k)
{
	return ops_put(out, n, name, fp8_linear_gemm_s(c->hw, c->sc, m, nn, k), true);
}

/* The rerun: every memory-bound forward op (norms, rotary, activation, residual adds, casts and quantizes) and
 * every TP collective but a reduce-scatter (all-gathers and all-reduces are not in the save list), in forward
 * order; of the GEMMs the even ones: wk (T x kv/tp x h), wo (the whole proj), and w3 (T x f/tp x h, half of
 * the fused SwiGLU fc1) or, with GeLU, w2 (the whole fc2). The attention core and the MoE block's all-to-alls and
 * expert GEMMs are kept. */
int recompute_op_list(const struct opctx *c, const struct opcost *fwd, int n, struct opcost *out)
{
	const struct model_cfg *m = &c->sc->model;
	double T = c->tokens, h = m->hidden, kv = (double)m->kv_heads * (h / m->heads) / c->tp;
	double f = (double)m->ffn_hidden / c->tp;
	int k = 0;
	for (int i = 0; i < n && k < OPS_MAX; i++) {
		const struct opcost *o = &fwd[i];
		if (o->kind == OPK_TP_REDUCESCATTER || o->kind == OPK_EP_ALLTOALL)
			continue;
		if (ops_is_side(o->kind) || o->kind == OPK_SIDE_WAIT)
			continue;  /* the CP ring travels with the attention, whose output is saved */
		if (o->kind != OPK_COMPUTE) {
			out[k] = *o;
			k++;
			continue;
		}
		if (!o->compute_bound) {
			out[k++] = *o;
			continue;
		}
		if (strcmp(o->name, "qkv") == 0)
			k = put_gemm(c, out, k, "wk_recompute", T, kv, h);
		else if (strcmp(o->name, "proj") == 0)
			k = put_gemm(c, out, k, "wo_recompute", T, h, h / c->tp);
		else if (strcmp(o->name, "fc1") == 0 && m->ffn == FFN_SWIGLU)
			k = put_gemm(c, out, k, "w3_recompute", T, f, h);
		else if (strcmp(o->name, "fc2") == 0 && m->ffn != FFN_SWIGLU)
			k = put_gemm(c, out, k, "w2_recompute", T, h, f);
	}
	return ops_price_host(c, out, 0, k, 0);  /* the rerun's GEMMs too: forward ops */
}
