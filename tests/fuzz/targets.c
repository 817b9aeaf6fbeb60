/* targets: what each fuzz target does with its bytes (see targets.h). Messages go to stderr, which the fuzz
 * scripts silence; only a crash, a sanitizer report, a hang or a leak is a finding. */
#include "tests/fuzz/targets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hardware/hwmodel.h"
#include "scale/scale.h"
#include "scenario/scenario.h"
#include "sim/predict.h"
#include "util/csvr.h"
#include "util/jsonr.h"
#include "util/xalloc.h"

/* The bytes as a NUL-terminated string (loaders take text). */
static char *text_of(const uint8_t *data, size_t size)
{
	char *t = xmalloc(size + 1);
	memcpy(t, data, size);
	t[size] = '\0';
	return t;
}

/* A prediction small enough for a fuzzer's pace: the task budget keeps any scenario under a few milliseconds. */
static void predict_small(const struct scenario *s, const struct hwmodel *hw)
{
	struct predict_opts o = { .max_tasks = 2e4 };
	struct result r;
	predict_run(s, hw, &o, &r);
}

int fuzz_scenario(const uint8_t *data, size_t size)
{
	char *t = text_of(data, size);
	struct scenario s;
	static struct hwmodel *hw;  /* loaded once: the target is the scenario, not the preset */
	if (!hw)
		hw = hwmodel_load("h100-dgx", NULL);
	if (scenario_load_string("fuzz.yaml", t, NULL, &s) == 0 && hw)
		predict_small(&s, hw);
	free(t);
	return 0;
}

int fuzz_hardware(const uint8_t *data, size_t size)
{
	static const char scen[] = "name: f\nmodel: {layers: 2, hidden: 256, heads: 4, seq: 256, vocab: 1000}\n"
				   "training: {global_batch: 4, micro_batch: 1}\nparallel: {tp: 2, pp: 2, gpus: 8}\n"
				   "hardware: h100-dgx\n";
	char *t = text_of(data, size);
	int err = 0;
	struct hwmodel *hw = hwmodel_load_string("fuzz.yaml", t, &err);
	struct scenario s;
	if (hw && scenario_load_string("s.yaml", scen, NULL, &s) == 0)
		predict_small(&s, hw);
	hwmodel_free(hw);
	free(t);
	return 0;
}

int fuzz_json(const uint8_t *data, size_t size)
{
	struct jsonr *r = jsonr_open_text("fuzz.json", (const char *)data, size);
	while (!jsonr_failed(r) && jsonr_peek(r) != 0) {
		const struct jv *v = jsonr_value(r);
		if (!v)
			break;
		jv_num(v, "a", 0);
		jv_str(v, "b", NULL);
		jsonr_clear(r);
		jsonr_accept(r, ',');
	}
	jsonr_free(r);
	return 0;
}

int fuzz_csv(const uint8_t *data, size_t size)
{
	for (int flags = 0; flags <= (CSVR_COMMENTS | CSVR_TRIM); flags += CSVR_COMMENTS | CSVR_TRIM) {
		struct csvr *c = csvr_new("fuzz.csv", (const char *)data, size, flags);
		int n;
		while ((n = csvr_next(c)) > 0)
			for (int i = 0; i <= n; i++)
				(void)csvr_cell(c, i);
		csvr_free(c);
	}
	return 0;
}

int fuzz_merge(const uint8_t *data, size_t size)
{
	struct scale_table t, all;
	if (scale_table_read_text("fuzz.csv", (const char *)data, size, &t) == 0) {
		const char *names[] = { "fuzz.csv" };
		if (scale_table_merge(&t, names, 1, &all) == 0) {
			FILE *f = fopen("/dev/null", "w");
			if (f) {
				scale_table_write(f, REPORT_CSV, &all);
				scale_table_write(f, REPORT_JSON, &all);
				scale_table_write(f, REPORT_TABLE, &all);
				fclose(f);
			}
		}
		scale_table_release(&all);
	}
	scale_table_release(&t);
	return 0;
}

const struct fuzz_target fuzz_targets[] = {
	{ "scenario", fuzz_scenario }, { "hardware", fuzz_hardware }, { "json", fuzz_json },
	{ "csv", fuzz_csv },           { "merge", fuzz_merge },       { NULL, NULL },
};
