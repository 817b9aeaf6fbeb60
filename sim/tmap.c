/* tmap: tick maps (see tmap.h). */
#include "sim/tmap.h"

#include <stdlib.h>
#include <string.h>
#include "util/xalloc.h"

void tmap_instr(const struct instr *in, double sp, struct tmap *m)
{
	memset(m, 0, sizeof *m);
	m->B = TMAP_NEG;
	if (in->kind == INS_COMPUTE) {
		double d = in->dur / sp;
		m->A = tk(d);
		if (in->host > 0)
			tmap_host_terms(d, in, &m->B, &m->C);
		m->sum[in->cat == CAT_OPTIMIZER ? SUM_OPT : SUM_COMP] = m->A;
	} else if (in->kind == INS_HOST) {
		m->B = m->C = tk(in->dur);
	} else if (in->kind == INS_SIDE) {
		/* s' = max(s, t) + a; t' = t */
		m->has_side = 1;
		m->D = m->F = TMAP_NEG;
		m->E = m->G = tk(in->dur);
	} else if (in->kind == INS_SIDE_WAIT) {
		/* t' = max(t, s); s' = s */
		m->has_side = m->waits = 1;
		m->E = m->F = TMAP_NEG;
	} else {
		m->A = tk(in->dur);
		m->sum[in->cat == CAT_PP ? SUM_PP : SUM_TP] = m->A;
	}
}

/* A map without the side channel as one with it: s' = s. */
static struct tmap with_side(const struct tmap *m)
{
	struct tmap x = *m;
	if (!x.has_side) {
		x.has_side = 1;
		x.D = x.E = x.F = TMAP_NEG;
		x.G = 0;
	}
	return x;
}

void tmap_then(struct tmap *m, const struct tmap *n)
{
	for (int i = 0; i < SUM_N; i++)
		m->sum[i] += n->sum[i];
	if (!m->has_side && !n->has_side) {
		m->B = imax(tmap_add(m->B, n->A), tmap_add(m->C, n->B));
		m->A += n->A;
		m->C += n->C;
		return;
	}
	/* the matrix product, written out (m first): t2 = max(t1 + A2, h1 + B2, s1 + D2), s2 likewise */
	struct tmap a = with_side(m), b = with_side(n);
	m->A = imax(a.A + b.A, tmap_add(a.E, b.D));
	m->B = imax(imax(tmap_add(a.B, b.A), tmap_add(a.C, b.B)), tmap_add(a.F, b.D));
	m->D = imax(tmap_add(a.D, b.A), tmap_add(a.G, b.D));
	m->E = imax(tmap_add(a.A, b.E), tmap_add(a.E, b.G));
	m->F = imax(imax(tmap_add(a.B, b.E), tmap_add(a.C, b.F)), tmap_add(a.F, b.G));
	m->G = imax(tmap_add(a.D, b.E), tmap_add(a.G, b.G));
	m->C = a.C + b.C;
	m->has_side = 1;
	m->waits = a.waits || b.waits;
}

/* the latest of B + j·A + (k-1-j)·C over j, linear in j: at j = 0 or j = k-1 */
void tmap_pow(struct tmap *m, uint32_t k)
{
	if (m->has_side) {
		/* by squaring: the sums scale with k, the matrix is m's k-th power */
		struct tmap sq = *m, acc = *m;
		for (uint32_t e = k - 1; e; e >>= 1) {
			if (e & 1)
				tmap_then(&acc, &sq);
			if (e > 1)
				tmap_then(&sq, &sq);
		}
		for (int i = 0; i < SUM_N; i++)
			acc.sum[i] = m->sum[i] * k;
		*m = acc;
		return;
	}
	if (m->B != TMAP_NEG)
		m->B += (int64_t)(k - 1) * imax(m->A, m->C);
	m->A *= k;
	m->C *= k;
	for (int i = 0; i < SUM_N; i++)
		m->sum[i] *= k;
}

static int piece_fusable(const struct instr *ins, const struct piece *pc, int tp_fuses)
{
	for (uint32_t j = 0; j < pc->n; j++) {
		const struct instr *in = &ins[pc->off + j];
		if (!tmap_fusable(in, tp_fuses) || ((in->flags & INSF_UNIT_START) && (j > 0 || pc->reps > 1)))
			return 0;
	}
	return 1;
}

/* A stage's pieces replay a few stored runs (a layer's forward or backward) a thousand times: each distinct run
 * is found once, through a hash on its offset. */
static void stage_index(const struct program *p, int tp_fuses, struct tmap_stage *out)
{
	size_t np = p->npieces[STREAM_COMPUTE], hsize = 16, n1 = np ? np : 1;
	while (hsize < 2 * np)
		hsize *= 2;
	uint32_t *hash = xcalloc(hsize, sizeof *hash);  /* slot -> 1 + first piece of that run */
	out->run_of = xmalloc(n1 * sizeof *out->run_of);
	out->first = xmalloc(n1 * sizeof *out->first);
	out->fusable = xmalloc(n1);
	out->comp = xmalloc(n1 * sizeof *out->comp);
	out->rest = xmalloc(n1 * sizeof *out->rest);
	out->passes = xmalloc(n1 * sizeof *out->passes);
	out->map_of = xmalloc(n1 * sizeof *out->map_of);
	out->nruns = 0;
	for (size_t i = 0; i < np; i++) {
		const struct piece *pc = &p->pieces[STREAM_COMPUTE][i];
		size_t h = ((size_t)pc->off * 0x9e3779b1u + pc->n) & (hsize - 1);
		while (hash[h]) {
			const struct piece *q = &p->pieces[STREAM_COMPUTE][hash[h] - 1];
			if (q->off == pc->off && q->n == pc->n && (q->reps > 1) == (pc->reps > 1))
				break;
			h = (h + 1) & (hsize - 1);
		}
		if (hash[h]) {
			out->run_of[i] = out->run_of[hash[h] - 1];
			out->passes[out->run_of[i]] += pc->reps;
			continue;
		}
		hash[h] = (uint32_t)i + 1;
		size_t r = out->nruns++;
		out->run_of[i] = (int32_t)r;
		out->first[r] = (uint32_t)i;
		out->passes[r] = pc->reps;
		out->fusable[r] = (pc->n > 1 || pc->reps > 1) && piece_fusable(p->ins[STREAM_COMPUTE], pc, tp_fuses);
		double comp = 0, rest = 0;
		for (uint32_t j = 0; j < pc->n; j++) {
			const struct instr *in = &p->ins[STREAM_COMPUTE][pc->off + j];
			if (in->kind == INS_COMPUTE) {
				comp += in->dur;
				rest += 2 * in->host;
			} else {
				rest += in->dur;
			}
		}
		out->comp[r] = comp;
		out->rest[r] = rest;
	}
	free(hash);
	out->mapped = xmalloc((out->nruns ? out->nruns : 1) * sizeof *out->mapped);
	out->nmaps = 0;
	for (size_t r = 0; r < out->nruns; r++)
		if (out->fusable[r] && out->nmaps < UINT16_MAX)
			out->mapped[out->nmaps++] = (uint32_t)r;
	out->maps = xmalloc((out->nmaps ? out->nmaps : 1) * sizeof *out->maps);
	/* the other streams' work: collectives, transfers, copies */
	out->other_streams = 0;
	for (int k = 1; k < NSTREAMS; k++)
		for (size_t i = 0; i < p->npieces[k]; i++)
			for (uint32_t j = 0; j < p->pieces[k][i].n; j++)
				out->other_streams += p->ins[k][p->pieces[k][i].off + j].dur * p->pieces[k][i].reps;
}

void tmap_stage_prepare(const struct program *p, double sp, int tp_fuses, int maps, struct tmap_stage *out)
{
	int first = !out->run_of;
	if (first)
		stage_index(p, tp_fuses, out);
	const struct piece *pcs = p->pieces[STREAM_COMPUTE];
	uint16_t *slot = first ? xcalloc(out->nruns ? out->nruns : 1, sizeof *slot) : NULL;  /* run -> 1 + map */
	for (size_t i = 0; maps && i < out->nmaps; i++) {
		uint32_t r = out->mapped[i];
		const struct piece *pc = &pcs[out->first[r]];
		struct tmap m = { .B = TMAP_NEG }, one;
		for (uint32_t j = 0; j < pc->n; j++) {
			tmap_instr(&p->ins[STREAM_COMPUTE][pc->off + j], sp, &one);
			tmap_then(&m, &one);
		}
		/* a wait for the side channel where the host also holds the GPU back: which of the two it waited for is
		 * known only instruction by instruction */
		out->maps[i] = m;
		if (first && (!m.waits || (m.B == TMAP_NEG && m.C == 0 && m.F == TMAP_NEG)))
			slot[r] = (uint16_t)(i + 1);
	}
	/* whether a run's map can be used depends on its instructions (host seconds, side waits), not on sp: the
	 * pieces are pointed to their maps once */
	for (size_t i = 0; first && i < p->npieces[STREAM_COMPUTE]; i++)
		out->map_of[i] = slot[out->run_of[i]];
	double total = out->other_streams;
	for (size_t r = 0; r < out->nruns; r++)
		total += (out->comp[r] / sp + out->rest[r]) * out->passes[r];
	out->work_s = total;
	free(slot);
}

void tmap_stage_release(struct tmap_stage *st)
{
	free(st->map_of);
	free(st->maps);
	free(st->mapped);
	free(st->run_of);
	free(st->first);
	free(st->fusable);
	free(st->comp);
	free(st->rest);
	free(st->passes);
	memset(st, 0, sizeof *st);
}

int64_t tmap_host_work(const struct program *p)
{
	/* over the stored instructions once: pre[i] the host work of instructions 0..i-1; a piece runs a stored
	 * range, so its pass is a difference */
	size_t n = p->n[STREAM_COMPUTE];
	int64_t *pre = xmalloc((n + 1) * sizeof *pre), h = 0;
	pre[0] = 0;
	for (size_t i = 0; i < n; i++) {
		const struct instr *in = &p->ins[STREAM_COMPUTE][i];
		int64_t w = 0;
		if (in->kind == INS_HOST) {
			w = tk(in->dur);
		} else if (in->kind == INS_COMPUTE && in->host > 0) {
			int64_t B;
			tmap_host_terms(in->dur, in, &B, &w);  /* C does not depend on the duration */
		}
		pre[i + 1] = pre[i] + w;
	}
	for (size_t i = 0; i < p->npieces[STREAM_COMPUTE]; i++) {
		const struct piece *pc = &p->pieces[STREAM_COMPUTE][i];
		h += (pre[pc->off + pc->n] - pre[pc->off]) * pc->reps;
	}
	free(pre);
	return h;
}
