/* plot: report plots of a scaling sweep (scale/scale.h), drawn by gnuplot. For an image FILE.png (or .svg, .pdf)
 * plot_write writes FILE.png.dat (the numbers, one block per hardware model) and FILE.png.gp (a commented gnuplot
 * script that reads FILE.png.dat by its bare name and writes FILE.png), and plot_render runs gnuplot on the script
 * from its folder, so a user restyles a plot by editing FILE.png.gp and running `gnuplot FILE.png.gp` there; the
 * .svg and .pdf of one sweep get scripts of their own. gnuplot is the only
 * backend and stays in this module: nothing else in gpusim starts a program. */
#ifndef PLOT_H
#define PLOT_H

#include <stddef.h>
#include "scale/scale.h"

enum plot_kind {
	PLOT_EFFICIENCY,  /* scaling efficiency vs GPUs, a line per hardware model, ideal at 100 % */
	PLOT_THROUGHPUT,  /* tokens/s vs GPUs (log-log), a line per hardware model and its ideal */
	PLOT_BREAKDOWN,   /* step time split into compute, exposed TP/PP/DP communication, bubble, optimizer */
	PLOT_COMPARE,     /* two hardware models: throughput of both, and the ratio of the first to the second */
	PLOT_TIMELINE,    /* one simulated step from a `predict --trace` file (plot_timeline), not a sweep */
	PLOT_NKINDS
};

/* plot_kind_parse: 0, or GS_EUSAGE for an unknown name; plot_kind_names: NULL-terminated, in enum order. */
int plot_kind_parse(const char *s, enum plot_kind *out);
extern const char *const plot_kind_names[];

struct plot_files {
	char image[4096], script[4096], data[4096];  /* dir/name.png, dir/name.png.gp, dir/name.png.dat */
	char dir[4096];                               /* folder gnuplot runs in ("." for none) */
	const char *terminal;                         /* pngcairo, svg or pdfcairo */
};

/* plot_files_for: the three paths and the terminal for an image path; 0, or GS_EUSAGE when the extension is not
 * .png, .svg or .pdf, the path is too long, or the file's name (written into the script) holds a control
 * character, a quote or a backquote. */
int plot_files_for(const char *image, struct plot_files *out);

/* plot_write: FILE.png.dat and FILE.png.gp for kind (not PLOT_TIMELINE) from table t; title NULL: one naming the scenario, the mode and the
 * hardware. 0, GS_EINVAL after a message when the table cannot give that plot (no feasible row; compare without
 * exactly two hardware models), GS_EENV when a file cannot be written. */
int plot_write(const struct scale_table *t, enum plot_kind kind, const struct plot_files *pf, const char *title);

/* What plot_timeline draws: which stages' traced GPU and which part of the step. */
struct plot_timeline_opts {
	const char *ranks;      /* NULL or "critical": the critical stage; "all"; or stage numbers "0,3" */
	double from_ms, to_ms;  /* the window; to_ms 0: to the end of the step */
};

/* plot_timeline: FILE.png.dat and FILE.png.gp drawing the trace-event file trace (gpusim predict --trace): a row
 * per track of the chosen stages' traced GPU, time across (seconds from a 2 s window up), a colour per category,
 * passes labelled with their micro-batch; when passes are too many to tell apart, forward passes get a row of
 * their own. o NULL: the critical stage, the whole step. 0, or GS_EINVAL / GS_EENV after a message (a file that
 * is no trace, nothing to draw, a file not writable), GS_EUSAGE for a bad o->ranks. */
int plot_timeline(const char *trace, const struct plot_files *pf, const char *title,
		  const struct plot_timeline_opts *o);

/* plot_render: run `gnuplot SCRIPT` (program: the gnuplot to run, found on PATH) in pf->dir and check that it
 * exited 0 and left a non-empty image. 0; GS_EENV when gnuplot cannot be started (not installed: *not_found set);
 * GS_EINVAL when gnuplot failed (its messages are on stderr; a partial image is removed). */
int plot_render(const struct plot_files *pf, const char *program, int *not_found);

#endif
