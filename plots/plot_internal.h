/* plot_internal: what plots/plot.c shares with plots/timeline.c, not for other modules. */
#ifndef PLOT_INTERNAL_H
#define PLOT_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

/* Text from files (scenario and hardware names, reasons, titles, file names) never reaches gnuplot as script:
 * plot_gp_str writes it as a gnuplot single-quoted string (no escapes inside; a quote is doubled) with every
 * control character made a space (a line break would end the command and start another), a backquote made a
 * quote (gnuplot substitutes `command` output) and a run of quotes one quote (gnuplot misreads two doubled
 * quotes in a row); plot_text makes the same text safe for a '#' comment line or a
 * double-quoted .dat label (control characters and '"' replaced) into buf, and returns buf. */
void plot_gp_str(FILE *f, const char *s);
const char *plot_text(const char *s, char *buf, size_t n);
/* plot_close: fclose with the stream's error checked; 0, or GS_EENV after "cannot write 'path': ...". */
int plot_close(FILE *f, const char *path);
/* plot_base_name: the part of path after its last '/'. */
const char *plot_base_name(const char *path);

#endif
