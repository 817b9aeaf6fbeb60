/* steady: passes taken as translations in time (see steady.h).
 * The check is that the state b at this checkpoint is T(a), a at the last one, for a map T that commutes with the
 * engine's steps for the passes it applies: times dt later; a stream that moved is at the same instruction of the
 * same span one repetition (MOVE_REP) or one loop pass (MOVE_PASS) on, and every id its pass names steps by its
 * rank's event step E or its receiver's slot step S (checked on the program's spans, so the next passes are the same
 * instructions with ids one step on, as long as its span or loop has passes left); a stream that did not move is
 * blocked on an id no pass reaches, or done; the events recorded and the transfers landed are a's one step on
 * (what a pass reads is a's one step on: pass j reads ids j steps on, so the ones below a step are never read
 * again); the pending events are a's, dt later, in the same order; a rank's host clock dt later, or so far behind
 * that it never binds (host_moved). Then the k next passes are T applied k times: times k*dt later, cursors k on,
 * the ids each pass recorded and the slots it filled each step further, the accounts and the event count k times
 * the pass's growth. */
#include "sim/steady.h"

#include <stdlib.h>
#include <string.h>
#include "sim/engine.h"
#include "util/xalloc.h"

/* Checkpoints compared before giving up, beyond two a stage: the last stage reaches its steady state about as
 * many of the first stage's passes after it as there are stages (the shipped 1F1B runs that repeat did so by the
 * 29th checkpoint at 16 stages, the 5th at 4, and a single stage by the 11th). */
enum { STEADY_SPARE_TRIES = 16 };
enum { MOVE_NONE, MOVE_REP, MOVE_PASS };
#define STEP_UNSET INT32_MIN

struct steady {
	int tries, off, have;
	int full;                      /* the snapshot holds the events recorded and the mailboxes (the costly part,
	                                * kept once the rest has repeated from one checkpoint to the next) */
	long applied;                  /* passes applied (steady_applied) */
	int64_t now;
	long long events;
	struct steady_view a;          /* the view's tables at the last checkpoint (TABLES), in buf and full_buf */
	char *buf, *full_buf;
	struct event ev[EVENTQ_SMALL];
	int nev;
	/* the comparison's findings: per rank the event and slot steps of a pass, per stream how it moved */
	int32_t *E, *S, *low_ev, *low_slot;
	uint8_t *move;
};

static size_t n_ranks(const struct steady_view *v) { return (size_t)v->nranks; }
static size_t n_streams(const struct steady_view *v) { return (size_t)v->nranks * NSTREAMS; }
static size_t n_links(const struct steady_view *v) { return (size_t)v->nranks * LINK_N; }

/* The tables a checkpoint keeps, X(field, elements) for each: the streams', the ranks' and the links' at every
 * checkpoint; the events recorded and the mailboxes (FULL_TABLES) once the rest has repeated. */
#define TABLES(X, v)                                                                                           \
	X(pc, n_streams(v)) X(state, n_streams(v)) X(busy_from, n_streams(v)) X(busy_until, n_streams(v))     \
	X(arrive, n_streams(v)) X(block_id, n_streams(v)) X(acc, n_ranks(v) * ACC_N) X(idle_since, n_ranks(v)) \
	X(host_t, n_ranks(v)) X(side_t, n_ranks(v)) X(run_comp, n_ranks(v)) X(block_cat, n_ranks(v))           \
	X(block_slot, n_ranks(v)) X(waiting, n_ranks(v)) X(link_busy, n_links(v)) X(link_nwait, n_links(v))   \
	X(link_wait, 2 * n_links(v)) X(link_start, n_links(v))
#define FULL_TABLES(X, v) X(ev_done, n_ranks(v) * (v)->evwords + 1) X(mb_done, n_ranks(v) * (v)->slotwords + 1)
/* a table's bytes in a snapshot's buffer, 8-aligned; its place there; its copy from the view */
#define TABLE_BYTES(field, n) + (((n) * sizeof *st->a.field + 7) & ~(size_t)7)
#define TABLE_PLACE(field, n) st->a.field = (void *)p; p += ((n) * sizeof *st->a.field + 7) & ~(size_t)7;
#define TABLE_COPY(field, n) memcpy(st->a.field, v->field, (n) * sizeof *v->field);

struct steady *steady_new(const struct steady_view *v)
{
	struct steady *st = xcalloc(1, sizeof *st);
	char *p = st->buf = xmalloc(0 TABLES(TABLE_BYTES, v));
	TABLES(TABLE_PLACE, v)
	st->E = xcalloc(n_ranks(v), sizeof(int32_t));
	st->S = xcalloc(n_ranks(v), sizeof(int32_t));
	st->low_ev = xcalloc(n_ranks(v), sizeof(int32_t));
	st->low_slot = xcalloc(n_ranks(v), sizeof(int32_t));
	st->move = xcalloc(n_streams(v), 1);
	return st;
}

void steady_reset(struct steady *st)
{
	st->tries = st->off = st->have = st->full = 0;
	st->applied = 0;
}

void steady_free(struct steady *st)
{
	if (!st)
		return;
	free(st->buf); free(st->full_buf);
	free(st->E); free(st->S); free(st->low_ev); free(st->low_slot); free(st->move);
	free(st);
}

/* Keep the view's state as this checkpoint's (with st->full, its events recorded and mailboxes too). */
static void snapshot(struct steady *st, const struct steady_view *v, int64_t now)
{
	TABLES(TABLE_COPY, v)
	if (st->full) {
		if (!st->full_buf) {  /* first needed here: a run that never repeats never touches them (page faults) */
			char *p = st->full_buf = xmalloc(0 FULL_TABLES(TABLE_BYTES, v));
			FULL_TABLES(TABLE_PLACE, v)
		}
		FULL_TABLES(TABLE_COPY, v)
	}
	st->nev = eventq_small_events(v->q, st->ev);
	st->now = now;
	st->events = *v->events;
	st->have = 1;
}

/* A step that x takes, or has taken: 0 when it took another (or a negative one). */
static int unify(int32_t *x, int32_t step)
{
	if (*x == STEP_UNSET)
		*x = step;
	return *x == step && step >= 0;
}

/* Rank r's pass (struct steady's E, S, low_ev, low_slot): every id that spans [f, e) of stream k of program p name
 * steps alike, and the least event id a wait reads and mailbox slot a receive reads from cursor a one pass on is
 * no lower than low_ev and low_slot. base: whether the spans' ids are as in pass 0 of their loop, to be stepped
 * pass times (MOVE_PASS), or a's own (MOVE_REP: its one span, at a's repetition). */
static int pass_steps(struct steady *st, const struct program *p, int k, int r, uint32_t f, uint32_t e,
		      const struct program_cursor *a, int base)
{
	for (uint32_t j = f; j < e; j++) {
		const struct span *sp = &p->spans[k][j];
		const struct instr *in = p->ins[k] + sp->off, *end = in + sp->n;
		int32_t eoff = base ? sp->eoff + (int32_t)a->lrep * sp->estep : a->eoff;
		int32_t soff = base ? sp->soff + (int32_t)a->lrep * sp->sstep : a->soff;
		for (; in < end; in++) {
			int ok = 1;
			if (in->kind == INS_RECORD || in->kind == INS_WAIT)
				ok = unify(&st->E[r], sp->estep);
			else if (in->kind == INS_RECV)
				ok = unify(&st->S[r], sp->sstep);
			else if (in->kind == INS_SEND)
				ok = unify(&st->S[in->dest], sp->sstep);
			if (!ok)
				return 0;
			if (in->kind == INS_WAIT && in->arg + eoff < st->low_ev[r])
				st->low_ev[r] = in->arg + eoff;
			if (in->kind == INS_RECV && in->arg + soff < st->low_slot[r])
				st->low_slot[r] = in->arg + soff;
		}
	}
	return 1;
}

/* How stream k of rank r moved from cursor a to b (MOVE_*), -1 when not by one repetition or loop pass whose ids
 * step alike (pass_steps); *left: the passes after b that the same span or loop still holds, beyond one spare
 * (for a fused run's look at the next instruction). */
static int classify(struct steady *st, const struct program *p, int k, int r, const struct program_cursor *a,
		    const struct program_cursor *b, long *left)
{
	if (a->in == b->in && a->span == b->span && a->rep == b->rep && a->lrep == b->lrep)
		return MOVE_NONE;
	if (!b->in || a->in != b->in || a->span != b->span)
		return -1;
	const struct span *sp = &p->spans[k][b->span];
	uint32_t f, e;
	int mv;
	if (b->rep == a->rep + 1 && b->lrep == a->lrep) {
		f = b->span;
		e = f + 1;
		*left = (long)sp->reps - 2 - b->rep;
		mv = MOVE_REP;
	} else if (b->rep == a->rep && b->lrep == a->lrep + 1) {
		for (e = b->span; p->spans[k][e].n; e++)
			;
		const struct span *end = &p->spans[k][e];  /* the loop's end: its passes, its pass's first span */
		if (!end->reps || end->off > b->span)
			return -1;
		f = end->off;
		*left = (long)end->reps - 2 - b->lrep;
		mv = MOVE_PASS;
	} else {
		return -1;
	}
	if (b->eoff - a->eoff != sp->estep || b->soff - a->soff != sp->sstep ||
	    !pass_steps(st, p, k, r, f, e, a, mv == MOVE_PASS))
		return -1;
	return mv;
}

static inline int bit(const uint64_t *w, long x)
{
	return (int)(w[x / 64] >> (x % 64) & 1);
}

/* Whether a stream at instruction in (stream k) waits in a collective, timed from its arrival (engine.c's
 * arrive): a TP collective on the compute stream is part of a fused run instead (one member). */
static int in_collective(const struct instr *in, int k)
{
	return in->kind == INS_COLL && !(k == STREAM_COMPUTE && in->group == GROUP_TP);
}

/* The streams: how each moved, their times dt later; the most passes their spans and loops leave, 0 if not a
 * translation. */
static long streams_moved(struct steady *st, const struct steady_view *v, int64_t dt)
{
	long kmax = 1L << 30;
	int moved = 0;
	for (int r = 0; r < v->nranks; r++)
		for (int k = 0; k < NSTREAMS; k++) {
			size_t i = (size_t)r * NSTREAMS + k;
			const struct program_cursor *a = &st->a.pc[i], *b = &v->pc[i];
			long left = kmax;
			if (st->a.state[i] != v->state[i] || v->state[i] == STEADY_RUN)
				return 0;
			int mv = classify(st, v->prog_of[r], k, r, a, b, &left);
			if (mv < 0)
				return 0;
			st->move[i] = (uint8_t)mv;
			if (mv == MOVE_NONE) {  /* done, or blocked at a wait or a receive (steady_pass checks its id) */
				if (v->state[i] != STEADY_DONE &&
				    (v->state[i] != STEADY_BLOCKED || !(v->waiting[r] & (0x101u << k))))
					return 0;
				continue;
			}
			moved = 1;
			kmax = left < kmax ? left : kmax;
			if (v->state[i] == STEADY_BUSY &&
			    (v->busy_from[i] != st->a.busy_from[i] + dt || v->busy_until[i] != st->a.busy_until[i] + dt))
				return 0;
			if (in_collective(b->in, k) && v->arrive[i] != st->a.arrive[i] + dt)
				return 0;
		}
	return moved ? kmax : 0;
}

/* Whether a rank's host clock moved from ha to hb in a pass of dt from the checkpoint at now_a as the next passes
 * will move it: dt later (the host paces the GPU), or by its own work per pass H < dt while so far behind the GPU
 * that no host term can bind in this pass or a later one (the host issues ahead of the GPU and never waits for it,
 * so it falls further behind each pass). A host term of a run adds at most the run's host work and GPU time to the
 * host clock (tmap_host_terms, composed), under one pass of each; twice that margin covers the ticks' rounding. */
static int host_moved(int64_t ha, int64_t hb, int64_t now_a, int64_t dt)
{
	int64_t H = hb - ha;
	return H == dt || (H >= 0 && H < dt && now_a - hb >= 2 * (dt + H));
}

/* Each rank's own clocks and links dt later, its blocking alike. */
static int ranks_moved(const struct steady *st, const struct steady_view *v, int64_t dt)
{
	for (int r = 0; r < v->nranks; r++) {
		if (st->move[(size_t)r * NSTREAMS + STREAM_COMPUTE] == MOVE_NONE)
			return 0;
		if (v->waiting[r] != st->a.waiting[r] || v->block_cat[r] != st->a.block_cat[r] ||
		    v->run_comp[r] != st->a.run_comp[r] ||
		    v->idle_since[r] != st->a.idle_since[r] + dt || !host_moved(st->a.host_t[r], v->host_t[r], st->now, dt))
			return 0;
		/* a side channel never used stays at 0 (its waits never wait); else it moves */
		if (!(v->side_t[r] == 0 && st->a.side_t[r] == 0) && v->side_t[r] != st->a.side_t[r] + dt)
			return 0;
		if (v->block_cat[r] >= 0 && v->block_slot[r] >= 0 &&
		    (st->a.block_slot[r] < 0 || v->block_slot[r] - st->a.block_slot[r] != st->S[r]))
			return 0;
		for (int l = 0; l < LINK_N; l++) {
			size_t j = (size_t)r * LINK_N + l;
			if (v->link_busy[j] != st->a.link_busy[j] || v->link_nwait[j] != st->a.link_nwait[j] ||
			    memcmp(&v->link_wait[j * 2], &st->a.link_wait[j * 2], v->link_nwait[j]) ||
			    (v->link_busy[j] && v->link_start[j] != st->a.link_start[j] + dt))
				return 0;
		}
	}
	return 1;
}

/* The pending events: a's, dt later, in the same order. */
static int events_moved(const struct steady *st, const struct steady_view *v, int64_t dt)
{
	struct event ev[EVENTQ_SMALL];
	int n = eventq_small_events(v->q, ev);
	if (n < 0 || st->nev != n)
		return 0;
	for (int i = 0; i < n; i++)
		if (ev[i].t != st->ev[i].t + dt || ev[i].kind != st->ev[i].kind || ev[i].what != st->ev[i].what)
			return 0;
	return 1;
}

/* The 64 bits of w from bit pos on (pos >= 0): w holds a word past them (ev_done keeps a spare one at its end). */
static inline uint64_t bits_at(const uint64_t *w, long pos)
{
	long i = pos / 64, o = pos % 64;
	return o ? w[i] >> o | w[i + 1] << (64 - o) : w[i];
}

/* Bits [lo, n) of b are bits [lo - step, n - step) of a, and none of a's past n - step is set (lo >= step >= 0). */
static int bits_moved(const uint64_t *a, const uint64_t *b, long lo, long n, long step)
{
	for (long x = lo; x < n; x += 64) {
		uint64_t diff = bits_at(b, x) ^ bits_at(a, x - step);
		if (n - x < 64)
			diff &= (1ull << (n - x)) - 1;
		if (diff)
			return 0;
	}
	for (long x = n - step > 0 ? n - step : 0; x < n; x++)
		if (bit(a, x))
			return 0;
	return 1;
}

/* Rank r's recorded events: from one step past the least a pass's waits read (low_ev), a's one step E on (pass j
 * reads a's ids j steps on, so nothing lower is read again); none of a's past nevents - E. */
static int ids_moved(const struct steady *st, const struct steady_view *v, int r, int32_t E)
{
	const uint64_t *a = &st->a.ev_done[(size_t)r * v->evwords], *b = &v->ev_done[(size_t)r * v->evwords];
	return bits_moved(a, b, (long)st->low_ev[r] + E, v->prog_of[r]->nevents, E);
}

/* Rank r's mailbox: from one step past the least slot a pass's receives read (low_slot), the slots landed are a's one
 * step S on; none of a's past nslots - S landed. (When a slot landed is not kept: its transfer's times are read
 * only as it lands, by the receive it wakes.) */
static int slots_moved(const struct steady *st, const struct steady_view *v, int r, int32_t S)
{
	long ns = v->prog_of[r]->nslots;
	const uint64_t *a = &st->a.mb_done[(size_t)r * v->slotwords], *b = &v->mb_done[(size_t)r * v->slotwords];
	return bits_moved(a, b, (long)st->low_slot[r] + S, ns, S);
}

/* The passes k <= kmax after which no stream that did not move is woken: a wait's event, or a receive's slot,
 * is none that the next passes record or fill (those a pass did, each a step further). */
static long still_blocked(const struct steady *st, const struct steady_view *v, long kmax)
{
	for (int r = 0; r < v->nranks; r++)
		for (int k = 0; k < NSTREAMS; k++) {
			size_t i = (size_t)r * NSTREAMS + k;
			if (st->move[i] != MOVE_NONE || v->state[i] != STEADY_BLOCKED)
				continue;
			int wait = v->waiting[r] >> k & 1;
			long y = v->block_id[i], step = wait ? st->E[r] : st->S[r];
			const uint64_t *a = wait ? &st->a.ev_done[(size_t)r * v->evwords]
						 : &st->a.mb_done[(size_t)r * v->slotwords];
			const uint64_t *b = wait ? &v->ev_done[(size_t)r * v->evwords] : &v->mb_done[(size_t)r * v->slotwords];
			for (long j = 1; j <= kmax && step > 0 && y - j * step >= 0; j++) {
				long x = y - j * step;
				if (bit(b, x) && !bit(a, x))  /* fresh */
					kmax = j - 1;
			}
		}
	return kmax;
}

/* The bits of b [0, n) that a lacks (set in this pass), each also set j steps on for j = 1 .. k, below n. */
static void step_bits(uint64_t *b, const uint64_t *a, long n, long step, long k)
{
	for (long w = (n + 63) / 64 - 1; step > 0 && w >= 0; w--)  /* downwards: each sets only later bits */
		for (uint64_t d = b[w] & ~a[w]; d; d &= ~(1ull << (63 - __builtin_clzll(d)))) {
			long x = w * 64 + 63 - __builtin_clzll(d);
			for (long j = 1; j <= k && x + j * step < n; j++)
				b[(x + j * step) / 64] |= 1ull << ((x + j * step) % 64);
		}
}

/* The state k passes on: T applied k times to b (see the top). */
static int64_t apply(const struct steady *st, const struct steady_view *v, long k, int64_t dt)
{
	int64_t T = k * dt;
	for (size_t i = 0; i < n_streams(v); i++) {
		struct program_cursor *c = &v->pc[i];
		const struct program_cursor *a = &st->a.pc[i];
		if (st->move[i] == MOVE_NONE)
			continue;
		int32_t de = c->eoff - a->eoff, ds = c->soff - a->soff;
		if (st->move[i] == MOVE_REP)
			c->rep = (uint16_t)(c->rep + k);
		else
			c->lrep = (uint16_t)(c->lrep + k);
		c->eoff += (int32_t)k * de;
		c->soff += (int32_t)k * ds;
		if (v->state[i] == STEADY_BUSY) {
			v->busy_from[i] += T;
			v->busy_until[i] += T;
		}
		if (in_collective(c->in, (int)(i % NSTREAMS)))
			v->arrive[i] += T;
		if (v->state[i] == STEADY_BLOCKED)
			v->block_id[i] += (int32_t)k * (v->block_id[i] - st->a.block_id[i]);
	}
	for (int r = 0; r < v->nranks; r++) {
		v->idle_since[r] += T;
		v->host_t[r] += k * (v->host_t[r] - st->a.host_t[r]);
		if (v->side_t[r])
			v->side_t[r] += T;
		if (v->block_cat[r] >= 0 && v->block_slot[r] >= 0)
			v->block_slot[r] += (int32_t)k * st->S[r];
		for (int j = 0; j < ACC_N; j++) {
			int64_t *x = &v->acc[(size_t)r * ACC_N + j];
			*x += k * (*x - st->a.acc[(size_t)r * ACC_N + j]);
		}
		for (int l = 0; l < LINK_N; l++)
			if (v->link_busy[(size_t)r * LINK_N + l])
				v->link_start[(size_t)r * LINK_N + l] += T;
		/* the events each pass recorded, and the transfers it landed, each a step further */
		step_bits(&v->ev_done[(size_t)r * v->evwords], &st->a.ev_done[(size_t)r * v->evwords],
			  v->prog_of[r]->nevents, st->E[r], k);
		step_bits(&v->mb_done[(size_t)r * v->slotwords], &st->a.mb_done[(size_t)r * v->slotwords],
			  v->prog_of[r]->nslots, st->S[r], k);
	}
	eventq_shift(v->q, T);
	*v->events += k * (*v->events - st->events);
	return T;
}

int64_t steady_pass(struct steady *st, const struct steady_view *v, int64_t now)
{
	if (st->off)
		return 0;
	long k = 0;
	int64_t dt = now - st->now;
	if (st->have && dt > 0) {
		for (int r = 0; r < v->nranks; r++) {
			st->E[r] = st->S[r] = STEP_UNSET;
			st->low_ev[r] = st->low_slot[r] = INT32_MAX;
		}
		k = streams_moved(st, v, dt);
		if (k > 0 && !(ranks_moved(st, v, dt) && events_moved(st, v, dt)))
			k = 0;
		int full = st->full;
		for (int r = 0; k > 0 && r < v->nranks; r++) {
			int32_t E = st->E[r] == STEP_UNSET ? 0 : st->E[r], S = st->S[r] == STEP_UNSET ? 0 : st->S[r];
			st->E[r] = E;
			st->S[r] = S;
			if (full && (!ids_moved(st, v, r, E) || !slots_moved(st, v, r, S)))
				k = 0;
		}
		if (k > 0 && full)
			k = still_blocked(st, v, k);
		if (k > 0 && full) {
			st->off = 1;
			st->applied = k;
			return apply(st, v, k, dt);
		}
		/* the streams, clocks and events repeat: keep the events recorded and the mailboxes too this time */
		st->full = k > 0;
	}
	if (++st->tries > 2 * v->nranks + STEADY_SPARE_TRIES || eventq_small_events(v->q, st->ev) < 0)
		st->off = 1;
	else
		snapshot(st, v, now);
	return 0;
}

long steady_applied(const struct steady *st)
{
	return st ? st->applied : 0;
}
