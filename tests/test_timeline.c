/* test_timeline: the JSON reader (util/jsonr.h: values, escapes, positions of errors) and the timeline plot of a
 * hand-written trace (plots/timeline.c): its rows, the merged rectangles and the micro-batch labels, all numbers a
 * person can read off the trace below. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "check.h"
#include "plots/plot.h"
#include "util/gserr.h"
#include "util/jsonr.h"

static char dir[] = "/tmp/gpusim-timeline-XXXXXX";

static const char *write_file(const char *name, const char *text)
{
	static char path[128];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

static char *slurp(const char *path)
{
	static char buf[65536];
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	buf[n] = '\0';
	if (f)
		fclose(f);
	return buf;
}

static void test_reader(void)
{
	int err = 0;
	const char *p = write_file("v.json", " {\"a\": [1, -2.5e3, true, false, null],\n \"s\": \"q\\\"\\\\\\/\\n\\u00e9\\ud83d\\ude00\","
				   " \"o\": {\"k\": {}}, \"e\": []} ");
	struct jsonr *r = jsonr_open(p, &err);
	CHECK(r != NULL);
	const struct jv *v = jsonr_value(r);
	CHECK(v && v->kind == JV_OBJ && v->n == 4);
	const struct jv *a = jv_get(v, "a");
	CHECK(a && a->kind == JV_ARR && a->n == 5);
	if (a && a->n == 5) {
		CHECK_NEAR(a->items[1].num, -2500, 0);
		CHECK(a->items[2].kind == JV_BOOL && a->items[2].b);
		CHECK(a->items[3].kind == JV_BOOL && !a->items[3].b);
		CHECK_INT(a->items[4].kind, JV_NULL);
	}
	CHECK_STR(jv_str(v, "s", NULL), "q\"\\/\n\xc3\xa9\xf0\x9f\x98\x80");  /* é and U+1F600 as UTF-8 */
	CHECK_INT(jv_get(jv_get(v, "o"), "k")->kind, JV_OBJ);
	CHECK_INT(jv_get(v, "e")->n, 0);
	CHECK_NEAR(jv_num(v, "missing", 7), 7, 0);
	CHECK_INT(jsonr_peek(r), 0);  /* all read */
	CHECK(!jsonr_failed(r));
	jsonr_free(r);

	/* errors name the place */
	p = write_file("bad.json", "{\"a\": [1, 2}\n");
	r = jsonr_open(p, &err);
	cap_begin();
	CHECK(jsonr_value(r) == NULL);
	CHECK_CONTAINS(cap_end(), "bad.json:1:12: expected ',' or ']'");
	CHECK(jsonr_failed(r));
	jsonr_free(r);
	p = write_file("bad2.json", "[\"x\n\"]");
	r = jsonr_open(p, &err);
	cap_begin();
	CHECK(jsonr_value(r) == NULL);
	CHECK_CONTAINS(cap_end(), "bad2.json:1:4: control character in a string");
	jsonr_free(r);
	cap_begin();
	CHECK(jsonr_open("/nonexistent/x.json", &err) == NULL);
	cap_end();
	CHECK_INT(err, GS_EENV);
}

/* Stage 0 (pid 1): a forward of micro-batch 0 in two ops (0-0.4 and 0.4-1 ms), a TP all-reduce (1-1.5 ms), a
 * backward op (1.5-3 ms), the optimizer (3-4 ms). pid 2 has no names and one send. The step is 4 ms. */
static const char trace[] =
	"{\"traceEvents\":[\n"
	"{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"stage 0: GPU 0 (dp 0, tp 0, node 0)\"}},\n"
	"{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"compute\"}},\n"
	"{\"name\":\"qkv\",\"cat\":\"compute\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":400,\"args\":{\"mb\":0,\"layer\":0}},\n"
	"{\"name\":\"fc1\",\"cat\":\"compute\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":400,\"dur\":600,\"args\":{\"mb\":0,\"layer\":0}},\n"
	"{\"name\":\"tp_allreduce_attn\",\"cat\":\"tp\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1000,\"dur\":500,\"args\":{\"mb\":0,\"bytes\":10}},\n"
	"{\"name\":\"fc1_dgrad\",\"cat\":\"compute\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1500,\"dur\":1500,\"args\":{\"mb\":0}},\n"
	"{\"name\":\"send_activation\",\"cat\":\"pp\",\"ph\":\"X\",\"pid\":2,\"tid\":3,\"ts\":100,\"dur\":50,\"args\":{\"mb\":1}},\n"
	"{\"name\":\"optimizer\",\"cat\":\"optimizer\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":3000,\"dur\":1000,\"args\":{}}\n"
	"],\n\"displayTimeUnit\":\"ms\",\n"
	"\"otherData\":{\"scenario\":\"hand\",\"hardware\":\"hw\",\"step_time_s\":0.004,\"dp\":1,\"tp\":2,\"pp\":2,"
	"\"schedule\":\"1f1b\",\"num_microbatches\":2,\"virtual_stages\":1}}\n";

static void test_timeline(void)
{
	const char *tr = write_file("t.json", trace);
	char tpath[128], img[128];
	snprintf(tpath, sizeof tpath, "%s", tr);
	snprintf(img, sizeof img, "%s/t.png", dir);
	struct plot_files pf;
	CHECK_INT(plot_files_for(img, &pf), 0);
	struct plot_timeline_opts all = { .ranks = "all" };
	CHECK_INT(plot_timeline(tpath, &pf, NULL, &all), 0);
	const char *dat = slurp(pf.data);
	CHECK_CONTAINS(dat, "# tracks: y label\n0 \"stage 0  compute\"\n1.5 \"pid 2  tid 3\"\n");
	/* qkv and fc1 merge into one forward rectangle; the TP, backward and optimizer slices stay apart */
	CHECK_CONTAINS(dat, "\n0.000000 1.000000 0 1\n1.000000 1.500000 0 3\n1.500000 3.000000 0 2\n"
			    "3.000000 4.000000 0 6\n0.100000 0.150000 1.5 4\n");
	/* the forward pass with its TP all-reduce is 0-1.5 ms (label at 0.75), the backward 1.5-3 ms */
	CHECK_CONTAINS(dat, "\n0.750000 0 \"0\" 7\n2.250000 0 \"0\" 8\n");
	const char *gp = slurp(pf.script);
	CHECK_CONTAINS(gp, "set output 't.png'");
	CHECK_CONTAINS(gp, "set title 'hand on hw: one training step, 4 ms'.\"\\n\".'dp 1 x tp 2 x pp 2, 1f1b, 2 "
			   "micro-batches; every stage (GPU dp 0, tp 0)'");
	CHECK_CONTAINS(gp, "set yrange [2:-0.5]");
	CHECK_CONTAINS(gp, "'t.png.dat' index 2 using 1:2:3:4 with labels");

	/* not a trace, and a trace with nothing to draw */
	tr = write_file("n.json", "{\"traceEvents\":[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1}]}");
	snprintf(tpath, sizeof tpath, "%s", tr);
	cap_begin();
	CHECK_INT(plot_timeline(tpath, &pf, NULL, NULL), GS_EINVAL);
	CHECK_CONTAINS(cap_end(), "n.json: no slices");
	tr = write_file("x.json", "{\"traceEvents\": 3}");
	snprintf(tpath, sizeof tpath, "%s", tr);
	cap_begin();
	CHECK_INT(plot_timeline(tpath, &pf, NULL, NULL), GS_EINVAL);
	CHECK_CONTAINS(cap_end(), "x.json:1:17: expected '[' (the list of trace events)");
}

/* The same trace, drawn by default (the critical stage: 0, as otherData names none) and through a window. */
static void test_timeline_scope(void)
{
	char tpath[128], img[128];
	snprintf(tpath, sizeof tpath, "%s", write_file("t.json", trace));
	snprintf(img, sizeof img, "%s/s.png", dir);
	struct plot_files pf;
	CHECK_INT(plot_files_for(img, &pf), 0);
	CHECK_INT(plot_timeline(tpath, &pf, NULL, NULL), 0);
	CHECK_CONTAINS(slurp(pf.data), "# tracks: y label\n0 \"stage 0  compute\"\n\n");  /* pid 2 (stage 1) left out */
	CHECK_CONTAINS(slurp(pf.script), "2 micro-batches; stage 0, the critical one (GPU dp 0, tp 0)'");
	/* 1 to 3.5 ms of stage 0: the TP all-reduce, the backward, half the optimizer (cut at 3.5) */
	struct plot_timeline_opts w = { .ranks = "0", .from_ms = 1, .to_ms = 3.5 };
	CHECK_INT(plot_timeline(tpath, &pf, NULL, &w), 0);
	CHECK_CONTAINS(slurp(pf.data), "end_ms y colour (1 forward, 2 backward, 3 tp, 4 pp, 5 dp, 6 optimizer, 9 either)\n"
			    "1.000000 1.500000 0 3\n1.500000 3.000000 0 2\n3.000000 3.500000 0 6\n\n");
	const char *gp = slurp(pf.script);  /* slurp's buffer is static: read one file at a time */
	CHECK_CONTAINS(gp, "set xrange [1:3.5125]");  /* 0.5 % of the 2.5 ms window beyond its end */
	CHECK_CONTAINS(gp, "stage 0, 1 ms to 3.5 ms (GPU dp 0, tp 0)'");
	struct plot_timeline_opts bad = { .ranks = "first" };
	cap_begin();
	CHECK_INT(plot_timeline(tpath, &pf, NULL, &bad), GS_EUSAGE);
	CHECK_CONTAINS(cap_end(), "--ranks 'first': expected critical, all or stage numbers");
}

/* 1000 passes of 3 ms on one compute row, forward and backward alternating: at 1600 pixels a pass would be
 * under 2 pixels, so all passes take one colour (9) and merge into one band, 0 to 3 s; the 3 s step is drawn in
 * seconds, and no micro-batch labels are written. */
static void test_timeline_dense(void)
{
	size_t cap = 1 << 18, n = 0;
	char *text = malloc(cap);
	n += (size_t)snprintf(text + n, cap - n, "{\"traceEvents\":[\n{\"name\":\"process_name\",\"ph\":\"M\","
			      "\"pid\":1,\"args\":{\"name\":\"stage 0: GPU 0\"}},\n{\"name\":\"thread_name\","
			      "\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"compute\"}}");
	for (int i = 0; i < 1000; i++)
		n += (size_t)snprintf(text + n, cap - n, ",\n{\"name\":\"%s\",\"cat\":\"compute\",\"ph\":\"X\","
				      "\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":3000,\"args\":{\"mb\":%d}}",
				      i % 2 ? "fc1_dgrad" : "fc1", i * 3000, i / 2);
	snprintf(text + n, cap - n, "\n]}\n");
	char tpath[128], img[128];
	snprintf(tpath, sizeof tpath, "%s", write_file("dense.json", text));
	free(text);
	snprintf(img, sizeof img, "%s/d.png", dir);
	struct plot_files pf;
	CHECK_INT(plot_files_for(img, &pf), 0);
	CHECK_INT(plot_timeline(tpath, &pf, NULL, NULL), 0);
	const char *dat = slurp(pf.data);
	CHECK_CONTAINS(dat, "9 either)\n0.000000 3.000000 0 9\n\n");  /* seconds */
	CHECK(strstr(dat, "\"0\" 7") == NULL);  /* no labels */
	const char *gp = slurp(pf.script);
	CHECK_CONTAINS(gp, "set xlabel 'simulated time (s)'");
	CHECK_CONTAINS(gp, "one training step, 3 s'");
	CHECK_CONTAINS(gp, "title 'passes and TP (zoom: --window)'");
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	test_reader();
	test_timeline();
	test_timeline_scope();
	test_timeline_dense();
	char cmd[160];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return 1;
	return check_result();
}
