/* comm: collective and transfer times for placed groups (see comm.h for the model). */
#include "sim/comm.h"

#include <math.h>

struct group_shape comm_shape(int gpus_per_node, int base, int stride, int n)
{
	struct group_shape g = { n, 0, 0 };
	int last_node = -1, run = 0;
	/* members are increasing, so the ranks of one node are consecutive in the list */
	for (int i = 0; i < n; i++) {
		int node = (base + i * stride) / gpus_per_node;
		if (node != last_node) {
			g.nodes++;
			last_node = node;
			run = 0;
		}
		if (++run > g.per_node)
			g.per_node = run;
	}
	return g;
}

double comm_net_share_gbps(const struct hwmodel *hw)
{
	double share = hw->net.nic_gbps * fmin(1.0, (double)hw->net.nics / hw->node.gpus);
	return share / fmax(1.0, hw->net.oversubscription);
}

static double intra_us(const struct hwmodel *hw, enum coll_op op, int n, double bytes)
{
	return n < 2 ? 0 : hwmodel_coll_us(hw, SCOPE_INTRA, op, n, bytes);
}

/* Across nodes: the model's time, but never faster than the GPU's share of the network allows. */
static double inter_us(const struct hwmodel *hw, enum coll_op op, int n, double bytes)
{
	if (n < 2)
		return 0;
	double t = hwmodel_coll_us(hw, SCOPE_INTER, op, n, bytes);
	double floor = bytes * coll_busfactor(op, n) / (comm_net_share_gbps(hw) * 1e3);
	return fmax(t, floor);
}

double comm_coll_s(const struct hwmodel *hw, enum coll_op op, double bytes, struct group_shape g)
{
	if (g.n < 2)
		return 0;
	if (g.nodes == 1)
		return intra_us(hw, op, g.n, bytes) * 1e-6;
	if (g.per_node == 1)
		return inter_us(hw, op, g.n, bytes) * 1e-6;
	int gl = g.per_node, nn = g.nodes;
	double us;
	switch (op) {
	case COLL_ALL_REDUCE:
		us = intra_us(hw, COLL_REDUCE_SCATTER, gl, bytes) + inter_us(hw, COLL_ALL_REDUCE, nn, bytes / gl) +
		     intra_us(hw, COLL_ALL_GATHER, gl, bytes);
		break;
	case COLL_REDUCE_SCATTER:
		us = intra_us(hw, COLL_REDUCE_SCATTER, gl, bytes) + inter_us(hw, COLL_REDUCE_SCATTER, nn, bytes / gl);
		break;
	case COLL_ALL_GATHER:
		us = inter_us(hw, COLL_ALL_GATHER, nn, bytes / gl) + intra_us(hw, COLL_ALL_GATHER, gl, bytes);
		break;
	default:
		/* broadcast, all-to-all: the cross-node part dominates; run it over the whole group */
		us = inter_us(hw, op, g.n, bytes);
		break;
	}
	return us * 1e-6;
}

/* inter_us's floor in seconds */
static double net_floor_s(const struct hwmodel *hw, enum coll_op op, int n, double bytes)
{
	return n < 2 ? 0 : bytes * coll_busfactor(op, n) / (comm_net_share_gbps(hw) * 1e9);
}

double comm_coll_floor_s(const struct hwmodel *hw, enum coll_op op, double bytes, struct group_shape g)
{
	if (g.n < 2 || g.nodes == 1 || !(comm_net_share_gbps(hw) > 0))
		return 0;
	if (g.per_node == 1)
		return net_floor_s(hw, op, g.n, bytes);
	switch (op) {
	case COLL_ALL_REDUCE:
	case COLL_REDUCE_SCATTER:
	case COLL_ALL_GATHER:
		return net_floor_s(hw, op, g.nodes, bytes / g.per_node);
	default:
		return net_floor_s(hw, op, g.n, bytes);
	}
}

double comm_p2p_s(const struct hwmodel *hw, double bytes, int same_node)
{
	if (same_node)
		return hwmodel_coll_us(hw, SCOPE_INTRA, COLL_SEND_RECV, 2, bytes) * 1e-6;
	return inter_us(hw, COLL_SEND_RECV, 2, bytes) * 1e-6;
}
