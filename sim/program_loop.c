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
	for (int st = 1; st < NSTREAMS && !p->keep_ops; st++)
		p->sealed[st] = p->npieces[st];  /* a unit's instructions on the other streams: pieces of their own */
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

/* What a unit's start did to a stream (fold) */
enum folded {
	FOLD_NONE,   /* nothing sealed since the last look */
	FOLD_WAIT,   /* its newest pieces begin the last loop's next pass */
	FOLD_LOOP,   /* they were that pass: the loop runs once more */
	FOLD_PIECE,  /* its newest piece repeats the one before: that one (now its last) repeats once more */
	FOLD_GREW,   /* nothing folded */
	FOLD_OTHER,  /* some other fold */
};  /* the longest pass, in pieces, looked for */

/* At a unit's start: when the last loop's first sealed pieces (it runs once) are one more pass of the loop before
 * it, that loop runs once more and they go; else when its sealed pieces end in two passes of the same pieces,
 * those become a loop of two passes. */
static enum folded fold(struct program *p, enum stream_kind st)
{
	size_t nl = p->nloops[st];
	if (nl == 0 || p->loops[st][nl - 1].reps != 1)
		return FOLD_GREW;
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
			return FOLD_LOOP;
		}
		if (ns < q->n && q->n <= FOLD_MAX) {
			/* the start of another pass, so far? then wait for the rest of it */
			const struct piece *x = &p->pieces[st][q->first], *y = &p->pieces[st][open->first];
			size_t i = 0;
			while (i < ns && x[i].n == y[i].n && x[i].reps == y[i].reps)
				i++;
			if (i == ns)
				return FOLD_WAIT;
		}
	}
	if (ns >= 2) {
		/* a piece that is the one before it once more (a send stream's unit): that one repeats once more */
		size_t b = p->sealed[st] - 1;
		struct piece *x = &p->pieces[st][b - 1];
		if (same_pass(p, st, b - 1, b, 1, x->reps, x->reps == 1, 1, &lo, &hi)) {
			if (joins_after(p, st, lo, hi)) {
				unstep(p, st, b - 1, 1, x->reps == 1);
				return FOLD_GREW;
			}
			x->reps++;
			drop_pass(p, st, b, 1, lo, hi);
			open->n--;
			return b == p->npieces[st] ? FOLD_PIECE : FOLD_OTHER;
		}
	}
	for (size_t n = 2; 2 * n <= ns && n <= FOLD_MAX; n++) {
		size_t b = p->sealed[st] - n, a = b - n;
		if (!same_pass(p, st, a, b, n, 1, 1, 0, &lo, &hi))
			continue;
		if (joins_after(p, st, lo, hi)) {
			unstep(p, st, a, n, 1);
			return FOLD_GREW;
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
		return FOLD_OTHER;
	}
	return FOLD_GREW;
}

/* Whether the compute stream's last loop can go on from here by whole passes (program_skip): it is only its last
 * piece (a unit's end, not sealed: the next unit's first instruction joins it), stored anew, the start of the loop
 * before's first piece in its next pass. */
static int loop_resumes(struct program *p)
{
	enum stream_kind st = STREAM_COMPUTE;
	size_t nl = p->nloops[st], np = p->npieces[st];
	if (nl < 2 || p->loops[st][nl - 1].n != 1 || p->sealed[st] != np - 1)
		return 0;
	const struct loop *q = &p->loops[st][nl - 2];
	const struct piece *last = &p->pieces[st][np - 1], *x = &p->pieces[st][q->first];
	if (last->reps != 1 || x->reps != 1 || last->n >= x->n || template_holds(p, last->off) ||
	    template_has(p, x->off))
		return 0;
	for (uint32_t j = 0; j < last->n; j++) {
		int64_t d;
		const struct instr *u = &p->ins[st][x->off + j];
		if (!same_but_id(u, &p->ins[st][last->off + j], &d) || d != (int64_t)q->reps * u->astep)
			return 0;
	}
	return 1;
}

/* The end of a pass (the compute stream's loop ran once more): it is steady when it and the pass before changed
 * nothing but that, each other stream's last piece's repetitions and the counts, alike. */
static void pass_end(struct program *p)
{
	struct program_pass *now = &p->pass, *before = &p->last_pass;
	for (int st = 0; st < NSTREAMS; st++) {
		now->count[st] = p->count[st] - p->count_at[st];
		p->count_at[st] = p->count[st];
	}
	now->events = p->nevents - p->events_at;
	p->events_at = p->nevents;
	p->steady = !now->other && !before->other && before->units == now->units && before->events == now->events &&
		    memcmp(before->count, now->count, sizeof now->count) == 0 &&
		    memcmp(before->reps, now->reps, sizeof now->reps) == 0 && loop_resumes(p);
	*before = *now;
	memset(now, 0, sizeof *now);
}

void program_fold_all(struct program *p)
{
	p->steady = 0;
	p->pass.units++;
	if (p->keep_ops || p->rec_on) {
		p->pass.other = 1;  /* a timeline's ops are per stored instruction: nothing folds */
		return;
	}
	for (int st = NSTREAMS - 1; st >= 0; st--) {  /* the compute stream last: it may end the pass */
		enum folded f = FOLD_NONE;
		if (p->sealed[st] != p->fold_seen[st])  /* something sealed since the last look */
			f = fold(p, st);
		p->fold_seen[st] = p->sealed[st];
		if (st != STREAM_COMPUTE ? f == FOLD_PIECE : f == FOLD_LOOP || f == FOLD_WAIT || f == FOLD_NONE)
			p->pass.reps[st] += st != STREAM_COMPUTE;
		else if (f != FOLD_NONE)
			p->pass.other = 1;
		if (st == STREAM_COMPUTE && f == FOLD_LOOP)
			pass_end(p);
	}
}

int program_steady(const struct program *p)
{
	return p->steady ? (int)p->last_pass.units : 0;
}

/* The first guess's sums (program.work_s) over k passes of the compute stream's loop q from the one that its last
 * piece begins: the prefix sums go on over each pass's new instructions (its pieces stored anew, in order) as they
 * would have been stored, and each piece adds its passes, so the sums are the same to the bit. */
static void skip_sums(struct program *p, const struct loop *q, struct piece *last, uint32_t k)
{
	const struct piece *pcs = p->pieces[STREAM_COMPUTE] + q->first;
	const struct instr *ins = p->ins[STREAM_COMPUTE];
	/* per piece of a pass: a template's run (-1, its sums fixed) or where its new instructions start in f */
	long *at = xmalloc(q->n * sizeof *at);
	size_t m = 0;
	for (uint32_t i = 0; i < q->n; i++) {
		at[i] = template_has(p, pcs[i].off) ? -1 : (long)m;
		m += at[i] < 0 ? 0 : pcs[i].n;
	}
	double *w = xmalloc(2 * m * sizeof *w), *c = w + m, rw, rc;
	double *xw = xmalloc(2 * m * sizeof *xw), *xc = xw + m;  /* each new instruction's own part of the sums */
	for (uint32_t i = 0; i < q->n; i++)
		for (uint32_t t = 0; at[i] >= 0 && t < pcs[i].n; t++) {
			const struct instr *in = &ins[pcs[i].off + t];
			xw[at[i] + t] = in->kind == INS_COMPUTE ? in->dur : 0;
			xc[at[i] + t] = in->kind == INS_COLL ? in->dur : 0;
		}
	size_t l0 = last->n;
	for (size_t i = 0; i < l0; i++) {
		w[i] = p->pw[last->off + i];
		c[i] = p->pcoll[last->off + i];
	}
	program_next_sums(p, &rw, &rc);
	for (uint32_t pass = 0; pass < k; pass++) {
		for (size_t i = l0; i < m; i++) {
			w[i] = rw;
			c[i] = rc;
			rw = w[i] + xw[i];
			rc = c[i] + xc[i];
		}
		for (uint32_t i = 0; i < q->n; i++) {
			const struct piece *x = &pcs[i];
			if (at[i] < 0) {
				const struct instr *in = &ins[x->off + x->n - 1];
				p->work_s += (p->pw[x->off + x->n - 1] + (in->kind == INS_COMPUTE ? in->dur : 0) - p->pw[x->off]) *
					     x->reps;
				p->coll_s += (p->pcoll[x->off + x->n - 1] + (in->kind == INS_COLL ? in->dur : 0) -
					      p->pcoll[x->off]) * x->reps;
				continue;
			}
			size_t j = (size_t)at[i], e = j + x->n - 1;
			p->work_s += (w[e] + xw[e] - w[j]) * x->reps;
			p->coll_s += (c[e] + xc[e] - c[j]) * x->reps;
		}
		for (size_t i = 0; i < l0; i++) {  /* the next pass's start: the last piece, stored again */
			w[i] = rw;
			c[i] = rc;
			rw = w[i] + xw[i];
			rc = c[i] + xc[i];
		}
	}
	for (size_t i = 0; i < l0; i++) {
		p->pw[last->off + i] = w[i];
		p->pcoll[last->off + i] = c[i];
	}
	p->next_pw = rw;
	p->next_pcoll = rc;
	p->vfrom = -1;
	free(xw);
	free(w);
	free(at);
}

void program_skip(struct program *p, uint32_t k)
{
	int cs = STREAM_COMPUTE;
	struct loop *q = &p->loops[cs][p->nloops[cs] - 2];
	struct piece *last = &p->pieces[cs][p->npieces[cs] - 1];
	skip_sums(p, q, last, k);
	for (uint32_t j = 0; j < last->n; j++)  /* the last piece's ids, k passes on */
		p->ins[cs][last->off + j].arg += (int32_t)k * p->ins[cs][p->pieces[cs][q->first].off + j].astep;
	q->reps += k;
	for (int st = 0; st < NSTREAMS; st++) {
		if (st != cs && p->last_pass.reps[st])
			p->pieces[st][p->npieces[st] - 1].reps += k * p->last_pass.reps[st];
		p->count[st] += k * p->last_pass.count[st];
		p->count_at[st] = p->count[st];
	}
	p->nevents += (int)k * p->last_pass.events;
	p->events_at = p->nevents;
	memset(&p->pass, 0, sizeof p->pass);
	p->steady = 0;
}
