/* program: append-only instruction lists per stream. Invariants: at most one segment is open, it is the last
 * stored instruction of STREAM_COMPUTE and the last piece's, and its dur is the in-order sum of the times added
 * to it (each the in-order sum of a run of its ops); a stream's loops, each run reps times over its pieces, each
 * run reps times, are exactly the instructions it executes, in order, with the ids of each loop pass's records,
 * waits, receives and sends; a replayed template is an instruction-for-instruction copy of what the emitter wrote
 * the first time (the open segment it ended in is stored anew each time, as it may grow); pieces before sealed[st]
 * never change again, and only the last loop, while it runs once, takes pieces. */
#include "sim/program.h"
#include "sim/program_internal.h"

#include <stdlib.h>
#include <string.h>
#include "util/xalloc.h"

void program_init(struct program *p, int nslots, int keep_ops)
{
	memset(p, 0, sizeof *p);
	p->nslots = nslots;
	p->keep_ops = keep_ops;
	p->vfrom = -1;
}

void program_release(struct program *p)
{
	for (int s = 0; s < NSTREAMS; s++) {
		free(p->ins[s]);
		free(p->ranges[s]);
		free(p->pieces[s]);
		free(p->loops[s]);
		free(p->spans[s]);
	}
	free(p->span_piece);
	free(p->span_loop);
	free(p->pw);
	free(p->ops);
	memset(p, 0, sizeof *p);
}

static void grow_ins(struct program *p, enum stream_kind st, size_t cap)
{
	p->cap[st] = cap;
	p->ins[st] = xrealloc(p->ins[st], cap * sizeof *p->ins[st]);
	if (p->keep_ops)
		p->ranges[st] = xrealloc(p->ranges[st], cap * sizeof *p->ranges[st]);
	if (st == STREAM_COMPUTE) {  /* pw and pcoll in one block, growing */
		size_t old = p->pw ? (size_t)(p->pcoll - p->pw) : 0;
		double *b = xrealloc(p->pw, 2 * cap * sizeof *b);
		memmove(b + cap, b + old, p->n[st] * sizeof *b);
		p->pw = b;
		p->pcoll = b + cap;
	}
}

void program_reserve(struct program *p, enum stream_kind st, size_t n)
{
	if (p->cap[st] >= p->n[st] + n)
		return;
	grow_ins(p, st, p->n[st] + n);
}

/* The last piece when it may still change (unsealed, in the last loop while that runs once), else NULL. */
static struct piece *open_piece(struct program *p, enum stream_kind st)
{
	size_t np = p->npieces[st];
	if (np == 0 || np <= p->sealed[st] || p->loops[st][p->nloops[st] - 1].reps != 1)
		return NULL;
	return &p->pieces[st][np - 1];
}

static struct piece *new_piece(struct program *p, enum stream_kind st, uint32_t off, uint32_t n)
{
	if (p->npieces[st] == p->cappieces[st]) {
		p->cappieces[st] = p->cappieces[st] ? 2 * p->cappieces[st] : 64;
		p->pieces[st] = xrealloc(p->pieces[st], p->cappieces[st] * sizeof *p->pieces[st]);
	}
	size_t nl = p->nloops[st];
	if (nl == 0 || p->loops[st][nl - 1].reps != 1) {  /* a loop that repeats takes no more pieces */
		if (nl == p->caploops[st]) {
			p->caploops[st] = p->caploops[st] ? 2 * p->caploops[st] : 8;
			p->loops[st] = xrealloc(p->loops[st], p->caploops[st] * sizeof *p->loops[st]);
		}
		p->loops[st][nl] = (struct loop){ (uint32_t)p->npieces[st], 0, 1 };
		p->nloops[st] = ++nl;
	}
	p->loops[st][nl - 1].n++;
	struct piece *pc = &p->pieces[st][p->npieces[st]++];
	*pc = (struct piece){ off, n, 1 };
	return pc;
}

void program_next_sums(const struct program *p, double *w, double *c)
{
	if (p->vfrom < 0) {
		*w = p->next_pw;
		*c = p->next_pcoll;
		return;
	}
	const struct instr *in = &p->ins[STREAM_COMPUTE][p->vfrom];
	*w = p->pw[p->vfrom] + (in->kind == INS_COMPUTE ? in->dur : 0);
	*c = p->pcoll[p->vfrom] + (in->kind == INS_COLL ? in->dur : 0);
}

/* Store one instruction and run it once: it joins the last piece when that one ends where it starts. */
static struct instr *push(struct program *p, enum stream_kind st)
{
	if (p->n[st] == p->cap[st])
		grow_ins(p, st, p->cap[st] ? 2 * p->cap[st] : 64);
	if (p->keep_ops)
		p->ranges[st][p->n[st]] = (struct op_range){ 0, 0 };
	if (st != STREAM_COMPUTE)
		p->rec_on = 0;  /* a run being recorded is compute-stream instructions only: not a template */
	uint32_t off = (uint32_t)p->n[st];
	struct piece *last = open_piece(p, st);
	if (last && last->reps == 1 && last->off + last->n == off)
		last->n++;
	else
		new_piece(p, st, off, 1);
	p->count[st]++;
	if (st == STREAM_COMPUTE) {
		program_next_sums(p, &p->pw[off], &p->pcoll[off]);
		p->vfrom = off;
	}
	struct instr *in = &p->ins[st][p->n[st]++];
	memset(in, 0, sizeof *in);
	if (st == STREAM_COMPUTE && p->unit_pending) {
		in->flags |= INSF_UNIT_START;
		p->unit_pending = 0;
	}
	return in;
}

/* Run the stored instructions [off, off+n) once more: another repetition of the last piece when it is that run,
 * or of its own end when the last piece ends with it (split off first); else a piece of its own. */
static void append_run(struct program *p, enum stream_kind st, uint32_t off, uint32_t n)
{
	struct piece *last = open_piece(p, st);
	p->count[st] += n;
	if (last && last->off == off && last->n == n) {
		last->reps++;
		return;
	}
	if (last && last->reps == 1 && last->off < off && last->off + last->n == off + n) {
		last->n = off - last->off;
		new_piece(p, st, off, n)->reps = 2;
		return;
	}
	new_piece(p, st, off, n);
}


/* Drop the last stored instruction (the open segment, in the last piece: open_piece), which the caller stores
 * again elsewhere. */
static void pop_last(struct program *p, enum stream_kind st)
{
	struct piece *last = &p->pieces[st][p->npieces[st] - 1];
	if (--last->n == 0) {
		p->npieces[st]--;
		if (--p->loops[st][p->nloops[st] - 1].n == 0)
			p->nloops[st]--;
	}
	p->n[st]--;
	p->count[st]--;
	if (st == STREAM_COMPUTE) {  /* the next one stored takes its place in the sums */
		p->next_pw = p->pw[p->n[st]];
		p->next_pcoll = p->pcoll[p->n[st]];
		p->vfrom = -1;
	}
}

static void open_tail(struct program *p, const struct program_template *t)
{
	struct instr *in = push(p, STREAM_COMPUTE);
	*in = t->tail_in;
	p->open = 1;
	p->open_cat = in->cat;
}

/* Replay template t. When it starts by adding to the open segment and leaves one open (a layer after a layer),
 * the repeating unit is [that finished segment, the body]: the first replay stores it once more in a row
 * (t->period), later ones whose finished segment came out identical run it again, so a stage's layers make one
 * piece of many repetitions. */
static void replay(struct program *p, struct program_template *t)
{
	enum stream_kind st = STREAM_COMPUTE;
	if (t->merged)
		program_add_time(p, t->merge_nops, t->merge_s, t->merge_host);
	if (t->entry_open && t->tail && t->n) {
		uint32_t seg = (uint32_t)p->n[st] - 1;  /* the segment just finished */
		struct piece *last = open_piece(p, st);
		if (t->has_period && last && last->reps == 1 && program_instr_same(&p->ins[st][seg], &p->ins[st][t->period])) {
			pop_last(p, st);
			append_run(p, st, t->period, 1 + t->n);
			open_tail(p, t);
			return;
		}
		if (!t->has_period) {
			t->has_period = 1;
			t->period = seg;
			if (t->period + 1 + t->n > p->tmpl_hi)
				p->tmpl_hi = t->period + 1 + t->n;
			program_reserve(p, st, t->n);
			for (uint32_t i = 0; i < t->n; i++)
				*push(p, st) = p->ins[st][t->off + i];
			open_tail(p, t);
			return;
		}
	}
	if (t->n) {
		append_run(p, st, t->off, t->n);
		p->unit_pending = 0;
	}
	if (t->tail)
		open_tail(p, t);
}

int program_repeat_begin(struct program *p, const void *key)
{
	if (p->rec_on)
		return 0;  /* inside a run being recorded under another key: part of it */
	/* an open segment of another category is closed by the first op: not worth a template of its own */
	if (p->keep_ops || (p->open && p->open_cat != CAT_COMPUTE))
		return 0;
	for (int i = 0; i < p->ntmpl; i++) {
		struct program_template *t = &p->tmpl[i];
		if (t->key == key && t->unit_start == p->unit_pending && t->entry_open == p->open) {
			replay(p, t);
			return 1;
		}
	}
	if (p->ntmpl < PROGRAM_TEMPLATES) {
		p->rec_on = 1;
		p->rec_key = key;
		p->rec_off = (uint32_t)p->n[STREAM_COMPUTE];
		p->rec_unit = p->unit_pending;
		p->rec_open = p->open;
		p->rec_merged = 0;
	}
	return 0;
}

void program_repeat_end(struct program *p, const void *key)
{
	enum stream_kind st = STREAM_COMPUTE;
	if (!p->rec_on || p->rec_key != key)
		return;
	p->rec_on = 0;
	struct program_template *t = &p->tmpl[p->ntmpl++];
	uint32_t end = (uint32_t)p->n[st];
	memset(t, 0, sizeof *t);
	t->key = key;
	t->unit_start = p->rec_unit;
	t->entry_open = p->rec_open;
	t->merged = p->rec_merged;
	t->merge_nops = p->rec_merge_nops;
	t->merge_s = p->rec_merge_s;
	t->merge_host = p->rec_merge_host;
	t->off = p->rec_off;
	t->tail = p->open && end > p->rec_off;
	t->n = end - p->rec_off - (uint32_t)t->tail;
	if (t->tail)
		t->tail_in = p->ins[st][end - 1];
	if (t->off + t->n > p->tmpl_hi)
		p->tmpl_hi = t->off + t->n;
}

int program_repeat_more(struct program *p, const void *key, int k)
{
	enum stream_kind st = STREAM_COMPUTE;
	size_t np = p->npieces[st];
	if (k <= 0 || p->keep_ops || p->rec_on || !p->open || np < 2 || np - 2 < p->sealed[st] ||
	    p->loops[st][p->nloops[st] - 1].reps != 1 || np - 2 < p->loops[st][p->nloops[st] - 1].first)
		return 0;
	for (int i = 0; i < p->ntmpl; i++) {
		const struct program_template *t = &p->tmpl[i];
		if (t->key != key || !t->entry_open || !t->has_period || !t->tail || !t->n)
			continue;
		struct piece *run = &p->pieces[st][np - 2], *tail = &p->pieces[st][np - 1];
		uint32_t last = (uint32_t)p->n[st] - 1;
		if (run->off != t->period || run->n != 1 + t->n || tail->off != last || tail->n != 1 || tail->reps != 1 ||
		    !program_instr_same(&p->ins[st][last], &t->tail_in))
			return 0;
		/* the next replay would add the merge to this fresh tail: when that is the run's first instruction, it
		 * and every one after it only repeat the run */
		struct instr next = t->tail_in;
		if (t->merged) {
			next.dur += t->merge_s;
			next.host += t->merge_host;
			next.nops = (uint16_t)(next.nops + t->merge_nops > UINT16_MAX ? UINT16_MAX : next.nops + t->merge_nops);
		}
		if (!program_instr_same(&next, &p->ins[st][t->period]))
			return 0;
		run->reps += (uint32_t)k;
		p->count[st] += (size_t)k * run->n;
		return k;
	}
	return 0;
}

void program_seal(struct program *p)
{
	program_seal_pieces(p, 1);
	program_make_spans(p);
	free(p->pw);
	p->pw = p->pcoll = NULL;
	for (int st = 0; st < NSTREAMS; st++) {
		if (p->cap[st] <= p->n[st] || !p->n[st])
			continue;
		p->cap[st] = p->n[st];
		p->ins[st] = xrealloc(p->ins[st], p->cap[st] * sizeof *p->ins[st]);
		if (p->keep_ops)
			p->ranges[st] = xrealloc(p->ranges[st], p->cap[st] * sizeof *p->ranges[st]);
	}
}

static uint32_t push_op(struct program *p, const char *name, double dur, double bytes, int layer, int mb)
{
	if (!p->keep_ops)
		return 0;
	if (p->nops == p->opcap) {
		p->opcap = p->opcap ? 2 * p->opcap : 256;
		p->ops = xrealloc(p->ops, p->opcap * sizeof *p->ops);
	}
	p->ops[p->nops] = (struct op){ name, dur, bytes, layer, mb, OPSPD_FIXED };
	return (uint32_t)p->nops++;
}

void program_flush(struct program *p)
{
	p->open = 0;
}

void program_unit_begin(struct program *p)
{
	program_flush(p);
	p->unit_pending = 1;
	program_seal_pieces(p, 0);
	program_fold_all(p);
}

void program_op(struct program *p, const char *name, double dur_s, enum cat cat, int layer, int mb)
{
	if (p->open && p->open_cat != cat)
		program_flush(p);
	uint32_t id = push_op(p, name, dur_s, 0, layer, mb);
	if (!p->open) {
		struct instr *in = push(p, STREAM_COMPUTE);
		in->kind = INS_COMPUTE;
		in->cat = (uint8_t)cat;
		if (p->keep_ops)
			p->ranges[STREAM_COMPUTE][p->n[STREAM_COMPUTE] - 1].first = id;
		p->open = 1;
		p->open_cat = (uint8_t)cat;
	}
	if (p->keep_ops)
		p->ranges[STREAM_COMPUTE][p->n[STREAM_COMPUTE] - 1].count++;
}

void program_op_speed(struct program *p, enum op_speed speed)
{
	if (p->keep_ops && p->nops > 0)
		p->ops[p->nops - 1].speed = (uint8_t)speed;
}

void program_add_time(struct program *p, int nops, double dur_s, double host_s)
{
	if (p->rec_on && p->n[STREAM_COMPUTE] <= p->rec_off) {
		/* a template being recorded adds to the segment that was open before it: replays add the same */
		if (p->rec_merged)
			p->rec_on = 0;
		p->rec_merged = 1;
		p->rec_merge_nops = nops;
		p->rec_merge_s = dur_s;
		p->rec_merge_host = host_s;
	}
	struct instr *seg = &p->ins[STREAM_COMPUTE][p->n[STREAM_COMPUTE] - 1];
	seg->dur += dur_s;
	seg->host += host_s;
	seg->nops = (uint16_t)(seg->nops + nops > UINT16_MAX ? UINT16_MAX : seg->nops + nops);
}

int program_record(struct program *p, enum stream_kind st)
{
	p->rec_on = 0;  /* a new event each time: a run that records one is not a template */
	program_flush(p);
	struct instr *in = push(p, st);
	in->kind = INS_RECORD;
	in->arg = p->nevents++;
	return in->arg;
}

void program_wait(struct program *p, enum stream_kind st, int ev, enum cat cat)
{
	program_flush(p);
	struct instr *in = push(p, st);
	in->kind = INS_WAIT;
	in->arg = ev;
	in->cat = (uint8_t)cat;
}

/* A timed instruction of one op (kept for timelines) on stream st; closes the open compute segment. */
static struct instr *push_timed(struct program *p, enum stream_kind st, enum instr_kind kind, const char *name,
				double dur_s, double bytes, enum cat cat, int layer, int mb)
{
	program_flush(p);
	uint32_t id = push_op(p, name, dur_s, bytes, layer, mb);
	struct instr *in = push(p, st);
	in->kind = (uint8_t)kind;
	in->nops = 1;
	in->cat = (uint8_t)cat;
	in->dur = dur_s;
	if (p->keep_ops)
		p->ranges[st][p->n[st] - 1] = (struct op_range){ id, 1 };
	return in;
}

void program_coll(struct program *p, enum stream_kind st, enum group_kind g, double dur_s, double bytes,
		  enum cat cat, const char *name, int layer, int mb)
{
	push_timed(p, st, INS_COLL, name, dur_s, bytes, cat, layer, mb)->group = (uint8_t)g;
}

void program_side_op(struct program *p, enum stream_kind st, const char *name, double dur_s, double bytes,
		     enum cat cat, int layer, int mb)
{
	push_timed(p, st, INS_COMPUTE, name, dur_s, bytes, cat, layer, mb);
}

void program_side(struct program *p, const char *name, double dur_s, double bytes, int layer, int mb)
{
	push_timed(p, STREAM_COMPUTE, INS_SIDE, name, dur_s, bytes, CAT_TP, layer, mb)->group = GROUP_TP;
}

void program_side_wait(struct program *p)
{
	program_flush(p);
	struct instr *in = push(p, STREAM_COMPUTE);
	in->kind = INS_SIDE_WAIT;
	in->cat = CAT_TP;
}

void program_send(struct program *p, enum stream_kind st, int dest_stage, int slot, enum link_scope scope,
		  double dur_s, double bytes, const char *name, int mb)
{
	program_flush(p);
	uint32_t id = push_op(p, name, dur_s, bytes, -1, mb);
	struct instr *in = push(p, st);
	in->kind = INS_SEND;
	in->cat = CAT_PP;
	in->dest = (uint16_t)dest_stage;
	in->arg = slot;
	in->scope = (uint8_t)scope;
	in->dur = dur_s;
	if (p->keep_ops)
		p->ranges[st][p->n[st] - 1] = (struct op_range){ id, 1 };
}

void program_recv(struct program *p, enum stream_kind st, int slot, enum cat cat)
{
	program_flush(p);
	struct instr *in = push(p, st);
	in->kind = INS_RECV;
	in->arg = slot;
	in->cat = (uint8_t)cat;
}

void program_host(struct program *p, double dur_s)
{
	if (dur_s <= 0)
		return;
	program_flush(p);
	struct instr *in = push(p, STREAM_COMPUTE);
	in->kind = INS_HOST;
	in->dur = dur_s;
}
