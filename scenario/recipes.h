/* recipes: the scenario keys of issue 13's MoE and low-precision recipes (model.moe, parallel.ep/etp,
 * training.fp8), read and checked apart from scenario.c's core keys. Internal to scenario/. */
#ifndef SCENARIO_RECIPES_H
#define SCENARIO_RECIPES_H

#include "scenario/scenario.h"
#include "util/ydoc.h"

/* model.moe (m: the model mapping); leaves moe.experts 0 when absent. */
void recipes_read_moe(struct ydoc *d, const struct ynode *m, struct scenario *s);
/* training.fp8 (t: the training mapping); recipe FP8_NONE when absent. */
void recipes_read_fp8(struct ydoc *d, const struct ynode *t, struct scenario *s);
/* parallel.ep and parallel.etp (p: the parallel mapping, may be NULL). */
void recipes_read_ep(struct ydoc *d, const struct ynode *p, struct scenario *s);
/* The rules that need the whole layout (after dp is known), each reported at the key at fault. */
void recipes_check(struct ydoc *d, const struct ynode *m, const struct ynode *t, const struct ynode *p,
		   const struct scenario *s);
/* The same rules for scenario_check_layout: 0, or GS_EINVAL with the first broken one in why. */
int recipes_check_layout(const struct scenario *s, char *why, size_t n);

#endif
