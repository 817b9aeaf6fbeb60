/* cmd_plot: `gpusim plot KIND SWEEP -o FILE.png|.svg|.pdf`: reads a sweep table (gpusim scale or merge, CSV or
 * JSON), writes FILE.png.gp and FILE.png.dat next to the image (plots/plot.h) and runs gnuplot. Without gnuplot the
 * script and data are still written, and the exit status is 3 with the command that draws them later. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "plots/plot.h"
#include "scale/scale.h"
#include "util/diag.h"
#include "util/gserr.h"

static const char usage_line[] =
	"usage: gpusim plot KIND SWEEP.csv|SWEEP.json -o FILE.png|FILE.svg|FILE.pdf [--title TEXT] [--no-render]\n"
	"       gpusim plot timeline TRACE.json -o FILE.png|FILE.svg|FILE.pdf [--ranks critical|all|LIST]\n"
	"                            [--window FROM:TO] [--title TEXT] [--no-render]\n";

static void help(void)
{
	fputs(usage_line, stdout);
	fputs("\n"
	      "Draws a scaling sweep (the csv or json of 'gpusim scale' or 'gpusim merge'), or one predicted step\n"
	      "from its trace (timeline), with gnuplot. Next to the image FILE.png it writes FILE.png.gp, the\n"
	      "gnuplot script, and FILE.png.dat, its numbers, so the plot can be restyled by editing the script and\n"
	      "running 'gnuplot FILE.png.gp' in that folder (an .svg or .pdf of the same sweep gets its own). The\n"
	      "extension of -o picks the output: .png (pngcairo), .svg or .pdf (pdfcairo).\n"
	      "\n"
	      "kinds:\n"
	      "  efficiency   scaling efficiency (%) against GPUs (log2 axis), a line per hardware model and the\n"
	      "               ideal 100 % line\n"
	      "  throughput   tokens/s against GPUs (log-log), a line per hardware model with its ideal (linear\n"
	      "               from its first feasible row) dashed\n"
	      "  breakdown    where the step time goes on the critical GPU, as stacked bars per GPU count: compute,\n"
	      "               exposed TP, PP and DP communication, pipeline bubble, optimizer (and host waits)\n"
	      "  compare      two hardware models (a sweep with exactly two --hw): throughput of both, and the\n"
	      "               ratio of the first to the second at each GPU count\n"
	      "  timeline     one simulated step from a 'gpusim predict --trace' file: a row per GPU stream and link\n"
	      "               of the critical stage's traced GPU (--ranks for others), time across (ms, or s for a\n"
	      "               window of 2 s or more), a colour per category, forward and backward passes labelled\n"
	      "               with their micro-batch; with too many passes to tell apart, forward passes get a row\n"
	      "               of their own (zoom in with --window). Perfetto shows the same file interactively\n"
	      "\n"
	      "options:\n"
	      "  -o, --output FILE  the image to write (required): .png, .svg or .pdf\n"
	      "  --title TEXT       the plot title (default: the kind, the scenario, the mode and the hardware)\n"
	      "  --no-render        write FILE.png.gp and FILE.png.dat only, do not run gnuplot\n"
	      "  --ranks R          timeline: the stages to draw: critical (default), all, or numbers such as 0,3\n"
	      "  --window FROM:TO   timeline: the part of the step to draw, in ms (FROM: to the end)\n"
	      "  -h, --help         show this help\n"
	      "environment: GPUSIM_GNUPLOT names the gnuplot to run (default: gnuplot on PATH)\n"
	      "\n"
	      "examples:\n"
	      "  gpusim scale scenarios/70b_64gpu.yaml --gpus 64..1024 --hw h100-dgx --hw a100-dgx --format csv \\\n"
	      "      -o 70b.csv\n"
	      "  gpusim plot efficiency 70b.csv -o 70b-efficiency.png\n"
	      "  gpusim plot compare 70b.csv -o 70b-compare.pdf\n"
	      "  gpusim predict tests/golden/tp4_pp2_dp2_interleaved.yaml --trace step.json\n"
	      "  gpusim plot timeline step.json -o step.png\n"
	      "\n"
	      "exit status: 0 ok, 1 the sweep cannot give that plot (nothing feasible; compare without two models)\n"
	      "or gnuplot failed, 2 usage error, 3 a file cannot be read or written, or gnuplot is not installed\n"
	      "(the script and data are written then)\n", stdout);
}

struct args {
	const char *kind_name, *input, *output, *title;
	enum plot_kind kind;
	bool no_render, timeline_opt;
	struct plot_timeline_opts tl;
};

enum { OPT_OUTPUT, OPT_TITLE, OPT_NO_RENDER, OPT_RANKS, OPT_WINDOW };
static const struct cli_option options[] = {
	{"output", 'o', true, OPT_OUTPUT}, {"title", 0, true, OPT_TITLE}, {"no-render", 0, false, OPT_NO_RENDER},
	{"ranks", 0, true, OPT_RANKS}, {"window", 0, true, OPT_WINDOW}, {NULL, 0, false, 0},
};

/* "FROM:TO" or "FROM:" in ms, 0 <= FROM < TO. */
static int parse_window(const char *s, struct plot_timeline_opts *o)
{
	char *end;
	errno = 0;
	double a = strtod(s, &end), b = 0;
	bool ok = end != s && *end == ':' && errno == 0 && a >= 0 && isfinite(a);
	if (ok && end[1]) {
		const char *q = end + 1;
		b = strtod(q, &end);
		ok = end != q && *end == '\0' && errno == 0 && isfinite(b) && b > a;
	}
	if (!ok)
		return diag_errorf("--window needs FROM:TO in ms with 0 <= FROM < TO (or FROM: to the end), not '%s'", s);
	o->from_ms = a;
	o->to_ms = b;
	return 0;
}

static int on_opt(void *ctx, int id, const char *val)
{
	struct args *a = ctx;
	switch (id) {
	case OPT_OUTPUT: a->output = val; break;
	case OPT_TITLE: a->title = val; break;
	case OPT_NO_RENDER: a->no_render = true; break;
	case OPT_RANKS: a->tl.ranks = val; a->timeline_opt = true; break;
	case OPT_WINDOW: a->timeline_opt = true; return parse_window(val, &a->tl);
	}
	return 0;
}

static int on_arg(void *ctx, const char *arg)
{
	struct args *a = ctx;
	if (!a->kind_name)
		a->kind_name = arg;
	else if (!a->input)
		a->input = arg;
	else
		return diag_errorf("plot takes a kind and one input file, got also '%s'", arg);
	return 0;
}

/* 0 parsed, -1 help shown, 2 usage error. */
static int parse(int argc, char **argv, struct args *a)
{
	int rc = cli_parse(argc, argv, "plot", options, help, on_opt, on_arg, a);
	if (rc != 0)
		return rc;
	if (!a->kind_name || !a->input) {
		diag_errorf("plot needs a kind (efficiency, throughput, breakdown, compare or timeline) and its input "
			    "file");
		fputs(usage_line, stderr);
		return cli_usage_error("plot");
	}
	if (plot_kind_parse(a->kind_name, &a->kind) != 0) {
		diag_errorf("unknown plot kind '%s' (use efficiency, throughput, breakdown, compare or timeline)",
			    a->kind_name);
		return cli_usage_error("plot");
	}
	if (a->timeline_opt && a->kind != PLOT_TIMELINE) {
		diag_errorf("--ranks and --window are for 'plot timeline'");
		return cli_usage_error("plot");
	}
	if (!a->output) {
		diag_errorf("plot needs -o FILE.png, FILE.svg or FILE.pdf");
		return cli_usage_error("plot");
	}
	return 0;
}

int cmd_plot(int argc, char **argv)
{
	struct args a = { 0 };
	int status = parse(argc, argv, &a);
	if (status != 0)
		return status < 0 ? 0 : status;
	struct plot_files pf;
	if (plot_files_for(a.output, &pf) != 0) {
		diag_errorf("-o '%s': the image must end in .png, .svg or .pdf, and its name hold no quote, backquote or "
			    "line break", a.output);
		return cli_usage_error("plot");
	}

	if (cli_check_kind(a.input, a.kind == PLOT_TIMELINE ? FILEKIND_TRACE : FILEKIND_SWEEP) != 0)
		return 1;
	int rc;
	if (a.kind == PLOT_TIMELINE) {
		rc = plot_timeline(a.input, &pf, a.title, &a.tl);
	} else {
		struct scale_table t;
		rc = scale_table_read(a.input, &t);
		if (rc == 0)
			rc = plot_write(&t, a.kind, &pf, a.title);
		scale_table_release(&t);
	}
	if (rc != 0 || a.no_render)
		return gserr_exit_code(rc);

	const char *program = getenv("GPUSIM_GNUPLOT");
	if (!program || !*program)
		program = "gnuplot";
	int not_found = 0;
	rc = plot_render(&pf, program, &not_found);
	if (rc != 0 && not_found) {
		diag_errorf("gnuplot is not installed (Debian: apt-get install gnuplot-nox); %s and %s are written: "
			    "run 'gnuplot %s' in %s to draw %s", pf.script, pf.data, strrchr(pf.script, '/') ?
			    strrchr(pf.script, '/') + 1 : pf.script, pf.dir, a.output);
	}
	return gserr_exit_code(rc);
}
