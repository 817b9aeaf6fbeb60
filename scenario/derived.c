/* derived: numbers computed from a loaded scenario (parameter counts, model FLOPs, micro-batch count), with the
 * counting conventions of docs/scenario.md. They read only consistent scenarios (scenario_load's guarantee),
 * so no division here can be by zero. All counts are doubles: a 1T-parameter model overflows no int. */
#include "scenario/scenario.h"

int scenario_num_microbatches(const struct scenario *s)
{
	return s->train.global_batch / (s->par.dp * s->train.micro_batch);
}

/* Transformer layer: Q and output projections h*h each, K and V h*(h*kv_heads/heads) each (GQA), MLP 2*h*f
 * (gelu) or 3*h*f (swiglu: gate, up, down), two norm weight vectors of h. Biases are ignored. An MLP layer is the
 * MLP block alone, without norms. */
double scenario_dense_layer_params(const struct scenario *s, int l)
{
	const struct model_cfg *m = &s->model;
	return (double)m->widths[l] * m->widths[l + 1] + (m->bias ? m->widths[l + 1] : 0);
}

static double dense_params(const struct scenario *s)
{
	double p = 0;
	for (int l = 0; l < s->model.layers; l++)
		p += scenario_dense_layer_params(s, l);
	return p;
}

static double mlp_params(const struct model_cfg *m, double f)
{
	return (m->ffn == FFN_SWIGLU ? 3.0 : 2.0) * m->hidden * f;
}

double scenario_expert_params(const struct scenario *s)
{
	return mlp_params(&s->model, s->model.moe.ffn_hidden);
}

double scenario_shared_expert_params(const struct scenario *s)
{
	return s->model.moe.shared_experts * mlp_params(&s->model, s->model.moe.shared_ffn_hidden);
}

/* MoE: the routed experts, the shared ones and the router's experts x hidden weights replace the MLP. */
static double moe_mlp_params(const struct scenario *s, int active)
{
	const struct moe_cfg *e = &s->model.moe;
	return (active ? e->top_k : e->experts) * scenario_expert_params(s) + scenario_shared_expert_params(s) +
	       (double)e->experts * s->model.hidden;
}

static double layer_params(const struct scenario *s, int active)
{
	const struct model_cfg *m = &s->model;
	if (m->type == MODEL_DENSE)
		return dense_params(s) / m->layers;
	double h = m->hidden, f = m->ffn_hidden;
	double mlp = m->moe.experts > 0 ? moe_mlp_params(s, active) : mlp_params(m, f);
	if (m->type == MODEL_MLP)
		return mlp;
	double kv_dim = h * m->kv_heads / m->heads;
	double attn = 2.0 * h * h + 2.0 * h * kv_dim;
	return attn + mlp + 2.0 * h;
}

double scenario_params_per_layer(const struct scenario *s)
{
	return layer_params(s, 0);
}

double scenario_active_params_per_layer(const struct scenario *s)
{
	return layer_params(s, 1);
}

/* Input embedding and output head are counted separately (untied): 2*vocab*hidden; tied: one matrix. */
double scenario_params_embedding(const struct scenario *s)
{
	return (double)scenario_vocab_matrices(s) * s->model.vocab * s->model.hidden;
}

/* Layers, embedding and head, and a transformer's final norm (hidden). For Llama-2-70B this gives 68,976,648,192,
 * the count of the released checkpoint. */
double scenario_params_total(const struct scenario *s)
{
	double final_norm = s->model.type == MODEL_TRANSFORMER ? s->model.hidden : 0;
	return s->model.layers * scenario_params_per_layer(s) + scenario_params_embedding(s) + final_norm;
}

int scenario_attn_len(const struct scenario *s)
{
	const struct model_cfg *m = &s->model;
	return m->doc_tokens > 0 && m->doc_tokens < m->seq ? m->doc_tokens : m->seq;
}

/* 6 FLOPs per parameter a token uses (MoE: top_k of the routed experts) per token (2 forward, 4 backward) for the layers and the output head (the embedding
 * lookup does no multiply), plus attention scores and values: 4*len*hidden per token per layer forward (QK^T
 * and AV, each 2*len*hidden, the full square even when causal; len = scenario_attn_len, the sequence or, packed,
 * its documents), times 3 for forward and backward. */
double scenario_model_flops(const struct scenario *s)
{
	const struct model_cfg *m = &s->model;
	double tokens = (double)s->train.global_batch * m->seq;
	double h = m->hidden;
	if (m->type == MODEL_DENSE) {  /* 6 per weight (biases add no multiply) per sample */
		double w = 0;
		for (int l = 0; l < m->layers; l++)
			w += (double)m->widths[l] * m->widths[l + 1];
		return 6.0 * w * tokens;
	}
	double flops = 6.0 * m->layers * scenario_active_params_per_layer(s) * tokens + 6.0 * m->vocab * h * tokens;
	if (m->type == MODEL_TRANSFORMER)
		flops += 3.0 * 4.0 * scenario_attn_len(s) * h * m->layers * tokens;
	return flops;
}

int scenario_etp(const struct scenario *s)
{
	return s->par.etp > 0 ? s->par.etp : s->par.tp;
}

double scenario_rank_tokens(const struct scenario *s)
{
	return (double)s->train.micro_batch * s->model.seq / (s->par.cp > 1 ? s->par.cp : 1);
}

int scenario_grad_ranks(const struct scenario *s)
{
	return s->par.dp * (s->par.cp > 1 ? s->par.cp : 1);
}
