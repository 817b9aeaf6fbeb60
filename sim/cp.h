/* cp: context parallelism (parallel.cp; docs/simulation.md "Context parallelism") as Megatron-Core runs it
 * through Transformer Engine. Each of the cp ranks holds seq/cp tokens of every sequence: with a causal mask
 * two chunks of seq/(2cp), chunk c and chunk 2cp-1-c, so every rank does the same attention work. All
 * token-wise ops (norms, GEMMs, MLP) run on those tokens alone; attention needs every rank's K and V:
 *   p2p (default, TE AttnFuncWithCPAndKVP2P): cp steps per layer; at step i the rank computes its queries
 *     against the K/V chunk it holds, while on the side channel it passes that chunk to the next rank of the
 *     ring and receives the next one (cp-1 hops of the rank's K+V bytes forward). With a causal mask step 0
 *     is the causal diagonal block over the rank's seq/cp tokens and every other step half a block
 *     (seq/cp x seq/(2cp) query-key pairs): each step is 1/cp of the rank's share, so the work is even.
 *     Each step after the first corrects the output by the new softmax statistics (read and write the output).
 *     Backward: cp steps, the K/V and their gradients travel together (first hop K/V, middle hops 2x, the last
 *     hop dK/dV home); each step adds its dQ and dK/dV into the accumulators;
 *   all_gather (TE AttnFuncWithCPAndKVAllGather): K and V all-gathered over the CP group before attention
 *     (blocking), the rank's two chunks attend against them; backward: all-gather again, attention backward,
 *     reduce-scatter of dK/dV. */
#ifndef CP_H
#define CP_H

#include "sim/ops.h"

/* The attention core's forward (cp < 2: the one fused kernel of ops_attn_s), appended at out[n]. */
int cp_attn_fwd(const struct opctx *c, struct opcost *out, int n);
/* Its backward; recompute: selective recompute runs the forward first (with its ring). */
int cp_attn_bwd(const struct opctx *c, int recompute, struct opcost *out, int n);
/* The rank's K and V bytes of one micro-batch on one TP rank: seq/cp tokens x 2*kv_heads/tp heads x hd, in the
 * model dtype (FP8 with training.fp8.attention). */
double cp_kv_bytes(const struct scenario *sc);
/* Transient bytes while a layer's attention runs: p2p: the two ring buffers of K/V and dK/dV (4x the K/V
 * bytes, backward); all_gather: the gathered K/V and dK/dV (2*cp x). 0 without CP. */
double cp_transient_bytes(const struct scenario *sc);
/* Softmax statistics the ring keeps per step beyond the one a single kernel keeps (fp32, one per query row
 * and head: (cp-1) x T/cp x heads/tp x 4 bytes), per layer and micro-batch; 0 without CP or p2p. */
double cp_saved_bytes(const struct scenario *sc);

#endif
