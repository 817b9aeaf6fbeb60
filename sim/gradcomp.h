/* gradcomp: the data-parallel gradient reduction with a narrower element type (parallel.grad_reduce_dtype) or a
 * compression hook (parallel.grad_compression: PowerSGD of rank r, top-k with error feedback), as tasks: the
 * hook's compute on the compute stream before a bucket's collectives, its collectives and the work of its
 * callbacks on the DP stream, and the memory it keeps. docs/simulation.md, "Gradient compression". */
#ifndef GRADCOMP_H
#define GRADCOMP_H

#include <stdbool.h>
#include "hardware/hwmodel.h"
#include "scenario/scenario.h"
#include "sim/comm.h"
#include "sim/program.h"

/* What a bucket holds, added up as gradients become ready: its elements, of which in vectors (norm weights,
 * biases: sent uncompressed by PowerSGD), and for PowerSGD the sums over its matrices (n x m each) of n*r and
 * m*r (the P and Q factors' elements) and of the times of its GEMMs. */
struct gradcomp_bucket {
	double elems, vec, p, q;
	double t_p, t_q, t_approx;  /* P = M Q, Q = M^T P, M' = P Q^T over the bucket's matrices */
};

/* Whether gradients go through a cast or a compression hook (else the plain all-reduce / reduce-scatter). */
bool gradcomp_on(const struct scenario *sc);
/* Add one transformer layer's gradients on one TP rank (tp), or a dense layer l's (l >= 0 of a layer list). */
void gradcomp_add_layer(const struct scenario *sc, const struct hwmodel *hw, int tp, int l, struct gradcomp_bucket *b);
/* Add one n x m gradient matrix (the embedding or the head on one TP rank). */
void gradcomp_add_matrix(const struct scenario *sc, const struct hwmodel *hw, double n, double m,
			 struct gradcomp_bucket *b);
/* Emit a full bucket: the compute-stream part (the hook's compression), then on the DP stream (which the caller
 * made wait for the compute stream) the collectives over g and the callbacks' work. op: the plain reduction's
 * collective (all-reduce, or reduce-scatter under ZeRO); name: its name. */
void gradcomp_bucket_emit(struct program *prog, const struct hwmodel *hw, const struct scenario *sc,
			  const struct gradcomp_bucket *b, struct group_shape g, enum coll_op op, const char *name);
/* The hook's part of a bucket before its collectives, on stream st: the compute stream for a DDP hook or bucket
 * cast (emitted before the caller hands the bucket to the DP stream), the DP stream for FSDP2's reduce-scatter
 * input cast (ZeRO-3: foreach_reduce copies the gradients into the reduce dtype on the reduce-scatter's
 * stream). */
void gradcomp_bucket_compress(struct program *prog, const struct hwmodel *hw, const struct scenario *sc,
			      const struct gradcomp_bucket *b, enum stream_kind st);
/* Bytes the hook keeps between steps for params local parameters of which q_elems are PowerSGD Q factors: the
 * error-feedback buffer (one gradient copy) and the Q factors (warm start); 0 without a hook. */
double gradcomp_state_bytes(const struct scenario *sc, double params, double q_elems);

#endif
