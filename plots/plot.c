/* plot: writes a sweep's numbers and a gnuplot script for one plot kind (plot.h; render.c runs gnuplot on them).
 * The data file holds one block per hardware model (gnuplot `index i`), feasible rows only, in the columns listed
 * at its top; every kind reads the same file, so one FILE.png.dat can be replotted as any kind by hand. Names from the
 * table reach gnuplot only inside single-quoted strings (no escapes there; a quote is doubled) and with enhanced
 * text off, so a hardware name like "h100_dgx" prints as written. */
#include "plots/plot.h"
#include "plots/plot_internal.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/gserr.h"
#include "util/xalloc.h"

const char *const plot_kind_names[] = { "efficiency", "throughput", "breakdown", "compare", "timeline", NULL };

int plot_kind_parse(const char *s, enum plot_kind *out)
{
	for (int i = 0; plot_kind_names[i]; i++)
		if (s && strcmp(s, plot_kind_names[i]) == 0) {
			*out = (enum plot_kind)i;
			return GS_OK;
		}
	return GS_EUSAGE;
}

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

int plot_files_for(const char *image, struct plot_files *pf)
{
	static const struct { const char *ext, *term; } exts[] = {
		{".png", "pngcairo"}, {".svg", "svg"}, {".pdf", "pdfcairo"},
	};
	memset(pf, 0, sizeof *pf);
	size_t len = strlen(image);
	if (len + 1 > sizeof pf->image)
		return GS_EUSAGE;
	/* the file's name (not its folder) is written into the gnuplot script: no line break, quote or backquote */
	const char *base = strrchr(image, '/') ? strrchr(image, '/') + 1 : image;
	for (const char *c = base; *c; c++)
		if (is_control((unsigned char)*c) || *c == '\'' || *c == '`')
			return GS_EUSAGE;
	for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
		size_t el = strlen(exts[i].ext);
		if (len > el && strcmp(image + len - el, exts[i].ext) == 0 && image[len - el - 1] != '/') {
			pf->terminal = exts[i].term;
			snprintf(pf->image, sizeof pf->image, "%s", image);
			/* named after the image, so x.png and x.svg of one sweep do not share (and overwrite) a script */
			if (len + 5 > sizeof pf->script)
				return GS_EUSAGE;
			snprintf(pf->script, sizeof pf->script, "%s.gp", image);
			snprintf(pf->data, sizeof pf->data, "%s.dat", image);
			const char *slash = strrchr(image, '/');
			if (!slash)
				snprintf(pf->dir, sizeof pf->dir, ".");
			else if (slash == image)
				snprintf(pf->dir, sizeof pf->dir, "/");
			else
				snprintf(pf->dir, sizeof pf->dir, "%.*s", (int)(slash - image), image);
			return GS_OK;
		}
	}
	return GS_EUSAGE;
}

const char *plot_base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* ---- the data file ---- */

/* Columns of FILE.png.dat (1-based, as gnuplot counts). */
enum {
	D_GPUS = 1, D_EFF, D_TOK, D_IDEAL, D_SPEEDUP, D_STEP_MS,
	D_COMPUTE, D_TP, D_PP, D_DP, D_BUBBLE, D_OPT, D_HOST, D_COMM, D_MEM, D_BARX,
	D_EFF_LO, D_EFF_HI, D_TOK_LO, D_TOK_HI,
};

/* The breakdown parts, in stacking order: data column, legend, colour. */
static const struct { int col; const char *label, *color; } parts[] = {
	{D_COMPUTE, "compute", "#4c72b0"},
	{D_TP, "exposed TP communication", "#dd8452"},
	{D_PP, "exposed PP communication", "#55a868"},
	{D_DP, "exposed DP communication", "#c44e52"},
	{D_BUBBLE, "pipeline bubble", "#b0b0b0"},
	{D_OPT, "optimizer", "#8172b3"},
	{D_HOST, "waiting for the host", "#937860"},
};
#define NPARTS ((int)(sizeof parts / sizeof parts[0]))

static const char *const line_colors[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
};
#define NCOLORS ((int)(sizeof line_colors / sizeof line_colors[0]))

/* Hardware models in table order, with their rows. */
struct hwgroup {
	const char *name;
	int first, n;          /* rows t->rows[first .. first+n-1] */
	int feasible;
	bool drift;            /* some row the host's drift moves (scale_row.speedup_fast_host) */
};

static int group_rows(const struct scale_table *t, struct hwgroup *g, int max)
{
	int ng = 0;
	for (int i = 0; i < t->n; i++) {
		if (ng == 0 || strcmp(g[ng - 1].name, t->rows[i].hardware) != 0) {
			if (ng == max)
				break;
			g[ng++] = (struct hwgroup){ t->rows[i].hardware, i, 0, 0, false };
		}
		g[ng - 1].n++;
		g[ng - 1].feasible += t->rows[i].feasible;
		g[ng - 1].drift |= t->rows[i].feasible && t->rows[i].speedup_fast_host > 0;
	}
	return ng;
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0;
}

static void write_data(FILE *f, const struct scale_table *t, const struct hwgroup *g, int ng, bool ratio)
{
	char txt[256], sweep[64];
	fprintf(f, "# gpusim plot data: scenario %s, %s scaling, sweep %s\n", plot_text(t->scenario, txt, sizeof txt),
		scale_mode_name(t->mode), plot_text(t->sweep, sweep, sizeof sweep));
	fputs("# one block per hardware model (gnuplot: index 0, 1, ...); shares in % of the step time\n"
	      "# gpus efficiency_pct tokens_per_s ideal_tokens_per_s speedup step_ms compute_pct tp_pct pp_pct "
	      "dp_pct bubble_pct optimizer_pct host_pct exposed_comm_pct memory_gb bar_x eff_lo_pct eff_hi_pct "
	      "tokens_lo tokens_hi\n"
	      "# bar_x: where the row's bar stands in a breakdown plot (models apart by a gap of one bar)\n"
	      "# eff_lo_pct .. tokens_hi: the efficiency and throughput on a host as fast and as slow as the\n"
	      "# model's host range, lower first (gpusim scale's host drift; the row's own where it has none)\n",
	      f);
	int bar = 0;
	for (int h = 0; h < ng; h++) {
		if (h > 0)
			fputs("\n\n", f);
		fprintf(f, "# hardware %s\n", plot_text(g[h].name, txt, sizeof txt));
		for (int i = g[h].first; i < g[h].first + g[h].n; i++) {
			const struct scale_row *r = &t->rows[i];
			if (!r->feasible) {
				fprintf(f, "# %d GPUs infeasible: %s\n", r->gpus, plot_text(r->reason, txt, sizeof txt));
				continue;
			}
			const struct breakdown *b = &r->breakdown_s;
			double s = r->step_time_s, base_tok = r->tokens_per_s / r->speedup;
			/* the host's drift: the step and the speedup at the fast and the slow host's end */
			double ideal = (double)r->gpus / r->base_gpus, e[2], k[2];
			for (int j = 0; j < 2; j++) {
				double sp = r->speedup_fast_host > 0 ? (j ? r->speedup_slow_host : r->speedup_fast_host)
								     : r->speedup;
				double st = r->step_hi_s > 0 ? (j ? r->step_hi_s : r->step_lo_s) : s;
				e[j] = sp / ideal * 100;
				k[j] = r->tokens_per_s * s / st;
			}
			fprintf(f, "%d %.6g %.9g %.9g %.6g %.9g %.4f %.4f %.4f %.4f %.4f %.4f %.4f %.4f %.4f %d "
				"%.6g %.6g %.9g %.9g\n", r->gpus,
				r->efficiency * 100, r->tokens_per_s, base_tok * r->gpus / r->base_gpus, r->speedup,
				s * 1e3, pct(b->compute, s), pct(b->tp_comm_exposed, s), pct(b->pp_comm_exposed, s),
				pct(b->dp_comm_exposed, s), pct(b->pipeline_bubble, s), pct(b->optimizer, s),
				pct(b->host_wait, s), r->exposed_comm_share * 100, r->memory_per_gpu_bytes / 1e9, bar++,
				fmin(e[0], e[1]), fmax(e[0], e[1]), fmin(k[0], k[1]), fmax(k[0], k[1]));
		}
		bar++;
	}
	if (!ratio)
		return;
	/* compare: the first model's throughput over the second's where both are feasible */
	fprintf(f, "\n\n# ratio %s / ", plot_text(g[0].name, txt, sizeof txt));
	fprintf(f, "%s: gpus tokens_per_s_ratio\n", plot_text(g[1].name, txt, sizeof txt));
	for (int i = g[0].first; i < g[0].first + g[0].n; i++)
		for (int k = g[1].first; k < g[1].first + g[1].n; k++) {
			const struct scale_row *a = &t->rows[i], *b = &t->rows[k];
			if (a->gpus == b->gpus && a->feasible && b->feasible)
				fprintf(f, "%d %.6g\n", a->gpus, a->tokens_per_s / b->tokens_per_s);
		}
}

/* ---- the script ---- */

void plot_gp_str(FILE *f, const char *s)
{
	char last = 0;
	fputc('\'', f);
	for (; *s; s++) {
		char c = is_control((unsigned char)*s) ? ' ' : *s == '`' ? '\'' : *s;
		if (c == '\'' && last == '\'')
			continue;  /* gnuplot 5.4 misreads two doubled quotes in a row: a run of quotes is one */
		if (c == '\'')
			fputc('\'', f);
		fputc(c, f);
		last = c;
	}
	fputc('\'', f);
}

const char *plot_text(const char *s, char *buf, size_t n)
{
	size_t i = 0;
	for (; s && *s && i + 1 < n; s++)
		buf[i++] = is_control((unsigned char)*s) ? ' ' : *s == '"' ? '\'' : *s;
	buf[i] = '\0';
	return buf;
}

static void terminal(FILE *f, const struct plot_files *pf, bool tall)
{
	int h = tall ? 820 : 620;
	if (strcmp(pf->terminal, "pdfcairo") == 0)
		fprintf(f, "set terminal pdfcairo size 10in,%gin font 'sans,11' noenhanced\n", tall ? 8.2 : 6.2);
	else if (strcmp(pf->terminal, "svg") == 0)
		fprintf(f, "set terminal svg size 1000,%d dynamic font 'sans,13' noenhanced background '#ffffff'\n", h);
	else
		fprintf(f, "set terminal pngcairo size 1000,%d font 'sans,12' noenhanced\n", h);
	fputs("set output ", f);
	plot_gp_str(f, plot_base_name(pf->image));
	fputc('\n', f);
}

/* The GPU counts with a feasible row as x tics (when there are few enough to label each). */
static void gpu_tics(FILE *f, const struct scale_table *t)
{
	int *v = xcalloc((size_t)t->n + 1, sizeof *v), n = 0;
	for (int i = 0; i < t->n; i++) {
		if (!t->rows[i].feasible)
			continue;
		int k = 0;
		while (k < n && v[k] < t->rows[i].gpus)
			k++;
		if (k < n && v[k] == t->rows[i].gpus)
			continue;
		memmove(v + k + 1, v + k, (size_t)(n - k) * sizeof *v);
		v[k] = t->rows[i].gpus;
		n++;
	}
	if (n > 0 && n <= 16) {
		fputs("set xtics (", f);
		for (int i = 0; i < n; i++)
			fprintf(f, "%s%d", i ? ", " : "", v[i]);
		fputs(")\n", f);
		/* room either side on the log axis */
		fprintf(f, "set xrange [%g:%g]\n", v[0] / 1.25, v[n - 1] * 1.25);
	}
	free(v);
}

static void title(FILE *f, const struct scale_table *t, const struct hwgroup *g, int ng, const char *what,
		  const char *given)
{
	fputs("set title ", f);
	if (given) {
		plot_gp_str(f, given);
		fputc('\n', f);
		return;
	}
	char line[512];
	snprintf(line, sizeof line, "%s: %s, %s scaling", what, t->scenario, scale_mode_name(t->mode));
	plot_gp_str(f, line);
	size_t len = (size_t)snprintf(line, sizeof line, "%s", ng > 1 ? "hardware: " : "on ");
	for (int h = 0; h < ng && len < sizeof line; h++)
		len += (size_t)snprintf(line + len, sizeof line - len, "%s%s", h ? (h + 1 == ng ? " and " : ", ") : "",
					g[h].name);
	fputs(".\"\\n\".", f);
	plot_gp_str(f, line);
	fputs(" font ',14'\n", f);
}

static void header(FILE *f, const struct plot_files *pf, const struct scale_table *t, const char *kind)
{
	char gp[512], dat[512], img[512], scen[256], sweep[64];
	plot_text(plot_base_name(pf->script), gp, sizeof gp);
	fprintf(f, "# %s: gpusim plot %s of a %s-scaling sweep of %s (sweep %s).\n", gp, kind,
		scale_mode_name(t->mode), plot_text(t->scenario, scen, sizeof scen), plot_text(t->sweep, sweep, sizeof sweep));
	fprintf(f, "# Reads %s (columns listed at its top); writes %s. Edit freely, then run in this folder:\n"
		"#   gnuplot %s\n", plot_text(plot_base_name(pf->data), dat, sizeof dat),
		plot_text(plot_base_name(pf->image), img, sizeof img), gp);
}

/* What a line plot draws besides the lines: nothing, the 100 % line, or each model's ideal line. */
enum ref { REF_NONE, REF_100, REF_IDEAL };

static void lines_plot(FILE *f, const struct plot_files *pf, const struct hwgroup *g, int ng, int ycol,
		       enum ref ref)
{
	const char *data = plot_base_name(pf->data);
	fputs("plot ", f);
	bool first = true;
	if (ref == REF_100) {
		fputs("100 with lines dt 2 lw 2 lc rgb '#555555' title 'ideal (100 %)'", f);
		first = false;
	}
	for (int h = 0; h < ng; h++) {
		if (!g[h].feasible)
			continue;
		const char *c = line_colors[h % NCOLORS];
		fprintf(f, "%s", first ? "" : ", \\\n     ");
		first = false;
		if (g[h].drift && (ycol == D_EFF || ycol == D_TOK)) {
			/* the host's drift as a bar at each row, the fast and the slow host's end; drawn first, so that the
			 * line's points sit on it */
			plot_gp_str(f, data);
			fprintf(f, " index %d using %d:%d:%d:%d with yerrorbars lw 1.5 pt 7 ps 0 lc rgb '%s' title ", h,
				D_GPUS, ycol, ycol == D_EFF ? D_EFF_LO : D_TOK_LO, ycol == D_EFF ? D_EFF_HI : D_TOK_HI, c);
			char t[128];
			snprintf(t, sizeof t, "%s, fast to slow host", g[h].name);
			plot_gp_str(f, t);
			fputs(", \\\n     ", f);
		}
		plot_gp_str(f, data);
		fprintf(f, " index %d using %d:%d with linespoints lw 2.5 pt 7 ps 1.3 lc rgb '%s' title ", h, D_GPUS,
			ycol, c);
		plot_gp_str(f, g[h].name);
		if (ref == REF_IDEAL) {
			fputs(", \\\n     ", f);
			plot_gp_str(f, data);
			fprintf(f, " index %d using %d:%d with lines dt 2 lw 1.5 lc rgb '%s' title ", h, D_GPUS, D_IDEAL,
				c);
			char t[128];
			snprintf(t, sizeof t, "%s, ideal", g[h].name);
			plot_gp_str(f, t);
		}
	}
	fputc('\n', f);
}

static void script_efficiency(FILE *f, const struct scale_table *t, const struct hwgroup *g, int ng,
			      const char *given)
{
	double top = 100;
	for (int i = 0; i < t->n; i++)
		if (t->rows[i].feasible && t->rows[i].efficiency * 100 > top)
			top = t->rows[i].efficiency * 100;
	title(f, t, g, ng, "Scaling efficiency", given);
	fputs("set xlabel 'GPUs'\nset ylabel 'scaling efficiency (%)'\nset logscale x 2\n", f);
	gpu_tics(f, t);
	fprintf(f, "set yrange [0:%g]\n", ceil(top * 1.08 / 10) * 10);
	fputs("set grid\nset key bottom left box opaque\n", f);
}

static void script_throughput(FILE *f, const struct scale_table *t, const struct hwgroup *g, int ng,
			      const char *given)
{
	title(f, t, g, ng, "Throughput", given);
	fputs("set xlabel 'GPUs'\nset ylabel 'throughput (tokens/s)'\nset logscale x 2\nset logscale y 10\n"
	      "set format y '%.0s%c'\n", f);
	gpu_tics(f, t);
	fputs("set grid\nset key top left box opaque\n", f);
}

/* Stacked bars drawn as boxes at explicit places (bar_x), each part from its cumulative top down, so the labels
 * (step time above each bar, the model under its group) can go exactly where they belong. */
static void script_breakdown(FILE *f, const struct plot_files *pf, const struct scale_table *t,
			     const struct hwgroup *g, int ng, const char *given)
{
	bool used[NPARTS] = { false };
	int bars = 0;
	for (int i = 0; i < t->n; i++) {
		const struct scale_row *r = &t->rows[i];
		if (!r->feasible)
			continue;
		bars++;
		const struct breakdown *b = &r->breakdown_s;
		double v[NPARTS] = { b->compute, b->tp_comm_exposed, b->pp_comm_exposed, b->dp_comm_exposed,
				     b->pipeline_bubble, b->optimizer, b->host_wait };
		for (int k = 0; k < NPARTS; k++)
			used[k] |= v[k] > 1e-4 * r->step_time_s;
	}
	int groups = 0;
	for (int h = 0; h < ng; h++)
		groups += g[h].feasible > 0;
	title(f, t, g, ng, "Where the step time goes", given);
	fputs("set ylabel 'share of the step time on the critical GPU (%)'\n"
	      "set xlabel 'GPUs'\n"
	      "set yrange [0:112]\nset ytics 0,20,100\nset grid ytics\n"
	      "set style fill solid 0.9 border rgb '#333333'\nset boxwidth 0.72\n"
	      "set key below center horizontal samplen 2\nset xtics nomirror scale 0\nset tics out\n", f);
	fprintf(f, "set xrange [-0.7:%d.7]\n", bars + groups - 2);
	if (ng > 1) {
		/* the model's name under its group of bars */
		fputs("set bmargin 5.5\n", f);
		int x = 0;
		for (int h = 0; h < ng; h++) {
			if (!g[h].feasible)
				continue;
			fputs("set label ", f);
			plot_gp_str(f, g[h].name);
			fprintf(f, " at first %g, graph -0.1 center font ',12'\n", x + (g[h].feasible - 1) / 2.0);
			x += g[h].feasible + 1;
		}
		/* no axis label under the names: "GPUs" goes left of the GPU counts instead */
		fputs("unset xlabel\nset label 'GPUs' at graph 0, graph -0.045 right offset -1.5,0\n", f);
	}
	/* cumulative share up to part k, for the parts drawn */
	fputs("# cum_k: sum of the drawn parts up to and including part k, stacked in this order\n", f);
	char expr[512] = "0";
	int drawn[NPARTS], nd = 0;
	for (int k = 0; k < NPARTS; k++) {
		if (!used[k])
			continue;
		size_t len = strlen(expr);
		snprintf(expr + len, sizeof expr - len, "+$%d", parts[k].col);
		fprintf(f, "cum%d(x) = %s\n", nd, expr);
		drawn[nd++] = k;
	}
	fputs("step_label(ms) = ms >= 1000 ? sprintf('%.3g s', ms / 1000) : sprintf('%.3g ms', ms)\n", f);
	const char *data = plot_base_name(pf->data);
	/* the boxes go tallest first (each covers the one before below its top); the key entries come separately,
	 * in stacking order */
	fputs("plot ", f);
	for (int d = 0; d < nd; d++) {
		fprintf(f, "NaN with boxes lc rgb '%s' title ", parts[drawn[d]].color);
		plot_gp_str(f, parts[drawn[d]].label);
		fputs(", \\\n     ", f);
	}
	for (int d = nd - 1; d >= 0; d--) {
		plot_gp_str(f, data);
		fprintf(f, " using %d:(cum%d(0)):xtic(sprintf('%%d', $%d)) with boxes lc rgb '%s' notitle, \\\n     ",
			D_BARX, d, D_GPUS, parts[drawn[d]].color);
	}
	plot_gp_str(f, data);
	fprintf(f, " using %d:(cum%d(0)):(step_label($%d)) with labels offset 0,0.8 font ',%d'%s notitle\n",
		D_BARX, nd - 1, D_STEP_MS, bars > 12 ? 9 : 10, bars > 12 ? " rotate by 90 left" : "");
}

static void script_compare(FILE *f, const struct plot_files *pf, const struct scale_table *t,
			   const struct hwgroup *g, const char *given)
{
	const char *data = plot_base_name(pf->data);
	fputs("set multiplot\n", f);
	title(f, t, g, 2, "Hardware comparison", given);
	fputs("set lmargin 12\nset rmargin 4\nset origin 0,0.36\nset size 1,0.60\n"
	      "set logscale x 2\nset logscale y 10\nset format y '%.0s%c'\n"
	      "set ylabel 'throughput (tokens/s)'\nset format x ''\nset grid\nset key top left box opaque\n", f);
	gpu_tics(f, t);
	lines_plot(f, pf, g, 2, D_TOK, REF_NONE);
	fputs("unset title\nset origin 0,0.02\nset size 1,0.36\nunset logscale y\nset format y '%g'\n"
	      "set format x '%g'\nset xlabel 'GPUs'\nset tmargin 2\n", f);
	double top = 1;
	for (int i = g[0].first; i < g[0].first + g[0].n; i++)
		for (int k = g[1].first; k < g[1].first + g[1].n; k++) {
			const struct scale_row *a = &t->rows[i], *b = &t->rows[k];
			if (a->gpus == b->gpus && a->feasible && b->feasible && a->tokens_per_s / b->tokens_per_s > top)
				top = a->tokens_per_s / b->tokens_per_s;
		}
	/* about four labelled steps of 1, 2 or 5 times a power of ten */
	double raw = top * 1.3 / 4, mag = pow(10, floor(log10(raw))), step = mag;
	step = raw > 5 * mag ? 10 * mag : raw > 2 * mag ? 5 * mag : raw > mag ? 2 * mag : mag;
	/* the key above the panel, never over the ratio labels at the first GPU counts */
	fprintf(f, "set ylabel 'throughput ratio'\nset yrange [0:%g]\nset ytics %g\n"
		"set key outside top center horizontal nobox\n", top * 1.35, step);
	char yl[256];
	snprintf(yl, sizeof yl, "%s / %s", g[0].name, g[1].name);
	fputs("plot 1 with lines dt 2 lw 2 lc rgb '#555555' title 'equal', \\\n     ", f);
	plot_gp_str(f, data);
	fprintf(f, " index %d using 1:2 with linespoints lw 2.5 pt 7 ps 1.3 lc rgb '#333333' title ", 2);
	plot_gp_str(f, yl);
	fputs(", \\\n     ", f);
	plot_gp_str(f, data);
	fprintf(f, " index %d using 1:2:(sprintf('%%.2fx', $2)) with labels offset 0,1.1 font ',11' notitle\n", 2);
	fputs("unset multiplot\n", f);
}

int plot_close(FILE *f, const char *path)
{
	int bad = ferror(f);
	errno = 0;
	if (fclose(f) != 0 || bad) {
		diag_errorf("cannot write '%s': %s", path, errno ? strerror(errno) : "write error");
		return GS_EENV;
	}
	return 0;
}

int plot_write(const struct scale_table *t, enum plot_kind kind, const struct plot_files *pf, const char *given)
{
	struct hwgroup g[64];
	int ng = group_rows(t, g, 64), feasible = 0;
	for (int h = 0; h < ng; h++)
		feasible += g[h].feasible;
	if (kind == PLOT_TIMELINE)
		return diag_errorf("a timeline is drawn from a trace (gpusim predict --trace), not from a sweep");
	if (feasible == 0)
		return diag_errorf("nothing to plot: no row of the sweep is feasible");
	if (kind == PLOT_COMPARE && ng != 2)
		return diag_errorf("compare needs a sweep of exactly two hardware models (gpusim scale --hw A --hw B), "
				   "this one has %d", ng);
	if (kind == PLOT_COMPARE && (!g[0].feasible || !g[1].feasible))
		return diag_errorf("compare: no feasible row for %s", g[0].feasible ? g[1].name : g[0].name);

	FILE *f = fopen(pf->data, "w");
	if (!f) {
		diag_errorf("cannot open '%s' for writing: %s", pf->data, strerror(errno));
		return GS_EENV;
	}
	write_data(f, t, g, ng, kind == PLOT_COMPARE);
	int rc = plot_close(f, pf->data);
	if (rc != 0)
		return rc;

	f = fopen(pf->script, "w");
	if (!f) {
		diag_errorf("cannot open '%s' for writing: %s", pf->script, strerror(errno));
		return GS_EENV;
	}
	header(f, pf, t, plot_kind_names[kind]);
	terminal(f, pf, kind == PLOT_COMPARE);
	switch (kind) {
	case PLOT_EFFICIENCY:
		script_efficiency(f, t, g, ng, given);
		lines_plot(f, pf, g, ng, D_EFF, REF_100);
		break;
	case PLOT_THROUGHPUT:
		script_throughput(f, t, g, ng, given);
		lines_plot(f, pf, g, ng, D_TOK, REF_IDEAL);
		break;
	case PLOT_BREAKDOWN:
		script_breakdown(f, pf, t, g, ng, given);
		break;
	case PLOT_COMPARE:
		script_compare(f, pf, t, g, given);
		break;
	case PLOT_TIMELINE: /* refused above */
	case PLOT_NKINDS:
		break;
	}
	return plot_close(f, pf->script);
}
