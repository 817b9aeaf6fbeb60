/* memory: bytes one GPU holds: weights, gradients and optimizer state of its stage's parameters, and the
 * activations its pipeline schedule keeps alive. Activations per layer per micro-batch follow Korthikanti et
 * al. (arXiv 2205.05198) with tensor parallelism and no sequence parallelism, written per stored tensor so
 * GQA, SwiGLU and dtype are exact: replicated on every TP rank are the inputs of both norms, of QKV and of
 * fc1, and two dropout masks (1 byte per element); split over TP are Q, K, V, the attention output, fc1's
 * output and fc2's input; without a fused kernel the s*s scores, softmax output and dropout mask are stored too.
 * With full recompute a layer keeps only its input, and backward rebuilds one layer at a time. */
#ifndef MEMORY_H
#define MEMORY_H

#include "scenario/scenario.h"

/* Activations stored for backward by one layer for one micro-batch on one TP rank. */
double mem_layer_act_bytes(const struct scenario *sc, int tp);
/* All of one layer's activations (what full recompute rebuilds during backward). */
double mem_layer_full_act_bytes(const struct scenario *sc, int tp);
/* Bytes per parameter of weights, of gradients, of optimizer state (master copy + moments). */
/* Activations a dense layer list (model.type dense) keeps for one micro-batch, all layers. */
double mem_dense_act_bytes(const struct scenario *sc);
/* A separate master copy of the weights exists (master_weights differs from the model dtype, no AMP). */
bool mem_has_master(const struct scenario *sc);
double mem_weight_bytes_per_param(const struct scenario *sc);
double mem_grad_bytes_per_param(const struct scenario *sc);
double mem_optimizer_bytes_per_param(const struct scenario *sc);

#endif
