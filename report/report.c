/* report: one prediction result written as a table for people, JSON for programs (docs/output.md) or CSV for
 * spreadsheets. The JSON and CSV writers list the same keys in the same order (CSV flattens nested keys as
 * "parent.child"), and print numbers in their shortest round-trip form, so one result gives byte-identical text
 * on every run. Every writer ends with a flush and a check of the stream, so a full disk is GS_EENV. */
#include "report/report.h"

#include <math.h>
#include <string.h>
#include "util/csvw.h"
#include "util/gserr.h"
#include "util/jsonw.h"

int report_format_parse(const char *s, enum report_format *out)
{
	static const struct { const char *name; enum report_format fmt; } names[] = {
		{"table", REPORT_TABLE}, {"json", REPORT_JSON}, {"csv", REPORT_CSV},
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (s && strcmp(s, names[i].name) == 0) {
			*out = names[i].fmt;
			return GS_OK;
		}
	return GS_EUSAGE;
}

static const char *schedule_name(enum schedule s)
{
	switch (s) {
	case SCHED_GPIPE: return "gpipe";
	case SCHED_1F1B: return "1f1b";
	case SCHED_INTERLEAVED: return "interleaved";
	}
	return "unknown";
}

/* The keys of the flat view, in output order; a NULL name closes a nested object in JSON. */
enum kind { K_STR, K_DBL, K_INT, K_BOOL, K_BEGIN, K_END };
struct field {
	enum kind kind;
	const char *name;
	const char *s;
	double d;
	long long i;
};

#define REPORT_FIELDS 72  /* room for every field of fields() */

#define FSTR(n, v) {K_STR, n, v, 0, 0}
#define FDBL(n, v) {K_DBL, n, NULL, v, 0}
#define FINT(n, v) {K_INT, n, NULL, 0, v}
#define FBOOL(n, v) {K_BOOL, n, NULL, 0, (v) ? 1 : 0}
#define FBEGIN(n) {K_BEGIN, n, NULL, 0, 0}
#define FEND {K_END, NULL, NULL, 0, 0}

/* Removes the object `name` (its FBEGIN through its FEND) from the n fields of out. */
static void drop_group(struct field *out, int *n, const char *name)
{
	for (int i = 0; i < *n; i++)
		if (out[i].kind == K_BEGIN && strcmp(out[i].name, name) == 0) {
			int j = i;
			while (j < *n && out[j].kind != K_END)
				j++;
			memmove(out + i, out + j + 1, (size_t)(*n - j - 1) * sizeof *out);
			*n -= j + 1 - i;
			return;
		}
}

/* fields: fills out (at least REPORT_FIELDS entries) and returns the count. sim_wall_s is never the last key, so the golden
 * tests can delete its line and keep valid JSON. */
static int fields(const struct result *r, struct field *out)
{
	const struct breakdown *b = &r->breakdown_s;
	const struct mem_usage *m = &r->mem;
	struct field all[] = {
		FSTR("scenario", r->scenario),
		FSTR("hardware", r->hardware),
		FBEGIN("origin"),  /* entries 2..8: dropped below unless r->origin.shown */
		FSTR("gpu", r->origin.gpu),
		FSTR("intra_node_collectives", r->origin.intra),
		FSTR("node_network", r->origin.node),
		FSTR("assumptions", r->origin.note),
		FSTR("host", r->origin.host),
		FEND,
		FINT("gpus", r->gpus),
		FDBL("step_time_s", r->step_time_s),
		FDBL("tokens_per_s", r->tokens_per_s),
		FDBL("mfu", r->mfu),
		FDBL("model_flops", r->model_flops),
		FBEGIN("parallel"),
		FINT("dp", r->dp),
		FINT("tp", r->tp),
		FINT("pp", r->pp),
		FINT("micro_batch", r->micro_batch),
		FINT("num_microbatches", r->num_microbatches),
		FSTR("schedule", schedule_name(r->schedule)),
		FINT("virtual_stages", r->virtual_stages),
		FEND,
		FBEGIN("breakdown_s"),
		FDBL("compute", b->compute),
		FDBL("tp_comm_exposed", b->tp_comm_exposed),
		FDBL("pp_comm_exposed", b->pp_comm_exposed),
		FDBL("dp_comm_exposed", b->dp_comm_exposed),
		FDBL("pipeline_bubble", b->pipeline_bubble),
		FDBL("optimizer", b->optimizer),
		FDBL("host_wait", b->host_wait),
		FEND,
		FINT("critical_stage", r->critical_stage),
		FDBL("host_issue_s", r->host_issue_s),
		FBEGIN("host_band"),  /* dropped below unless hostband_run set it (r->host_band.hi_s > 0) */
		FDBL("step_lo_s", r->host_band.lo_s),
		FDBL("step_hi_s", r->host_band.hi_s),
		FDBL("factor_lo", r->host_band.f_lo),
		FDBL("factor_hi", r->host_band.f_hi),
		FEND,
		FBEGIN("memory_per_gpu_bytes"),
		FDBL("weights", m->weights),
		FDBL("gradients", m->gradients),
		FDBL("optimizer", m->optimizer),
		FDBL("activations", m->activations),
		FDBL("workspace", m->workspace),
		FDBL("total", m->total),
		FEND,
		FDBL("memory_capacity_bytes", r->memory_capacity_bytes),
		FBOOL("fits_in_memory", r->fits_in_memory),
		FINT("peak_inflight_microbatches", r->peak_inflight_microbatches),
		FDBL("sim_wall_s", r->sim_wall_s),
		FINT("simulated_ranks", r->simulated_ranks),
		FINT("tasks", r->tasks),
		FINT("events", r->events),
		FBEGIN("clock"),  /* dropped below unless the attention law ran (r->clock_attn > 0) */
		FDBL("gemm_speed", r->clock_gemm),
		FDBL("attention_speed", r->clock_attn),
		FEND,
	};
	_Static_assert(sizeof all / sizeof all[0] <= REPORT_FIELDS, "report: REPORT_FIELDS too small");
	int n = (int)(sizeof all / sizeof all[0]);
	memcpy(out, all, sizeof all);
	if (!(r->clock_attn > 0))
		drop_group(out, &n, "clock");
	if (!(r->host_band.hi_s > 0))
		drop_group(out, &n, "host_band");
	if (!r->origin.shown)  /* a preset or hand-written model: no origin object (docs/output.md) */
		drop_group(out, &n, "origin");
	return n;
}

static int finish(FILE *f)
{
	if (fflush(f) != 0 || ferror(f))
		return GS_EENV;
	return GS_OK;
}

static int write_json(FILE *f, const struct result *r)
{
	struct field fs[REPORT_FIELDS];
	int n = fields(r, fs);
	struct jsonw w;
	jsonw_init(&w, f);
	jsonw_object_begin(&w);
	for (int i = 0; i < n; i++) {
		const struct field *x = &fs[i];
		switch (x->kind) {
		case K_STR: jsonw_kv_string(&w, x->name, x->s); break;
		case K_DBL: jsonw_kv_double(&w, x->name, x->d); break;
		case K_INT: jsonw_kv_int(&w, x->name, x->i); break;
		case K_BOOL: jsonw_kv_bool(&w, x->name, x->i != 0); break;
		case K_BEGIN: jsonw_key(&w, x->name); jsonw_object_begin(&w); break;
		case K_END: jsonw_object_end(&w); break;
		}
	}
	jsonw_object_end(&w);
	return jsonw_finish(&w);
}

static int write_csv(FILE *f, const struct result *r)
{
	struct field fs[REPORT_FIELDS];
	int n = fields(r, fs);
	const char *prefix = NULL;
	bool first = true;
	for (int i = 0; i < n; i++) {
		if (fs[i].kind == K_BEGIN) {
			prefix = fs[i].name;
			continue;
		}
		if (fs[i].kind == K_END) {
			prefix = NULL;
			continue;
		}
		if (!first)
			fputc(',', f);
		first = false;
		if (prefix)
			fprintf(f, "%s.", prefix);
		fputs(fs[i].name, f);
	}
	fputc('\n', f);
	first = true;
	for (int i = 0; i < n; i++) {
		const struct field *x = &fs[i];
		char buf[40];
		if (x->kind == K_BEGIN || x->kind == K_END)
			continue;
		if (!first)
			fputc(',', f);
		first = false;
		switch (x->kind) {
		case K_STR: csvw_cell(f, x->s); break;
		case K_DBL: if (isfinite(x->d)) fputs(jsonw_format_double(x->d, buf, sizeof buf), f); break;
		case K_INT: fprintf(f, "%lld", x->i); break;
		case K_BOOL: fputs(x->i ? "true" : "false", f); break;
		default: break;
		}
	}
	fputc('\n', f);
	return finish(f);
}

void report_group_digits(double v, char *buf, size_t n)
{
	char raw[48];
	snprintf(raw, sizeof raw, "%.0f", fabs(v));
	size_t len = strlen(raw), o = 0;
	if (v < 0 && o + 1 < n)
		buf[o++] = '-';
	for (size_t i = 0; i < len && o + 2 < n; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = raw[i];
	}
	buf[o] = '\0';
}

static void share(FILE *f, double part, double whole)
{
	if (whole > 0)
		fprintf(f, "  %7.1f %%\n", 100.0 * part / whole);
	else
		fputs("        - %\n", f);
}

static void time_row(FILE *f, const char *label, double s, double step)
{
	fprintf(f, "  %-26s %12.3f", label, s * 1e3);
	share(f, s, step);
}

static void mem_row(FILE *f, const char *label, double bytes)
{
	fprintf(f, "  %-26s %12.2f\n", label, bytes / 1e9);
}

/* The table's step lines: time, throughput, MFU, and what set the pace (the slowest GPU, the power cap, the host). */
static void step_lines(FILE *f, const struct result *r)
{
	char tok[64];
	report_group_digits(r->tokens_per_s, tok, sizeof tok);
	fprintf(f, "%-16s %.3f ms\n", "step time", r->step_time_s * 1e3);
	fprintf(f, "%-16s %s tokens/s\n", "throughput", tok);
	fprintf(f, "%-16s %.1f %%\n", "mfu", r->mfu * 100.0);
	if (r->gpu_rate > 0)  /* gpu.power.gpu_rates: the job's slowest GPU sets the pace */
		fprintf(f, "%-16s its sustained rate x%.3f of the calibrated GPU's (gpu.power.gpu_rates)\n",
			"slowest gpu", r->gpu_rate);
	if (r->clock_attn > 0)  /* the attention law: GEMMs and attention at speeds of their own */
		fprintf(f, "%-16s GEMMs x%.3f of their sustained rate, attention x%.3f of its maximum-clock rate "
			"(critical stage)\n", "power cap", r->clock_gemm, r->clock_attn);
	if (r->host_issue_s > 0)  /* the host's own work; the step waits for it where it is behind the GPU */
		fprintf(f, "%-16s %.3f ms issuing the step's ops and calls (critical stage, %.0f %% of the step)\n",
			"host work", r->host_issue_s * 1e3, 100 * r->host_issue_s / r->step_time_s);
	if (r->host_band.hi_s > 0)  /* the calibration's host drift: a host-bound step moves with it */
		fprintf(f, "%-16s %.3f to %.3f ms on a host as fast and as slow as the model's host range "
			"(host costs x%.2f to x%.2f)\n", "host drift", r->host_band.lo_s * 1e3, r->host_band.hi_s * 1e3,
			r->host_band.f_lo, r->host_band.f_hi);
}

static int write_table(FILE *f, const struct result *r)
{
	const struct breakdown *b = &r->breakdown_s;
	const struct mem_usage *m = &r->mem;

	fprintf(f, "%-16s %s\n", "scenario", r->scenario);
	fprintf(f, "%-16s %s\n", "hardware", r->hardware);
	if (r->origin.shown) {
		fprintf(f, "  %-14s %s\n", "gpu from", r->origin.gpu);
		fprintf(f, "  %-14s %s\n", "collectives", r->origin.intra);
		fprintf(f, "  %-14s %s\n", "node, network", r->origin.node);
		if (r->origin.note[0])
			fprintf(f, "  %-14s %s\n", "assumed", r->origin.note);
		if (r->origin.host[0])
			fprintf(f, "  %-14s %s\n", "host", r->origin.host);
	}
	long long mp = (long long)r->dp * r->tp * r->pp;
	if (mp > 0 && r->gpus > mp)  /* context parallelism: the rest of the GPUs split each sequence */
		fprintf(f, "%-16s %d (dp %d x tp %d x pp %d x cp %lld)\n", "gpus", r->gpus, r->dp, r->tp, r->pp,
			r->gpus / mp);
	else
		fprintf(f, "%-16s %d (dp %d x tp %d x pp %d)\n", "gpus", r->gpus, r->dp, r->tp, r->pp);
	fprintf(f, "%-16s %s, micro batch %d, %d micro-batches", "schedule", schedule_name(r->schedule),
		r->micro_batch, r->num_microbatches);
	if (r->schedule == SCHED_INTERLEAVED)
		fprintf(f, ", %d virtual stages", r->virtual_stages);
	fputc('\n', f);
	fputc('\n', f);
	step_lines(f, r);
	fputc('\n', f);

	char head[64];
	snprintf(head, sizeof head, "breakdown (critical stage %d)", r->critical_stage);
	fprintf(f, "%-28s %12s  %9s\n", head, "ms", "share");
	time_row(f, "compute", b->compute, r->step_time_s);
	time_row(f, "tp comm exposed", b->tp_comm_exposed, r->step_time_s);
	time_row(f, "pp comm exposed", b->pp_comm_exposed, r->step_time_s);
	time_row(f, "dp comm exposed", b->dp_comm_exposed, r->step_time_s);
	time_row(f, "pipeline bubble", b->pipeline_bubble, r->step_time_s);
	time_row(f, "optimizer", b->optimizer, r->step_time_s);
	if (b->host_wait > 0)
		time_row(f, "host wait", b->host_wait, r->step_time_s);
	time_row(f, "step time", r->step_time_s, r->step_time_s);
	fputc('\n', f);

	fprintf(f, "%-28s %12s\n", "memory per GPU (worst stage)", "GB");
	mem_row(f, "weights", m->weights);
	mem_row(f, "gradients", m->gradients);
	mem_row(f, "optimizer state", m->optimizer);
	mem_row(f, "activations", m->activations);
	mem_row(f, "framework workspace", m->workspace);
	fprintf(f, "  %-26s %12.2f  of %.2f GB: %s\n", "total", m->total / 1e9, r->memory_capacity_bytes / 1e9,
		m->total <= r->memory_capacity_bytes ? "fits" : "DOES NOT FIT");
	fprintf(f, "  %-26s %12d\n", "micro-batches held at once", r->peak_inflight_microbatches);
	if (r->host_bytes_per_node > 0)
		fprintf(f, "  %-26s %12.2f  of %s: %s\n", "offloaded, host per node", r->host_bytes_per_node / 1e9,
			r->host_capacity_bytes > 0 ? "the node's host memory" : "host memory (not given)",
			r->host_capacity_bytes > 0 && r->host_bytes_per_node > r->host_capacity_bytes ? "DOES NOT FIT" :
			"fits");
	fputc('\n', f);

	fprintf(f, "%-16s %lld events, %lld tasks, %d simulated ranks, %.3f ms wall\n", "simulation",
		r->events, r->tasks, r->simulated_ranks, r->sim_wall_s * 1e3);
	return finish(f);
}

int report_write(FILE *f, enum report_format fmt, const struct result *r)
{
	switch (fmt) {
	case REPORT_JSON: return write_json(f, r);
	case REPORT_CSV: return write_csv(f, r);
	case REPORT_TABLE: return write_table(f, r);
	}
	return GS_EUSAGE;
}
