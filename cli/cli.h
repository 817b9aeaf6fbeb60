/* cli: the option matcher the command files share (--name VALUE, --name=VALUE, -c VALUE, -cVALUE) and small
 * argument checks. Messages go through util/diag.h ("gpusim: message"), suggestions through util/strsim.h. */
#ifndef CLI_H
#define CLI_H

#include <stdbool.h>

/* cli_is_help: arg is -h or --help. */
bool cli_is_help(const char *arg);

/* cli_opt: whether argv[*i] is the option --lng (or -shrt when shrt != 0). For a value option (val != NULL) the
 * value is taken from "--lng=V", "-cV" or the next argument (then *i advances). Returns 1 matched, 0 not this
 * option, -1 matched but the value is missing or one was given to a flag (message printed). */
int cli_opt(int argc, char **argv, int *i, const char *lng, char shrt, const char **val);

/* cli_parse_positive_int: a positive decimal int for option opt; 0, or -1 after a message. */
int cli_parse_positive_int(const char *opt, const char *s, int *out);

#endif
