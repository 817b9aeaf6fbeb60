/* fit: what one change to a layout that does not fit in GPU memory would make it fit. Each candidate is a
 * single change a user makes in the scenario (more recompute, a higher ZeRO stage, a smaller micro-batch, more
 * tensor, pipeline or context parallelism at the same GPU count), checked with scenario_check_layout and simulated with
 * predict_run, so its memory and step time are the simulator's, not a rule of thumb. Candidates are simulated
 * in the order of a lower bound of their step (their busiest GPU's host work), and those whose bound shows they
 * cannot be among the fastest shown are not simulated. */
#ifndef FIT_H
#define FIT_H

#include "hardware/hwmodel.h"
#include "scenario/scenario.h"

struct fit_hint {
	char change[96];      /* the scenario change, as the user writes it: "training.recompute: full" */
	double mem_total;     /* bytes per GPU after the change */
	double step_time_s;   /* the step with the change */
};

/* fit_suggest: the changes that make sc fit on hw, fastest step first, at most max of them. The count (0 when no
 * single change fits), or a negative GS_* code when a simulation fails. */
int fit_suggest(const struct scenario *sc, const struct hwmodel *hw, struct fit_hint *out, int max);

#endif
