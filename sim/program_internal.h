/* program_internal: what sim/program.c and sim/program_loop.c share; no other module includes it. */
#ifndef PROGRAM_INTERNAL_H
#define PROGRAM_INTERNAL_H

#include "sim/program.h"

/* Whether two stored instructions are the same, field for field (bit for bit). */
int program_instr_same(const struct instr *a, const struct instr *b);
/* The first guess's sums (program.pw, program.pcoll) before the next compute-stream instruction stored. */
void program_next_sums(const struct program *p, double *w, double *c);
/* Seal the pieces no instruction to come can change (all: every one, at the program's end). */
void program_seal_pieces(struct program *p, int all);
/* At a unit's start, after program_seal_pieces: fold stream st's newest passes into a loop when they repeat. */
void program_fold(struct program *p, enum stream_kind st);

#endif
