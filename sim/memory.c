/* memory: per-tensor activation and state accounting (see memory.h). */
#include "sim/memory.h"

double mem_layer_full_act_bytes(const struct scenario *sc, int tp)
{
	const struct model_cfg *m = &sc->model;
	double T = (double)sc->train.micro_batch * m->seq, h = m->hidden, e = dtype_bytes(m->dtype);
	double f = (double)m->ffn_hidden / tp, f_in = m->ffn == FFN_SWIGLU ? 2 * f : f;
	double mlp = T * h * e          /* fc1 input (replicated) */
		   + T * f_in * e       /* activation input = fc1 output */
		   + T * f * e          /* fc2 input */
		   + T * h;             /* dropout mask */
	if (m->type == MODEL_MLP)
		return mlp;
	double hd = h / m->heads, heads = (double)m->heads / tp;
	double q = T * h / tp, kv = T * 2.0 * m->kv_heads * hd / tp;
	double attn = T * h * e          /* QKV input (replicated) */
		    + (q + kv) * e       /* Q, K, V */
		    + q * e              /* attention output = proj input */
		    + T * h;             /* dropout mask */
	if (m->flash_attention)
		attn += T * heads * 4;   /* softmax log-sum-exp, fp32 */
	else
		attn += (double)sc->train.micro_batch * heads * m->seq * m->seq * (2 * e + 1);
	double norms = 2 * T * h * e;
	return attn + mlp + norms;
}

double mem_layer_act_bytes(const struct scenario *sc, int tp)
{
	const struct model_cfg *m = &sc->model;
	double T = (double)sc->train.micro_batch * m->seq;
	switch (sc->train.recompute) {
	case RECOMPUTE_FULL:
		return T * m->hidden * dtype_bytes(m->dtype);
	case RECOMPUTE_SELECTIVE:
		if (!m->flash_attention && m->type == MODEL_TRANSFORMER) {
			double heads = (double)m->heads / tp;
			double sq = (double)sc->train.micro_batch * heads * m->seq * m->seq * (2 * dtype_bytes(m->dtype) + 1);
			return mem_layer_full_act_bytes(sc, tp) - sq;
		}
		return mem_layer_full_act_bytes(sc, tp);
	case RECOMPUTE_NONE:
		break;
	}
	return mem_layer_full_act_bytes(sc, tp);
}

double mem_weight_bytes_per_param(const struct scenario *sc)
{
	return dtype_bytes(sc->model.dtype);
}

double mem_grad_bytes_per_param(const struct scenario *sc)
{
	return dtype_bytes(sc->train.grad_dtype);
}

double mem_optimizer_bytes_per_param(const struct scenario *sc)
{
	double master = sc->train.master_dtype == sc->model.dtype ? 0 : dtype_bytes(sc->train.master_dtype);
	return master + (sc->train.optimizer == OPT_ADAM ? 8 : 4);
}
