/* overlap: communication a layer hides behind its own compute on the side channel (INS_SIDE), and TP
 * communication overlap (parallel.tp_comm_overlap) as Transformer Engine's userbuffers run it with sequence
 * parallelism (docs/simulation.md "TP communication overlap"):
 *   forward   the all-gather before QKV and fc1 as a ring exchange: the GEMM is split in tp chunks of T/tp
 *             rows; chunk 0 is the rank's own, and while chunk i computes the next chunk arrives from the ring
 *             neighbour (tp-1 hops of T/tp*h*e bytes); the reduce-scatter after proj and fc2 alike: each
 *             output chunk is sent to its owner while the next one computes, the last hop and the sum of the
 *             tp partial chunks stay exposed;
 *   backward  the gradient all-gather before proj's and fc2's dgrad as a ring exchange (as forward); bulk
 *             overlap around QKV and fc1: the all-gather of the layer input (SP keeps 1/tp of it; the weight
 *             gradient needs all) behind the dgrad GEMM, the reduce-scatter of the dgrad output behind the
 *             wgrad GEMM.
 * A GEMM chunk that runs beside a transfer is slowed by the hardware model's overlap.compute_slowdown and the
 * transfer by overlap.comm_slowdown (SM sharing), over the time they overlap (overlap_slowdown). */
#ifndef OVERLAP_H
#define OVERLAP_H

#include <stdbool.h>
#include "sim/ops.h"

/* At most this many chunks per overlapped GEMM (tp beyond it: chunks of tp/OVERLAP_MAX_CHUNKS ranks' rows). */
#define OVERLAP_MAX_CHUNKS 32

/* Append a side-channel transfer of `bytes` (kind: an OPK_SIDE_* transfer), or the compute stream's wait. */
int overlap_put_side(struct opcost *out, int n, enum opkind kind, const char *name, double bytes);
int overlap_put_wait(struct opcost *out, int n);

/* parallel.tp_comm_overlap in force (needs SP and tp > 1). */
bool overlap_tp(const struct opctx *c);
/* The ring-exchange all-gather of act_bytes (the whole T x h activation) overlapped with a GEMM of rows x n x k
 * split in chunks of rows/chunks, each chunk named gemm. */
int overlap_ag_gemm(const struct opctx *c, struct opcost *out, int n, const char *gemm, const char *xfer,
		    double act_bytes, double rows, double gn, double gk);
/* A GEMM of rows x n x k whose output (act_bytes, T x h) is reduce-scattered chunk by chunk while the next
 * chunk computes; then the sum of the received partial chunks (named sum). */
int overlap_gemm_rs(const struct opctx *c, struct opcost *out, int n, const char *gemm, const char *xfer,
		    const char *sum, double act_bytes, double rows, double gn, double gk);
/* Bulk overlap: a whole collective (OPK_SIDE_TP_ALLGATHER or _REDUCESCATTER) of bytes behind the next ops
 * up to the wait the caller appends. */
int overlap_bulk(const struct opctx *c, struct opcost *out, int n, enum opkind kind, const char *name, double bytes);

/* The op-list pieces ops.c builds a layer from, with or without TP overlap:
 * overlap_gather_gemm  the GEMM that opens a TP region (QKV, fc1; backward proj's and fc2's dgrad) on its
 *                      gathered input: SP's all-gather (ag) then the GEMM, or the ring exchange beside its chunks;
 * overlap_gemm_reduce  the GEMM that closes one (proj, fc2) and its all-reduce (ar) or SP reduce-scatter (rs), or
 *                      the reduce-scatter chunk by chunk;
 * overlap_dgrad_wgrad  a region-opening GEMM's dgrad and wgrad and the input gradient's all-reduce or
 *                      reduce-scatter; with overlap (bulk) the input all-gather (ag) beside the dgrad and the
 *                      reduce-scatter beside the wgrad. act: the T x h activation's bytes. */
int overlap_gather_gemm(const struct opctx *c, struct opcost *out, int n, const char *ag, const char *xfer,
			const char *gemm, double act, double rows, double gn, double gk);
int overlap_gemm_reduce(const struct opctx *c, struct opcost *out, int n, const char *gemm, const char *ar,
			const char *rs, const char *xfer, const char *sum, double act, double rows, double gn, double gk);
int overlap_dgrad_wgrad(const struct opctx *c, struct opcost *out, int n, const char *dgrad, double dgrad_s,
			const char *wgrad, double wgrad_s, const char *ag, const char *ar, const char *rs, double act);

/* The SM-sharing slowdown for a timed op list: each side transfer overlaps the compute ops after it up to the
 * next transfer or wait (W seconds alone); over ov = min(its time, W) the compute ops grow by ov*cs in
 * proportion to their time and the transfer by ov*ms. Idempotent (the compute ops keep their time alone). */
void overlap_slowdown(struct opcost *ops, int n, double cs, double ms);
/* Whether a list holds side-channel transfers. */
bool overlap_has_side(const struct opcost *ops, int n);
/* Bytes of the userbuffers TP overlap allocates once per GPU: one T x h buffer (model dtype) for each of the
 * ten overlapped GEMMs (qkv/proj/fc1/fc2 forward, proj/fc2 dgrad, qkv/fc1 dgrad and wgrad); 0 without. */
double overlap_buffer_bytes(const struct scenario *sc);

#endif
