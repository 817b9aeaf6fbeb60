/* slurp: a whole file in memory, for the readers that parse text (util/csvr.h, util/jsonr.h, sweep tables). */
#ifndef SLURP_H
#define SLURP_H

#include <stddef.h>

/* slurp_file: the file's bytes plus a NUL (caller frees) and their count in *len; NULL after
 * "gpusim: cannot open 'path': why" or "cannot read" with *err = GS_EENV. */
char *slurp_file(const char *path, size_t *len, int *err);

#endif
