/* program_span: a program's loops made into what the engine walks: at the program's end (program_seal) each
 * stream's pieces become spans (struct span), a loop's pass once, followed by its loop's end; for a program many
 * ranks walk (program_flatten) the compute stream's loops are then expanded, a span per piece and pass, and the
 * other streams, a few instructions a micro-batch, stored as they run. Invariants: a stream's spans run, in order,
 * exactly the instructions its loops run, each record, wait, receive and send with the id of its pass
 * (arg + pass * astep, the pass being the loop's pass plus the piece's repetition, struct loop); within a span
 * every event id steps alike and every slot steps alike, so one offset per class names them, and a repetition or
 * a pass of its loop adds one step per class to them; a loop's end (n 0) follows its pass's spans, off naming the
 * first, reps its passes, and a span of n 0 and reps 0 is the stream's last (spans[nspans]); no other span has
 * n 0; the compute stream's span_piece[i] is the piece span i runs whole, or PROGRAM_SPAN_PART when it runs a part
 * of one (or is a loop's end), and span_loop[i] (NULL when no loop runs more than once) the first span of its
 * loop's pass; a stream stored as it runs is one loop of pieces of one repetition, each a span, whose ids are its
 * instructions' own. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sim/program.h"
#include "sim/program_internal.h"
#include "util/xalloc.h"

/* One span of a loop's pass, as the pass's template: in pass i its first repetition's event ids are
 * arg + (i + at) * sp.estep and its slots arg + (i + at) * sp.sstep (at: the piece's repetition it starts at). */
struct tspan {
	struct span sp;
	uint32_t piece, at;
};

struct tlist {
	struct tspan *v;
	size_t n, cap;
};

/* A record or wait names an event (0), a receive or send a mailbox slot (1); -1 for the rest. */
static int id_class(const struct instr *in)
{
	if (in->kind == INS_RECORD || in->kind == INS_WAIT)
		return 0;
	return in->kind == INS_RECV || in->kind == INS_SEND ? 1 : -1;
}

/* Append instructions [off, off + n) of piece `piece` run reps times, cut where n or reps do not fit a span's 16
 * bits (a longer run's passes one by one). */
static void push_tspan(struct tlist *o, uint32_t off, uint32_t n, uint32_t reps, uint32_t piece, uint32_t at,
		       const int16_t step[2])
{
	if (n > UINT16_MAX) {
		for (uint32_t r = 0; r < reps; r++)
			for (uint32_t j = 0; j < n; j += UINT16_MAX)
				push_tspan(o, off + j, n - j < UINT16_MAX ? n - j : UINT16_MAX, 1, piece, at + r, step);
		return;
	}
	for (; reps > UINT16_MAX; reps -= UINT16_MAX, at += UINT16_MAX)
		push_tspan(o, off, n, UINT16_MAX, piece, at, step);
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 16;
		o->v = xrealloc(o->v, o->cap * sizeof *o->v);
	}
	o->v[o->n++] = (struct tspan){ { off, (uint16_t)n, (uint16_t)reps, 0, 0, step[0], step[1] }, piece, at };
}

/* After piece_template: the new templates' piece, PROGRAM_SPAN_PART where they run a part of it. */
static void mark_parts(const struct piece *pc, struct tlist *o, size_t from)
{
	for (size_t i = from; i < o->n; i++)
		if (o->v[i].sp.off != pc->off || o->v[i].sp.n != pc->n)
			o->v[i].piece = PROGRAM_SPAN_PART;
}

/* Where piece pc's run of instructions from j0 stops stepping alike (its event ids, or its slots, step by another
 * amount), and the steps up to there. */
static uint32_t cut_end(const struct instr *ins, const struct piece *pc, uint32_t j0, int16_t step[2])
{
	int seen[2] = { 0, 0 };
	uint32_t j;
	step[0] = step[1] = 0;
	for (j = j0; j < pc->n; j++) {
		int k = id_class(&ins[j]);
		if (k < 0)
			continue;
		if (seen[k] && ins[j].astep != step[k])
			break;
		seen[k] = 1;
		step[k] = ins[j].astep;
	}
	return j;
}

/* Piece i's part of its loop's pass template: one span of its repetitions, unless n or reps need cutting or its
 * event ids or its slots do not step alike; then each repetition's spans, cut where they stop. */
static void piece_template(const struct program *p, enum stream_kind st, uint32_t i, struct tlist *o)
{
	const struct piece *pc = &p->pieces[st][i];
	const struct instr *ins = p->ins[st] + pc->off;
	int16_t step[2];
	if (pc->n == 0)
		return;  /* nothing to run */
	if (cut_end(ins, pc, 0, step) == pc->n) {
		push_tspan(o, pc->off, pc->n, pc->reps, i, 0, step);
		return;
	}
	for (uint32_t r = 0; r < pc->reps; r++)
		for (uint32_t j0 = 0, j; j0 < pc->n; j0 = j) {
			j = cut_end(ins, pc, j0, step);
			push_tspan(o, pc->off + j0, j - j0, 1, i, r, step);
		}
}

/* The spans being made, the piece of each (compute stream) and the loop of each (compute stream, looped). */
struct slist {
	struct span *v;
	uint32_t *piece, *loop;
	size_t n;
};

/* Append a loop's pass template t (nt spans) as its passes [pass0, pass0 + k): expanded, each pass a copy with its
 * ids; else once with the ids of pass0, then (k > 1) the span that sends the cursor back to it, its loop's end. */
static void push_passes(struct slist *o, const struct tspan *t, size_t nt, uint32_t pass0, uint32_t k, int expand)
{
	uint32_t first = (uint32_t)o->n;
	for (uint32_t pass = pass0; pass < pass0 + (expand ? k : 1); pass++)
		for (const struct tspan *x = t; x < t + nt; x++, o->n++) {
			int64_t at = (int64_t)pass + x->at;
			o->v[o->n] = x->sp;
			o->v[o->n].eoff = (int32_t)(at * x->sp.estep);
			o->v[o->n].soff = (int32_t)(at * x->sp.sstep);
			if (o->piece)
				o->piece[o->n] = x->piece;
			if (o->loop)
				o->loop[o->n] = first;
		}
	if (expand || k == 1)
		return;
	o->v[o->n] = (struct span){ first, 0, (uint16_t)k, 0, 0, 0, 0 };
	if (o->piece)
		o->piece[o->n] = PROGRAM_SPAN_PART;
	if (o->loop)
		o->loop[o->n] = first;
	o->n++;
}

/* A stream's spans (and the compute stream's piece and loop of each): each loop's pass template, once per pass
 * with its ids (expand), or once with a loop end (struct span) for each UINT16_MAX passes. */
static void stream_spans(struct program *p, enum stream_kind st, int expand)
{
	size_t total = 0, nl = p->nloops[st];
	int looped = 0;
	struct tlist t = { 0 };
	size_t *first = xmalloc((nl + 1) * sizeof *first);  /* loop l's pass template: t.v[first[l] .. first[l+1]-1] */
	for (size_t l = 0; l < nl; l++) {
		const struct loop *lp = &p->loops[st][l];
		first[l] = t.n;
		for (uint32_t i = lp->first; i < lp->first + lp->n; i++) {
			size_t from = t.n;
			piece_template(p, st, i, &t);
			mark_parts(&p->pieces[st][i], &t, from);
		}
		size_t chunks = (lp->reps + UINT16_MAX - 1) / UINT16_MAX;
		total += expand ? (size_t)lp->reps * (t.n - first[l]) : chunks * (t.n - first[l] + (lp->reps > 1));
		looped |= !expand && lp->reps > 1;
	}
	first[nl] = t.n;
	size_t cap = total + 1;  /* and the stream's end */
	struct slist o = { xmalloc(cap * sizeof *o.v), NULL, NULL, 0 };
	if (st == STREAM_COMPUTE) {
		o.piece = xmalloc(cap * sizeof *o.piece);
		o.loop = looped ? xmalloc(cap * sizeof *o.loop) : NULL;
	}
	for (size_t l = 0; l < nl; l++)
		for (uint32_t pass = 0, reps = p->loops[st][l].reps; pass < reps; pass += UINT16_MAX)
			push_passes(&o, t.v + first[l], first[l + 1] - first[l], pass,
				    reps - pass < UINT16_MAX ? reps - pass : UINT16_MAX, expand);
	o.v[o.n] = (struct span){ 0 };  /* the stream's end (struct span) */
	free(t.v);
	free(first);
	free(p->spans[st]);
	p->spans[st] = o.v;
	p->nspans[st] = o.n;
	if (st == STREAM_COMPUTE) {
		free(p->span_piece);
		free(p->span_loop);
		p->span_piece = o.piece;
		p->span_loop = o.loop;
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

/* Store stream st (not the compute stream) as it runs: every instruction its loops run, in order, with its id in
 * its pass; its pieces, loops and spans then walk that list once (cut where n does not fit a span's 16 bits). */
static void flatten(struct program *p, enum stream_kind st)
{
	size_t n = p->count[st], at = 0, nchunks = (n + UINT16_MAX - 1) / UINT16_MAX;
	struct instr *ins = xmalloc((n ? n : 1) * sizeof *ins);
	struct op_range *ranges = p->ranges[st] ? xmalloc((n ? n : 1) * sizeof *ranges) : NULL;  /* keep_ops */
	for (size_t l = 0; l < p->nloops[st]; l++) {
		const struct loop *lp = &p->loops[st][l];
		for (uint32_t pass = 0; pass < lp->reps; pass++)
			for (uint32_t i = lp->first; i < lp->first + lp->n; i++) {
				const struct piece *pc = &p->pieces[st][i];
				for (uint32_t r = 0; r < pc->reps; r++, at += pc->n) {
					memcpy(ins + at, p->ins[st] + pc->off, pc->n * sizeof *ins);
					if (ranges)
						memcpy(ranges + at, p->ranges[st] + pc->off, pc->n * sizeof *ranges);
					for (uint32_t j = 0; j < pc->n; j++)
						if (ins[at + j].astep) {  /* only ids step (same_pass) */
							ins[at + j].arg += (int32_t)(((int64_t)pass + r) * ins[at + j].astep);
							ins[at + j].astep = 0;
						}
				}
			}
	}
	free(p->ins[st]);
	free(p->ranges[st]);
	p->ins[st] = ins;
	p->ranges[st] = ranges;
	p->n[st] = p->cap[st] = n;
	size_t cap = nchunks ? nchunks : 1;
	p->pieces[st] = xrealloc(p->pieces[st], cap * sizeof *p->pieces[st]);
	p->loops[st] = xrealloc(p->loops[st], sizeof *p->loops[st]);
	free(p->spans[st]);
	p->spans[st] = xmalloc((nchunks + 1) * sizeof *p->spans[st]);
	p->spans[st][nchunks] = (struct span){ 0 };  /* the stream's end (struct span) */
	for (size_t c = 0; c < nchunks; c++) {
		uint32_t off = (uint32_t)(c * UINT16_MAX), len = n - off < UINT16_MAX ? (uint32_t)(n - off) : UINT16_MAX;
		p->pieces[st][c] = (struct piece){ off, len, 1 };
		p->spans[st][c] = (struct span){ off, (uint16_t)len, 1, 0, 0, 0, 0 };
	}
	p->npieces[st] = p->cappieces[st] = p->sealed[st] = p->fold_seen[st] = nchunks;
	p->nspans[st] = nchunks;
	p->nloops[st] = nchunks > 0;
	p->caploops[st] = 1;
	p->loops[st][0] = (struct loop){ 0, (uint32_t)nchunks, 1 };
}

void program_make_spans(struct program *p)
{
	p->other_s = other_streams(p);
	for (int st = 0; st < NSTREAMS; st++)
		stream_spans(p, (enum stream_kind)st, 0);
}

void program_flatten(struct program *p)
{
	stream_spans(p, STREAM_COMPUTE, 1);
	for (int st = 1; st < NSTREAMS; st++)
		flatten(p, (enum stream_kind)st);
}
