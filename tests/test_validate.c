/* test_validate: the scoring of `gpusim validate` (validate/score.c) without the simulator: median and maximum
 * of |relative error|, speedup signs and the Megatron FLOP count on numbers a person can check by hand
 * (tests/data/validate-hand.csv says how each is derived), and every kind of bad CSV with its
 * "file:line: message". */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "capture.h"
#include "check.h"
#include "util/gserr.h"
#include "validate/score.h"

static void test_arithmetic(void)
{
	double odd[] = {3, 1, 2}, even[] = {4, 1, 3, 2};
	CHECK_NEAR(score_median(odd, 3), 2.0, 1e-12);
	CHECK_NEAR(score_median(even, 4), 2.5, 1e-12);
	CHECK(odd[0] == 3 && even[0] == 4);  /* the input is not sorted in place */
	CHECK(isnan(score_median(odd, 0)));
	CHECK_NEAR(score_rel_err(1.1, 1.0), 0.1, 1e-12);
	CHECK_NEAR(score_rel_err(0.9, 1.2), -0.25, 1e-12);
	/* Eq. 3 with B=1, s=6, l=1, h=1, V=16: 96*6*(1 + 6/6 + 16/16) = 1728 */
	CHECK_NEAR(score_megatron_flops(1, 6, 1, 1, 16), 1728.0, 1e-12);
	/* B=2, s=12, l=2, h=2, V=64: 96*2*12*2*4 = 18432, times (1 + 12/12 + 64/64) = 55296 */
	CHECK_NEAR(score_megatron_flops(2, 12, 2, 2, 64), 55296.0, 1e-12);
	/* 1e15 FLOPs in 2 s on 5 GPUs: 1e14 FLOP/s per GPU = 100 TFLOP/s */
	CHECK_NEAR(score_tflops_per_gpu(1e15, 2.0, 5), 100.0, 1e-12);
}

static void test_hand_csv(void)
{
	struct score_table t;
	score_table_init(&t);
	CHECK_INT(score_load(&t, "tests/data/validate-hand.csv"), 0);
	CHECK_INT(t.n, 6);
	if (t.n != 6)
		return;
	CHECK_INT(t.metric, SCORE_STEP_S);
	CHECK_STR(t.rows[0].label, "a1");
	CHECK_INT(t.rows[0].line, 12);
	CHECK_INT(t.rows[2].line, 16);  /* after a blank and a comment line */
	CHECK_STR(t.rows[0].scenario, "a.yaml");
	CHECK_STR(t.rows[0].path, "tests/data/a.yaml");
	CHECK_STR(t.rows[5].path, "tests/data/sub/c.yaml");
	CHECK_NEAR(t.rows[5].measured, 1.25, 1e-12);
	CHECK_INT(t.rows[0].baseline, -1);
	CHECK_INT(t.rows[1].baseline, 0);
	CHECK_INT(t.rows[3].baseline, 2);
	CHECK_INT(t.rows[5].baseline, 4);

	static const double pred[] = {2.1, 0.9, 4.0, 4.4, 1.0, 0.8};
	for (int i = 0; i < 6; i++)
		score_set_prediction(&t, i, pred[i], pred[i]);
	struct score_summary s;
	score_summarize(&t, &s);
	CHECK_INT(s.rows, 6);
	CHECK_INT(s.predicted, 6);
	CHECK_INT(s.failed, 0);
	CHECK_NEAR(t.rows[0].rel_err, 0.05, 1e-9);
	CHECK_NEAR(t.rows[1].rel_err, -0.10, 1e-9);
	CHECK_NEAR(t.rows[3].rel_err, -0.12, 1e-9);
	CHECK_NEAR(t.rows[5].rel_err, -0.36, 1e-9);
	CHECK_NEAR(s.median_abs_err, 0.075, 1e-9);
	CHECK_NEAR(s.max_abs_err, 0.36, 1e-9);
	CHECK_INT(s.worst, 5);
	CHECK(!t.rows[0].has_speedup);
	CHECK(t.rows[1].has_speedup);
	CHECK_NEAR(t.rows[1].measured_speedup, 2.0, 1e-12);
	CHECK_NEAR(t.rows[1].predicted_speedup, 2.1 / 0.9, 1e-12);
	CHECK(t.rows[1].speedup_sign_ok);
	CHECK_NEAR(t.rows[3].measured_speedup, 0.8, 1e-12);
	CHECK(t.rows[3].speedup_sign_ok);
	CHECK_NEAR(t.rows[5].predicted_speedup, 1.25, 1e-12);
	CHECK(!t.rows[5].speedup_sign_ok);
	CHECK_INT(s.speedup_rows, 3);
	CHECK_INT(s.speedup_sign_wrong, 1);
	/* host drift bands (either order): a2's measured 1.0 inside [0.8, 1.2]; c2's 1.25 above [0.7, 1.1] */
	CHECK_INT(s.band_rows, 0);
	score_set_band(&t, 1, 1.2, 0.8);
	score_set_band(&t, 5, 0.7, 1.1);
	score_summarize(&t, &s);
	CHECK_NEAR(t.rows[1].band_lo, 0.8, 1e-12);
	CHECK_INT(s.band_rows, 2);
	CHECK_INT(s.band_inside, 1);
	/* the speedup on one host at either end of the bands: a2 over a1 (no band, 2.1) 2.1/0.8 and 2.1/1.2, both over
	 * 1: not the host's to decide; c2 over c1 (1.0) 1/0.7 = 1.43 and 1/1.1 = 0.91: the host decides, and c2 is on
	 * the wrong side */
	CHECK(!t.rows[1].speedup_host_side);
	CHECK(t.rows[5].speedup_host_side);
	CHECK_INT(s.speedup_host_side, 1);
	CHECK_INT(s.speedup_host_side_wrong, 1);

	/* a row without a prediction leaves the median and takes its dependents' speedups with it */
	score_set_failure(&t, 2, "scenario does not load");
	score_summarize(&t, &s);
	CHECK_INT(s.predicted, 5);
	CHECK_INT(s.failed, 1);
	CHECK(isnan(t.rows[2].rel_err));
	CHECK(!t.rows[3].has_speedup);
	CHECK_INT(s.speedup_rows, 2);
	CHECK_NEAR(s.median_abs_err, 0.10, 1e-9);  /* 0 0.05 0.10 0.12 0.36 */
	CHECK_STR(t.rows[2].error, "scenario does not load");
	score_table_release(&t);
}

static void test_tflops_csv(void)
{
	struct score_table t;
	score_table_init(&t);
	CHECK_INT(score_load_string(&t, "pub.csv", "ref",
				    "scenario,measured_tflops_per_gpu,flops_formula,label\r\n"
				    "x.yaml,137,megatron,T1-1.7B\r\n"
				    "/abs/y.yaml,140,,\r\n"), 0);
	CHECK_INT(t.n, 2);
	CHECK_INT(t.metric, SCORE_TFLOPS);
	CHECK_INT(t.rows[0].flops, SCORE_FLOPS_MEGATRON);
	CHECK_INT(t.rows[1].flops, SCORE_FLOPS_MODEL);
	CHECK_STR(t.rows[0].path, "ref/x.yaml");
	CHECK_STR(t.rows[1].path, "/abs/y.yaml");
	CHECK_STR(t.rows[1].label, "y");  /* default: the file name */
	CHECK_NEAR(t.rows[0].measured, 137.0, 1e-12);
	score_table_release(&t);
}

/* text must fail to load with a first message containing want. */
static void bad(const char *text, const char *want, int line)
{
	struct score_table t;
	score_table_init(&t);
	cap_begin();
	int rc = score_load_string(&t, "bad.csv", "", text);
	const char *err = cap_end();
	CHECK_INT(rc, GS_EINVAL);
	CHECK_CONTAINS(t.err, want);
	char where[64];
	if (line > 0)
		snprintf(where, sizeof where, "gpusim: bad.csv:%d: ", line);
	else
		snprintf(where, sizeof where, "gpusim: bad.csv: ");
	CHECK_CONTAINS(err, where);
	score_table_release(&t);
}

/* RFC 4180 quotes through util/csvr.h: a quoted cell may hold a comma; an unterminated one is an error at its
 * column (line 2, column 1 is the opening quote; the message points at the end of the line, column 10). */
static void test_quoted_csv(void)
{
	struct score_table t;
	score_table_init(&t);
	CHECK_INT(score_load_string(&t, "q.csv", "", "scenario,measured_step_s,label\n x.yaml , 1.5 ,\"a, b\"\n"), 0);
	CHECK_INT(t.n, 1);
	CHECK_STR(t.rows[0].scenario, "x.yaml");  /* trimmed */
	CHECK_STR(t.rows[0].label, "a, b");
	cap_begin();
	CHECK_INT(score_load_string(&t, "q.csv", "", "scenario,measured_step_s\n\"x.yaml,1\n"), GS_EINVAL);
	CHECK_STR(cap_end(), "gpusim: q.csv:2:10: unterminated quoted cell\n");
	CHECK_CONTAINS(t.err, "CSV syntax error on line 2");
	score_table_release(&t);
}

static void test_bad_csv(void)
{
	bad("", "no header line", 0);
	bad("# only a comment\n", "no header line", 0);
	bad("scenario,measured_step_s\n", "no data rows", 0);
	bad("measured_step_s,label\nx,1\n", "no 'scenario' column", 1);
	bad("scenario,label\nx,1\n", "no measured_step_s or measured_tflops_per_gpu column", 1);
	bad("scenario,measured_step_s,measured_tflops_per_gpu\nx,1,2\n", "one metric per file", 1);
	bad("scenario,scenario,measured_step_s\nx,y,1\n", "column 'scenario' appears twice", 1);
	bad("scenario,measured_tflops_per_gpu,baseline\nx,1,\n", "a baseline column needs measured_step_s", 1);
	bad("scenario,measured_step_s\n# c\nx.yaml,1,2\n", "3 fields, the header has 2", 3);
	bad("scenario,measured_step_s\nx.yaml,fast\n", "measured_step_s 'fast' is not a positive number", 2);
	bad("scenario,measured_step_s\nx.yaml,0\n", "measured_step_s '0' is not a positive number", 2);
	bad("scenario,measured_step_s\nx.yaml,-1\n", "is not a positive number", 2);
	bad("scenario,measured_step_s\nx.yaml,\n", "measured_step_s '' is not a positive number", 2);
	bad("scenario,measured_step_s\nx.yaml,1.5s\n", "'1.5s' is not a positive number", 2);
	bad("scenario,measured_step_s\n,1\n", "empty scenario", 2);
	bad("scenario,measured_step_s,label\nx.yaml,1,a\ny.yaml,2,a\n", "label 'a' is already used on line 2", 3);
	bad("scenario,measured_step_s,label,baseline\nx.yaml,1,a,\ny.yaml,2,b,z\n",
	    "baseline 'z' matches no row's label", 3);
	bad("scenario,measured_step_s,label,baseline\nx.yaml,1,a,a\n", "row 'a' is its own baseline", 2);
	bad("scenario,measured_tflops_per_gpu,flops_formula\nx.yaml,100,palm\n",
	    "unknown flops_formula 'palm' (use model or megatron)", 2);

	/* every bad line is reported, not only the first */
	struct score_table t;
	score_table_init(&t);
	cap_begin();
	score_load_string(&t, "bad.csv", "", "scenario,measured_step_s\nx.yaml,a\ny.yaml,b\nz.yaml,3\n");
	const char *err = cap_end();
	CHECK_INT(t.nerrors, 2);
	CHECK_CONTAINS(err, "bad.csv:2: ");
	CHECK_CONTAINS(err, "bad.csv:3: ");
	score_table_release(&t);

	cap_begin();
	int rc = score_load(&t, "tests/data/no-such-file.csv");
	err = cap_end();
	CHECK_INT(rc, GS_EENV);
	CHECK_CONTAINS(err, "cannot open 'tests/data/no-such-file.csv'");
	score_table_release(&t);
}

/* role, family (from mode), device, bound and peak memory: four rows, errors +10 %, -20 %, +4 %, -2 % */
static void test_groups(void)
{
	char a[16], b[16];
	score_family_of_mode("tp2-pp2-1f1b", a, sizeof a);
	score_family_of_mode("dp8", b, sizeof b);
	CHECK_STR(a, "tp-pp-1f1b");
	CHECK_STR(b, "dp");
	struct score_table t;
	score_table_init(&t);
	CHECK_INT(score_load_string(&t, "g.csv", "",
				    "scenario,measured_step_s,mode,device,role,peak_mem_bytes\n"
				    "a.yaml,1,single,H100,fit,100\n"
				    "b.yaml,1,dp2,H100,score,\n"
				    "c.yaml,1,dp4,H200,score,200\n"
				    "d.yaml,1,single,H200,score,400\n"), 0);
	static const double pred[] = {1.1, 0.8, 1.04, 0.98}, mem[] = {90, 50, 230, 400};
	for (int i = 0; i < 4; i++) {
		score_set_prediction(&t, i, pred[i], pred[i]);
		score_set_memory(&t, i, mem[i]);
	}
	score_set_band(&t, 1, 0.7, 1.2);  /* b and d: host-bound */
	score_set_band(&t, 3, 0.9, 1.3);
	struct score_summary s;
	score_summarize(&t, &s);
	struct score_group g[8];
	/* bound: gpu {a 10 %, c 4 %} median 7 %, host {b 20 %, d 2 %} median 11 %, max 20 % (b) */
	CHECK_INT(score_groups(&t, SCORE_BY_BOUND, g, 8), 2);
	CHECK_STR(g[0].key, "gpu");
	CHECK_NEAR(g[0].median_abs_err, 0.07, 1e-9);
	CHECK_STR(g[1].key, "host");
	CHECK_NEAR(g[1].median_abs_err, 0.11, 1e-9);
	CHECK_NEAR(g[1].max_abs_err, 0.20, 1e-9);
	CHECK_INT(g[1].worst, 1);
	/* families: single {10 %, 2 %} median 6 %, dp {20 %, 4 %} median 12 % */
	CHECK_INT(score_groups(&t, SCORE_BY_FAMILY, g, 8), 2);
	CHECK_STR(g[0].key, "single");
	CHECK_NEAR(g[0].median_abs_err, 0.06, 1e-9);
	CHECK_STR(g[1].key, "dp");
	CHECK_NEAR(g[1].max_abs_err, 0.20, 1e-9);
	CHECK_INT(g[1].worst, 1);
	/* devices: H100 {10, 20}, H200 {4, 2}; roles: fit {10}, score {20, 4, 2} median 4 */
	CHECK_INT(score_groups(&t, SCORE_BY_DEVICE, g, 8), 2);
	CHECK_NEAR(g[1].median_abs_err, 0.03, 1e-9);
	CHECK_INT(score_groups(&t, SCORE_BY_ROLE, g, 8), 2);
	CHECK_STR(g[1].key, "score");
	CHECK_NEAR(g[1].median_abs_err, 0.04, 1e-9);
	/* memory where measured: -10 %, +15 %, 0 (b has none): median 10 %, max 15 % (c) */
	CHECK_INT(s.mem_rows, 3);
	CHECK_NEAR(s.mem_median_abs_err, 0.10, 1e-9);
	CHECK_NEAR(s.mem_max_abs_err, 0.15, 1e-9);
	CHECK_INT(s.mem_worst, 2);
	score_table_release(&t);

	fprintf(stderr, "(an error about role is expected next)\n");
	score_table_init(&t);
	CHECK(score_load_string(&t, "r.csv", "", "scenario,measured_step_s,role\na.yaml,1,train\n") != 0);
	score_table_release(&t);
}

int main(void)
{
	test_groups();
	test_arithmetic();
	test_hand_csv();
	test_tflops_csv();
	test_bad_csv();
	test_quoted_csv();
	return check_result();
}
