/* page: the Markdown report of a plan or an advice, with PNG plots drawn by gnuplot (study.h). */
#define _POSIX_C_SOURCE 200809L /* mkdir */
#include "plan/study.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "plots/pareto.h"
#include "plots/plot.h"
#include "scale/scale.h"
#include "util/diag.h"
#include "util/gserr.h"
#include "util/xalloc.h"

/* Text from a scenario or hardware file in a Markdown table cell: '|' and newlines would break the table. */
static void md_cell(FILE *f, const char *s)
{
	for (; *s; s++)
		fputs(*s == '|' ? "\\|" : (*s == '\n' || *s == '\r') ? " " : (char[2]){ *s, 0 }, f);
}

static void md_duration(FILE *f, double s)
{
	if (s < 1)
		fprintf(f, "%.3g ms", s * 1e3);
	else if (s < 7200)
		fprintf(f, "%.3g s", s);
	else if (s < 3 * 86400)
		fprintf(f, "%.3g h", s / 3600);
	else
		fprintf(f, "%.3g days", s / 86400);
}

/* A name from a scenario or hardware file for a plot: control characters (a newline would end a gnuplot comment
 * or string and start a command) become spaces. */
static void plot_name(char *dst, size_t n, const char *src)
{
	snprintf(dst, n, "%s", src);
	for (char *p = dst; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
}

/* The best layout of every option as a sweep table, so plots/ draws its breakdown and scaling efficiency. */
static void as_sweep(const struct plan_study *st, struct scale_table *t)
{
	scale_table_init(t);
	plot_name(t->scenario, sizeof t->scenario, st->scenario);
	snprintf(t->sweep, sizeof t->sweep, "plan");
	t->mode = SCALE_STRONG;
	t->shard = t->nshards = 1;
	int base = -1;
	for (int i = 0; i < st->n; i++) {
		const struct plan_result *r = &st->opt[i].res;
		if (i > 0 && strcmp(r->hardware, st->opt[i - 1].res.hardware) != 0)
			base = -1;
		struct scale_row *row = scale_table_add(t);
		row->row = i;
		plot_name(row->hardware, sizeof row->hardware, r->hardware);
		row->gpus = r->gpus;
		if (r->ntop == 0) {
			snprintf(row->reason, sizeof row->reason, "no layout fits");
			continue;
		}
		const struct plan_entry *e = &r->top[0];
		if (base < 0)
			base = i;
		const struct plan_entry *b = &st->opt[base].res.top[0];
		row->feasible = row->fits_in_memory = true;
		row->dp = e->sc.par.dp, row->tp = e->sc.par.tp, row->pp = e->sc.par.pp;
		row->global_batch = e->sc.train.global_batch;
		row->micro_batch = e->sc.train.micro_batch;
		row->num_microbatches = e->r.num_microbatches;
		row->base_gpus = st->opt[base].res.gpus;
		row->step_time_s = e->r.step_time_s;
		row->tokens_per_s = e->r.tokens_per_s;
		row->speedup = e->r.tokens_per_s / b->r.tokens_per_s;
		row->efficiency = row->speedup / ((double)r->gpus / row->base_gpus);
		row->mfu = e->r.mfu;
		const struct breakdown *bd = &e->r.breakdown_s;
		row->exposed_comm_share = (bd->tp_comm_exposed + bd->pp_comm_exposed + bd->dp_comm_exposed) /
					  e->r.step_time_s;
		row->bubble_share = bd->pipeline_bubble / e->r.step_time_s;
		row->breakdown_s = *bd;
		row->memory_per_gpu_bytes = e->r.mem.total;
		row->memory_capacity_bytes = e->r.memory_capacity_bytes;
	}
	t->rows_total = t->n;
}

/* One plot: write its files and draw it. Returns 0, or the first error; *drawn tells the page to show it. */
static int plot_one(const char *dir, const char *name, int (*write)(const void *ctx, const struct plot_files *pf),
		    const void *ctx, const char *gnuplot, bool *missing, bool *drawn)
{
	char image[4096];
	struct plot_files pf;
	*drawn = false;
	if (snprintf(image, sizeof image, "%s/%s", dir, name) >= (int)sizeof image || plot_files_for(image, &pf) != 0)
		return diag_errorf("--report '%s': path too long", dir), GS_EUSAGE;
	int rc = write(ctx, &pf);
	if (rc != 0 || *missing)
		return rc;
	int not_found = 0;
	rc = plot_render(&pf, gnuplot, &not_found);
	if (not_found) {
		*missing = true;
		return 0;
	}
	*drawn = rc == 0;
	return rc;
}

struct sweep_plot { const struct scale_table *t; enum plot_kind kind; };
static int write_sweep(const void *ctx, const struct plot_files *pf)
{
	const struct sweep_plot *s = ctx;
	return plot_write(s->t, s->kind, pf, NULL);
}

struct pareto_plot { const struct plan_study *st; };
static int write_pareto(const void *ctx, const struct plot_files *pf)
{
	const struct plan_study *st = ((const struct pareto_plot *)ctx)->st;
	struct plot_point *p = xcalloc((size_t)st->n + 1, sizeof *p);
	char (*labels)[96] = xcalloc((size_t)st->n + 1, sizeof *labels);
	int n = 0;
	double longest = 0;
	for (int i = 0; i < st->n; i++)
		if (st->opt[i].res.ntop > 0 && st->opt[i].res.top[0].cost.time_to_train_s > longest)
			longest = st->opt[i].res.top[0].cost.time_to_train_s;
	/* the axis in the unit the longest option reads best in */
	static const struct { double s; const char *label; } units[] = {
		{ 1e-3, "time (ms)" }, { 1, "time (s)" }, { 3600, "time to train (hours)" }, { 86400, "time to train (days)" },
	};
	int u = longest < 1 ? 0 : longest < 600 ? 1 : longest < 10 * 86400 ? 2 : 3;
	for (int i = 0; i < st->n; i++) {
		const struct plan_option_result *o = &st->opt[i];
		if (o->res.ntop == 0)
			continue;
		snprintf(labels[n], sizeof labels[n], "%s/%d", o->res.hardware, o->res.gpus);
		p[n] = (struct plot_point){ labels[n], o->res.top[0].cost.time_to_train_s / units[u].s,
					    plan_study_cost(st, o), o->pareto };
		n++;
	}
	int rc = plot_pareto(p, n, pf, units[u].label, st->priced ? "cost (USD)" : "cost (GPU-hours)");
	free(p);
	free(labels);
	return rc;
}

static void page_option(FILE *f, const struct plan_study *st, const struct plan_option_result *o)
{
	const struct plan_result *r = &o->res;
	fprintf(f, "## %d GPUs of ", r->gpus);
	md_cell(f, r->hardware);
	fprintf(f, "\n\nSearched %lld layouts in %.3g s; simulated %lld.", r->candidates, r->wall_s, r->simulated);
	for (int k = 0; k < PLAN_NREJ; k++)
		if (r->rejected[k])
			fprintf(f, " %lld %s.", r->rejected[k], plan_reject_name((enum plan_reject)k));
	fputs("\n\n", f);
	if (r->ntop == 0) {
		fputs("No layout fits.\n\n", f);
		return;
	}
	fputs("| # | layout | step | tokens/s | MFU | memory/GPU | time to train | GPU-hours | cost |\n"
	      "|---|---|---|---|---|---|---|---|---|\n", f);
	for (int k = 0; k < r->ntop; k++) {
		const struct plan_entry *e = &r->top[k];
		fprintf(f, "| %d | %s | ", k + 1, e->desc);
		md_duration(f, e->r.step_time_s);
		fprintf(f, " | %.4g | %.1f %% | %.2f GB | ", e->r.tokens_per_s, 100 * e->r.mfu, e->r.mem.total / 1e9);
		md_duration(f, e->cost.time_to_train_s);
		fprintf(f, " | %.4g | ", e->cost.gpu_hours);
		if (r->price > 0)
			fprintf(f, "%.4g USD |\n", e->cost.usd);
		else
			fputs("- |\n", f);
	}
	const struct plan_entry *b = &r->top[0];
	double gain = r->ntop > 1 ? r->top[1].r.step_time_s / b->r.step_time_s - 1 : 0;
	if (r->ntop > 1 && gain < 0.0005)
		fprintf(f, "\nThe best, %s, is as fast as the runner-up (%s).", b->desc, r->top[1].desc);
	else if (r->ntop > 1)
		fprintf(f, "\nThe best, %s, is %.1f %% faster than the runner-up (%s).", b->desc, gain * 100,
			r->top[1].desc);
	const struct breakdown *d = &b->r.breakdown_s;
	double s = b->r.step_time_s / 100;
	fprintf(f, " Its step: compute %.1f %%, exposed TP communication %.1f %%, pipeline communication %.1f %%, "
		"data-parallel communication %.1f %%, pipeline bubble %.1f %%, optimizer %.1f %%, waiting for the "
		"host %.1f %%.\n\n", d->compute / s, d->tp_comm_exposed / s, d->pp_comm_exposed / s,
		d->dp_comm_exposed / s, d->pipeline_bubble / s, d->optimizer / s, d->host_wait / s);
	if (b->r.host_band.hi_s > 0) {  /* bound by the host, whose drift the calibration measured */
		fputs("The host bounds its step: ", f);
		md_duration(f, b->r.host_band.lo_s);
		fputs(" to ", f);
		md_duration(f, b->r.host_band.hi_s);
		fprintf(f, " on a host as fast and as slow as the model's host range (x%.2f to x%.2f on its "
			"costs).\n\n", b->r.host_band.f_lo, b->r.host_band.f_hi);
	}
}

/* Which plots were drawn, and whether gnuplot was missing (then their scripts and data are there to run). */
struct page_plots {
	bool missing, cost, breakdown, efficiency;
};

/* The plots of a report: cost against time (several options), where the step goes, the scaling efficiency
 * (several GPU counts of one model); none when no layout fits. */
static int report_plots(const char *dir, const struct plan_study *st, const char *gnuplot, struct page_plots *d)
{
	struct scale_table t;
	as_sweep(st, &t);
	int feasible = 0, hw_models = 0, counts_max = 0, cur = 0, rc = 0;
	for (int i = 0; i < st->n; i++) {
		feasible += st->opt[i].res.ntop > 0;
		if (i == 0 || strcmp(st->opt[i].res.hardware, st->opt[i - 1].res.hardware) != 0)
			hw_models++, cur = 0;
		if (++cur > counts_max)
			counts_max = cur;
	}
	if (feasible > 0) {
		struct pareto_plot pp = { st };
		struct sweep_plot br = { &t, PLOT_BREAKDOWN }, ef = { &t, PLOT_EFFICIENCY };
		if (st->n > 1)
			rc = plot_one(dir, "cost_vs_time.png", write_pareto, &pp, gnuplot, &d->missing, &d->cost);
		if (rc == 0)
			rc = plot_one(dir, "breakdown.png", write_sweep, &br, gnuplot, &d->missing, &d->breakdown);
		if (rc == 0 && counts_max > 1)
			rc = plot_one(dir, "efficiency.png", write_sweep, &ef, gnuplot, &d->missing, &d->efficiency);
	}
	scale_table_release(&t);
	return rc;
}

/* advise: the verdict and one row per GPU count */
static void page_advice(FILE *f, const struct plan_study *st, const struct plan_advice *a)
{
	md_cell(f, a->text);
	fputs("\n\n| GPUs | best layout | step | speedup | efficiency | memory/GPU |\n|---|---|---|---|---|---|\n", f);
	for (int i = 0; i < st->n; i++) {
		const struct plan_result *r = &st->opt[i].res;
		if (r->ntop == 0) {
			fprintf(f, "| %d | no layout fits | | | | |\n", r->gpus);
			continue;
		}
		fprintf(f, "| %d | %s | ", r->gpus, r->top[0].desc);
		md_duration(f, r->top[0].r.step_time_s);
		fprintf(f, " | %.2fx | %.0f %% | %.2f GB |\n", a->speedup[i], 100 * a->efficiency[i],
			r->top[0].r.mem.total / 1e9);
	}
	fputs("\n", f);
}

/* plan with several options: their ranking and the Pareto front */
static void page_ranking(FILE *f, const struct plan_study *st)
{
	fprintf(f, "Purchase options ranked by %s; time and cost of %s. On the Pareto front: no other option "
		"trains both sooner and for less.\n\n| rank | front | hardware | GPUs | best layout | time to train | %s |\n"
		"|---|---|---|---|---|---|---|\n", st->by == PLAN_BY_COST ? "cost" : "time to train",
		st->tokens > 0 || st->steps > 0 ? "the whole run" : "one step", st->priced ? "USD" : "GPU-hours");
	for (int rank = 1; rank <= st->n; rank++)
		for (int i = 0; i < st->n; i++) {
			const struct plan_option_result *o = &st->opt[i];
			if (o->rank != rank)
				continue;
			fprintf(f, "| %d | %s | ", rank, o->pareto ? "yes" : "");
			md_cell(f, o->res.hardware);
			fprintf(f, " | %d | %s | ", o->res.gpus, o->res.top[0].desc);
			md_duration(f, o->res.top[0].cost.time_to_train_s);
			fprintf(f, " | %.5g |\n", plan_study_cost(st, o));
		}
	fputs("\n", f);
}

int plan_report_write(const char *dir, const struct plan_study *st, const struct plan_advice *a, const char *gnuplot)
{
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		diag_errorf("--report: cannot create folder '%s': %s", dir, strerror(errno));
		return GS_EENV;
	}
	struct page_plots d = { false, false, false, false };
	int rc = report_plots(dir, st, gnuplot, &d);
	if (rc != 0)
		return rc;

	char path[4096];
	if (snprintf(path, sizeof path, "%s/plan.md", dir) >= (int)sizeof path)
		return diag_errorf("--report '%s': path too long", dir), GS_EUSAGE;
	FILE *f = fopen(path, "w");
	if (!f) {
		diag_errorf("cannot open '%s' for writing: %s", path, strerror(errno));
		return GS_EENV;
	}
	fputs("# ", f);
	md_cell(f, a ? "Is another GPU worth it? " : "Purchase plan: ");
	md_cell(f, st->scenario);
	fputs("\n\n", f);
	if (a)
		page_advice(f, st, a);
	else if (st->n > 1)
		page_ranking(f, st);
	if (d.cost)
		fputs("![Cost against time to train; the line joins the Pareto front](cost_vs_time.png)\n\n", f);
	if (d.efficiency)
		fputs("![Scaling efficiency of the best layout at each GPU count](efficiency.png)\n\n", f);
	if (d.breakdown)
		fputs("![Where the step of each option's best layout goes](breakdown.png)\n\n", f);
	if (d.missing)
		fputs("gnuplot was not found, so the plots are not drawn: their scripts (*.png.gp) and data are in this "
		      "folder; run `gnuplot NAME.png.gp` there once it is installed.\n\n", f);
	if (!a)
		for (int i = 0; i < st->n; i++)
			page_option(f, st, &st->opt[i]);
	fputs("Written by `gpusim ", f);
	fputs(a ? "advise`" : "plan`", f);
	fputs("; how the search works: docs/plan.md.\n", f);
	if (fclose(f) != 0) {
		diag_errorf("cannot write '%s': %s", path, strerror(errno));
		return GS_EENV;
	}
	return 0;
}
