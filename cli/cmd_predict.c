/* cmd_predict: `gpusim predict SCENARIO.yaml [options]`, the path from a YAML file to a printed prediction:
 * scenario_load -> scenario_load_hardware -> predict_run -> report_write. Output files (-o, --trace) go through
 * util/outfile.h: a temporary renamed into place only when the whole run succeeded (a failed or interrupted run
 * never leaves a half file), and nothing reaches stdout before the simulation has succeeded. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "util/diag.h"
#include "cli/commands.h"
#include "hardware/hwmodel.h"
#include "report/report.h"
#include "scenario/scenario.h"
#include "sim/fit.h"
#include "sim/hostband.h"
#include "sim/predict.h"
#include "util/gserr.h"
#include "util/xalloc.h"

static const char usage_line[] =
	"usage: gpusim predict SCENARIO.yaml [--hw FILE|PRESET] [--gpu FILE [--target-gpu PRESET]] [--gpus N]\n"
	"                      [--host FILE|PRESET] [--format table|json|csv] [-o FILE] [--all-ranks]\n"
	"                      [--trace FILE [--trace-ranks overview|stages|critical|all|LIST]] [--require-fit]\n"
	"                      [--max-tasks N] [--max-trace-mb N]\n";

static void help(void)
{
	fputs(usage_line, stdout);
	fputs("\n"
	      "Predicts one training step of the job described in SCENARIO.yaml (model, batch, parallel layout,\n"
	      "hardware; see docs/scenario.md) with a discrete-event simulation: every micro-batch's forward and\n"
	      "backward on every pipeline stage, tensor-parallel all-reduces, pipeline sends, data-parallel gradient\n"
	      "all-reduces in buckets, and the optimizer step, each timed from the hardware model. It prints the\n"
	      "step time, tokens/s, MFU, where the time goes on the critical rank, and the memory per GPU.\n"
	      "A step bound by its host (eager PyTorch's per-op cost) goes at the host's speed; where the hardware\n"
	      "model is a calibration that measured how far its host drifted (host.<mode>.drift_lo, drift_hi), the\n"
	      "step is simulated twice more on a host that fast and that slow and printed as 'host drift' (JSON\n"
	      "host_band; docs/output.md).\n"
	      "\n"
	      "options:\n"
	      "  --hw FILE|PRESET  hardware model to use instead of the scenario's 'hardware:'; a built-in preset\n"
	      "                    name (see 'gpusim presets') or a gpusim-hw/1 YAML file (docs/hardware-model.md)\n"
	      "  --gpu FILE        a calibrated GPU (gpusim calibrate -o FILE) inside the --hw model's node and\n"
	      "                    network: its GEMM, memory, attention, launch and power figures replace the\n"
	      "                    preset's GPU; its collectives are used only where the node is of the same kind\n"
	      "                    (docs/hardware-model.md, Compose); the report says which part came from where\n"
	      "  --target-gpu P    with --gpu: carry the measured efficiencies (achieved/peak) to preset P's GPU\n"
	      "                    (its peaks, HBM, SMs, memory): one H100 calibration priced on another GPU type\n"
	      "  --host M          the host costs (per op, per call, the host range) of model M, a preset or a file\n"
	      "                    with a host section, instead of the hardware's: a calibrated GPU with the presets'\n"
	      "                    median lent host (--host h200-sxm), or one machine's host with another's GPU\n"
	      "  --gpus N          total GPU count instead of the scenario's; dp is re-derived as N/(tp*pp)\n"
	      "  --format F        table (default, for people), json (one object, keys in docs/output.md) or csv\n"
	      "                    (a header line and a data line, nested keys flattened as breakdown_s.compute)\n"
	      "  -o, --output FILE write the report to FILE instead of standard output ('-'); replaced only on success\n"
	      "  --all-ranks       simulate every rank instead of one per group of symmetric ranks (DP replicas,\n"
	      "                    TP peers); slower, and gives the same result where the groups of a\n"
	      "                    stage lie on the nodes alike (docs/simulation.md, Symmetry)\n"
	      "  --trace FILE      also write a Chrome trace-event timeline (open in chrome://tracing or Perfetto)\n"
	      "  --trace-ranks R   the GPUs the timeline holds: overview (default: one per pipeline stage, dp 0, tp 0,\n"
	      "                    op by op on the critical stage and one slice per layer and micro-batch on the\n"
	      "                    others: a few MB at any size), stages (the same GPUs, op by op), critical (the\n"
	      "                    critical one alone), all (every GPU, written as the simulation runs: large), or\n"
	      "                    GPU numbers such as 0,8,16-23; GPUs other than a stage's dp 0, tp 0 are\n"
	      "                    simulated with --all-ranks\n"
	      "  --require-fit     a job that does not fit in GPU memory is an error (exit 1), not a warning\n"
	      "  --max-trace-mb N  the trace's budget (default 1000 MB): a larger trace is an error and nothing is kept\n"
	      "  --max-tasks N     the simulation's budget, about 10 tasks per layer and micro-batch on each simulated\n"
	      "                    rank (default 1e8, about 1 GB): a larger job stops before it is built\n"
	      "  -h, --help        show this help\n"
	      "\n"
	      "examples:\n"
	      "  gpusim predict scenarios/70b_64gpu.yaml\n"
	      "  gpusim predict scenarios/70b_64gpu.yaml --gpus 128 --format json -o 70b_128.json\n"
	      "  gpusim predict scenarios/70b_64gpu.yaml --hw a100-dgx --trace 70b.trace.json\n"
	      "  gpusim predict scenarios/70b_64gpu.yaml --hw h100-dgx --gpu hardware/h100x1-measured.yaml\n"
	      "  gpusim predict scenarios/70b_64gpu.yaml --trace stage0.trace.json --trace-ranks 0-7\n"
	      "\n"
	      "When the job does not fit in GPU memory the report says so, and standard error gets a warning with the\n"
	      "single changes that would make it fit (more recompute, a higher ZeRO stage, a smaller micro-batch,\n"
	      "more tp or pp at the same GPU count), each simulated, fastest first. The exit status stays 0 unless\n"
	      "--require-fit is given.\n"
	      "exit status: 0 ok, 1 invalid scenario or hardware model or simulation error, 2 usage error,\n"
	      "3 a file cannot be read or written\n", stdout);
}

struct args {
	const char *scenario;
	struct scenario_overrides ov;
	enum report_format fmt;
	bool all_ranks, require_fit;
	const char *output, *trace, *trace_ranks;
	enum trace_pick pick;
	int *ranks;  /* TRACE_LIST, owned */
	int nranks;
	double max_tasks, max_trace_mb;
};

enum { OPT_HW, OPT_GPU, OPT_TARGET_GPU, OPT_HOST, OPT_GPUS, OPT_FORMAT, OPT_OUTPUT, OPT_TRACE, OPT_TRACE_RANKS,
       OPT_ALL_RANKS, OPT_REQUIRE_FIT, OPT_MAX_TASKS, OPT_MAX_TRACE_MB };
static const struct cli_option options[] = {
	{"hw", 0, true, OPT_HW}, {"gpu", 0, true, OPT_GPU}, {"target-gpu", 0, true, OPT_TARGET_GPU},
	{"host", 0, true, OPT_HOST}, {"gpus", 0, true, OPT_GPUS}, {"format", 0, true, OPT_FORMAT},
	{"output", 'o', true, OPT_OUTPUT}, {"trace", 0, true, OPT_TRACE}, {"trace-ranks", 0, true, OPT_TRACE_RANKS},
	{"all-ranks", 0, false, OPT_ALL_RANKS},
	{"require-fit", 0, false, OPT_REQUIRE_FIT}, {"max-tasks", 0, true, OPT_MAX_TASKS},
	{"max-trace-mb", 0, true, OPT_MAX_TRACE_MB}, {NULL, 0, false, 0},
};

/* --trace-ranks: stages, critical, all, or GPU numbers and ranges (0,8,16-23), checked against the job's GPU
 * count once the scenario is loaded. */
static int parse_trace_ranks(struct args *a, const char *val)
{
	a->trace_ranks = val;
	a->nranks = 0;
	if (strcmp(val, "overview") == 0 || strcmp(val, "stages") == 0 || strcmp(val, "critical") == 0 ||
	    strcmp(val, "all") == 0) {
		a->pick = val[0] == 'o' ? TRACE_OVERVIEW : val[0] == 's' ? TRACE_STAGES : val[0] == 'c' ? TRACE_CRITICAL :
			  TRACE_ALL;
		return 0;
	}
	a->pick = TRACE_LIST;
	int cap = 0;
	for (const char *p = val;;) {
		char *end;
		errno = 0;
		long lo = strtol(p, &end, 10), hi = lo;
		if (end != p && *end == '-') {
			const char *q = end + 1;
			hi = strtol(q, &end, 10);
			if (end == q)
				hi = -1;
		}
		if (errno || end == p || (*end != ',' && *end != '\0') || lo < 0 || hi < lo || hi >= INT_MAX ||
		    hi - lo >= 1 << 20)
			return diag_errorf("--trace-ranks needs overview, stages, critical, all or GPU numbers such as 0,8,16-23, "
					   "not '%s'", val);
		for (long r = lo; r <= hi; r++) {
			if (a->nranks == cap) {
				cap = cap ? 2 * cap : 16;
				a->ranks = xrealloc(a->ranks, (size_t)cap * sizeof *a->ranks);
			}
			a->ranks[a->nranks++] = (int)r;
		}
		if (*end == '\0')
			return 0;
		p = end + 1;
	}
}

static int on_opt(void *ctx, int id, const char *val)
{
	struct args *a = ctx;
	switch (id) {
	case OPT_HW:
		if (a->ov.hardware)
			return diag_errorf("predict takes one --hw (got '%s' and '%s'); to compare hardware models side by "
					   "side use 'gpusim scale SCENARIO --gpus N --hw %s --hw %s'", a->ov.hardware, val,
					   a->ov.hardware, val);
		a->ov.hardware = val;
		break;
	case OPT_GPU: a->ov.gpu = val; break;
	case OPT_TARGET_GPU: a->ov.target_gpu = val; break;
	case OPT_HOST: a->ov.host = val; break;
	case OPT_GPUS: return cli_parse_positive_int("--gpus", val, &a->ov.gpus);
	case OPT_FORMAT:
		if (report_format_parse(val, &a->fmt) != 0)
			return diag_errorf("unknown format '%s' (use table, json or csv)", val);
		break;
	case OPT_OUTPUT: a->output = val; break;
	case OPT_TRACE: a->trace = val; break;
	case OPT_TRACE_RANKS: return parse_trace_ranks(a, val);
	case OPT_ALL_RANKS: a->all_ranks = true; break;
	case OPT_REQUIRE_FIT: a->require_fit = true; break;
	case OPT_MAX_TASKS: return cli_parse_budget("--max-tasks", val, &a->max_tasks);
	case OPT_MAX_TRACE_MB: return cli_parse_budget("--max-trace-mb", val, &a->max_trace_mb);
	}
	return 0;
}

static int on_arg(void *ctx, const char *arg)
{
	struct args *a = ctx;
	if (a->scenario) {
		diag_errorf("predict takes one scenario file, got '%s' and '%s'", a->scenario, arg);
		return -1;
	}
	a->scenario = arg;
	return 0;
}

/* 0 parsed, -1 help shown (exit 0), 2 usage error (message printed). */
static int parse(int argc, char **argv, struct args *a)
{
	int rc = cli_parse(argc, argv, "predict", options, help, on_opt, on_arg, a);
	if (rc != 0)
		return rc;
	if (!a->scenario) {
		diag_errorf("predict needs a scenario file");
		fputs(usage_line, stderr);
		return cli_usage_error("predict");
	}
	if (a->ov.target_gpu && !a->ov.gpu) {
		diag_errorf("--target-gpu carries a measured GPU to another one: give the measurement with --gpu FILE");
		return cli_usage_error("predict");
	}
	if (a->trace_ranks && !a->trace) {
		diag_errorf("--trace-ranks picks the GPUs of a --trace timeline: give --trace FILE too");
		return cli_usage_error("predict");
	}
	if (a->output && a->trace && strcmp(a->output, a->trace) == 0) {
		diag_errorf("-o and --trace name the same file '%s'", a->output);
		return cli_usage_error("predict");
	}
	return 0;
}

/* A layout that does not fit: a warning (an error with --require-fit) and the single changes that would make it
 * fit, each simulated. 0, 1 with --require-fit, or a negative GS_* code when a simulation fails. */
static int check_fit(const struct scenario *s, const struct hwmodel *hw, const struct result *r, bool require)
{
	if (r->fits_in_memory)
		return 0;
	char what[160];
	if (r->mem.total <= r->memory_capacity_bytes)
		snprintf(what, sizeof what, "does not fit: the offloaded activations need %.1f GB of host memory per "
			 "node, the node has %.1f GB", r->host_bytes_per_node / 1e9, r->host_capacity_bytes / 1e9);
	else
		snprintf(what, sizeof what, "does not fit: needs %.1f GB per GPU, the GPU has %.1f GB",
			 r->mem.total / 1e9, r->memory_capacity_bytes / 1e9);
	if (require)
		diag_errorf("%s (--require-fit)", what);
	else
		diag_warning("%s", what);
	if (r->mem.total <= r->memory_capacity_bytes) {
		fputs("gpusim:   offload fewer layers (training.offload_layers), or use more nodes for the same layout's "
		      "host memory\n", stderr);
		return require ? 1 : 0;
	}
	struct fit_hint hints[4];
	int n = fit_suggest(s, hw, hints, 4);
	if (n < 0)
		return n;
	if (n == 0)
		fputs("gpusim:   no single change (recompute, ZeRO stage, micro-batch, more tp or pp at this GPU count) "
		      "makes it fit: try more GPUs or a GPU with more memory\n", stderr);
	else
		fputs("gpusim:   it fits with one of these changes (fastest first):\n", stderr);
	for (int i = 0; i < n; i++)
		fprintf(stderr, "gpusim:     %-32s %6.1f GB per GPU, step %.4g s\n", hints[i].change,
			hints[i].mem_total / 1e9, hints[i].step_time_s);
	return require ? 1 : 0;
}

/* The scenario readable and each file of the right kind: 0, else the exit code (3: an unreadable scenario, an
 * environment problem, told apart from a bad one, 1). */
static int check_inputs(const struct args *a)
{
	FILE *probe = fopen(a->scenario, "r");
	if (!probe) {
		diag_errorf("cannot open '%s': %s", a->scenario, strerror(errno));
		return 3;
	}
	fclose(probe);
	if (cli_check_kind(a->scenario, FILEKIND_SCENARIO) != 0 ||
	    (a->ov.hardware && cli_check_kind(a->ov.hardware, FILEKIND_HARDWARE) != 0) ||
	    (a->ov.gpu && cli_check_kind(a->ov.gpu, FILEKIND_HARDWARE) != 0) ||
	    (a->ov.host && cli_check_kind(a->ov.host, FILEKIND_HARDWARE) != 0))
		return 1;
	return 0;
}

int cmd_predict(int argc, char **argv)
{
	struct args a = {.fmt = REPORT_TABLE};
	int status = parse(argc, argv, &a);
	if (status != 0) {
		free(a.ranks);
		return status < 0 ? 0 : status;
	}

	if ((status = check_inputs(&a)) != 0) {
		free(a.ranks);
		return status;
	}

	struct cli_out out = {.path = a.output}, trace = {.path = a.trace};
	struct hwmodel *hw = NULL;
	struct scenario s;
	struct result r;
	int rc;

	if ((status = cli_out_open(&out)) != 0 || (status = cli_out_open(&trace)) != 0)
		goto done;
	if ((rc = scenario_load(a.scenario, &a.ov, &s)) != 0) {
		status = gserr_exit_code(rc);
		goto done;
	}
	if ((rc = scenario_load_hardware(&s, &hw)) != 0) {
		status = gserr_exit_code(rc);
		goto done;
	}
	/* with context parallelism one CP rank of each replica stands for its cp ranks (sim/cp.h): the timeline
	 * numbers the dp*tp*pp GPUs simulated */
	int traced = s.par.cp > 1 ? s.par.gpus / s.par.cp : s.par.gpus;
	for (int i = 0; i < a.nranks; i++)
		if (a.ranks[i] >= traced) {
			if (traced < s.par.gpus)
				diag_errorf("--trace-ranks: GPU %d is not traced: with context parallelism (cp %d) the timeline "
					    "holds one CP rank of each replica, GPUs 0-%d", a.ranks[i], s.par.cp, traced - 1);
			else
				diag_errorf("--trace-ranks: GPU %d is not in this job (GPUs 0-%d)", a.ranks[i],
					    s.par.gpus - 1);
			status = 2;
			goto done;
		}
	struct predict_opts opts = {.all_ranks = a.all_ranks, .trace = trace.f, .trace_pick = a.pick,
				    .trace_ranks = a.ranks, .trace_nranks = a.nranks, .max_tasks = a.max_tasks,
				    .max_trace_bytes = a.max_trace_mb * 1e6};
	memset(&r, 0, sizeof r);
	if ((rc = predict_run(&s, hw, &opts, &r)) != 0 || (rc = hostband_run(&s, hw, &opts, &r)) != 0) {
		status = gserr_exit_code(rc);
		goto done;
	}
	if ((rc = check_fit(&s, hw, &r, a.require_fit)) != 0) {
		status = rc > 0 ? rc : gserr_exit_code(rc);
		goto done;
	}
	errno = 0;
	if (report_write(out.f ? out.f : stdout, a.fmt, &r) != 0) {
		if (out.f)
			diag_errorf("cannot write '%s': %s", out.path, errno ? strerror(errno) : "write error");
		/* stdout: main reports the write error when it flushes */
		status = 3;
		goto done;
	}
	if ((status = cli_out_commit(&out)) == 0)
		status = cli_out_commit(&trace);
done:
	cli_out_discard(&out);
	cli_out_discard(&trace);
	hwmodel_free(hw);
	free(a.ranks);
	return status;
}
