/* comm: how long a collective or a transfer takes for a group of GPUs placed on nodes, from the hardware
 * model's per-scope costs. A group inside one node uses the intra-node model; a group with one GPU per node
 * the inter-node model; a group with g > 1 GPUs on each of N > 1 nodes runs hierarchically, as NCCL does:
 * all-reduce = reduce-scatter in the node (S, g) + all-reduce across nodes (S/g, N) + all-gather in the node.
 * Across nodes every GPU of a node drives the network at once (the other groups run the same collective), so
 * a GPU gets at most nic_gbps * min(1, nics/gpus_per_node) / oversubscription. */
#ifndef COMM_H
#define COMM_H

#include "hardware/hwmodel.h"

struct group_shape {
	int n;         /* members */
	int nodes;     /* nodes spanned */
	int per_node;  /* members on each node (the largest count, if uneven) */
};

/* Members are ranks base + i*stride, i < n; node of a rank = rank / gpus_per_node. */
struct group_shape comm_shape(int gpus_per_node, int base, int stride, int n);
/* Seconds for one collective of bytes (nccl-tests convention) over the group; 0 for a group of one. */
double comm_coll_s(const struct hwmodel *hw, enum coll_op op, double bytes, struct group_shape g);
/* The least seconds comm_coll_s gives for bytes over the group, linear in bytes: the part that crosses the
 * network at the GPU's share of it (0 for a group inside one node). The sum over collectives of any sizes is
 * the floor of their total, so it bounds a stream of buckets whatever their split (plan/plan.c). */
double comm_coll_floor_s(const struct hwmodel *hw, enum coll_op op, double bytes, struct group_shape g);
/* Seconds to send bytes to one peer, inside a node or across nodes. */
double comm_p2p_s(const struct hwmodel *hw, double bytes, int same_node);
/* Per-GPU network bandwidth (GB/s) when every GPU of a node uses the network at once. */
double comm_net_share_gbps(const struct hwmodel *hw);

#endif
