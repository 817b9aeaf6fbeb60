/* layout_internal: the batch rules scenario.c (which places the message at the key at fault) and layout.c (which
 * hands it back) share. */
#ifndef SCENARIO_LAYOUT_INTERNAL_H
#define SCENARIO_LAYOUT_INTERNAL_H

#include <stddef.h>
#include "scenario/scenario.h"

/* The checks that depend on dp and the batch: the batch must split into whole micro-batches over the DP
 * replicas, and the interleaved schedule needs a multiple of pp micro-batches. FAULT_NONE, or the fault with
 * its message in why. */
enum batch_fault { FAULT_NONE, FAULT_BATCH, FAULT_SCHEDULE };
enum batch_fault scenario_batch_fault(const struct scenario *s, char *why, size_t n);
/* The ranks of one DP replica: tp*pp, times cp with context parallelism (its ranks share a replica's batch), and
 * "tp*pp = 2*4" or "tp*pp*cp = 2*4*2" for messages. */
long long scenario_model_ranks(const struct scenario *s);
void scenario_model_ranks_text(const struct scenario *s, char *buf, size_t n);
/* scenario_nearest_gpus: "; nearest valid counts: 96, 128" (or one of them) for a GPU count given on the command
 * line: the largest valid count below it and the smallest above it, where valid means dp = gpus/(tp*pp*cp) whole and
 * the batch checks pass with that dp. dp runs up to global_batch/micro_batch, beyond which no batch splits. */
void scenario_nearest_gpus(const struct scenario *s, int gpus, char *out, size_t n);

#endif
