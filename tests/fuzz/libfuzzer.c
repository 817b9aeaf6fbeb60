/* libfuzzer: one libFuzzer binary per target (FUZZ_TARGET names it at compile time; scripts/fuzz builds them). */
#include "tests/fuzz/targets.h"

#include <stdio.h>
#include <string.h>

#ifndef FUZZ_TARGET
#error "FUZZ_TARGET (scenario, hardware, json, csv or merge) must be defined"
#endif
#define STR2(x) #x
#define STR(x) STR2(x)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int (*run)(const uint8_t *, size_t);
	if (!run) {
		for (const struct fuzz_target *t = fuzz_targets; t->name; t++)
			if (strcmp(t->name, STR(FUZZ_TARGET)) == 0)
				run = t->run;
		if (!run) {
			fprintf(stderr, "no fuzz target %s\n", STR(FUZZ_TARGET));
			return -1;
		}
	}
	return run(data, size);
}
