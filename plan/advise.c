/* advise: is a second (fourth, ...) GPU worth it? The best layout at 1, 2, 4, ... GPUs of one hardware model,
 * its speedup and efficiency over the smallest count that fits, where adding GPUs stops making the step faster,
 * and why, in plain sentences (study.h). */
#include "plan/study.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/csvw.h"
#include "util/gserr.h"
#include "util/jsonw.h"
#include "util/xalloc.h"

#define MAX_COUNTS 32

/* "one", "two", ... for small counts, else the digits: the verdict reads as a sentence. */
static void count_word(int n, bool capital, char *buf, size_t len)
{
	static const char *const w[] = { "zero", "one", "two", "three", "four", "five", "six", "seven", "eight" };
	if (n >= 0 && n <= 8) {
		snprintf(buf, len, "%s", w[n]);
		if (capital)
			buf[0] = (char)(buf[0] - 'a' + 'A');
	} else {
		snprintf(buf, len, "%d", n);
	}
}

static void ms(double s, char *buf, size_t n)
{
	snprintf(buf, n, "%.3g ms", s * 1e3);
}

/* The parts of a step that are not compute, with names for the sentence. */
static const char *const waste_names[] = { "tensor-parallel communication", "pipeline communication",
					   "data-parallel gradient communication", "the pipeline bubble",
					   "the host issuing kernels" };
static void waste_of(const struct breakdown *b, double *w)
{
	w[0] = b->tp_comm_exposed, w[1] = b->pp_comm_exposed, w[2] = b->dp_comm_exposed;
	w[3] = b->pipeline_bubble, w[4] = b->host_wait;
}

/* Why option j is not faster than option i (fewer GPUs): what each GPU computes shrinks, what grows instead. */
static size_t explain(char *t, size_t n, const struct plan_entry *a, const struct plan_entry *b, int ga, int gb)
{
	char s1[32], s2[32], word_b[16], word_a[16];
	count_word(gb, true, word_b, sizeof word_b);
	count_word(ga, false, word_a, sizeof word_a);
	ms(b->r.step_time_s, s2, sizeof s2);
	ms(a->r.step_time_s, s1, sizeof s1);
	size_t len;
	if (b->r.step_time_s >= a->r.step_time_s)
		len = (size_t)snprintf(t, n, "%s GPUs are slower than %s (%s against %s a step): ", word_b, word_a,
				       s2, s1);
	else
		len = (size_t)snprintf(t, n, "%s GPUs are only %.2fx as fast as %s (%s against %s a step): ", word_b,
				       a->r.step_time_s / b->r.step_time_s, word_a, s2, s1);
	double wa[5], wb[5];
	waste_of(&a->r.breakdown_s, wa);
	waste_of(&b->r.breakdown_s, wb);
	ms(a->r.breakdown_s.compute, s1, sizeof s1);
	ms(b->r.breakdown_s.compute, s2, sizeof s2);
	len += (size_t)snprintf(t + len, n - len, "each GPU computes %s instead of %s, but", s2, s1);
	int said = 0;
	for (int i = 0; i < 5 && len < n; i++) {
		double grow = wb[i] - wa[i];
		if (grow <= 0.02 * b->r.step_time_s && !(wb[i] > 0.25 * b->r.step_time_s))
			continue;
		ms(wb[i], s2, sizeof s2);
		if (grow > 0) {
			ms(grow, s1, sizeof s1);
			len += (size_t)snprintf(t + len, n - len, "%s %s takes %s (%s more)", said ? "," : "",
						waste_names[i], s2, s1);
		} else {
			len += (size_t)snprintf(t + len, n - len, "%s %s still takes %s", said ? "," : "", waste_names[i],
						s2);
		}
		said++;
	}
	if (!said && len < n)
		len += (size_t)snprintf(t + len, n - len, " the work that does not shrink with more GPUs stays");
	if (len < n)
		len += (size_t)snprintf(t + len, n - len, ". ");
	return len < n ? len : n - 1;
}

/* The first sentence: the GPU count the job trains fastest on, against the smallest count that fits (base). */
static size_t verdict_fastest(const struct plan_advice *a, int base, char *t, size_t n)
{
	const struct plan_study *st = &a->st;
	const struct plan_entry *b0 = &st->opt[base].res.top[0], *bb = &st->opt[a->best].res.top[0];
	char s0[32], sb[32], w0[16], wb[16];
	ms(b0->r.step_time_s, s0, sizeof s0);
	ms(bb->r.step_time_s, sb, sizeof sb);
	count_word(st->opt[base].res.gpus, false, w0, sizeof w0);
	count_word(st->opt[a->best].res.gpus, false, wb, sizeof wb);
	if (a->best == base)
		return (size_t)snprintf(t, n, "On %s, %s trains fastest on %s GPU%s (%s, %s a step). ",
					st->opt[0].res.hardware, st->scenario, w0, st->opt[base].res.gpus > 1 ? "s" : "",
					b0->desc, s0);
	return (size_t)snprintf(t, n, "On %s, %s trains fastest on %s GPUs (%s, %s a step): %.2fx the speed of %s "
				"GPU%s (%s), %.0f %% efficiency. ",
				st->opt[0].res.hardware, st->scenario, wb, bb->desc, sb, a->speedup[a->best], w0,
				st->opt[base].res.gpus > 1 ? "s" : "", s0, 100 * a->efficiency[a->best]);
}

/* Where adding GPUs stops paying (a->over): how little faster the step became, and what the GPUs wait for
 * there, each waste over 2 % of the step. */
static size_t verdict_over(const struct plan_advice *a, int base, char *t, size_t n)
{
	const struct plan_study *st = &a->st;
	int prev = a->over - 1;
	size_t len = 0;
	while (prev > base && st->opt[prev].res.ntop == 0)
		prev--;
	const struct plan_entry *p = &st->opt[prev].res.top[0], *o = &st->opt[a->over].res.top[0];
	char s1[32], s2[32], s3[32];
	ms(p->r.step_time_s, s1, sizeof s1);
	ms(o->r.step_time_s, s2, sizeof s2);
	ms(o->r.breakdown_s.compute, s3, sizeof s3);
	len += (size_t)snprintf(t, n, "Adding GPUs stops paying at %d: going from %d to %d GPUs makes the step only "
				"%.2fx faster (%s to %s), and there the GPUs wait longer than they compute (compute %s",
				st->opt[a->over].res.gpus, st->opt[prev].res.gpus, st->opt[a->over].res.gpus,
				p->r.step_time_s / o->r.step_time_s, s1, s2, s3);
	double w[5];
	waste_of(&o->r.breakdown_s, w);
	for (int i = 0; i < 5 && len < n; i++)
		if (w[i] > 0.02 * o->r.step_time_s) {
			ms(w[i], s1, sizeof s1);
			len += (size_t)snprintf(t + len, n - len, "; %s %s", waste_names[i], s1);
		}
	if (len < n)
		len += (size_t)snprintf(t + len, n - len, ").");
	return len;
}

static void verdict(struct plan_advice *a)
{
	struct plan_study *st = &a->st;
	char *t = a->text;
	size_t n = sizeof a->text, len = 0;
	int base = -1;
	for (int i = 0; i < st->n; i++)
		if (st->opt[i].res.ntop > 0) {
			base = i;
			break;
		}
	if (base < 0) {
		snprintf(t, n, "No layout of %s fits on up to %d GPUs of %s.", st->scenario, st->opt[st->n - 1].res.gpus,
			 st->opt[0].res.hardware);
		return;
	}
	len += verdict_fastest(a, base, t, n);
	if (a->stop >= 0 && len < n) {
		int prev = a->stop - 1;
		while (prev > base && st->opt[prev].res.ntop == 0)
			prev--;
		len += explain(t + len, n - len, &st->opt[prev].res.top[0], &st->opt[a->stop].res.top[0],
			       st->opt[prev].res.gpus, st->opt[a->stop].res.gpus);
		if (len < n)
			snprintf(t + len, n - len, "Adding GPUs stops paying at %d: use %d.", st->opt[a->stop].res.gpus,
				 st->opt[a->best].res.gpus);
		return;
	}
	if (len >= n)
		return;
	int last = st->n - 1;
	while (last > base && st->opt[last].res.ntop == 0)
		last--;
	if (last == base + 1 && a->efficiency[last] < 0.6) {
		/* one step up, and it barely pays: say what eats the second GPU's share */
		len += explain(t + len, n - len, &st->opt[base].res.top[0], &st->opt[last].res.top[0],
			       st->opt[base].res.gpus, st->opt[last].res.gpus);
		if (len < n)
			snprintf(t + len, n - len, "Adding GPUs barely pays here (%.0f %% efficiency).",
				 100 * a->efficiency[last]);
	} else if (a->over > base) {
		verdict_over(a, base, t + len, n - len);
	} else {
		snprintf(t + len, n - len,
			 "Every step up to %d GPUs is faster and the GPUs still compute more than they wait; "
			 "more GPUs may still pay (try a larger --max-gpus).", st->opt[last].res.gpus);
	}
}

/* "A to B", a layout's step on the fast and the slow host; "A (the host hardly moves it)" where it has no band. */
static void step_range(const struct plan_entry *e, char *buf, size_t n)
{
	char lo[32], hi[32];
	if (!(e->r.host_band.hi_s > 0)) {
		ms(e->r.step_time_s, lo, sizeof lo);
		snprintf(buf, n, "%s (the host hardly moves it)", lo);
		return;
	}
	ms(e->r.host_band.lo_s, lo, sizeof lo);
	ms(e->r.host_band.hi_s, hi, sizeof hi);
	snprintf(buf, n, "%s to %s", lo, hi);
}

/* Where the best layouts are bound by the host and the model knows its drift (host_band): the fastest count's and
 * the smallest count's step on a host as fast and as slow as the model's host range, and the speedup on
 * one host at either end (both steps times the same factor: the one host that runs both). When the speedup's side
 * of 1 changes between the ends, which count is faster is the host's to decide, and the sentence says so. */
static void verdict_drift(struct plan_advice *a, int base)
{
	struct plan_study *st = &a->st;
	const struct plan_entry *b = &st->opt[base].res.top[0];
	int other = a->best != base ? a->best : a->stop >= 0 ? a->stop : -1;
	const struct plan_entry *o = other >= 0 && st->opt[other].res.ntop > 0 ? &st->opt[other].res.top[0] : NULL;
	const struct plan_entry *h = b->r.host_band.hi_s > 0 ? b : o && o->r.host_band.hi_s > 0 ? o : NULL;
	size_t len = strlen(a->text), n = sizeof a->text;
	if (!h || len + 1 >= n)
		return;
	double blo = b->r.host_band.hi_s > 0 ? b->r.host_band.lo_s : b->r.step_time_s;
	double bhi = b->r.host_band.hi_s > 0 ? b->r.host_band.hi_s : b->r.step_time_s;
	char w[16], r1[80];
	count_word(st->opt[base].res.gpus, false, w, sizeof w);
	step_range(b, r1, sizeof r1);
	len += (size_t)snprintf(a->text + len, n - len, " Steps the host bounds move with it: on a host as fast and as "
				"slow as the model's host range (x%.2f to x%.2f on its costs) %s GPU%s take%s %s",
				h->r.host_band.f_lo, h->r.host_band.f_hi, w, st->opt[base].res.gpus > 1 ? "s" : "",
				st->opt[base].res.gpus > 1 ? "" : "s", r1);
	if (!o || len >= n) {
		if (len < n)
			snprintf(a->text + len, n - len, ".");
		return;
	}
	char wo[16], r2[80];
	count_word(st->opt[other].res.gpus, false, wo, sizeof wo);
	double olo = o->r.host_band.hi_s > 0 ? o->r.host_band.lo_s : o->r.step_time_s;
	double ohi = o->r.host_band.hi_s > 0 ? o->r.host_band.hi_s : o->r.step_time_s;
	step_range(o, r2, sizeof r2);
	double s_fast = blo / olo, s_slow = bhi / ohi;
	len += (size_t)snprintf(a->text + len, n - len, ", %s %s: a speedup of %.2fx on the fast host and %.2fx "
				"on the slow one.", wo, r2, s_fast, s_slow);
	if ((s_fast > 1) != (s_slow > 1) && len < n)
		snprintf(a->text + len, n - len, " Whether %s GPUs beat %s depends on how fast the host runs.", wo, w);
}

int plan_advise(const char *scenario, const char *hw, int max_gpus, struct plan_advice *out)
{
	memset(out, 0, sizeof *out);
	out->stop = -1;
	out->over = -1;
	struct scenario_overrides ov = { .hardware = hw };
	struct scenario s;
	struct hwmodel *model = NULL;
	int rc;
	if ((rc = scenario_load(scenario, &ov, &s)) != 0 || (rc = scenario_load_hardware(&s, &model)) != 0)
		return rc;
	if (max_gpus <= 0) {
		max_gpus = s.par.gpus > model->node.gpus ? s.par.gpus : model->node.gpus;
		if (max_gpus < 2)
			max_gpus = 2;
	}
	hwmodel_free(model);
	int counts[MAX_COUNTS], nc = 0;
	for (int g = 1; g <= max_gpus && nc < MAX_COUNTS; g *= 2)
		counts[nc++] = g;
	struct plan_study_spec spec = { .scenario = scenario, .hw = hw ? &hw : NULL, .nhw = hw ? 1 : 0,
					.gpus = counts, .ngpus = nc, .top = 1 };
	if ((rc = plan_study_run(&spec, &out->st)) != 0)
		return rc;
	struct plan_study *st = &out->st;
	int base = -1, prev = -1;
	out->best = -1;
	for (int i = 0; i < st->n; i++) {
		if (st->opt[i].res.ntop == 0)
			continue;
		double t = st->opt[i].res.top[0].r.step_time_s;
		if (base < 0)
			base = i;
		double tb = st->opt[base].res.top[0].r.step_time_s;
		out->speedup[i] = tb / t;
		out->efficiency[i] = out->speedup[i] / ((double)st->opt[i].res.gpus / st->opt[base].res.gpus);
		if (out->best < 0 || t < st->opt[out->best].res.top[0].r.step_time_s)
			out->best = i;
		if (prev >= 0 && out->stop < 0 && t >= st->opt[prev].res.top[0].r.step_time_s)
			out->stop = i;
		const struct breakdown *bd = &st->opt[i].res.top[0].r.breakdown_s;
		if (i > base && out->over < 0 && t - bd->compute - bd->optimizer > bd->compute)
			out->over = i;
		prev = i;
	}
	if (out->best < 0)
		out->best = 0;
	verdict(out);
	if (base >= 0)
		verdict_drift(out, base);
	return 0;
}

void plan_advice_release(struct plan_advice *a)
{
	plan_study_release(&a->st);
}

static int advice_json(FILE *f, const struct plan_advice *a)
{
	const struct plan_study *st = &a->st;
	struct jsonw w;
	jsonw_init(&w, f);
	jsonw_object_begin(&w);
	jsonw_kv_string(&w, "scenario", st->scenario);
	jsonw_kv_string(&w, "hardware", st->n ? st->opt[0].res.hardware : "");
	jsonw_kv_string(&w, "verdict", a->text);
	jsonw_kv_int(&w, "best_gpus", st->opt[a->best].res.gpus);
	if (a->stop >= 0 || a->over >= 0)
		jsonw_kv_int(&w, "stops_paying_at_gpus", st->opt[a->stop >= 0 ? a->stop : a->over].res.gpus);
	else
		jsonw_kv_string(&w, "stops_paying_at_gpus", NULL);
	jsonw_key(&w, "counts");
	jsonw_array_begin(&w);
	for (int i = 0; i < st->n; i++) {
		const struct plan_result *r = &st->opt[i].res;
		jsonw_object_begin(&w);
		jsonw_kv_int(&w, "gpus", r->gpus);
		jsonw_kv_bool(&w, "fits", r->ntop > 0);
		if (r->ntop > 0) {
			const struct plan_entry *e = &r->top[0];
			jsonw_kv_string(&w, "layout", e->desc);
			jsonw_kv_double(&w, "step_time_s", e->r.step_time_s);
			jsonw_kv_double(&w, "speedup", a->speedup[i]);
			jsonw_kv_double(&w, "efficiency", a->efficiency[i]);
			jsonw_kv_double(&w, "compute_s", e->r.breakdown_s.compute);
			jsonw_kv_double(&w, "exposed_comm_s", e->r.breakdown_s.tp_comm_exposed +
					e->r.breakdown_s.pp_comm_exposed + e->r.breakdown_s.dp_comm_exposed);
			jsonw_kv_double(&w, "pipeline_bubble_s", e->r.breakdown_s.pipeline_bubble);
			jsonw_kv_double(&w, "host_wait_s", e->r.breakdown_s.host_wait);
			jsonw_kv_double(&w, "memory_per_gpu_bytes", e->r.mem.total);
			if (e->r.host_band.hi_s > 0) {  /* the host's drift: sim/hostband.h */
				jsonw_kv_double(&w, "step_lo_s", e->r.host_band.lo_s);
				jsonw_kv_double(&w, "step_hi_s", e->r.host_band.hi_s);
			}
		}
		jsonw_object_end(&w);
	}
	jsonw_array_end(&w);
	jsonw_object_end(&w);
	return jsonw_finish(&w);
}

static int advice_csv(FILE *f, const struct plan_advice *a)
{
	const struct plan_study *st = &a->st;
	fputs("gpus,fits,layout,step_time_s,speedup,efficiency,compute_s,exposed_comm_s,pipeline_bubble_s,"
	      "host_wait_s,memory_per_gpu_bytes,step_lo_s,step_hi_s\n", f);
	for (int i = 0; i < st->n; i++) {
		const struct plan_result *r = &st->opt[i].res;
		if (r->ntop == 0) {
			fprintf(f, "%d,0,,,,,,,,,,,\n", r->gpus);
			continue;
		}
		const struct plan_entry *e = &r->top[0];
		const struct breakdown *b = &e->r.breakdown_s;
		fprintf(f, "%d,1,", r->gpus);
		csvw_cell(f, e->desc);
		fprintf(f, ",%.9g,%.6g,%.6g,%.9g,%.9g,%.9g,%.9g,%.6g,", e->r.step_time_s, a->speedup[i],
			a->efficiency[i], b->compute,
			b->tp_comm_exposed + b->pp_comm_exposed + b->dp_comm_exposed, b->pipeline_bubble,
			b->host_wait, e->r.mem.total);
		if (e->r.host_band.hi_s > 0)
			fprintf(f, "%.9g,%.9g", e->r.host_band.lo_s, e->r.host_band.hi_s);
		else
			fputc(',', f);
		fputc('\n', f);
	}
	return ferror(f) ? GS_EENV : 0;
}

static int advice_table(FILE *f, const struct plan_advice *a)
{
	const struct plan_study *st = &a->st;
	fprintf(f, "%s\n\n", a->text);
	fprintf(f, "  %5s  %-44s %10s %8s %7s %9s %9s %9s %9s %7s\n", "GPUs", "best layout", "step", "speedup", "eff",
		"compute", "comm", "bubble", "host", "mem GB");
	bool drift = false;
	for (int i = 0; i < st->n; i++)
		drift = drift || (st->opt[i].res.ntop > 0 && st->opt[i].res.top[0].r.host_band.hi_s > 0);
	for (int i = 0; i < st->n; i++) {
		const struct plan_result *r = &st->opt[i].res;
		if (r->ntop == 0) {
			fprintf(f, "  %5d  %-44s\n", r->gpus, "no layout fits in memory");
			continue;
		}
		const struct plan_entry *e = &r->top[0];
		const struct breakdown *b = &e->r.breakdown_s;
		char step[32], c[32], m[32], bu[32], h[32];
		ms(e->r.step_time_s, step, sizeof step);
		ms(b->compute, c, sizeof c);
		ms(b->tp_comm_exposed + b->pp_comm_exposed + b->dp_comm_exposed, m, sizeof m);
		ms(b->pipeline_bubble, bu, sizeof bu);
		ms(b->host_wait, h, sizeof h);
		fprintf(f, "  %5d  %-44s %10s %7.2fx %6.0f%% %9s %9s %9s %9s %7.2f%s", r->gpus, e->desc, step,
			a->speedup[i], 100 * a->efficiency[i], c, m, bu, h, e->r.mem.total / 1e9,
			i == a->best ? "  <- fastest" : (i == (a->stop >= 0 ? a->stop : a->over) ? "  <- stops paying" : ""));
		if (e->r.host_band.hi_s > 0) {
			char lo[32], hi[32];
			ms(e->r.host_band.lo_s, lo, sizeof lo);
			ms(e->r.host_band.hi_s, hi, sizeof hi);
			fprintf(f, "  (host drift: %s to %s)", lo, hi);
		}
		fputc('\n', f);
	}
	fputs("\n  speedup and efficiency: over the smallest GPU count that fits, the global batch as in the scenario;\n"
	      "  comm: exposed TP, pipeline and data-parallel communication; host: the GPU waiting for the host\n", f);
	if (drift)
		fputs("  host drift: the step on a host as fast and as slow as the model's host range "
		      "(docs/output.md)\n", f);
	return ferror(f) ? GS_EENV : 0;
}

int plan_advice_write(FILE *f, enum report_format fmt, const struct plan_advice *a)
{
	return fmt == REPORT_JSON ? advice_json(f, a) : fmt == REPORT_CSV ? advice_csv(f, a) : advice_table(f, a);
}
