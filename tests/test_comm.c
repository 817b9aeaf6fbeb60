/* test_comm: group placement and collective times against the textbook formulas.
 * Ring all-reduce over n ranks, per-step latency a, bus bandwidth B: 2(n-1)a + 2(n-1)/n * S/B. */
#include "sim/comm.h"
#include "check.h"

static struct coll_line ring_intra = { "ring", 0, 0, 3.0, 300, 0 };  /* a = 3 us, B = 300 GB/s */
static struct coll_line ring_inter = { "ring", 0, 0, 10.0, 40, 0 };  /* a = 10 us, B = 40 GB/s */

int main(void)
{
	struct hwmodel hw;
	memset(&hw, 0, sizeof hw);
	hw.node.gpus = 8;
	hw.net.nics = 8;
	hw.net.nic_gbps = 50;
	hw.net.oversubscription = 1;
	for (int op = 0; op < COLL_NOPS; op++) {
		hw.coll[SCOPE_INTRA][op] = (struct coll_model){ .nlines = 1, .lines = &ring_intra };
		hw.coll[SCOPE_INTER][op] = (struct coll_model){ .nlines = 1, .lines = &ring_inter };
	}

	/* placement: 16 ranks, 8 per node */
	struct group_shape g = comm_shape(8, 0, 1, 8);      /* TP group of 8 inside node 0 */
	CHECK_INT(g.nodes, 1);
	CHECK_INT(g.per_node, 8);
	g = comm_shape(8, 0, 8, 4);                          /* ranks 0, 8, 16, 24: one per node */
	CHECK_INT(g.nodes, 4);
	CHECK_INT(g.per_node, 1);
	g = comm_shape(8, 0, 2, 8);                          /* ranks 0..14 step 2: 4 on each of 2 nodes */
	CHECK_INT(g.nodes, 2);
	CHECK_INT(g.per_node, 4);

	/* ring all-reduce of 1 GB over 8 GPUs in a node: 2*7*3 us + 2*7/8 * 1e9 B / 300 GB/s */
	double S = 1e9;
	CHECK_NEAR(comm_coll_s(&hw, COLL_ALL_REDUCE, S, comm_shape(8, 0, 1, 8)),
		   2 * 7 * 3e-6 + 2.0 * 7 / 8 * S / 300e9, 1e-12);
	/* across 4 nodes, one GPU each: 2*3*10 us + 2*3/4 * S / 40 GB/s */
	CHECK_NEAR(comm_coll_s(&hw, COLL_ALL_REDUCE, S, comm_shape(8, 0, 8, 4)),
		   2 * 3 * 10e-6 + 2.0 * 3 / 4 * S / 40e9, 1e-12);
	/* hierarchical, 4 GPUs on each of 2 nodes: RS in node (3 steps, 3/4 S) + AR across 2 nodes of S/4
	 * (2 steps, S/4) + AG in node (3 steps, 3/4 S) */
	double want = (3 * 3e-6 + 0.75 * S / 300e9) + (2 * 10e-6 + 1.0 * (S / 4) / 40e9) +
		      (3 * 3e-6 + 0.75 * S / 300e9);
	CHECK_NEAR(comm_coll_s(&hw, COLL_ALL_REDUCE, S, comm_shape(8, 0, 2, 8)), want, 1e-12);
	/* one member: free */
	CHECK_NEAR(comm_coll_s(&hw, COLL_ALL_REDUCE, S, comm_shape(8, 0, 1, 1)), 0, 1e-12);

	/* network share: 1 NIC of 50 GB/s for 8 GPUs gives each 6.25 GB/s, which caps the 40 GB/s line */
	hw.net.nics = 1;
	CHECK_NEAR(comm_net_share_gbps(&hw), 6.25, 1e-12);
	CHECK_NEAR(comm_coll_s(&hw, COLL_ALL_REDUCE, S, comm_shape(8, 0, 8, 4)), 2.0 * 3 / 4 * S / 6.25e9, 1e-12);
	/* p2p: one step of latency plus bytes over the link */
	hw.net.nics = 8;
	CHECK_NEAR(comm_p2p_s(&hw, 1e8, 1), 3e-6 + 1e8 / 300e9, 1e-12);
	CHECK_NEAR(comm_p2p_s(&hw, 1e8, 0), 10e-6 + 1e8 / 40e9, 1e-12);

	/* the floor (comm_coll_floor_s): the network part at the GPU's share, 50 GB/s here (8 NICs, 8 GPUs), linear in
	 * the bytes. One GPU per node over 4: 2*3/4 S / 50 GB/s for an all-reduce; 4 GPUs on each of 2 nodes: the
	 * cross-node all-reduce of S/4 over 2, 2*1/2 (S/4) / 50 GB/s; inside a node: 0. Never above the time. */
	CHECK_NEAR(comm_coll_floor_s(&hw, COLL_ALL_REDUCE, S, comm_shape(8, 0, 8, 4)), 2.0 * 3 / 4 * S / 50e9, 1e-15);
	CHECK_NEAR(comm_coll_floor_s(&hw, COLL_ALL_REDUCE, S, comm_shape(8, 0, 2, 8)), 1.0 * (S / 4) / 50e9, 1e-15);
	CHECK_NEAR(comm_coll_floor_s(&hw, COLL_ALL_GATHER, S, comm_shape(8, 0, 2, 8)), 0.5 * (S / 4) / 50e9, 1e-15);
	CHECK_NEAR(comm_coll_floor_s(&hw, COLL_ALL_REDUCE, S, comm_shape(8, 0, 1, 8)), 0, 0);
	CHECK_NEAR(comm_coll_floor_s(&hw, COLL_ALL_REDUCE, S, comm_shape(8, 0, 1, 1)), 0, 0);
	CHECK_NEAR(comm_coll_floor_s(&hw, COLL_REDUCE_SCATTER, 3 * S, comm_shape(8, 0, 8, 4)),
		   3 * comm_coll_floor_s(&hw, COLL_REDUCE_SCATTER, S, comm_shape(8, 0, 8, 4)), 1e-15);
	for (int op = 0; op < COLL_NOPS; op++)
		for (double b = 8; b < 8e9; b *= 3.7)
			for (int st = 1; st <= 8; st *= 2) {
				struct group_shape gs = comm_shape(8, 0, st, 8);
				CHECK(comm_coll_floor_s(&hw, (enum coll_op)op, b, gs) <=
				      comm_coll_s(&hw, (enum coll_op)op, b, gs) * (1 + 1e-12));
			}
	return check_result();
}
