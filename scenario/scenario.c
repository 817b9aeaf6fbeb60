/* scenario: loads a scenario YAML (docs/scenario.md) into struct scenario and checks it.
 *
 * Two passes. The first reads every key with its type and sign checks, so one run reports every bad field.
 * The second, run only when the first found nothing, checks how fields fit together (divisibility, gpus ==
 * dp*tp*pp*cp, schedule rules); by then every number is valid, so no error is a consequence of another. A
 * scenario that comes back with 0 therefore satisfies every invariant scenario.h promises. */
#include <errno.h>
#include <stdlib.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "hardware/hwmodel.h"
#include "scenario/scenario.h"
#include "util/diag.h"
#include "util/gserr.h"
#include "util/ydoc.h"
#include "scenario/layout_internal.h"
#include "scenario/recipes.h"
#include "scenario/ctxpar.h"
#include "scenario/variants.h"

static const char *const top_keys[] = { "name", "description", "model", "training", "parallel", "hardware", NULL };
static const char *const model_keys[] = { "name", "type", "layers", "hidden", "heads", "kv_heads", "ffn",
					  "ffn_hidden", "seq", "doc_tokens", "vocab", "dtype", "flash_attention", "causal", "rope", "norm",
					  "attention_kernel",
					  "widths",
					  "bias", "activation", "dropout", "loss", "moe", "tie_embeddings", NULL };
static const char *const train_keys[] = { "global_batch", "micro_batch", "optimizer", "master_weights",
					  "grad_dtype", "recompute", "grad_accumulation", "host_us_per_op", "execution",
					  "optimizer_state", "amp", "fp8", "recompute_layers", "recompute_method",
					  "offload_layers", "inputs", "param_storage", NULL };
/* The physical range of every number a scenario holds (docs/scenario.md, "Ranges"); a number outside is an error
 * at its place, so a typo (layers: 1e9) fails at load, not as a 960 GB allocation. */
static const struct yrange ranges[] = {
	{ "model.layers", 1, 1e5 },
	{ "model.hidden", 1, 1e6 },
	{ "model.heads", 1, 1e5 },
	{ "model.kv_heads", 1, 1e5 },
	{ "model.seq", 1, 1e8 },
	{ "model.doc_tokens", 1, 1e8 },
	{ "model.ffn_hidden", 1, 1e7 },
	{ "model.vocab", 0, 1e8 },
	{ "model.widths[]", 1, 1e8 },
	{ "model.dropout", 0, 1 },
	{ "training.global_batch", 1, 1e7 },
	{ "training.micro_batch", 1, 1e6 },
	{ "training.host_us_per_op", 0, 1e6 },
	{ "parallel.gpus", 1, 1e7 },
	{ "parallel.tp", 1, 1e5 },
	{ "parallel.pp", 1, 1e5 },
	{ "parallel.dp", 1, 1e7 },
	{ "parallel.virtual_stages", 1, 1e4 },
	{ "parallel.dp_bucket_bytes", 1, 1e13 },
	{ "parallel.zero", 0, 3 },
	{ "model.moe.experts", 1, 1e5 },
	{ "model.moe.top_k", 1, 1e5 },
	{ "model.moe.ffn_hidden", 1, 1e7 },
	{ "model.moe.shared_experts", 0, 1e4 },
	{ "model.moe.shared_ffn_hidden", 1, 1e7 },
	{ "model.moe.capacity_factor", 0, 1e3 },
	{ "model.moe.imbalance", 1, 1e3 },
	{ "training.fp8.amax_history", 1, 1e6 },
	{ "parallel.ep", 1, 1e7 },
	{ "parallel.etp", 1, 1e5 },
	{ "parallel.cp", 1, 1e5 },
	{ "parallel.first_stage_layers", 1, 1e5 },
	{ "training.recompute_layers", 1, 1e5 },
	{ "training.offload_layers", 1, 1e5 },
	{ "parallel.grad_compression.rank", 1, 1e5 },
	{ "parallel.shard_group", 1, 1e7 },
	{ "parallel.grad_compression.ratio", 1e-9, 1 },
	{ "parallel.last_stage_layers", 1, 1e5 },
	{ NULL, 0, 0 },
};

static const char *const par_keys[] = { "gpus", "tp", "pp", "dp", "schedule", "virtual_stages",
					"dp_bucket_bytes", "dp_overlap", "dp_bucket_copy", "pp_overlap", "pp_keep_outputs",
					"pp_scatter_gather", "sp", "overlap_param_gather", "zero",
					"ep", "etp", "first_stage_layers", "last_stage_layers", "grad_reduce_dtype",
					"grad_compression", "shard_group", "reshard_after_forward", "cp", "cp_comm", "tp_comm_overlap",
					NULL };

/* In enum order (scenario.h). */
static const char *const type_names[] = { "transformer", "mlp", "dense", NULL };
static const char *const act_names[] = { "relu", "gelu", "tanh", "none", NULL };
static const char *const loss_names[] = { "cross_entropy", "mse", "none", NULL };
static const char *const ffn_names[] = { "gelu", "swiglu", NULL };
static const char *const sched_names[] = { "gpipe", "1f1b", "interleaved", NULL };
static const char *const opt_names[] = { "adam", "sgd", NULL };
static const char *const recompute_names[] = { "none", "full", "selective", "op", NULL };

/* What the second pass needs to know about the file besides the values: which optional keys were given. */
struct seen {
	const struct ynode *root, *model, *train, *par;
	bool dp, gpus, vstages;
};

void scenario_file_stem(const char *path, char *buf, size_t size)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strlen(base);
	if (n > 5 && strcmp(base + n - 5, ".yaml") == 0)
		n -= 5;
	else if (n > 4 && strcmp(base + n - 4, ".yml") == 0)
		n -= 4;
	if (n >= size)
		n = size - 1;
	memcpy(buf, base, n);
	buf[n] = '\0';
}

static int enum_get(struct ydoc *d, const struct ynode *map, const char *key, const char *const *names, int *field)
{
	return ydoc_enum(d, map, key, 0, names, field);
}

/* model.dropout: a probability in [0, 1), 0 (none) by default */
static void read_dropout(struct ydoc *d, const struct ynode *m, struct model_cfg *mc)
{
	mc->dropout = 0;
	if (ydoc_double(d, m, "dropout", YD_NONNEG, &mc->dropout) == 1 && mc->dropout >= 1)
		ydoc_error(d, ynode_get(m, "dropout"), "model.dropout: a probability in [0, 1), got %g", mc->dropout);
}

/* type: dense: the widths list (input features, then each layer's output features) and the per-layer extras. */
static void read_dense(struct ydoc *d, const struct ynode *m, struct model_cfg *mc)
{
	double *w = NULL;
	int n = 0;
	if (ydoc_doubles(d, m, "widths", YD_REQUIRED | YD_POSITIVE, &w, &n) == 1) {
		const struct ynode *seq = ynode_get(m, "widths");
		if (n < 2 || n > MODEL_MAX_WIDTHS)
			ydoc_error(d, seq, "model.widths: give 2 to %d widths (input features, then each layer's "
				   "output features), got %d", MODEL_MAX_WIDTHS, n);
		for (int i = 0; i < n && i < MODEL_MAX_WIDTHS; i++) {
			if (w[i] != (int)w[i])
				ydoc_error(d, ynode_item(seq, i), "model.widths[%d]: expected a whole number, got %g", i,
					   w[i]);
			mc->widths[i] = (int)w[i];
		}
		mc->nwidths = n < MODEL_MAX_WIDTHS ? n : MODEL_MAX_WIDTHS;
		mc->layers = mc->nwidths - 1;
		mc->hidden = mc->widths[0];
	}
	free(w);
	for (int i = 0; i < 2; i++) {
		const char *k = i ? "hidden" : "layers";
		if (ynode_get(m, k))
			ydoc_error(d, ynode_get(m, k), "model.%s: a dense model takes its layers from model.widths", k);
	}
	int act = ACT_RELU, loss = LOSS_CROSS_ENTROPY;
	mc->bias = true;
	ydoc_bool(d, m, "bias", 0, &mc->bias);
	enum_get(d, m, "activation", act_names, &act);
	mc->act = (enum activation)act;
	enum_get(d, m, "loss", loss_names, &loss);
	mc->loss = (enum loss_kind)loss;
	read_dropout(d, m, mc);
}

static void read_model(struct ydoc *d, const struct ynode *m, struct scenario *s)
{
	struct model_cfg *mc = &s->model;
	int type = MODEL_TRANSFORMER, ffn = FFN_GELU, dt = DT_BF16;
	ydoc_check_keys(d, m, model_keys);
	snprintf(mc->name, sizeof mc->name, "%.63s", s->name);
	ydoc_string(d, m, "name", 0, mc->name, sizeof mc->name);
	enum_get(d, m, "type", type_names, &type);
	mc->type = (enum model_type)type;
	if (mc->type == MODEL_DENSE) {
		read_dense(d, m, mc);
	} else {
		static const char *const dense_only[] = { "widths", "bias", "activation", "loss" };
		for (int i = 0; i < 4; i++) {
			const struct ynode *v = ynode_get(m, dense_only[i]);
			if (v)
				ydoc_error(d, v, "model.%s: only for type: dense (a layer list)", dense_only[i]);
		}
		ydoc_int(d, m, "layers", YD_REQUIRED | YD_POSITIVE, &mc->layers);
		ydoc_int(d, m, "hidden", YD_REQUIRED | YD_POSITIVE, &mc->hidden);
		read_dropout(d, m, mc);  /* after the attention and MLP outputs: their masks (sim/memory.c) */
	}
	if (mc->type == MODEL_TRANSFORMER) {
		ydoc_int(d, m, "heads", YD_REQUIRED | YD_POSITIVE, &mc->heads);
		mc->kv_heads = mc->heads;
		ydoc_int(d, m, "kv_heads", YD_POSITIVE, &mc->kv_heads);
		ydoc_int(d, m, "seq", YD_REQUIRED | YD_POSITIVE, &mc->seq);
		mc->doc_tokens = 0;
		if (ydoc_int(d, m, "doc_tokens", YD_POSITIVE, &mc->doc_tokens) == 1 && mc->doc_tokens > mc->seq)
			ydoc_error(d, ynode_get(m, "doc_tokens"),
				   "model.doc_tokens: a document is at most a sequence (seq %d), got %d", mc->seq,
				   mc->doc_tokens);
		static const char *const rope_names[] = { "none", "fused", "unfused", NULL };
		int rope = ROPE_NONE;
		enum_get(d, m, "rope", rope_names, &rope);
		mc->rope = (enum rope_kind)rope;
		static const char *const norm_names[] = { "layernorm", "rmsnorm", "rmsnorm_unfused", NULL };
		int norm = NORM_LAYERNORM;
		enum_get(d, m, "norm", norm_names, &norm);
		mc->norm = (enum norm_kind)norm;
	} else {
		static const char *const attn_only[] = { "heads", "kv_heads", "flash_attention", "causal", "rope",
							 "norm", "attention_kernel", "doc_tokens" };
		for (int i = 0; i < 8; i++) {
			const struct ynode *v = ynode_get(m, attn_only[i]);
			if (v)
				ydoc_error(d, v, "model.%s: only for transformer models (an mlp has no attention)",
					   attn_only[i]);
		}
		mc->seq = 1;
		if (ydoc_int(d, m, "seq", YD_POSITIVE, &mc->seq) == 1 && mc->seq != 1)
			ydoc_error(d, ynode_get(m, "seq"),
				   "model.seq: an mlp takes one token per sample, so seq must be 1 (or left out)");
	}
	enum_get(d, m, "ffn", ffn_names, &ffn);
	mc->ffn = (enum ffn_type)ffn;
	mc->ffn_hidden = 0;
	ydoc_int(d, m, "ffn_hidden", YD_POSITIVE, &mc->ffn_hidden);
	mc->vocab = 0;
	ydoc_int(d, m, "vocab", YD_NONNEG, &mc->vocab);
	enum_get(d, m, "dtype", dtype_names, &dt);
	mc->dtype = (enum dtype)dt;
	mc->flash_attention = mc->causal = true;
	ydoc_bool(d, m, "flash_attention", 0, &mc->flash_attention);
	ydoc_bool(d, m, "causal", 0, &mc->causal);
	static const char *const kernel_names[] = { "flash", "cudnn", NULL };
	int kernel = 0;
	enum_get(d, m, "attention_kernel", kernel_names, &kernel);
	mc->attn_cudnn = kernel == 1;
	if (mc->attn_cudnn && !mc->flash_attention)
		ydoc_error(d, ynode_get(m, "attention_kernel"), "model.attention_kernel: cudnn is a fused kernel, but "
			   "model.flash_attention is false (the unfused path)");
	if (mc->doc_tokens > 0 && !mc->flash_attention)
		ydoc_error(d, ynode_get(m, "doc_tokens"), "model.doc_tokens: packed documents need a fused attention "
			   "(flash_attention: true); the unfused path computes the whole seq x seq scores and masks them");
	if (mc->type != MODEL_TRANSFORMER)
		mc->heads = mc->kv_heads = 0, mc->flash_attention = mc->causal = false;
	recipes_read_moe(d, m, s);
	variants_read_model(d, m, s);
}

static void read_training(struct ydoc *d, const struct ynode *t, struct scenario *s)
{
	struct train_cfg *tc = &s->train;
	int opt = OPT_ADAM, master = DT_FP32, grad = -1, rec = RECOMPUTE_NONE;
	ydoc_check_keys(d, t, train_keys);
	ydoc_int(d, t, "global_batch", YD_REQUIRED | YD_POSITIVE, &tc->global_batch);
	ydoc_int(d, t, "micro_batch", YD_REQUIRED | YD_POSITIVE, &tc->micro_batch);
	enum_get(d, t, "optimizer", opt_names, &opt);
	tc->optimizer = (enum optimizer)opt;
	enum_get(d, t, "master_weights", dtype_names, &master);
	tc->master_dtype = (enum dtype)master;
	enum_get(d, t, "grad_dtype", dtype_names, &grad);
	tc->grad_dtype = grad < 0 ? s->model.dtype : (enum dtype)grad;
	enum_get(d, t, "recompute", recompute_names, &rec);
	tc->recompute = (enum recompute)rec;
	static const char *const accum_names[] = { "fused", "add", NULL };
	int accum = 0;
	enum_get(d, t, "grad_accumulation", accum_names, &accum);
	tc->grad_accum_add = accum == 1;
	static const char *const inputs_names[] = { "streamed", "staged", NULL };
	int inputs = 0;
	enum_get(d, t, "inputs", inputs_names, &inputs);
	tc->staged_inputs = inputs == 1;
	static const char *const storage_names[] = { "tensor", "flat", NULL };
	int storage = 0;
	enum_get(d, t, "param_storage", storage_names, &storage);
	tc->flat_params = storage == 1;
	int state = DT_FP32;
	enum_get(d, t, "optimizer_state", dtype_names, &state);
	tc->state_dtype = (enum dtype)state;
	if (tc->state_dtype != DT_FP32 && tc->state_dtype != DT_BF16)
		ydoc_error(d, ynode_get(t, "optimizer_state"), "training.optimizer_state: fp32 or bf16, got %s",
			   dtype_name(tc->state_dtype));
	tc->amp = false;
	if (ydoc_bool(d, t, "amp", 0, &tc->amp) == 1 && tc->amp) {
		/* the parameters are the fp32 copy the optimizer updates, their gradients fp32 */
		if (ynode_get(t, "grad_dtype") && tc->grad_dtype != DT_FP32)
			ydoc_error(d, ynode_get(t, "grad_dtype"), "training.grad_dtype: amp keeps fp32 gradients, got %s",
				   dtype_name(tc->grad_dtype));
		if (ynode_get(t, "master_weights") && tc->master_dtype != DT_FP32)
			ydoc_error(d, ynode_get(t, "master_weights"),
				   "training.master_weights: amp's parameters are fp32, got %s",
				   dtype_name(tc->master_dtype));
		tc->grad_dtype = DT_FP32;
		tc->master_dtype = DT_FP32;
	}
	int exec = EXEC_EAGER;
	enum_get(d, t, "execution", exec_mode_names, &exec);
	tc->exec = (enum exec_mode)exec;
	tc->host_us_per_op = 0;
	ydoc_double(d, t, "host_us_per_op", YD_NONNEG, &tc->host_us_per_op);
	recipes_read_fp8(d, t, s);
	variants_read_training(d, t, s);
}

static void read_parallel(struct ydoc *d, const struct ynode *p, struct scenario *s, struct seen *seen)
{
	struct parallel_cfg *pc = &s->par;
	int sched = SCHED_1F1B;
	ydoc_check_keys(d, p, par_keys);
	pc->tp = pc->pp = 1;
	pc->dp = pc->gpus = 0;
	ydoc_int(d, p, "tp", YD_POSITIVE, &pc->tp);
	ydoc_int(d, p, "pp", YD_POSITIVE, &pc->pp);
	seen->dp = ydoc_int(d, p, "dp", YD_POSITIVE, &pc->dp) == 1;
	seen->gpus = ydoc_int(d, p, "gpus", YD_POSITIVE, &pc->gpus) == 1;
	enum_get(d, p, "schedule", sched_names, &sched);
	pc->schedule = (enum schedule)sched;
	pc->virtual_stages = pc->schedule == SCHED_INTERLEAVED ? 2 : 1;
	seen->vstages = ydoc_int(d, p, "virtual_stages", YD_POSITIVE, &pc->virtual_stages) == 1;
	if (seen->vstages && pc->schedule != SCHED_INTERLEAVED)
		ydoc_error(d, ynode_get(p, "virtual_stages"),
			   "parallel.virtual_stages: only with schedule: interleaved (schedule is %s)",
			   sched_names[pc->schedule]);
	pc->dp_bucket_bytes = 25e6;
	ydoc_double(d, p, "dp_bucket_bytes", YD_POSITIVE, &pc->dp_bucket_bytes);
	pc->dp_overlap = true;
	ydoc_bool(d, p, "dp_overlap", 0, &pc->dp_overlap);
	pc->dp_bucket_copy = false;
	ydoc_bool(d, p, "dp_bucket_copy", 0, &pc->dp_bucket_copy);
	pc->pp_overlap = pc->pp_keep_outputs = false;
	ydoc_bool(d, p, "pp_overlap", 0, &pc->pp_overlap);
	ydoc_bool(d, p, "pp_keep_outputs", 0, &pc->pp_keep_outputs);
	pc->pp_scatter_gather = false;
	ydoc_bool(d, p, "pp_scatter_gather", 0, &pc->pp_scatter_gather);
	pc->sp = false;
	if (ydoc_bool(d, p, "sp", 0, &pc->sp) == 1 && pc->sp && pc->tp < 2)
		ydoc_error(d, ynode_get(p, "sp"), "parallel.sp: sequence parallelism splits the TP region's ends over "
			   "the TP group: it needs tp > 1 (tp is %d)", pc->tp);
	pc->zero = 0;
	if (ydoc_int(d, p, "zero", YD_NONNEG, &pc->zero) == 1 && pc->zero > 3)
		ydoc_error(d, ynode_get(p, "zero"), "parallel.zero: expected 0, 1, 2 or 3, got %d", pc->zero);
	pc->overlap_param_gather = false;
	if (ydoc_bool(d, p, "overlap_param_gather", 0, &pc->overlap_param_gather) == 1 && pc->overlap_param_gather &&
	    pc->zero != 1 && pc->zero != 2)
		ydoc_error(d, ynode_get(p, "overlap_param_gather"), "parallel.overlap_param_gather: the parameter "
			   "all-gather of the distributed optimizer needs zero: 1 or 2 (zero is %d)", pc->zero);
	recipes_read_ep(d, p, s);
	variants_read_parallel(d, p, s);
	ctxpar_read(d, p, s);
}

/* A preset name stays as is; a relative path is taken from the scenario's folder. */
static void read_hardware(struct ydoc *d, const struct ynode *root, const struct scenario_overrides *ov,
			  struct scenario *s)
{
	char value[512];
	if (ov && ov->gpu && snprintf(s->gpu, sizeof s->gpu, "%s", ov->gpu) >= (int)sizeof s->gpu)
		ydoc_error_at(d, 0, 0, "--gpu: name too long (at most %zu characters)", sizeof s->gpu - 1);
	if (ov && ov->host && snprintf(s->host, sizeof s->host, "%s", ov->host) >= (int)sizeof s->host)
		ydoc_error_at(d, 0, 0, "--host: name too long (at most %zu characters)", sizeof s->host - 1);
	if (ov && ov->target_gpu &&
	    snprintf(s->target_gpu, sizeof s->target_gpu, "%s", ov->target_gpu) >= (int)sizeof s->target_gpu)
		ydoc_error_at(d, 0, 0, "--target-gpu: name too long (at most %zu characters)", sizeof s->target_gpu - 1);
	if (ov && ov->hardware) {
		ydoc_string(d, root, "hardware", 0, value, sizeof value); /* still checked for its type */
		if (snprintf(s->hardware, sizeof s->hardware, "%s", ov->hardware) >= (int)sizeof s->hardware)
			ydoc_error_at(d, 0, 0, "--hw: name too long (at most %zu characters)", sizeof s->hardware - 1);
		s->hardware_line = s->hardware_col = 0;
		return;
	}
	if (ydoc_string(d, root, "hardware", YD_REQUIRED, value, sizeof value) != 1)
		return;
	const struct ynode *v = ynode_get(root, "hardware");
	s->hardware_line = ynode_line(v);
	s->hardware_col = ynode_col(v);
	const char *slash = strrchr(s->path, '/');
	if (!value[0]) {
		ydoc_error(d, v, "hardware: expected a preset name or a file, got an empty string");
	} else if (hwmodel_is_preset_name(value) || value[0] == '/' || !slash) {
		snprintf(s->hardware, sizeof s->hardware, "%s", value);
	} else {
		int dirlen = (int)(slash - s->path);
		if (snprintf(s->hardware, sizeof s->hardware, "%.*s/%s", dirlen, s->path, value) >=
		    (int)sizeof s->hardware)
			ydoc_error(d, v, "hardware: path too long");
	}
}

static const struct ynode *at(const struct ynode *map, const char *key)
{
	const struct ynode *v = ynode_get(map, key);
	return v ? v : map;
}

/* Derives gpus/dp (overrides first) and checks it; 0 or GS_EINVAL. */
static int derive_layout(struct ydoc *d, const struct seen *seen, const struct scenario_overrides *ov,
			 struct scenario *s)
{
	struct parallel_cfg *pc = &s->par;
	long long mp = scenario_model_ranks(s);
	char mpt[64];
	scenario_model_ranks_text(s, mpt, sizeof mpt);
	const struct ynode *pmap = seen->par ? seen->par : seen->root;
	if (ov && ov->gpus > 0) {
		if (ov->gpus % mp != 0) {
			char near[96];
			scenario_nearest_gpus(s, ov->gpus, near, sizeof near);
			return ydoc_error_arg(d, "--gpus %d is not a multiple of %s = %lld%s", ov->gpus, mpt, mp, near);
		}
		pc->gpus = ov->gpus;
		pc->dp = (int)(ov->gpus / mp);
		return 0;
	}
	if (seen->gpus && seen->dp) {
		if ((long long)pc->dp * mp != pc->gpus) {
			if (pc->cp > 1)
				return ydoc_error(d, ynode_get(pmap, "gpus"),
						  "parallel.gpus (%d) must equal dp*tp*pp*cp = %d*%d*%d*%d = %lld", pc->gpus,
						  pc->dp, pc->tp, pc->pp, pc->cp, pc->dp * mp);
			return ydoc_error(d, ynode_get(pmap, "gpus"),
					  "parallel.gpus (%d) must equal dp*tp*pp = %d*%d*%d = %lld", pc->gpus, pc->dp,
					  pc->tp, pc->pp, pc->dp * mp);
		}
		return 0;
	}
	if (seen->gpus) {
		if (pc->gpus % mp != 0)
			return ydoc_error(d, ynode_get(pmap, "gpus"), "parallel.gpus (%d) is not a multiple of %s = %lld",
					  pc->gpus, mpt, mp);
		pc->dp = (int)(pc->gpus / mp);
		return 0;
	}
	if (seen->dp) {
		if (pc->dp * mp > INT_MAX)
			return ydoc_error(d, ynode_get(pmap, "dp"), "parallel.dp: dp*%s is too large",
					  s->par.cp > 1 ? "tp*pp*cp" : "tp*pp");
		pc->gpus = (int)(pc->dp * mp);
		return 0;
	}
	return ydoc_error(d, pmap, "missing required key 'parallel.gpus' (or give 'parallel.dp')");
}

static void check_divides(struct ydoc *d, const struct ynode *where, const char *what, int by, const char *of,
			  int value)
{
	if (value % by != 0)
		ydoc_error(d, where, "%s (%d) does not divide %s (%d)", what, by, of, value);
}

static void check_consistency(struct ydoc *d, const struct seen *seen, const struct scenario_overrides *ov,
			      struct scenario *s)
{
	const struct model_cfg *mc = &s->model;
	struct parallel_cfg *pc = &s->par;
	const struct ynode *m = seen->model, *p = seen->par ? seen->par : seen->root, *t = seen->train;
	if (mc->type == MODEL_TRANSFORMER) {
		check_divides(d, at(m, "heads"), "model.heads", mc->heads, "model.hidden", mc->hidden);
		check_divides(d, at(m, "kv_heads"), "model.kv_heads", mc->kv_heads, "model.heads", mc->heads);
		check_divides(d, at(p, "tp"), "parallel.tp", pc->tp, "model.heads", mc->heads);
		check_divides(d, at(p, "tp"), "parallel.tp", pc->tp, "model.kv_heads", mc->kv_heads);
		if (mc->doc_tokens > 0 && pc->cp > 1)
			ydoc_error(d, at(m, "doc_tokens"), "model.doc_tokens: packed documents with context parallelism "
				   "(parallel.cp %d) are not modelled", pc->cp);
	}
	if (mc->type == MODEL_DENSE) {
		if (pc->tp > 1 || pc->pp > 1)
			ydoc_error(d, at(p, pc->tp > 1 ? "tp" : "pp"),
				   "parallel: a dense layer list runs data parallel only (tp = pp = 1), got tp %d, pp %d",
				   pc->tp, pc->pp);
		if (mc->vocab > 0)
			ydoc_error(d, at(m, "vocab"), "model.vocab: a dense layer list has no embedding (vocab 0)");
	}
	check_divides(d, at(p, "tp"), "parallel.tp", pc->tp, "model.hidden", mc->hidden);
	check_divides(d, at(p, "tp"), "parallel.tp", pc->tp, "model.ffn_hidden", mc->ffn_hidden);
	if (s->train.master_dtype != DT_FP32 && s->train.master_dtype != mc->dtype)
		ydoc_error(d, at(t, "master_weights"),
			   "training.master_weights: must be fp32 or the model dtype (%s), got %s",
			   dtype_name(mc->dtype), dtype_name(s->train.master_dtype));
	if (s->train.grad_dtype != DT_FP32 && s->train.grad_dtype != mc->dtype)
		ydoc_error(d, at(t, "grad_dtype"), "training.grad_dtype: must be fp32 or the model dtype (%s), got %s",
			   dtype_name(mc->dtype), dtype_name(s->train.grad_dtype));
	if (pc->schedule == SCHED_INTERLEAVED && pc->pp < 2) {
		ydoc_error(d, at(p, "schedule"), "parallel.schedule: interleaved needs pp >= 2 (pp is %d)", pc->pp);
		return;
	}
	long long stages = (long long)pc->pp * pc->virtual_stages;
	if (mc->layers % stages != 0 && !scenario_uneven_split(s)) {
		if (pc->virtual_stages > 1)
			ydoc_error(d, at(m, "layers"),
				   "model.layers (%d) is not divisible by pp*virtual_stages = %d*%d = %lld",
				   mc->layers, pc->pp, pc->virtual_stages, stages);
		else
			ydoc_error(d, at(m, "layers"), "model.layers (%d) is not divisible by parallel.pp (%d)",
				   mc->layers, pc->pp);
	}
	if (derive_layout(d, seen, ov, s) != 0)
		return;
	char why[256];
	enum batch_fault fault = scenario_batch_fault(s, why, sizeof why);
	if (fault != FAULT_NONE && ov && ov->gpus > 0) {
		char near[96];
		scenario_nearest_gpus(s, ov->gpus, near, sizeof near);
		ydoc_error_arg(d, "--gpus %d gives dp = %d, and %s%s", ov->gpus, pc->dp, why, near);
		return;
	}
	recipes_check(d, m, t, seen->par, s);
	variants_check(d, m, t, seen->par, s);
	ctxpar_check(d, seen->par, s);
	switch (fault) {
	case FAULT_NONE: break;
	case FAULT_BATCH: ydoc_error(d, at(t, "global_batch"), "%s", why); break;
	case FAULT_SCHEDULE: ydoc_error(d, at(p, "schedule"), "%s", why); break;
	}
}

static int load(struct ydoc *d, const struct scenario_overrides *ov, struct scenario *s)
{
	ydoc_set_ranges(d, ranges);
	struct seen seen = { 0 };
	const struct ynode *root = ydoc_root(d);
	char got[96];
	if (ynode_kind(root) != YNODE_MAP)
		return ydoc_error(d, root, "expected a mapping of scenario keys (name, model, training, parallel, "
				  "hardware), got %s", ynode_describe(root, got, sizeof got));
	seen.root = root;
	ydoc_check_keys(d, root, top_keys);
	ydoc_string(d, root, "name", 0, s->name, sizeof s->name);
	ydoc_map(d, root, "model", YD_REQUIRED, &seen.model);
	ydoc_map(d, root, "training", YD_REQUIRED, &seen.train);
	ydoc_map(d, root, "parallel", 0, &seen.par);
	/* model first: training defaults (grad_dtype) depend on its dtype */
	if (seen.model)
		read_model(d, seen.model, s);
	if (seen.train)
		read_training(d, seen.train, s);
	read_parallel(d, seen.par, s, &seen);
	read_hardware(d, root, ov, s);
	if (ydoc_errors(d) == 0 && seen.model) {
		struct model_cfg *mc = &s->model;
		if (mc->ffn_hidden == 0) {
			long long f = mc->ffn == FFN_GELU ? 4LL * mc->hidden : (8LL * mc->hidden + 2) / 3;
			if (mc->ffn == FFN_SWIGLU)
				f = (f + 255) / 256 * 256;
			if (f > INT_MAX)
				return ydoc_error(d, ynode_get(seen.model, "hidden"),
						  "model.hidden: too large for the default ffn_hidden");
			mc->ffn_hidden = (int)f;
		}
		if (mc->moe.experts > 0 && mc->moe.ffn_hidden == 0)
			mc->moe.ffn_hidden = mc->ffn_hidden;
		if (mc->moe.shared_experts > 0 && mc->moe.shared_ffn_hidden == 0)
			mc->moe.shared_ffn_hidden = mc->moe.ffn_hidden;
		check_consistency(d, &seen, ov, s);
	}
	return ydoc_errors(d) ? GS_EINVAL : 0;
}

static void scenario_init(struct scenario *s, const char *path)
{
	memset(s, 0, sizeof *s);
	snprintf(s->path, sizeof s->path, "%s", path);
	scenario_file_stem(path, s->name, sizeof s->name);
	s->model.dtype = DT_BF16;
	s->train.master_dtype = DT_FP32;
	s->train.grad_dtype = DT_BF16;
}

int scenario_load_string(const char *name, const char *text, const struct scenario_overrides *ov,
			 struct scenario *out)
{
	int err;
	scenario_init(out, name);
	struct ydoc *d = ydoc_load_string(name, text, strlen(text), &err);
	if (!d)
		return err;
	err = load(d, ov, out);
	ydoc_free(d);
	return err;
}

int scenario_load(const char *path, const struct scenario_overrides *ov, struct scenario *out)
{
	int err;
	scenario_init(out, path);
	struct ydoc *d = ydoc_load_file(path, &err);
	if (!d)
		return err;
	err = load(d, ov, out);
	ydoc_free(d);
	return err;
}
