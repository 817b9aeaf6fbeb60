/* layout: the rules of a parallel layout that hold apart from any file: the batch split over the DP replicas
 * (scenario_batch_fault), the nearest GPU counts that split it (scenario_nearest_gpus), a whole layout's check
 * (scenario_check_layout) and a scenario moved to another GPU count or batch (scenario_relayout), which the
 * sweeps and the planner use. scenario.c places the same messages at the file's keys. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>

#include "scenario/ctxpar.h"
#include "scenario/layout_internal.h"
#include "scenario/recipes.h"
#include "scenario/scenario.h"
#include "scenario/variants.h"
#include "util/gserr.h"

/* The reason a check failed, into why when the caller wants one (why NULL: the verdict alone, nothing formatted;
 * the planner checks millions of combinations this way). */
static void tell(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void tell(char *why, size_t n, const char *fmt, ...)
{
	if (!why || !n)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
}

enum batch_fault scenario_batch_fault(const struct scenario *s, char *why, size_t n)
{
	const struct parallel_cfg *pc = &s->par;
	long long per_step = (long long)pc->dp * s->train.micro_batch;
	if (s->train.global_batch % per_step != 0) {
		tell(why, n, "training.global_batch (%d) is not a multiple of dp*micro_batch = %d*%d = %lld",
			 s->train.global_batch, pc->dp, s->train.micro_batch, per_step);
		return FAULT_BATCH;
	}
	long long mb = s->train.global_batch / per_step;
	if (pc->schedule == SCHED_INTERLEAVED && mb % pc->pp != 0) {
		tell(why, n, "parallel.schedule: interleaved needs the number of micro-batches (%lld = "
			 "global_batch/(dp*micro_batch)) to be a multiple of pp (%d)", mb, pc->pp);
		return FAULT_SCHEDULE;
	}
	return FAULT_NONE;
}

long long scenario_model_ranks(const struct scenario *s)
{
	return (long long)s->par.tp * s->par.pp * (s->par.cp > 1 ? s->par.cp : 1);
}

void scenario_model_ranks_text(const struct scenario *s, char *buf, size_t n)
{
	if (s->par.cp > 1)
		snprintf(buf, n, "tp*pp*cp = %d*%d*%d", s->par.tp, s->par.pp, s->par.cp);
	else
		snprintf(buf, n, "tp*pp = %d*%d", s->par.tp, s->par.pp);
}

void scenario_nearest_gpus(const struct scenario *s, int gpus, char *out, size_t n)
{
	long long mp = scenario_model_ranks(s), lo = 0, hi = 0;
	int max_dp = s->train.micro_batch > 0 ? s->train.global_batch / s->train.micro_batch : 0;
	struct scenario t = *s;
	char why[256];
	for (int dp = 1; dp <= max_dp && dp * mp <= INT_MAX; dp++) {
		t.par.dp = dp;
		if (scenario_batch_fault(&t, why, sizeof why) != FAULT_NONE)
			continue;
		if (dp * mp < gpus)
			lo = dp * mp;
		else if (dp * mp > gpus) {
			hi = dp * mp;
			break;
		}
	}
	if (lo && hi)
		snprintf(out, n, "; nearest valid counts: %lld, %lld", lo, hi);
	else if (lo || hi)
		snprintf(out, n, "; nearest valid count: %lld", lo ? lo : hi);
	else
		snprintf(out, n, "; no GPU count splits training.global_batch (%d) with %s = %lld",
			 s->train.global_batch, s->par.cp > 1 ? "tp*pp*cp" : "tp*pp", mp);
}

int scenario_check_layout(const struct scenario *s, char *why, size_t n)
{
	const struct model_cfg *mc = &s->model;
	const struct parallel_cfg *pc = &s->par;
	struct { int by; const char *of; int value; } divs[] = {
		{ pc->tp, "model.heads", mc->type == MODEL_TRANSFORMER ? mc->heads : 0 },
		{ pc->tp, "model.kv_heads", mc->type == MODEL_TRANSFORMER ? mc->kv_heads : 0 },
		{ pc->tp, "model.hidden", mc->hidden },
		{ pc->tp, "model.ffn_hidden", mc->ffn_hidden },
		{ pc->pp * pc->virtual_stages, "model.layers", scenario_uneven_split(s) ? 0 : mc->layers },
	};
	if (pc->tp < 1 || pc->pp < 1 || pc->dp < 1 || pc->virtual_stages < 1 || s->train.micro_batch < 1) {
		tell(why, n, "tp, pp, dp, virtual_stages and micro_batch must be at least 1");
		return GS_EINVAL;
	}
	if (mc->type == MODEL_DENSE && (pc->tp > 1 || pc->pp > 1)) {
		tell(why, n, "a dense layer list runs data parallel only (tp = pp = 1)");
		return GS_EINVAL;
	}
	for (size_t i = 0; i < sizeof divs / sizeof divs[0]; i++)
		if (divs[i].value % divs[i].by != 0) {
			tell(why, n, "%s (%d) is not divisible by %s (%d)", divs[i].of, divs[i].value,
				 i < 4 ? "tp" : "pp*virtual_stages", divs[i].by);
			return GS_EINVAL;
		}
	if (pc->schedule == SCHED_INTERLEAVED && pc->pp < 2) {
		tell(why, n, "the interleaved schedule needs pp >= 2 (pp is %d)", pc->pp);
		return GS_EINVAL;
	}
	if (pc->cp < 1 || (long long)pc->dp * scenario_model_ranks(s) != pc->gpus) {
		if (pc->cp > 1)
			tell(why, n, "gpus (%d) is not dp*tp*pp*cp = %d*%d*%d*%d", pc->gpus, pc->dp, pc->tp, pc->pp,
				 pc->cp);
		else
			tell(why, n, "gpus (%d) is not dp*tp*pp = %d*%d*%d", pc->gpus, pc->dp, pc->tp, pc->pp);
		return GS_EINVAL;
	}
	if (mc->doc_tokens > 0 && pc->cp > 1) {
		tell(why, n, "packed documents (model.doc_tokens) with context parallelism (cp %d) are not modelled",
			 pc->cp);
		return GS_EINVAL;
	}
	if (recipes_check_layout(s, why, n) != 0 || variants_check_layout(s, why, n) != 0 ||
	    ctxpar_check_layout(s, why, n) != 0)
		return GS_EINVAL;
	return scenario_batch_fault(s, why, n) == FAULT_NONE ? 0 : GS_EINVAL;
}

int scenario_relayout(const struct scenario *base, int gpus, int global_batch, struct scenario *out, char *why,
		      size_t n)
{
	long long mp = scenario_model_ranks(base);
	*out = *base;
	if (gpus <= 0 || gpus % mp != 0) {
		char mpt[64];
		scenario_model_ranks_text(base, mpt, sizeof mpt);
		snprintf(why, n, "%d GPUs is not a multiple of %s = %lld", gpus, mpt, mp);
		return GS_EINVAL;
	}
	if (global_batch <= 0) {
		snprintf(why, n, "global batch %d is not positive", global_batch);
		return GS_EINVAL;
	}
	out->par.gpus = gpus;
	out->par.dp = (int)(gpus / mp);
	out->train.global_batch = global_batch;
	/* the rules that depend on dp: experts over tp*dp, the ZeRO shard group dividing dp */
	if (recipes_check_layout(out, why, n) != 0 || variants_check_layout(out, why, n) != 0)
		return GS_EINVAL;
	return scenario_batch_fault(out, why, n) == FAULT_NONE ? 0 : GS_EINVAL;
}
