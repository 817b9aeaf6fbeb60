/* cmd_advise: `gpusim advise SCENARIO.yaml [--hw H]`: is a second (fourth, ...) GPU worth it for this job on this
 * machine? The best layout at 1, 2, 4, ... GPUs, its speedup and efficiency, and where adding GPUs stops paying,
 * said in plain sentences (plan/study.h, plan_advise). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "plan/study.h"
#include "util/diag.h"
#include "util/gserr.h"

static const char usage_line[] =
	"usage: gpusim advise SCENARIO.yaml [--hw FILE|PRESET] [--max-gpus N] [--format table|csv|json]\n"
	"                     [-o FILE] [--report DIR]\n";

static void help(void)
{
	fputs(usage_line, stdout);
	fputs("\n"
	      "Answers \"is another GPU worth it?\" for the scenario's job: for 1, 2, 4, ... GPUs of the hardware\n"
	      "model it searches the fastest layout (as 'gpusim plan' does), with the scenario's global batch at\n"
	      "every count, and prints its step time, speedup and efficiency over the smallest count that fits,\n"
	      "and where the step goes. Two or three sentences on top say which count is fastest, where adding\n"
	      "GPUs stops making the step faster, and why: what each GPU computes shrinks, and what grows instead\n"
	      "(communication, the pipeline bubble, the host issuing kernels).\n"
	      "\n"
	      "options:\n"
	      "  --hw FILE|PRESET  the hardware model (default: the scenario's 'hardware:')\n"
	      "  --max-gpus N      the largest count tried (default: the larger of the scenario's GPU count and\n"
	      "                    the GPUs of one node, at least 2)\n"
	      "  --format F        table (default), csv or json (a row per GPU count, the verdict in json)\n"
	      "  -o, --output FILE write to FILE instead of standard output (replaced only on success)\n"
	      "  --report DIR      also write DIR/plan.md with the verdict, the table and PNG plots\n"
	      "  -h, --help        show this help\n"
	      "\n"
	      "examples:\n"
	      "  gpusim advise scenarios/mlp_dense_pcie_2gpu.yaml\n"
	      "      a small MLP on two GeForce cards over PCIe: two GPUs are slower than one, and why\n"
	      "  gpusim advise scenarios/gpt_small_2gpu.yaml --hw h100-dgx --max-gpus 64\n"
	      "\n"
	      "exit status: 0 ok, 1 invalid scenario or hardware model or simulation error, 2 usage error,\n"
	      "3 a file cannot be read or written\n", stdout);
}

struct args {
	const char *scenario, *hw, *output, *report;
	int max_gpus;
	enum report_format fmt;
};

enum { OPT_HW, OPT_MAX, OPT_FORMAT, OPT_OUTPUT, OPT_REPORT };
static const struct cli_option options[] = {
	{"hw", 0, true, OPT_HW}, {"max-gpus", 0, true, OPT_MAX}, {"format", 0, true, OPT_FORMAT},
	{"output", 'o', true, OPT_OUTPUT}, {"report", 0, true, OPT_REPORT}, {NULL, 0, false, 0},
};

static int on_opt(void *ctx, int id, const char *val)
{
	struct args *a = ctx;
	switch (id) {
	case OPT_HW:
		if (a->hw)
			return diag_errorf("advise takes one --hw (compare models with 'gpusim plan --hw A --hw B')");
		a->hw = val;
		break;
	case OPT_MAX:
		if (cli_parse_positive_int("--max-gpus", val, &a->max_gpus) != 0)
			return -1;
		if (a->max_gpus > 1 << 20)
			return diag_errorf("--max-gpus %d: at most %d", a->max_gpus, 1 << 20);
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
	if (a->scenario)
		return diag_errorf("advise takes one scenario file, got '%s' and '%s'", a->scenario, arg);
	a->scenario = arg;
	return 0;
}

int cmd_advise(int argc, char **argv)
{
	struct args a = { .fmt = REPORT_TABLE };
	int status = cli_parse(argc, argv, "advise", options, help, on_opt, on_arg, &a);
	if (status != 0)
		return status < 0 ? 0 : status;
	if (!a.scenario) {
		diag_errorf("advise needs a scenario file");
		fputs(usage_line, stderr);
		return cli_usage_error("advise");
	}
	FILE *probe = fopen(a.scenario, "r");
	if (!probe) {
		diag_errorf("cannot open '%s': %s", a.scenario, strerror(errno));
		return 3;
	}
	fclose(probe);
	if (cli_check_kind(a.scenario, FILEKIND_SCENARIO) != 0 || (a.hw && cli_check_kind(a.hw, FILEKIND_HARDWARE)))
		return 1;
	struct plan_advice adv;
	struct cli_out out = { .path = a.output };
	int rc = plan_advise(a.scenario, a.hw, a.max_gpus, &adv);
	if (rc != 0) {
		status = gserr_exit_code(rc);
	} else if (a.report && (rc = plan_report_write(a.report, &adv.st, &adv, "gnuplot")) != 0) {
		status = gserr_exit_code(rc);
	} else if ((status = cli_out_open(&out)) == 0) {
		int wr = plan_advice_write(out.f ? out.f : stdout, a.fmt, &adv);
		if (out.f)
			status = cli_out_commit(&out);
		else if (wr != 0)
			status = 3;
	}
	cli_out_discard(&out);
	plan_advice_release(&adv);
	return status;
}
