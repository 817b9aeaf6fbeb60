/* variants: the scenario keys of issue 13's pipeline, recompute, gradient-compression and sharding variants
 * (parallel.first_stage_layers / last_stage_layers, model.tie_embeddings, ...), read and checked apart from
 * scenario.c's core keys. Internal to scenario/. */
#ifndef SCENARIO_VARIANTS_H
#define SCENARIO_VARIANTS_H

#include "scenario/scenario.h"
#include "util/ydoc.h"

/* model.tie_embeddings (m: the model mapping). */
void variants_read_model(struct ydoc *d, const struct ynode *m, struct scenario *s);
/* training.recompute_layers and recompute_method (t: the training mapping). */
void variants_read_training(struct ydoc *d, const struct ynode *t, struct scenario *s);
/* parallel.first_stage_layers and last_stage_layers (p: the parallel mapping, may be NULL). */
void variants_read_parallel(struct ydoc *d, const struct ynode *p, struct scenario *s);
/* The rules that need the whole layout, each reported at the key at fault (p may be NULL). */
void variants_check(struct ydoc *d, const struct ynode *m, const struct ynode *t, const struct ynode *p,
		    const struct scenario *s);
/* The same rules for scenario_check_layout: 0, or GS_EINVAL with the first broken one in why. */
int variants_check_layout(const struct scenario *s, char *why, size_t n);

#endif
