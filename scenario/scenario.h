/* scenario: one training job as the user describes it in a scenario YAML file (model, training, parallel layout,
 * hardware reference), loaded and checked with every error reported as file:line:col.
 * A loaded scenario is plain data and always consistent: gpus == dp*tp*pp*cp, tp divides heads and hidden,
 * pp*virtual_stages divides layers, global_batch is a multiple of dp*micro_batch. */
#ifndef SCENARIO_H
#define SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hardware/hwmodel.h"
#include "util/dtype.h"

enum model_type { MODEL_TRANSFORMER, MODEL_MLP, MODEL_DENSE };
enum activation { ACT_RELU, ACT_GELU, ACT_TANH, ACT_NONE };
enum rope_kind { ROPE_NONE, ROPE_FUSED, ROPE_UNFUSED };
enum norm_kind { NORM_LAYERNORM, NORM_RMSNORM, NORM_RMSNORM_UNFUSED };
enum loss_kind { LOSS_CROSS_ENTROPY, LOSS_MSE, LOSS_NONE };
#define MODEL_MAX_WIDTHS 65    /* a dense layer list of at most 64 layers */
enum ffn_type { FFN_GELU, FFN_SWIGLU };
enum schedule { SCHED_GPIPE, SCHED_1F1B, SCHED_INTERLEAVED };
enum optimizer { OPT_ADAM, OPT_SGD };
/* op: torchtitan's per-op selective activation checkpointing (sim/recompute.c) */
enum recompute { RECOMPUTE_NONE, RECOMPUTE_FULL, RECOMPUTE_SELECTIVE, RECOMPUTE_OP };
/* How context parallelism exchanges K and V (parallel.cp_comm, Megatron/Transformer Engine cp_comm_type). */
enum cp_comm { CP_P2P, CP_ALL_GATHER };


/* Mixture of experts (model.moe, docs/scenario.md): every layer's MLP is replaced by `experts` routed experts of
 * which each token visits top_k, plus shared_experts every token visits. */
struct moe_cfg {
	int experts;            /* routed experts per layer; 0 = a dense MLP (no moe section) */
	int top_k;              /* experts per token (default 2) */
	int ffn_hidden;         /* one routed expert's FFN width (default model.ffn_hidden) */
	int shared_experts;     /* experts every token goes through (DeepSeek), default 0 */
	int shared_ffn_hidden;  /* one shared expert's width (default moe.ffn_hidden) */
	double capacity_factor; /* 0 (default): dropless; else each expert computes cf*tokens*top_k/experts rows
	                         * (padded to that capacity, tokens beyond it dropped) */
	double imbalance;       /* dropless: the busiest expert rank's routed tokens over the mean (>= 1, default 1) */
};

struct model_cfg {
	char name[64];
	enum model_type type;
	int layers;
	int hidden;
	int heads;             /* transformer only */
	int kv_heads;          /* grouped-query attention; == heads for MHA */
	int ffn_hidden;        /* default 4*hidden (gelu) or the SwiGLU size given */
	enum ffn_type ffn;
	int seq;               /* sequence length; 1 for an MLP (a sample is one token) */
	int doc_tokens;        /* packed sequences: each sequence is a pack of documents of about this many tokens and
	                        * attention runs within each (a varlen flash kernel over cu_seqlens); 0: one
	                        * document a sequence. scenario_attn_len */
	int vocab;             /* 0 = no embedding / output head */
	enum dtype dtype;      /* dtype of weights, activations and GEMMs */
	bool flash_attention;  /* fused attention: no s*s score tensor stored, default true */
	bool causal;           /* causal mask: fused attention skips the upper triangle, default true */
	bool attn_cudnn;       /* attention_kernel: cudnn: the fused kernel is cuDNN's SDPA (gpu.attention.cudnn), not
	                        * FlashAttention-2 (gpu.attention.fused), the default */
	enum rope_kind rope;   /* rotary embeddings on Q and K: none (default), fused kernel, unfused (HF) */
	enum norm_kind norm;   /* the blocks' and the final norm: LayerNorm (default), RMSNorm as one kernel, or
	                        * RMSNorm as eager PyTorch runs the Hugging Face LlamaRMSNorm */
	/* dense only (type: dense): layer l maps widths[l] to widths[l+1] features; layers = nwidths - 1 and
	 * hidden = widths[0]. The activation (and dropout) follow every layer but the last; the loss the last. */
	int nwidths;
	int widths[MODEL_MAX_WIDTHS];
	bool bias;             /* dense: every layer has a bias (default true) */
	enum activation act;   /* dense: default relu */
	double dropout;        /* dense: dropout probability after each activation, 0 (default) = none */
	enum loss_kind loss;   /* dense: default cross_entropy */
	struct moe_cfg moe;    /* transformer only: experts 0 = dense MLP */
	bool tie_embeddings;   /* the output head uses the input embedding's weight (Megatron's default for GPT,
	                        * --untie-embeddings-and-output-weights off; BLOOM): one vocab x hidden matrix; with
	                        * pp > 1 the first and last stage each hold a copy whose gradients they all-reduce
	                        * before the optimizer (default false) */
};

/* Low precision as Transformer Engine runs it (training.fp8, docs/scenario.md): the linear layers' forward, dgrad
 * and wgrad GEMMs in 8-bit (or NVFP4) with the quantize kernels and scale bookkeeping the recipe adds. */
enum fp8_recipe { FP8_NONE, FP8_DELAYED, FP8_CURRENT, FP8_MXFP8, FP8_NVFP4 };
struct fp8_cfg {
	enum fp8_recipe recipe;  /* none (default): every GEMM in model.dtype */
	bool attention;          /* the attention core in FP8 too (default false: BF16) */
	bool param_gather;       /* ZeRO / distributed-optimizer parameter all-gathers move the FP8 copy */
	int amax_history;        /* delayed: amax history length per tensor (default 1024) */
};

struct train_cfg {
	int global_batch;          /* sequences per optimizer step */
	int micro_batch;           /* sequences per micro-batch per DP replica */
	enum optimizer optimizer;
	enum dtype master_dtype;   /* master weights: DT_FP32 or DT_BF16 (== model dtype: no separate copy) */
	enum dtype grad_dtype;     /* gradient accumulation dtype: model dtype or DT_FP32 */
	enum recompute recompute;
	int recompute_layers;      /* full recompute of only some layers (Megatron --recompute-num-layers N): block:
				    * the first N layers of each model chunk, each on its own; uniform: every layer,
				    * checkpointed in groups of N (the group's input kept, the group rerun before its
				    * backward); 0 (default): every layer on its own */
	bool recompute_block;      /* training.recompute_method: block (true) or uniform (false, default) */
	int offload_layers;        /* activation offload to host memory (Megatron-Core --cpu-offloading-num-layers):
				    * the first N layers of each model chunk copy what they keep to the host after
				    * their forward and back before their backward, on the copy stream; 0: none */
	bool grad_accum_add;       /* gradients of every micro-batch are added into the gradient buffer by a separate
				    * pass (PyTorch autograd); false (default): the weight-gradient GEMMs accumulate
				    * in place (Megatron-LM's gradient_accumulation_fusion) */
	bool staged_inputs;        /* training.inputs: staged: every rank allocates the step's micro-batch inputs
				    * (and, without a vocabulary, their output gradients) before the step and holds
				    * them through it, as a benchmark feeding synthetic activations does; false
				    * (streamed, default): one micro-batch's at a time */
	bool flat_params;          /* training.param_storage: flat: the parameters are views of one buffer (the
				    * runner's, Megatron's contiguous buffers), which torch.compile's DDPOptimizer
				    * counts whole for every parameter (sim/ddpsplit.h); false (tensor, default):
				    * each its own storage */
	enum dtype state_dtype;    /* optimizer state (Adam's two moments, SGD's momentum): DT_FP32 (default) or
				    * DT_BF16 */
	bool amp;                  /* PyTorch AMP: fp32 parameters, gradients and optimizer (no separate master),
				    * GEMMs autocast to model.dtype: every micro-batch's forward casts the weights
				    * and its backward casts their gradients back (default false) */
	enum exec_mode exec;       /* how the framework issues the step (default eager): picks host.<mode> of the
				    * hardware model for every op, collective and bucket */
	struct fp8_cfg fp8;        /* training.fp8 */
	double host_us_per_op;     /* override of the hardware model's per-op host time (op_us + launch_us of the
				    * mode) and per-collective time; 0: the hardware model's (default) */
};

/* Gradient compression on the data-parallel reduction (parallel.grad_compression, sim/gradcomp.c). */
enum grad_compress { GC_NONE, GC_POWERSGD, GC_TOPK };
struct gradcomp_cfg {
	enum grad_compress method;  /* none (default) */
	int rank;                   /* powersgd: rank r of each gradient matrix's approximation (default 1) */
	double ratio;               /* topk: share of a bucket's gradients sent (default 0.01) */
};

struct parallel_cfg {
	int gpus;              /* == dp*tp*pp */
	int dp, tp, pp;
	int virtual_stages;    /* interleaved: model chunks per GPU (v); 1 otherwise */
	enum schedule schedule;
	double dp_bucket_bytes; /* DP gradient bucket size, default 25e6 (PyTorch DDP) */
	bool dp_overlap;        /* all-reduce buckets as backward produces them (default true) */
	bool dp_bucket_copy;    /* PyTorch DDP's bucket copies: gradients copied into each bucket and divided by
				 * the world size before its all-reduce, copied back after all (default false:
				 * gradients live in the buckets, as Megatron-LM's contiguous buffer) */
	bool pp_overlap;        /* pipeline sends overlap compute (default false: the compute stream waits for its
				 * own sends to finish, as Megatron-LM's batched isend/irecv + wait does) */
	bool pp_keep_outputs;   /* a stage keeps each micro-batch's sent output until its backward, as a plain
				 * PyTorch pipeline does (default false: freed after the send, Megatron-LM's
				 * deallocate_pipeline_outputs; the autograd graph stays) */
	int zero;               /* ZeRO stage over the DP group: 0 none, 1 optimizer state, 2 + gradients, 3 + weights
				 * (FSDP's full sharding); default 0 */
	int ep;                 /* expert parallelism: the routed experts are split over ep ranks of the tp*dp ranks
				 * of a stage (default 1); tokens reach their experts by all-to-all */
	int etp;                /* expert tensor parallelism: each expert's FFN split over etp ranks (default tp;
				 * divides tp). ep*etp divides tp*dp */
	bool pp_scatter_gather; /* send 1/tp of each activation and all-gather it over TP after receiving
				 * (Megatron-LM's scatter/gather optimisation, SC'21 Sec. 4.1), default false */
	bool overlap_param_gather; /* ZeRO-1/2 (Megatron's distributed optimizer): the updated parameters are
				 * all-gathered layer by layer during the next step's forward instead of after the
				 * optimizer (--overlap-param-gather); default false */
	int first_stage_layers; /* layers of the first pipeline stage (Megatron's
				 * --decoder-first-pipeline-num-layers); 0 (default): the even split */
	int last_stage_layers;  /* layers of the last stage (--decoder-last-pipeline-num-layers); 0: even. When either
				 * is set the other stages split the rest evenly (1F1B or GPipe, pp >= 2) */
	int shard_group;        /* ZeRO / FSDP sharding over groups of this many DP replicas (HSDP, FSDP2's
				 * (replicate, shard) mesh; DeepSpeed MiCS): parameters, gradients and optimizer state
				 * split over the shard group and replicated over the dp/shard_group groups; gradients
				 * reduce-scattered in the shard group, then all-reduced across the replicas; 0: dp */
	bool keep_after_forward; /* parallel.reshard_after_forward false (ZeRO-3 / FSDP2): a layer's gathered
				 * parameters are kept from its forward to its backward (no backward all-gather, the
				 * stage's parameters whole in memory); default (false here, the key true): freed after
				 * the forward and gathered again for the backward */
	enum dtype grad_reduce_dtype; /* the DP reduction's element type (parallel.grad_reduce_dtype): gradients are
				 * cast to it before each bucket's collective and back after; default grad_dtype */
	struct gradcomp_cfg gc; /* parallel.grad_compression */
	bool sp;                /* sequence parallelism (Korthikanti et al. 2022): norms, dropout and residuals on
				 * s/tp tokens, each TP all-reduce a reduce-scatter + all-gather pair, activations
				 * outside the TP region split over tp; needs tp > 1; default false */
	int cp;                 /* context parallelism (sim/cp.h): every sequence split over cp ranks, each holding
				 * seq/cp tokens (two chunks of seq/(2cp) with a causal mask, for balance); the ranks
				 * lie between TP and DP (rank = t + tp*(c + cp*(d + dp*s))) and reduce gradients with
				 * their DP peers over dp*cp ranks; default 1 */
	enum cp_comm cp_comm;   /* p2p (default): K/V passed around a ring, overlapped with the attention blocks;
				 * all_gather: K/V all-gathered before attention, dK/dV reduce-scattered after */
	bool tp_comm_overlap;   /* Transformer Engine userbuffers (sim/overlap.h): SP's all-gathers and
				 * reduce-scatters split in tp chunks and hidden behind the GEMM chunks; needs sp;
				 * default false */
};

struct scenario {
	char path[512];        /* file it came from, for messages */
	char name[128];
	struct model_cfg model;
	struct train_cfg train;
	struct parallel_cfg par;
	char hardware[512];    /* preset name or YAML path (relative paths resolved against the scenario's folder) */
	int hardware_line, hardware_col;  /* position of the hardware value; 0 when it came from --hw */
	char gpu[512];         /* --gpu FILE: a calibrated GPU composed into the hardware's node ("" none) */
	char target_gpu[64];   /* --target-gpu PRESET: the measured GPU carried to that preset's GPU ("" none) */
	char host[512];        /* --host FILE|PRESET: the host costs (host section) taken from that model ("" none) */
};

/* Command-line overrides applied before validation, so errors still point into the file. 0 = not set. */
struct scenario_overrides {
	int gpus;               /* --gpus N: dp is re-derived as N/(tp*pp) */
	const char *hardware;   /* --hw FILE|PRESET */
	const char *gpu;        /* --gpu FILE: a calibrated GPU inside the hardware's node (hwmodel_compose) */
	const char *target_gpu; /* --target-gpu PRESET: that GPU carried to the preset's GPU (hwmodel_retarget) */
	const char *host;       /* --host FILE|PRESET: that model's host costs instead of the hardware's */
};

/* scenario_load: parse and check path. Returns 0, or GS_EINVAL after printing every error as
 * "gpusim: file:line:col: message" on stderr (GS_EENV when the file cannot be read). Nothing is written to
 * stdout. Schema and rules: docs/scenario.md. */
int scenario_load(const char *path, const struct scenario_overrides *ov, struct scenario *out);
/* scenario_load_string: same, from text in memory; name is used in messages. */
int scenario_load_string(const char *name, const char *text, const struct scenario_overrides *ov,
			 struct scenario *out);

/* scenario_file_stem: path's file name without its folder and a .yaml/.yml ending ("dir/t01-dp2.yaml" ->
 * "t01-dp2"), cut to size-1 bytes: a scenario's default name and a scored row's default label. */
void scenario_file_stem(const char *path, char *buf, size_t size);

/* scenario_relayout: a copy of base (a loaded scenario) run on gpus GPUs (dp = gpus/(tp*pp), tp and pp kept)
 * with global_batch sequences per step, checked as scenario_load checks a layout. 0 and *out set, or GS_EINVAL
 * with the reason in why (n bytes) and nothing printed: in a sweep an impossible layout is one row's outcome. */
int scenario_relayout(const struct scenario *base, int gpus, int global_batch, struct scenario *out, char *why,
		      size_t n);

/* scenario_check_layout: whether s, a loaded scenario whose parallel layout, micro-batch or recompute a caller
 * changed (a planner, a "what would fit" search), still obeys the layout rules scenario_load checks: tp divides
 * heads, kv_heads, hidden and ffn_hidden; a dense layer list runs tp = pp = 1; pp*virtual_stages divides the
 * layers; gpus = dp*tp*pp; the batch splits into whole micro-batches (a multiple of pp of them when
 * interleaved). 0, or GS_EINVAL with the first broken rule in why (n bytes), nothing printed; why NULL: the verdict
 * alone, no message formatted (the planner's millions of combinations). */
int scenario_check_layout(const struct scenario *s, char *why, size_t n);

/* scenario_load_hardware: hwmodel_load(s->hardware), with the errors placed at the scenario's hardware value:
 * an unknown preset ("file:line:col: unknown hardware preset 'x' (did you mean ...; presets: ...)"), an
 * unreadable file, or a GPU without a peak for model.dtype. 0 and *out set (caller frees with hwmodel_free), or
 * GS_EINVAL / GS_EENV after printing. */
int scenario_load_hardware(const struct scenario *s, struct hwmodel **out);

/* The pipeline split (parallel.first_stage_layers / last_stage_layers, scenario/variants.c): model chunk j
 * (0 <= j < pp*virtual_stages; chunk j runs on stage j % pp) holds scenario_chunk_layers(s, j) layers, the first
 * of them global layer scenario_chunk_first_layer(s, j). Even split: layers/(pp*v) each. */
bool scenario_uneven_split(const struct scenario *s);
int scenario_chunk_layers(const struct scenario *s, int j);
int scenario_chunk_first_layer(const struct scenario *s, int j);
/* The fewest and the most layers a chunk holds. */
int scenario_min_chunk_layers(const struct scenario *s);
int scenario_max_chunk_layers(const struct scenario *s);
/* The ZeRO sharding group: parallel.shard_group, else dp. */
int scenario_shard_group(const struct scenario *s);
/* Word-embedding matrices the model has: 0 without a vocabulary, 1 when tied, else 2 (embedding and head). */
int scenario_vocab_matrices(const struct scenario *s);

/* Derived numbers, all per the whole model unless said otherwise (formulas: docs/scenario.md). */
int scenario_num_microbatches(const struct scenario *s);  /* global_batch / (dp*micro_batch) */
double scenario_params_per_layer(const struct scenario *s);  /* dense: the mean over its layers */
/* Parameters one token uses in a layer: the layer's, with MoE only top_k routed experts of them. */
double scenario_active_params_per_layer(const struct scenario *s);
/* MoE parts of a layer: the MLP of one routed expert, all shared experts, the router (experts*hidden). */
double scenario_expert_params(const struct scenario *s);
double scenario_shared_expert_params(const struct scenario *s);
/* parallel.etp as run: the value given, else tp. */
int scenario_etp(const struct scenario *s);
/* Dense layer l (0-based): widths[l]*widths[l+1] weights plus widths[l+1] biases when model.bias. */
double scenario_dense_layer_params(const struct scenario *s, int l);
double scenario_params_total(const struct scenario *s);  /* layers + embedding + head (+ final norm) */
double scenario_params_embedding(const struct scenario *s);  /* input embedding + output head: 2*vocab*hidden
                                                                * (vocab*hidden when tied) */
/* Model FLOPs for one step (fwd+bwd, no recompute): 6*N*tokens plus attention, used for MFU. */
double scenario_model_flops(const struct scenario *s);
/* The tokens one attention call spans: model.doc_tokens for packed sequences (shorter than seq), else seq. */
int scenario_attn_len(const struct scenario *s);
/* Tokens of one micro-batch on one rank: micro_batch * seq / cp. */
double scenario_rank_tokens(const struct scenario *s);
/* The ranks that hold the same weights and reduce gradients together: dp * cp (Megatron's DP-CP group). */
int scenario_grad_ranks(const struct scenario *s);

#endif
