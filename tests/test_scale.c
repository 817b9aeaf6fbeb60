/* test_scale: GPU-count lists, relayouts and their reasons, a sweep's rows against predictions made one by one
 * (speedup = step-time ratio in strong scaling, the global batch in weak scaling), shards that merge into the
 * exact bytes of the whole sweep, the merge's refusals, CSV/JSON round trips, and the plot module's file names
 * and script text. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "check.h"
#include "hardware/hwmodel.h"
#include "plots/plot.h"
#include "scale/scale.h"
#include "scenario/scenario.h"
#include "sim/hostband.h"
#include "sim/predict.h"
#include "util/gserr.h"

/* 8 layers over tp 2 x pp 2, 16 sequences of 2 per micro-batch: dp must divide 16/2 = 8. */
static const char scen_text[] =
	"name: sweep-test\n"
	"model:\n  layers: 8\n  hidden: 1024\n  heads: 16\n  seq: 512\n  vocab: 1000\n"
	"training:\n  global_batch: 16\n  micro_batch: 2\n"
	"parallel:\n  tp: 2\n  pp: 2\n  gpus: 8\n"
	"hardware: h100-dgx\n";

static char scen_path[64];

static void check_list(const char *s, const int *want, int nwant)
{
	int *v = NULL, n = 0;
	char why[160] = "";
	int rc = scale_parse_gpus(s, &v, &n, why, sizeof why);
	CHECK_INT(rc, 0);
	if (rc != 0) {
		fprintf(stderr, "  '%s': %s\n", s, why);
		return;
	}
	CHECK_INT(n, nwant);
	for (int i = 0; i < n && i < nwant; i++)
		CHECK_INT(v[i], want[i]);
	free(v);
}

static void check_bad_list(const char *s, const char *reason)
{
	int *v = NULL, n = 0;
	char why[160] = "";
	CHECK_INT(scale_parse_gpus(s, &v, &n, why, sizeof why), GS_EUSAGE);
	CHECK_CONTAINS(why, reason);
	CHECK(v == NULL);
}

static void test_gpu_lists(void)
{
	check_list("8,16,32", (int[]){ 8, 16, 32 }, 3);
	check_list("8,16,...,128", (int[]){ 8, 16, 32, 64, 128 }, 5);        /* doubling */
	check_list("3,9,...,81", (int[]){ 3, 9, 27, 81 }, 4);                /* ratio 3 */
	check_list("8,12,...,24", (int[]){ 8, 12, 16, 20, 24 }, 5);          /* 12 is no multiple of 8: step 4 */
	check_list("2,4,6,...,10", (int[]){ 2, 4, 6, 8, 10 }, 5);            /* three numbers: constant step */
	check_list("8..64", (int[]){ 8, 16, 32, 64 }, 4);
	check_list("4..4", (int[]){ 4 }, 1);
	check_list("32,8,8,16", (int[]){ 8, 16, 32 }, 3);                    /* sorted, duplicates dropped */
	check_list("1,2,...,8,12,16", (int[]){ 1, 2, 4, 8, 12, 16 }, 6);     /* more after the end */
	check_bad_list("8,16,...,100", "100 is not reached by multiplying 16 by 2");
	check_bad_list("8,...,64", "needs two numbers before it");
	check_bad_list("8,16,...", "needs the last GPU count after it");
	check_bad_list("2,4,7,...,20", "neither a constant step nor a constant ratio");
	check_bad_list("8..100", "100 in '8..100' is not 8 times a power of two");
	check_bad_list("0", "'0' is not a positive GPU count");
	check_bad_list("8,x", "'x' is not a positive GPU count");
	check_bad_list("", "empty list");
}

static void test_relayout(void)
{
	struct scenario base, s;
	char why[256] = "";
	CHECK_INT(scenario_load(scen_path, NULL, &base), 0);
	CHECK_INT(base.par.dp, 2);
	CHECK_INT(scenario_relayout(&base, 16, 16, &s, why, sizeof why), 0);
	CHECK_INT(s.par.dp, 4);
	CHECK_INT(s.par.gpus, 16);
	CHECK_INT(s.train.global_batch, 16);
	CHECK_INT(scenario_relayout(&base, 6, 16, &s, why, sizeof why), GS_EINVAL);
	CHECK_STR(why, "6 GPUs is not a multiple of tp*pp = 2*2 = 4");
	CHECK_INT(scenario_relayout(&base, 12, 16, &s, why, sizeof why), GS_EINVAL);
	CHECK_STR(why, "training.global_batch (16) is not a multiple of dp*micro_batch = 3*2 = 6");
	CHECK_INT(scenario_relayout(&base, 64, 16, &s, why, sizeof why), GS_EINVAL);  /* dp 16 * 2 > 16 */
	CHECK_CONTAINS(why, "= 16*2 = 32");
	CHECK_INT(base.par.dp, 2);  /* base untouched */
}

/* One prediction at gpus GPUs and global batch gb, made without the sweep. */
static double step_at(int gpus, int gb)
{
	struct scenario base, s;
	struct hwmodel *hw = NULL;
	struct result r;
	char why[256];
	if (scenario_load(scen_path, NULL, &base) != 0 || scenario_load_hardware(&base, &hw) != 0 ||
	    scenario_relayout(&base, gpus, gb, &s, why, sizeof why) != 0 || predict_run(&s, hw, NULL, &r) != 0) {
		hwmodel_free(hw);
		return -1;
	}
	hwmodel_free(hw);
	return r.step_time_s;
}

static const int sweep_gpus[] = { 4, 6, 8, 12, 16, 32 };

static struct scale_spec spec(enum scale_mode mode, int shard, int nshards)
{
	static const char *const hw[] = { "h100-dgx", "a100-dgx" };
	return (struct scale_spec){ .scenario = scen_path, .gpus = sweep_gpus, .ngpus = 6, .hw = hw, .nhw = 2,
				    .mode = mode, .shard = shard, .nshards = nshards };
}

static void test_strong(void)
{
	struct scale_spec sp = spec(SCALE_STRONG, 1, 1);
	struct scale_table t;
	CHECK_INT(scale_run(&sp, &t), 0);
	CHECK_INT(t.n, 12);
	CHECK_INT(t.rows_total, 12);
	CHECK_STR(t.scenario, "sweep-test");
	CHECK_INT((int)strlen(t.sweep), 16);
	/* h100 rows: 4 (dp 1) is the base; 6 and 12 are not multiples of 4 GPUs; 32 gives dp 8 * 2 = 16: fine */
	const struct scale_row *r = t.rows;
	CHECK(r[0].feasible && r[2].feasible && r[4].feasible && r[5].feasible);
	CHECK(!r[1].feasible && !r[3].feasible);
	CHECK_STR(r[1].reason, "6 GPUs is not a multiple of tp*pp = 2*2 = 4");
	CHECK_STR(r[0].hardware, "h100-dgx");
	CHECK_STR(r[6].hardware, "a100-dgx");
	CHECK_INT(r[0].base_gpus, 4);
	CHECK_NEAR(r[0].speedup, 1, 1e-15);
	CHECK_NEAR(r[0].efficiency, 1, 1e-15);
	CHECK_INT(r[5].dp, 8);
	CHECK_INT(r[5].num_microbatches, 1);
	for (int i = 0; i < 6; i++) {
		if (!r[i].feasible)
			continue;
		CHECK_INT(r[i].global_batch, 16);  /* strong: kept */
		double t_i = step_at(r[i].gpus, 16), t_base = step_at(4, 16);
		CHECK_NEAR(r[i].step_time_s, t_i, 1e-12);
		/* same tokens per step, so the throughput ratio is the step-time ratio */
		CHECK_NEAR(r[i].speedup, t_base / t_i, 1e-12);
		CHECK_NEAR(r[i].efficiency, t_base / t_i / (r[i].gpus / 4.0), 1e-12);
		const struct breakdown *b = &r[i].breakdown_s;
		CHECK_NEAR(r[i].exposed_comm_share,
			   (b->tp_comm_exposed + b->pp_comm_exposed + b->dp_comm_exposed) / r[i].step_time_s, 1e-12);
	}
	/* the a100 rows have their own base */
	CHECK_INT(r[6].base_gpus, 4);
	CHECK_NEAR(r[6].speedup, 1, 1e-15);
	scale_table_release(&t);
}

/* A baseline that fits. 48 layers of hidden 4096 are 48 * 12 * 4096^2 = 9.66e9 parameters (plus a 1000-word
 * vocabulary). Every rank keeps bf16 weights and gradients (4 B/param); ZeRO-1 splits over dp what the
 * optimizer holds: fp32 master weights, fp32 master gradients and two fp32 Adam moments (16 B/param). So a GPU
 * needs (4 + 16/dp) * 9.66e9 bytes plus small activations: 193 GB at dp 1, 116 GB at dp 2, 77 GB at dp 4; the
 * h100-dgx preset has 85.5 GB, so 4 GPUs is the first row that fits and every speedup is relative to it, also
 * for the 1- and 2-GPU rows that do not fit. Shards agree. */
static void test_fit_baseline(void)
{
	static const char text[] = "name: zero-sweep\n"
				   "model:\n  layers: 48\n  hidden: 4096\n  heads: 32\n  seq: 128\n  vocab: 1000\n"
				   "training:\n  global_batch: 16\n  micro_batch: 1\n"
				   "parallel:\n  tp: 1\n  pp: 1\n  gpus: 1\n  zero: 1\nhardware: h100-dgx\n";
	char path[64];
	snprintf(path, sizeof path, "/tmp/gpusim-zsweep-%d.yaml", (int)getpid());
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	static const int gpus[] = { 1, 2, 4, 8 };
	struct scale_spec sp = { .scenario = path, .gpus = gpus, .ngpus = 4, .mode = SCALE_STRONG, .shard = 1,
				 .nshards = 1 };
	struct scale_table t, s2;
	CHECK_INT(scale_run(&sp, &t), 0);
	CHECK_INT(t.n, 4);
	int base = -1;
	for (int i = 0; i < t.n; i++)
		if (base < 0 && t.rows[i].fits_in_memory)
			base = i;
	CHECK_INT(base, 2);
	for (int i = 0; i < t.n && base >= 0; i++) {
		CHECK_INT(t.rows[i].base_gpus, gpus[base]);
		CHECK_NEAR(t.rows[i].speedup, t.rows[i].tokens_per_s / t.rows[base].tokens_per_s, 1e-12);
	}
	/* the second of two shards holds rows 1 and 3 only, yet finds the same baseline */
	sp.shard = 2;
	sp.nshards = 2;
	CHECK_INT(scale_run(&sp, &s2), 0);
	CHECK_INT(s2.n, 2);
	CHECK_INT(s2.rows[0].base_gpus, t.rows[1].base_gpus);
	CHECK_NEAR(s2.rows[1].speedup, t.rows[3].speedup, 0);
	scale_table_release(&t);
	scale_table_release(&s2);
	remove(path);
}

static void test_weak(void)
{
	struct scale_spec sp = spec(SCALE_WEAK, 1, 1);
	struct scale_table t;
	CHECK_INT(scale_run(&sp, &t), 0);
	/* 8 sequences per DP replica (16 over dp 2): 4 GPUs -> dp 1 -> 8, 16 -> dp 4 -> 32, 32 -> dp 8 -> 64 */
	CHECK_INT(t.rows[0].global_batch, 8);
	CHECK_INT(t.rows[2].global_batch, 16);
	CHECK_INT(t.rows[4].global_batch, 32);
	CHECK_INT(t.rows[5].global_batch, 64);
	CHECK_INT(t.rows[5].num_microbatches, 4);  /* kept: 64 / (8 * 2) */
	CHECK_INT(t.rows[0].num_microbatches, 4);
	/* weak: speedup is the throughput ratio, (64 sequences / t32) / (8 / t4) */
	CHECK_NEAR(t.rows[5].speedup, (64 / step_at(32, 64)) / (8 / step_at(4, 8)), 1e-12);
	scale_table_release(&t);
}

/* The text a table writes in fmt. */
static char *table_text(const struct scale_table *t, enum report_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CHECK_INT(scale_table_write(f, fmt, t), 0);
	fclose(f);
	return buf;
}

static void test_shards_merge(void)
{
	struct scale_spec sp = spec(SCALE_STRONG, 1, 1);
	struct scale_table whole, parts[3], merged;
	CHECK_INT(scale_run(&sp, &whole), 0);
	const char *names[3] = { "a", "b", "c" };
	for (int i = 0; i < 3; i++) {
		sp = spec(SCALE_STRONG, i + 1, 3);
		CHECK_INT(scale_run(&sp, &parts[i]), 0);
		CHECK_INT(parts[i].n, 4);             /* rows i, i+3, i+6, i+9 */
		CHECK_INT(parts[i].rows[1].row, i + 3);
		CHECK_STR(parts[i].sweep, whole.sweep);
	}
	/* shard 2 holds no base row (rows 0 and 6), yet its speedups match the whole sweep's */
	CHECK_NEAR(parts[1].rows[1].speedup, whole.rows[4].speedup, 0);
	const struct scale_table in[3] = { parts[2], parts[0], parts[1] };  /* any order */
	const char *in_names[3] = { names[2], names[0], names[1] };
	CHECK_INT(scale_table_merge(in, in_names, 3, &merged), 0);
	for (int f = REPORT_TABLE; f <= REPORT_CSV; f++) {
		char *a = table_text(&whole, (enum report_format)f), *b = table_text(&merged, (enum report_format)f);
		CHECK_STR(b, a);
		free(a);
		free(b);
	}
	scale_table_release(&merged);

	cap_begin();
	CHECK_INT(scale_table_merge(parts, names, 2, &merged), GS_EINVAL);
	CHECK_CONTAINS(cap_end(), "4 of the sweep's 12 rows are in none of the files: rows 2, 5, 8, 11");
	scale_table_release(&merged);
	const struct scale_table twice[2] = { parts[0], parts[0] };
	cap_begin();
	CHECK_INT(scale_table_merge(twice, names, 2, &merged), GS_EINVAL);
	CHECK_CONTAINS(cap_end(), "row 0 is in both a and b");
	scale_table_release(&merged);
	struct scale_table other;
	sp = spec(SCALE_WEAK, 2, 3);
	CHECK_INT(scale_run(&sp, &other), 0);
	const struct scale_table mixed[2] = { parts[0], other };
	cap_begin();
	CHECK_INT(scale_table_merge(mixed, names, 2, &merged), GS_EINVAL);
	CHECK_CONTAINS(cap_end(), "a and b come from different sweeps");
	scale_table_release(&merged);
	scale_table_release(&other);
	for (int i = 0; i < 3; i++)
		scale_table_release(&parts[i]);
	scale_table_release(&whole);
}

/* Write t as fmt to a file, read it back, and check it writes the same CSV and (from JSON, which also keeps the
 * shard number that CSV rows do not carry) the same JSON. */
static void round_trip(const struct scale_table *t, enum report_format fmt)
{
	char path[] = "/tmp/gpusim-scale-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	CHECK_INT(scale_table_write(f, fmt, t), 0);
	fclose(f);
	struct scale_table back;
	CHECK_INT(scale_table_read(path, &back), 0);
	remove(path);
	for (int k = fmt == REPORT_JSON ? REPORT_JSON : REPORT_CSV; k <= REPORT_CSV; k++) {
		char *a = table_text(t, (enum report_format)k), *b = table_text(&back, (enum report_format)k);
		CHECK_STR(b, a);
		free(a);
		free(b);
	}
	scale_table_release(&back);
}

static void test_round_trip(void)
{
	struct scale_spec sp = spec(SCALE_STRONG, 2, 2);
	struct scale_table t;
	CHECK_INT(scale_run(&sp, &t), 0);
	CHECK_INT(t.shard, 2);
	round_trip(&t, REPORT_CSV);
	round_trip(&t, REPORT_JSON);
	/* a name that needs CSV quoting survives too */
	snprintf(t.rows[0].hardware, sizeof t.rows[0].hardware, "dgx, \"b\"");
	round_trip(&t, REPORT_CSV);
	scale_table_release(&t);
}

/* text written to a file must fail scale_table_read; what it printed (static until the next call), and the
 * path it used in path (n bytes). */
static const char *bad_table_out_at(const char *text, char *path, size_t n)
{
	snprintf(path, n, "/tmp/gpusim-bad-%d.table", (int)getpid());
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	struct scale_table t;
	cap_begin();
	CHECK_INT(scale_table_read(path, &t), GS_EINVAL);
	const char *out = cap_end();
	scale_table_release(&t);
	remove(path);
	return out;
}

static const char *bad_table_out(const char *text)
{
	char path[64];
	return bad_table_out_at(text, path, sizeof path);
}

/* text written to a file must fail scale_table_read with exactly want on stderr ('@' stands for the path). */
static void bad_table(const char *text, const char *want)
{
	char path[64];
	const char *got = bad_table_out_at(text, path, sizeof path);
	char full[1024];  /* want with each '@' replaced by the file's path */
	size_t n = 0;
	for (const char *w = want; *w && n + sizeof path < sizeof full; w++) {
		if (*w == '@')
			n += (size_t)snprintf(full + n, sizeof full - n, "%s", path);
		else
			full[n++] = *w;
	}
	full[n] = '\0';
	CHECK_STR(got, full);
}

/* A step the host bounds on a calibration with a drift range (hardware/h200x2-1128p-measured.yaml: host costs
 * x0.704 to x1.553): each row's band is the band predict gives that layout on its own (hostband_run), and its
 * speedup on the fast and the slow host is the base's step over the row's at the same end (strong scaling: the same
 * tokens a step). The columns go through CSV and JSON; a table written before them reads without them; a band that
 * is not above 0 is refused where it stands. */
static const char drift_scen[] = "name: drift-test\n"
				 "model: {type: mlp, layers: 4, hidden: 256, ffn_hidden: 256, dtype: bf16}\n"
				 "training: {global_batch: 64, micro_batch: 16}\n"
				 "parallel: {gpus: 1}\nhardware: h100-dgx\n";

static void band_at(const char *path, const char *hwf, int gpus, double *lo, double *hi)
{
	struct scenario base, s;
	struct hwmodel *hw = NULL;
	struct result r;
	char why[256];
	struct scenario_overrides ov = { .hardware = hwf };
	*lo = *hi = -1;
	if (scenario_load(path, &ov, &base) == 0 && scenario_load_hardware(&base, &hw) == 0 &&
	    scenario_relayout(&base, gpus, 64, &s, why, sizeof why) == 0 && predict_run(&s, hw, NULL, &r) == 0 &&
	    hostband_run(&s, hw, NULL, &r) == 0) {
		*lo = r.host_band.lo_s;
		*hi = r.host_band.hi_s;
	}
	hwmodel_free(hw);
}

static void test_host_drift(void)
{
	char path[64];
	snprintf(path, sizeof path, "/tmp/gpusim-drift-%d.yaml", (int)getpid());
	FILE *f = fopen(path, "w");
	fputs(drift_scen, f);
	fclose(f);
	static const char *const hw[] = { "hardware/h200x2-1128p-measured.yaml" };
	static const int gpus[] = { 1, 2, 4 };
	struct scale_spec sp = { .scenario = path, .gpus = gpus, .ngpus = 3, .hw = hw, .nhw = 1,
				 .mode = SCALE_STRONG, .shard = 1, .nshards = 1 };
	struct scale_table t;
	CHECK_INT(scale_run(&sp, &t), 0);
	CHECK_INT(t.n, 3);
	double lo[3], hi[3];
	for (int i = 0; i < 3 && t.n == 3; i++) {
		band_at(path, hw[0], gpus[i], &lo[i], &hi[i]);
		CHECK(lo[i] > 0 && hi[i] > lo[i] * 1.05);  /* host-bound: a band */
		CHECK_NEAR(t.rows[i].step_lo_s, lo[i], 1e-15);
		CHECK_NEAR(t.rows[i].step_hi_s, hi[i], 1e-15);
		CHECK_NEAR(t.rows[i].speedup_fast_host, lo[0] / lo[i], 1e-12);
		CHECK_NEAR(t.rows[i].speedup_slow_host, hi[0] / hi[i], 1e-12);
	}
	round_trip(&t, REPORT_CSV);
	round_trip(&t, REPORT_JSON);
	char *people = table_text(&t, REPORT_TABLE);
	CHECK_CONTAINS(people, "host drift: the rows the host's speed moves");
	CHECK_CONTAINS(people, "(the base)");
	free(people);
	/* the same CSV without the four columns, as gpusim wrote it before them: read, no band */
	char *csv = table_text(&t, REPORT_CSV), *old = strdup(csv);
	size_t n = 0;
	for (char *line = strtok(csv, "\n"); line; line = strtok(NULL, "\n")) {
		for (int k = 0; k < 4; k++)
			*strrchr(line, ',') = '\0';
		n += (size_t)sprintf(old + n, "%s\n", line);
	}
	char opath[64];
	snprintf(opath, sizeof opath, "/tmp/gpusim-old-%d.csv", (int)getpid());
	f = fopen(opath, "w");
	fputs(old, f);
	fclose(f);
	struct scale_table back;
	CHECK_INT(scale_table_read(opath, &back), 0);
	CHECK_INT(back.n, 3);
	for (int i = 0; i < back.n; i++)
		CHECK(back.rows[i].step_hi_s == 0 && back.rows[i].speedup_fast_host == 0 && back.rows[i].feasible);
	scale_table_release(&back);
	remove(opath);
	/* a band of 0 in a file: refused at its cell */
	char *zero = table_text(&t, REPORT_CSV), *line = strchr(zero, '\n') + 1, *cell = strchr(line, '\n');
	for (int k = 0; k < 4; k++)  /* the first row's step_lo_s: its fourth cell from the end */
		while (*--cell != ',')
			;
	cell++;
	char *end = strchr(cell, ',');
	memmove(cell + 1, end, strlen(end) + 1);
	cell[0] = '0';
	CHECK_CONTAINS(bad_table_out(zero), "step_lo_s: expected a number above 0, got '0'");
	free(zero);
	free(csv);
	free(old);
	scale_table_release(&t);
	remove(path);
}

/* JSON tables read through util/jsonr.h: each fault is reported where it stands (line:column of the value). */
static void test_bad_json(void)
{
	bad_table("{\"scenario\": \"s\", \"mode\": \"strong\", \"sweep\": \"0123456789abcdef\",\n"
		  " \"rows_total\": 2.5, \"shard\": 1, \"shards\": 1, \"rows\": []}\n",
		  "gpusim: @:2:16: rows_total: expected an integer from 1 to 1000000, got 2.5\n"
		  "gpusim: @:2:54: rows: empty: nothing to read (a table written by gpusim scale has a row per GPU "
		  "count)\n");
	bad_table("{\"scenario\": \"s\", \"mode\": \"sideways\"}",
		  "gpusim: @:1:27: mode: expected strong or weak, got 'sideways'\n"
		  "gpusim: @:1:1: missing required key 'sweep'\n"
		  "gpusim: @:1:1: missing required key 'rows_total'\n"
		  "gpusim: @:1:1: missing required key 'shard'\n"
		  "gpusim: @:1:1: missing required key 'shards'\n"
		  "gpusim: @:1:1: missing required key 'rows'\n");
	/* a sweep that claims more rows than any merge should allocate for, and one with no rows */
	bad_table("{\"scenario\": \"s\", \"mode\": \"strong\", \"sweep\": \"0123456789abcdef\", \"rows_total\": "
		  "2147483647, \"shard\": 1, \"shards\": 1, \"rows\": []}",
		  "gpusim: @:1:80: rows_total: expected an integer from 1 to 1000000, got 2147483647\n"
		  "gpusim: @:1:125: rows: empty: nothing to read (a table written by gpusim scale has a row per GPU "
		  "count)\n");
	/* CSV: a header and no rows; a row whose step time is nan (strtod would take it) */
	struct scale_spec sp = spec(SCALE_STRONG, 1, 1);
	struct scale_table t;
	CHECK_INT(scale_run(&sp, &t), 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	scale_table_write(m, REPORT_CSV, &t);
	fclose(m);
	scale_table_release(&t);
	char *nl = strchr(buf, '\n');
	char head[4096];
	snprintf(head, sizeof head, "%.*s\n", (int)(nl - buf + 0), buf);
	bad_table(head, "gpusim: @: a header and no rows: nothing to read (a table written by gpusim scale has a row "
			"per GPU count)\n");
	/* the first row is h100-dgx at 4 GPUs, feasible: its step_time_s cell made nan */
	char *row = nl + 1, *end = strchr(row, '\n'), line[4096];
	int col = 0, want = -1;
	for (char *h = buf; h < nl; h = strchr(h, ',') ? strchr(h, ',') + 1 : nl, col++)
		if (strncmp(h, "step_time_s,", 12) == 0)
			want = col;
	size_t n = 0;
	col = 0;
	for (char *c = row; c < end; col++) {
		char *comma = memchr(c, ',', (size_t)(end - c));
		char *stop = comma ? comma : end;
		n += (size_t)snprintf(line + n, sizeof line - n, "%s%.*s", col ? "," : "", col == want ? 3 : (int)(stop - c),
				      col == want ? "nan" : c);
		c = comma ? comma + 1 : end;
	}
	char text[8192];
	snprintf(text, sizeof text, "%s%s\n", head, line);
	CHECK_CONTAINS(bad_table_out(text), "step_time_s: expected a number, got 'nan'\n");
	free(buf);
	/* not JSON numbers: strtod would take them */
	bad_table("{\"scenario\": -inf}", "gpusim: @:1:14: bad number\n");
	bad_table("{\"scenario\": -nan}", "gpusim: @:1:14: bad number\n");
}

static void test_plot_files(void)
{
	struct plot_files pf;
	CHECK_INT(plot_files_for("out/x.png", &pf), 0);
	CHECK_STR(pf.script, "out/x.png.gp");
	CHECK_STR(pf.data, "out/x.png.dat");
	CHECK_STR(pf.dir, "out");
	CHECK_STR(pf.terminal, "pngcairo");
	CHECK_INT(plot_files_for("x.svg", &pf), 0);
	CHECK_STR(pf.dir, ".");
	CHECK_STR(pf.terminal, "svg");
	CHECK_INT(plot_files_for("/x.pdf", &pf), 0);
	CHECK_STR(pf.dir, "/");
	CHECK_STR(pf.terminal, "pdfcairo");
	CHECK_INT(plot_files_for("x.jpg", &pf), GS_EUSAGE);
	CHECK_INT(plot_files_for("dir/.png", &pf), GS_EUSAGE);
	enum plot_kind k;
	CHECK_INT(plot_kind_parse("breakdown", &k), 0);
	CHECK_INT(k, PLOT_BREAKDOWN);
	CHECK_INT(plot_kind_parse("scatter", &k), GS_EUSAGE);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	static char buf[65536];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* A hand-made table: two models, one with a quote in its name, one infeasible row. */
static void test_plot_script(void)
{
	struct scale_table t;
	scale_table_init(&t);
	snprintf(t.scenario, sizeof t.scenario, "hand");
	snprintf(t.sweep, sizeof t.sweep, "0123456789abcdef");
	t.rows_total = 4;
	const char *hw[2] = { "o'hw", "b" };
	for (int i = 0; i < 4; i++) {
		struct scale_row *r = scale_table_add(&t);
		r->row = i;
		snprintf(r->hardware, sizeof r->hardware, "%s", hw[i / 2]);
		r->gpus = i % 2 ? 16 : 8;
		r->feasible = i != 3;
		if (!r->feasible) {
			snprintf(r->reason, sizeof r->reason, "because");
			continue;
		}
		r->base_gpus = 8;
		r->step_time_s = i % 2 ? 0.6 : 1.0;            /* 1 s at 8, 0.6 s at 16: speedup 1/0.6 */
		r->tokens_per_s = 1000 / r->step_time_s;
		r->speedup = 1.0 / r->step_time_s;
		r->efficiency = r->speedup / (r->gpus / 8.0);
		r->breakdown_s.compute = 0.75 * r->step_time_s;
		r->breakdown_s.dp_comm_exposed = 0.25 * r->step_time_s;
		r->fits_in_memory = true;
		if (i < 2) {  /* o'hw's host drift: 0.8-1.5 s at 8 GPUs, 0.4-0.9 s at 16 */
			r->step_lo_s = i ? 0.4 : 0.8;
			r->step_hi_s = i ? 0.9 : 1.5;
			r->speedup_fast_host = i ? 0.8 / 0.4 : 1;   /* base over row on the fast host: 2 */
			r->speedup_slow_host = i ? 1.5 / 0.9 : 1;   /* and on the slow one: 1.6667 */
		}
	}
	char dir[] = "/tmp/gpusim-plot-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char img[128];
	struct plot_files pf;
	snprintf(img, sizeof img, "%s/e.png", dir);
	CHECK_INT(plot_files_for(img, &pf), 0);
	CHECK_INT(plot_write(&t, PLOT_EFFICIENCY, &pf, NULL), 0);
	const char *gp = slurp(pf.script);
	CHECK_CONTAINS(gp, "set terminal pngcairo");
	CHECK_CONTAINS(gp, "set output 'e.png'");  /* relative: gnuplot runs in the image's folder */
	CHECK_CONTAINS(gp, "set title 'Scaling efficiency: hand, strong scaling'.\"\\n\".'hardware: o''hw and b'");
	CHECK_CONTAINS(gp, "set logscale x 2");
	CHECK_CONTAINS(gp, "set xtics (8, 16)");
	CHECK_CONTAINS(gp, "100 with lines dt 2 lw 2 lc rgb '#555555' title 'ideal (100 %)'");
	CHECK_CONTAINS(gp, "'e.png.dat' index 0 using 1:2 with linespoints");
	CHECK_CONTAINS(gp, "'e.png.dat' index 1 using 1:2 with linespoints");
	const char *dat = slurp(pf.data);
	/* 16 GPUs of o'hw: efficiency (1/0.6)/2 = 83.3333 %, ideal tokens 1000 * 16/8 = 2000 */
	CHECK_CONTAINS(dat, "\n16 83.3333 1666.66667 2000 1.66667 600 75.0000 0.0000 0.0000 25.0000 ");
	CHECK_CONTAINS(dat, "# 16 GPUs infeasible: because");
	CHECK_CONTAINS(dat, "\n\n\n# hardware b\n");
	/* the host's drift at 16 GPUs of o'hw: efficiency 1.6667/2 and 2/2, tokens 1666.67 x 0.6/0.9 and x 0.6/0.4;
	 * at its 8 GPUs (the base) 100 % either way, tokens 1000 / 1.5 and / 0.8; b has none: its own numbers */
	CHECK_CONTAINS(dat, " 83.3333 100 1111.11111 2500\n");
	CHECK_CONTAINS(dat, " 100 100 666.666667 1250\n");
	gp = slurp(pf.script);
	CHECK_CONTAINS(gp, "'e.png.dat' index 0 using 1:2:17:18 with yerrorbars lw 1.5 pt 7 ps 0 lc rgb");
	CHECK_CONTAINS(gp, "title 'o''hw, fast to slow host'");
	CHECK(strstr(gp, "index 1 using 1:2:17:18") == NULL);
	CHECK_INT(plot_write(&t, PLOT_THROUGHPUT, &pf, NULL), 0);
	CHECK_CONTAINS(slurp(pf.script), "'e.png.dat' index 0 using 1:3:19:20 with yerrorbars");

	CHECK_INT(plot_write(&t, PLOT_BREAKDOWN, &pf, "My title"), 0);
	gp = slurp(pf.script);
	CHECK_CONTAINS(gp, "set title 'My title'");
	CHECK_CONTAINS(gp, "NaN with boxes lc rgb '#4c72b0' title 'compute'");
	CHECK_CONTAINS(gp, "title 'exposed DP communication'");
	CHECK(strstr(gp, "pipeline bubble") == NULL);  /* parts that are 0 everywhere are left out */
	CHECK_CONTAINS(gp, "cum1(x) = 0+$7+$10");

	CHECK_INT(plot_write(&t, PLOT_COMPARE, &pf, NULL), 0);
	dat = slurp(pf.data);
	CHECK_CONTAINS(dat, "# ratio o'hw / b: gpus tokens_per_s_ratio\n8 1\n");  /* 16 is infeasible on b */
	gp = slurp(pf.script);
	/* the ratio panel's key sits above it, off the labels of the first GPU counts */
	CHECK_CONTAINS(gp, "set key outside top center horizontal nobox\n");

	t.rows[0].hardware[0] = 'c';  /* three models now */
	cap_begin();
	CHECK_INT(plot_write(&t, PLOT_COMPARE, &pf, NULL), GS_EINVAL);
	CHECK_CONTAINS(cap_end(), "compare needs a sweep of exactly two hardware models");
	for (int i = 0; i < 4; i++)
		t.rows[i].feasible = false;
	cap_begin();
	CHECK_INT(plot_write(&t, PLOT_THROUGHPUT, &pf, NULL), GS_EINVAL);
	CHECK_CONTAINS(cap_end(), "no row of the sweep is feasible");

	int not_found = 0;
	cap_begin();
	CHECK_INT(plot_render(&pf, "/nonexistent/gnuplot", &not_found), GS_EENV);
	cap_end();
	CHECK_INT(not_found, 1);
	remove(pf.script);
	remove(pf.data);
	rmdir(dir);
	scale_table_release(&t);
}

int main(void)
{
	snprintf(scen_path, sizeof scen_path, "/tmp/gpusim-sweep-%d.yaml", (int)getpid());
	FILE *f = fopen(scen_path, "w");
	fputs(scen_text, f);
	fclose(f);
	test_gpu_lists();
	test_relayout();
	test_strong();
	test_weak();
	test_fit_baseline();
	test_shards_merge();
	test_round_trip();
	test_bad_json();
	test_host_drift();
	test_plot_files();
	test_plot_script();
	remove(scen_path);
	return check_result();
}
