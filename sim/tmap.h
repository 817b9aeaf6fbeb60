/* tmap: the engine's time in integer ticks, and the max-plus maps by which a fused run crosses instructions.
 * Time. The engine counts integer ticks of 2^-40 s (0.9 ps; 2^63 ticks are 97 days), as OMNeT++ keeps its
 * simtime_t: sums of ticks are exact in any order, so a run of instructions timed as one busy interval, a
 * repeated piece applied at once, and every rank simulated all give the same times to the tick as one event per
 * instruction. Each instruction's duration is rounded to a tick once (tk), always from the same seconds.
 * Maps. A fusable instruction (a compute segment, host work, a TP collective of one simulated member) maps the
 * pair (GPU time t, host time h) to (max(t + A, h + B), h + C); maps compose exactly (A and C add,
 * B = max(B1 + A2, C1 + B2)), and k passes of one are A·k, C·k, B + (k-1)·max(A, C) (docs/simulation.md).
 * The side channel's transfers and waits (INS_SIDE, INS_SIDE_WAIT) add a third clock, the side time s: a map
 * that holds them (has_side) sends (t, h, s) to (max(t + A, h + B, s + D), h + C, max(t + E, h + F, s + G)),
 * a 3x3 max-plus matrix whose host row is (-, C, -); these compose as matrices and k passes are taken by
 * squaring. */
#ifndef TMAP_H
#define TMAP_H

#include <math.h>
#include <stdint.h>
#include "sim/program.h"

#define TICKS_PER_S 0x1p40
static inline int64_t tk(double sec)
{
	return (int64_t)(sec * TICKS_PER_S + 0.5);
}
static inline double tk_s(int64_t v)
{
	return (double)v * (1 / TICKS_PER_S);
}
static inline int64_t imax(int64_t a, int64_t b)
{
	return b > a ? b : a;
}
static inline int64_t imin(int64_t a, int64_t b)
{
	return b < a ? b : a;
}

/* The host's part in a compute segment of d seconds and n ops that cost the host H = in->host seconds to issue,
 * from host time h0, as n equal shares: op i (GPU time d/n) starts at max(end of op i-1, h0 + i*H/n); the latest
 * of those constraints is the first or the last op's, so the segment ends at max(t + d, h0 + *B) and the host is
 * at h0 + *C. (Ops of different host costs in one segment are taken at their mean: exact for the last op, which
 * is what a host-bound segment waits for.) */
static inline void tmap_host_terms(double d, const struct instr *in, int64_t *B, int64_t *C)
{
	double n = in->nops ? in->nops : 1, H = in->host;
	double x = H / n + d, y = H + d / n;
	*B = tk(y > x ? y : x);
	*C = tk(H);
}

#define TMAP_NEG (INT64_MIN / 4)  /* B of no host constraint */
enum { SUM_COMP, SUM_OPT, SUM_TP, SUM_PP, SUM_N };
struct tmap {
	int64_t A, B, C;      /* t' = max(t + A, host + B), host' = host + C */
	int64_t sum[SUM_N];   /* ticks the instructions add to each account (compute, optimizer, TP, PP) */
	int has_side;         /* also t' >= s + D, s' = max(t + E, host + F, s + G); else s' = s */
	int waits;            /* holds a side wait: what the GPU waits in it beyond sum is side time (tmap_stage
	                       * maps such a piece only when it has no host term, B, C and F empty) */
	int64_t D, E, F, G;
};
/* TMAP_NEG plus a tick count, staying TMAP_NEG (no constraint) */
static inline int64_t tmap_add(int64_t a, int64_t b)
{
	return a <= TMAP_NEG || b <= TMAP_NEG ? TMAP_NEG : a + b;
}

/* Whether an instruction joins a fused run: compute, host work, the side channel's transfers and waits, or a TP
 * collective when its group has one simulated member (tp_fuses). */
static inline int tmap_fusable(const struct instr *in, int tp_fuses)
{
	return in->kind == INS_COMPUTE || in->kind == INS_HOST || in->kind == INS_SIDE || in->kind == INS_SIDE_WAIT ||
	       (in->kind == INS_COLL && in->group == GROUP_TP && tp_fuses);
}
/* The map of one fusable instruction at stage speed sp (compute runs dur/sp). */
void tmap_instr(const struct instr *in, double sp, struct tmap *m);
/* m = m followed by n */
void tmap_then(struct tmap *m, const struct tmap *n);
/* m applied k >= 1 times in a row */
void tmap_pow(struct tmap *m, uint32_t k);
/* Apply m to (t, h, s). */
static inline void tmap_apply(const struct tmap *m, int64_t *t, int64_t *h, int64_t *s)
{
	int64_t t1 = imax(*t + m->A, tmap_add(*h, m->B));
	if (m->has_side) {
		int64_t s1 = imax(tmap_add(*t, m->E), imax(tmap_add(*h, m->F), tmap_add(*s, m->G)));
		t1 = imax(t1, tmap_add(*s, m->D));
		*s = s1;
	}
	*h += m->C;
	*t = t1;
}
/* Apply k >= 1 passes of a map without the side channel (!m->has_side) to (t, h) and add its sums k times to sum:
 * the same as tmap_pow(copy, k), tmap_apply and adding its sums, without the copy. */
static inline void tmap_apply_pow(const struct tmap *m, uint32_t k, int64_t *t, int64_t *h, int64_t sum[SUM_N])
{
	int64_t t1 = *t + m->A * (int64_t)k;
	if (m->B != TMAP_NEG)
		t1 = imax(t1, *h + m->B + (int64_t)(k - 1) * imax(m->A, m->C));
	*h += m->C * (int64_t)k;
	*t = t1;
	for (int i = 0; i < SUM_N; i++)
		sum[i] += m->sum[i] * (int64_t)k;
}

/* A stage's maps: maps[map_of[i] - 1] the map of one pass over compute-stream span i (struct span) when a run can
 * cross it whole (it runs a whole piece, every instruction of which is fusable, none starting a unit but the first
 * of a piece run once), map_of[i] 0 else; one map per distinct stored run (off, n), kept only for the few runs that
 * can have one (a layer's forward or backward: a handful a stage, against a thousand runs of single receives and
 * records), so the index costs two bytes a span.
 * work_s: every stream's work in seconds (a bound of the step's length). Which pieces run the same stored run, and
 * which runs can have a map (their host seconds and side waits decide, not the speed), depend on the program only:
 * the first tmap_stage_prepare finds them (with a hash of the pieces, in memory it frees again) and preparing again
 * at other speeds (the stage clocks' iterations) only remakes the maps and the bound. */
struct tmap_stage {
	uint16_t *map_of;          /* span -> 1 + the index in maps of its run's map; 0: none (walked instruction by
	                            * instruction). NULL until the first tmap_stage_prepare */
	struct tmap *maps;         /* at most UINT16_MAX; other runs are walked */
	uint32_t *map_piece;       /* maps[i] is one pass over piece map_piece[i], the first of its run */
	size_t nmaps;
	double work_s;
	double comp, rest;         /* the compute stream's work over all its passes: compute seconds at speed 1, and
	                            * the rest (host, collectives) */
	double other_streams;      /* the other streams' work, seconds */
};
/* maps 0: only work_s (the engine does not fuse: interference, or a timeline that needs every instruction).
 * out zeroed the first time; tp_fuses and maps must be the same on every call with the same out. */
void tmap_stage_prepare(const struct program *p, double sp, int tp_fuses, int maps, struct tmap_stage *out);
void tmap_stage_release(struct tmap_stage *st);
/* The host's work on a program's compute stream, in ticks: the host time h the
 * engine reaches at its end (every compute segment's C and every INS_HOST). The compute stream cannot end before
 * its host has issued it all, so this is a lower bound of the step whatever the clocks (sim/fit.c). */
int64_t tmap_host_work(const struct program *p);

#endif
