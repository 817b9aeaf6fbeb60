/* recipes: model.moe, parallel.ep/etp and training.fp8 (see recipes.h; keys in docs/scenario.md). */
#include "scenario/recipes.h"

#include <stdio.h>
#include "util/gserr.h"

static const char *const moe_keys[] = { "experts", "top_k", "ffn_hidden", "shared_experts", "shared_ffn_hidden",
					"capacity_factor", "imbalance", NULL };
static const char *const fp8_keys[] = { "recipe", "attention", "param_gather", "amax_history", NULL };
static const char *const recipe_names[] = { "none", "delayed", "current", "mxfp8", "nvfp4", NULL };

static const struct ynode *at(const struct ynode *map, const char *key)
{
	const struct ynode *v = map ? ynode_get(map, key) : NULL;
	return v ? v : map;
}

void recipes_read_moe(struct ydoc *d, const struct ynode *m, struct scenario *s)
{
	struct moe_cfg *e = &s->model.moe;
	const struct ynode *mo = NULL;
	*e = (struct moe_cfg){ 0, 2, 0, 0, 0, 0, 1 };
	if (ydoc_map(d, m, "moe", 0, &mo) != 1)
		return;
	ydoc_check_keys(d, mo, moe_keys);
	ydoc_int(d, mo, "experts", YD_REQUIRED | YD_POSITIVE, &e->experts);
	ydoc_int(d, mo, "top_k", YD_POSITIVE, &e->top_k);
	ydoc_int(d, mo, "ffn_hidden", YD_POSITIVE, &e->ffn_hidden);
	ydoc_int(d, mo, "shared_experts", YD_NONNEG, &e->shared_experts);
	ydoc_int(d, mo, "shared_ffn_hidden", YD_POSITIVE, &e->shared_ffn_hidden);
	ydoc_double(d, mo, "capacity_factor", YD_NONNEG, &e->capacity_factor);
	if (ydoc_double(d, mo, "imbalance", YD_POSITIVE, &e->imbalance) == 1 && e->imbalance < 1)
		ydoc_error(d, ynode_get(mo, "imbalance"), "model.moe.imbalance: the busiest rank's tokens over the "
			   "mean, at least 1, got %g", e->imbalance);
	if (e->top_k > e->experts && e->experts > 0)
		ydoc_error(d, at(mo, "top_k"), "model.moe.top_k (%d) is more than model.moe.experts (%d)", e->top_k,
			   e->experts);
	if (e->capacity_factor > 0 && ynode_get(mo, "imbalance"))
		ydoc_error(d, ynode_get(mo, "imbalance"), "model.moe.imbalance: only for dropless routing "
			   "(capacity_factor 0); with a capacity every expert computes its capacity");
}

void recipes_read_fp8(struct ydoc *d, const struct ynode *t, struct scenario *s)
{
	struct fp8_cfg *f = &s->train.fp8;
	const struct ynode *fn = NULL;
	*f = (struct fp8_cfg){ FP8_NONE, false, false, 1024 };
	if (ydoc_map(d, t, "fp8", 0, &fn) != 1)
		return;
	ydoc_check_keys(d, fn, fp8_keys);
	int r = FP8_NONE;
	ydoc_enum(d, fn, "recipe", YD_REQUIRED, recipe_names, &r);
	f->recipe = (enum fp8_recipe)r;
	ydoc_bool(d, fn, "attention", 0, &f->attention);
	ydoc_bool(d, fn, "param_gather", 0, &f->param_gather);
	if (ydoc_int(d, fn, "amax_history", YD_POSITIVE, &f->amax_history) == 1 && f->recipe != FP8_DELAYED)
		ydoc_error(d, ynode_get(fn, "amax_history"), "training.fp8.amax_history: only for recipe delayed");
	if (f->recipe != FP8_NONE && s->model.dtype != DT_BF16 && s->model.dtype != DT_FP16)
		ydoc_error(d, at(fn, "recipe"), "training.fp8: the model's dtype must be bf16 or fp16 (FP8 GEMMs read "
			   "casts of 16-bit tensors), got %s", dtype_name(s->model.dtype));
}

void recipes_read_ep(struct ydoc *d, const struct ynode *p, struct scenario *s)
{
	s->par.ep = 1;
	s->par.etp = 0;
	ydoc_int(d, p, "ep", YD_POSITIVE, &s->par.ep);
	ydoc_int(d, p, "etp", YD_POSITIVE, &s->par.etp);
}

/* The first broken rule, or 0. key names the key at fault ("model.moe.experts", "parallel.ep", ...). */
static int rule(const struct scenario *s, char *why, size_t n, const char **key)
{
	const struct moe_cfg *e = &s->model.moe;
	const struct parallel_cfg *pc = &s->par;
	int etp = pc->etp ? pc->etp : pc->tp;
	if (e->experts == 0) {
		*key = pc->ep > 1 ? "ep" : "etp";
		if (pc->ep > 1 || pc->etp > 0) {
			snprintf(why, n, "parallel.%s: only for a model with experts (model.moe)", *key);
			return GS_EINVAL;
		}
		return 0;
	}
	if (s->model.type != MODEL_TRANSFORMER) {
		*key = "moe";
		snprintf(why, n, "model.moe: only for transformer models");
		return GS_EINVAL;
	}
	*key = "ep";
	if (e->experts % pc->ep != 0) {
		snprintf(why, n, "parallel.ep (%d) does not divide model.moe.experts (%d)", pc->ep, e->experts);
		return GS_EINVAL;
	}
	*key = "etp";
	if (pc->tp % etp != 0) {
		snprintf(why, n, "parallel.etp (%d) does not divide parallel.tp (%d)", etp, pc->tp);
		return GS_EINVAL;
	}
	if (e->ffn_hidden % etp != 0 || (e->shared_experts > 0 && e->shared_ffn_hidden % pc->tp != 0)) {
		snprintf(why, n, "parallel.etp (%d) must divide model.moe.ffn_hidden (%d) and parallel.tp (%d) "
			 "moe.shared_ffn_hidden (%d)", etp, e->ffn_hidden, pc->tp, e->shared_ffn_hidden);
		return GS_EINVAL;
	}
	*key = "ep";
	if (((long long)pc->tp * scenario_grad_ranks(s)) % ((long long)pc->ep * etp) != 0) {
		/* with context parallelism the experts spread over the tp*cp*dp ranks (Megatron-Core's expert grid) */
		if (pc->cp > 1)
			snprintf(why, n, "parallel.ep*etp (%d*%d) does not divide the tp*cp*dp = %d*%d*%d ranks of a stage",
				 pc->ep, etp, pc->tp, pc->cp, pc->dp);
		else
			snprintf(why, n, "parallel.ep*etp (%d*%d) does not divide the tp*dp = %d*%d ranks of a stage",
				 pc->ep, etp, pc->tp, pc->dp);
		return GS_EINVAL;
	}
	return 0;
}

void recipes_check(struct ydoc *d, const struct ynode *m, const struct ynode *t, const struct ynode *p,
		   const struct scenario *s)
{
	(void)t;
	char why[256];
	const char *key = "ep";
	if (rule(s, why, sizeof why, &key) == 0)
		return;
	const struct ynode *mo = m ? ynode_get(m, "moe") : NULL;
	if (key[0] == 'm')
		ydoc_error(d, mo ? mo : m, "%s", why);
	else
		ydoc_error(d, p ? at(p, key) : at(mo, "experts"), "%s", why);
}

int recipes_check_layout(const struct scenario *s, char *why, size_t n)
{
	const char *key;
	return rule(s, why, n, &key);
}
