/* pareto: cost against time to train, the front marked (pareto.h). */
#include "plots/pareto.h"
#include "plots/plot_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/gserr.h"
#include "util/xalloc.h"

/* A label as one whitespace-free data token of safe characters. */
static void put_label(FILE *f, const char *s)
{
	if (!*s)
		fputc('_', f);
	for (; *s; s++)
		fputc(isalnum((unsigned char)*s) || strchr("._+-/", *s) ? *s : '_', f);
}

static int by_x(const void *a, const void *b)
{
	const struct plot_point *p = *(const struct plot_point *const *)a, *q = *(const struct plot_point *const *)b;
	return (p->x > q->x) - (p->x < q->x);
}

int plot_pareto(const struct plot_point *p, int n, const struct plot_files *pf, const char *xlabel,
		const char *ylabel)
{
	if (n <= 0)
		return diag_errorf("nothing to plot: no purchase option has a layout that fits");
	FILE *f = fopen(pf->data, "w");
	if (!f) {
		diag_errorf("cannot open '%s' for writing: %s", pf->data, strerror(errno));
		return GS_EENV;
	}
	fputs("# gpusim plan: purchase options, cost against time to train\n"
	      "# block 0: every option; block 1: the Pareto front, by time to train\n"
	      "# time_to_train cost on_front label\n", f);
	for (int i = 0; i < n; i++) {
		fprintf(f, "%.9g %.9g %d ", p[i].x, p[i].y, p[i].front);
		put_label(f, p[i].label);
		fputc('\n', f);
	}
	const struct plot_point **v = xcalloc((size_t)n, sizeof *v);
	int nf = 0;
	for (int i = 0; i < n; i++)
		if (p[i].front)
			v[nf++] = &p[i];
	qsort(v, (size_t)nf, sizeof *v, by_x);
	fputs("\n\n", f);
	for (int i = 0; i < nf; i++) {
		fprintf(f, "%.9g %.9g 1 ", v[i]->x, v[i]->y);
		put_label(f, v[i]->label);
		fputc('\n', f);
	}
	free(v);
	int rc = plot_close(f, pf->data);
	if (rc != 0)
		return rc;

	f = fopen(pf->script, "w");
	if (!f) {
		diag_errorf("cannot open '%s' for writing: %s", pf->script, strerror(errno));
		return GS_EENV;
	}
	fprintf(f, "# %s: gpusim plan's purchase options, cost against time to train.\n"
		"# Reads %s (columns listed at its top); writes %s. Edit freely, then run in this folder:\n"
		"#   gnuplot %s\n", plot_base_name(pf->script), plot_base_name(pf->data), plot_base_name(pf->image),
		plot_base_name(pf->script));
	if (strcmp(pf->terminal, "pdfcairo") == 0)
		fputs("set terminal pdfcairo size 10in,6.2in font 'sans,11' noenhanced\n", f);
	else if (strcmp(pf->terminal, "svg") == 0)
		fputs("set terminal svg size 1000,620 dynamic font 'sans,13' noenhanced background '#ffffff'\n", f);
	else
		fputs("set terminal pngcairo size 1000,620 font 'sans,12' noenhanced\n", f);
	fputs("set output ", f);
	plot_gp_str(f, plot_base_name(pf->image));
	fputs("\nset title 'Purchase options: cost against time to train (line: the Pareto front)' font ',14'\n"
	      "set xlabel ", f);
	plot_gp_str(f, xlabel);
	fputs("\nset ylabel ", f);
	plot_gp_str(f, ylabel);
	fputs("\nset format y '%.4g'\nset grid\nset key top right\n"
	      "set offsets graph 0.08, graph 0.08, graph 0.08, graph 0.08\n"
	      "set style line 1 lc rgb '#999999' pt 7 ps 1.2\n"
	      "set style line 2 lc rgb '#d62728' pt 7 ps 1.6 lw 2\n"
	      "plot ", f);
	plot_gp_str(f, plot_base_name(pf->data));
	fputs(" index 0 using 1:2 with points ls 1 title 'option', \\\n     ", f);
	plot_gp_str(f, plot_base_name(pf->data));
	fputs(" index 1 using 1:2 with linespoints ls 2 title 'Pareto front', \\\n     ", f);
	plot_gp_str(f, plot_base_name(pf->data));
	fputs(" index 0 using 1:2:4 with labels offset char 1,char 0.8 left font ',10' notitle\n", f);
	return plot_close(f, pf->script);
}
