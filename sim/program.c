/* program: append-only instruction lists per stream. Invariant: at most one segment is open, it is the last
 * instruction of STREAM_COMPUTE, and its dur is the in-order sum of the times added to it (each the in-order
 * sum of a run of its ops). */
#include "sim/program.h"

#include <stdlib.h>
#include <string.h>
#include "util/xalloc.h"

void program_init(struct program *p, int nslots, int keep_ops)
{
	memset(p, 0, sizeof *p);
	p->nslots = nslots;
	p->keep_ops = keep_ops;
}

void program_release(struct program *p)
{
	for (int s = 0; s < NSTREAMS; s++) {
		free(p->ins[s]);
		free(p->ranges[s]);
	}
	free(p->ops);
	memset(p, 0, sizeof *p);
}

void program_reserve(struct program *p, enum stream_kind st, size_t n)
{
	if (p->cap[st] >= p->n[st] + n)
		return;
	p->cap[st] = p->n[st] + n;
	p->ins[st] = xrealloc(p->ins[st], p->cap[st] * sizeof *p->ins[st]);
	if (p->keep_ops)
		p->ranges[st] = xrealloc(p->ranges[st], p->cap[st] * sizeof *p->ranges[st]);
}

static struct instr *push(struct program *p, enum stream_kind st)
{
	if (p->n[st] == p->cap[st])
		program_reserve(p, st, p->cap[st] ? p->cap[st] : 64);
	if (p->keep_ops)
		p->ranges[st][p->n[st]] = (struct op_range){ 0, 0 };
	struct instr *in = &p->ins[st][p->n[st]++];
	memset(in, 0, sizeof *in);
	if (st == STREAM_COMPUTE && p->unit_pending) {
		in->flags |= INSF_UNIT_START;
		p->unit_pending = 0;
	}
	return in;
}

static uint32_t push_op(struct program *p, const char *name, double dur, double bytes, int layer, int mb)
{
	if (!p->keep_ops)
		return 0;
	if (p->nops == p->opcap) {
		p->opcap = p->opcap ? 2 * p->opcap : 256;
		p->ops = xrealloc(p->ops, p->opcap * sizeof *p->ops);
	}
	p->ops[p->nops] = (struct op){ name, dur, bytes, layer, mb };
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

void program_add_time(struct program *p, int nops, double dur_s)
{
	struct instr *seg = &p->ins[STREAM_COMPUTE][p->n[STREAM_COMPUTE] - 1];
	seg->dur += dur_s;
	seg->nops = (uint16_t)(seg->nops + nops > UINT16_MAX ? UINT16_MAX : seg->nops + nops);
}

int program_record(struct program *p, enum stream_kind st)
{
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

void program_coll(struct program *p, enum stream_kind st, enum group_kind g, double dur_s, double bytes,
		  enum cat cat, const char *name, int layer, int mb)
{
	program_flush(p);
	uint32_t id = push_op(p, name, dur_s, bytes, layer, mb);
	struct instr *in = push(p, st);
	in->kind = INS_COLL;
	in->nops = 1;
	in->group = (uint8_t)g;
	in->cat = (uint8_t)cat;
	in->dur = dur_s;
	if (p->keep_ops)
		p->ranges[st][p->n[st] - 1] = (struct op_range){ id, 1 };
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
