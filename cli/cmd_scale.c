/* cmd_scale: `gpusim scale SCENARIO.yaml --gpus LIST [options]`: a scaling sweep (scale/scale.h) printed as a
 * table, CSV or JSON; with --shard i/N only a slice of it, for `gpusim merge`. Nothing reaches stdout or -o
 * before the whole sweep has run; rows as they finish go to stderr (--progress, or a terminal after 2 s). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, isatty */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "scale/scale.h"
#include "util/diag.h"
#include "util/gserr.h"

#define MAX_HW 16

static const char usage_line[] =
	"usage: gpusim scale SCENARIO.yaml --gpus LIST [--hw FILE|PRESET ...] [--gpu FILE [--target-gpu PRESET]]\n"
	"                    [--host FILE|PRESET] [--mode strong|weak]\n"
	"                    [--format table|csv|json] [-o FILE] [--shard I/N] [--all-ranks] [--progress]\n"
	"                    [--max-tasks N]\n";

static void help(void)
{
	fputs(usage_line, stdout);
	fputs("\n"
	      "Predicts the scenario at every GPU count of LIST on each hardware model and prints how it scales:\n"
	      "the layout, step time, tokens/s, speedup and scaling efficiency, the share of the step lost to\n"
	      "exposed communication and to the pipeline bubble, and the memory per GPU. tp and pp stay as in the\n"
	      "scenario, so dp = GPUs / (tp*pp). A GPU count where the layout cannot be built (not a multiple of\n"
	      "tp*pp, a batch that does not split into micro-batches) is a row saying why, not an error.\n"
	      "\n"
	      "options:\n"
	      "  --gpus LIST       GPU counts (required): 8,16,32 or 8,16,...,1024 (the first step repeats: doubling\n"
	      "                    when the second count is a multiple of the first, else a constant difference)\n"
	      "                    or 8..1024 (8 times the powers of two up to 1024); sorted, duplicates dropped\n"
	      "  --hw FILE|PRESET  a hardware model (a preset from 'gpusim presets' or a gpusim-hw/1 YAML file);\n"
	      "                    repeat it to compare models row by row (default: the scenario's 'hardware:')\n"
	      "  --gpu FILE        a calibrated GPU (gpusim calibrate) inside every --hw model's node and network\n"
	      "                    (see 'gpusim predict --help'); --target-gpu PRESET carries it to PRESET's GPU\n"
	      "  --host M          the host costs of model M (a preset or a file with a host section) in every\n"
	      "                    model (see 'gpusim predict --help')\n"
	      "  --mode M          strong (default): the global batch stays as in the scenario at every size;\n"
	      "                    weak: the batch per DP replica stays, so the global batch grows with dp\n"
	      "  --format F        table (default; for people), csv (one line per row) or json; csv and json are\n"
	      "                    the input of 'gpusim plot' and 'gpusim merge' (columns: docs/output.md)\n"
	      "  -o, --output FILE write to FILE instead of standard output ('-'); replaced only on success\n"
	      "  --shard I/N       run only slice I of N of the sweep (rows I-1, I-1+N, ...) and write them as csv\n"
	      "                    (default) or json; 'gpusim merge' joins the N outputs into the whole table\n"
	      "  --all-ranks       simulate every rank of every row (see 'gpusim predict --help')\n"
	      "  --max-tasks N     the simulation budget of each row (see 'gpusim predict --help')\n"
	      "  --progress        print each row to standard error as it finishes; without it this happens on a\n"
	      "                    terminal once a sweep has run for 2 s\n"
	      "  -h, --help        show this help\n"
	      "\n"
	      "speedup is tokens/s over the first row of the same hardware that fits in GPU memory (the first\n"
	      "feasible row when none fits, which the table notes); efficiency is speedup over the ideal (GPUs /\n"
	      "that row's GPUs); a row that does not fit in GPU memory is marked '!'. With a calibration that\n"
	      "measured its host's drift, rows the host bounds also get their step on a fast and a slow host\n"
	      "and the speedup on each (a list under the table; csv/json step_lo_s, step_hi_s,\n"
	      "speedup_fast_host, speedup_slow_host); 'the host decides' where the two lie either side of 1.\n"
	      "\n"
	      "examples:\n"
	      "  gpusim scale scenarios/70b_64gpu.yaml --gpus 64,128,...,1024\n"
	      "  gpusim scale scenarios/gpt_small_2gpu.yaml --gpus 1,2,4,8 --hw h100-dgx --hw rtx4070ti-super-pcie \\\n"
	      "      --mode weak --format csv -o small.csv && gpusim plot efficiency small.csv -o small.png\n"
	      "  gpusim scale scenarios/gpt3_175b_1024gpu.yaml --gpus 128..16384 --shard 2/8 -o part2.csv\n"
	      "      (a large sweep as 8 jobs: docs/cli.md shows a Slurm job array and GNU parallel)\n"
	      "\n"
	      "exit status: 0 ok, 1 invalid scenario or hardware model or simulation error, 2 usage error,\n"
	      "3 a file cannot be read or written\n", stdout);
}

struct args {
	struct scale_spec spec;
	const char *hw[MAX_HW];
	int *gpus;
	enum report_format fmt;
	bool fmt_given, progress;
	const char *output;
	double t0;            /* start of the sweep, for the progress lines */
};

enum { OPT_GPUS, OPT_HW, OPT_GPU, OPT_TARGET_GPU, OPT_HOST, OPT_MODE, OPT_FORMAT, OPT_OUTPUT, OPT_SHARD, OPT_ALL_RANKS,
       OPT_PROGRESS, OPT_MAX_TASKS };
static const struct cli_option options[] = {
	{"gpus", 0, true, OPT_GPUS}, {"hw", 0, true, OPT_HW}, {"gpu", 0, true, OPT_GPU},
	{"target-gpu", 0, true, OPT_TARGET_GPU}, {"host", 0, true, OPT_HOST}, {"mode", 0, true, OPT_MODE},
	{"format", 0, true, OPT_FORMAT}, {"output", 'o', true, OPT_OUTPUT}, {"shard", 0, true, OPT_SHARD},
	{"all-ranks", 0, false, OPT_ALL_RANKS}, {"progress", 0, false, OPT_PROGRESS},
	{"max-tasks", 0, true, OPT_MAX_TASKS}, {NULL, 0, false, 0},
};

/* "I/N" with 1 <= I <= N; 0 or -1 after a message. */
static int parse_shard(const char *s, int *i, int *n)
{
	char *end;
	long a = strtol(s, &end, 10);
	if (end == s || *end != '/' || a < 1)
		goto bad;
	const char *q = end + 1;
	long b = strtol(q, &end, 10);
	if (end == q || *end != '\0' || b < 1 || a > b || b > SCALE_MAX_SHARDS)
		goto bad;
	*i = (int)a;
	*n = (int)b;
	return 0;
bad:
	diag_errorf("--shard needs I/N with 1 <= I <= N (e.g. 3/8), not '%s'", s);
	return -1;
}

static int on_opt(void *ctx, int id, const char *val)
{
	struct args *a = ctx;
	struct scale_spec *sp = &a->spec;
	char why[160];
	switch (id) {
	case OPT_GPUS:
		free(a->gpus);
		a->gpus = NULL;
		if (scale_parse_gpus(val, &a->gpus, &sp->ngpus, why, sizeof why) != 0)
			return diag_errorf("--gpus '%s': %s", val, why);
		sp->gpus = a->gpus;
		break;
	case OPT_HW:
		if (sp->nhw == MAX_HW)
			return diag_errorf("at most %d --hw options", MAX_HW);
		a->hw[sp->nhw++] = val;
		break;
	case OPT_GPU: sp->gpu = val; break;
	case OPT_TARGET_GPU: sp->target_gpu = val; break;
	case OPT_HOST: sp->host = val; break;
	case OPT_MODE:
		if (scale_mode_parse(val, &sp->mode) != 0)
			return diag_errorf("unknown mode '%s' (use strong or weak)", val);
		break;
	case OPT_FORMAT:
		if (report_format_parse(val, &a->fmt) != 0)
			return diag_errorf("unknown format '%s' (use table, csv or json)", val);
		a->fmt_given = true;
		break;
	case OPT_OUTPUT: a->output = val; break;
	case OPT_SHARD: return parse_shard(val, &sp->shard, &sp->nshards);
	case OPT_ALL_RANKS: sp->all_ranks = true; break;
	case OPT_PROGRESS: a->progress = true; break;
	case OPT_MAX_TASKS: return cli_parse_budget("--max-tasks", val, &sp->max_tasks);
	}
	return 0;
}

static int on_arg(void *ctx, const char *arg)
{
	struct args *a = ctx;
	if (a->spec.scenario)
		return diag_errorf("scale takes one scenario file, got '%s' and '%s'", a->spec.scenario, arg);
	a->spec.scenario = arg;
	return 0;
}

/* 0 parsed, -1 help shown (exit 0), 2 usage error (message printed). */
static int parse(int argc, char **argv, struct args *a)
{
	struct scale_spec *sp = &a->spec;
	int rc = cli_parse(argc, argv, "scale", options, help, on_opt, on_arg, a);
	if (rc != 0)
		return rc;
	if (!sp->scenario) {
		diag_errorf("scale needs a scenario file");
		fputs(usage_line, stderr);
		return cli_usage_error("scale");
	}
	if (!sp->gpus) {
		diag_errorf("scale needs --gpus, the GPU counts to predict (e.g. --gpus 8,16,...,1024)");
		return cli_usage_error("scale");
	}
	if (sp->nshards > 1 && !a->fmt_given)
		a->fmt = REPORT_CSV;
	if (sp->nshards > 1 && a->fmt == REPORT_TABLE) {
		diag_errorf("--shard writes rows for 'gpusim merge', which reads csv or json, not a table");
		return cli_usage_error("scale");
	}
	sp->hw = a->hw;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A row finished: with --progress, or on a terminal once the sweep has run 2 s, one line on stderr, so a long
 * sweep shows its rows as they come instead of running silently until the table. */
static void on_progress(void *ctx, const struct scale_progress *p)
{
	const struct args *a = ctx;
	double elapsed = now_s() - a->t0;
	if (!a->progress && (elapsed < 2 || !isatty(STDERR_FILENO)))
		return;
	if (p->reason)
		fprintf(stderr, "gpusim: scale: row %d of %d: %s, %d GPUs: infeasible (%s)\n", p->done, p->total,
			p->hardware, p->gpus, p->reason);
	else
		fprintf(stderr, "gpusim: scale: row %d of %d: %s, %d GPUs: step %.3f ms (%.1f s so far)\n", p->done,
			p->total, p->hardware, p->gpus, p->step_time_s * 1e3, elapsed);
}

int cmd_scale(int argc, char **argv)
{
	struct args a = { .spec = { .shard = 1, .nshards = 1 }, .fmt = REPORT_TABLE };
	int status = parse(argc, argv, &a);
	if (status != 0) {
		free(a.gpus);
		return status < 0 ? 0 : status;
	}
	FILE *probe = fopen(a.spec.scenario, "r");
	if (!probe) {
		diag_errorf("cannot open '%s': %s", a.spec.scenario, strerror(errno));
		free(a.gpus);
		return 3;
	}
	fclose(probe);
	bool wrong = cli_check_kind(a.spec.scenario, FILEKIND_SCENARIO) != 0;
	for (int h = 0; h < a.spec.nhw && !wrong; h++)
		wrong = cli_check_kind(a.hw[h], FILEKIND_HARDWARE) != 0;
	if (!wrong && a.spec.host)
		wrong = cli_check_kind(a.spec.host, FILEKIND_HARDWARE) != 0;
	if (wrong) {
		free(a.gpus);
		return 1;
	}

	struct cli_out out = { .path = a.output };
	struct scale_table t;
	a.t0 = now_s();
	a.spec.progress = on_progress;
	a.spec.progress_ctx = &a;
	int rc = scale_run(&a.spec, &t);
	if (rc != 0) {
		status = gserr_exit_code(rc);
	} else if ((status = cli_out_open(&out)) == 0) {
		int wr = scale_table_write(out.f ? out.f : stdout, a.fmt, &t);
		if (out.f)
			status = cli_out_commit(&out);  /* reports a write error with the file's name */
		else if (wr != 0)
			status = 3;  /* stdout: main reports the write error when it flushes */
	}
	cli_out_discard(&out);
	scale_table_release(&t);
	free(a.gpus);
	return status;
}
