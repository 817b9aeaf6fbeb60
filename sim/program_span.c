/* program_span: a stream's loops expanded into the spans the engine walks (struct span), at the program's end.
 * Invariants: a stream's spans run, in order, exactly the instructions its loops run, each record, wait, receive
 * and send with the id of its pass (arg + pass * astep, the pass being the loop's pass plus the piece's
 * repetition, struct loop); within a span every event id steps alike and every slot steps alike, so one offset per
 * class names them; the compute stream's span_piece[i] is the piece span i runs (the whole of it unless the span's
 * off and n say otherwise). */
#include <stdint.h>
#include <stdlib.h>
#include "sim/program.h"
#include "sim/program_internal.h"
#include "util/xalloc.h"

/* A span of one pass of a piece, as a template: its ids step by step[0] (events) and step[1] (slots) a pass. */
struct tspan {
	struct span sp;
	int16_t step[2];
};

/* A record or wait names an event (0), a receive or send a mailbox slot (1); -1 for the rest. */
static int id_class(const struct instr *in)
{
	if (in->kind == INS_RECORD || in->kind == INS_WAIT)
		return 0;
	return in->kind == INS_RECV || in->kind == INS_SEND ? 1 : -1;
}

struct tlist {
	struct tspan *v;
	size_t n, cap;
};

/* Append instructions [off, off + n) run reps times with the given steps, cut where n or reps do not fit a
 * span's 16 bits (a longer run's passes one by one). */
static void push_tspan(struct tlist *o, uint32_t off, uint32_t n, uint32_t reps, const int16_t step[2])
{
	if (n > UINT16_MAX) {
		for (uint32_t r = 0; r < reps; r++)
			for (uint32_t j = 0; j < n; j += UINT16_MAX)
				push_tspan(o, off + j, n - j < UINT16_MAX ? n - j : UINT16_MAX, 1, step);
		return;
	}
	for (; reps > UINT16_MAX; reps -= UINT16_MAX)
		push_tspan(o, off, n, UINT16_MAX, step);
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 16;
		o->v = xrealloc(o->v, o->cap * sizeof *o->v);
	}
	o->v[o->n++] = (struct tspan){ { off, (uint16_t)n, (uint16_t)reps, 0, 0 }, { step[0], step[1] } };
}

/* The template of piece pc: when none of its ids steps, its spans (one, unless n or reps need cutting), returning
 * 0; else the spans of one of its repetitions, cut where its event ids or its slots stop stepping alike, returning
 * 1 (each repetition is then a pass of its own). */
static int piece_template(const struct instr *ins, const struct piece *pc, struct tlist *o)
{
	int steps = 0;
	for (uint32_t j = 0; j < pc->n && !steps; j++)
		steps = id_class(&ins[pc->off + j]) >= 0 && ins[pc->off + j].astep;
	static const int16_t none[2] = { 0, 0 };
	if (!steps) {
		push_tspan(o, pc->off, pc->n, pc->reps, none);
		return 0;
	}
	for (uint32_t j0 = 0, j; j0 < pc->n; j0 = j) {
		int16_t step[2] = { 0, 0 };
		int seen[2] = { 0, 0 };
		for (j = j0; j < pc->n; j++) {
			const struct instr *in = &ins[pc->off + j];
			int k = id_class(in);
			if (k < 0)
				continue;
			if (seen[k] && in->astep != step[k])
				break;
			seen[k] = 1;
			step[k] = in->astep;
		}
		push_tspan(o, pc->off + j0, j - j0, 1, step);
	}
	return 1;
}

/* Stream st's spans (and, for the compute stream, the piece of each): the loops' passes, each piece's template
 * with the ids of its pass. */
static void make_stream(struct program *p, int st)
{
	size_t np = p->npieces[st], total = 0;
	struct tlist t = { 0 };
	size_t *first = xmalloc((np + 1) * sizeof *first);  /* piece i's template: t.v[first[i] .. first[i+1]-1] */
	uint32_t *per = xmalloc((np ? np : 1) * sizeof *per);  /* 1, or its reps when each repetition is a pass */
	for (size_t i = 0; i < np; i++) {
		first[i] = t.n;
		per[i] = piece_template(p->ins[st], &p->pieces[st][i], &t) ? p->pieces[st][i].reps : 1;
	}
	first[np] = t.n;
	for (size_t l = 0; l < p->nloops[st]; l++) {
		const struct loop *lp = &p->loops[st][l];
		for (uint32_t i = lp->first; i < lp->first + lp->n; i++)
			total += (size_t)lp->reps * per[i] * (first[i + 1] - first[i]);
	}
	struct span *v = xmalloc((total ? total : 1) * sizeof *v), *o = v;
	uint32_t *pieces = st == STREAM_COMPUTE ? xmalloc((total ? total : 1) * sizeof *pieces) : NULL, *op = pieces;
	for (size_t l = 0; l < p->nloops[st]; l++) {
		const struct loop *lp = &p->loops[st][l];
		for (uint32_t pass = 0; pass < lp->reps; pass++)
			for (uint32_t i = lp->first; i < lp->first + lp->n; i++)
				for (uint32_t r = 0; r < per[i]; r++) {
					int64_t at = (int64_t)pass + r;  /* the pass of ids that step (those that do not: 0 steps) */
					for (size_t c = first[i]; c < first[i + 1]; c++) {
						*o = t.v[c].sp;
						o->eoff = (int32_t)(at * t.v[c].step[0]);
						o->soff = (int32_t)(at * t.v[c].step[1]);
						o++;
						if (op)
							*op++ = i;
					}
				}
	}
	free(t.v);
	free(first);
	free(per);
	free(p->spans[st]);
	p->spans[st] = v;
	p->nspans[st] = total;
	if (st == STREAM_COMPUTE) {
		free(p->span_piece);
		p->span_piece = pieces;
	}
}

/* The work of a program's streams but its compute stream (collectives, transfers, copies), in seconds, summed
 * over their loops in order. */
static double other_streams(const struct program *p)
{
	double w = 0;
	for (int k = 1; k < NSTREAMS; k++)
		for (size_t l = 0; l < p->nloops[k]; l++) {
			const struct loop *lp = &p->loops[k][l];
			for (size_t i = lp->first; i < lp->first + lp->n; i++)
				for (uint32_t j = 0; j < p->pieces[k][i].n; j++)
					w += p->ins[k][p->pieces[k][i].off + j].dur * p->pieces[k][i].reps * (double)lp->reps;
		}
	return w;
}

/* Store stream st (not the compute stream) as it runs: every instruction its spans run, in order, with its id in
 * its pass; its pieces, loops and spans then walk that list once (cut where n does not fit a span's 16 bits). A
 * send stream's micro-batches are a span each otherwise: the engine would step spans every third instruction. */
static void flatten(struct program *p, int st)
{
	size_t n = p->count[st], at = 0, nchunks = (n + UINT16_MAX - 1) / UINT16_MAX;
	struct instr *ins = xmalloc((n ? n : 1) * sizeof *ins);
	for (size_t i = 0; i < p->nspans[st]; i++) {
		const struct span *sp = &p->spans[st][i];
		for (uint32_t r = 0; r < sp->reps; r++)
			for (uint32_t j = 0; j < sp->n; j++, at++) {
				ins[at] = p->ins[st][sp->off + j];
				int k = id_class(&ins[at]);
				ins[at].arg += k < 0 ? 0 : k == 0 ? sp->eoff : sp->soff;
				ins[at].astep = 0;
			}
	}
	free(p->ins[st]);
	p->ins[st] = ins;
	p->n[st] = p->cap[st] = n;
	p->pieces[st] = xrealloc(p->pieces[st], (nchunks ? nchunks : 1) * sizeof *p->pieces[st]);
	p->spans[st] = xrealloc(p->spans[st], (nchunks ? nchunks : 1) * sizeof *p->spans[st]);
	for (size_t c = 0; c < nchunks; c++) {
		uint32_t off = (uint32_t)(c * UINT16_MAX), len = n - off < UINT16_MAX ? (uint32_t)(n - off) : UINT16_MAX;
		p->pieces[st][c] = (struct piece){ off, len, 1 };
		p->spans[st][c] = (struct span){ off, (uint16_t)len, 1, 0, 0 };
	}
	p->npieces[st] = p->cappieces[st] = p->sealed[st] = nchunks;
	p->nspans[st] = nchunks;
	p->nloops[st] = nchunks > 0;
	if (nchunks)
		p->loops[st][0] = (struct loop){ 0, (uint32_t)nchunks, 1 };
}

void program_make_spans(struct program *p)
{
	p->other_s = other_streams(p);
	for (int st = 0; st < NSTREAMS; st++) {
		make_stream(p, st);
		if (st != STREAM_COMPUTE && !p->keep_ops)
			flatten(p, st);
	}
}
