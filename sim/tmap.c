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

/* The map of one pass over piece pc at stage speed sp. */
static struct tmap piece_map(const struct program *p, const struct piece *pc, double sp)
{
	struct tmap m = { .B = TMAP_NEG }, one;
	for (uint32_t j = 0; j < pc->n; j++) {
		tmap_instr(&p->ins[STREAM_COMPUTE][pc->off + j], sp, &one);
		tmap_then(&m, &one);
	}
	return m;
}

/* Each compute-stream span's map, from its piece's (piece_map_of): a span that runs a whole piece crosses it by the
 * piece's map (its repetitions are never more than the piece's), a part of one has none. */
static uint16_t *span_maps(const struct program *p, const uint16_t *piece_map_of)
{
	size_t ns = p->nspans[STREAM_COMPUTE];
	uint16_t *map_of = xmalloc((ns ? ns : 1) * sizeof *map_of);
	for (size_t i = 0; i < ns; i++) {
		uint32_t pi = p->span_piece[i];
		map_of[i] = pi == PROGRAM_SPAN_PART ? 0 : piece_map_of[pi];
	}
	return map_of;
}

/* A stage's pieces replay a few stored runs (a layer's forward or backward) a thousand times: each distinct run
 * is found once, through a hash on its offset, and its map made (at sp) when it can have one. */
static void stage_index(const struct program *p, double sp, int tp_fuses, int maps, struct tmap_stage *out)
{
	const struct piece *pcs = p->pieces[STREAM_COMPUTE];
	size_t np = p->npieces[STREAM_COMPUTE], hsize = 16, n1 = np ? np : 1, nruns = 0, cap = 0;
	while (hsize < 2 * np)
		hsize *= 2;
	uint32_t *hash = xcalloc(hsize, sizeof *hash);  /* slot -> 1 + first piece of that run */
	int32_t *run_of = xmalloc(n1 * sizeof *run_of);
	uint16_t *slot = xmalloc(n1 * sizeof *slot);    /* run -> 1 + its map, 0: none */
	uint16_t *piece_map_of = xmalloc(n1 * sizeof *piece_map_of);  /* piece -> its run's slot */
	double *comp = xmalloc(n1 * sizeof *comp), *rest = xmalloc(n1 * sizeof *rest);  /* run: one pass */
	out->maps = NULL;
	out->map_piece = NULL;
	out->nmaps = 0;
	out->comp = out->rest = 0;
	for (size_t i = 0, l = 0, lend = 0; i < np; i++) {
		const struct piece *pc = &pcs[i];
		for (; i >= lend; l++)  /* the loop piece i is in: its passes run the piece as often again */
			lend = p->loops[STREAM_COMPUTE][l].first + p->loops[STREAM_COMPUTE][l].n;
		double passes = (double)pc->reps * p->loops[STREAM_COMPUTE][l - 1].reps;
		size_t h = ((size_t)pc->off * 0x9e3779b1u + pc->n) & (hsize - 1);
		while (hash[h]) {
			const struct piece *q = &pcs[hash[h] - 1];
			if (q->off == pc->off && q->n == pc->n && (q->reps > 1) == (pc->reps > 1))
				break;
			h = (h + 1) & (hsize - 1);
		}
		size_t r;
		if (hash[h]) {
			r = (size_t)run_of[hash[h] - 1];
		} else {
			hash[h] = (uint32_t)i + 1;
			r = nruns++;
			double c = 0, o = 0;
			for (uint32_t j = 0; j < pc->n; j++) {
				const struct instr *in = &p->ins[STREAM_COMPUTE][pc->off + j];
				if (in->kind == INS_COMPUTE) {
					c += in->dur;
					o += 2 * in->host;
				} else {
					o += in->dur;
				}
			}
			comp[r] = c;
			rest[r] = o;
			slot[r] = 0;
			if (maps && (pc->n > 1 || pc->reps > 1) && out->nmaps < UINT16_MAX &&
			    piece_fusable(p->ins[STREAM_COMPUTE], pc, tp_fuses)) {
				struct tmap m = piece_map(p, pc, sp);
				/* a wait for the side channel where the host also holds the GPU back: which of the two it
				 * waited for is known only instruction by instruction */
				if (!m.waits || (m.B == TMAP_NEG && m.C == 0 && m.F == TMAP_NEG)) {
					if (out->nmaps == cap) {
						cap = cap ? 2 * cap : 8;
						out->maps = xrealloc(out->maps, cap * sizeof *out->maps);
						out->map_piece = xrealloc(out->map_piece, cap * sizeof *out->map_piece);
					}
					out->maps[out->nmaps] = m;
					out->map_piece[out->nmaps] = (uint32_t)i;
					slot[r] = (uint16_t)++out->nmaps;
				}
			}
		}
		run_of[i] = (int32_t)r;
		piece_map_of[i] = slot[r];
		out->comp += comp[r] * passes;
		out->rest += rest[r] * passes;
	}
	out->map_of = span_maps(p, piece_map_of);
	free(piece_map_of);
	free(hash);
	free(run_of);
	free(slot);
	free(comp);
	free(rest);
	out->other_streams = p->other_s;
}

void tmap_stage_prepare(const struct program *p, double sp, int tp_fuses, int maps, struct tmap_stage *out)
{
	if (!out->map_of)
		stage_index(p, sp, tp_fuses, maps, out);
	else
		for (size_t i = 0; i < out->nmaps; i++)
			out->maps[i] = piece_map(p, &p->pieces[STREAM_COMPUTE][out->map_piece[i]], sp);
	out->work_s = out->other_streams + out->comp / sp + out->rest;
}

void tmap_stage_release(struct tmap_stage *st)
{
	free(st->map_of);
	free(st->maps);
	free(st->map_piece);
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
	for (size_t l = 0; l < p->nloops[STREAM_COMPUTE]; l++) {
		const struct loop *lp = &p->loops[STREAM_COMPUTE][l];
		for (size_t i = lp->first; i < lp->first + lp->n; i++) {
			const struct piece *pc = &p->pieces[STREAM_COMPUTE][i];
			h += (pre[pc->off + pc->n] - pre[pc->off]) * pc->reps * lp->reps;  /* integers: any order */
		}
	}
	free(pre);
	return h;
}
