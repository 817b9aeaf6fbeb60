/* memory: bytes one GPU holds: weights, gradients and optimizer state of its stage's parameters, and the
 * activations its pipeline schedule keeps alive. Activations per layer per micro-batch follow Korthikanti et
 * al. (arXiv 2205.05198) with tensor parallelism and no sequence parallelism, written per stored tensor so
 * GQA, SwiGLU and dtype are exact: replicated on every TP rank are the inputs of both norms, of QKV and of
 * fc1, and with model.dropout two dropout masks (1 byte per element); split over TP are Q, K, V, the attention
 * output, fc1's output and fc2's input; without a fused kernel the s*s scores, softmax output and dropout mask
 * are stored too. With full recompute a layer keeps only its input, and backward rebuilds one layer at a time. */
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
/* What a pipeline stage (one TP rank) of a transformer or an MLP holds at its peak beyond its micro-batches' saved
 * activations, in the model dtype, T the rank's tokens per micro-batch (the T*h terms T/tp with SP):
 *   held     the output of each of the `held` micro-batches in flight, kept until its backward: on the last
 *            stage without a vocabulary the step's output (with one, the head keeps its input: none); on
 *            the others their sent outputs where parallel.pp_keep_outputs says so (a plain PyTorch pipeline;
 *            Megatron-LM frees them after the send): held * T*h
 *   grad     the gradient arriving at the stage's output for the micro-batch in backward (received, the loss's,
 *            or staged): T*h; on a stage after the first also its input's gradient, sent back: T*h
 *   bwd      the widest gradient of a layer's backward, the MLP's hidden T*f/tp, beside the saved input it
 *            replaces; with training.grad_accumulation add also the weight gradient autograd computes before
 *            adding it into .grad, of the layer's largest weight (fc1's: f_in*h/tp)
 *   staged   training.inputs staged: every micro-batch's input and, without a vocabulary, output gradient of
 *            the step on every rank (T*h each), less those counted already (the first stage's in-flight inputs,
 *            saved by its first norm; the last stage's arriving gradient); with a vocabulary the token ids and
 *            targets, 8 bytes a token each
 * (an MLP: its layers' hidden width f, no vocabulary); 0 for a dense layer list. Measured: docs/validation.md
 * ("Peak memory, term by term"). */
double mem_stage_extra_bytes(const struct scenario *sc, int tp, int stage, int nstages, int held);

#endif
