/* cli: the option matcher the command files share (--name VALUE, --name=VALUE, -c VALUE, -cVALUE) and small
 * argument checks. Messages go through util/diag.h ("gpusim: message"), suggestions through util/strsim.h. */
#ifndef CLI_H
#define CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "util/filekind.h"
#include "util/outfile.h"

/* cli_is_help: arg is -h or --help. */
bool cli_is_help(const char *arg);

/* cli_opt: whether argv[*i] is the option --lng (or -shrt when shrt != 0). For a value option (val != NULL) the
 * value is taken from "--lng=V", "-cV" or the next argument (then *i advances). Returns 1 matched, 0 not this
 * option, -1 matched but the value is missing or one was given to a flag (message printed). */
int cli_opt(int argc, char **argv, int *i, const char *lng, char shrt, const char **val);

/* cli_parse_positive_int: a positive decimal int for option opt; 0, or -1 after a message. */
int cli_parse_positive_int(const char *opt, const char *s, int *out);
/* cli_parse_budget: a positive count such as 1e9 or 250000000 (at most 1e15); 0 or -1 after a message. */
int cli_parse_budget(const char *opt, const char *s, double *out);

/* One option of a command, for cli_parse. */
struct cli_option {
	const char *name;   /* long name without the dashes: "format" matches --format and --format=V */
	char shrt;          /* short letter ('o' for -o) or 0 */
	bool takes_value;
	int id;             /* handed to the command's on_opt */
};

/* cli_parse: the argument loop every command shares. Options in opts (a NULL name ends the list) go to on_opt
 * with their value (NULL for a flag), in order; other arguments, and everything after "--", go to on_arg; -h and
 * --help call help. Handlers return 0, or nonzero after printing what is wrong. An unknown option gets a did-you-mean.
 * Returns 0 parsed, -1 help shown (exit 0), or 2 after a usage error (the message, then "see 'gpusim CMD --help'"). */
int cli_parse(int argc, char **argv, const char *cmd, const struct cli_option *opts, void (*help)(void),
	      int (*on_opt)(void *ctx, int id, const char *val), int (*on_arg)(void *ctx, const char *arg),
	      void *ctx);
/* cli_check_kind: when path is recognisably another of gpusim's file kinds than want (util/filekind.h), print
 * "gpusim: 'PATH' is a timeline trace (...), not a sweep table (...): plot it with 'gpusim plot timeline ...'"
 * and return 1 (invalid input); else 0, and the command's own reader decides. */
int cli_check_kind(const char *path, enum filekind want);

/* cli_usage_error: prints "see 'gpusim CMD --help'" and returns 2, the usage-error exit status. */
int cli_usage_error(const char *cmd);

/* cli_unknown_option: "gpusim: CMD: unknown option '--fromat' (did you mean '--format'?)", the suggestion from
 * names (NULL-terminated, with their dashes). */
void cli_unknown_option(const char *cmd, const char *arg, const char *const *names);

/* An output file that appears under its name only when the run succeeds: written to PATH.tmp, renamed into place
 * by cli_out_commit, removed by cli_out_discard, so a failed run never leaves a half file. */
/* -o FILE: util/outfile.h (a temporary renamed into place for a regular file, a device or FIFO written directly,
 * "-" for standard output, temporaries removed on failure and on SIGINT/SIGTERM), with exit statuses. */
struct cli_out {
	const char *path;   /* NULL: not requested (open and commit do nothing) */
	struct outfile of;
	FILE *f;            /* where to write once open (standard output for "-"); NULL when not requested */
};

/* cli_out_open: 0, or 3 (exit status) after a message. */
int cli_out_open(struct cli_out *o);
/* cli_out_commit: close and move into place; 0, or 3 after a message (the temporary file is removed). */
int cli_out_commit(struct cli_out *o);
/* cli_out_discard: close and remove the temporary file, if open. */
void cli_out_discard(struct cli_out *o);

#endif
