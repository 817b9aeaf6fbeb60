/* ctxpar: parallel.cp, parallel.cp_comm and parallel.tp_comm_overlap (see ctxpar.h; semantics: sim/cp.h,
 * sim/overlap.h, docs/scenario.md). */
#include "scenario/ctxpar.h"

#include <stdio.h>
#include "util/gserr.h"

static const char *const cp_comm_names[] = { "p2p", "all_gather", NULL };

void ctxpar_read(struct ydoc *d, const struct ynode *p, struct scenario *s)
{
	struct parallel_cfg *pc = &s->par;
	pc->cp = 1;
	ydoc_int(d, p, "cp", YD_POSITIVE, &pc->cp);
	int comm = CP_P2P;
	if (ydoc_enum(d, p, "cp_comm", 0, cp_comm_names, &comm) == 1 && pc->cp < 2)
		ydoc_error(d, ynode_get(p, "cp_comm"), "parallel.cp_comm: only with context parallelism (cp > 1, cp "
			   "is %d)", pc->cp);
	pc->cp_comm = (enum cp_comm)comm;
	pc->tp_comm_overlap = false;
	ydoc_bool(d, p, "tp_comm_overlap", 0, &pc->tp_comm_overlap);
}

/* The first broken rule, or 0; key names the parallel key at fault. */
static int rule(const struct scenario *s, char *why, size_t n, const char **key)
{
	const struct model_cfg *m = &s->model;
	const struct parallel_cfg *pc = &s->par;
	*key = "tp_comm_overlap";
	if (pc->tp_comm_overlap && !(pc->sp && pc->tp > 1)) {
		snprintf(why, n, "parallel.tp_comm_overlap: Transformer Engine's userbuffers hide the all-gather and "
			 "reduce-scatter of sequence parallelism behind the GEMMs: it needs sp: true (and tp > 1)");
		return GS_EINVAL;
	}
	if (pc->tp_comm_overlap && s->train.recompute == RECOMPUTE_OP) {
		snprintf(why, n, "parallel.tp_comm_overlap: torchtitan's per-op recompute (training.recompute: op) does not "
			 "run Transformer Engine's userbuffers");
		return GS_EINVAL;
	}
	*key = "cp";
	if (pc->cp < 2)
		return 0;
	if (m->type != MODEL_TRANSFORMER) {
		snprintf(why, n, "parallel.cp: context parallelism splits a transformer's sequence; model.type is not "
			 "transformer");
		return GS_EINVAL;
	}
	if (!m->flash_attention) {
		snprintf(why, n, "parallel.cp: context parallelism runs a fused attention kernel per K/V chunk "
			 "(Transformer Engine): it needs model.flash_attention: true");
		return GS_EINVAL;
	}
	long long split = m->causal ? 2LL * pc->cp : pc->cp;
	if (m->seq % split != 0) {
		snprintf(why, n, "parallel.cp: model.seq (%d) must be a multiple of %s = %lld (each rank holds %s)",
			 m->seq, m->causal ? "2*cp" : "cp", split,
			 m->causal ? "two chunks of seq/(2*cp) tokens, for a balanced causal mask" : "seq/cp tokens");
		return GS_EINVAL;
	}
	return 0;
}

void ctxpar_check(struct ydoc *d, const struct ynode *p, const struct scenario *s)
{
	char why[256];
	const char *key = "cp";
	if (rule(s, why, sizeof why, &key) == 0)
		return;
	const struct ynode *at = p ? ynode_get(p, key) : NULL;
	ydoc_error(d, at ? at : p ? p : ydoc_root(d), "%s", why);
}

int ctxpar_check_layout(const struct scenario *s, char *why, size_t n)
{
	const char *key;
	return rule(s, why, n, &key);
}
