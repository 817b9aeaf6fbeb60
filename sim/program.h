/* program: the instruction lists one pipeline stage executes, one list per GPU stream, as the builder
 * (sim/build.c) emits them and the engine (sim/engine.c) runs them. All ranks of a stage (its TP ranks and
 * DP replicas) run the same program; only their state differs, so a 16,384-GPU job needs pp programs.
 * Consecutive compute ops with nothing between them to wait for form one COMPUTE instruction (a segment)
 * whose duration is the sum of its ops' times in order; the ops stay listed for timelines. */
#ifndef PROGRAM_H
#define PROGRAM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum stream_kind {
	STREAM_COMPUTE,  /* compute kernels and the blocking TP collectives, in order */
	STREAM_DP,       /* DP gradient all-reduce buckets, overlapping backward */
	STREAM_SENDF,    /* pipeline sends of activations to the next stage */
	STREAM_SENDB,    /* pipeline sends of gradients to the previous stage */
	STREAM_COPY,     /* copies between GPU and host memory (activation offload) over the host link, beside compute */
	NSTREAMS
};

enum instr_kind {
	INS_COMPUTE,  /* busy for dur */
	INS_COLL,     /* collective over a group; starts when every member has arrived */
	INS_SEND,     /* transfer over the rank's outgoing link to (dest stage, same dp and tp index) */
	INS_RECV,     /* wait until the transfer into mailbox slot arg has landed */
	INS_RECORD,   /* mark event arg as reached (instant) */
	INS_WAIT,     /* wait until event arg of the same rank has been recorded */
	INS_HOST,     /* compute stream: the host works for dur (a collective call, a DDP hook) with no GPU work;
	               * the stream goes on once the host has issued everything up to here */
	INS_SIDE,     /* compute stream: issue a transfer of dur on the rank's side channel, the model-parallel
	               * transfers a layer overlaps with its own compute (TP communication overlap's chunks, context
	               * parallelism's K/V ring: sim/overlap.h). It starts when the compute stream reaches it and the
	               * channel has finished the transfers issued before it; the stream goes on at once */
	INS_SIDE_WAIT, /* compute stream: wait until the side channel has finished every transfer issued so far */
};

enum cat { CAT_COMPUTE, CAT_TP, CAT_PP, CAT_DP, CAT_OPTIMIZER, CAT_N };
enum group_kind { GROUP_TP, GROUP_DP };
enum link_scope { LINK_INTRA, LINK_INTER, LINK_N };

enum { INSF_UNIT_START = 1 };  /* first instruction of a micro-batch's forward or backward on the stage */

/* 24 bytes: a long schedule holds hundreds of thousands of these per stage, so what only a timeline needs
 * (which ops an instruction holds) lives in program.ranges, kept only with keep_ops */
struct instr {
	double dur;         /* seconds */
	union {             /* a compute segment's host cost, or what the other kinds name (never both) */
		double host;    /* COMPUTE: seconds the host spends issuing its ops (the sum of their host costs) */
		struct {
			int32_t arg;        /* RECORD/WAIT: event id; RECV/SEND: mailbox slot (at the receiver); in pass
			                     * i the id is arg + i * astep (struct loop) */
			uint16_t dest;      /* SEND: destination stage */
			uint8_t group;      /* COLL, SIDE: enum group_kind */
			uint8_t scope;      /* SEND: enum link_scope */
		};
	};
	uint16_t nops;      /* ops the host issues for this instruction (saturates) */
	uint8_t kind, cat;
	uint8_t flags;
	int16_t astep;      /* RECORD/WAIT/RECV/SEND: how arg grows from one pass to the next (struct loop) */
};
_Static_assert(sizeof(struct instr) == 24, "struct instr stays 24 bytes: memory touched is page faults");

/* How a compute op's time follows the stage's clock (the power balance, sim/predict.c): the timeline divides a
 * segment among its ops by it (sim/engine.c, trace_segment). */
enum op_speed {
	OPSPD_FIXED,  /* memory-bound, or an attention core at the maximum clock with no law: its own time */
	OPSPD_GEMM,   /* compute-bound: at the stage's GEMM speed */
	OPSPD_ATTN,   /* an attention core under the attention law: at the stage's attention speed */
};

struct op {
	const char *name;   /* static string */
	double dur;         /* seconds */
	double bytes;       /* collective or transfer: bytes it moves (nccl-tests convention); 0 for compute */
	int32_t layer;      /* global layer index, -1 for embedding/head/optimizer */
	int32_t mb;         /* micro-batch, -1 for none (DP buckets, optimizer) */
	uint8_t speed;      /* compute: enum op_speed (OPSPD_FIXED unless program_op_speed says) */
};

/* The ops of one instruction: COMPUTE its ops in program.ops; COLL/SEND the op that names it. */
struct op_range {
	uint32_t first, count;
};

/* A stream is a list of pieces: instructions ins[0..n-1], run reps times in a row. A layer's forward or backward
 * is the same instructions for every layer and micro-batch of a stage, so the builder stores it once and refers
 * to it (program_repeat_begin/end); a stage's program is then a few pieces per micro-batch instead of hundreds
 * of instructions, and the engine reads them from cache. With keep_ops every instruction is stored (pieces of
 * reps 1), so each has its op range. */
struct piece {
	uint32_t off, n, reps;    /* the instructions program.ins[st][off .. off+n-1]; 12 bytes, no pointer: a long
	                           * schedule has thousands of pieces a stage, and memory touched is page faults */
};

/* A stream's pieces are cut into loops: pieces[first .. first+n-1] run reps times in a row. A micro-batch's
 * forward and backward are the same pieces for every micro-batch of a stage (the same stored layers, a receive,
 * a record, a wait), but for the event ids and mailbox slots they name, which step by the same amount from one
 * micro-batch to the next (instr.astep): so a stage's steady state (1F1B: a forward and a backward) is stored
 * once and run as a loop, a few dozen instructions instead of thousands. The pass that steps the ids: a loop's
 * pass for its pieces that run once, a piece's own repetition for one that repeats (a loop of one piece is a
 * piece of more repetitions; a loop's pieces that repeat are a template's, whose ids never step). Loops partition
 * the pieces; the last one, while it runs once, takes new pieces (program_unit_begin folds the ones it took into a
 * loop when they repeat). */
struct loop {
	uint32_t first, n, reps;
};

/* A piece as the engine walks it, so that the cursor reads an id with one add (program_seal makes them): span i
 * runs ins[off .. off+n-1] reps times in a row, with event ids arg + eoff (RECORD, WAIT) and mailbox slots
 * arg + soff (RECV, SEND) in its first repetition in its loop's first pass, each repetition and each pass estep and
 * sstep more (a send stream's micro-batches: one span); a piece whose ids step by different amounts within one
 * class is cut where they change, each repetition a span. A loop's pass is its spans once, followed by its loop's
 * end: a span of n 0 whose reps are the loop's passes and whose off is the pass's first span; spans[nspans], of n
 * 0 and reps 0, is the stream's end. A program many ranks walk (program_flatten) has its compute stream's loops
 * expanded, a span per piece and pass and no loop's end, so that every rank's cursor steps as over plain pieces;
 * the loops keep a program that one rank walks a few dozen spans a stage instead of thousands (page faults).
 * 20 bytes. */
struct span {
	uint32_t off;
	uint16_t n, reps;
	int32_t eoff, soff;
	int16_t estep, sstep;
};
_Static_assert(sizeof(struct span) == 20, "struct span stays 20 bytes");
#define PROGRAM_SPAN_PART UINT32_MAX  /* program.span_piece of a span that runs a part of a piece */

/* A stored run of instructions to replay (program_repeat_*): at most PROGRAM_TEMPLATES per program. */
enum { PROGRAM_TEMPLATES = 16 };
struct program_template {
	const void *key;
	int unit_start;          /* recorded with the unit-start flag pending */
	int entry_open;          /* recorded with a compute segment open: its first ops joined that segment */
	int merged;              /* they did: merge_s, merge_host and merge_nops were added to it (program_add_time) */
	int merge_nops;
	double merge_s, merge_host;
	uint32_t off, n;         /* the run, in program.ins[STREAM_COMPUTE] */
	int tail;                /* it ended in an open segment, kept apart as tail_in (later ops may join it) */
	struct instr tail_in;
	int has_period;          /* period: where [finished segment, body] is stored in a row (sim/program.c) */
	uint32_t period;
};

struct program {
	struct instr *ins[NSTREAMS];        /* every instruction stored, in order (pieces refer to them) */
	struct op_range *ranges[NSTREAMS];  /* parallel to ins, only with keep_ops */
	size_t n[NSTREAMS], cap[NSTREAMS];  /* stored instructions */
	struct piece *pieces[NSTREAMS];
	size_t npieces[NSTREAMS], cappieces[NSTREAMS];
	struct loop *loops[NSTREAMS];
	size_t nloops[NSTREAMS], caploops[NSTREAMS];
	struct span *spans[NSTREAMS];       /* what the engine walks (struct span), nspans and the stream's end */
	size_t nspans[NSTREAMS];
	uint32_t *span_piece;               /* compute stream: the piece each span runs whole, or PROGRAM_SPAN_PART */
	uint32_t *span_loop;                /* compute stream: the first span of each span's loop pass; NULL when no
	                                     * loop runs more than once (program_cursor_before) */
	size_t sealed[NSTREAMS];            /* pieces[0 .. sealed-1] are final (a unit began after them) */
	size_t fold_seen[NSTREAMS];         /* sealed when program_fold last looked */
	/* passes (sim/program_loop.c): what each unit's start folded since the compute stream's loop last ran once
	 * more, and the same for the pass before, to tell when a pass repeats the one before it (program_steady) */
	struct program_pass {
		uint32_t units;                 /* units the pass took */
		size_t count[NSTREAMS];         /* instructions it added to each stream */
		int events;                     /* event ids it took */
		uint32_t reps[NSTREAMS];        /* repetitions a stream's last piece gained (a piece of more repetitions) */
		int other;                      /* anything else changed */
	} pass, last_pass;
	size_t count_at[NSTREAMS];          /* count and nevents when the pass began */
	int events_at;
	int steady;                         /* the pass that just ended repeats the one before (program_steady) */

	/* The compute stream's work as the stage clocks' first guess sums it (sim/predict.c): over its pieces in
	 * order, each pass's compute seconds and collective seconds as differences of prefix sums over the
	 * instructions in the order they were stored, the ones a loop let go included (pw/pc of each stored one: the
	 * sums before it), so the figures are the same to the bit however the pieces fold. */
	double *pw, *pcoll;
	double next_pw, next_pcoll;         /* the sums before the next instruction stored, when vfrom < 0 */
	long vfrom;                         /* else they are pw/pcoll[vfrom] plus that instruction's own */
	double work_s, coll_s;              /* sums over the sealed pieces */
	double other_s;                     /* the other streams' work in seconds, over their loops (program_seal) */
	size_t count[NSTREAMS];             /* instructions the stream executes: sum of n * reps over its pieces */
	struct op *ops;
	size_t nops, opcap;
	int nevents;        /* RECORD ids are 0..nevents-1 */
	int nslots;         /* mailbox slots 0..nslots-1 */
	int keep_ops;       /* record ops (names for a timeline); off, segments only keep their duration */
	int unit_pending;   /* the next compute-stream instruction starts a unit */
	int open;           /* an open COMPUTE segment on STREAM_COMPUTE */
	uint8_t open_cat;
	double open_dur;
	struct program_template tmpl[PROGRAM_TEMPLATES];
	int ntmpl;
	uint32_t tmpl_hi;           /* one past the last compute-stream instruction a template replays */
	int rec_on;                 /* recording a template (program_repeat_begin returned 0) */
	const void *rec_key;
	uint32_t rec_off;
	int rec_unit, rec_open, rec_merged, rec_merge_nops;
	double rec_merge_s, rec_merge_host;
};

/* keep_ops: record every op for timelines (costs memory on long schedules). */
void program_init(struct program *p, int nslots, int keep_ops);
/* The ops of an instruction of stream st, or NULL without keep_ops. */
static inline const struct op_range *program_ops_of(const struct program *p, int st, const struct instr *in)
{
	return p->ranges[st] ? &p->ranges[st][in - p->ins[st]] : NULL;
}
/* Replaying a stored run: program_repeat_begin(p, key) appends the compute-stream instructions recorded under
 * key (with the same unit-start state) and returns 1; else returns 0 and the caller emits them, then calls
 * program_repeat_end(p, key) to record them. key names what the caller emits (e.g. its op list), which must
 * come out the same every time within this program; nothing is replayed with keep_ops or an open segment. */
int program_repeat_begin(struct program *p, const void *key);
void program_repeat_end(struct program *p, const void *key);
/* program_repeat_more: the same as k more replays of key in a row (0 < k), at the cost of one, when the program
 * ends in a repetition of key's run that k more replays would only extend; returns k then, else 0 (and the
 * caller emits as usual). Calls may nest: while a run is recorded, inner keys emit as usual, as part of it. */
int program_repeat_more(struct program *p, const void *key, int k);
/* After the last instruction: seals every piece, makes the spans the engine walks (struct span), and gives back
 * what program_reserve held beyond the instructions stored (the builder reserves an upper bound of a stage's
 * compute stream). */
void program_seal(struct program *p);
/* For a program that many ranks walk (predict's --all-ranks), after program_seal: expand the compute stream's
 * loops (a span per piece and pass, no loop's end to cross), and store the other streams as they run, every
 * instruction their loops run with its id (the same instructions, ids and order, in one span; a send stream's
 * micro-batches are a span of many repetitions otherwise, a repetition every third instruction). For every rank
 * a step less to take; once, memory (page faults) that a program one rank walks does not win back. */
void program_flatten(struct program *p);
/* Cursor over a stream's instructions (the engine keeps one per rank and stream): it walks the spans. */
struct program_cursor {
	const struct instr *in;   /* current instruction, NULL past the end */
	const struct instr *end;  /* one past the current span's last instruction: within a span, a step is a
	                           * compare */
	uint32_t span;            /* the current span */
	uint16_t rep, lrep;       /* its repetition, and its loop's pass */
	int32_t eoff, soff;       /* the span's id offsets there (struct span) */
};
_Static_assert(sizeof(struct program_cursor) == 32, "a rank's cursors stay 32 bytes each");
/* The current instruction's event id (RECORD, WAIT) or mailbox slot (RECV, SEND), in this pass. */
static inline int32_t program_cursor_event(const struct program_cursor *c)
{
	return c->in->arg + c->eoff;
}
static inline int32_t program_cursor_slot(const struct program_cursor *c)
{
	return c->in->arg + c->soff;
}
/* Whether a and b are at the same place (the same instruction of the same span, repetition and loop pass). */
static inline int program_cursor_same(const struct program_cursor *a, const struct program_cursor *b)
{
	return a->in == b->in && a->span == b->span && a->rep == b->rep && a->lrep == b->lrep;
}
/* Whether a is before b on the compute stream of program p. */
static inline int program_cursor_before(const struct program *p, const struct program_cursor *a,
					const struct program_cursor *b)
{
	if (p->span_loop && p->span_loop[a->span] == p->span_loop[b->span] && a->lrep != b->lrep)
		return a->lrep < b->lrep;  /* in one loop, an earlier pass */
	if (a->span != b->span)
		return a->span < b->span;
	if (a->rep != b->rep)
		return a->rep < b->rep;
	return a->in < b->in;
}
/* Put c at the start of span i (< nspans, not a loop's end: sp), in its loop's pass c->lrep. */
static inline void program_cursor_at(const struct program *p, int st, uint32_t i, const struct span *sp,
				     struct program_cursor *c)
{
	c->in = p->ins[st] + sp->off;
	c->end = c->in + sp->n;
	c->span = i;
	c->rep = 0;
	memcpy(&c->eoff, &sp->eoff, 2 * sizeof c->eoff);  /* eoff and soff, side by side in both */
	if (c->lrep) {
		c->eoff += (int32_t)c->lrep * sp->estep;
		c->soff += (int32_t)c->lrep * sp->sstep;
	}
}
/* Move c to the first repetition of the next span: past a loop's end, its loop's next pass or what follows it;
 * in NULL past the stream's end. */
static inline void program_cursor_next_span(const struct program *p, int st, struct program_cursor *c)
{
	uint32_t i = c->span + 1;
	const struct span *sp = &p->spans[st][i];
	if (!sp->n) {  /* a loop's end, or the stream's */
		if (++c->lrep < sp->reps) {
			i = sp->off;
		} else {
			c->lrep = 0;
			i += sp->reps > 0;
		}
		sp = &p->spans[st][i];
		if (!sp->n) {
			c->span = i;
			c->rep = 0;
			c->in = NULL;
			return;
		}
	}
	program_cursor_at(p, st, i, sp, c);
}
static inline void program_cursor_start(const struct program *p, int st, struct program_cursor *c)
{
	*c = (struct program_cursor){ 0 };
	if (p->nspans[st])
		program_cursor_at(p, st, 0, &p->spans[st][0], c);
}
/* program_cursor_next once c->in has reached c->end: the span's next repetition, or the next span. */
static inline void program_cursor_span_end(const struct program *p, int st, struct program_cursor *c)
{
	const struct span *sp = &p->spans[st][c->span];
	if (++c->rep < sp->reps) {
		c->in = c->end - sp->n;
		c->eoff += sp->estep;
		c->soff += sp->sstep;
		return;
	}
	program_cursor_next_span(p, st, c);
}
static inline void program_cursor_next(const struct program *p, int st, struct program_cursor *c)
{
	if (++c->in == c->end)
		program_cursor_span_end(p, st, c);
}
/* Make room for n more instructions on a stream at once (saves regrowing a long schedule). */
void program_reserve(struct program *p, enum stream_kind st, size_t n);
void program_release(struct program *p);
/* Note an op in the open compute segment (a new one if none is open or its category differs); its time is
 * added separately with program_add_time, once per run of ops, so a segment's duration is the same sum
 * whether ops are kept for a timeline or not. */
void program_op(struct program *p, const char *name, double dur_s, enum cat cat, int layer, int mb);
/* With keep_ops: how the last op program_op kept follows the clock (the timeline's split); else nothing. */
void program_op_speed(struct program *p, enum op_speed speed);
/* nops ops of dur_s seconds on the GPU in all, which cost the host host_s seconds to issue (0: it keeps ahead). */
void program_add_time(struct program *p, int nops, double dur_s, double host_s);
/* Close the open compute segment. Every instruction below closes it first. */
void program_flush(struct program *p);
/* Start a micro-batch's forward or backward: closes the segment and flags the next compute-stream instruction.
 * Each stream's instructions since the last unit began start a new piece, and when the pieces of the units since
 * the last loop repeat it (or repeat themselves), they join it as its next pass (struct loop). */
void program_unit_begin(struct program *p);
/* After program_unit_begin: when the units since the compute stream's loop last ran once more are one more pass
 * of it on every stream, the same in every count as the pass before, that pass's units; else 0. */
int program_steady(const struct program *p);
/* When program_steady: the same as k more such passes emitted (the loops run k more times, the ids after them). */
void program_skip(struct program *p, uint32_t k);
int program_record(struct program *p, enum stream_kind st);  /* returns the event id */
void program_wait(struct program *p, enum stream_kind st, int ev, enum cat cat);
/* bytes: what the collective or transfer moves, kept only for timelines (the time is dur_s) */
void program_coll(struct program *p, enum stream_kind st, enum group_kind g, double dur_s, double bytes,
		  enum cat cat, const char *name, int layer, int mb);
/* A timed piece of work of dur_s on a stream other than STREAM_COMPUTE (a copy on STREAM_COPY, a DDP hook's
 * callback on STREAM_DP): busy for dur_s, in order with the stream's other instructions, one op for timelines
 * (bytes: what it moves, 0 for compute). */
void program_side_op(struct program *p, enum stream_kind st, const char *name, double dur_s, double bytes,
		     enum cat cat, int layer, int mb);
/* A side-channel transfer (INS_SIDE) of dur_s moving bytes over the TP group (the CP group's ring hops, whose
 * ranks one CP rank stands for, are timed as such), and the compute stream's wait for every one issued so far.
 * Members of the group run them in step (they are symmetric), so each rank's channel is its own: no group
 * synchronisation, and a layer's instructions stay on the compute stream, replayed like any other. */
void program_side(struct program *p, const char *name, double dur_s, double bytes, int layer, int mb);
void program_side_wait(struct program *p);
void program_send(struct program *p, enum stream_kind st, int dest_stage, int slot, enum link_scope scope,
		  double dur_s, double bytes, const char *name, int mb);
void program_recv(struct program *p, enum stream_kind st, int slot, enum cat cat);
/* Host work of dur_s on the compute stream's host timeline (nothing emitted for dur_s <= 0). */
void program_host(struct program *p, double dur_s);

#endif
