/* targets: the entry points fuzzed (issue 16, docs/reliability.md). Each takes arbitrary bytes, must never crash,
 * hang or leak, and returns 0. Built twice: into libFuzzer binaries (tests/fuzz/libfuzzer.c, clang, scripts/fuzz)
 * and into fuzz_replay (tests/fuzz/replay.c, the normal build), which feeds the saved regression inputs to the
 * same functions under ctest. */
#ifndef FUZZ_TARGETS_H
#define FUZZ_TARGETS_H

#include <stddef.h>
#include <stdint.h>

int fuzz_scenario(const uint8_t *data, size_t size);  /* scenario_load_string, then a small prediction */
int fuzz_hardware(const uint8_t *data, size_t size);  /* hwmodel_load_string, then a small prediction with it */
int fuzz_json(const uint8_t *data, size_t size);      /* util/jsonr: every value of the text */
int fuzz_csv(const uint8_t *data, size_t size);       /* util/csvr: every record, both option sets */
int fuzz_merge(const uint8_t *data, size_t size);     /* scale_table_read_text, merge and write the table */

struct fuzz_target {
	const char *name;
	int (*run)(const uint8_t *data, size_t size);
};
extern const struct fuzz_target fuzz_targets[];  /* NULL-terminated */

#endif
