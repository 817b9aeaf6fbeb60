/* cmd_plan: `gpusim plan SCENARIO.yaml --gpus LIST [options]`: the best parallel layouts of a job on each GPU
 * count and hardware model, what training costs on each, and which purchase options are on the Pareto front of
 * time against cost (plan/study.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "plan/study.h"
#include "scale/scale.h"
#include "util/diag.h"
#include "util/gserr.h"

#define MAX_HW 16

static const char usage_line[] =
	"usage: gpusim plan SCENARIO.yaml --gpus LIST [--hw FILE|PRESET ...] [--gpu FILE] [--host FILE|PRESET]\n"
	"                   [--tokens T | --steps S] [--price USD] [--by time|cost] [--top K]\n"
	"                   [--format table|csv|json] [-o FILE] [--report DIR]\n";

static void help(void)
{
	fputs(usage_line, stdout);
	fputs("\n"
	      "Searches the parallel layouts of the scenario's model on each GPU count of LIST and each hardware\n"
	      "model, and prints the fastest K with their step time, MFU and memory per GPU, how much the best\n"
	      "beats the runner-up by and where its step goes. The search covers tensor and pipeline parallelism\n"
	      "(dp is what they leave), the micro-batch size, the pipeline schedule (1f1b, gpipe, interleaved with\n"
	      "2-8 chunks), the pipeline split (even, or balanced: first and last stage one layer less each for\n"
	      "the embedding and the loss), activation recompute (none, full; selective with unfused attention;\n"
	      "op, torchtitan's per-op checkpointing), expert and expert-tensor parallelism (models with\n"
	      "experts), the ZeRO stage and its sharding group (all of DP, or HSDP within a node), ZeRO-3's\n"
	      "reshard after forward, sequence parallelism, pipeline\n"
	      "scatter/gather, the distributed optimizer's overlapped gather, data-parallel overlap and, with\n"
	      "fp32 gradients, a bf16 reduction; everything else (model, batch, dtypes, optimizer,\n"
	      "buckets, execution mode) is kept as the scenario says.\n"
	      "A layout that breaks a rule (tp must divide the heads, pp*v the layers, dp*mb the batch), puts a\n"
	      "TP group across nodes, or cannot fit in memory is dropped and counted by reason; the rest are\n"
	      "simulated, fastest-possible first, until none left can enter the top K (the same top K as\n"
	      "simulating every layout).\n"
	      "\n"
	      "With --tokens or --steps it adds the time to train, the GPU-hours and the bill, at the hardware\n"
	      "model's cost.usd_per_gpu_hour or --price. Several GPU counts or --hw models make several purchase\n"
	      "options; a last table ranks them and marks the Pareto front (no other option trains both sooner\n"
	      "and for less).\n"
	      "\n"
	      "options:\n"
	      "  --gpus LIST       GPU counts (required): 64 or 64,128,256 or 64,128,...,1024 or 64..1024\n"
	      "  --hw FILE|PRESET  a hardware model ('gpusim presets' lists them); repeat to compare models\n"
	      "                    (default: the scenario's 'hardware:')\n"
	      "  --gpu FILE        a calibrated GPU (gpusim calibrate output) put into each --hw model's node and\n"
	      "                    network (docs/hardware-model.md, \"Compose\"): plan a cluster of the GPU you\n"
	      "                    measured\n"
	      "  --host M          the host costs of model M (a preset or a file with a host section) in each\n"
	      "                    model (see 'gpusim predict --help')\n"
	      "  --tokens T        train on T tokens (1e12, 300e9): steps = T / (global_batch * seq)\n"
	      "  --steps S         or train for S optimizer steps (default: one step, costs per step)\n"
	      "  --price USD       price per GPU-hour for every model (default: each model's cost.usd_per_gpu_hour;\n"
	      "                    without either, costs are in GPU-hours)\n"
	      "  --by time|cost    rank the purchase options by time to train (default) or by cost\n"
	      "  --top K           layouts listed per option (default 5)\n"
	      "  --format F        table (default), csv (a row per listed layout) or json (columns: docs/plan.md)\n"
	      "  -o, --output FILE write to FILE instead of standard output (replaced only on success)\n"
	      "  --report DIR      also write DIR/plan.md with the tables and PNG plots (cost against time to train\n"
	      "                    with the front marked, step breakdown of each option's best, scaling efficiency);\n"
	      "                    needs gnuplot for the images\n"
	      "  -h, --help        show this help\n"
	      "\n"
	      "examples:\n"
	      "  gpusim plan scenarios/gpt3_175b_1024gpu.yaml --gpus 1024\n"
	      "      the fastest layouts of GPT-3 175B on 1024 A100s, and why the best one wins\n"
	      "  gpusim plan scenarios/70b_64gpu.yaml --gpus 64,128,256 --hw h100-dgx --hw h200-sxm \\\n"
	      "      --tokens 1e12 --by cost --report plan-70b\n"
	      "      six purchase options for a trillion tokens, cheapest first, with a report to paste\n"
	      "  gpusim plan scenarios/gpt_small_2gpu.yaml --gpus 2 --format csv -o layouts.csv\n"
	      "\n"
	      "see also 'gpusim advise' (is a second GPU worth it?) and docs/plan.md\n"
	      "\n"
	      "exit status: 0 ok (also when nothing fits: the table says why), 1 invalid scenario or hardware model\n"
	      "or simulation error, 2 usage error, 3 a file cannot be read or written\n", stdout);
}

struct args {
	struct plan_study_spec spec;
	const char *hw[MAX_HW];
	int *gpus;
	const char *gpu_file, *host, *output, *report;
	enum report_format fmt;
};

enum { OPT_GPUS, OPT_HW, OPT_GPU, OPT_HOST, OPT_TOKENS, OPT_STEPS, OPT_PRICE, OPT_BY, OPT_TOP, OPT_FORMAT, OPT_OUTPUT,
       OPT_REPORT };
static const struct cli_option options[] = {
	{"gpus", 0, true, OPT_GPUS}, {"hw", 0, true, OPT_HW}, {"gpu", 0, true, OPT_GPU}, {"host", 0, true, OPT_HOST},
	{"tokens", 0, true, OPT_TOKENS}, {"steps", 0, true, OPT_STEPS}, {"price", 0, true, OPT_PRICE},
	{"by", 0, true, OPT_BY}, {"top", 0, true, OPT_TOP}, {"format", 0, true, OPT_FORMAT},
	{"output", 'o', true, OPT_OUTPUT}, {"report", 0, true, OPT_REPORT}, {NULL, 0, false, 0},
};

/* A positive finite number for opt ("1e12", "300e9"); 0 or -1 after a message. */
static int parse_positive(const char *opt, const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end != '\0' || errno != 0 || !(v > 0) || v > 1e30)
		return diag_errorf("--%s needs a positive number, not '%s'", opt, s);
	*out = v;
	return 0;
}

static int on_opt(void *ctx, int id, const char *val)
{
	struct args *a = ctx;
	struct plan_study_spec *sp = &a->spec;
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
	case OPT_GPU: a->gpu_file = val; break;
	case OPT_HOST: a->host = val; break;
	case OPT_TOKENS: return parse_positive("tokens", val, &sp->tokens);
	case OPT_STEPS: return parse_positive("steps", val, &sp->steps);
	case OPT_PRICE: return parse_positive("price", val, &sp->price);
	case OPT_BY:
		if (strcmp(val, "time") == 0)
			sp->by = PLAN_BY_TIME;
		else if (strcmp(val, "cost") == 0)
			sp->by = PLAN_BY_COST;
		else
			return diag_errorf("--by '%s': rank by time or cost", val);
		break;
	case OPT_TOP:
		if (cli_parse_positive_int("--top", val, &sp->top) != 0)
			return -1;
		if (sp->top > 1000)
			return diag_errorf("--top %d: at most 1000 layouts per option", sp->top);
		break;
	case OPT_FORMAT:
		if (report_format_parse(val, &a->fmt) != 0)
			return diag_errorf("unknown format '%s' (use table, csv or json)", val);
		break;
	case OPT_OUTPUT: a->output = val; break;
	case OPT_REPORT: a->report = val; break;
	}
	return 0;
}

static int on_arg(void *ctx, const char *arg)
{
	struct args *a = ctx;
	if (a->spec.scenario)
		return diag_errorf("plan takes one scenario file, got '%s' and '%s'", a->spec.scenario, arg);
	a->spec.scenario = arg;
	return 0;
}

static int parse(int argc, char **argv, struct args *a)
{
	int rc = cli_parse(argc, argv, "plan", options, help, on_opt, on_arg, a);
	if (rc != 0)
		return rc;
	if (!a->spec.scenario) {
		diag_errorf("plan needs a scenario file");
		fputs(usage_line, stderr);
		return cli_usage_error("plan");
	}
	if (!a->spec.gpus) {
		diag_errorf("plan needs --gpus, the GPU counts to plan for (e.g. --gpus 64,128,256)");
		return cli_usage_error("plan");
	}
	if (a->spec.tokens > 0 && a->spec.steps > 0) {
		diag_errorf("give --tokens or --steps, not both");
		return cli_usage_error("plan");
	}
	a->spec.gpu = a->gpu_file;  /* composed into each --hw model (hardware/hwcompose.c) */
	a->spec.host = a->host;
	a->spec.hw = a->hw;
	if (a->spec.top == 0)
		a->spec.top = 5;
	return 0;
}

int cmd_plan(int argc, char **argv)
{
	struct args a = { .fmt = REPORT_TABLE };
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
	if (!wrong && a.host)
		wrong = cli_check_kind(a.host, FILEKIND_HARDWARE) != 0;
	if (wrong) {
		free(a.gpus);
		return 1;
	}
	struct plan_study st;
	struct cli_out out = { .path = a.output };
	int rc = plan_study_run(&a.spec, &st);
	if (rc != 0) {
		status = gserr_exit_code(rc);
	} else if (a.report && (rc = plan_report_write(a.report, &st, NULL, "gnuplot")) != 0) {
		status = gserr_exit_code(rc);
	} else if ((status = cli_out_open(&out)) == 0) {
		int wr = plan_study_write(out.f ? out.f : stdout, a.fmt, &st);
		if (out.f)
			status = cli_out_commit(&out);
		else if (wr != 0)
			status = 3;
	}
	cli_out_discard(&out);
	plan_study_release(&st);
	free(a.gpus);
	return status;
}
