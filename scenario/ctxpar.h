/* ctxpar: the scenario keys of issue 13's context parallelism and TP-communication overlap (parallel.cp,
 * parallel.cp_comm, parallel.tp_comm_overlap), read and checked apart from scenario.c's core keys. Internal to
 * scenario/. */
#ifndef SCENARIO_CTXPAR_H
#define SCENARIO_CTXPAR_H

#include <stddef.h>
#include "scenario/scenario.h"
#include "util/ydoc.h"

/* parallel.cp, cp_comm and tp_comm_overlap (p: the parallel mapping, may be NULL): defaults cp 1, p2p, false. */
void ctxpar_read(struct ydoc *d, const struct ynode *p, struct scenario *s);
/* The rules that need the model and the whole layout, each reported at the key at fault (p may be NULL). */
void ctxpar_check(struct ydoc *d, const struct ynode *p, const struct scenario *s);
/* The same rules for scenario_check_layout: 0, or GS_EINVAL with the first broken one in why (n bytes). */
int ctxpar_check_layout(const struct scenario *s, char *why, size_t n);

#endif
