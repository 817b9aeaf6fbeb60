/* replay: `fuzz_replay TARGET FILE...` feeds each file to a fuzz target's function (tests/fuzz/targets.h) in the
 * normal build, so the inputs fuzzing once crashed on (tests/fuzz/regressions/TARGET/) and the seed corpus stay
 * checked by ctest, with or without clang. Exit 0 when every file ran; a crash fails the test by itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/targets.h"
#include "util/slurp.h"

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs("usage: fuzz_replay TARGET FILE...\n", stderr);
		return 2;
	}
	const struct fuzz_target *t = fuzz_targets;
	while (t->name && strcmp(t->name, argv[1]) != 0)
		t++;
	if (!t->name) {
		fprintf(stderr, "fuzz_replay: no target '%s'\n", argv[1]);
		return 2;
	}
	int ran = 0;
	for (int i = 2; i < argc; i++) {
		size_t len;
		int err = 0;
		char *data = slurp_file(argv[i], &len, &err);
		if (!data)
			return 1;
		t->run((const uint8_t *)data, len);
		free(data);
		ran++;
	}
	printf("fuzz_replay %s: %d inputs, no crash\n", t->name, ran);
	return 0;
}
