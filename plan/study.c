/* study: searches over purchase options, their Pareto front and the table, CSV and JSON writers (study.h). */
#include "plan/study.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "util/csvw.h"
#include "util/gserr.h"
#include "util/jsonw.h"
#include "util/xalloc.h"

static double opt_time(const struct plan_option_result *o)
{
	return o->res.top[0].cost.time_to_train_s;
}

double plan_study_cost(const struct plan_study *st, const struct plan_option_result *o)
{
	return st->priced ? o->res.top[0].cost.usd : o->res.top[0].cost.gpu_hours;
}

/* An option's sort keys: the ranking measure first, the other second, then its place in the study. */
struct rank_key { double k[2]; int idx; };

static int by_rank(const void *a, const void *b)
{
	const struct rank_key *x = a, *y = b;
	for (int i = 0; i < 2; i++)
		if (x->k[i] != y->k[i])
			return x->k[i] < y->k[i] ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Ranks and the Pareto front over the options with a layout. */
static void rank_options(struct plan_study *st)
{
	struct plan_option_result **v = xcalloc((size_t)st->n + 1, sizeof *v);
	int n = 0;
	st->priced = true;
	for (int i = 0; i < st->n; i++)
		if (st->opt[i].res.ntop > 0) {
			v[n++] = &st->opt[i];
			st->priced &= st->opt[i].res.price > 0;
		}
	for (int i = 0; i < n; i++) {
		double ti = opt_time(v[i]), ci = plan_study_cost(st, v[i]);
		bool dominated = false;
		for (int j = 0; j < n && !dominated; j++) {
			double tj = opt_time(v[j]), cj = plan_study_cost(st, v[j]);
			dominated = tj <= ti && cj <= ci && (tj < ti || cj < ci);
		}
		v[i]->pareto = !dominated;
	}
	struct rank_key *keys = xcalloc((size_t)n + 1, sizeof *keys);
	int first = st->by == PLAN_BY_COST;
	for (int i = 0; i < n; i++) {
		double m[2] = { opt_time(v[i]), plan_study_cost(st, v[i]) };
		keys[i] = (struct rank_key){ { m[first], m[!first] }, (int)(v[i] - st->opt) };
	}
	qsort(keys, (size_t)n, sizeof *keys, by_rank);
	for (int i = 0; i < n; i++)
		st->opt[keys[i].idx].rank = i + 1;
	free(keys);
	free(v);
}

int plan_study_run(const struct plan_study_spec *spec, struct plan_study *out)
{
	memset(out, 0, sizeof *out);
	out->tokens = spec->tokens;
	out->steps = spec->steps;
	out->by = spec->by;
	out->top = spec->top;
	int nhw = spec->nhw > 0 ? spec->nhw : 1;
	out->opt = xcalloc((size_t)nhw * spec->ngpus, sizeof *out->opt);
	int rc = 0;
	for (int h = 0; h < nhw && rc == 0; h++) {
		struct scenario_overrides ov = { .hardware = spec->nhw > 0 ? spec->hw[h] : NULL, .gpu = spec->gpu,
						 .host = spec->host };
		struct scenario s;
		struct hwmodel *hw = NULL;
		if ((rc = scenario_load(spec->scenario, &ov, &s)) != 0 || (rc = scenario_load_hardware(&s, &hw)) != 0)
			break;
		snprintf(out->scenario, sizeof out->scenario, "%s", s.name);
		for (int g = 0; g < spec->ngpus && rc == 0; g++) {
			struct plan_spec ps = { .base = &s, .hw = hw, .gpus = spec->gpus[g], .top = spec->top,
						.tokens = spec->tokens, .steps = spec->steps, .price = spec->price };
			if (ps.tokens <= 0 && ps.steps <= 0)
				ps.steps = 1;
			rc = plan_search(&ps, &out->opt[out->n].res);
			if (rc == 0) {
				if (out->opt[out->n].res.ntop > 0)
					out->steps_used = out->opt[out->n].res.top[0].cost.steps;
				out->wall_s += out->opt[out->n].res.wall_s;
				out->n++;
			}
		}
		hwmodel_free(hw);
	}
	if (rc == 0)
		rank_options(out);
	return rc;
}

void plan_study_release(struct plan_study *st)
{
	for (int i = 0; i < st->n; i++)
		plan_result_release(&st->opt[i].res);
	free(st->opt);
	memset(st, 0, sizeof *st);
}

/* ---- writers ---- */

/* A duration for people: "41.2 ms", "3.5 s", "12.3 min", "5.2 h", "8.1 days". */
static void fmt_duration(double s, char *buf, size_t n)
{
	if (s < 1)
		snprintf(buf, n, "%.3g ms", s * 1e3);
	else if (s < 120)
		snprintf(buf, n, "%.3g s", s);
	else if (s < 7200)
		snprintf(buf, n, "%.3g min", s / 60);
	else if (s < 3 * 86400)
		snprintf(buf, n, "%.3g h", s / 3600);
	else
		snprintf(buf, n, "%.3g days", s / 86400);
}

static const char *const part_names[] = { "compute", "TP communication", "pipeline communication",
					   "data-parallel communication", "pipeline bubble", "optimizer",
					   "host issuing kernels" };
#define NPARTS 7
static void parts_of(const struct breakdown *b, double *p)
{
	p[0] = b->compute, p[1] = b->tp_comm_exposed, p[2] = b->pp_comm_exposed, p[3] = b->dp_comm_exposed;
	p[4] = b->pipeline_bubble, p[5] = b->optimizer, p[6] = b->host_wait;
}

static void write_rejects(FILE *f, const struct plan_result *r)
{
	fprintf(f, "  searched %lld layouts in %.3g s", r->candidates, r->wall_s);
	if (r->cpu_s > 0)
		fprintf(f, " (%.3g s of CPU: %.0f layouts/s)", r->cpu_s, r->candidates / r->cpu_s);
	fprintf(f, ", simulated %lld; dropped:\n", r->simulated);
	for (int k = 0; k < PLAN_NREJ; k++) {
		if (!r->rejected[k])
			continue;
		fprintf(f, "    %10lld %s", r->rejected[k], plan_reject_name((enum plan_reject)k));
		if (k == PLAN_REJ_RULE && r->rule_example[0])
			fprintf(f, " (first: %s)", r->rule_example);
		fputc('\n', f);
	}
}

/* Where the best layout is bound by the host and the model knows its drift (sim/hostband.h): its step on a host
 * as fast and as slow as the model's host range, and whether the runner-up, on the same host, would be the
 * faster at either end. */
static void write_drift(FILE *f, const struct plan_entry *b, const struct plan_entry *u)
{
	double blo = b->r.host_band.lo_s, bhi = b->r.host_band.hi_s;
	if (!(bhi > 0))
		return;
	char lo[32], hi[32];
	fmt_duration(blo, lo, sizeof lo);
	fmt_duration(bhi, hi, sizeof hi);
	fprintf(f, "  host drift: %s to %s a step on a host as fast and as slow as the model's host range "
		"(x%.2f to x%.2f on its costs)", lo, hi, b->r.host_band.f_lo, b->r.host_band.f_hi);
	if (u) {
		double ulo = u->r.host_band.hi_s > 0 ? u->r.host_band.lo_s : u->r.step_time_s;
		double uhi = u->r.host_band.hi_s > 0 ? u->r.host_band.hi_s : u->r.step_time_s;
		if (ulo < blo || uhi < bhi)
			fprintf(f, "; on the %s host the runner-up is faster", ulo < blo ? "fast" : "slow");
	}
	fputc('\n', f);
}

static void write_option_table(FILE *f, const struct plan_study *st, const struct plan_option_result *o)
{
	const struct plan_result *r = &o->res;
	char price[64] = "no price: costs in GPU-hours";
	if (r->price > 0)
		snprintf(price, sizeof price, "%.4g USD per GPU-hour", r->price);
	fprintf(f, "%s on %d GPUs of %s (%s)\n", st->scenario, r->gpus, r->hardware, price);
	write_rejects(f, r);
	if (r->ntop == 0) {
		fputs("  no layout fits: see the drops above\n\n", f);
		return;
	}
	fputs("\n     #", f);
	int nopt = plan_option_count();
	for (int i = 0; i < nopt; i++)
		fprintf(f, " %*s", plan_option_width(i), plan_option_label(i));
	fputs("      step   tokens/s    MFU  mem GB  time to train     GPU-h", f);
	fputs(r->price > 0 ? "        USD\n" : "\n", f);
	for (int k = 0; k < r->ntop; k++) {
		const struct plan_entry *e = &r->top[k];
		fprintf(f, "  %4d", k + 1);
		for (int i = 0; i < nopt; i++) {
			char v[32];
			plan_option_value(i, &e->sc, v, sizeof v);
			if (!plan_option_matters(i, &e->sc))
				snprintf(v, sizeof v, "-");
			fprintf(f, " %*s", plan_option_width(i), v);
		}
		char step[32], ttt[32], tok[32];
		fmt_duration(e->r.step_time_s, step, sizeof step);
		fmt_duration(e->cost.time_to_train_s, ttt, sizeof ttt);
		report_group_digits(e->r.tokens_per_s, tok, sizeof tok);
		fprintf(f, " %9s %10s %5.1f%% %7.2f %14s %9.4g", step, tok, e->r.mfu * 100, e->r.mem.total / 1e9, ttt,
			e->cost.gpu_hours);
		if (r->price > 0)
			fprintf(f, " %10.4g", e->cost.usd);
		fputc('\n', f);
	}
	const struct plan_entry *b = &r->top[0];
	if (r->ntop > 1) {
		const struct plan_entry *u = &r->top[1];
		char tb[32], tu[32];
		fmt_duration(b->r.step_time_s, tb, sizeof tb);
		fmt_duration(u->r.step_time_s, tu, sizeof tu);
		double gain = u->r.step_time_s / b->r.step_time_s - 1;
		if (gain < 0.0005)
			fprintf(f, "\n  best: %s, as fast as the runner-up (%s): %s a step\n", b->desc, u->desc, tb);
		else
			fprintf(f, "\n  best: %s, %.1f %% faster than the runner-up (%s): %s against %s a step\n",
				b->desc, gain * 100, u->desc, tb, tu);
	} else {
		fprintf(f, "\n  best: %s, the only layout that fits\n", b->desc);
	}
	double p[NPARTS];
	parts_of(&b->r.breakdown_s, p);
	fputs("  where its step goes:", f);
	bool first = true;
	for (int i = 0; i < NPARTS; i++) {
		if (p[i] <= 0.0005 * b->r.step_time_s)
			continue;
		fprintf(f, "%s %s %.1f %%", first ? "" : ",", part_names[i], 100 * p[i] / b->r.step_time_s);
		first = false;
	}
	fputc('\n', f);
	write_drift(f, b, r->ntop > 1 ? &r->top[1] : NULL);
	fputc('\n', f);
}

static void write_summary(FILE *f, const struct plan_study *st)
{
	char when[64];
	if (st->tokens > 0)
		snprintf(when, sizeof when, "%.4g tokens (%.4g steps)", st->tokens, st->steps_used);
	else
		snprintf(when, sizeof when, "%.4g step%s", st->steps_used, st->steps_used == 1 ? "" : "s");
	fprintf(f, "purchase options for %s, ranked by %s (time and cost of %s; * on the Pareto front: no other\n"
		"option trains both sooner and for less)\n\n", when, st->by == PLAN_BY_COST ? "cost" : "time to train",
		st->tokens > 0 || st->steps > 0 ? "the whole run" : "one step");
	fprintf(f, "  rank  front  %-24s %6s  %-40s %14s %12s\n", "hardware", "GPUs", "best layout", "time to train",
		st->priced ? "USD" : "GPU-hours");
	for (int rank = 1; rank <= st->n; rank++)
		for (int i = 0; i < st->n; i++) {
			const struct plan_option_result *o = &st->opt[i];
			if (o->rank != rank)
				continue;
			char ttt[32];
			fmt_duration(opt_time(o), ttt, sizeof ttt);
			fprintf(f, "  %4d  %5s  %-24s %6d  %-40s %14s %12.5g\n", rank, o->pareto ? "*" : "",
				o->res.hardware, o->res.gpus, o->res.top[0].desc, ttt, plan_study_cost(st, o));
		}
	for (int i = 0; i < st->n; i++)
		if (st->opt[i].res.ntop == 0)
			fprintf(f, "     -         %-24s %6d  no layout fits\n", st->opt[i].res.hardware, st->opt[i].res.gpus);
	fputc('\n', f);
}

static void csv_header(FILE *f)
{
	fputs("scenario,hardware,gpus,option_rank,pareto,layout_rank", f);
	for (int i = 0; i < plan_option_count(); i++)
		fprintf(f, ",%s", plan_option_label(i));
	fputs(",layout,step_time_s,tokens_per_s,mfu,memory_per_gpu_bytes,steps,time_to_train_s,gpu_hours,"
	      "usd_per_gpu_hour,usd,compute_s,tp_comm_exposed_s,pp_comm_exposed_s,dp_comm_exposed_s,pipeline_bubble_s,"
	      "optimizer_s,host_wait_s,candidates,simulated\n", f);
}

static void num(FILE *f, double v)
{
	char b[40];
	fputc(',', f);
	fputs(jsonw_format_double(v, b, sizeof b), f);
}

static void csv_rows(FILE *f, const struct plan_study *st, const struct plan_option_result *o)
{
	const struct plan_result *r = &o->res;
	for (int k = 0; k < r->ntop; k++) {
		const struct plan_entry *e = &r->top[k];
		csvw_cell(f, st->scenario);
		fputc(',', f);
		csvw_cell(f, r->hardware);
		fprintf(f, ",%d,%d,%d,%d", r->gpus, o->rank, o->pareto, k + 1);
		for (int i = 0; i < plan_option_count(); i++) {
			char v[32];
			plan_option_value(i, &e->sc, v, sizeof v);
			fprintf(f, ",%s", v);
		}
		fputc(',', f);
		csvw_cell(f, e->desc);
		double p[NPARTS];
		parts_of(&e->r.breakdown_s, p);
		num(f, e->r.step_time_s), num(f, e->r.tokens_per_s), num(f, e->r.mfu), num(f, e->r.mem.total);
		num(f, e->cost.steps), num(f, e->cost.time_to_train_s), num(f, e->cost.gpu_hours), num(f, r->price);
		num(f, e->cost.usd);
		for (int i = 0; i < NPARTS; i++)
			num(f, p[i]);
		fprintf(f, ",%lld,%lld\n", r->candidates, r->simulated);
	}
}

static void json_entry(struct jsonw *w, const struct plan_entry *e, int rank)
{
	static const char *const part_keys[NPARTS] = { "compute", "tp_comm_exposed", "pp_comm_exposed",
						       "dp_comm_exposed", "pipeline_bubble", "optimizer", "host_wait" };
	jsonw_object_begin(w);
	jsonw_kv_int(w, "rank", rank);
	jsonw_kv_string(w, "layout", e->desc);
	jsonw_key(w, "options");
	jsonw_object_begin(w);
	for (int i = 0; i < plan_option_count(); i++) {
		char v[32];
		plan_option_value(i, &e->sc, v, sizeof v);
		char *end;
		long n = strtol(v, &end, 10);
		if (strcmp(v, "true") == 0 || strcmp(v, "false") == 0)
			jsonw_kv_bool(w, plan_option_key(i), v[0] == 't');
		else if (*end == '\0')
			jsonw_kv_int(w, plan_option_key(i), n);
		else
			jsonw_kv_string(w, plan_option_key(i), v);
	}
	jsonw_object_end(w);
	jsonw_kv_double(w, "step_time_s", e->r.step_time_s);
	jsonw_kv_double(w, "tokens_per_s", e->r.tokens_per_s);
	jsonw_kv_double(w, "mfu", e->r.mfu);
	jsonw_kv_double(w, "memory_per_gpu_bytes", e->r.mem.total);
	jsonw_kv_double(w, "steps", e->cost.steps);
	jsonw_kv_double(w, "time_to_train_s", e->cost.time_to_train_s);
	jsonw_kv_double(w, "gpu_hours", e->cost.gpu_hours);
	jsonw_kv_double(w, "usd", e->cost.usd);
	if (e->r.host_band.hi_s > 0) {  /* the host's drift (sim/hostband.h) */
		jsonw_kv_double(w, "step_lo_s", e->r.host_band.lo_s);
		jsonw_kv_double(w, "step_hi_s", e->r.host_band.hi_s);
	}
	double p[NPARTS];
	parts_of(&e->r.breakdown_s, p);
	jsonw_key(w, "breakdown_s");
	jsonw_object_begin(w);
	for (int i = 0; i < NPARTS; i++)
		jsonw_kv_double(w, part_keys[i], p[i]);
	jsonw_object_end(w);
	jsonw_object_end(w);
}

static void json_option(struct jsonw *w, const struct plan_option_result *o)
{
	static const char *const rej_keys[PLAN_NREJ] = { "layout_rule", "tp_across_nodes", "same_layout",
							  "memory_bound", "memory_simulated", "time_bound" };
	const struct plan_result *r = &o->res;
	jsonw_object_begin(w);
	jsonw_kv_string(w, "hardware", r->hardware);
	jsonw_kv_int(w, "gpus", r->gpus);
	jsonw_kv_double(w, "usd_per_gpu_hour", r->price);
	jsonw_kv_int(w, "rank", o->rank);
	jsonw_kv_bool(w, "pareto", o->pareto);
	jsonw_kv_int(w, "candidates", r->candidates);
	jsonw_kv_int(w, "simulated", r->simulated);
	jsonw_key(w, "rejected");
	jsonw_object_begin(w);
	for (int k = 0; k < PLAN_NREJ; k++)
		jsonw_kv_int(w, rej_keys[k], r->rejected[k]);
	jsonw_object_end(w);
	jsonw_kv_double(w, "search_wall_s", r->wall_s);
	jsonw_kv_double(w, "search_cpu_s", r->cpu_s);
	jsonw_key(w, "top");
	jsonw_array_begin(w);
	for (int k = 0; k < r->ntop; k++)
		json_entry(w, &r->top[k], k + 1);
	jsonw_array_end(w);
	jsonw_object_end(w);
}

int plan_study_write(FILE *f, enum report_format fmt, const struct plan_study *st)
{
	if (fmt == REPORT_JSON) {
		struct jsonw w;
		jsonw_init(&w, f);
		jsonw_object_begin(&w);
		jsonw_kv_string(&w, "scenario", st->scenario);
		jsonw_kv_string(&w, "by", st->by == PLAN_BY_COST ? "cost" : "time");
		jsonw_kv_double(&w, "tokens", st->tokens);
		jsonw_kv_double(&w, "steps", st->steps_used);
		jsonw_kv_string(&w, "cost_unit", st->priced ? "usd" : "gpu_hours");
		jsonw_key(&w, "options");
		jsonw_array_begin(&w);
		for (int i = 0; i < st->n; i++)
			json_option(&w, &st->opt[i]);
		jsonw_array_end(&w);
		jsonw_object_end(&w);
		return jsonw_finish(&w);
	}
	if (fmt == REPORT_CSV) {
		csv_header(f);
		for (int i = 0; i < st->n; i++)
			csv_rows(f, st, &st->opt[i]);
	} else {
		for (int i = 0; i < st->n; i++)
			write_option_table(f, st, &st->opt[i]);
		if (st->n > 1)
			write_summary(f, st);
	}
	return ferror(f) ? GS_EENV : 0;
}
