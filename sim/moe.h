/* moe: a mixture-of-experts layer's MLP (model.moe; docs/simulation.md "Mixture of experts") as Megatron-Core's
 * MoE layer with the all-to-all token dispatcher runs it on one rank: router, permutation, all-to-all dispatch
 * over the EP group, grouped expert GEMMs, all-to-all combine, unpermutation, shared experts; their backward;
 * the parameters and saved activations a rank holds. */
#ifndef MOE_H
#define MOE_H

#include "sim/comm.h"
#include "sim/ops.h"

/* Token rows a rank's experts compute per micro-batch: the rank routes R = tokens*etp/tp tokens (with etp < tp
 * the TP group's tokens are split over tp/etp ranks), A = R*top_k assignments; dropless: A*imbalance (the
 * busiest rank), with a capacity: capacity_factor*A (every expert computes its whole, padded capacity). */
double moe_routed_rows(const struct scenario *sc, double tokens);
double moe_expert_rows(const struct scenario *sc, double tokens);
/* The MLP part of a layer's forward and backward (after ln2 / before ln2_bwd), appended to out at n. */
int moe_mlp_fwd(const struct opctx *c, struct opcost *out, int n);
int moe_mlp_bwd(const struct opctx *c, struct opcost *out, int n);
/* Parameters of one layer on one rank: attention / tp, norms, the router (replicated), shared experts / tp and
 * experts/ep routed experts / etp. linear_only: without norms and router (the weights FP8 quantizes). */
double moe_layer_params_local(const struct scenario *sc, int linear_only);
/* The routed experts' parameters of one layer on one rank (experts/ep experts / etp; 0 without model.moe), and
 * the expert-data-parallel group that holds the same experts: tp*dp/(ep*etp) ranks (Megatron's EDP group),
 * over which the distributed optimizer (ZeRO) shards their state. */
double moe_expert_params_local(const struct scenario *sc);
int moe_edp(const struct scenario *sc);
/* Bytes the MLP part of a layer saves for the backward, one micro-batch (xe: bytes per element of a saved
 * linear-layer input: the model dtype, or the FP8 copy). */
double moe_mlp_act_bytes(const struct scenario *sc, double tokens, double xe);
/* An all-to-all of `bytes` (each rank's send buffer) over the EP group g: the part that stays on the node over
 * NVLink and the part that leaves it over the network run at once; the longer one counts. */
double moe_alltoall_s(const struct hwmodel *hw, double bytes, struct group_shape g);

#endif
