/* plot_internal: what plots/plot.c shares with plots/timeline.c, not for other modules. */
#ifndef PLOT_INTERNAL_H
#define PLOT_INTERNAL_H

#include <stdio.h>

/* plot_gp_str: s as a gnuplot single-quoted string (no escapes inside; a quote is doubled). */
void plot_gp_str(FILE *f, const char *s);
/* plot_close: fclose with the stream's error checked; 0, or GS_EENV after "cannot write 'path': ...". */
int plot_close(FILE *f, const char *path);
/* plot_base_name: the part of path after its last '/'. */
const char *plot_base_name(const char *path);

#endif
