/* memory: per-tensor activation and state accounting (see memory.h). */
#include "sim/memory.h"

#include "sim/cp.h"
#include "sim/fp8.h"
#include "sim/moe.h"
#include "sim/recompute.h"

double mem_layer_full_act_bytes(const struct scenario *sc, int tp)
{
	const struct model_cfg *m = &sc->model;
	/* T: the rank's tokens; with context parallelism seq/cp of each sequence, so every tensor below is 1/cp */
	double T = scenario_rank_tokens(sc), h = m->hidden, e = dtype_bytes(m->dtype);
	double f = (double)m->ffn_hidden / tp, f_in = m->ffn == FFN_SWIGLU ? 2 * f : f;
	if (m->type == MODEL_DENSE)
		return mem_dense_act_bytes(sc) / m->layers;
	/* a linear layer's saved input: the model dtype, or under training.fp8 the FP8 copy its wgrad reads */
	double xe = fp8_on(sc) ? fp8_elem_bytes(sc) : e;
	/* what is replicated over TP without sequence parallelism is split over it with SP (Korthikanti et al.
	 * 2022, Table 2: 34sbh/t + 5as^2b/t per layer with SP against sbh(10 + 24/t) + 5as^2b/t without): the
	 * inputs of the norms, of QKV and of fc1 and the dropout masks; the backward gathers QKV's and fc1's
	 * input again for their weight gradients instead of keeping it whole */
	double rep = sc->par.sp && tp > 1 ? 1.0 / tp : 1.0;
	/* model.dropout > 0: the 1-byte masks of the hidden dropout after the attention and MLP outputs (none by
	 * default: the reference rows measured without them, docs/validation.md) */
	double mask = m->dropout > 0 ? T * h * rep : 0;
	double mlp = T * h * xe * rep   /* fc1 input (replicated; SP: split) */
		   + T * f_in * e       /* activation input = fc1 output */
		   + T * f * xe         /* fc2 input */
		   + mask;
	if (m->ffn == FFN_SWIGLU && sc->train.exec != EXEC_COMPILED)
		mlp += T * f * e;       /* eager: silu's output, saved by the product */
	if (m->moe.experts > 0)
		mlp = moe_mlp_act_bytes(sc, T, xe);
	if (m->type == MODEL_MLP)
		return mlp;
	double hd = h / m->heads, heads = (double)m->heads / tp;
	double q = T * h / tp, kv = T * 2.0 * m->kv_heads * hd / tp;
	double qe = fp8_on(sc) && sc->train.fp8.attention ? fp8_elem_bytes(sc) : e;
	double attn = T * h * xe * rep   /* QKV input (replicated; SP: split) */
		    + (q + kv) * qe      /* Q, K, V */
		    + q * xe             /* attention output = proj input */
		    + mask;
	if (m->flash_attention)
		attn += T * heads * 4 + cp_saved_bytes(sc);  /* softmax log-sum-exp, fp32 (CP ring: one per step) */
	else
		attn += (double)sc->train.micro_batch * heads * m->seq * m->seq * (2 * e + 1);
	double norms = 2 * T * h * e;   /* each norm's input (and per-row statistics, not counted) */
	if (m->norm == NORM_RMSNORM_UNFUSED && sc->train.exec != EXEC_COMPILED)
		norms = 2 * T * h * (4 + e);  /* eager LlamaRMSNorm: its fp32 copy (pow, mul) and its output (weight) */
	return attn + mlp + norms * rep;
}

double mem_layer_act_bytes(const struct scenario *sc, int tp)
{
	const struct model_cfg *m = &sc->model;
	double T = scenario_rank_tokens(sc);
	switch (sc->train.recompute) {
	case RECOMPUTE_FULL:  /* the layer's input only; with SP its sequence share */
		return T * m->hidden * dtype_bytes(m->dtype) / (sc->par.sp && tp > 1 ? tp : 1);
	case RECOMPUTE_SELECTIVE:
		if (!m->flash_attention && m->type == MODEL_TRANSFORMER) {
			double heads = (double)m->heads / tp;
			double sq = (double)sc->train.micro_batch * heads * m->seq * m->seq * (2 * dtype_bytes(m->dtype) + 1);
			return mem_layer_full_act_bytes(sc, tp) - sq;
		}
		return mem_layer_full_act_bytes(sc, tp);
	case RECOMPUTE_OP:  /* torchtitan's per-op checkpointing: its saved outputs (sim/recompute.c) */
		if (m->type == MODEL_TRANSFORMER)
			return recompute_op_saved_bytes(sc, tp);
		break;
	case RECOMPUTE_NONE:
		break;
	}
	return mem_layer_full_act_bytes(sc, tp);
}

/* Bytes a parameter's weight takes: fp32 under AMP (the parameters are fp32), else the model dtype. */
double mem_weight_bytes_per_param(const struct scenario *sc)
{
	return sc->train.amp ? 4 : dtype_bytes(sc->model.dtype);
}

double mem_grad_bytes_per_param(const struct scenario *sc)
{
	return dtype_bytes(sc->train.grad_dtype);
}

bool mem_has_master(const struct scenario *sc)
{
	return !sc->train.amp && sc->train.master_dtype != sc->model.dtype;
}

/* A separate master copy (master_dtype), fp32 master gradients when the gradients are kept in a narrower dtype
 * (Megatron-LM's Float16Optimizer copies them into main_param.grad; a PyTorch loop upcasts its flat gradient
 * buffer), and the state: Adam's two moments or SGD's momentum in training.optimizer_state's dtype. */
double mem_optimizer_bytes_per_param(const struct scenario *sc)
{
	double master = mem_has_master(sc) ? dtype_bytes(sc->train.master_dtype) : 0;
	double master_grad = mem_has_master(sc) && dtype_bytes(sc->train.grad_dtype) < master ? master : 0;
	double state = (sc->train.optimizer == OPT_ADAM ? 2 : 1) * dtype_bytes(sc->train.state_dtype);
	return master + master_grad + state;
}

/* Dense layer list: what autograd saves for one micro-batch. Each linear saves its input (T*in; the first layer's
 * is the batch itself). relu and tanh save their output, which is the next linear's input unless dropout sits
 * between (then it is a tensor of its own, T*out); gelu saves its input (T*out); dropout saves a 1-byte mask.
 * The loss: log_softmax saves its output (T*out), mse its input (T*out). */
double mem_dense_act_bytes(const struct scenario *sc)
{
	const struct model_cfg *m = &sc->model;
	double T = sc->train.micro_batch, e = dtype_bytes(m->dtype), b = 0;
	for (int l = 0; l < m->layers; l++) {
		double o = m->widths[l + 1];
		b += T * m->widths[l] * e;
		if (l + 1 == m->layers) {
			b += m->loss == LOSS_NONE ? 0 : T * o * e;
			continue;
		}
		if (m->act == ACT_GELU || (m->dropout > 0 && m->act != ACT_NONE))
			b += T * o * e;
		if (m->dropout > 0)
			b += T * o;
	}
	return b;
}

double mem_stage_extra_bytes(const struct scenario *sc, int tp, int stage, int nstages, int held)
{
	const struct model_cfg *m = &sc->model;
	if (m->type == MODEL_DENSE)  /* a layer list of its own widths: not measured */
		return 0;
	double T = scenario_rank_tokens(sc), e = dtype_bytes(m->dtype), h = m->hidden;
	double th = T * h * e / (sc->par.sp && tp > 1 ? tp : 1);  /* one hidden-state tensor of a micro-batch */
	bool first = stage == 0, last = stage == nstages - 1, vocab = m->vocab > 0;
	double f = (double)m->ffn_hidden / tp, f_in = m->ffn == FFN_SWIGLU ? 2 * f : f;
	if (m->moe.experts > 0)  /* the dense MLP's width is not what the layer runs: the bwd term is MoE's own */
		f = f_in = 0;
	/* outputs in flight: the step's own without a loss; a stage's sent ones where the pipeline keeps them */
	bool kept = last ? !vocab : sc->par.pp_keep_outputs;
	double b = (kept ? held * th : 0)
		 + th + (!first ? th : 0)           /* the arriving gradient; the input's, sent back */
		 + T * f * e;                       /* the MLP's hidden gradient */
	if (sc->train.grad_accum_add)
		b += f_in * h * e;                  /* fc1's weight gradient before its add */
	if (sc->train.staged_inputs) {
		double n = scenario_num_microbatches(sc);
		if (vocab)
			b += n * T * 16;
		else
			b += 2 * n * th - (first ? held * th : 0) - (last ? th : 0);
	}
	return b;
}
