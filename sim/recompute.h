/* recompute: which layers and ops a step's backward reruns, and what that leaves in memory, for the recompute
 * variants of training.recompute (full per layer, full of only some layers by Megatron's uniform or block
 * method, selective, torchtitan's per-op selective checkpointing). docs/simulation.md, "Recompute variants". */
#ifndef RECOMPUTE_H
#define RECOMPUTE_H

#include <stdbool.h>
#include "scenario/scenario.h"
#include "sim/ops.h"

/* Whether layer l (0-based within a model chunk of Lv layers) reruns its whole forward before its backward. */
bool recompute_layer_full(const struct scenario *sc, int l, int Lv);
/* Layers of a chunk of Lv that rerun their forward (recompute_layer_full). */
int recompute_full_layers(const struct scenario *sc, int Lv);
/* Bytes a micro-batch keeps for a chunk of Lv layers on one TP rank of tp, from its forward to its backward. */
double recompute_chunk_act_bytes(const struct scenario *sc, int Lv, int tp);
/* Bytes alive on top of the kept ones while a layer's (or a uniform group's) backward reruns its forward. */
double recompute_transient_bytes(const struct scenario *sc, int Lv, int tp);
/* training.recompute op: what one layer keeps (the saved outputs and the layer's input). */
double recompute_op_saved_bytes(const struct scenario *sc, int tp);
/* training.recompute op: the forward ops torchtitan's per-op policy reruns before a layer's backward, taken from
 * the layer's forward list fwd (n ops), into out (at most OPS_MAX); returns their count. */
int recompute_op_list(const struct opctx *c, const struct opcost *fwd, int n, struct opcost *out);

#endif
