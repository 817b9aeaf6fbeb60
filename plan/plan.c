/* plan: the layout search (see plan.h). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "plan/plan.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/comm.h"
#include "sim/hostband.h"
#include "sim/fp8.h"
#include "sim/gradcomp.h"
#include "sim/memory.h"
#include "sim/moe.h"
#include "sim/ops.h"
#include "sim/recompute.h"
#include "sim/schedule.h"
#include "util/gserr.h"
#include "util/xalloc.h"

#define MAXV 64   /* values one option takes in one layout */

/* ---------------------------------------------------------------------------------------------------------
 * The option table. A row: the scenario key, its column label, the values it takes in a layout whose earlier
 * rows are set (values), how to set and read it, whether it has an effect in a complete layout (matters) and
 * its neutral value when it has none, and the names of an enum's values (a flag: bool_names; a layout's
 * description then names the flag only when it differs from the neutral value). Rows run in order, so a row's
 * values may depend on the rows above it (pp on tp, dp on both, the interleaving depth on the schedule).
 * To search a new scenario key, add one row here.
 * --------------------------------------------------------------------------------------------------------- */

struct option {
	const char *key, *label;
	int (*values)(const struct scenario *s, const struct hwmodel *hw, int gpus, int *v);
	void (*set)(struct scenario *s, int v);
	int (*get)(const struct scenario *s);
	bool (*matters)(const struct scenario *s);
	int neutral;
	const char *const *names;  /* enum value names (bool_names for a flag), NULL for numbers */
	const char *changed;       /* a flag (or a row like it): what a layout's description says when it is not
	                            * neutral; NULL: the description always names the value */
};

static int divisors(int n, int cap, int *v)
{
	int k = 0;
	for (int d = 1; d <= n && d <= cap && k < MAXV; d++)
		if (n % d == 0)
			v[k++] = d;
	return k;
}

/* tp: the divisors of the GPU count up to 64 (wider TP groups than a node are counted, then dropped) */
static int tp_values(const struct scenario *s, const struct hwmodel *hw, int gpus, int *v)
{
	return divisors(gpus, 64, v);
}
static void tp_set(struct scenario *s, int v) { s->par.tp = v; }
static int tp_get(const struct scenario *s) { return s->par.tp; }

/* pp: the divisors of gpus/tp up to the layer count */
static int pp_values(const struct scenario *s, const struct hwmodel *hw, int gpus, int *v)
{
	return divisors(gpus / s->par.tp, s->model.layers, v);
}
static void pp_set(struct scenario *s, int v) { s->par.pp = v; }
static int pp_get(const struct scenario *s) { return s->par.pp; }

/* cp: context parallelism, the divisors of gpus/(tp*pp) up to 64 that split the sequence into whole chunks (two a
 * rank with a causal mask) of at least PLAN_CP_MIN_CHUNK tokens; 1 unless a transformer with fused attention
 * (sim/cp.h) */
static int cp_values(const struct scenario *s, const struct hwmodel *hw, int gpus, int *v)
{
	const struct model_cfg *m = &s->model;
	if (m->type != MODEL_TRANSFORMER || !m->flash_attention) {
		v[0] = 1;
		return 1;
	}
	int n = divisors(gpus / (s->par.tp * s->par.pp), 64, v), k = 0;
	for (int i = 0; i < n; i++) {
		int chunks = m->causal ? 2 * v[i] : v[i];
		if (m->seq % chunks == 0 && (v[i] == 1 || m->seq / chunks >= PLAN_CP_MIN_CHUNK))
			v[k++] = v[i];
	}
	return k;
}
static void cp_set(struct scenario *s, int v) { s->par.cp = v; }
static int cp_get(const struct scenario *s) { return s->par.cp; }
/* (named in a description only when > 1: a layout without CP reads as before) */
static bool cp_matters(const struct scenario *s) { return s->model.type == MODEL_TRANSFORMER && s->par.cp > 1; }

/* dp: what tp, pp and cp leave */
static int dp_values(const struct scenario *s, const struct hwmodel *hw, int gpus, int *v)
{
	v[0] = gpus / (s->par.tp * s->par.pp * (s->par.cp > 1 ? s->par.cp : 1));
	return 1;
}
static void dp_set(struct scenario *s, int v) { s->par.dp = v; }
static int dp_get(const struct scenario *s) { return s->par.dp; }

/* micro-batch: the divisors of the batch per replica up to 64 (or the scenario's own, when larger) and the whole batch;
 * when dp does not divide the batch, the scenario's micro-batch (a layout rule then drops it) */
static int mb_values(const struct scenario *s, const struct hwmodel *hw, int gpus, int *v)
{
	int per = s->train.global_batch / s->par.dp, k = 0;
	if (s->train.global_batch % s->par.dp != 0 || per < 1) {
		v[0] = s->train.micro_batch;
		return 1;
	}
	int cap = s->train.micro_batch > 64 ? s->train.micro_batch : 64;
	for (int d = 1; d <= per && d <= cap && k < MAXV; d++)
		if (per % d == 0)
			v[k++] = d;
	if (per > cap && k < MAXV)
		v[k++] = per;  /* the whole batch per replica as one micro-batch */
	return k;
}
static void mb_set(struct scenario *s, int v) { s->train.micro_batch = v; }
static int mb_get(const struct scenario *s) { return s->train.micro_batch; }

static const char *const schedule_names[] = { "gpipe", "1f1b", "interleaved", NULL };
static int sched_values(const struct scenario *s, const struct hwmodel *hw, int gpus, int *v)
{
	v[0] = SCHED_1F1B;
	v[1] = SCHED_GPIPE;
	v[2] = SCHED_INTERLEAVED;
	return 3;
}
static void sched_set(struct scenario *s, int v) { s->par.schedule = (enum schedule)v; }
static int sched_get(const struct scenario *s) { return (int)s->par.schedule; }
static bool sched_matters(const struct scenario *s) { return s->par.pp > 1; }

/* interleaving depth: 2..8 model chunks per GPU when interleaved, else 1 */
static int vs_values(const struct scenario *s, const struct hwmodel *hw, int gpus, int *v)
{
	if (s->par.schedule != SCHED_INTERLEAVED) {
		v[0] = 1;
		return 1;
	}
	int k = 0;
	for (int d = 2; d <= 8; d++)
		v[k++] = d;
	return k;
}
static void vs_set(struct scenario *s, int v) { s->par.virtual_stages = v; }
static int vs_get(const struct scenario *s) { return s->par.virtual_stages; }
static bool vs_matters(const struct scenario *s) { return s->par.pp > 1 && s->par.schedule == SCHED_INTERLEAVED; }

static const char *const recompute_names[] = { "none", "full", "selective", "op", NULL };
/* selective recompute (the attention core) only where it saves memory: unfused attention in a transformer;
 * torchtitan's per-op checkpointing (op) for transformers */
static int rc_values(const struct scenario *s, const struct hwmodel *hw, int gpus, int *v)
{
	int k = 0;
	v[k++] = RECOMPUTE_NONE;
	v[k++] = RECOMPUTE_FULL;
	if (s->model.type == MODEL_TRANSFORMER && !s->model.flash_attention)
		v[k++] = RECOMPUTE_SELECTIVE;
	if (s->model.type == MODEL_TRANSFORMER)
		v[k++] = RECOMPUTE_OP;
	return k;
}
static void rc_set(struct scenario *s, int v) { s->train.recompute = (enum recompute)v; }

/* Full recompute of half the layers (Megatron's --recompute-method block --recompute-num-layers Lv/2): the first
 * half of each model chunk reruns its forward, the second keeps everything; with recompute full and chunks of 2
 * layers or more (an even split) */
static int half_layers(const struct scenario *s)
{
	int v = s->par.schedule == SCHED_INTERLEAVED ? s->par.virtual_stages : 1;
	if (s->train.recompute != RECOMPUTE_FULL || s->model.type == MODEL_DENSE || scenario_uneven_split(s) ||
	    s->model.layers % (s->par.pp * v) != 0)
		return 0;
	return s->model.layers / (s->par.pp * v) / 2;
}
static int rl_values(const struct scenario *s, const struct hwmodel *hw, int gpus, int *v)
{
	v[0] = 0;
	v[1] = 1;
	return half_layers(s) > 0 ? 2 : 1;
}
static void rl_set(struct scenario *s, int v)
{
	s->train.recompute_layers = v ? half_layers(s) : 0;
	s->train.recompute_block = v != 0;
}
static int rl_get(const struct scenario *s) { return s->train.recompute_layers > 0; }
static bool rl_matters(const struct scenario *s) { return s->train.recompute == RECOMPUTE_FULL; }
static int rc_get(const struct scenario *s) { return (int)s->train.recompute; }

/* ZeRO shards over the dp*cp ranks that hold the same weights */
static int zero_values(const struct scenario *s, const struct hwmodel *hw, int gpus, int *v)
{
	if (scenario_grad_ranks(s) == 1) {
		v[0] = 0;
		return 1;
	}
	for (int z = 0; z <= 3; z++)
		v[z] = z;
	return 4;
}
static void zero_set(struct scenario *s, int v) { s->par.zero = v; }
static int zero_get(const struct scenario *s) { return s->par.zero; }
static bool zero_matters(const struct scenario *s) { return scenario_grad_ranks(s) > 1; }

/* HSDP: ZeRO sharded over the DP replicas of one node (gpus per node / tp of them) and replicated across nodes,
 * where that group is smaller than dp and divides it; else the whole DP group (0) */
static int node_shard(const struct scenario *s, const struct hwmodel *hw)
{
	int S = hw->node.gpus / s->par.tp;
	int g = scenario_grad_ranks(s);  /* the ranks holding the same weights: dp*cp */
	return s->par.zero >= 1 && g > 1 && S > 1 && S < g && g % S == 0 ? S : 0;
}
static int shard_values(const struct scenario *s, const struct hwmodel *hw, int gpus, int *v)
{
	v[0] = 0;
	v[1] = node_shard(s, hw);
	return v[1] ? 2 : 1;
}
static void shard_set(struct scenario *s, int v) { s->par.shard_group = v; }
static int shard_get(const struct scenario *s) { return s->par.shard_group; }
static bool shard_matters(const struct scenario *s) { return scenario_grad_ranks(s) > 1 && s->par.zero >= 1; }

/* ZeRO-3 / FSDP2 reshard_after_forward false: the gathered parameters kept from forward to backward */
static void keep_set(struct scenario *s, int v) { s->par.keep_after_forward = v != 0; }
static int keep_get(const struct scenario *s) { return s->par.keep_after_forward; }
static bool keep_matters(const struct scenario *s) { return scenario_grad_ranks(s) > 1 && s->par.zero == 3; }

static const char *const bool_names[] = { "false", "true", NULL };
static int flag_values(const struct scenario *s, const struct hwmodel *hw, int gpus, int *v)
{
	v[0] = 0;
	v[1] = 1;
	return 2;
}

/* pipeline scatter/gather: send 1/tp of each activation, all-gather it over TP after receiving */
static void sg_set(struct scenario *s, int v) { s->par.pp_scatter_gather = v != 0; }
static int sg_get(const struct scenario *s) { return s->par.pp_scatter_gather; }
/* (with sequence parallelism the activation between stages is split over TP anyway: no effect then) */
static bool sg_matters(const struct scenario *s) { return s->par.tp > 1 && s->par.pp > 1 && !s->par.sp; }

/* sequence parallelism: the TP region's ends split over TP (only with tp > 1) */
static void sp_set(struct scenario *s, int v) { s->par.sp = v != 0; }
static int sp_get(const struct scenario *s) { return s->par.sp; }
static bool sp_matters(const struct scenario *s) { return s->par.tp > 1; }

/* the distributed optimizer's parameter gather overlapped with the next forward (ZeRO-1/2 over dp > 1) */
static void opg_set(struct scenario *s, int v) { s->par.overlap_param_gather = v != 0; }
static int opg_get(const struct scenario *s) { return s->par.overlap_param_gather; }
static bool opg_matters(const struct scenario *s)
{
	return scenario_grad_ranks(s) > 1 && (s->par.zero == 1 || s->par.zero == 2);
}

/* TP communication overlap (userbuffers): only with sequence parallelism */
static void tpo_set(struct scenario *s, int v) { s->par.tp_comm_overlap = v != 0; }
static int tpo_get(const struct scenario *s) { return s->par.tp_comm_overlap; }
static bool tpo_matters(const struct scenario *s) { return s->par.tp > 1 && s->par.sp; }
/* false, and true only where it can run (after the sp row): no candidates the rules would drop */
static int tpo_values(const struct scenario *s, const struct hwmodel *hw, int gpus, int *v)
{
	v[0] = 0;
	v[1] = 1;
	return tpo_matters(s) && s->train.recompute != RECOMPUTE_OP ? 2 : 1;
}

/* data-parallel overlap: all-reduce buckets as backward produces them, or all after backward */
static void dpo_set(struct scenario *s, int v) { s->par.dp_overlap = v != 0; }
static int dpo_get(const struct scenario *s) { return s->par.dp_overlap; }

/* expert parallelism (a model with experts): the divisors of the expert count up to the tp*cp*dp ranks of a stage */
static int ep_values(const struct scenario *s, const struct hwmodel *hw, int gpus, int *v)
{
	if (s->model.moe.experts == 0) {
		v[0] = 1;
		return 1;
	}
	return divisors(s->model.moe.experts, s->par.tp * scenario_grad_ranks(s), v);
}
static void ep_set(struct scenario *s, int v) { s->par.ep = v; }
static int ep_get(const struct scenario *s) { return s->par.ep; }
static bool moe_matters(const struct scenario *s) { return s->model.moe.experts > 0; }

/* expert tensor parallelism: the divisors of tp (0, "as tp", is the neutral value without experts) */
static int etp_values(const struct scenario *s, const struct hwmodel *hw, int gpus, int *v)
{
	if (s->model.moe.experts == 0) {
		v[0] = 0;
		return 1;
	}
	return divisors(s->par.tp, s->par.tp, v);
}
static void etp_set(struct scenario *s, int v) { s->par.etp = v; }
static int etp_get(const struct scenario *s) { return s->par.etp; }

/* The pipeline split: even, or "balanced": the embedding and the loss counted as a layer each, so the first and
 * last stage hold (layers + 2)/pp - 1 layers and the others (layers + 2)/pp (Megatron-Core's
 * --account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split). Only where that is whole,
 * differs from the even split (pp >= 3) and the schedule is not interleaved. */
static const char *const split_names[] = { "even", "balanced", NULL };
static int balanced_edge(const struct scenario *s)
{
	int L = s->model.layers, p = s->par.pp;
	if (p < 3 || s->par.schedule == SCHED_INTERLEAVED || s->model.type == MODEL_DENSE || (L + 2) % p != 0)
		return 0;
	return (L + 2) / p - 1;
}
static int split_values(const struct scenario *s, const struct hwmodel *hw, int gpus, int *v)
{
	v[0] = 0;
	v[1] = 1;
	return balanced_edge(s) >= 1 ? 2 : 1;
}
static void split_set(struct scenario *s, int v)
{
	s->par.first_stage_layers = s->par.last_stage_layers = v ? balanced_edge(s) : 0;
}
static int split_get(const struct scenario *s) { return scenario_uneven_split(s); }
static bool split_matters(const struct scenario *s) { return s->par.pp > 2 && s->par.schedule != SCHED_INTERLEAVED; }

/* Activation offload: none, or all but the last layer of each model chunk (the most it can save) where the
 * hardware has a host link and the model is a transformer of chunks of 2 layers or more */
static int offload_most(const struct scenario *s)
{
	int v = s->par.schedule == SCHED_INTERLEAVED ? s->par.virtual_stages : 1;
	if (s->model.type != MODEL_TRANSFORMER || s->train.recompute_layers > 0 || s->par.pp * v < 1 ||
	    s->model.layers % (s->par.pp * v) != 0)
		return 0;
	int Lv = s->model.layers / (s->par.pp * v);
	return Lv >= 2 ? Lv - 1 : 0;
}
static int offload_values(const struct scenario *s, const struct hwmodel *hw, int gpus, int *v)
{
	v[0] = 0;
	v[1] = 1;
	return hw->node.host_gbps > 0 && offload_most(s) > 0 ? 2 : 1;
}
static void offload_set(struct scenario *s, int v) { s->train.offload_layers = v ? offload_most(s) : 0; }
static int offload_get(const struct scenario *s) { return s->train.offload_layers > 0; }
static bool offload_matters(const struct scenario *s) { return s->model.type == MODEL_TRANSFORMER; }

/* The DP reduction in bf16 where the gradients are fp32 (FSDP2's MixedPrecisionPolicy reduce_dtype, Megatron
 * --grad-reduce-in-bf16 over an fp32 buffer): half the bytes, a cast each way. The compression hooks
 * (parallel.grad_compression) change what the model learns more than a rounding does and are not searched. */
static const char *const reduce_names[] = { "grad", "bf16", NULL };
static bool reduce_matters(const struct scenario *s)
{
	return scenario_grad_ranks(s) > 1 && s->train.grad_dtype == DT_FP32;
}
static int reduce_values(const struct scenario *s, const struct hwmodel *hw, int gpus, int *v)
{
	v[0] = 0;
	v[1] = 1;
	return reduce_matters(s) ? 2 : 1;
}
static void reduce_set(struct scenario *s, int v) { s->par.grad_reduce_dtype = v ? DT_BF16 : s->train.grad_dtype; }
static int reduce_get(const struct scenario *s) { return s->par.grad_reduce_dtype != s->train.grad_dtype; }

static bool always(const struct scenario *s) { return true; }

static const struct option options[] = {
	{ "parallel.tp", "tp", tp_values, tp_set, tp_get, always, 1, NULL, NULL },
	{ "parallel.pp", "pp", pp_values, pp_set, pp_get, always, 1, NULL, NULL },
	{ "parallel.cp", "cp", cp_values, cp_set, cp_get, cp_matters, 1, NULL, NULL },
	{ "parallel.dp", "dp", dp_values, dp_set, dp_get, always, 1, NULL, NULL },
	{ "training.micro_batch", "mb", mb_values, mb_set, mb_get, always, 1, NULL, NULL },
	{ "parallel.schedule", "schedule", sched_values, sched_set, sched_get, sched_matters, SCHED_1F1B,
	  schedule_names, NULL },
	{ "parallel.virtual_stages", "v", vs_values, vs_set, vs_get, vs_matters, 1, NULL, NULL },
	{ "parallel.first_stage_layers", "split", split_values, split_set, split_get, split_matters, 0, split_names,
	  "balanced" },
	{ "training.recompute", "recompute", rc_values, rc_set, rc_get, always, RECOMPUTE_NONE, recompute_names,
	  NULL },
	{ "training.recompute_layers", "rc_half", rl_values, rl_set, rl_get, rl_matters, 0, bool_names, "rc-half" },
	{ "parallel.ep", "ep", ep_values, ep_set, ep_get, moe_matters, 1, NULL, NULL },
	{ "parallel.etp", "etp", etp_values, etp_set, etp_get, moe_matters, 0, NULL, NULL },
	{ "parallel.zero", "zero", zero_values, zero_set, zero_get, zero_matters, 0, NULL, NULL },
	{ "parallel.shard_group", "shard", shard_values, shard_set, shard_get, shard_matters, 0, NULL, "hsdp" },
	{ "parallel.reshard_after_forward", "keep", flag_values, keep_set, keep_get, keep_matters, 0, bool_names,
	  "no-reshard" },
	{ "parallel.pp_scatter_gather", "sg", flag_values, sg_set, sg_get, sg_matters, 0, bool_names, "sg" },
	{ "parallel.sp", "sp", flag_values, sp_set, sp_get, sp_matters, 0, bool_names, "sp" },
	{ "parallel.overlap_param_gather", "opg", flag_values, opg_set, opg_get, opg_matters, 0, bool_names, "opg" },
	{ "parallel.tp_comm_overlap", "tpo", tpo_values, tpo_set, tpo_get, tpo_matters, 0, bool_names, "tpo" },
	{ "parallel.dp_overlap", "dp_overlap", flag_values, dpo_set, dpo_get, zero_matters, 1, bool_names,
	  "no-dp-overlap" },
	{ "training.offload_layers", "offload", offload_values, offload_set, offload_get, offload_matters, 0,
	  bool_names, "offload" },
	{ "parallel.grad_reduce_dtype", "reduce", reduce_values, reduce_set, reduce_get, reduce_matters, 0, reduce_names,
	  "bf16-reduce" },
};
#define NOPT ((int)(sizeof options / sizeof options[0]))
_Static_assert(NOPT <= PLAN_MAX_OPTIONS, "raise PLAN_MAX_OPTIONS");
/* the enum names above are indexed by the enum values */
_Static_assert(SCHED_GPIPE == 0 && SCHED_1F1B == 1 && SCHED_INTERLEAVED == 2, "schedule_names order");
_Static_assert(RECOMPUTE_NONE == 0 && RECOMPUTE_FULL == 1 && RECOMPUTE_SELECTIVE == 2 && RECOMPUTE_OP == 3,
	       "recompute_names order");

int plan_option_count(void) { return NOPT; }
const char *plan_option_key(int i) { return options[i].key; }
const char *plan_option_label(int i) { return options[i].label; }

bool plan_option_matters(int i, const struct scenario *s)
{
	return options[i].matters(s);
}

int plan_option_width(int i)
{
	int w = (int)strlen(options[i].label);
	if (w < 4)
		w = 4;
	for (int k = 0; options[i].names && options[i].names[k]; k++)
		if ((int)strlen(options[i].names[k]) > w)
			w = (int)strlen(options[i].names[k]);
	return w;
}

void plan_option_value(int i, const struct scenario *s, char *buf, size_t n)
{
	int v = options[i].get(s);
	if (options[i].names)
		snprintf(buf, n, "%s", options[i].names[v]);
	else
		snprintf(buf, n, "%d", v);
}

void plan_describe(const struct scenario *s, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = '\0';
	for (int i = 0; i < NOPT && len < n; i++) {
		if (!options[i].matters(s))
			continue;
		char val[48];
		plan_option_value(i, s, val, sizeof val);
		int w;
		if (options[i].changed) {
			if (options[i].get(s) == options[i].neutral)
				continue;
			w = snprintf(buf + len, n - len, "%s%s", len ? " " : "", options[i].changed);
		} else if (options[i].names) {
			w = snprintf(buf + len, n - len, "%s%s", len ? " " : "", val);
		} else {
			w = snprintf(buf + len, n - len, "%s%s %s", len ? " " : "", options[i].label, val);
		}
		len += w > 0 ? (size_t)w : 0;
	}
}

const char *plan_reject_name(enum plan_reject r)
{
	static const char *const names[PLAN_NREJ] = {
		"break a layout rule", "put a tensor-parallel group across nodes", "repeat another layout",
		"need more memory than the GPU has (before simulation)", "need more memory than the GPU has (simulated)",
		"cannot beat the top layouts (bound)",
	};
	return names[r];
}

/* --------------------------------------------------------------------------------------------------------- */

/* What the bounds read of the schedule's unit order (sim/schedule.h; sim/build.c runs the units in it): the most
 * forward units (micro-batch, model chunk) stage 0 holds activations of at once (a forward adds one, a backward
 * frees one), and of the last stage's units, the backward ones followed by another backward (bb) or by a forward
 * (bf). */
struct sched_facts {
	int peak0, bb, bf;
};

static void sched_facts_find(const struct scenario *s, struct sched_facts *f)
{
	int v = s->par.schedule == SCHED_INTERLEAVED ? s->par.virtual_stages : 1, m = scenario_num_microbatches(s);
	memset(f, 0, sizeof *f);
	if (m < 1 || v < 1 || s->par.pp < 1)
		return;
	struct unit *order = xmalloc(2 * (size_t)m * v * sizeof *order);
	int n = sched_order(s->par.schedule, s->par.pp, v, m, 0, order), live = 0;
	for (int i = 0; i < n; i++) {
		live += order[i].bwd ? -1 : 1;
		if (live > f->peak0)
			f->peak0 = live;
	}
	n = sched_order(s->par.schedule, s->par.pp, v, m, s->par.pp - 1, order);
	for (int i = 0; i + 1 < n; i++)
		if (order[i].bwd)
			order[i + 1].bwd ? f->bb++ : f->bf++;
	free(order);
}

/* plan_memory_lower_bound with stage 0's peak of units alive given (sched_facts) */
static double memory_lower_bound(const struct scenario *s, int peak_units)
{
	const struct model_cfg *m = &s->model;
	const struct parallel_cfg *p = &s->par;
	double params, acts;
	int mbs = scenario_num_microbatches(s);
	/* micro-batches stage 0 holds at its peak: all of them under GPipe, at least min(m, pp) under 1F1B */
	int inflight = p->schedule == SCHED_GPIPE ? mbs : (mbs < p->pp ? mbs : p->pp);
	if (m->type == MODEL_DENSE) {
		params = scenario_params_total(s);
		acts = s->train.recompute == RECOMPUTE_FULL ? 0 : inflight * mem_dense_act_bytes(s);
	} else {
		/* stage 0's layers (its share of an uneven split) */
		double stage_layers = scenario_uneven_split(s) ? scenario_chunk_layers(s, 0) : (double)m->layers / p->pp;
		params = stage_layers * (m->moe.experts > 0 ? moe_layer_params_local(s, 0)
							   : scenario_params_per_layer(s) / p->tp);
		if (m->vocab > 0)  /* stage 0 holds the embedding (and the head too when it is the only stage, untied) */
			params += (p->pp == 1 ? scenario_vocab_matrices(s) : 1.0) * m->vocab * m->hidden / p->tp;
		/* per model chunk (recompute_layers counts per chunk) */
		int v = p->schedule == SCHED_INTERLEAVED ? p->virtual_stages : 1;
		/* every unit alive holds a chunk's activations (less what it offloads); at the peak, peak_units: at
		 * least min(m, pp) per chunk under 1F1B and interleaving, all m under GPipe */
		int units = peak_units;
		if (units < inflight * v)
			units = inflight * v;
		acts = units * (recompute_chunk_act_bytes(s, (int)(stage_layers / v), p->tp) -
				       s->train.offload_layers * mem_layer_act_bytes(s, p->tp));
	}
	int zero = scenario_grad_ranks(s) > 1 ? p->zero : 0;
	double w = params * mem_weight_bytes_per_param(s);
	double g = params * mem_grad_bytes_per_param(s);
	double o = params * mem_optimizer_bytes_per_param(s);
	/* ZeRO shards over the data-parallel group; a model with experts shards its routed experts over their own
	 * expert-data-parallel group (sim/build.c) */
	double ex = m->type == MODEL_DENSE ? 0 : (scenario_uneven_split(s) ? scenario_chunk_layers(s, 0)
					    : (double)m->layers / p->pp) * moe_expert_params_local(s);
	int S = scenario_shard_group(s);  /* HSDP: the shard group; else the dp*cp ranks holding the same weights */
	double shard = params > 0 ? ((params - ex) / S + ex / moe_edp(s)) / params : 1;
	if (scenario_grad_ranks(s) > 1 && p->dp_bucket_copy && zero < 2)
		g *= 2;
	if (zero >= 1)
		o *= shard;
	if (zero >= 2)
		g *= shard;
	if (zero == 3)  /* the own shard; kept from the forward to the backward (sim/build.c): the stage's whole too */
		w = w / S + (p->keep_after_forward ? w : 0);
	return w + g + o + acts;
}

double plan_memory_lower_bound(const struct scenario *s)
{
	struct sched_facts f;
	sched_facts_find(s, &f);
	return memory_lower_bound(s, f.peak0);
}

/* One micro-batch's work over the layers of one pipeline stage on one TP rank, at the sustained rates: the
 * compute-bound ops (GEMMs, attention cores) and the rest of the compute ops, forward and backward (with what
 * recompute reruns), and the collectives that block the compute stream; apart, the output head and loss that
 * the last stage runs besides. Embedding and optimizer are left out: they only add work (see
 * plan_time_lower_bound for why leaving work out keeps a lower bound). */
struct unit_work {
	double fc, fm, bc, bm;   /* compute-bound and other compute seconds, forward and backward */
	double tf, tb;           /* TP and expert collectives, forward and backward */
	double f1, b1;           /* a transformer layer's forward and backward compute (without a rerun forward) */
	double tf1, tb1;         /* its collectives' waits, forward and backward */
	double hc, hm, ht;       /* the last stage's head and loss, forward and backward: compute-bound and other
	                          * compute, collectives (once per micro-batch, in its last model chunk) */
};

/* A layer's collective as the first stage's groups time it (groups starting at rank 0 cross the fewest node
 * boundaries, so no stage's is quicker): TP all-reduce, all-gather or reduce-scatter, the experts' all-to-all. */
static double coll_s(const struct scenario *s, const struct hwmodel *hw, const struct opcost *op)
{
	int gpn = hw->node.gpus;
	switch (op->kind) {
	case OPK_TP_ALLREDUCE: return comm_coll_s(hw, COLL_ALL_REDUCE, op->bytes, comm_shape(gpn, 0, 1, s->par.tp));
	case OPK_TP_ALLGATHER: return comm_coll_s(hw, COLL_ALL_GATHER, op->bytes, comm_shape(gpn, 0, 1, s->par.tp));
	case OPK_TP_REDUCESCATTER:
		return comm_coll_s(hw, COLL_REDUCE_SCATTER, op->bytes, comm_shape(gpn, 0, 1, s->par.tp));
	case OPK_EP_ALLTOALL:
		return moe_alltoall_s(hw, op->bytes, comm_shape(gpn, 0, scenario_etp(s), s->par.ep));
	case OPK_CP_ALLGATHER:
		return comm_coll_s(hw, COLL_ALL_GATHER, op->bytes, comm_shape(gpn, 0, s->par.tp, s->par.cp));
	case OPK_CP_REDUCESCATTER:
		return comm_coll_s(hw, COLL_REDUCE_SCATTER, op->bytes, comm_shape(gpn, 0, s->par.tp, s->par.cp));
	case OPK_COMPUTE:
	case OPK_SIDE_TP_P2P:  /* side-stream transfers may hide entirely behind the compute beside them */
	case OPK_SIDE_TP_ALLGATHER:
	case OPK_SIDE_TP_REDUCESCATTER:
	case OPK_SIDE_CP_P2P:
	case OPK_SIDE_WAIT:
		break;
	}
	return 0;
}

/* A side-stream transfer (TP overlap, the CP ring) at its quickest: a ring hop over NVLink or the network,
 * whichever is faster, a bulk collective as the first stage's TP group runs it. */
static double side_s(const struct scenario *s, const struct hwmodel *hw, const struct opcost *op)
{
	int hops = op->hops > 0 ? op->hops : 1;
	double intra = comm_p2p_s(hw, op->bytes / hops, 1), inter = comm_p2p_s(hw, op->bytes / hops, 0);
	struct group_shape tp = comm_shape(hw->node.gpus, 0, 1, s->par.tp);
	switch (op->kind) {
	case OPK_SIDE_TP_ALLGATHER: return comm_coll_s(hw, COLL_ALL_GATHER, op->bytes, tp);
	case OPK_SIDE_TP_REDUCESCATTER: return comm_coll_s(hw, COLL_REDUCE_SCATTER, op->bytes, tp);
	default: return hops * (intra < inter ? intra : inter);
	}
}

/* An op list's work: compute-bound and other compute ops, and the waits. A side transfer is waited for at most
 * max(0, transfer - the compute beside it up to its wait): the compute stream reaches the wait no earlier than
 * that compute after the transfer's issue, and the transfer ends no earlier than its time after it (each list's
 * transfers are waited for before the next is issued), so the wait plus the compute counted is a lower bound of
 * the window whatever the clock and the SM sharing. */
static void add_ops(const struct scenario *s, const struct hwmodel *hw, const struct opcost *ops, int n,
		    double *c, double *m, double *t)
{
	double side = 0, beside = 0;
	for (int i = 0; i < n; i++) {
		if (ops_is_side(ops[i].kind)) {
			side += side_s(s, hw, &ops[i]);
			beside = 0;
		} else if (ops[i].kind == OPK_SIDE_WAIT) {
			*t += side > beside ? side - beside : 0;
			side = beside = 0;
		} else if (ops[i].kind != OPK_COMPUTE) {
			*t += coll_s(s, hw, &ops[i]);
		} else {
			*(ops[i].compute_bound ? c : m) += ops[i].s;
			beside += ops[i].s;
		}
	}
}

static void stage_unit(const struct scenario *s, const struct hwmodel *hw, struct unit_work *u)
{
	struct opctx oc = { hw, s, s->par.tp, scenario_rank_tokens(s), OPS_NO_HOST };  /* the bound counts no host */
	struct opcost fw[OPS_MAX], bw[OPS_MAX];
	memset(u, 0, sizeof *u);
	if (s->model.type == MODEL_DENSE) {
		for (int l = 0; l < s->model.layers; l++) {
			add_ops(s, hw, fw, ops_dense_fwd(&oc, l, fw), &u->fc, &u->fm, &u->tf);
			add_ops(s, hw, bw, ops_dense_bwd(&oc, l, bw), &u->bc, &u->bm, &u->tb);
		}
	} else {
		int nf = ops_layer_fwd(&oc, fw);
		add_ops(s, hw, fw, nf, &u->fc, &u->fm, &u->tf);
		add_ops(s, hw, bw, ops_layer_bwd(&oc, s->train.recompute == RECOMPUTE_SELECTIVE, bw), &u->bc, &u->bm,
			&u->tb);
		if (s->train.recompute == RECOMPUTE_OP) {  /* the ops the per-op policy reruns */
			struct opcost rr[OPS_MAX];
			add_ops(s, hw, rr, recompute_op_list(&oc, fw, nf, rr), &u->bc, &u->bm, &u->tb);
		}
		u->f1 = u->fc + u->fm, u->b1 = u->bc + u->bm, u->tf1 = u->tf, u->tb1 = u->tb;
		if (s->model.vocab > 0) {
			add_ops(s, hw, fw, ops_head_fwd(&oc, fw), &u->hc, &u->hm, &u->ht);
			add_ops(s, hw, bw, ops_head_bwd(&oc, bw), &u->hc, &u->hm, &u->ht);
		}
		/* the fewest layers a stage holds: every stage's units are at least this long */
		double layers = scenario_uneven_split(s) ? scenario_min_chunk_layers(s) : (double)s->model.layers / s->par.pp;
		u->fc *= layers, u->fm *= layers, u->bc *= layers, u->bm *= layers, u->tf *= layers, u->tb *= layers;
	}
	if (s->train.recompute == RECOMPUTE_FULL) {
		/* the share of the layers that rerun their forward (recompute_layers with the block method: some) */
		int v = s->par.schedule == SCHED_INTERLEAVED ? s->par.virtual_stages : 1, Lv = s->model.layers / (s->par.pp * v);
		if (s->model.type == MODEL_DENSE || scenario_uneven_split(s))
			Lv = s->model.type == MODEL_DENSE ? s->model.layers : scenario_max_chunk_layers(s);
		double share = Lv > 0 ? (double)recompute_full_layers(s, Lv) / Lv : 1;
		u->bc += share * u->fc, u->bm += share * u->fm, u->tb += share * u->tf;
	}
}

/* The power model's compute clock for a stage (sim/predict.c, stage_target): the largest v in [1, burst] with
 * v^(x-1) - 1/v <= R. */
static double clock_for(const struct hw_gpu *g, double R)
{
	double x1 = g->power_exponent - 1, lo = 1, hi = g->burst_speedup;
	if (pow(hi, x1) - 1 / hi <= R)
		return hi;
	for (int i = 0; i < 60 && hi - lo > 1e-12; i++) {
		double mid = 0.5 * (lo + hi);
		if (pow(mid, x1) - 1 / mid <= R)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

/* Activation offload (training.offload_layers, sim/build.c): each of the first N layers of every model chunk
 * copies its activations to the host after its forward (D2H) and back before its backward (the reload), bytes /
 * node.host_gbps each way, in program order on the stage's one copy stream. The copies are not scaled by the
 * stage clock and the overlap slowdown only lengthens them, so the last stage's copy stream is busy for its m v
 * units' copies (each rounded to the engine's tick of 2^-40 s: at most half a tick short), and idle:
 *  - before its first copy: the pipeline's fill (the first micro-batch's forward through the p-1 stages before
 *    it, as in plan_time_lower_bound) and its own first layer's forward, which the first D2H waits for;
 *  - after its last copy (the last backward unit's reload of its first layer): that layer's backward, which
 *    waits for it, then the drain back through the p-1 stages before it;
 *  - between a backward unit's last reload and the next copy: that unit's first layer's backward (the next
 *    copy is issued after it, in program order: the next backward's first reload at the start of its layer N's
 *    backward, or the next forward's first D2H after its first layer's forward, which then also runs).
 * Compute runs at most at burst_speedup. The unit order is the schedule's (sim/schedule.h). So step >= fill and
 * drain + (f1 + b1) / burst + m v (out + back) t_copy + (backward units followed by another unit) b1 / burst +
 * (backward units followed by a forward) f1 / burst. Where the copies outweigh the compute (70b_64gpu's
 * offloaded layouts) this is the tighter bound; the compute-stream bound leaves the copies out. 0 without
 * offload. */
static double offload_copy_lower_bound(const struct scenario *s, const struct hwmodel *hw, const struct unit_work *u,
				       const struct sched_facts *f, double burst, double fill_drain)
{
	int N = s->train.offload_layers;
	if (N <= 0 || s->model.type != MODEL_TRANSFORMER || !(hw->node.host_gbps > 0))
		return 0;
	int v = s->par.schedule == SCHED_INTERLEAVED ? s->par.virtual_stages : 1, p = s->par.pp;
	int m = scenario_num_microbatches(s);
	/* a chunk of Lv layers copies out min(N, Lv) and reloads min(N, Lv - 1) (its top layer's reload is never
	 * issued); an uneven split's smallest chunk counts for every stage */
	int Lv = scenario_uneven_split(s) ? scenario_min_chunk_layers(s) : s->model.layers / (p * v);
	int out = N < Lv ? N : Lv, back = N < Lv - 1 ? N : Lv - 1;
	if (out <= 0)
		return 0;
	if (back < 0)
		back = 0;
	double t_copy = mem_layer_act_bytes(s, s->par.tp) / (hw->node.host_gbps * 1e9);
	double lb = fill_drain + (double)m * v * (out + back) * (t_copy - 1e-12) + u->f1 / burst;
	if (back > 0)  /* the gaps after backward units: every unit's reloads end before its first layer's backward */
		lb += (u->b1 * (1 + f->bb + f->bf) + u->f1 * f->bf) / burst;
	return lb;
}

/* The backward units' waits for their reloads (sim/build.c, offload_in): in each backward unit, layer l's reload
 * (l < N) is issued as layer l+1's backward starts and layer l's backward starts only once it is in, so the
 * stretch from the start of layer l+1's backward to the start of layer l's lasts t_copy at least. On the compute
 * stream that stretch holds layer l+1's backward (its forward first, with full recompute), its collectives, and
 * what the bound does not count: the gradient accumulation, bucket copies (memory-bound compute), host time, ZeRO-3
 * gather waits. Its waits are therefore at least max(the collectives counted, t_copy - its compute), i.e. the
 * counted collectives plus max(0, t_copy - compute - collectives counted): the extra returned here, per stretch,
 * for the min(N, Lv - 1) stretches of each of the m v backward units. The stretches are disjoint from each other
 * and from the waits counted elsewhere (unit boundaries, fill and drain). With the power model the compute in a
 * stretch is at most its work at the sustained rates (the engine's clock factor is >= 1), so `scale` is 1: the
 * work counted (b1, f1) and any memory-bound work left out (E) take at most their sustained time, and the E
 * taken from the waits here is added back in W_m, which raises T at least as much as the same seconds of waits
 * where 1 - power.memory_bound <= the waits' weight w (the caller checks); FP8 casts and gradient compression,
 * which may hold compute-bound work, are left out (0). Without the power model the stretch's time is at least
 * t_copy and at least what is counted for it (its compute at burst_speedup plus its collectives), so `scale` is
 * burst_speedup and the argument holds for any work left out. */
static double offload_reload_waits(const struct scenario *s, const struct hwmodel *hw, const struct unit_work *u,
				   double scale)
{
	int N = s->train.offload_layers;
	if (N <= 0 || s->model.type != MODEL_TRANSFORMER || !(hw->node.host_gbps > 0) || fp8_on(s) ||
	    s->par.gc.method != GC_NONE)
		return 0;
	int v = s->par.schedule == SCHED_INTERLEAVED ? s->par.virtual_stages : 1;
	int Lv = scenario_uneven_split(s) ? scenario_min_chunk_layers(s) : s->model.layers / (s->par.pp * v);
	int back = N < Lv - 1 ? N : Lv - 1;
	if (back <= 0)
		return 0;
	bool full = s->train.recompute == RECOMPUTE_FULL;
	double work = (u->b1 + (full ? u->f1 : 0)) / scale, coll = u->tb1 + (full ? u->tf1 : 0);
	double t_copy = mem_layer_act_bytes(s, s->par.tp) / (hw->node.host_gbps * 1e9) - 1e-12;
	return (double)scenario_num_microbatches(s) * v * back * fmax(0, t_copy - work - coll);
}

/* The last stage's DP stream (sim/build.c): the least time of the collectives it runs, one after another, at
 * their times before any slowing. ZeRO-3 gathers every layer of a chunk in each forward unit and again in each
 * backward unit (unless the forward's are kept), and reduce-scatters each layer's gradients after its backward:
 * each of those collectives has the layer's size, so it is timed as the program times it, for the layers
 * without the embedding or head riding along (two of each micro-batch's left out: only the model's first and
 * last layer carry them). The other layouts reduce the
 * gradients in buckets (all-reduce, or reduce-scatter with ZeRO 1/2) and ZeRO 1/2 gathers the updated
 * parameters: their sizes depend on the buckets, so they are counted at the floor of their total
 * (comm_coll_floor_s, which no split beats), a model's routed experts' gradients over their own group. Left out
 * (0, which keeps it a lower bound): dense layer lists, a reduce dtype or compression hook's own collectives,
 * HSDP's replica all-reduce, the embedding and head. */
static double dp_stream_lower_bound(const struct scenario *s, const struct hwmodel *hw)
{
	const struct parallel_cfg *p = &s->par;
	int rdp = scenario_grad_ranks(s);
	if (rdp < 2 || s->model.type != MODEL_TRANSFORMER)
		return 0;
	int v = p->schedule == SCHED_INTERLEAVED ? p->virtual_stages : 1, gpn = hw->node.gpus;
	int Lv = scenario_uneven_split(s) ? scenario_min_chunk_layers(s) : s->model.layers / (p->pp * v);
	int base = p->tp * rdp * (p->pp - 1);
	struct group_shape shard = comm_shape(gpn, base, p->tp, scenario_shard_group(s));
	bool moe = s->model.moe.experts > 0;
	double pl = moe ? moe_layer_params_local(s, 0) : scenario_params_per_layer(s) / p->tp;
	double ex = moe ? moe_expert_params_local(s) : 0, m = scenario_num_microbatches(s);
	double gather = pl * fp8_param_gather_bytes_per_param(s), grads = pl * dtype_bytes(s->train.grad_dtype);
	bool gc = gradcomp_on(s);
	if (p->zero == 3) {
		double ag = comm_coll_s(hw, COLL_ALL_GATHER, gather, shard);
		double rs = gc ? 0 : comm_coll_s(hw, COLL_REDUCE_SCATTER, grads, shard);
		return m * fmax(0, (double)v * Lv - 2) * (ag * (p->keep_after_forward ? 1 : 2) + rs);
	}
	double layers = (double)v * Lv, t = 0;
	if (!gc) {
		/* the routed experts' gradients over their own group, in the reduce dtype; the rest over DP */
		double rest = layers * (pl - ex) * dtype_bytes(s->train.grad_dtype);
		enum coll_op op = p->zero >= 1 ? COLL_REDUCE_SCATTER : COLL_ALL_REDUCE;
		t += comm_coll_floor_s(hw, op, rest, p->zero >= 1 ? shard : comm_shape(gpn, base, p->tp, rdp));
		if (ex > 0)
			t += comm_coll_floor_s(hw, op, layers * ex * dtype_bytes(p->grad_reduce_dtype),
					       comm_shape(gpn, base, p->ep * scenario_etp(s), moe_edp(s)));
	}
	if (p->zero >= 1)
		t += comm_coll_floor_s(hw, COLL_ALL_GATHER, layers * gather, shard);
	return t;
}

/* plan_time_lower_bound with the schedule's facts given */
static double time_lower_bound(const struct scenario *s, const struct hwmodel *hw, const struct sched_facts *f)
{
	/* Each stage runs m forwards and backwards of its layers one after another. The last stage cannot start
	 * before the first micro-batch's forward has passed the p-1 stages before it (of its first model chunk:
	 * (p-1)/v of a unit), and after its last backward that of the last micro-batch still passes back through
	 * p-1 stages: step >= (p-1)/v units of other stages + the last stage's m units + its waits for its
	 * collectives and blocking sends. Other stages' units are counted at the fastest clock the power model
	 * allows (burst_speedup). */
	const struct hw_gpu *g = &hw->gpu;
	struct unit_work u;
	stage_unit(s, hw, &u);
	int v = s->par.schedule == SCHED_INTERLEAVED ? s->par.virtual_stages : 1, p = s->par.pp;
	double m = scenario_num_microbatches(s), burst = g->burst_speedup > 1 ? g->burst_speedup : 1;
	double unit_fast = (u.fc + u.fm + u.bc + u.bm) / burst + u.tf + u.tb;
	double fill_drain = (double)(p - 1) / v * unit_fast, waits = fill_drain + m * (u.tf + u.tb);
	double copies = offload_copy_lower_bound(s, hw, &u, f, burst, fill_drain);
	if (p > 1 && !s->par.pp_overlap) {
		/* blocking sends: the last stage's compute stream also waits for its m*(v-1) activation sends (all
		 * chunks but the model's last) and its m*v gradient sends, each at least a point-to-point transfer
		 * inside or across nodes, whichever is quicker */
		double bytes = scenario_rank_tokens(s) * s->model.hidden * dtype_bytes(s->model.dtype);
		if (s->par.pp_scatter_gather || s->par.sp)  /* sent split over TP */
			bytes /= s->par.tp;
		double intra = comm_p2p_s(hw, bytes, 1), inter = comm_p2p_s(hw, bytes, 0);
		waits += m * (2 * v - 1) * (intra < inter ? intra : inter);
	}
	/* the last stage's own work: its m units and its head and loss */
	double Wc = m * (u.fc + u.bc + u.hc), Wm = m * (u.fm + u.bm + u.hm);
	waits += m * u.ht;
	/* The last stage's own compute. Without a power model: Wc + Wm. With one (sim/predict.c, stage_target) the
	 * stage runs its compute-bound work at a clock v set by its power budget: v^(x-1) - 1/v = R, R = ((1-mem) Wm
	 * + (1-comm) Tc + (1-idle) Ti) / ((1-idle) Wc), and T = Wc/v + Wm + Tc + Ti. T grows with each of Wc, Wm,
	 * Tc and Ti as long as (1-mem), (1-comm) and 1-idle are below x (1-idle): d(Wc/v)/dTc = -(1-comm) /
	 * ((1-idle) ((x-1) v^x + 1)) > -1, and likewise for Wm and Ti; so work and waits left out, or counted short,
	 * only lower it. Counting every wait at the larger of the comm and idle weights raises R, hence v: lower
	 * still. Otherwise the compute is counted at burst_speedup. */
	const double x = g->power_exponent, tol = 1e-6;  /* tol: the clock iteration stops at changes of 1e-6 */
	double one_idle = 1 - g->power_idle_frac, w = fmax(1 - g->power_comm_frac, one_idle);
	/* The DP stream beside it (dp_stream_lower_bound: D, its collectives one after another within the step):
	 * the step is at least D, and with the overlap pair (sim/engine.c) what of D does not lie beside the
	 * stage's waits lies beside its compute and slows it. Over a fused run of length len, computing c of it,
	 * a collective overlapping o of it lengthens it by cs c/len o >= cs (o - (len - c)) (o <= len), and a run
	 * lengthened by e before is still so (c and len grow alike); once a run has grown by cs c it has paid
	 * cs/(1+cs) of whatever overlaps it beyond its waits. Outside runs the stream does not compute. So the
	 * stage's time beyond its compute is at least N + k max(0, D - N), N its waits and idle (at least the
	 * waits counted), k = cs/(1+cs). With the power model the compute time falls as N grows, at most by
	 * w/(x one_idle) of it (d(Wc/v)/dN = -w/(one_idle ((x-1) v^x + 1)), v >= 1), so T(N) is linear-bounded
	 * between N = waits and N = D and its least value is at one end: the rate min(k, 1 - that) times D -
	 * waits. Each tick rounding (half a tick) is covered by the 1e-6 relative and 1e-9 s taken off. */
	double D = dp_stream_lower_bound(s, hw) * (1 - 1e-6), cs = hw->overlap_compute_slowdown;
	double k = cs > 0 ? cs / (1 + cs) : 0;
	if (burst > 1 && Wc > 0 && x > 1 && w < x * one_idle && 1 - g->power_mem_frac < x * one_idle) {
		if (1 - g->power_mem_frac <= w)
			waits += offload_reload_waits(s, hw, &u, 1);
		double R = ((1 - g->power_mem_frac) * Wm + w * waits) / (one_idle * Wc);
		double clock = fmin(clock_for(g, R) * (1 + tol), burst);
		double slow = fmax(0, fmin(k, 1 - w / (x * one_idle)) * (D - waits) - 1e-9);
		return fmax(fmax(Wc / clock + Wm + waits + slow, copies), D);
	}
	waits += offload_reload_waits(s, hw, &u, burst);
	double slow = fmax(0, k * (D - waits) - 1e-9);
	return fmax(fmax((Wc + Wm) / burst + waits + slow, copies), D);
}

double plan_time_lower_bound(const struct scenario *s, const struct hwmodel *hw)
{
	struct sched_facts f;
	sched_facts_find(s, &f);
	return time_lower_bound(s, hw, &f);
}

void plan_cost_of(const struct scenario *s, double step_time_s, double tokens, double steps, double price,
		  struct plan_cost *out)
{
	memset(out, 0, sizeof *out);
	out->steps = tokens > 0 ? tokens / ((double)s->train.global_batch * s->model.seq) : steps;
	out->time_to_train_s = out->steps * step_time_s;
	out->gpu_hours = out->time_to_train_s / 3600 * s->par.gpus;
	out->usd = out->gpu_hours * price;
}

/* --------------------------------------------------------------------------------------------------------- */

struct cand {
	int v[NOPT];
	double lb;        /* time lower bound */
};

struct search {
	const struct plan_spec *spec;
	struct plan_result *out;
	struct scenario s;           /* the layout being built */
	struct cand *c;              /* distinct layouts that passed the rules and the memory bound */
	size_t nc, capc;
	uint64_t *seen;              /* open-addressing hash set of layout keys (0 = empty) */
	size_t seen_cap, nseen;
	struct { int sched, pp, v, m; struct sched_facts f; } units;  /* the last sched_facts (sched -1: none yet) */
};

/* sched_facts_find, remembered for the last schedule, pp, v and m (the enumeration changes them seldom) */
static const struct sched_facts *sched_facts_of(struct search *x, const struct scenario *s)
{
	int v = s->par.schedule == SCHED_INTERLEAVED ? s->par.virtual_stages : 1, m = scenario_num_microbatches(s);
	if (x->units.sched != (int)s->par.schedule || x->units.pp != s->par.pp || x->units.v != v || x->units.m != m) {
		x->units.sched = (int)s->par.schedule, x->units.pp = s->par.pp, x->units.v = v, x->units.m = m;
		sched_facts_find(s, &x->units.f);
	}
	return &x->units.f;
}

static uint64_t key_of(const struct scenario *s)
{
	uint64_t h = 1469598103934665603ull;  /* FNV-1a over the option values */
	for (int i = 0; i < NOPT; i++) {
		h ^= (uint64_t)(uint32_t)options[i].get(s);
		h *= 1099511628211ull;
	}
	return h ? h : 1;
}

/* Inserts key; false when it was there. Keys are 64-bit hashes of at most a few tens of thousands of layouts:
 * a collision (about 1e-10 here) would only drop one layout as a repeat. */
static bool seen_insert(struct search *x, uint64_t key)
{
	if (2 * (x->nseen + 1) > x->seen_cap) {
		size_t cap = x->seen_cap ? 2 * x->seen_cap : 1024;
		uint64_t *t = xcalloc(cap, sizeof *t);
		for (size_t i = 0; i < x->seen_cap; i++) {
			if (!x->seen[i])
				continue;
			size_t j = x->seen[i] & (cap - 1);
			while (t[j])
				j = (j + 1) & (cap - 1);
			t[j] = x->seen[i];
		}
		free(x->seen);
		x->seen = t;
		x->seen_cap = cap;
	}
	size_t j = key & (x->seen_cap - 1);
	while (x->seen[j]) {
		if (x->seen[j] == key)
			return false;
		j = (j + 1) & (x->seen_cap - 1);
	}
	x->seen[j] = key;
	x->nseen++;
	return true;
}

/* A distinct layout (t: in canonical form): the repeats, the memory bound, its time bound. */
static void consider_canonical(struct search *x, const struct scenario *t)
{
	struct plan_result *o = x->out;
	if (!seen_insert(x, key_of(t))) {
		o->rejected[PLAN_REJ_SAME]++;
		return;
	}
	const struct sched_facts *f = sched_facts_of(x, t);
	if (memory_lower_bound(t, f->peak0) + x->spec->hw->gpu.workspace_bytes > x->spec->hw->gpu.memory_bytes) {
		o->rejected[PLAN_REJ_MEMORY]++;
		return;
	}
	if (x->nc == x->capc) {
		x->capc = x->capc ? 2 * x->capc : 256;
		x->c = xreallocarray(x->c, x->capc, sizeof *x->c);
	}
	struct cand *c = &x->c[x->nc++];
	for (int i = 0; i < NOPT; i++)
		c->v[i] = options[i].get(t);
	c->lb = time_lower_bound(t, x->spec->hw, f);
}

/* A complete combination: the rules, the canonical form, the memory bound. */
static void consider(struct search *x)
{
	struct plan_result *o = x->out;
	struct scenario *s = &x->s;
	char why[160];
	o->candidates++;
	/* the rules without their message once the first one's is kept (below): most combinations break one, and
	 * formatting a message for each cost a third of the enumeration */
	if (o->rejected[PLAN_REJ_RULE] > 0 && scenario_check_layout(s, NULL, 0) != 0) {
		o->rejected[PLAN_REJ_RULE]++;
		return;
	}
	if (scenario_check_layout(s, why, sizeof why) != 0) {
		if (o->rejected[PLAN_REJ_RULE]++ == 0)
			snprintf(o->rule_example, sizeof o->rule_example, "%s", why);
		return;
	}
	if (s->par.tp > x->spec->hw->node.gpus) {
		o->rejected[PLAN_REJ_TP_NODE]++;
		return;
	}
	/* the canonical form, in place: the options set only parallel.* and training.* (176 bytes to put back, not
	 * the whole scenario's 2 KB) */
	struct parallel_cfg par = s->par;
	struct train_cfg train = s->train;
	for (int i = 0; i < NOPT; i++)
		if (!options[i].matters(s))
			options[i].set(s, options[i].neutral);
	consider_canonical(x, s);
	s->par = par;
	s->train = train;
}

static void enumerate(struct search *x, int row)
{
	if (row == NOPT) {
		consider(x);
		return;
	}
	int v[MAXV];
	int n = options[row].values(&x->s, x->spec->hw, x->spec->gpus, v);
	for (int i = 0; i < n; i++) {
		options[row].set(&x->s, v[i]);
		enumerate(x, row + 1);
	}
}

/* Candidates by their bound; equal bounds by their option values here, then by their descriptions
 * (order_ties) once the search reaches them */
static int by_bound(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	if (x->lb != y->lb)
		return x->lb < y->lb ? -1 : 1;
	return memcmp(x->v, y->v, sizeof x->v);
}

/* A candidate's layout: the search's scenario with every option set to the candidate's value */
static void cand_layout(const struct search *x, const struct cand *c, struct scenario *out)
{
	*out = x->s;
	for (int j = 0; j < NOPT; j++)
		options[j].set(out, c->v[j]);
}

struct tie {
	char desc[160];
	struct cand c;
};

static int by_desc(const void *a, const void *b)
{
	return strcmp(((const struct tie *)a)->desc, ((const struct tie *)b)->desc);
}

/* Orders the run of candidates from c[i] whose bound equals c[i]'s by their descriptions (plan_describe) and
 * returns the run's end. A layout is described only when the search reaches its bound: of the mixtral search's
 * 8 M candidates 7 thousand are, and describing them all took a tenth of its time and 1.3 GB. */
static size_t order_ties(struct search *x, size_t i)
{
	size_t j = i + 1;
	while (j < x->nc && x->c[j].lb == x->c[i].lb)
		j++;
	if (j - i < 2)
		return j;
	struct tie *t = xreallocarray(NULL, j - i, sizeof *t);
	struct scenario sc;
	for (size_t k = i; k < j; k++) {
		t[k - i].c = x->c[k];
		cand_layout(x, &x->c[k], &sc);
		plan_describe(&sc, t[k - i].desc, sizeof t[k - i].desc);
	}
	qsort(t, j - i, sizeof *t, by_desc);
	for (size_t k = i; k < j; k++)
		x->c[k] = t[k - i].c;
	free(t);
	return j;
}

static int by_step(const void *a, const void *b)
{
	const struct plan_entry *x = a, *y = b;
	if (x->r.step_time_s != y->r.step_time_s)
		return x->r.step_time_s < y->r.step_time_s ? -1 : 1;
	return strcmp(x->desc, y->desc);
}

static double now_s(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int plan_search(const struct plan_spec *spec, struct plan_result *out)
{
	double t0 = now_s(CLOCK_MONOTONIC), c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
	memset(out, 0, sizeof *out);
	out->gpus = spec->gpus;
	snprintf(out->hardware, sizeof out->hardware, "%s", spec->hw->name);
	out->price = spec->price > 0 ? spec->price : spec->hw->usd_per_gpu_hour;
	int K = spec->top > 0 ? spec->top : 1;

	struct search x = { .spec = spec, .out = out, .s = *spec->base, .units = { .sched = -1 } };
	x.s.par.gpus = spec->gpus;
	enumerate(&x, 0);
	if (x.nc > 1)  /* c is NULL when nothing was enumerated: qsort(NULL, 0, ...) is undefined */
		qsort(x.c, x.nc, sizeof *x.c, by_bound);

	/* simulate in order of the bound; keep the K fastest in top (sorted), stop when the bound cannot beat the
	 * K-th */
	out->top = xcalloc((size_t)K + 1, sizeof *out->top);
	int rc = 0;
	size_t i, tied = 0;  /* c[.. tied) in their final order */
	for (i = 0; i < x.nc; i++) {
		if (!spec->exhaustive && out->ntop == K && x.c[i].lb >= out->top[K - 1].r.step_time_s)
			break;
		if (i >= tied)
			tied = order_ties(&x, i);
		struct plan_entry *e = &out->top[out->ntop];  /* the spare slot */
		cand_layout(&x, &x.c[i], &e->sc);
		if ((rc = predict_run(&e->sc, spec->hw, NULL, &e->r)) != 0)
			break;
		out->simulated++;
		if (!e->r.fits_in_memory) {
			out->rejected[PLAN_REJ_MEMORY_SIM]++;
			continue;
		}
		plan_describe(&e->sc, e->desc, sizeof e->desc);
		plan_cost_of(&e->sc, e->r.step_time_s, spec->tokens, spec->steps, out->price, &e->cost);
		out->ntop++;
		if (out->ntop > 1)
			qsort(out->top, (size_t)out->ntop, sizeof *out->top, by_step);
		if (out->ntop > K)
			out->ntop = K;  /* the slowest falls into the spare slot */
	}
	/* the kept layouts' host drift bands (sim/hostband.h): two more runs each, for host-bound ones only */
	for (int k = 0; rc == 0 && k < out->ntop; k++)
		rc = hostband_run(&out->top[k].sc, spec->hw, NULL, &out->top[k].r);
	out->rejected[PLAN_REJ_BOUND] = rc == 0 ? (long long)(x.nc - i) : 0;
	free(x.c);
	free(x.seen);
	out->wall_s = now_s(CLOCK_MONOTONIC) - t0;
	out->cpu_s = now_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
	if (rc != 0) {
		plan_result_release(out);
		return rc;
	}
	return 0;
}

void plan_result_release(struct plan_result *r)
{
	free(r->top);
	r->top = NULL;
	r->ntop = 0;
}
