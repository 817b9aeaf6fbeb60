/* timeline: a `gpusim predict --trace` file (docs/output.md, Timelines) as a picture for documents: one row per
 * track of each traced GPU, stage 0 at the top, simulated time across, a colour per category, forward and
 * backward passes labelled with their micro-batch. The trace is read one event at a time (util/jsonr.h), so a
 * 100 MB trace costs the memory of its slices, not of its text tree. Back-to-back slices of one colour and
 * micro-batch on a row merge into one rectangle, which keeps FILE.png.dat to a few rectangles per pass. Forward and
 * backward are told apart by op name (the trace's category is compute for both): *_bwd, *_dgrad, *_wgrad,
 * *_recompute and the gradient bookkeeping ops are backward. */
#include "plots/plot.h"
#include "plots/plot_internal.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/trace.h"
#include "util/diag.h"
#include "util/gserr.h"
#include "util/jsonr.h"
#include "util/xalloc.h"

enum colour { C_FWD = 1, C_BWD, C_TP, C_PP, C_DP, C_OPT, C_PASS = 9 /* forward or backward, too many to tell */ };

struct slice {
	int pid, tid;
	double t0, t1;     /* ms */
	int colour, mb;    /* mb -1: none */
	int row;
};

struct track {
	int pid, tid;
	char name[96];
};

struct tl {
	struct slice *s;
	int n, cap;
	struct track *proc, *thr;   /* process_name (tid unused) and thread_name events */
	int nproc, nthr, capproc, capthr;
	char scenario[128], hardware[64], schedule[32];
	double step_s;
	int dp, tp, pp, mb, v, critical;
	int shown;          /* stages drawn: 1 for one, else the count */
	bool dense;         /* too many passes to tell apart: drawn in one colour, busy against idle */
};

static void add_track(struct track **v, int *n, int *cap, int pid, int tid, const char *name)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*v = xrealloc(*v, (size_t)*cap * sizeof **v);
	}
	struct track *t = &(*v)[(*n)++];
	t->pid = pid;
	t->tid = tid;
	snprintf(t->name, sizeof t->name, "%s", name ? name : "");
}

static void event(struct tl *t, const struct jv *e)
{
	const char *ph = jv_str(e, "ph", "");
	int pid = (int)jv_num(e, "pid", 0), tid = (int)jv_num(e, "tid", 0);
	if (strcmp(ph, "M") == 0) {
		const char *what = jv_str(e, "name", "");
		const char *name = jv_str(jv_get(e, "args"), "name", NULL);
		if (strcmp(what, "process_name") == 0)
			add_track(&t->proc, &t->nproc, &t->capproc, pid, 0, name);
		else if (strcmp(what, "thread_name") == 0)
			add_track(&t->thr, &t->nthr, &t->capthr, pid, tid, name);
		return;
	}
	if (strcmp(ph, "X") != 0)
		return;
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 4096;
		t->s = xrealloc(t->s, (size_t)t->cap * sizeof *t->s);
	}
	const char *cat = jv_str(e, "cat", "compute"), *name = jv_str(e, "name", "");
	double ts = jv_num(e, "ts", 0), dur = jv_num(e, "dur", 0);
	int colour = strcmp(cat, "tp") == 0 ? C_TP : strcmp(cat, "pp") == 0 ? C_PP : strcmp(cat, "dp") == 0 ? C_DP :
		     strcmp(cat, "optimizer") == 0 ? C_OPT : trace_op_backward(name) ? C_BWD : C_FWD;
	t->s[t->n++] = (struct slice){ pid, tid, ts / 1e3, (ts + dur) / 1e3, colour,
				       (int)jv_num(jv_get(e, "args"), "mb", -1), 0 };
}

static void other_data(struct tl *t, const struct jv *o)
{
	snprintf(t->scenario, sizeof t->scenario, "%s", jv_str(o, "scenario", "?"));
	snprintf(t->hardware, sizeof t->hardware, "%s", jv_str(o, "hardware", "?"));
	snprintf(t->schedule, sizeof t->schedule, "%s", jv_str(o, "schedule", "?"));
	t->step_s = jv_num(o, "step_time_s", 0);
	t->dp = (int)jv_num(o, "dp", 0);
	t->tp = (int)jv_num(o, "tp", 0);
	t->pp = (int)jv_num(o, "pp", 0);
	t->mb = (int)jv_num(o, "num_microbatches", 0);
	t->v = (int)jv_num(o, "virtual_stages", 1);
	t->critical = (int)jv_num(o, "critical_stage", 0);
}

/* The events of an array at the reader's place. */
static void events(struct jsonr *r, struct tl *t)
{
	if (jsonr_expect(r, '[', "'[' (the list of trace events)") != 0 || jsonr_accept(r, ']'))
		return;
	do {
		const struct jv *e = jsonr_value(r);
		if (!e)
			return;
		event(t, e);
		jsonr_clear(r);
	} while (jsonr_accept(r, ','));
	jsonr_expect(r, ']', "',' or ']'");
}

static int read_trace(const char *path, struct tl *t)
{
	int err = 0;
	struct jsonr *r = jsonr_open(path, &err);
	if (!r)
		return err;
	snprintf(t->scenario, sizeof t->scenario, "?");
	snprintf(t->hardware, sizeof t->hardware, "?");
	if (jsonr_peek(r) == '[') {
		events(r, t);
	} else if (jsonr_expect(r, '{', "a trace: a JSON object with traceEvents, or an array of events") == 0 &&
		   !jsonr_accept(r, '}')) {
		do {
			const char *k = jsonr_key(r);
			if (!k)
				break;
			if (strcmp(k, "traceEvents") == 0) {
				jsonr_clear(r);
				events(r, t);
			} else {
				bool other = strcmp(k, "otherData") == 0;
				const struct jv *v = jsonr_value(r);
				if (v && other)
					other_data(t, v);
			}
			jsonr_clear(r);
		} while (jsonr_accept(r, ','));
		jsonr_expect(r, '}', "',' or '}'");
	}
	if (!jsonr_failed(r) && jsonr_peek(r) != 0)
		jsonr_error(r, "text after the trace");
	err = jsonr_failed(r) ? GS_EINVAL : 0;
	jsonr_free(r);
	return err;
}

/* The pipeline stage of a traced process: "stage 3: GPU 24 (...)" gives 3; without a name, pid - 1. */
static int stage_of(const struct tl *t, int pid)
{
	for (int i = 0; i < t->nproc; i++)
		if (t->proc[i].pid == pid) {
			int st;
			if (sscanf(t->proc[i].name, "stage %d", &st) == 1)
				return st;
		}
	return pid - 1;
}

/* ranks: NULL or "critical" (the critical stage), "all", or a list of stage numbers "0,3". */
static int want_stage(const struct tl *t, const char *ranks, int stage)
{
	if (!ranks || strcmp(ranks, "critical") == 0)
		return stage == t->critical;
	if (strcmp(ranks, "all") == 0)
		return 1;
	for (const char *p = ranks; *p;) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p)
			return -1;
		if (v == stage)
			return 1;
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -1;
	}
	return 0;
}

/* Keeps the slices of the chosen stages inside [from, to] ms, cut to it; 0 or GS_EUSAGE for a bad --ranks. */
static int select_slices(struct tl *t, const struct plot_timeline_opts *o, double from, double to)
{
	int n = 0, seen[64] = { 0 }, nseen = 0;
	for (int i = 0; i < t->n; i++) {
		struct slice s = t->s[i];
		int st = stage_of(t, s.pid), w = want_stage(t, o ? o->ranks : NULL, st);
		if (w < 0) {
			diag_errorf("--ranks '%s': expected critical, all or stage numbers such as 0,3", o->ranks);
			return GS_EUSAGE;
		}
		if (!w || s.t1 <= from || s.t0 >= to)
			continue;
		s.t0 = s.t0 < from ? from : s.t0;
		s.t1 = s.t1 > to ? to : s.t1;
		bool known = false;
		for (int k = 0; k < nseen; k++)
			known |= seen[k] == st;
		if (!known && nseen < 64)
			seen[nseen++] = st;
		t->s[n++] = s;
	}
	t->n = n;
	t->shown = nseen;
	return 0;
}

/* More forward and backward passes on one compute row than a 1600-pixel image can tell apart (a pass under ~4
 * pixels): draw them and the TP collectives between their ops in one colour, so back-to-back passes merge into
 * bands whose gaps are the idle time (the bubble), and --window zooms in to see the passes. */
static void merge_dense(struct tl *t)
{
	/* a pass starts where a forward or backward slice differs in micro-batch or direction from the last one
	 * of its process (TP collectives between the ops of a pass do not start a new one) */
	int maxpid = 0, passes = 0;
	for (int i = 0; i < t->n; i++)
		maxpid = t->s[i].pid > maxpid ? t->s[i].pid : maxpid;
	if (maxpid > 1 << 20)
		return;
	int *last = xcalloc((size_t)maxpid + 1, sizeof *last);  /* 1 + mb * 2 + backward, 0 none yet */
	for (int i = 0; i < t->n; i++) {
		const struct slice *s = &t->s[i];
		if (s->pid < 0 || (s->colour != C_FWD && s->colour != C_BWD))
			continue;
		int key = 1 + (s->mb + 1) * 2 + (s->colour == C_BWD);
		passes += last[s->pid] != key;
		last[s->pid] = key;
	}
	free(last);
	if (passes <= 400 * (t->shown > 0 ? t->shown : 1))
		return;
	t->dense = true;
	for (int i = 0; i < t->n; i++)
		if (t->s[i].colour == C_FWD || t->s[i].colour == C_BWD || t->s[i].colour == C_TP) {
			t->s[i].colour = C_PASS;
			t->s[i].mb = -1;
		}
}

static int cmp_track(const void *a, const void *b)
{
	const struct track *x = a, *y = b;
	return x->pid != y->pid ? (x->pid > y->pid) - (x->pid < y->pid) : (x->tid > y->tid) - (x->tid < y->tid);
}

static int cmp_slice(const void *a, const void *b)
{
	const struct slice *x = a, *y = b;
	if (x->row != y->row)
		return (x->row > y->row) - (x->row < y->row);
	return (x->t0 > y->t0) - (x->t0 < y->t0);
}

static const char *proc_name(const struct tl *t, int pid, char *buf, size_t n)
{
	for (int i = 0; i < t->nproc; i++)
		if (t->proc[i].pid == pid) {
			/* "stage 1: GPU 8 (dp 0, tp 0, node 1)" -> "stage 1" */
			snprintf(buf, n, "%.*s", (int)strcspn(t->proc[i].name, ":"), t->proc[i].name);
			return buf;
		}
	snprintf(buf, n, "pid %d", pid);
	return buf;
}

/* Rows: every track that holds a slice, by (pid, tid); its y (rows of one process together, half a row between
 * processes) in *y. Returns the track count; tracks are in *out (caller frees). */
static int layout_rows(struct tl *t, struct track **out, double **y)
{
	struct track *tr = NULL;
	int n = 0, cap = 0;
	for (int i = 0; i < t->n; i++) {
		struct slice *s = &t->s[i];
		int k = 0;
		while (k < n && !(tr[k].pid == s->pid && tr[k].tid == s->tid))
			k++;
		if (k == n) {
			const char *name = NULL;
			for (int j = 0; j < t->nthr && !name; j++)
				if (t->thr[j].pid == s->pid && t->thr[j].tid == s->tid)
					name = t->thr[j].name;
			char fallback[32];
			snprintf(fallback, sizeof fallback, "tid %d", s->tid);
			add_track(&tr, &n, &cap, s->pid, s->tid, name ? name : fallback);
		}
	}
	qsort(tr, (size_t)n, sizeof *tr, cmp_track);
	*y = xcalloc((size_t)n + 1, sizeof **y);
	double at = 0;
	for (int k = 0; k < n; k++) {
		if (k > 0 && tr[k].pid != tr[k - 1].pid)
			at += 0.5;
		(*y)[k] = at++;
	}
	for (int i = 0; i < t->n; i++)
		for (int k = 0; k < n; k++)
			if (tr[k].pid == t->s[i].pid && tr[k].tid == t->s[i].tid) {
				t->s[i].row = k;
				break;
			}
	*out = tr;
	return n;
}

/* Returns the number of labels written. span_ms: the window drawn; times are written in units of unit ms. */
static int write_dat(FILE *f, struct tl *t, const struct track *tr, const double *y, int ntr, double span_ms,
		     double unit)
{
	int nlabels = 0;
	char buf[64], a[256], b[256];
	fprintf(f, "# gpusim plot timeline data: %s on %s\n# tracks: y label\n", plot_text(t->scenario, a, sizeof a),
		plot_text(t->hardware, b, sizeof b));
	for (int k = 0; k < ntr; k++)
		fprintf(f, "%g \"%s  %s\"\n", y[k], plot_text(proc_name(t, tr[k].pid, buf, sizeof buf), a, sizeof a),
			plot_text(tr[k].name, b, sizeof b));
	/* rectangles, merged where one ends where the next of its colour and micro-batch begins */
	fprintf(f, "\n\n# slices: start_%s end_%s y colour (1 forward, 2 backward, 3 tp, 4 pp, 5 dp, 6 optimizer, "
		"9 either)\n", unit > 1 ? "s" : "ms", unit > 1 ? "s" : "ms");
	qsort(t->s, (size_t)t->n, sizeof *t->s, cmp_slice);
	double eps = span_ms * 1e-9;
	for (int i = 0; i < t->n;) {
		struct slice m = t->s[i++];
		while (i < t->n && t->s[i].row == m.row && t->s[i].colour == m.colour && t->s[i].mb == m.mb &&
		       t->s[i].t0 - m.t1 <= eps)
			m.t1 = t->s[i++].t1;
		fprintf(f, "%.6f %.6f %g %d\n", m.t0 / unit, m.t1 / unit, y[m.row], m.colour);
	}
	/* a pass's label: its micro-batch, where the pass (its compute and the TP collectives inside) is wide enough */
	fprintf(f, "\n\n# labels: centre_%s y micro-batch text_colour (7 dark on forward, 8 light on backward)\n",
		unit > 1 ? "s" : "ms");
	for (int i = 0; i < t->n && !t->dense;) {
		const struct slice *s = &t->s[i];
		if (s->mb < 0 || (s->colour != C_FWD && s->colour != C_BWD)) {
			i++;
			continue;
		}
		double t0 = s->t0, t1 = s->t1;
		int j = i + 1;
		while (j < t->n && t->s[j].row == s->row && t->s[j].mb == s->mb && t->s[j].t0 - t1 <= 1e-3 &&
		       (t->s[j].colour == s->colour || t->s[j].colour == C_TP))
			t1 = t->s[j++].t1;
		if (t1 - t0 > span_ms / 90) {
			fprintf(f, "%.6f %g \"%d\" %d\n", (t0 + t1) / 2 / unit, y[s->row], s->mb,
				s->colour == C_BWD ? 8 : 7);
			nlabels++;
		}
		i = j;
	}
	return nlabels;
}

/* A duration for people: "850 ms", "63.68 s". */
static void human_ms(double ms, char *buf, size_t n)
{
	if (ms >= 1000)
		snprintf(buf, n, "%.4g s", ms / 1e3);
	else
		snprintf(buf, n, "%.4g ms", ms);
}

/* What is drawn, for the title's second line: the stages and the window. */
static void scope_text(const struct tl *t, const struct plot_timeline_opts *o, double step_ms, double from,
		       double to, char *buf, size_t n)
{
	const char *ranks = o && o->ranks ? o->ranks : "critical";
	size_t len;
	if (strcmp(ranks, "critical") == 0)
		len = (size_t)snprintf(buf, n, "stage %d, the critical one", t->critical);
	else if (strcmp(ranks, "all") == 0)
		len = (size_t)snprintf(buf, n, "every stage");
	else
		len = (size_t)snprintf(buf, n, "stage%s %s", strchr(ranks, ',') ? "s" : "", ranks);
	if (len < n && (from > 0 || to < step_ms)) {
		char a[32], b[32];
		human_ms(from, a, sizeof a);
		human_ms(to, b, sizeof b);
		snprintf(buf + len, n - len, ", %s to %s", a, b);
	}
}

static void write_gp(FILE *f, const struct plot_files *pf, const struct tl *t, double ymax, double step_ms,
		     bool labels, const char *given, const char *scope, double from, double to, double unit)
{
	const char *img = plot_base_name(pf->image), *dat = plot_base_name(pf->data);
	char gp[512], dat_c[512], img_c[512], scen[256], hw[256];
	plot_text(plot_base_name(pf->script), gp, sizeof gp);
	int h = 160 + (int)(ymax * 30 + 0.5);
	fprintf(f, "# %s: gpusim plot timeline of a `gpusim predict --trace` file (%s on %s).\n"
		"# Reads %s (block 0 the rows, 1 the rectangles, 2 the micro-batch labels); writes %s.\n"
		"# Edit freely, then run in this folder:  gnuplot %s\n", gp, plot_text(t->scenario, scen, sizeof scen),
		plot_text(t->hardware, hw, sizeof hw), plot_text(dat, dat_c, sizeof dat_c), plot_text(img, img_c, sizeof img_c),
		gp);
	if (strcmp(pf->terminal, "pdfcairo") == 0)
		fprintf(f, "set terminal pdfcairo size 16in,%gin font 'sans,11' noenhanced\n", h / 100.0);
	else if (strcmp(pf->terminal, "svg") == 0)
		fprintf(f, "set terminal svg size 1600,%d dynamic font 'sans,12' noenhanced background '#ffffff'\n", h);
	else
		fprintf(f, "set terminal pngcairo size 1600,%d font 'sans,12' noenhanced\n", h);
	fputs("set output ", f);
	plot_gp_str(f, img);
	fputs("\nset title ", f);
	char line[512];
	if (given) {
		plot_gp_str(f, given);
	} else {
		char dur[32];
		human_ms(step_ms, dur, sizeof dur);
		snprintf(line, sizeof line, "%s on %s: one training step, %s", t->scenario, t->hardware, dur);
		plot_gp_str(f, line);
		char v[32] = "";
		if (t->v > 1)
			snprintf(v, sizeof v, " (v = %d)", t->v);
		snprintf(line, sizeof line, "dp %d x tp %d x pp %d, %s%s, %d micro-batches; %s (GPU dp 0, tp 0)", t->dp,
			 t->tp, t->pp, t->schedule, v, t->mb, scope);
		fputs(".\"\\n\".", f);
		plot_gp_str(f, line);
	}
	fprintf(f, "\nset xlabel 'simulated time (%s)'\nset yrange [%g:-0.5]\nset xrange [%g:%g]\n",
		unit > 1 ? "s" : "ms", ymax + 0.5, from / unit, (to + (to - from) * 0.005) / unit);
	fputs("set ytics nomirror scale 0\nset xtics nomirror out\nset grid xtics lc rgb '#dddddd'\nset border 3\n"
	      "set lmargin 30\nset bmargin 6\n"
	      "set key at screen 0.5, screen 0.02 center bottom horizontal samplen 1.5 width 2\n"
	      "# a colour per category; backward a darker shade of forward; 7 and 8 the label colours\n"
	      "set linetype 1 lc rgb '#8fb8de'\nset linetype 2 lc rgb '#3a6ea5'\nset linetype 3 lc rgb '#f28e2b'\n"
	      "set linetype 4 lc rgb '#59a14f'\nset linetype 5 lc rgb '#e15759'\nset linetype 6 lc rgb '#9c6ab1'\n"
	      "set linetype 7 lc rgb '#1a1a1a'\nset linetype 8 lc rgb '#ffffff'\nset linetype 9 lc rgb '#5b8cc0'\n"
	      "set style fill solid 1.0 noborder\n", f);
	fputs("plot ", f);
	plot_gp_str(f, dat);
	fputs(" index 0 using (NaN):1:ytic(2) notitle, \\\n     ", f);
	plot_gp_str(f, dat);
	fputs(" index 1 using (($1 + $2) / 2):3:1:2:($3 - 0.38):($3 + 0.38):4 with boxxyerror lc variable notitle, \\\n",
	      f);
	if (labels) {  /* none when no pass is wide enough to hold its number */
		fputs("     ", f);
		plot_gp_str(f, dat);
		fputs(" index 2 using 1:2:3:4 with labels font ',9' tc variable notitle, \\\n", f);
	}
	if (t->dense)  /* passes in one colour: the legend says so and how to see them */
		fputs("     NaN with boxes lt 9 title 'passes and TP (zoom: --window)', \\\n", f);
	else
		fputs("     NaN with boxes lt 1 title 'forward', NaN with boxes lt 2 title 'backward', \\\n", f);
	if (!t->dense)
		fputs("     NaN with boxes lt 3 title 'TP collective', \\\n", f);
	fputs("     NaN with boxes lt 4 title 'PP transfer', \\\n"
	      "     NaN with boxes lt 5 title 'DP collective', NaN with boxes lt 6 title 'optimizer'\n", f);
}

int plot_timeline(const char *trace, const struct plot_files *pf, const char *given,
		  const struct plot_timeline_opts *o)
{
	struct tl t = { 0 };
	struct track *tr = NULL;
	double *y = NULL;
	int rc = read_trace(trace, &t);
	if (rc == 0 && t.n == 0)
		rc = diag_errorf("%s: no slices (\"ph\": \"X\" events) to draw", trace);
	FILE *f = NULL;
	int nlabels = 0;
	double step_ms = t.step_s * 1e3;
	for (int i = 0; i < t.n; i++)
		step_ms = t.s[i].t1 > step_ms ? t.s[i].t1 : step_ms;
	double from = o && o->from_ms > 0 ? o->from_ms : 0, to = o && o->to_ms > 0 ? o->to_ms : step_ms;
	if (rc == 0 && from >= to)
		rc = diag_errorf("--window %g:%g ms: empty (the step is %g ms)", from, to, step_ms);
	if (rc == 0 && (rc = select_slices(&t, o, from, to)) == 0 && t.n == 0)
		rc = diag_errorf("%s: nothing of the chosen stages (--ranks) in the window (--window)", trace);
	if (rc == 0) {
		merge_dense(&t);
		int ntr = layout_rows(&t, &tr, &y);
		double unit = to - from >= 2000 ? 1000 : 1;  /* seconds on the axis from a 2 s window up */
		char scope[160];
		scope_text(&t, o, step_ms, from, to, scope, sizeof scope);
		if (!(f = fopen(pf->data, "w"))) {
			diag_errorf("cannot open '%s' for writing: %s", pf->data, strerror(errno));
			rc = GS_EENV;
		} else {
			nlabels = write_dat(f, &t, tr, y, ntr, to - from, unit);
			rc = plot_close(f, pf->data);
		}
		if (rc == 0 && !(f = fopen(pf->script, "w"))) {
			diag_errorf("cannot open '%s' for writing: %s", pf->script, strerror(errno));
			rc = GS_EENV;
		} else if (rc == 0) {
			write_gp(f, pf, &t, ntr ? y[ntr - 1] : 0, step_ms, nlabels > 0, given, scope, from, to, unit);
			rc = plot_close(f, pf->script);
		}
	}
	free(tr);
	free(y);
	free(t.s);
	free(t.proc);
	free(t.thr);
	return rc;
}
