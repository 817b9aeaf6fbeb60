/* variants: the pipeline split, tied embeddings (see variants.h; keys in docs/scenario.md). */
#include "scenario/variants.h"

#include <stdio.h>
#include "util/gserr.h"

static const struct ynode *at(const struct ynode *map, const char *key)
{
	const struct ynode *v = map ? ynode_get(map, key) : NULL;
	return v ? v : map;
}

void variants_read_model(struct ydoc *d, const struct ynode *m, struct scenario *s)
{
	s->model.tie_embeddings = false;
	if (ydoc_bool(d, m, "tie_embeddings", 0, &s->model.tie_embeddings) == 1 && s->model.tie_embeddings &&
	    s->model.type != MODEL_TRANSFORMER)
		ydoc_error(d, ynode_get(m, "tie_embeddings"), "model.tie_embeddings: only for transformer models");
}

void variants_read_training(struct ydoc *d, const struct ynode *t, struct scenario *s)
{
	static const char *const method_names[] = { "uniform", "block", NULL };
	int method = 0;
	s->train.recompute_layers = 0;
	bool given = ydoc_int(d, t, "recompute_layers", YD_POSITIVE, &s->train.recompute_layers) == 1;
	if (ydoc_enum(d, t, "recompute_method", 0, method_names, &method) == 1 && !given)
		ydoc_error(d, ynode_get(t, "recompute_method"), "training.recompute_method: only with "
			   "training.recompute_layers");
	s->train.recompute_block = method == 1;
	if (given && s->train.recompute != RECOMPUTE_FULL)
		ydoc_error(d, ynode_get(t, "recompute_layers"), "training.recompute_layers: only with recompute: full "
			   "(recompute is %s)", s->train.recompute == RECOMPUTE_NONE ? "none" :
			   s->train.recompute == RECOMPUTE_SELECTIVE ? "selective" : "op");
	s->train.offload_layers = 0;
	if (ydoc_int(d, t, "offload_layers", YD_POSITIVE, &s->train.offload_layers) == 1 &&
	    (s->model.type != MODEL_TRANSFORMER || given))
		ydoc_error(d, ynode_get(t, "offload_layers"), "training.offload_layers: %s",
			   given ? "not with training.recompute_layers" : "only for transformer models");
	if (s->train.recompute == RECOMPUTE_OP && s->model.type != MODEL_TRANSFORMER)
		ydoc_error(d, ynode_get(t, "recompute"), "training.recompute: op (per-op selective checkpointing) only "
			   "for transformer models");
}

/* parallel.grad_reduce_dtype and parallel.grad_compression {method, rank, ratio}. */
static void read_gradcomp(struct ydoc *d, const struct ynode *p, struct scenario *s)
{
	static const char *const gc_keys[] = { "method", "rank", "ratio", NULL };
	static const char *const method_names[] = { "none", "powersgd", "topk", NULL };
	struct gradcomp_cfg *g = &s->par.gc;
	int rd = -1, method = GC_NONE;
	const struct ynode *gn = NULL;
	ydoc_enum(d, p, "grad_reduce_dtype", 0, dtype_names, &rd);
	s->par.grad_reduce_dtype = rd < 0 ? s->train.grad_dtype : (enum dtype)rd;
	if (rd == DT_TF32)
		ydoc_error(d, ynode_get(p, "grad_reduce_dtype"), "parallel.grad_reduce_dtype: fp32, bf16, fp16 or fp8, "
			   "got tf32 (a compute mode, not a storage type)");
	*g = (struct gradcomp_cfg){ GC_NONE, 1, 0.01 };
	if (ydoc_map(d, p, "grad_compression", 0, &gn) != 1)
		return;
	ydoc_check_keys(d, gn, gc_keys);
	ydoc_enum(d, gn, "method", YD_REQUIRED, method_names, &method);
	g->method = (enum grad_compress)method;
	if (ydoc_int(d, gn, "rank", YD_POSITIVE, &g->rank) == 1 && g->method != GC_POWERSGD)
		ydoc_error(d, ynode_get(gn, "rank"), "parallel.grad_compression.rank: only for method powersgd");
	if (ydoc_double(d, gn, "ratio", YD_POSITIVE, &g->ratio) == 1 && g->method != GC_TOPK)
		ydoc_error(d, ynode_get(gn, "ratio"), "parallel.grad_compression.ratio: only for method topk");
	if (g->method != GC_NONE && s->model.moe.experts > 0)
		ydoc_error(d, ynode_get(gn, "method"), "parallel.grad_compression: not with experts (model.moe)");
}

void variants_read_parallel(struct ydoc *d, const struct ynode *p, struct scenario *s)
{
	s->par.first_stage_layers = s->par.last_stage_layers = 0;
	ydoc_int(d, p, "first_stage_layers", YD_POSITIVE, &s->par.first_stage_layers);
	ydoc_int(d, p, "last_stage_layers", YD_POSITIVE, &s->par.last_stage_layers);
	read_gradcomp(d, p, s);
	s->par.shard_group = 0;
	if (ydoc_int(d, p, "shard_group", YD_POSITIVE, &s->par.shard_group) == 1 && s->par.zero < 1)
		ydoc_error(d, ynode_get(p, "shard_group"), "parallel.shard_group: the group ZeRO shards over; needs zero "
			   ">= 1 (zero is %d)", s->par.zero);
	bool reshard = true;
	if (ydoc_bool(d, p, "reshard_after_forward", 0, &reshard) == 1 && !reshard && s->par.zero != 3)
		ydoc_error(d, ynode_get(p, "reshard_after_forward"), "parallel.reshard_after_forward: only with zero 3 "
			   "(the parameters are sharded only there; zero is %d)", s->par.zero);
	s->par.keep_after_forward = !reshard;
}

int scenario_shard_group(const struct scenario *s)
{
	return s->par.shard_group > 0 ? s->par.shard_group : scenario_grad_ranks(s);  /* dp*cp: same weights */
}

bool scenario_uneven_split(const struct scenario *s)
{
	return s->par.first_stage_layers > 0 || s->par.last_stage_layers > 0;
}

/* The stages the rest of the layers are split over evenly, and that rest. */
static int middle_stages(const struct scenario *s)
{
	return s->par.pp - (s->par.first_stage_layers > 0) - (s->par.last_stage_layers > 0);
}

static int middle_layers(const struct scenario *s)
{
	return s->model.layers - s->par.first_stage_layers - s->par.last_stage_layers;
}

int scenario_chunk_layers(const struct scenario *s, int j)
{
	const struct parallel_cfg *p = &s->par;
	int v = p->schedule == SCHED_INTERLEAVED ? p->virtual_stages : 1;
	if (!scenario_uneven_split(s))
		return s->model.layers / (p->pp * v);
	if (j == 0 && p->first_stage_layers > 0)
		return p->first_stage_layers;
	if (j == p->pp - 1 && p->last_stage_layers > 0)
		return p->last_stage_layers;
	return middle_layers(s) / middle_stages(s);
}

int scenario_chunk_first_layer(const struct scenario *s, int j)
{
	if (!scenario_uneven_split(s))
		return j * scenario_chunk_layers(s, 0);
	int first = 0;
	for (int i = 0; i < j; i++)
		first += scenario_chunk_layers(s, i);
	return first;
}

static int chunk_extreme(const struct scenario *s, int most)
{
	int v = s->par.schedule == SCHED_INTERLEAVED ? s->par.virtual_stages : 1, best = scenario_chunk_layers(s, 0);
	if (!scenario_uneven_split(s))
		return best;
	for (int j = 1; j < s->par.pp * v; j++) {
		int n = scenario_chunk_layers(s, j);
		if (most ? n > best : n < best)
			best = n;
	}
	return best;
}

int scenario_min_chunk_layers(const struct scenario *s)
{
	return chunk_extreme(s, 0);
}

int scenario_max_chunk_layers(const struct scenario *s)
{
	return chunk_extreme(s, 1);
}

int scenario_vocab_matrices(const struct scenario *s)
{
	return s->model.vocab == 0 ? 0 : s->model.tie_embeddings ? 1 : 2;
}

/* The first broken rule of the split, or 0; key names the key at fault. */
static int split_rule(const struct scenario *s, char *why, size_t n, const char **key);

static int rule(const struct scenario *s, char *why, size_t n, const char **key)
{
	const struct parallel_cfg *p = &s->par;
	if (split_rule(s, why, n, key) != 0)
		return GS_EINVAL;
	*key = "offload_layers";
	if (s->train.offload_layers > 0 && s->train.offload_layers >= scenario_min_chunk_layers(s)) {
		snprintf(why, n, "training.offload_layers (%d) must be fewer than the layers of a model chunk (%d): the "
			 "last layer's activations are used at once", s->train.offload_layers, scenario_min_chunk_layers(s));
		return GS_EINVAL;
	}
	*key = "grad_compression";
	if (p->gc.method != GC_NONE && p->zero > 0) {
		snprintf(why, n, "parallel.grad_compression: a DDP communication hook on the all-reduce, not with ZeRO "
			 "(zero is %d)", p->zero);
		return GS_EINVAL;
	}
	*key = "shard_group";
	if (p->shard_group > 0 && (scenario_grad_ranks(s) % p->shard_group != 0 || p->zero < 1)) {
		if (p->cp > 1)
			snprintf(why, n, "parallel.shard_group (%d) must divide dp*cp (%d), with zero >= 1", p->shard_group,
				 scenario_grad_ranks(s));
		else
			snprintf(why, n, "parallel.shard_group (%d) must divide dp (%d), with zero >= 1", p->shard_group,
				 p->dp);
		return GS_EINVAL;
	}
	return 0;
}

/* The pipeline split's rules. */
static int split_rule(const struct scenario *s, char *why, size_t n, const char **key)
{
	const struct parallel_cfg *p = &s->par;
	*key = p->first_stage_layers > 0 ? "first_stage_layers" : "last_stage_layers";
	if (!scenario_uneven_split(s))
		return 0;
	if (p->pp < 2) {
		snprintf(why, n, "parallel.%s: an uneven pipeline split needs pp >= 2 (pp is %d)", *key, p->pp);
		return GS_EINVAL;
	}
	if (p->schedule == SCHED_INTERLEAVED) {
		snprintf(why, n, "parallel.%s: an uneven pipeline split runs the 1f1b or gpipe schedule, not "
			 "interleaved", *key);
		return GS_EINVAL;
	}
	if (s->model.type == MODEL_DENSE) {
		snprintf(why, n, "parallel.%s: a dense layer list has no pipeline", *key);
		return GS_EINVAL;
	}
	int mid = middle_stages(s), rest = middle_layers(s);
	if (mid == 0 ? rest != 0 : (rest < mid || rest % mid != 0)) {
		if (mid == 0)
			snprintf(why, n, "parallel.first_stage_layers + last_stage_layers (%d + %d) must be model.layers "
				 "(%d) with pp 2", p->first_stage_layers, p->last_stage_layers, s->model.layers);
		else
			snprintf(why, n, "parallel.%s: the other %d stage%s must split the remaining %d of model.layers "
				 "(%d) evenly, at least one layer each", *key, mid, mid == 1 ? "" : "s", rest,
				 s->model.layers);
		return GS_EINVAL;
	}
	return 0;
}

void variants_check(struct ydoc *d, const struct ynode *m, const struct ynode *t, const struct ynode *p,
		    const struct scenario *s)
{
	char why[256];
	const char *key;
	if (rule(s, why, sizeof why, &key) != 0)
		ydoc_error(d, key[0] == 'o' ? at(t, key) : p ? at(p, key) : at(m, "layers"), "%s", why);
}

int variants_check_layout(const struct scenario *s, char *why, size_t n)
{
	const char *key;
	return rule(s, why, n, &key);
}
