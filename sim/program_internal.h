/* program_internal: what sim/program.c and sim/program_loop.c share; no other module includes it. */
#ifndef PROGRAM_INTERNAL_H
#define PROGRAM_INTERNAL_H

#include "sim/program.h"

#include <string.h>

/* Whether two stored instructions are the same, field for field (bit for bit). */
static inline int program_instr_same(const struct instr *a, const struct instr *b)
{
	return memcmp(&a->dur, &b->dur, sizeof a->dur) == 0 && memcmp(&a->host, &b->host, sizeof a->host) == 0 &&
	       a->arg == b->arg && a->dest == b->dest &&
	       a->nops == b->nops && a->kind == b->kind && a->cat == b->cat && a->group == b->group &&
	       a->scope == b->scope && a->flags == b->flags && a->astep == b->astep;
}
/* The first guess's sums (program.pw, program.pcoll) before the next compute-stream instruction stored. */
void program_next_sums(const struct program *p, double *w, double *c);
/* Seal the pieces no instruction to come can change (all: every one, at the program's end). */
void program_seal_pieces(struct program *p, int all);
/* At a unit's start, after program_seal_pieces: fold each stream's newest passes into a loop when they repeat,
 * and note what that did to the pass (program.pass). */
void program_fold_all(struct program *p);
/* At the program's end, after every piece is sealed: expand each stream's loops into its spans (struct span). */
void program_make_spans(struct program *p);

#endif
