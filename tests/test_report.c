/* test_report: the JSON and CSV writers on a hand-filled result, compared as exact text (key order, nesting,
 * shortest round-trip numbers, escaping), the table's key lines, format names, and a write error on /dev/full. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "report/report.h"
#include "util/gserr.h"
#include "util/jsonw.h"

static struct result sample(void)
{
	struct result r;
	memset(&r, 0, sizeof r);
	r.step_time_s = 1.5;
	r.tokens_per_s = 349525.3333333333;
	r.mfu = 0.4;
	r.model_flops = 3.2e18;
	r.gpus = 64;
	r.dp = 2;
	r.tp = 8;
	r.pp = 4;
	r.micro_batch = 1;
	r.num_microbatches = 64;
	r.virtual_stages = 1;
	r.schedule = SCHED_1F1B;
	r.breakdown_s = (struct breakdown){.compute = 1.0, .tp_comm_exposed = 0.125, .pp_comm_exposed = 0.0625,
		.dp_comm_exposed = 0.0125, .pipeline_bubble = 0.25, .optimizer = 0.05,
		.host_wait = 0.5};
	r.critical_stage = 3;
	r.host_issue_s = 1.2;
	r.mem = (struct mem_usage){.weights = 17.5e9, .gradients = 17.5e9, .optimizer = 35e9,
		.activations = 4.25e9, .total = 74.25e9};
	r.peak_inflight_microbatches = 4;
	r.fits_in_memory = true;
	r.memory_capacity_bytes = 85899345920.0;
	r.events = 123456;
	r.tasks = 65432;
	r.simulated_ranks = 4;
	r.sim_wall_s = 0.001;
	snprintf(r.hardware, sizeof r.hardware, "h100-dgx");
	snprintf(r.scenario, sizeof r.scenario, "llama \"70b\", 64 gpus");
	return r;
}

/* Writes with report_write and returns the text (static buffer). */
static const char *render(enum report_format fmt, const struct result *r, int *rc)
{
	static char buf[8192];
	FILE *f = tmpfile();
	if (!f) {
		perror("tmpfile");
		exit(3);
	}
	*rc = report_write(f, fmt, r);
	rewind(f);
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static const char expected_json[] =
	"{\n"
	"  \"scenario\": \"llama \\\"70b\\\", 64 gpus\",\n"
	"  \"hardware\": \"h100-dgx\",\n"
	"  \"gpus\": 64,\n"
	"  \"step_time_s\": 1.5,\n"
	"  \"tokens_per_s\": 349525.3333333333,\n"
	"  \"mfu\": 0.4,\n"
	"  \"model_flops\": 3.2e+18,\n"
	"  \"parallel\": {\n"
	"    \"dp\": 2,\n"
	"    \"tp\": 8,\n"
	"    \"pp\": 4,\n"
	"    \"micro_batch\": 1,\n"
	"    \"num_microbatches\": 64,\n"
	"    \"schedule\": \"1f1b\",\n"
	"    \"virtual_stages\": 1\n"
	"  },\n"
	"  \"breakdown_s\": {\n"
	"    \"compute\": 1,\n"
	"    \"tp_comm_exposed\": 0.125,\n"
	"    \"pp_comm_exposed\": 0.0625,\n"
	"    \"dp_comm_exposed\": 0.0125,\n"
	"    \"pipeline_bubble\": 0.25,\n"
	"    \"optimizer\": 0.05,\n"
	"    \"host_wait\": 0.5\n"
	"  },\n"
	"  \"critical_stage\": 3,\n"
	"  \"host_issue_s\": 1.2,\n"
	"  \"memory_per_gpu_bytes\": {\n"
	"    \"weights\": 17500000000,\n"
	"    \"gradients\": 17500000000,\n"
	"    \"optimizer\": 35000000000,\n"
	"    \"activations\": 4250000000,\n"
	"    \"workspace\": 0,\n"
	"    \"total\": 74250000000\n"
	"  },\n"
	"  \"memory_capacity_bytes\": 85899345920,\n"
	"  \"fits_in_memory\": true,\n"
	"  \"peak_inflight_microbatches\": 4,\n"
	"  \"sim_wall_s\": 0.001,\n"
	"  \"simulated_ranks\": 4,\n"
	"  \"tasks\": 65432,\n"
	"  \"events\": 123456\n"
	"}\n";

static const char expected_csv[] =
	"scenario,hardware,gpus,step_time_s,tokens_per_s,mfu,model_flops,parallel.dp,parallel.tp,parallel.pp,"
	"parallel.micro_batch,parallel.num_microbatches,parallel.schedule,parallel.virtual_stages,"
	"breakdown_s.compute,breakdown_s.tp_comm_exposed,breakdown_s.pp_comm_exposed,breakdown_s.dp_comm_exposed,"
	"breakdown_s.pipeline_bubble,breakdown_s.optimizer,breakdown_s.host_wait,critical_stage,host_issue_s,"
	"memory_per_gpu_bytes.weights,"
	"memory_per_gpu_bytes.gradients,memory_per_gpu_bytes.optimizer,memory_per_gpu_bytes.activations,memory_per_gpu_bytes.workspace,"
	"memory_per_gpu_bytes.total,memory_capacity_bytes,fits_in_memory,peak_inflight_microbatches,sim_wall_s,"
	"simulated_ranks,tasks,events\n"
	"\"llama \"\"70b\"\", 64 gpus\",h100-dgx,64,1.5,349525.3333333333,0.4,3.2e+18,2,8,4,1,64,1f1b,1,"
	"1,0.125,0.0625,0.0125,0.25,0.05,0.5,3,1.2,17500000000,17500000000,35000000000,4250000000,0,74250000000,"
	"85899345920,true,4,0.001,4,65432,123456\n";

static void test_json(void)
{
	struct result r = sample();
	int rc;
	CHECK_STR(render(REPORT_JSON, &r, &rc), expected_json);
	CHECK_INT(rc, GS_OK);
}

static void test_csv(void)
{
	struct result r = sample();
	int rc;
	CHECK_STR(render(REPORT_CSV, &r, &rc), expected_csv);
	CHECK_INT(rc, GS_OK);
}

static void test_table(void)
{
	struct result r = sample();
	int rc;
	const char *t = render(REPORT_TABLE, &r, &rc);
	CHECK_INT(rc, GS_OK);
	CHECK_CONTAINS(t, "step time        1500.000 ms\n");
	CHECK_CONTAINS(t, "throughput       349,525 tokens/s\n");
	CHECK_CONTAINS(t, "mfu              40.0 %\n");
	CHECK_CONTAINS(t, "gpus             64 (dp 2 x tp 8 x pp 4)\n");
	/* 1.0 s of 1.5 s = 66.7 %, 0.25 s = 16.7 % */
	CHECK_CONTAINS(t, "  compute                        1000.000     66.7 %\n");
	CHECK_CONTAINS(t, "  pipeline bubble                 250.000     16.7 %\n");
	CHECK_CONTAINS(t, "  step time                      1500.000    100.0 %\n");
	CHECK_CONTAINS(t, "  total                             74.25  of 85.90 GB: fits\n");
	/* the host's work: 1.2 s of the 1.5 s step = 80 %; no line where the model has no host costs */
	CHECK_CONTAINS(t, "host work        1200.000 ms issuing the step's ops and calls (critical stage, 80 % of the step)\n");
	/* the GPU line says whether the GPU's memory holds the worst stage; the host line, only with offloaded
	 * activations, whether the node's host memory holds them */
	r.fits_in_memory = false;
	r.host_bytes_per_node = 300e9;
	r.host_capacity_bytes = 200e9;
	t = render(REPORT_TABLE, &r, &rc);
	CHECK_CONTAINS(t, "  total                             74.25  of 85.90 GB: fits\n");
	CHECK_CONTAINS(t, "  offloaded, host per node         300.00  of the node's host memory: DOES NOT FIT\n");
	r.host_bytes_per_node = r.host_capacity_bytes = 0;
	r.host_issue_s = 0;
	r.mem.total = 90e9;
	r.schedule = SCHED_INTERLEAVED;
	r.virtual_stages = 2;
	t = render(REPORT_TABLE, &r, &rc);
	CHECK_CONTAINS(t, "  total                             90.00  of 85.90 GB: DOES NOT FIT\n");
	CHECK(!strstr(t, "offloaded"));
	CHECK_CONTAINS(t, "interleaved, micro batch 1, 64 micro-batches, 2 virtual stages\n");
	CHECK(!strstr(t, "power cap"));
	CHECK(!strstr(t, "host work"));
}

/* Where the attention law ran (clock_attn > 0): a line of the table, a "clock" object at the end of the JSON and
 * two columns at the end of the CSV; nothing of it otherwise (the tests above) */
static void test_clock(void)
{
	struct result r = sample();
	int rc;
	r.clock_gemm = 1.0625;
	r.clock_attn = 0.8125;
	const char *t = render(REPORT_TABLE, &r, &rc);
	CHECK_CONTAINS(t, "mfu              40.0 %\npower cap        GEMMs x1.062 of their sustained rate, attention x0.812 of "
			  "its maximum-clock rate (critical stage)\n");
	t = render(REPORT_JSON, &r, &rc);
	CHECK_CONTAINS(t, "  \"events\": 123456,\n  \"clock\": {\n    \"gemm_speed\": 1.0625,\n    \"attention_speed\": 0.8125\n"
			  "  }\n}\n");
	t = render(REPORT_CSV, &r, &rc);
	CHECK_CONTAINS(t, ",tasks,events,clock.gemm_speed,clock.attention_speed\n");
	CHECK_CONTAINS(t, ",65432,123456,1.0625,0.8125\n");
}

/* Where hostband_run set a band: a table line under the host work, a "host_band" object after host_issue_s in the
 * JSON and four columns in the CSV; together with the clock object (two optional groups dropped or kept apart) */
static void test_host_band(void)
{
	struct result r = sample();
	int rc;
	r.host_band.lo_s = 1.25;
	r.host_band.hi_s = 2.0;
	r.host_band.f_lo = 0.75;
	r.host_band.f_hi = 1.5;
	const char *t = render(REPORT_TABLE, &r, &rc);
	CHECK_CONTAINS(t, "of the step)\nhost drift       1250.000 to 2000.000 ms on a host as fast and as slow as the "
			  "model's host range (host costs x0.75 to x1.50)\n");
	t = render(REPORT_JSON, &r, &rc);
	CHECK_CONTAINS(t, "  \"host_issue_s\": 1.2,\n  \"host_band\": {\n    \"step_lo_s\": 1.25,\n    \"step_hi_s\": 2,\n"
			  "    \"factor_lo\": 0.75,\n    \"factor_hi\": 1.5\n  },\n  \"memory_per_gpu_bytes\"");
	CHECK(!strstr(t, "\"clock\""));
	t = render(REPORT_CSV, &r, &rc);
	CHECK_CONTAINS(t, ",host_issue_s,host_band.step_lo_s,host_band.step_hi_s,host_band.factor_lo,host_band.factor_hi,"
			  "memory_per_gpu_bytes.weights,");
	CHECK_CONTAINS(t, ",1.2,1.25,2,0.75,1.5,");
	r.clock_gemm = 1.0625;
	r.clock_attn = 0.8125;
	t = render(REPORT_JSON, &r, &rc);
	CHECK_CONTAINS(t, "\"host_band\": {");
	CHECK_CONTAINS(t, "  \"clock\": {\n    \"gemm_speed\": 1.0625,");
}

static void test_numbers(void)
{
	char buf[40];
	CHECK_STR(jsonw_format_double(0.1, buf, sizeof buf), "0.1");
	CHECK_STR(jsonw_format_double(1.0 / 3.0, buf, sizeof buf), "0.3333333333333333");
	CHECK_STR(jsonw_format_double(1e-7, buf, sizeof buf), "1e-07");
	CHECK_STR(jsonw_format_double(123456789.0, buf, sizeof buf), "123456789");
	CHECK_STR(jsonw_format_double(0.0, buf, sizeof buf), "0");
	for (double v = 1e-9; v < 1e12; v *= 7.3)
		CHECK(strtod(jsonw_format_double(v, buf, sizeof buf), NULL) == v);
}

static void test_nonfinite_and_escapes(void)
{
	struct result r = sample();
	int rc;
	r.mfu = 0.0 / 0.0;
	snprintf(r.scenario, sizeof r.scenario, "a\\b\n\tc\x01");
	const char *t = render(REPORT_JSON, &r, &rc);
	CHECK_CONTAINS(t, "  \"mfu\": null,\n");
	CHECK_CONTAINS(t, "  \"scenario\": \"a\\\\b\\n\\tc\\u0001\",\n");
	t = render(REPORT_CSV, &r, &rc);
	CHECK_CONTAINS(t, ",h100-dgx,64,1.5,349525.3333333333,,3.2e+18,");  /* NaN: empty cell */
}

static void test_formats(void)
{
	enum report_format f = REPORT_TABLE;
	CHECK_INT(report_format_parse("json", &f), GS_OK);
	CHECK_INT(f, REPORT_JSON);
	CHECK_INT(report_format_parse("csv", &f), GS_OK);
	CHECK_INT(f, REPORT_CSV);
	CHECK_INT(report_format_parse("table", &f), GS_OK);
	CHECK_INT(f, REPORT_TABLE);
	CHECK(report_format_parse("xml", &f) != GS_OK);
	CHECK(report_format_parse("JSON", &f) != GS_OK);
}

static void test_write_error(void)
{
	FILE *f = fopen("/dev/full", "w");
	if (!f)
		return;  /* not Linux: nothing to check */
	struct result r = sample();
	CHECK_INT(report_write(f, REPORT_JSON, &r), GS_EENV);
	fclose(f);
	f = fopen("/dev/full", "w");
	CHECK_INT(report_write(f, REPORT_CSV, &r), GS_EENV);
	fclose(f);
}

int main(void)
{
	test_json();
	test_csv();
	test_table();
	test_clock();
	test_host_band();
	test_numbers();
	test_nonfinite_and_escapes();
	test_formats();
	test_write_error();
	return check_result();
}
