/* cli_util: the helpers of cli/cli.h. Options are matched by hand rather than with getopt_long, which is a GNU
 * extension, keeps global state between commands and prints messages in its own format. */
#include "cli/cli.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"

bool cli_is_help(const char *arg)
{
	return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

int cli_opt(int argc, char **argv, int *i, const char *lng, char shrt, const char **val)
{
	const char *a = argv[*i];
	const char *inline_val = NULL;
	bool match = false;
	if (a[0] == '-' && a[1] == '-') {
		size_t n = lng ? strlen(lng) : 0;
		if (lng && strncmp(a + 2, lng, n) == 0 && (a[2 + n] == '\0' || a[2 + n] == '=')) {
			match = true;
			if (a[2 + n] == '=')
				inline_val = a + 3 + n;
		}
	} else if (shrt && a[0] == '-' && a[1] == shrt) {
		match = true;
		if (a[2] != '\0')
			inline_val = a + 2;
	}
	if (!match)
		return 0;
	if (!val) {
		if (inline_val) {
			diag_errorf("option '%s' takes no value", a);
			return -1;
		}
		return 1;
	}
	if (inline_val) {
		*val = inline_val;
		return 1;
	}
	if (*i + 1 >= argc) {
		diag_errorf("option '%s' needs a value", a);
		return -1;
	}
	*val = argv[++*i];
	return 1;
}

int cli_parse_positive_int(const char *opt, const char *s, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end != '\0' || v <= 0 || v > INT_MAX) {
		diag_errorf("%s needs a positive integer, not '%s'", opt, s);
		return -1;
	}
	*out = (int)v;
	return 0;
}
