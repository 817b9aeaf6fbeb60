/* cli_util: the helpers of cli/cli.h. Options are matched by hand rather than with getopt_long, which is a GNU
 * extension, keeps global state between commands and prints messages in its own format. */
#include "cli/cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/strsim.h"

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

int cli_parse_budget(const char *opt, const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end != '\0' || !(v >= 1) || v > 1e15 || strspn(s, "+.eE0123456789") != strlen(s)) {
		diag_errorf("%s needs a count from 1 to 1e15 (such as 2e8), not '%s'", opt, s);
		return -1;
	}
	*out = v;
	return 0;
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

int cli_out_open(struct cli_out *o)
{
	if (!o->path)
		return 0;
	if (outfile_open(&o->of, o->path) != 0)
		return 3;
	o->f = o->of.f;
	return 0;
}

int cli_out_commit(struct cli_out *o)
{
	if (!o->f)
		return 0;
	o->f = NULL;
	return outfile_commit(&o->of) == 0 ? 0 : 3;
}

void cli_out_discard(struct cli_out *o)
{
	if (!o->f)
		return;
	o->f = NULL;
	outfile_discard(&o->of);
}

void cli_unknown_option(const char *cmd, const char *arg, const char *const *names)
{
	char name[64];
	snprintf(name, sizeof name, "%.*s", (int)strcspn(arg, "="), arg);
	const char *s = strsim_suggest(name, names);
	if (s)
		diag_errorf("%s: unknown option '%s' (did you mean '%s'?)", cmd, name, s);
	else
		diag_errorf("%s: unknown option '%s'", cmd, name);
}

int cli_usage_error(const char *cmd)
{
	fprintf(stderr, "see 'gpusim %s --help'\n", cmd);
	return 2;
}

#define CLI_MAX_OPTIONS 32

int cli_parse(int argc, char **argv, const char *cmd, const struct cli_option *opts, void (*help)(void),
	      int (*on_opt)(void *ctx, int id, const char *val), int (*on_arg)(void *ctx, const char *arg),
	      void *ctx)
{
	bool only_args = false;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (only_args || arg[0] != '-' || arg[1] == '\0') {
			if (on_arg(ctx, arg) != 0)
				return cli_usage_error(cmd);
			continue;
		}
		if (strcmp(arg, "--") == 0) {
			only_args = true;
			continue;
		}
		if (cli_is_help(arg)) {
			help();
			return -1;
		}
		int m = 0;
		for (const struct cli_option *o = opts; o->name && m == 0; o++) {
			const char *val = NULL;
			m = cli_opt(argc, argv, &i, o->name, o->shrt, o->takes_value ? &val : NULL);
			if (m > 0 && on_opt(ctx, o->id, val) != 0)
				m = -1;
		}
		if (m < 0)
			return cli_usage_error(cmd);
		if (m == 0) {
			char names[CLI_MAX_OPTIONS + 1][40];
			const char *list[CLI_MAX_OPTIONS + 2];
			int n = 0;
			for (const struct cli_option *o = opts; o->name && n < CLI_MAX_OPTIONS; o++, n++) {
				snprintf(names[n], sizeof names[n], "--%s", o->name);
				list[n] = names[n];
			}
			list[n++] = "--help";
			list[n] = NULL;
			cli_unknown_option(cmd, arg, list);
			return cli_usage_error(cmd);
		}
	}
	return 0;
}

/* How a file of each kind is used: the text before and after its path. */
struct kind_use {
	const char *before, *after;
};

static struct kind_use kind_use(enum filekind k)
{
	switch (k) {
	case FILEKIND_SCENARIO: return (struct kind_use){ "predict it with 'gpusim predict ", "'" };
	case FILEKIND_HARDWARE: return (struct kind_use){ "use it with '--hw ", "'" };
	case FILEKIND_PREDICT:
		return (struct kind_use){ "'gpusim scale SCENARIO --gpus 8..64 --format csv -o sweep.csv' writes a sweep "
					  "table and 'gpusim predict SCENARIO --trace trace.json' a trace; ", " is neither" };
	case FILEKIND_SWEEP:
		return (struct kind_use){ "plot it with 'gpusim plot efficiency|throughput|breakdown|compare ",
					  " -o FILE.png'" };
	case FILEKIND_TRACE:
		return (struct kind_use){ "plot it with 'gpusim plot timeline ", " -o FILE.png', or open it in Perfetto" };
	case FILEKIND_MEASURED: return (struct kind_use){ "score it with 'gpusim validate ", "'" };
	case FILEKIND_UNKNOWN: break;
	}
	return (struct kind_use){ "", "" };
}

int cli_check_kind(const char *path, enum filekind want)
{
	enum filekind k = filekind_sniff(path);
	if (k == FILEKIND_UNKNOWN || k == want)
		return 0;
	struct kind_use u = kind_use(k);
	diag_errorf("'%s' is %s, not %s: %s%s%s", path, filekind_describe(k), filekind_describe(want), u.before, path,
		    u.after);
	return 1;
}
