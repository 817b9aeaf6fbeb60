/* fp8: low precision as Transformer Engine runs it (training.fp8; docs/simulation.md "Low precision"): which
 * GEMMs run in 8 bits (or NVFP4), the quantize, amax and scale kernels each recipe adds, the amax reduction of
 * delayed scaling, and the bytes of quantized tensors (FP8 weight copies, saved activations). */
#ifndef FP8_H
#define FP8_H

#include <stdbool.h>
#include "hardware/hwmodel.h"
#include "scenario/scenario.h"

bool fp8_on(const struct scenario *sc);
/* Bytes per element of one quantized copy, scales included: delayed/current 1 (one fp32 scale per tensor,
 * not counted), mxfp8 1 + 1/32 (an E8M0 scale per 32 elements), nvfp4 0.5 + 1/16 (an E4M3 scale per 16). */
double fp8_elem_bytes(const struct scenario *sc);
/* Seconds of a linear layer's m x n x k GEMM (forward, dgrad or wgrad) as the recipe runs it: fp8 (table or
 * analytic model with the fp8 ceiling), NVFP4 at peak_tflops.fp4, model.dtype without training.fp8. */
double fp8_linear_gemm_s(const struct hwmodel *hw, const struct scenario *sc, double m, double n, double k);
/* The same for `count` GEMMs of one grouped launch (MoE experts): efficiency of the stacked count*m rows. */
double fp8_grouped_gemm_s(const struct hwmodel *hw, const struct scenario *sc, double count, double m, double n,
			  double k);
/* Bytes a quantize kernel moves for N elements of the model dtype: read them, write a row-wise and a column-wise
 * (transposed) copy, 2*N*fp8_elem_bytes (the GEMMs of the backward read the other orientation). */
double fp8_quantize_bytes(const struct scenario *sc, double elems);
/* Current scaling computes each tensor's amax with a pass of its own before quantizing (read N elements). */
bool fp8_separate_amax(const struct scenario *sc);
/* Delayed scaling: per micro-batch, the amaxes of a pass are all-reduced over the TP x DP ranks of the stage
 * and the scales updated from the amax history. Tensors per layer: forward 2 per linear (input, weight),
 * backward 1 (output gradient). */
bool fp8_amax_reduction(const struct scenario *sc);
int fp8_tensors_per_layer(const struct scenario *sc, int bwd);
/* Bytes the scale update reads and writes for `tensors` tensors: the history rolled (read, write) and the scale
 * and its inverse written: tensors * (2*amax_history*4 + 8). */
double fp8_scale_update_bytes(const struct scenario *sc, double tensors);
/* Extra bytes per linear-layer parameter held beside the model-dtype weight: the row-wise and column-wise FP8
 * copies (2*fp8_elem_bytes); with param_gather (FP8 primary weights) the weight itself is the FP8 pair, so the
 * model-dtype copy is gone: 2*q - e. */
double fp8_weight_extra_bytes_per_param(const struct scenario *sc);
/* Bytes per parameter a parameter all-gather moves: fp8_elem_bytes with param_gather, else the model dtype's. */
double fp8_param_gather_bytes_per_param(const struct scenario *sc);
/* The attention core's time factor: 1, or with training.fp8.attention the bf16 rate scaled by the fp8 peak and
 * ceiling over the bf16 ones (t_fp8 = t_bf16 * peak_bf16*ceil_bf16 / (peak_fp8*ceil_fp8)). */
double fp8_attention_factor(const struct hwmodel *hw, const struct scenario *sc);

#endif
