/* cmd_validate: `gpusim validate MEASURED.csv [options]`: predict every row of a measured-runs CSV and report
 * predicted against measured, row by row, with the median and maximum relative error and, for rows with a
 * 1-GPU baseline, whether the predicted speedup is on the right side of 1. The reading and the arithmetic are in
 * validate/score.c, the simulation in validate/score_predict.c; this file parses options and prints. The report
 * is printed even when a threshold fails, so the rows that miss can be seen; the exit status says the verdict. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "util/diag.h"
#include "util/gserr.h"
#include "util/jsonw.h"
#include "validate/score.h"

static const char usage_line[] =
	"usage: gpusim validate MEASURED.csv [--hw FILE|PRESET] [--gpu FILE [--target-gpu PRESET]] [--host FILE|PRESET]\n"
	"                       [--max-median-error PCT] [--max-error PCT]\n"
	"                       [--require-speedup-sign] [--format table|csv|json]\n";

static void help(void)
{
	fputs(usage_line, stdout);
	fputs("\n"
	      "Scores gpusim against real runs. Each row of MEASURED.csv names a scenario and what was measured\n"
	      "when that exact job ran; validate predicts every scenario and prints predicted, measured and the\n"
	      "relative error (predicted - measured) / measured, then the median and the maximum of |error|.\n"
	      "\n"
	      "MEASURED.csv: a header line, one row per line, '#' comment lines allowed, no quoted fields.\n"
	      "  scenario                 scenario YAML, relative to the CSV's folder (required)\n"
	      "  measured_step_s          measured seconds per training step, or\n"
	      "  measured_tflops_per_gpu  measured TFLOP/s per GPU, as papers publish (one metric per file)\n"
	      "  label                    row name (default: the scenario's file name)\n"
	      "  baseline                 label of the 1-GPU row of the same work: the report then says whether\n"
	      "                           the predicted speedup is on the same side of 1 as the measured one\n"
	      "  flops_formula            with TFLOP/s: model (6*N*tokens + attention, the default) or megatron\n"
	      "                           (SC'21 Eq. 3, which counts the recompute forward)\n"
	      "  role                     fit or score (validate/tag_roles.py; docs/validation.md): the summary\n"
	      "                           then gives median and max |error| of each\n"
	      "  family, or mode          the layout family (mode without group sizes: dp2 -> dp): per family\n"
	      "  device                   the GPU the row ran on: per GPU type\n"
	      "  peak_mem_bytes           torch.cuda.max_memory_allocated: scored against the predicted memory\n"
	      "Other columns are ignored. validate/runner/torch_step.py writes such a file from real training steps.\n"
	      "With a calibration that measured its host's drift, a host-bound row also gets its step on a host as\n"
	      "fast and as slow as that (band_lo, band_hi): the summary counts the measurements inside, gives\n"
	      "median and max |error| of the host-bound rows and of the rest ('bound host', 'bound gpu'), and a\n"
	      "speedup whose side of 1 differs on the fast and the slow host is marked '(host decides)'.\n"
	      "\n"
	      "options:\n"
	      "  --hw FILE|PRESET         hardware model for every row instead of each scenario's 'hardware:'\n"
	      "  --gpu FILE               a calibrated GPU inside that model's node and network (as predict --gpu)\n"
	      "  --target-gpu PRESET      with --gpu: the measured efficiencies carried to PRESET's GPU\n"
	      "  --host FILE|PRESET       the host costs of that model for every row (as predict --host)\n"
	      "  --max-median-error PCT   exit 1 when the median |error| is above PCT percent\n"
	      "  --max-error PCT          exit 1 when any row's |error| is above PCT percent\n"
	      "  --require-speedup-sign   exit 1 when a predicted speedup is on the wrong side of 1\n"
	      "  --format F               table (default), csv (one line per row, '#' summary lines at the end; the\n"
	      "                           input of plots/validation_scatter.gp) or json\n"
	      "  -h, --help               show this help\n"
	      "\n"
	      "examples:\n"
	      "  gpusim validate validate/measured-h200x2.csv --hw hardware/h200x2-measured.yaml\n"
	      "  gpusim validate validate/measured-h200x2.csv --max-median-error 5 --max-error 10 --require-speedup-sign\n"
	      "  gpusim validate validate/megatron-sc21.csv --format csv > megatron.csv\n"
	      "\n"
	      "exit status: 0 ok, 1 a threshold is exceeded, a row could not be predicted or the CSV is invalid,\n"
	      "2 usage error, 3 a file cannot be read or written\n", stdout);
}

enum fmt { FMT_TABLE, FMT_CSV, FMT_JSON };

struct args {
	const char *csv, *hw, *gpu, *target_gpu, *host;
	double max_median_pct, max_pct;   /* < 0: not set */
	bool require_sign;
	enum fmt fmt;
};

/* A percentage: a number >= 0, an optional trailing '%'. 0 or -1 after a message. */
static int parse_pct(const char *opt, const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end != s && *end == '%')
		end++;
	if (errno || end == s || *end != '\0' || !isfinite(v) || v < 0) {
		diag_errorf("%s needs a percentage such as 5 or 2.5, not '%s'", opt, s);
		return -1;
	}
	*out = v;
	return 0;
}

enum { OPT_HW, OPT_GPU, OPT_TARGET_GPU, OPT_HOST, OPT_MAX_MEDIAN, OPT_MAX, OPT_SIGN, OPT_FORMAT };
static const struct cli_option options[] = {
	{"hw", 0, true, OPT_HW}, {"gpu", 0, true, OPT_GPU}, {"target-gpu", 0, true, OPT_TARGET_GPU},
	{"host", 0, true, OPT_HOST}, {"max-median-error", 0, true, OPT_MAX_MEDIAN}, {"max-error", 0, true, OPT_MAX},
	{"require-speedup-sign", 0, false, OPT_SIGN}, {"format", 0, true, OPT_FORMAT}, {NULL, 0, false, 0},
};

static int on_opt(void *ctx, int id, const char *val)
{
	struct args *a = ctx;
	switch (id) {
	case OPT_HW: a->hw = val; break;
	case OPT_GPU: a->gpu = val; break;
	case OPT_TARGET_GPU: a->target_gpu = val; break;
	case OPT_HOST: a->host = val; break;
	case OPT_MAX_MEDIAN: return parse_pct("--max-median-error", val, &a->max_median_pct);
	case OPT_MAX: return parse_pct("--max-error", val, &a->max_pct);
	case OPT_SIGN: a->require_sign = true; break;
	case OPT_FORMAT:
		if (strcmp(val, "table") == 0)
			a->fmt = FMT_TABLE;
		else if (strcmp(val, "csv") == 0)
			a->fmt = FMT_CSV;
		else if (strcmp(val, "json") == 0)
			a->fmt = FMT_JSON;
		else
			return diag_errorf("unknown format '%s' (use table, csv or json)", val);
		break;
	}
	return 0;
}

static int on_arg(void *ctx, const char *arg)
{
	struct args *a = ctx;
	if (a->csv)
		return diag_errorf("validate takes one CSV file, got '%s' and '%s'", a->csv, arg);
	a->csv = arg;
	return 0;
}

/* 0 parsed, -1 help shown, 2 usage error. */
static int parse(int argc, char **argv, struct args *a)
{
	int rc = cli_parse(argc, argv, "validate", options, help, on_opt, on_arg, a);
	if (rc != 0)
		return rc;
	if (!a->csv) {
		diag_errorf("validate needs a measured-runs CSV file");
		fputs(usage_line, stderr);
		return cli_usage_error("validate");
	}
	return 0;
}

static const char *metric_name(const struct score_table *t)
{
	return t->metric == SCORE_TFLOPS ? "tflops_per_gpu" : "step_s";
}

/* A value in the metric's display unit: milliseconds for step times, TFLOP/s as is. */
static double shown(const struct score_table *t, double v)
{
	return t->metric == SCORE_TFLOPS ? v : v * 1e3;
}

#define MAX_GROUPS 64
static const char *const by_name[] = { "family", "device", "role", "bound" };

/* Whether the summary has groups by `by`: a column that names any (family, device, role), or, by bound, rows of
 * which some have a host drift band and so split into host- and GPU-bound */
static bool has_groups(const struct score_table *t, enum score_by by, const struct score_group *g, int ng)
{
	if (by == SCORE_BY_BOUND) {
		for (int i = 0; i < t->n; i++)
			if (t->rows[i].predicted_ok && t->rows[i].band_hi > 0)
				return true;
		return false;
	}
	return !(ng == 1 && !g[0].key[0]);
}

/* Median and max |error| per family, per device and per role, when the CSV gives more than one of a kind or any
 * tag at all, and per bound (host or GPU) when the host bounds any row; and the peak-memory errors. prefix "" for
 * the table, "# " for csv. */
static void write_groups(FILE *f, const struct score_table *t, const struct score_summary *s, const char *prefix)
{
	struct score_group g[MAX_GROUPS];
	for (int by = SCORE_BY_FAMILY; by <= SCORE_BY_BOUND; by++) {
		int ng = score_groups(t, (enum score_by)by, g, MAX_GROUPS);
		if (!has_groups(t, (enum score_by)by, g, ng))
			continue;  /* no such column, or no row the host bounds */
		for (int i = 0; i < ng; i++)
			if (g[i].rows > 0)
				fprintf(f, "%s%s %-24s %3d rows: median |error| %5.1f%%, max %5.1f%% (%s)\n", prefix,
					by_name[by], g[i].key[0] ? g[i].key : "(none)", g[i].rows,
					100.0 * g[i].median_abs_err, 100.0 * g[i].max_abs_err, t->rows[g[i].worst].label);
	}
	if (s->band_rows > 0)
		fprintf(f, "%shost drift: %d rows with a band (the host bounds them), the measurement inside it for %d\n",
			prefix, s->band_rows, s->band_inside);
	if (s->mem_rows > 0)
		fprintf(f, "%speak memory: %d rows, median |error| %.1f%%, max %.1f%% (%s)\n", prefix, s->mem_rows,
			100.0 * s->mem_median_abs_err, 100.0 * s->mem_max_abs_err, t->rows[s->mem_worst].label);
}

static void write_table(FILE *f, const struct score_table *t, const struct score_summary *s)
{
	const char *unit = t->metric == SCORE_TFLOPS ? "TFLOP/s/GPU" : "ms";
	int w = 5;
	for (int i = 0; i < t->n; i++)
		if ((int)strlen(t->rows[i].label) > w)
			w = (int)strlen(t->rows[i].label);
	fprintf(f, "%-*s  %12s  %12s  %8s", w, "label", "measured", "predicted", "error");
	bool any_speedup = s->speedup_rows > 0;
	if (any_speedup)
		fprintf(f, "  %-22s", "speedup meas / pred");
	fprintf(f, "   (%s)\n", unit);
	for (int i = 0; i < t->n; i++) {
		const struct score_row *r = &t->rows[i];
		fprintf(f, "%-*s  %12.3f  ", w, r->label, shown(t, r->measured));
		if (!r->predicted_ok) {
			fprintf(f, "%12s  %8s  %s\n", "-", "-", r->error);
			continue;
		}
		fprintf(f, "%12.3f  %+7.1f%%", shown(t, r->predicted), 100.0 * r->rel_err);
		if (r->has_speedup)
			fprintf(f, "  %5.2fx / %5.2fx  %s%s", r->measured_speedup, r->predicted_speedup,
				r->speedup_sign_ok ? "ok" : "WRONG SIDE OF 1", r->speedup_host_side ? " (host decides)" : "");
		fputc('\n', f);
	}
	fputc('\n', f);
	if (s->predicted > 0)
		fprintf(f, "%d rows predicted: median |error| %.1f%%, max |error| %.1f%% (%s)\n", s->predicted,
			100.0 * s->median_abs_err, 100.0 * s->max_abs_err, t->rows[s->worst].label);
	if (s->failed)
		fprintf(f, "%d of %d rows could not be predicted\n", s->failed, s->rows);
	if (any_speedup)
		fprintf(f, "speedup vs 1 GPU: on the right side of 1 for %d of %d rows\n",
			s->speedup_rows - s->speedup_sign_wrong, s->speedup_rows);
	if (s->speedup_host_side)
		fprintf(f, "speedup's side of 1 decided by the host's drift (fast and slow host differ): %d rows, %d of "
			"them on the wrong side\n", s->speedup_host_side, s->speedup_host_side_wrong);
	write_groups(f, t, s, "");
}

static void write_csv(FILE *f, const struct score_table *t, const struct score_summary *s)
{
	fputs("label,scenario,metric,measured,predicted,rel_error,abs_rel_error,baseline,measured_speedup,"
	      "predicted_speedup,speedup_sign_ok,family,device,role,measured_mem_bytes,predicted_mem_bytes,"
	      "mem_rel_error,band_lo,band_hi\n", f);
	for (int i = 0; i < t->n; i++) {
		const struct score_row *r = &t->rows[i];
		fprintf(f, "%s,%s,%s,%.9g,", r->label, r->scenario, metric_name(t), r->measured);
		if (r->predicted_ok)
			fprintf(f, "%.9g,%.6g,%.6g,", r->predicted, r->rel_err, fabs(r->rel_err));
		else
			fputs(",,,", f);
		fprintf(f, "%s,", r->baseline >= 0 ? t->rows[r->baseline].label : "");
		if (r->has_speedup)
			fprintf(f, "%.6g,%.6g,%s,", r->measured_speedup, r->predicted_speedup,
				r->speedup_sign_ok ? "true" : "false");
		else
			fputs(",,,", f);
		fprintf(f, "%s,%s,%s,", r->family, r->device, r->role);
		if (r->measured_mem > 0)
			fprintf(f, "%.0f", r->measured_mem);
		fputc(',', f);
		if (r->predicted_ok && r->predicted_mem > 0)
			fprintf(f, "%.0f", r->predicted_mem);
		fputc(',', f);
		if (isfinite(r->mem_rel_err))
			fprintf(f, "%.6g", r->mem_rel_err);
		fputc(',', f);
		if (r->predicted_ok && r->band_hi > 0)
			fprintf(f, "%.9g,%.9g", r->band_lo, r->band_hi);
		else
			fputc(',', f);
		fputc('\n', f);
	}
	if (s->predicted > 0)
		fprintf(f, "# rows %d, predicted %d, median_abs_rel_error %.6g, max_abs_rel_error %.6g (%s)\n",
			s->rows, s->predicted, s->median_abs_err, s->max_abs_err, t->rows[s->worst].label);
	if (s->speedup_rows)
		fprintf(f, "# speedup_sign_ok %d of %d\n", s->speedup_rows - s->speedup_sign_wrong,
			s->speedup_rows);
	if (s->speedup_host_side)
		fprintf(f, "# speedup_host_side %d, wrong %d\n", s->speedup_host_side, s->speedup_host_side_wrong);
	write_groups(f, t, s, "# ");
}

/* One scored row: measured, predicted (or why not), its speedup against its baseline, its memory. */
static void json_row(struct jsonw *w, const struct score_table *t, const struct score_row *r)
{
	jsonw_kv_string(w, "label", r->label);
	jsonw_kv_string(w, "scenario", r->scenario);
	jsonw_kv_double(w, "measured", r->measured);
	if (r->predicted_ok) {
		jsonw_kv_double(w, "predicted", r->predicted);
		jsonw_kv_double(w, "predicted_step_s", r->predicted_step_s);
		jsonw_kv_double(w, "rel_error", r->rel_err);
	} else {
		jsonw_kv_string(w, "error", r->error);
	}
	if (r->baseline >= 0)
		jsonw_kv_string(w, "baseline", t->rows[r->baseline].label);
	if (r->has_speedup) {
		jsonw_kv_double(w, "measured_speedup", r->measured_speedup);
		jsonw_kv_double(w, "predicted_speedup", r->predicted_speedup);
		jsonw_kv_bool(w, "speedup_sign_ok", r->speedup_sign_ok);
		if (r->speedup_host_side)
			jsonw_kv_bool(w, "speedup_host_side", true);
	}
	if (r->family[0])
		jsonw_kv_string(w, "family", r->family);
	if (r->device[0])
		jsonw_kv_string(w, "device", r->device);
	if (r->role[0])
		jsonw_kv_string(w, "role", r->role);
	if (r->predicted_ok && r->band_hi > 0) {
		jsonw_kv_double(w, "band_lo", r->band_lo);
		jsonw_kv_double(w, "band_hi", r->band_hi);
	}
	if (isfinite(r->mem_rel_err)) {
		jsonw_kv_double(w, "measured_mem_bytes", r->measured_mem);
		jsonw_kv_double(w, "predicted_mem_bytes", r->predicted_mem);
		jsonw_kv_double(w, "mem_rel_error", r->mem_rel_err);
	}
}

/* The summary's groups (by family, device, role) where the table names any, by bound where the host bounds a row. */
static void json_groups(struct jsonw *w, const struct score_table *t)
{
	for (int by = SCORE_BY_FAMILY; by <= SCORE_BY_BOUND; by++) {
		struct score_group g[MAX_GROUPS];
		int ng = score_groups(t, (enum score_by)by, g, MAX_GROUPS);
		if (!has_groups(t, (enum score_by)by, g, ng))
			continue;
		char key[16];
		snprintf(key, sizeof key, "by_%s", by_name[by]);
		jsonw_key(w, key);
		jsonw_object_begin(w);
		for (int i = 0; i < ng; i++) {
			if (g[i].rows == 0)
				continue;
			jsonw_key(w, g[i].key[0] ? g[i].key : "(none)");
			jsonw_object_begin(w);
			jsonw_kv_int(w, "rows", g[i].rows);
			jsonw_kv_double(w, "median_abs_rel_error", g[i].median_abs_err);
			jsonw_kv_double(w, "max_abs_rel_error", g[i].max_abs_err);
			jsonw_kv_string(w, "worst", t->rows[g[i].worst].label);
			jsonw_object_end(w);
		}
		jsonw_object_end(w);
	}
}

static int write_json(FILE *f, const struct score_table *t, const struct score_summary *s, const char *hw)
{
	struct jsonw w;
	jsonw_init(&w, f);
	jsonw_object_begin(&w);
	jsonw_kv_string(&w, "csv", t->path);
	jsonw_kv_string(&w, "metric", metric_name(t));
	jsonw_kv_string(&w, "hardware", hw);
	jsonw_key(&w, "rows");
	jsonw_array_begin(&w);
	for (int i = 0; i < t->n; i++) {
		jsonw_object_begin(&w);
		json_row(&w, t, &t->rows[i]);
		jsonw_object_end(&w);
	}
	jsonw_array_end(&w);
	jsonw_key(&w, "summary");
	jsonw_object_begin(&w);
	jsonw_kv_int(&w, "rows", s->rows);
	jsonw_kv_int(&w, "predicted", s->predicted);
	jsonw_kv_int(&w, "failed", s->failed);
	jsonw_kv_double(&w, "median_abs_rel_error", s->median_abs_err);
	jsonw_kv_double(&w, "max_abs_rel_error", s->max_abs_err);
	jsonw_kv_string(&w, "worst", s->worst >= 0 ? t->rows[s->worst].label : NULL);
	jsonw_kv_int(&w, "speedup_rows", s->speedup_rows);
	jsonw_kv_int(&w, "speedup_sign_wrong", s->speedup_sign_wrong);
	if (s->speedup_host_side) {
		jsonw_kv_int(&w, "speedup_host_side", s->speedup_host_side);
		jsonw_kv_int(&w, "speedup_host_side_wrong", s->speedup_host_side_wrong);
	}
	if (s->band_rows > 0) {
		jsonw_kv_int(&w, "band_rows", s->band_rows);
		jsonw_kv_int(&w, "band_inside", s->band_inside);
	}
	if (s->mem_rows > 0) {
		jsonw_kv_int(&w, "mem_rows", s->mem_rows);
		jsonw_kv_double(&w, "mem_median_abs_rel_error", s->mem_median_abs_err);
		jsonw_kv_double(&w, "mem_max_abs_rel_error", s->mem_max_abs_err);
	}
	json_groups(&w, t);
	jsonw_object_end(&w);
	jsonw_object_end(&w);
	return jsonw_finish(&w);
}

/* The verdict on stderr (stdout holds the report); 0 pass, 1 fail. */
static int verdict(const struct args *a, const struct score_summary *s)
{
	int status = 0;
	if (s->failed) {
		diag_errorf("%d of %d rows could not be predicted", s->failed, s->rows);
		status = 1;
	}
	if (a->max_median_pct >= 0 && s->predicted > 0 && 100.0 * s->median_abs_err > a->max_median_pct) {
		diag_errorf("median |error| %.2f%% is above --max-median-error %g%%", 100.0 * s->median_abs_err,
			    a->max_median_pct);
		status = 1;
	}
	if (a->max_pct >= 0 && s->predicted > 0 && 100.0 * s->max_abs_err > a->max_pct) {
		diag_errorf("max |error| %.2f%% is above --max-error %g%%", 100.0 * s->max_abs_err, a->max_pct);
		status = 1;
	}
	if (a->require_sign && s->speedup_sign_wrong) {
		diag_errorf("%d of %d predicted speedups are on the wrong side of 1", s->speedup_sign_wrong,
			    s->speedup_rows);
		status = 1;
	}
	return status;
}

int cmd_validate(int argc, char **argv)
{
	struct args a = {.max_median_pct = -1, .max_pct = -1, .fmt = FMT_TABLE};
	int status = parse(argc, argv, &a);
	if (status != 0)
		return status < 0 ? 0 : status;

	struct score_table t;
	struct score_summary s;
	if (cli_check_kind(a.csv, FILEKIND_MEASURED) != 0)
		return 1;
	score_table_init(&t);
	int rc = score_load(&t, a.csv);
	if (rc != 0) {
		score_table_release(&t);
		return gserr_exit_code(rc);
	}
	score_predict(&t, a.hw, a.gpu, a.target_gpu, a.host);
	score_summarize(&t, &s);
	if (a.fmt == FMT_TABLE)
		write_table(stdout, &t, &s);
	else if (a.fmt == FMT_CSV)
		write_csv(stdout, &t, &s);
	else if (write_json(stdout, &t, &s, a.hw) != 0)
		status = 3;  /* main reports the write error when it flushes stdout */
	if (status == 0)
		status = verdict(&a, &s);
	score_table_release(&t);
	return status;
}
