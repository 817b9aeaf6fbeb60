/* pareto: a scatter plot of purchase options, cost against time to train, one point per option and the Pareto
 * front (no other option both sooner and cheaper) drawn as a line through its points, by gnuplot with the
 * conventions of plot.h (FILE.png.dat, FILE.png.gp read by bare name, plot_render to draw). Option names are
 * data: they are written to the .dat file with every character outside [A-Za-z0-9._+-] replaced by '_', and
 * the script reads them from there, so no name ever becomes gnuplot code. */
#ifndef PLOTS_PARETO_H
#define PLOTS_PARETO_H

#include <stdbool.h>
#include "plots/plot.h"

struct plot_point {
	const char *label;   /* "h100-dgx/256" */
	double x, y;         /* time to train (in the caller's unit), cost */
	bool front;
};

/* plot_pareto: pf->data and pf->script for n points; xlabel and ylabel name the axes and units ("time to train
 * (days)", "cost (USD)": constants of the caller's, quoted like any text). 0, GS_EINVAL after a message when n is
 * 0, GS_EENV when a file cannot be written. */
int plot_pareto(const struct plot_point *p, int n, const struct plot_files *pf, const char *xlabel,
		const char *ylabel);

#endif
