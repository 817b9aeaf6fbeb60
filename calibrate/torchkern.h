/* torchkern: what an eager PyTorch step launches besides GEMMs and attention, measured through PyTorch
 * (`gpusim calibrate --kernels torch`): the probe calibrate/torch_kernels.py (compiled into gpusim as text, run with
 * python3, calibrate/torchprobe.h) times its memory-bound kernels by family at sizes from 64 Ki to 256 Mi elements,
 * the GPU's idle time between the kernels of a full stream, and the host's cost of an eager op, of a collective
 * call and of a torch.compile'd step. The rows become gpu.kernels, host.eager and host.compiled; the CSV is kept as
 * raw/kernels_torch.csv, which --refit reads back. */
#ifndef TORCHKERN_H
#define TORCHKERN_H

#include <stdbool.h>
#include <stdio.h>
#include "calibrate/calib.h"
#include "hardware/hwmodel.h"

/* The probe's text (generated from calibrate/torch_kernels.py at build time). */
extern const char torchkern_script[];

/* torchkern_run: run the probe (--quick: sizes up to 64 Mi elements); 0 or GS_EENV after a line saying why. */
int torchkern_run(struct calib *c, bool quick);
/* torchkern_parse: the probe's CSV (header `section,name,size,bytes,kernels,us`; '#' lines are comments, the first
 * one the source) into c->tkern; a row with the section, name and size of an earlier one replaces it (rows appended
 * to a raw CSV override the probe's); 0 or GS_EINVAL at the bad line. */
int torchkern_parse(FILE *f, const char *name, struct calib *c);
/* torchkern_write: the rows back as the probe's CSV (raw/kernels_torch.csv). */
void torchkern_write(FILE *f, const struct calib *c);
/* torchkern_fill: gpu.kernels from the rows. A family that one op measures has points: its times at every size of
 * at least 2 x the L2 cache (l2_bytes; 0: 50 MiB), so that they are HBM's and not the cache's (the probe repeats
 * each op on the same tensors); a family of several ops (elementwise) has none; gbps (the growth beyond the last point)
 * is the inverse slope of a least-squares line of time against bytes over those rows; latency_us is the median
 * time of its rows at its smallest size, the kernel's fixed cost; gap_us the `mixed` gap row's (GEMMs and elementwise kernels
 * alternating, as a step issues them, on a stream the host kept full), else the smallest gap row. False (k untouched)
 * when no family has two sizes above that bound. */
bool torchkern_fill(const struct calib *c, double l2_bytes, struct hw_kernels *k);
/* torchkern_coll_us: the enqueue of one collective beyond an eager op's dispatch, in us: the median host time of
 * the probe's all_reduce calls less that of its eager op (both measured in one process, one after the other),
 * at least 0; false when the probe has no host rows. */
bool torchkern_coll_us(const struct calib *c, double *coll_us, double *op_us, double *call_us);
/* torchkern_host: host.<mode>'s op classes (hardware/hwmodel.h, struct hw_host_cost) from the probe's host rows
 * (host_class_rows in calibrate/torch_kernels.py): each forward class is its isolated per-op time times mix_fwd,
 * each backward class times mix_bwd (a standard pre-LN block's measured host time over the sum of its kernel-
 * launching ops' isolated times: views, Python and interleaving, which isolated chains lack); op_us the elementwise
 * op, launch_us 0 (each class holds its launch), bwd_gemm_us half of a linear's backward less its AccumulateGrad,
 * bwd_op_us the mean of the elementwise and norm backward, backward_us the backward() call, opt_us the fused AdamW
 * call. Where the probe's eager stacks were timed as whole steps (torchkern_step_pieces), the forward classes are
 * also times the stacks' forward inside a step over alone, the backward classes times the backward's, and opt_us
 * is the optimizer's call inside a step (mix_fwd, mix_bwd stay the block's ratios). step_us, coll_us and
 * bucket_us are left as they are. False (h untouched) without those rows (an older CSV). */
bool torchkern_host(const struct calib *c, struct hw_host_cost *h, double *mix_fwd, double *mix_bwd);
/* torchkern_compiled: host.compiled's graph keys from the probe's compiled rows (compiled_rows in
 * calibrate/torch_kernels.py: stacks of 1, 2, 4 layers of family `block` and `mlp`, each compiled with torch.compile).
 * Per family, least-squares lines over the stacks' layers L:
 *   forward   the call's host us (`compiled_FAM_fwd`) = call + slope L; its kernels = k0 + kernels-a-layer L:
 *             graph_us (block) / graph2d_us (mlp) the call, layer_kernels / layer2d_kernels the kernels a layer,
 *             kernel_us / kernel2d_us = slope / kernels a layer
 *   backward  the backward's us less accum_us per parameter tensor (`compiled_FAM_params`: their AccumulateGrad run
 *             eagerly after the graph), and its kernels less those tensors' add kernels (`compiled_FAM_bwd`):
 *             backward_us / backward2d_us, bwd_layer_kernels / bwd_layer2d_kernels, bwd_kernel_us / bwd_kernel2d_us
 * so that gpusim, which spreads a layer's kernels over its own op list (sim/ops_host.c, ops_price_layer_host),
 * gives the probe's stacks back. A family not measured leaves its keys 0 (graph_us and backward_us then take the
 * mlp's). accum_us: host.eager's, the cost gpusim charges per parameter tensor (0: not measured, then the fit holds
 * it). With the compiled DDP rows (`compiled_ddp_fwd`, `_bwd` at two subgraph counts: compiled_ddp_rows)
 * subgraph_us and bwd_subgraph_us are the slopes between them (a subgraph's own forward and backward call), else
 * left 0. note (when not NULL): the rows and numbers for host.source, with those slopes, or without them the median
 * of each stack's step less its forward, backward and optimizer (`compiled_FAM_step`, `_opt`: zero_grad and the
 * loop's Python, a check, not modelled). False (h untouched) without two stacks of different depths. */
bool torchkern_compiled(const struct calib *c, double accum_us, struct hw_host_cost *h, char *note, size_t size);
/* torchkern_compiled_host: host.compiled from the probe's compiled rows (torchkern_compiled), appending what it did
 * to src (true when it did): the graph keys, and from host.eager what validate/runner/torch_step.py does eagerly
 * around its compiled module: the parameters' AccumulateGrad (accum_us), the optimizer (opt_us: its FlatAdam's
 * fused Adam), the ops outside the graphs (op_us, launch_us) and the step's loop and zero_grad (step_us: the graphs'
 * calls are charged per micro-batch, graph_us and backward_us). Where the compiled stacks were timed as whole steps
 * (torchkern_step_pieces), the forward graph keys are times their forward inside a step over alone, the backward
 * keys times the backward's. coll_us and bucket_us stay. */
bool torchkern_compiled_host(const struct calib *c, struct hw_host *host, char *src, size_t size);
/* torchkern_step_pieces: the probe's stacks of `mode` ("eager": eager_step_rows, "compiled": compiled_rows) timed
 * as whole steps against their pieces repeated alone: fwd, bwd the forward's and the backward's host time inside a
 * step over alone, summed over the stacks (to 0.001), opt_us the optimizer's call inside a step (the median over
 * the stacks: the runner's FlatAdam after a backward), nstacks (unless NULL) the stacks with every row. False with
 * fewer than two such stacks (a probe from before 2026-11-28 has none). */
bool torchkern_step_pieces(const struct calib *c, const char *mode, double *fwd, double *bwd, double *opt_us,
			   int *nstacks);
/* torchkern_tp_coll: the host us of one tensor-parallel all-reduce as Megatron-style code issues it in a mixed
 * stream (the probe's `tp_coll` row: its Function pair and the interleaving included); false when not measured. */
bool torchkern_tp_coll(const struct calib *c, double *us);
/* torchkern_mix_spread: the forward mixed-stream ratio's lowest and highest round (`mix_fwd_min`, `_max`: how far
 * the host drifted while the probe ran); false for a probe of one round (an older CSV). */
bool torchkern_mix_spread(const struct calib *c, double *lo, double *hi);
/* torchkern_drift: how fast and how slow the host ran over the probe's rounds, as factors on the costs kept: the
 * smallest of mix_fwd_min / mix_fwd and mix_bwd_min / mix_bwd, the largest of the _max over the median (rounded to
 * 0.001; hardware/hwmodel.h, host.<mode>.drift_lo, drift_hi). false without the rounds' rows. */
bool torchkern_drift(const struct calib *c, double *lo, double *hi);
/* torchkern_rank_spread: how far the host speed of processes running at once differs among them and stays so, from
 * the probe's `host,rank_block_ROUND,RANK,0,0,US` rows (calibrate/torch_kernels.py rank_host_rows: the pre-LN block's
 * host us per layer, forward and backward, timed in one process per GPU at the same time, ROUND by ROUND). A step
 * follows its slowest process over the whole step, so only the part of the ranks' differences that holds from
 * round to round counts, not one round's noise: a two-way analysis of variance of log us over the rounds that have
 * every rank, the ranks' mean square less the residual one, over the rounds, its square root (0 when the ranks
 * differ no more than the noise). *ranks the ranks, *rounds those rounds. False with fewer than 2 of either. */
bool torchkern_rank_spread(const struct calib *c, double *spread, int *ranks, int *rounds);
/* torchkern_host_section: --kernels torch's host section of hw from the probe's rows (a collective call's enqueue,
 * the eager op classes with their mixed-stream and whole-step ratios, the drift range and the rank spread, a TP
 * collective as a step issues it, the compiled graphs) over the base's, and its source; false without them (the
 * base's host stays). */
bool torchkern_host_section(const struct calib *c, struct hwmodel *hw);

#endif
