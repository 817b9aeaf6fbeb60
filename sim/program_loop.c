/* program_loop: a stream's micro-batch passes folded into loops (struct loop), as the builder emits them: at
 * each unit's start, the pieces sealed since the last loop opened are matched against that loop's next pass or
 * against each other. Invariants: a folded pass's copies (the instructions it stored anew) are the ones stored
 * from lo to hi, each referenced by the one piece of the pass that stored it and by no template, so letting them
 * go moves only the stream's last, unsealed piece; a loop's pass i runs its pieces' instructions with ids
 * arg + i * astep, which are exactly the ids the folded passes named; the compute stream's pieces form as in a
 * program that never folds (its last piece is never sealed at a unit's start, so a unit's first instruction
 * joins it as before), and the first guess's sums (program.work_s) add each sealed piece once, in order. */
#include <stdlib.h>
#include <string.h>
#include "sim/program.h"
#include "sim/program_internal.h"
#include "util/xalloc.h"

/* Seal the pieces that no instruction to come can change: each stream's, but for the compute stream's last
 * one (a unit's first instruction may join it, a replay may extend or split it, as in a program that does not
 * fold). The compute stream's newly sealed pieces add their passes to the first guess's sums, in order. */
void program_seal_pieces(struct program *p, int all)
{
	size_t upto = p->npieces[STREAM_COMPUTE] - (!all && p->npieces[STREAM_COMPUTE] > 0);
	for (size_t i = p->sealed[STREAM_COMPUTE]; i < upto; i++) {
		const struct piece *q = &p->pieces[STREAM_COMPUTE][i];
		const struct instr *in = &p->ins[STREAM_COMPUTE][q->off + q->n - 1];
		double w = p->pw[q->off + q->n - 1] + (in->kind == INS_COMPUTE ? in->dur : 0);
		double c = p->pcoll[q->off + q->n - 1] + (in->kind == INS_COLL ? in->dur : 0);
		p->work_s += (w - p->pw[q->off]) * q->reps;
		p->coll_s += (c - p->pcoll[q->off]) * q->reps;
	}
	if (upto > p->sealed[STREAM_COMPUTE])
		p->sealed[STREAM_COMPUTE] = upto;
	for (int st = 1; st < NSTREAMS; st++)
		p->sealed[st] = p->npieces[st];
}

static int has_id(const struct instr *in)
{
	return in->kind == INS_RECORD || in->kind == INS_WAIT || in->kind == INS_RECV || in->kind == INS_SEND;
}

/* Whether instruction b is a with its id (has_id) moved, by *d: every other field the same. */
static int same_but_id(const struct instr *a, const struct instr *b, int64_t *d)
{
	*d = 0;
	if (!has_id(a))
		return program_instr_same(a, b);
	struct instr x = *b;
	*d = (int64_t)b->arg - a->arg;
	x.arg = a->arg;
	x.astep = a->astep;
	return program_instr_same(a, &x);
}

/* Whether a template replays stored compute-stream instructions from lo on (they must stay where they are). */
static int template_holds(const struct program *p, uint32_t lo)
{
	return p->tmpl_hi > lo;
}

/* Whether a template replays stored compute-stream instruction i (then its id cannot step). */
static int template_has(const struct program *p, uint32_t i)
{
	for (int k = 0; k < p->ntmpl; k++) {
		const struct program_template *t = &p->tmpl[k];
		if ((i >= t->off && i < t->off + t->n) || (t->has_period && i >= t->period && i < t->period + 1 + t->n))
			return 1;
	}
	return 0;
}

/* Whether the n pieces from b are pass `pass` of the n pieces from a, as a loop runs them (one: n = 1, and b is
 * a's next repetition, a piece that runs once): the same stored instructions, or copies whose ids step by the
 * same amount each pass (pass 1 with set: the steps are b's, kept in a's instructions). A piece either stores new instructions at the end or replays a template's, so the copies are
 * the instructions stored from *lo to *hi, each by the one piece of b that stored it, as no template replays them;
 * the caller lets them go. The pieces after b's (at most a unit's last, not sealed) must not be in that range. */
static int same_pass(struct program *p, enum stream_kind st, size_t a, size_t b, size_t n, uint32_t pass, int set,
		     int one, uint32_t *lo, uint32_t *hi)
{
	const struct piece *pcs = p->pieces[st];
	struct instr *ins = p->ins[st];
	uint32_t l = (uint32_t)p->n[st], h = 0;
	for (size_t i = 0; i < n; i++) {
		const struct piece *x = &pcs[a + i], *y = &pcs[b + i];
		if (x->n != y->n || (one ? y->reps != 1 : x->reps != y->reps))
			return 0;
		if (x->off != y->off) {
			if (x->reps != 1 && !one)
				return 0;  /* a loop's copies run once: its pieces that repeat are templates' (program.h) */
			l = y->off < l ? y->off : l;
			h = y->off + y->n > h ? y->off + y->n : h;
		}
	}
	if (h == 0)
		l = h = (uint32_t)p->n[st];
	if (st == STREAM_COMPUTE && template_holds(p, l))
		return 0;
	for (size_t i = b + n; i < p->npieces[st]; i++)
		if (pcs[i].off < h && pcs[i].off + pcs[i].n > l)
			return 0;
	for (size_t i = 0; i < n; i++) {
		const struct piece *x = &pcs[a + i], *y = &pcs[b + i];
		if (x->off == y->off)
			continue;  /* the same stored instructions, which no loop's ids step in (only copies' do) */
		for (uint32_t j = 0; j < x->n; j++) {
			const struct instr *u = &ins[x->off + j], *v = &ins[y->off + j];
			int64_t d;
			if (!same_but_id(u, v, &d))
				return 0;
			if (set ? d < INT16_MIN || d > INT16_MAX || (d != 0 && st == STREAM_COMPUTE && template_has(p, x->off + j)) :
				  d != (int64_t)pass * u->astep)
				return 0;
		}
	}
	if (set)
		for (size_t i = 0; i < n; i++) {
			const struct piece *x = &pcs[a + i], *y = &pcs[b + i];
			for (uint32_t j = 0; x->off != y->off && j < x->n; j++)
				ins[x->off + j].astep = (int16_t)(ins[y->off + j].arg - ins[x->off + j].arg);
		}
	*lo = l;
	*hi = h;
	return 1;
}

/* Let go of the n pieces from b and of the instructions stored in [lo, hi) (same_pass's copies): the pieces and
 * instructions after them move down. */
static void drop_pass(struct program *p, enum stream_kind st, size_t b, size_t n, uint32_t lo, uint32_t hi)
{
	uint32_t gone = hi - lo;
	if (st == STREAM_COMPUTE && gone) {
		if (p->vfrom >= (long)lo && p->vfrom < (long)hi) {
			/* the first guess's sums go on from the last instruction stored, as if it were still there */
			program_next_sums(p, &p->next_pw, &p->next_pcoll);
			p->vfrom = -1;
		} else if (p->vfrom >= (long)hi) {
			p->vfrom -= gone;
		}
		memmove(p->pw + lo, p->pw + hi, (p->n[st] - hi) * sizeof *p->pw);
		memmove(p->pcoll + lo, p->pcoll + hi, (p->n[st] - hi) * sizeof *p->pcoll);
	}
	memmove(p->ins[st] + lo, p->ins[st] + hi, (p->n[st] - hi) * sizeof *p->ins[st]);
	p->n[st] -= gone;
	struct piece *pcs = p->pieces[st];
	memmove(pcs + b, pcs + b + n, (p->npieces[st] - b - n) * sizeof *pcs);
	p->npieces[st] -= n;
	p->sealed[st] -= n;
	for (size_t i = b; i < p->npieces[st]; i++)
		if (pcs[i].off >= hi)
			pcs[i].off -= gone;
}

/* Whether, after letting go of [lo, hi), the next instruction stored would join the last piece where a program
 * that does not fold would not (it replays instructions stored before lo, ending where the copies began). */
static int joins_after(const struct program *p, enum stream_kind st, uint32_t lo, uint32_t hi)
{
	const struct piece *last = &p->pieces[st][p->npieces[st] - 1];
	return st == STREAM_COMPUTE && hi > lo && hi == p->n[st] && last->off < lo && last->off + last->n == lo;
}

/* Not folded after all: the n pieces from a, whose steps same_pass set, get none again (their instructions, copies
 * no template replays, had none). */
static void unstep(struct program *p, enum stream_kind st, size_t a, size_t n, int set)
{
	for (size_t i = 0; set && i < n; i++)
		for (uint32_t j = 0; j < p->pieces[st][a + i].n; j++)
			p->ins[st][p->pieces[st][a + i].off + j].astep = 0;
}

enum { FOLD_MAX = 32 };  /* the longest pass, in pieces, looked for */

/* At a unit's start: when the last loop's first sealed pieces (it runs once) are one more pass of the loop before
 * it, that loop runs once more and they go; else when its sealed pieces end in two passes of the same pieces,
 * those become a loop of two passes. */
static void fold(struct program *p, enum stream_kind st)
{
	size_t nl = p->nloops[st];
	if (nl == 0 || p->loops[st][nl - 1].reps != 1)
		return;
	struct loop *open = &p->loops[st][nl - 1];
	size_t ns = p->sealed[st] - open->first;  /* the open loop's sealed pieces */
	uint32_t lo, hi;
	if (nl >= 2) {
		struct loop *q = open - 1;
		if (ns >= q->n && same_pass(p, st, q->first, open->first, q->n, q->reps, 0, 0, &lo, &hi) &&
		    !joins_after(p, st, lo, hi)) {
			q->reps++;
			drop_pass(p, st, open->first, q->n, lo, hi);
			if ((open->n -= q->n) == 0)
				p->nloops[st]--;
			return;
		}
		if (ns < q->n && q->n <= FOLD_MAX) {
			/* the start of another pass, so far? then wait for the rest of it */
			const struct piece *x = &p->pieces[st][q->first], *y = &p->pieces[st][open->first];
			size_t i = 0;
			while (i < ns && x[i].n == y[i].n && x[i].reps == y[i].reps)
				i++;
			if (i == ns)
				return;
		}
	}
	if (ns >= 2) {
		/* a piece that is the one before it once more (a send stream's unit): that one repeats once more */
		size_t b = p->sealed[st] - 1;
		struct piece *x = &p->pieces[st][b - 1];
		if (same_pass(p, st, b - 1, b, 1, x->reps, x->reps == 1, 1, &lo, &hi)) {
			if (joins_after(p, st, lo, hi)) {
				unstep(p, st, b - 1, 1, x->reps == 1);
				return;
			}
			x->reps++;
			drop_pass(p, st, b, 1, lo, hi);
			open->n--;
			return;
		}
	}
	for (size_t n = 2; 2 * n <= ns && n <= FOLD_MAX; n++) {
		size_t b = p->sealed[st] - n, a = b - n;
		if (!same_pass(p, st, a, b, n, 1, 1, 0, &lo, &hi))
			continue;
		if (joins_after(p, st, lo, hi)) {
			unstep(p, st, a, n, 1);
			return;
		}
		drop_pass(p, st, b, n, lo, hi);
		/* [open's pieces before a, run once] [a: n pieces, twice] [the ones after b's, run once] */
		size_t before = a - open->first, after = open->n - before - 2 * n;
		if (nl + 2 > p->caploops[st]) {
			p->caploops[st] = 2 * p->caploops[st] + 2;
			p->loops[st] = xrealloc(p->loops[st], p->caploops[st] * sizeof *p->loops[st]);
		}
		struct loop *l = &p->loops[st][nl - 1];  /* the open loop, cut in up to three */
		if (before > 0)
			(l++)->n = (uint32_t)before;
		*l++ = (struct loop){ (uint32_t)a, (uint32_t)n, 2 };
		if (after > 0)
			*l++ = (struct loop){ (uint32_t)(a + n), (uint32_t)after, 1 };
		p->nloops[st] = (size_t)(l - p->loops[st]);
		return;
	}
}

void program_fold(struct program *p, enum stream_kind st)
{
	if (p->sealed[st] == p->fold_seen[st])
		return;  /* nothing sealed since the last look */
	fold(p, st);
	p->fold_seen[st] = p->sealed[st];
}
