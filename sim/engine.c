/* engine: runs the stage programs on simulated ranks in event-time order.
 * Invariants: a stream executes its instructions strictly in program order; a stream is in exactly one state
 * (RUN: being advanced now, BUSY: an event will end its current instruction, BLOCKED: waiting for a record, a
 * transfer or the rest of its collective group, DONE); everything a waiter can be woken by happens at the
 * current event time, so woken streams continue at that time. The compute stream's timeline of each rank is
 * split into accounting buckets as it goes, so the buckets sum to the step time. */
#include "sim/engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "sim/eventq.h"
#include "sim/steady.h"
#include "sim/tmap.h"
#include "sim/trace.h"
#include "util/diag.h"
#include "util/gserr.h"
#include "util/xalloc.h"

/* EV_SEGMENT: the end of a side stream's own op (program_side_op) when tracing, written to the timeline then; a
 * kind of its own keeps that test off the untraced path */
enum { EV_STREAM, EV_COLL_TP, EV_COLL_DP, EV_LINK, EV_SEGMENT, EV_GROUP };
/* EV_LINK's kind carries, above EV_KIND_BITS, how many more transfers it ends: of ranks r+1, r+2, .. and the same
 * stream, pushed one after another with the same end (start_transfer), so one event stands for that run of events
 * in the queue, handled in their order and counted as they are. */
enum { EV_KIND_BITS = 8, EV_KIND_MASK = (1 << EV_KIND_BITS) - 1, EV_RUN_MAX = 255 };

struct sim {
	struct sim_config cfg;
	int nranks, maxev, maxslot;
	int32_t *stage_of, *d_of, *t_of;  /* per rank: its stage, DP and TP index (no division on the hot path) */
	const struct program **prog_of;   /* per rank: its stage's program (no multiply by a program's size either) */
	/* per rank*NSTREAMS */
	struct program_cursor *pc;  /* the stream's current instruction */
	uint16_t *state;       /* enum steady_stream; 16 bits, not a character type, whose stores would alias every field */
	int64_t *busy_from, *busy_until;  /* times are ticks (tk below) */
	/* per rank */
	uint64_t *ev_done;     /* [rank*evwords + e/64] bit e%64: event e recorded (a bit, not a time: the waits
	                        * of a large --all-ranks run read it from cache) */
	size_t evwords;
	uint64_t *mb_done;     /* [rank*slotwords + x/64] bit x%64: the transfer into mailbox slot x has landed (a bit:
	                        * a slot is read only to know that; 1,024 ranks' mailboxes are 98 KB, not 12 MB of
	                        * times to fault in) */
	size_t slotwords;
	int64_t *land_start;   /* per rank: when the transfer that landed last began, read at once by the wake of a
	                        * compute stream that received it (account_idle) */
	int64_t *acc;          /* [rank*ACC_N + i], ticks */
	int64_t *head_wait;    /* per rank: its compute stream's first wait of the step (-1 none yet), which the step's
	                        * last wait joins (cfg.power_window_s) */
	int64_t *idle_since;   /* compute stream: since when it is not busy */
	int64_t *host_t;       /* when the rank's host has issued everything up to the current instruction */
	int64_t *side_t;       /* when the rank's side channel finishes the transfers issued so far (INS_SIDE) */
	int64_t *arrive;       /* [rank*NSTREAMS + k]: when the stream arrived at its collective or send, or (traced
	                        * without fusion) when the GPU began its compute segment */
	int16_t *block_cat;    /* compute stream: why it is blocked (-1 none) */
	uint16_t *waiting;     /* per rank: bit k set while stream k is blocked at a WAIT, bit 8 + k at a RECV (block),
	                        * so a record looks only at the streams that wait for one, a landed transfer only at
	                        * those that receive */
	int32_t *block_slot;
	int32_t *block_id;     /* [rank*NSTREAMS + k] while blocked (waiting): the event id it waits for, or the mailbox
	                        * slot it receives into */
	int64_t *end_t;        /* [rank*NSTREAMS + k] when the stream finished */
	/* per rank*LINK_N */
	uint16_t *link_busy, *link_nwait;  /* not character types, as state */
	uint8_t *link_wait;    /* [link*2 + i]: waiting stream ids (at most SENDF and SENDB) */
	int64_t *link_start;
	/* per group */
	/* [group*NSTREAMS + stream]: members arrived at the group's current collective on that stream; a group runs
	 * collectives on several streams at once (FP8 amax and MoE all-to-all on compute, buckets on the DP stream) */
	int32_t *tp_arrived, *dp_arrived;
	struct eventq q;
	uint32_t *work, *batch;  /* runnable (rank*NSTREAMS+k); batch: the one being run */
	size_t nwork, capwork, capbatch;
	long long events;
	int64_t step_time;
	int interf;            /* the overlap pair is nonzero: DP collectives and compute runs slow each other */
	int group;             /* fused runs of a TP group in step (run_group), whose TP collectives join them as with
	                        * tp_sim 1: tp_sim > 1 */
	int64_t *run_comp;     /* per rank: the GPU's compute ticks in its compute stream's current run (its density) */
	uint8_t *running;      /* per rank: its compute stream is in a fused run (1: its own, 2: its TP group's) */
	/* per TP group (run_group): the last DP collective start that lengthened the group's run, when (gx_now), of
	 * what length (gx_in) and the length it got (gx_out): the same collective of the group's other TP ranks
	 * starts then too (the members are in step) and must not lengthen the run again */
	int64_t *gx_now, *gx_in, *gx_out;
	int32_t *grun;         /* per TP group: the member its current run was computed for */
	/* with a timeline and interference or TP groups, a run's slices are held until it ends (a DP collective
	 * starting during it may lengthen it; a TP group's run stands for every member) and then written (trace_flush) */
	struct trace_span **tbuf;
	size_t *tlen, *tcap;
	int64_t *run_c0;       /* the compute ticks the run was planned with */
	int thold;             /* rank + 1 whose run is being computed with its slices held; 0: none */
	struct tmap_stage *stmap;    /* per stage: the maps of the compute-stream pieces a run crosses whole */
	struct tmap_stage *gmap;     /* the same for a TP group in step (run_group), whose TP collectives fuse */
	double work_s;               /* the stages' work, a bound of the step (fx_prepare) */
	uint32_t seg_ev;       /* event kind that ends a side stream's op: EV_STREAM, or EV_SEGMENT */
	struct steady *steady;       /* passes taken as translations (sim/steady.h), or NULL where it does not apply */
	struct steady_view view;     /* its view of the tables above */
	uint16_t steady_lrep;        /* rank 0's compute-stream loop pass at the last checkpoint */
	uint64_t link_seq;           /* the queue's next_seq right after the last EV_LINK push, and the time it was */
	int64_t link_now;            /* pushed at (start_transfer) */
};

static inline int rank_stage(const struct sim *s, int r) { return s->stage_of[r]; }
static inline int rank_d(const struct sim *s, int r) { return s->d_of[r]; }
static inline int rank_t(const struct sim *s, int r) { return s->t_of[r]; }
static inline int rank_of(const struct sim *s, int st, int d, int t)
{
	return (st * s->cfg.dp_sim + d) * s->cfg.tp_sim + t;
}
static inline const struct instr *cur(const struct sim *s, int r, int k)
{
	return s->pc[(size_t)r * NSTREAMS + k].in;
}
/* The mailbox slot of stream k's current instruction (RECV, SEND), in this pass. */
static inline uint32_t cur_slot(const struct sim *s, int r, int k)
{
	return (uint32_t)program_cursor_slot(&s->pc[(size_t)r * NSTREAMS + k]);
}
/* Step stream k of rank r, whose cursor is c, past its current instruction (the program read only at a span's end). */
static inline void step_c(struct sim *s, int r, int k, struct program_cursor *c)
{
	if (++c->in == c->end)
		program_cursor_span_end(s->prog_of[r], k, c);
}
static inline void step(struct sim *s, int r, int k)
{
	step_c(s, r, k, &s->pc[(size_t)r * NSTREAMS + k]);
}

static void fx_prepare(struct sim *s);

/* The state at the step's start (on zeroed or reset tables): cursors at each program's start, no transfer landed,
 * nothing blocked; the maps at the stage speeds now in cfg. */
static void start(struct sim *s)
{
	for (int r = 0; r < s->nranks; r++)
		for (int k = 0; k < NSTREAMS; k++)
			program_cursor_start(&s->cfg.progs[rank_stage(s, r)], k, &s->pc[(size_t)r * NSTREAMS + k]);
	memset(s->block_cat, -1, s->nranks * sizeof *s->block_cat);
	fx_prepare(s);
}

struct sim *sim_new(const struct sim_config *cfg)
{
	struct sim *s = xcalloc(1, sizeof *s);
	s->cfg = *cfg;
	s->nranks = cfg->pp * cfg->dp_sim * cfg->tp_sim;
	for (int i = 0; i < cfg->pp; i++) {
		if (cfg->progs[i].nevents > s->maxev)
			s->maxev = cfg->progs[i].nevents;
		if (cfg->progs[i].nslots > s->maxslot)
			s->maxslot = cfg->progs[i].nslots;
	}
	size_t rk = (size_t)s->nranks * NSTREAMS, nl = (size_t)s->nranks * LINK_N;
	s->stage_of = xcalloc((size_t)s->nranks, sizeof *s->stage_of);
	s->d_of = xcalloc((size_t)s->nranks, sizeof *s->d_of);
	s->t_of = xcalloc((size_t)s->nranks, sizeof *s->t_of);
	s->prog_of = xcalloc((size_t)s->nranks, sizeof *s->prog_of);
	for (int r = 0; r < s->nranks; r++) {  /* rank_of's inverse */
		s->stage_of[r] = r / (cfg->dp_sim * cfg->tp_sim);
		s->prog_of[r] = &cfg->progs[s->stage_of[r]];
		s->d_of[r] = (r / cfg->tp_sim) % cfg->dp_sim;
		s->t_of[r] = r % cfg->tp_sim;
	}
	s->pc = xcalloc(rk, sizeof *s->pc);
	s->state = xcalloc(rk, sizeof *s->state);
	s->busy_from = xcalloc(rk, sizeof(int64_t));
	s->busy_until = xcalloc(rk, sizeof(int64_t));
	s->arrive = xcalloc(rk, sizeof(int64_t));
	s->end_t = xcalloc(rk, sizeof(int64_t));
	s->evwords = ((size_t)s->maxev + 63) / 64;
	s->ev_done = xcalloc((size_t)s->nranks * s->evwords + 1, sizeof *s->ev_done);
	s->slotwords = ((size_t)s->maxslot + 63) / 64;
	s->mb_done = xcalloc((size_t)s->nranks * s->slotwords + 1, sizeof *s->mb_done);
	s->land_start = xcalloc(s->nranks, sizeof(int64_t));
	s->acc = xcalloc((size_t)s->nranks * ACC_N, sizeof(int64_t));
	s->head_wait = xmalloc((size_t)s->nranks * sizeof(int64_t));
	for (int r = 0; r < s->nranks; r++)
		s->head_wait[r] = -1;
	s->idle_since = xcalloc(s->nranks, sizeof(int64_t));
	s->host_t = xcalloc(s->nranks, sizeof(int64_t));
	s->side_t = xcalloc(s->nranks, sizeof(int64_t));
	s->block_cat = xmalloc(s->nranks * sizeof *s->block_cat);
	s->block_slot = xcalloc(s->nranks, sizeof(int32_t));
	s->block_id = xcalloc(rk, sizeof(int32_t));
	s->waiting = xcalloc(s->nranks, sizeof *s->waiting);
	s->link_busy = xcalloc(nl, sizeof *s->link_busy);
	s->link_nwait = xcalloc(nl, sizeof *s->link_nwait);
	s->link_wait = xcalloc(nl * 2, 1);
	s->link_start = xcalloc(nl, sizeof(int64_t));
	s->tp_arrived = xcalloc((size_t)cfg->pp * cfg->dp_sim * NSTREAMS, sizeof(int32_t));
	s->dp_arrived = xcalloc((size_t)cfg->pp * cfg->tp_sim * NSTREAMS, sizeof(int32_t));
	s->interf = cfg->compute_slowdown > 0 || cfg->comm_slowdown > 0;
	s->seg_ev = cfg->trace ? EV_SEGMENT : EV_STREAM;
	s->group = cfg->tp_sim > 1;
	s->run_comp = xcalloc(s->nranks, sizeof(int64_t));
	s->running = xcalloc(s->nranks, 1);
	if (s->group) {
		size_t ng = (size_t)s->nranks / cfg->tp_sim;
		s->gx_now = xmalloc(ng * sizeof(int64_t));
		s->gx_in = xcalloc(ng, sizeof(int64_t));
		s->gx_out = xcalloc(ng, sizeof(int64_t));
		s->grun = xcalloc(ng, sizeof(int32_t));
		for (size_t g = 0; g < ng; g++)
			s->gx_now[g] = -1;
	}
	if (cfg->trace && (s->interf || s->group)) {
		s->tbuf = xcalloc(s->nranks, sizeof *s->tbuf);
		s->tlen = xcalloc(s->nranks, sizeof *s->tlen);
		s->tcap = xcalloc(s->nranks, sizeof *s->tcap);
		s->run_c0 = xcalloc(s->nranks, sizeof(int64_t));
	}
	s->stmap = xcalloc((size_t)s->cfg.pp, sizeof *s->stmap);
	if (s->group)
		s->gmap = xcalloc((size_t)s->cfg.pp, sizeof *s->gmap);
	eventq_init(&s->q);
	if (!cfg->trace && cfg->dp_sim == 1 && cfg->tp_sim == 1 && !cfg->every_pass) {
		s->view = (struct steady_view){
			.nranks = s->nranks, .slotwords = s->slotwords, .evwords = s->evwords, .prog_of = s->prog_of,
			.pc = s->pc, .state = s->state, .busy_from = s->busy_from, .busy_until = s->busy_until,
			.arrive = s->arrive, .block_id = s->block_id, .ev_done = s->ev_done, .mb_done = s->mb_done,
			.acc = s->acc, .idle_since = s->idle_since, .host_t = s->host_t,
			.side_t = s->side_t, .run_comp = s->run_comp, .block_cat = s->block_cat, .block_slot = s->block_slot,
			.waiting = s->waiting, .link_busy = s->link_busy, .link_nwait = s->link_nwait,
			.link_wait = s->link_wait, .link_start = s->link_start, .q = &s->q, .events = &s->events,
		};
		s->steady = steady_new(&s->view);
	}
	start(s);
	return s;
}

void sim_reset(struct sim *s)
{
	size_t rk = (size_t)s->nranks * NSTREAMS, nl = (size_t)s->nranks * LINK_N;
	memset(s->state, 0, rk * sizeof *s->state);
	memset(s->busy_from, 0, rk * sizeof(int64_t));
	memset(s->busy_until, 0, rk * sizeof(int64_t));
	memset(s->arrive, 0, rk * sizeof(int64_t));
	memset(s->end_t, 0, rk * sizeof(int64_t));
	memset(s->ev_done, 0, ((size_t)s->nranks * s->evwords + 1) * sizeof *s->ev_done);
	memset(s->mb_done, 0, ((size_t)s->nranks * s->slotwords + 1) * sizeof *s->mb_done);
	memset(s->acc, 0, (size_t)s->nranks * ACC_N * sizeof(int64_t));
	for (int r = 0; r < s->nranks; r++)
		s->head_wait[r] = -1;
	memset(s->idle_since, 0, (size_t)s->nranks * sizeof(int64_t));
	memset(s->host_t, 0, (size_t)s->nranks * sizeof(int64_t));
	memset(s->side_t, 0, (size_t)s->nranks * sizeof(int64_t));
	memset(s->block_slot, 0, (size_t)s->nranks * sizeof(int32_t));
	memset(s->waiting, 0, (size_t)s->nranks * sizeof *s->waiting);
	memset(s->link_busy, 0, nl * sizeof *s->link_busy);
	memset(s->link_nwait, 0, nl * sizeof *s->link_nwait);
	memset(s->link_wait, 0, nl * 2);
	memset(s->link_start, 0, nl * sizeof(int64_t));
	memset(s->tp_arrived, 0, (size_t)s->cfg.pp * s->cfg.dp_sim * NSTREAMS * sizeof(int32_t));
	memset(s->dp_arrived, 0, (size_t)s->cfg.pp * s->cfg.tp_sim * NSTREAMS * sizeof(int32_t));
	eventq_clear(&s->q);
	s->nwork = 0;
	s->events = 0;
	s->step_time = 0;
	s->work_s = 0;
	s->steady_lrep = 0;
	memset(s->run_comp, 0, (size_t)s->nranks * sizeof(int64_t));
	memset(s->running, 0, (size_t)s->nranks);
	for (int g = 0; s->gx_now && g < s->nranks / s->cfg.tp_sim; g++)
		s->gx_now[g] = -1;
	for (int r = 0; s->tlen && r < s->nranks; r++)
		s->tlen[r] = 0;
	if (s->steady)
		steady_reset(s->steady);
	start(s);
}

void sim_free(struct sim *s)
{
	if (!s)
		return;
	free(s->stage_of); free(s->d_of); free(s->t_of); free(s->prog_of);
	free(s->pc); free(s->state); free(s->busy_from); free(s->busy_until); free(s->arrive);
	free(s->end_t); free(s->ev_done); free(s->mb_done); free(s->land_start); free(s->acc); free(s->head_wait);
	free(s->idle_since); free(s->host_t); free(s->side_t); free(s->block_cat); free(s->block_slot); free(s->block_id);
	free(s->waiting); free(s->link_busy);
	free(s->link_nwait); free(s->link_wait); free(s->link_start); free(s->tp_arrived);
	free(s->dp_arrived); free(s->work); free(s->batch); free(s->run_comp); free(s->running);
	free(s->gx_now); free(s->gx_in); free(s->gx_out); free(s->grun);
	for (int r = 0; s->tbuf && r < s->nranks; r++)
		free(s->tbuf[r]);
	free(s->tbuf); free(s->tlen); free(s->tcap); free(s->run_c0);
	for (int i = 0; s->stmap && i < s->cfg.pp; i++)
		tmap_stage_release(&s->stmap[i]);
	for (int i = 0; s->gmap && i < s->cfg.pp; i++)
		tmap_stage_release(&s->gmap[i]);
	free(s->stmap);
	free(s->gmap);
	eventq_release(&s->q);
	steady_free(s->steady);
	free(s);
}

static void make_runnable(struct sim *s, int r, int k)
{
	if (s->nwork == s->capwork) {
		s->capwork = s->capwork ? 2 * s->capwork : 64;
		s->work = xrealloc(s->work, s->capwork * sizeof *s->work);
	}
	uint32_t i = (uint32_t)(r * NSTREAMS + k);
	s->state[i] = STEADY_RUN;
	s->work[s->nwork++] = i;
}

/* Of a wait of g ticks, what a power limiter of time constant tau (cfg.power_window_s) does not credit:
 * g - tau (1 - e^(-g/tau)); 0 without one. */
static int64_t wait_lost(const struct sim *s, int64_t g)
{
	double tau = s->cfg.power_window_s;
	if (!(tau > 0) || g <= 0)
		return 0;
	double gs = tk_s(g);
	return tk(gs - tau * -expm1(-gs / tau));
}

/* Split the compute stream's idle time up to now by why it was blocked. */
static void account_idle(struct sim *s, int r, int64_t now)
{
	int64_t gap = now - s->idle_since[r];
	int64_t *acc = &s->acc[(size_t)r * ACC_N];
	if (gap > 0 && s->cfg.power_window_s > 0) {
		if (s->idle_since[r] == 0 && s->head_wait[r] < 0)
			s->head_wait[r] = gap;  /* the step's first wait: joined with its last at the end */
		acc[ACC_WAIT_LOST] += wait_lost(s, gap);
	}
	if (gap > 0) {
		int why = s->block_cat[r];
		if (why == CAT_PP && s->block_slot[r] >= 0) {
			int64_t xs = s->land_start[r];  /* its receive's transfer, landing now (link_done) */
			int64_t pp = now - imax(s->idle_since[r], xs);
			pp = imin(imax(pp, 0), gap);
			acc[ACC_PP] += pp;
			acc[ACC_BUBBLE] += gap - pp;
		} else if (why == CAT_PP) {
			acc[ACC_PP] += gap;  /* waiting for its own blocking send */
		} else if (why == CAT_DP) {
			acc[ACC_DP] += gap;
		} else if (why == CAT_TP) {
			acc[ACC_TP] += gap;
		} else {
			acc[ACC_BUBBLE] += gap;
		}
	}
	s->idle_since[r] = now;
	s->block_cat[r] = -1;
}

/* Stream k of rank r blocks at a WAIT for event id (slot -1) or a RECV into mailbox slot (why: its category). */
static void block(struct sim *s, int r, int k, int why, int32_t id, int slot)
{
	s->state[r * NSTREAMS + k] = STEADY_BLOCKED;
	s->block_id[r * NSTREAMS + k] = slot < 0 ? id : slot;
	s->waiting[r] |= (uint16_t)(slot < 0 ? 1u << k : 0x100u << k);
	if (k == STREAM_COMPUTE) {
		s->block_cat[r] = (int16_t)why;
		s->block_slot[r] = slot;
	}
}

/* Wake stream k of rank r, blocked at a WAIT or RECV. */
static void wake(struct sim *s, int r, int k, int64_t now)
{
	s->waiting[r] &= (uint16_t)~(0x101u << k);
	if (k == STREAM_COMPUTE)
		account_idle(s, r, now);
	make_runnable(s, r, k);
}

static int overlapping(const struct sim *s, int r, int k, int64_t now)
{
	size_t i = (size_t)r * NSTREAMS + k;
	return s->busy_from[i] < now && s->busy_until[i] > now;
}

/* A busy interval of rank r on a track (a stream or TRACK_LINK + scope) for the timeline; the writer keeps the
 * ranks it traces. Callers test cfg.trace first, so an untraced run pays one branch. */
static void trace_span(struct sim *s, int r, int track, const struct instr *in, const struct op *op, double t0,
		       double dur)
{
	struct trace_span sp = { rank_stage(s, r), rank_d(s, r), rank_t(s, r), track, in, op, t0, dur };
	if (s->thold == r + 1) {
		if (s->tlen[r] == s->tcap[r]) {
			s->tcap[r] = s->tcap[r] ? 2 * s->tcap[r] : 64;
			s->tbuf[r] = xrealloc(s->tbuf[r], s->tcap[r] * sizeof *s->tbuf[r]);
		}
		s->tbuf[r][s->tlen[r]++] = sp;
		return;
	}
	trace_slice(s->cfg.trace, &sp);
}

/* Write rank r's held slices of the run that was planned with run_c0 ticks of compute and ended with run_comp[r]:
 * interference lengthened its compute slices alike (by run_comp / run_c0), and
 * every slice moves by the compute lengthening before it, so the TP and host parts keep their lengths and the
 * compute slices sum to the compute the accounts hold. A TP group's run (running 2) was computed for r and stands
 * for every member: each gets the slices. */
static void trace_flush(struct sim *s, int r)
{
	size_t n = s->tlen[r];
	struct trace_span *b = s->tbuf[r];
	double f = s->run_c0[r] > 0 ? (double)s->run_comp[r] / (double)s->run_c0[r] - 1 : 0;
	if (f > 0) {
		/* the compute slices' starts and the compute before each (they are in time order) */
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			m += b[i].track == STREAM_COMPUTE && b[i].in->kind == INS_COMPUTE;
		double *a = xmalloc((m + 1) * sizeof *a), *pre = xmalloc((m + 1) * sizeof *pre), *d = xmalloc((m + 1) * sizeof *d);
		m = 0;
		for (size_t i = 0; i < n; i++)
			if (b[i].track == STREAM_COMPUTE && b[i].in->kind == INS_COMPUTE) {
				a[m] = b[i].t0_s;
				d[m] = b[i].dur_s;
				pre[m] = m ? pre[m - 1] + d[m - 1] : 0;
				m++;
			}
		for (size_t i = 0; i < n; i++) {
			double t[2] = { b[i].t0_s, b[i].t0_s + b[i].dur_s };
			for (int e = 0; e < 2; e++) {  /* t -> t + f * (compute before t) */
				size_t lo = 0, hi = m;
				while (lo < hi) {
					size_t mid = (lo + hi) / 2;
					if (a[mid] <= t[e])
						lo = mid + 1;
					else
						hi = mid;
				}
				double c = lo ? pre[lo - 1] + fmin(fmax(t[e] - a[lo - 1], 0), d[lo - 1]) : 0;
				t[e] += f * c;
			}
			b[i].t0_s = t[0];
			b[i].dur_s = t[1] - t[0];
		}
		free(a);
		free(pre);
		free(d);
	}
	int r0 = s->running[r] == 2 ? r - rank_t(s, r) : r, k = s->running[r] == 2 ? s->cfg.tp_sim : 1;
	for (int q = r0; q < r0 + k; q++)
		for (size_t i = 0; i < n; i++) {
			struct trace_span sp = b[i];
			sp.tp = rank_t(s, q);
			trace_slice(s->cfg.trace, &sp);
		}
	s->tlen[r] = 0;
}

static void start_until(struct sim *s, int r, int k, int64_t now, int64_t end, uint32_t kind, uint32_t what)
{
	size_t i = (size_t)r * NSTREAMS + k;
	s->state[i] = STEADY_BUSY;
	s->busy_from[i] = now;
	s->busy_until[i] = end;
	eventq_push(&s->q, end, kind, what);
}

static void start_transfer(struct sim *s, int r, int k, const struct instr *in, int64_t now)
{
	size_t l = (size_t)r * LINK_N + in->scope;
	s->link_busy[l] = 1;
	s->link_start[l] = now;
	int64_t end = now + tk(in->dur);
	/* a TP group's members send in turn, each to its peer: when the last push was rank r-1's on this stream
	 * ending then, still pending (later than now), that event ends this one too (EV_KIND_BITS) */
	if (s->group && s->q.next_seq == s->link_seq && s->link_now == now && end > now) {
		struct event *e = eventq_last(&s->q);
		uint32_t more = e->kind >> EV_KIND_BITS;
		if (e->t == end && more < EV_RUN_MAX && e->what + (more + 1) * NSTREAMS == (uint32_t)(r * NSTREAMS + k)) {
			size_t i = (size_t)r * NSTREAMS + k;
			s->state[i] = STEADY_BUSY;
			s->busy_from[i] = now;
			s->busy_until[i] = end;
			e->kind += 1u << EV_KIND_BITS;
			return;
		}
	}
	start_until(s, r, k, now, end, EV_LINK, (uint32_t)(r * NSTREAMS + k));
	s->link_seq = s->q.next_seq;
	s->link_now = now;
}

/* Interference, as rates: while a DP collective and compute run together on one GPU, the collective runs
 * 1+comm_slowdown and the compute 1+compute_slowdown times slower. The compute stream runs in fused runs
 * (run_fused) that may hold host waits and TP collectives: over its run the GPU computes a fraction rho of the time
 * (run_comp over the run's length), and what overlaps a collective slows it and is slowed by rho of the overlap.
 * A collective starting during a run lengthens itself by its overlap with the run's rest times rho comm_slowdown,
 * and the run by the overlap (the collective's new length) times rho compute_slowdown; a run starting during a
 * collective lengthens itself likewise (sim/engine.h). The run's pending end event is replaced by a new one
 * (eventq_drop; in a queue of buckets the stale one is skipped when it pops, as Redis reaps cancelled timers). */

/* Whether rank r's compute stream is in a fused run (not a collective of its own) that ends after now. */
static int in_run(const struct sim *s, int r, int64_t now)
{
	size_t ci = (size_t)r * NSTREAMS + STREAM_COMPUTE;
	return s->running[r] && s->state[ci] == STEADY_BUSY && s->busy_until[ci] > now;
}

/* The fraction of rank r's current run, from busy_from to end, in which its GPU computes. */
static double run_rho(const struct sim *s, int r, int64_t end)
{
	int64_t len = end - s->busy_from[(size_t)r * NSTREAMS + STREAM_COMPUTE];
	return len > 0 ? fmin((double)s->run_comp[r] / (double)len, 1.0) : 0;
}

static int64_t coll_interference(struct sim *s, int r, int64_t now, int64_t dur)
{
	size_t ci = (size_t)r * NSTREAMS + STREAM_COMPUTE;
	if (!in_run(s, r, now))
		return dur;
	int grp = s->running[r] == 2, tp = s->cfg.tp_sim, r0 = grp ? r - rank_t(s, r) : r, g = r0 / tp;
	if (grp && s->gx_now[g] == now && s->gx_in[g] == dur)
		return s->gx_out[g];  /* this collective of another TP rank of the group lengthened the run already */
	int64_t end = s->busy_until[ci], d0 = dur;
	double rho = run_rho(s, r, end);
	int64_t both = imin(end - now, dur);
	dur += tk(tk_s(both) * rho * s->cfg.comm_slowdown);
	int64_t ext = tk(tk_s(imin(end - now, dur)) * rho * s->cfg.compute_slowdown);
	if (ext > 0) {
		for (int q = r0; q < r0 + (grp ? tp : 1); q++) {
			s->busy_until[(size_t)q * NSTREAMS + STREAM_COMPUTE] = end + ext;
			s->run_comp[q] += ext;
			s->acc[(size_t)q * ACC_N + ACC_COMPUTE] += ext;
		}
		if (grp) {
			eventq_push(&s->q, end + ext, EV_GROUP, (uint32_t)g);
		} else {
			eventq_drop(&s->q, end, EV_STREAM, (uint32_t)ci);
			eventq_push(&s->q, end + ext, EV_STREAM, (uint32_t)ci);
		}
	}
	if (grp) {
		s->gx_now[g] = now;
		s->gx_in[g] = d0;
		s->gx_out[g] = dur;
	}
	return dur;
}

static void start_coll(struct sim *s, int r0, int k, const struct instr *in, int64_t now, int group)
{
	int64_t dur = tk(in->dur);
	int tp = s->cfg.tp_sim, dp = s->cfg.dp_sim;
	if (in->group == GROUP_DP && s->interf) {
		/* members are symmetric: each one's compute stream is in the same state */
		int64_t d0 = dur;
		for (int d = 0; d < dp; d++)
			dur = coll_interference(s, rank_of(s, rank_stage(s, r0), d, rank_t(s, r0)), now, d0);
	}
	int st = rank_stage(s, r0);
	if (in->group == GROUP_TP) {
		for (int t = 0; t < tp; t++) {
			size_t i = (size_t)rank_of(s, st, rank_d(s, r0), t) * NSTREAMS + k;
			s->state[i] = STEADY_BUSY;
			s->busy_from[i] = now;
			s->busy_until[i] = now + dur;
		}
		eventq_push(&s->q, now + dur, EV_COLL_TP, (uint32_t)((k << 28) | group));
	} else {
		for (int d = 0; d < dp; d++) {
			size_t i = (size_t)rank_of(s, st, d, rank_t(s, r0)) * NSTREAMS + k;
			s->state[i] = STEADY_BUSY;
			s->busy_from[i] = now;
			s->busy_until[i] = now + dur;
		}
		eventq_push(&s->q, now + dur, EV_COLL_DP, (uint32_t)((k << 28) | group));
	}
}

/* A COLL or SEND instruction of stream k as one slice on a track (its stream, or its link), named by its op. */
static void trace_instr(struct sim *s, int r, int k, int track, const struct instr *in, int64_t t0, int64_t dur)
{
	const struct program *p = &s->cfg.progs[rank_stage(s, r)];
	const struct op_range *rg = program_ops_of(p, k, in);
	if (rg && rg->count)
		trace_span(s, r, track, in, &p->ops[rg->first], tk_s(t0), tk_s(dur));
}

/* An op's time over its time at the sustained rates in a stage whose GEMMs run at v and attention at u (u 0: no
 * law, the attention keeps its own time). */
static double op_divisor(const struct op *op, const double *vu)
{
	if (!vu || op->speed == OPSPD_FIXED)
		return 1;
	double f = op->speed == OPSPD_GEMM ? vu[0] : vu[1];
	return f > 0 ? f : 1;
}

/* The ops of a compute segment that ran from t0 for dur: each at its own clock where the power balance set the
 * stage's (GEMMs at v, attention at u, the rest at their own time, as the segment's speed was made of them), then
 * all stretched alike to the segment's duration (interference, rounding to ticks). */
static void trace_segment(struct sim *s, int r, int k, const struct instr *in, int64_t t0_tk, int64_t dur_tk)
{
	int st = rank_stage(s, r);
	const struct program *prog = &s->cfg.progs[st];
	const double *vu = s->cfg.stage_vu ? s->cfg.stage_vu + 2 * st : NULL;
	const struct op_range *rg = program_ops_of(prog, k, in);
	double t = tk_s(t0_tk), dur = tk_s(dur_tk), own = 0;
	for (uint32_t o = 0; rg && o < rg->count; o++)
		own += prog->ops[rg->first + o].dur / op_divisor(&prog->ops[rg->first + o], vu);
	double scale = own > 0 ? dur / own : 1;
	for (uint32_t o = 0; rg && o < rg->count; o++) {
		const struct op *op = &prog->ops[rg->first + o];
		double d = op->dur / op_divisor(op, vu) * scale;
		trace_span(s, r, k, in, op, t, d);
		t += d;
	}
}

/* Fused runs. Nothing outside a rank's compute stream but a DP collective (interference) can change how long its
 * next compute segments, host work (host_t is the compute stream's alone) and single-member TP collectives take,
 * so a run of them inside one micro-batch's forward or backward is one busy interval and one event, applied
 * through sim/tmap's maps: a piece crossed whole (a layer's forward, k times) in one step, with the same result to
 * the tick as instruction by instruction. Interference then stretches the run as a whole (coll_interference). A
 * TP group simulated member by member runs the same runs, TP collectives inside, while its members are in step
 * (run_group), so a run is the same whether its group is simulated or not. */
static void fx_prepare(struct sim *s)
{
	/* a step whose stored work is out of scale (inf or NaN from a hardware model without a rate the step needs)
	 * gets no maps, whose ticks could not hold it: sim_run refuses it before anything runs */
	double w = 0;
	for (int st = 0; st < s->cfg.pp; st++)
		w += s->cfg.progs[st].work_s + s->cfg.progs[st].coll_s;
	int tp_fuses = s->cfg.tp_sim == 1, maps = !s->cfg.trace && w < 0x1p21;
	for (int st = 0; st < s->cfg.pp; st++) {
		double sp = s->cfg.stage_speed ? s->cfg.stage_speed[st] : 1;
		tmap_stage_prepare(&s->cfg.progs[st], sp, tp_fuses, maps, &s->stmap[st]);
		if (s->group)
			tmap_stage_prepare(&s->cfg.progs[st], sp, 1, maps, &s->gmap[st]);
		s->work_s += s->stmap[st].work_s * (1 + s->cfg.compute_slowdown) * (1 + s->cfg.comm_slowdown);
	}
	if (!(w < 0x1p21))
		s->work_s = w;
}

/* The clocks of a fused run: GPU, host and side channel, and the ticks it adds to each account. */
struct clocks {
	int64_t t, h, side, sum[SUM_N];
};

/* One instruction of a fused run, by itself (tmap_instr's map, applied, with the side channel's wait accounted):
 * the compute stream of rank r at stage speed sp. */
static inline void fused_one(struct sim *s, int r, const struct instr *in, double sp, struct clocks *c)
{
	struct trace *trace = s->cfg.trace;
	switch (in->kind) {
	case INS_COMPUTE: {
		double d = in->dur / sp;
		int64_t a = tk(d), t1 = c->t + a;
		if (in->host > 0) {
			int64_t B, C;
			tmap_host_terms(d, in, &B, &C);
			t1 = imax(t1, c->h + B);
			c->h += C;
		}
		c->sum[in->cat == CAT_OPTIMIZER ? SUM_OPT : SUM_COMP] += a;
		if (trace)
			trace_segment(s, r, STREAM_COMPUTE, in, t1 - a, a);
		c->t = t1;
		break;
	}
	case INS_HOST:
		c->h += tk(in->dur);
		c->t = imax(c->t, c->h);
		break;
	case INS_SIDE: {
		int64_t a = tk(in->dur), t0 = imax(c->side, c->t);
		c->side = t0 + a;
		if (trace)
			trace_instr(s, r, STREAM_COMPUTE, TRACK_SIDE, in, t0, a);
		break;
	}
	case INS_SIDE_WAIT:
		c->sum[SUM_TP] += imax(c->side - c->t, 0);  /* the GPU waits for the side channel */
		c->t = imax(c->t, c->side);
		break;
	default: {  /* a TP collective that fuses */
		int64_t a = tk(in->dur);
		c->sum[in->cat == CAT_PP ? SUM_PP : SUM_TP] += a;
		if (trace)
			trace_instr(s, r, STREAM_COMPUTE, STREAM_COMPUTE, in, c->t, a);
		c->t += a;
		break;
	}
	}
}

/* Add a fused run from now to c->t, its sums c->sum, to rank r's accounts. What is not an account's is the GPU
 * waiting for the host. */
static void fused_accounts(struct sim *s, int r, int64_t now, const struct clocks *c)
{
	int64_t *acc = &s->acc[(size_t)r * ACC_N];
	acc[ACC_COMPUTE] += c->sum[SUM_COMP];
	acc[ACC_OPTIMIZER] += c->sum[SUM_OPT];
	acc[ACC_TP] += c->sum[SUM_TP];
	acc[ACC_PP] += c->sum[SUM_PP];
	acc[ACC_HOST] += c->t - now - c->sum[SUM_COMP] - c->sum[SUM_OPT] - c->sum[SUM_TP] - c->sum[SUM_PP];
}

/* k passes at once of a piece whose map is m (tmap_stage_prepare), applied to a run's clocks. */
static inline void fused_passes(const struct tmap *m, uint32_t k, struct clocks *c)
{
	int64_t t0 = c->t;
	struct tmap mk;
	if (!m->has_side) {
		tmap_apply_pow(m, k, &c->t, &c->h, c->sum);  /* no copy of the map for its k-th power */
	} else {
		if (k > 1) {
			mk = *m;
			tmap_pow(&mk, k);
			m = &mk;
		}
		tmap_apply(m, &c->t, &c->h, &c->side);
		for (int i = 0; i < SUM_N; i++)
			c->sum[i] += m->sum[i];
	}
	if (m->waits)  /* no host term (tmap_stage_prepare): what it waited beyond its work was the side */
		c->sum[SUM_TP] += c->t - t0 - m->sum[SUM_COMP] - m->sum[SUM_OPT] - m->sum[SUM_TP] - m->sum[SUM_PP];
}

/* The fused run of rank r's compute stream from now (group: its TP group in step, so TP collectives fuse too):
 * advances its cursor, host and side clocks, and leaves in *out the run's end (out->t) and what it adds to each
 * account; the caller adds them (fused_accounts) and marks the stream busy until then. */
static void fused(struct sim *s, int r, int64_t now, int group, struct clocks *out)
{
	size_t si = (size_t)r * NSTREAMS + STREAM_COMPUTE;
	int st = rank_stage(s, r);
	const struct program *p = s->prog_of[r];
	int tp_fuses = s->cfg.tp_sim == 1 || group;
	double sp = s->cfg.stage_speed ? s->cfg.stage_speed[st] : 1;
	const struct tmap_stage *ts = &(group ? s->gmap : s->stmap)[st];
	const uint16_t *pmap = ts->map_of;
	struct clocks c = { now, s->host_t[r], s->side_t[r], { 0 } };
	const struct span *sps = p->spans[STREAM_COMPUTE];
	struct program_cursor cu = s->pc[si];  /* stepped as program_cursor_next steps it */
	const struct instr *first = cu.end - sps[cu.span].n;  /* its span's first instruction */
	for (;;) {
		const struct instr *last = cu.in;
		uint32_t reps = sps[cu.span].reps;
		if (cu.in == first && pmap[cu.span]) {
			/* the rest of a span at once: reps - rep passes */
			fused_passes(&ts->maps[pmap[cu.span] - 1], reps - cu.rep, &c);
			last = cu.end - 1;
			cu.rep = reps - 1;
		} else {
			fused_one(s, r, cu.in, sp, &c);
		}
		/* the next instruction, and whether it joins the run */
		cu.in = last;
		const struct instr *nx = last + 1;
		if (nx == cu.end) {
			struct program_cursor nc = cu;
			if (++nc.rep < reps)
				nc.in = first;
			else
				program_cursor_next_span(p, STREAM_COMPUTE, &nc);
			nx = nc.in;
			if (!nx || (nx->flags & INSF_UNIT_START) || !tmap_fusable(nx, tp_fuses))
				break;
			if (nc.rep == 0)  /* a new span, or its loop's next pass */
				first = nx;
			cu = nc;
			continue;
		} else if ((nx->flags & INSF_UNIT_START) || !tmap_fusable(nx, tp_fuses)) {
			break;
		}
		cu.in = nx;
	}
	/* the event ends the last instruction of the run; finish() steps past it. Its ids' offsets, as its
	 * repetitions and loop passes stepped them (a map may have crossed several repetitions) */
	cu.eoff = sps[cu.span].eoff + (int32_t)(cu.lrep + cu.rep) * sps[cu.span].estep;
	cu.soff = sps[cu.span].soff + (int32_t)(cu.lrep + cu.rep) * sps[cu.span].sstep;
	s->pc[si] = cu;
	s->host_t[r] = c.h;
	s->side_t[r] = c.side;
	*out = c;
}

/* The start of a fused run of rank r from now (c from fused(), its trace held when tracing with interference or
 * for a TP group): the run's planned span for its timeline, and the interference of a DP collective already
 * running beside it (coll_interference's comment): slowed over their overlap, where its GPU computes. Returns the
 * run's compute ticks, the slowing included. */
static int64_t run_start(struct sim *s, int r, int64_t now, struct clocks *c)
{
	int64_t comp = c->sum[SUM_COMP] + c->sum[SUM_OPT];
	if (s->tbuf)
		s->run_c0[r] = comp;
	if (s->interf && s->cfg.compute_slowdown > 0 && overlapping(s, r, STREAM_DP, now) && c->t > now) {
		int64_t len = c->t - now;
		int64_t ext = tk(tk_s(imin(s->busy_until[(size_t)r * NSTREAMS + STREAM_DP] - now, len)) *
				 fmin((double)comp / (double)len, 1.0) * s->cfg.compute_slowdown);
		c->sum[SUM_COMP] += ext;
		comp += ext;
		c->t += ext;
	}
	return comp;
}

static void run_fused(struct sim *s, int r, int64_t now)
{
	size_t si = (size_t)r * NSTREAMS + STREAM_COMPUTE;
	struct clocks c;
	account_idle(s, r, now);
	if (s->tbuf)
		s->thold = r + 1;
	fused(s, r, now, 0, &c);
	s->thold = 0;
	s->run_comp[r] = run_start(s, r, now, &c);
	s->running[r] = 1;
	fused_accounts(s, r, now, &c);
	start_until(s, r, STREAM_COMPUTE, now, c.t, EV_STREAM, (uint32_t)si);
}

/* Whether rank r's TP group is in step (1): every member runnable now at the same instruction with the same
 * host and side clocks. Then each would run the same fused run and arrive at its TP collectives together, so the
 * group's collectives fuse (start at once, as the engine would start them with the last arrival) and one run
 * stands for every member: tp_sim times fewer runs and events, the same times to the tick. -1: a member is
 * runnable now but behind r (it has yet to pass a receive or a wait that r passed in this batch): r waits for it
 * (run_compute). 0: neither. */
static int in_step(const struct sim *s, int r)
{
	int tp = s->cfg.tp_sim, t = rank_t(s, r), r0 = r - t, same = 1;
	size_t i = (size_t)r * NSTREAMS + STREAM_COMPUTE;
	/* the members after r first: woken in rank order, the next one is the one still behind */
	for (int n = 1; n < tp; n++) {
		int q = r0 + (t + n) % tp;
		size_t j = (size_t)q * NSTREAMS + STREAM_COMPUTE;
		if (s->state[j] != STEADY_RUN)
			return 0;
		if (!program_cursor_same(&s->pc[j], &s->pc[i])) {
			if (program_cursor_before(s->prog_of[r], &s->pc[j], &s->pc[i]))
				return -1;
			same = 0;
		} else if (s->host_t[q] != s->host_t[r] || s->side_t[q] != s->side_t[r]) {
			same = 0;
		}
	}
	return same;
}

/* The fused run of a TP group in step (in_step): computed for r, copied to the other members (their own idle time
 * accounted first), one event ends it for all. */
static void run_group(struct sim *s, int r, int64_t now)
{
	int r0 = r - rank_t(s, r), tp = s->cfg.tp_sim;
	struct clocks c;
	for (int q = r0; q < r0 + tp; q++)
		if (s->idle_since[q] != now || s->block_cat[q] >= 0)  /* else nothing to account: woken now */
			account_idle(s, q, now);
	if (s->tbuf)
		s->thold = r + 1;
	fused(s, r, now, 1, &c);
	s->thold = 0;
	int64_t comp = run_start(s, r, now, &c);
	size_t i = (size_t)r * NSTREAMS + STREAM_COMPUTE;
	for (int q = r0; q < r0 + tp; q++) {
		size_t j = (size_t)q * NSTREAMS + STREAM_COMPUTE;
		if (q != r) {
			s->pc[j] = s->pc[i];
			s->host_t[q] = s->host_t[r];
			s->side_t[q] = s->side_t[r];
		}
		fused_accounts(s, q, now, &c);
		s->state[j] = STEADY_BUSY;
		s->busy_from[j] = now;
		s->busy_until[j] = c.t;
		s->run_comp[q] = comp;
		s->running[q] = 2;
	}
	s->grun[r0 / tp] = r;  /* whose slices stand for the group's (trace_flush) */
	eventq_push(&s->q, c.t, EV_GROUP, (uint32_t)(r0 / tp));
}

/* A fused run of rank r's compute stream, with its TP group when the group is in step, after the members behind
 * it at this time: r runs again later in this batch's turn (make_runnable), when they have caught up or blocked.
 * The member furthest behind never waits, so the batch ends. Returns 0 when the caller runs r alone. */
static int run_with_group(struct sim *s, int r, int64_t now)
{
	int step_state = s->group ? in_step(s, r) : 0;
	if (step_state > 0)
		run_group(s, r, now);
	else if (step_state < 0)
		make_runnable(s, r, STREAM_COMPUTE);
	return step_state != 0;
}

/* in_step's most common answer, -1, found as in_step finds it first: the next member is runnable and behind r (it
 * has yet to pass a receive or a wait that r passed). */
static inline int next_behind(const struct sim *s, int r)
{
	int t = rank_t(s, r);
	size_t j = (size_t)(t + 1 < s->cfg.tp_sim ? r + 1 : r - t) * NSTREAMS;
	return s->state[j] == STEADY_RUN && program_cursor_before(s->prog_of[r], &s->pc[j], &s->pc[(size_t)r * NSTREAMS]);
}

static void run_compute(struct sim *s, int r, int64_t now)
{
	if (s->group && next_behind(s, r))
		make_runnable(s, r, STREAM_COMPUTE);  /* r waits for it (run_with_group) */
	else if (!run_with_group(s, r, now))
		run_fused(s, r, now);
}

/* Advance stream si (rank r, stream k) from the current time until it is busy, blocked or done. */
static void run(struct sim *s, uint32_t si, int64_t now)
{
	int r = (int)(si / NSTREAMS), k = (int)(si - (uint32_t)r * NSTREAMS);
	struct program_cursor *c = &s->pc[si];  /* the stream's cursor (a fused run moves it too) */
	for (;;) {
		const struct instr *in = c->in;
		if (!in) {
			s->state[si] = STEADY_DONE;
			s->end_t[si] = now;
			return;
		}
		switch (in->kind) {
		case INS_COMPUTE: {
			if (k == STREAM_COMPUTE) {
				run_compute(s, r, now);
				return;
			}
			/* a side stream's own op (program_side_op), traced when it ends (EV_SEGMENT) */
			int64_t dur = tk(in->dur);
			s->arrive[si] = now;
			start_until(s, r, k, now, now + dur, s->seg_ev, si);
			return;
		}
		case INS_RECORD: {
			uint32_t ev = (uint32_t)program_cursor_event(c);
			s->ev_done[(size_t)r * s->evwords + ev / 64] |= 1ull << (ev % 64);
			const int32_t *bid = &s->block_id[(size_t)r * NSTREAMS];
			for (unsigned m = s->waiting[r] & 0xffu; m; m &= m - 1) {
				int k2 = __builtin_ctz(m);
				if (bid[k2] == (int32_t)ev)
					wake(s, r, k2, now);
			}
			step_c(s, r, k, c);
			continue;
		}
		case INS_SIDE:
		case INS_SIDE_WAIT:
			run_compute(s, r, now);
			return;
		case INS_HOST:
			if (s->host_t[r] + tk(in->dur) > now) {
				run_compute(s, r, now);  /* the GPU waits for the host: a run from here */
				return;
			}
			s->host_t[r] += tk(in->dur);  /* the host's own work, done before the GPU gets here */
			step_c(s, r, k, c);
			continue;
		case INS_WAIT: {
			uint32_t ev = (uint32_t)program_cursor_event(c);
			if (s->ev_done[(size_t)r * s->evwords + ev / 64] >> (ev % 64) & 1) {
				step_c(s, r, k, c);
				continue;
			}
			block(s, r, k, in->cat, (int32_t)ev, -1);
			return;
		}
		case INS_RECV: {
			uint32_t slot = (uint32_t)program_cursor_slot(c);
			if (s->mb_done[(size_t)r * s->slotwords + slot / 64] >> (slot % 64) & 1) {
				step_c(s, r, k, c);
				continue;
			}
			block(s, r, k, CAT_PP, 0, (int)slot);
			return;
		}
		case INS_COLL: {
			if (k == STREAM_COMPUTE && in->group == GROUP_TP && s->cfg.tp_sim == 1) {
				run_fused(s, r, now);
				return;
			}
			if (k == STREAM_COMPUTE && in->group == GROUP_TP && run_with_group(s, r, now))
				return;
			if (k == STREAM_COMPUTE)
				account_idle(s, r, now);
			s->arrive[si] = now;
			int st = rank_stage(s, r), g, members;
			int32_t *arrived;
			if (in->group == GROUP_TP) {
				g = st * s->cfg.dp_sim + rank_d(s, r);
				members = s->cfg.tp_sim;
				arrived = &s->tp_arrived[(size_t)g * NSTREAMS + k];
			} else {
				g = st * s->cfg.tp_sim + rank_t(s, r);
				members = s->cfg.dp_sim;
				arrived = &s->dp_arrived[(size_t)g * NSTREAMS + k];
			}
			s->state[si] = STEADY_BLOCKED;
			if (++*arrived == members) {
				*arrived = 0;
				start_coll(s, r, k, in, now, g);
			}
			return;
		}
		case INS_SEND: {
			size_t l = (size_t)r * LINK_N + in->scope;
			s->arrive[si] = now;
			if (!s->link_busy[l]) {
				start_transfer(s, r, k, in, now);
			} else {
				s->link_wait[l * 2 + s->link_nwait[l]++] = (uint8_t)k;
				s->state[si] = STEADY_BLOCKED;
			}
			return;
		}
		}
	}
}

static inline void finish(struct sim *s, int r, int k, int64_t now)
{
	if (k == STREAM_COMPUTE) {
		s->idle_since[r] = now;
		s->running[r] = 0;
	}
	step(s, r, k);
	make_runnable(s, r, k);
}

static void coll_done(struct sim *s, const struct event *e)
{
	int k = (int)(e->what >> 28), g = (int)(e->what & 0x0fffffff);
	int tp = s->cfg.tp_sim, dp = s->cfg.dp_sim;
	int n = e->kind == EV_COLL_TP ? tp : dp;
	for (int i = 0; i < n; i++) {
		int r = e->kind == EV_COLL_TP ? g * tp + i
				: rank_of(s, g / tp, i, g % tp);
		size_t si = (size_t)r * NSTREAMS + k;
		const struct instr *in = cur(s, r, k);
		if (k == STREAM_COMPUTE)
			s->acc[(size_t)r * ACC_N + (in->cat == CAT_TP ? ACC_TP : in->cat == CAT_DP ? ACC_DP :
					in->cat == CAT_PP ? ACC_PP : ACC_COMPUTE)] += e->t - s->arrive[si];
		if (s->cfg.trace)
			trace_instr(s, r, k, k, in, s->arrive[si], e->t - s->arrive[si]);
		finish(s, r, k, e->t);
	}
}

static void link_done(struct sim *s, int r, int k, int64_t now)
{
	const struct instr *in = cur(s, r, k);
	size_t l = (size_t)r * LINK_N + in->scope;
	int dst = rank_of(s, in->dest, rank_d(s, r), rank_t(s, r));
	uint32_t arg = cur_slot(s, r, k);
	s->mb_done[(size_t)dst * s->slotwords + arg / 64] |= 1ull << (arg % 64);
	s->land_start[dst] = s->link_start[l];
	if (s->cfg.trace) {
		/* the stream is held from its arrival at the send, the link only while it carries the transfer: they
		 * differ when the other send stream had the link first */
		size_t si = (size_t)r * NSTREAMS + k;
		trace_instr(s, r, k, k, in, s->arrive[si], now - s->arrive[si]);
		trace_instr(s, r, k, TRACK_LINK + in->scope, in, s->link_start[l], now - s->link_start[l]);
	}
	const int32_t *bid = &s->block_id[(size_t)dst * NSTREAMS];
	for (unsigned m = s->waiting[dst] >> 8; m; m &= m - 1) {
		int k2 = __builtin_ctz(m);
		if (bid[k2] == (int32_t)arg)
			wake(s, dst, k2, now);
	}
	s->link_busy[l] = 0;
	if (s->link_nwait[l]) {
		int k2 = s->link_wait[l * 2];
		s->link_wait[l * 2] = s->link_wait[l * 2 + 1];
		s->link_nwait[l]--;
		start_transfer(s, r, k2, cur(s, r, k2), now);
	}
	finish(s, r, k, now);
}

static void handle(struct sim *s, const struct event *e)
{
	int64_t now = e->t;
	s->events++;
	switch (e->kind & EV_KIND_MASK) {
	case EV_STREAM: {
		if (s->state[e->what] != STEADY_BUSY || s->busy_until[e->what] != now) {
			s->events--;  /* superseded by a later end (interference): not an event */
			break;
		}
		int r = (int)(e->what / NSTREAMS), k = (int)(e->what % NSTREAMS);
		if (s->tbuf && k == STREAM_COMPUTE)
			trace_flush(s, r);
		finish(s, r, k, now);
		break;
	}
	case EV_SEGMENT: {
		if (s->state[e->what] != STEADY_BUSY || s->busy_until[e->what] != now) {
			s->events--;  /* superseded, as above */
			break;
		}
		int r = (int)(e->what / NSTREAMS), k = (int)(e->what % NSTREAMS);
		int64_t t0 = s->arrive[e->what];
		trace_segment(s, r, k, cur(s, r, k), t0, now - t0);
		finish(s, r, k, now);
		break;
	}
	case EV_COLL_TP:
	case EV_COLL_DP:
		coll_done(s, e);
		break;
	case EV_GROUP: {  /* a TP group's fused run (run_group) */
		int r0 = (int)e->what * s->cfg.tp_sim;
		size_t i0 = (size_t)r0 * NSTREAMS + STREAM_COMPUTE;
		if (s->state[i0] != STEADY_BUSY || s->busy_until[i0] != now) {
			s->events--;  /* superseded by a later end (interference): not an event */
			break;
		}
		if (s->tbuf)
			trace_flush(s, s->grun[e->what]);
		for (int q = r0; q < r0 + s->cfg.tp_sim; q++)
			finish(s, q, STREAM_COMPUTE, now);
		break;
	}
	case EV_LINK: {
		int r = (int)(e->what / NSTREAMS), k = (int)(e->what % NSTREAMS), more = (int)(e->kind >> EV_KIND_BITS);
		s->events += more;
		for (int i = 0; i <= more; i++)
			link_done(s, r + i, k, now);
		break;
	}
	}
}

int sim_run(struct sim *s)
{
	for (int r = 0; r < s->nranks; r++)
		for (int k = 0; k < NSTREAMS; k++)
			make_runnable(s, r, k);
	if (!(s->work_s < 0x1p21))
		return diag_errorf("the step's work adds up to %.3g s, past the simulator's range of 2^21 s (24 days): "
				   "a number in the hardware model or the scenario is out of scale", s->work_s);
	int64_t now = 0;
	for (;;) {
		while (s->nwork) {
			/* FIFO over the batch woken at this time keeps the order deterministic and fair */
			size_t n = s->nwork;
			uint32_t *batch = s->work;
			size_t cap = s->capwork;
			s->work = s->batch;
			s->capwork = s->capbatch;
			s->batch = batch;
			s->capbatch = cap;
			s->nwork = 0;
			for (size_t i = 0; i < n; i++)
				if (s->state[batch[i]] == STEADY_RUN)  /* not already advanced with its group (run_group) */
					run(s, batch[i], now);
		}
		/* a checkpoint once a pass of rank 0's loop: its next passes may be the last ones translated */
		if (s->steady && s->pc[0].lrep != s->steady_lrep) {
			now += steady_pass(s->steady, &s->view, now);
			s->steady_lrep = s->pc[0].lrep;
		}
		/* every event of this time, then the streams they woke: the members of a group woken by separate
		 * events (their transfers landing, their DP groups' collectives ending) are then runnable together */
		if (!eventq_len(&s->q))
			break;
		now = eventq_next_time(&s->q);
		do {
			struct event e;
			eventq_pop(&s->q, &e);
			handle(s, &e);
		} while (eventq_len(&s->q) && eventq_next_time(&s->q) == now);
	}
	s->step_time = 0;
	for (int r = 0; r < s->nranks; r++)
		for (int k = 0; k < NSTREAMS; k++) {
			size_t si = (size_t)r * NSTREAMS + k;
			if (s->state[si] != STEADY_DONE) {
				const struct instr *in = cur(s, r, k);
				return diag_errorf("internal error: simulation deadlock: stage %d stream %d stuck in "
						   "span %u (kind %d)", rank_stage(s, r), k, s->pc[si].span,
						   in ? in->kind : -1);
			}
			if (s->end_t[si] > s->step_time)
				s->step_time = s->end_t[si];
		}
	for (int r = 0; r < s->nranks; r++) {
		int64_t tail = s->step_time - s->end_t[(size_t)r * NSTREAMS], head = imax(s->head_wait[r], 0);
		s->acc[(size_t)r * ACC_N + ACC_BUBBLE] += tail;
		/* steps repeat: the last wait and the next step's first are one (its loss replaces the first's) */
		s->acc[(size_t)r * ACC_N + ACC_WAIT_LOST] += wait_lost(s, head + tail) - wait_lost(s, head);
	}
	return 0;
}

double sim_step_time(const struct sim *s) { return tk_s(s->step_time); }
long long sim_events(const struct sim *s) { return s->events; }
long sim_translated_passes(const struct sim *s) { return steady_applied(s->steady); }
int sim_nranks(const struct sim *s) { return s->nranks; }
int sim_rank_stage(const struct sim *s, int rank) { return rank_stage(s, rank); }

int sim_critical_rank(const struct sim *s)
{
	int best = 0;
	for (int r = 1; r < s->nranks; r++)
		if (s->end_t[(size_t)r * NSTREAMS] > s->end_t[(size_t)best * NSTREAMS])
			best = r;
	return best;
}

void sim_rank_breakdown(const struct sim *s, int rank, double acc[ACC_N])
{
	for (int i = 0; i < ACC_N; i++)
		acc[i] = tk_s(s->acc[(size_t)rank * ACC_N + i]);
}
