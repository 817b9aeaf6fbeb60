/* cmd_merge: `gpusim merge SHARD... [options]`: joins the outputs of `gpusim scale --shard I/N` (CSV or JSON, in
 * any order and mix) into the table the whole sweep prints, after checking that they come from one sweep and
 * hold every row once (scale_table_merge). Given one complete table it converts between formats. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "scale/scale.h"
#include "util/diag.h"
#include "util/gserr.h"
#include "util/xalloc.h"

static const char usage_line[] =
	"usage: gpusim merge SHARD.csv|SHARD.json... [--format table|csv|json] [-o FILE]\n";

static void help(void)
{
	fputs(usage_line, stdout);
	fputs("\n"
	      "Joins the shards of a scaling sweep, written by 'gpusim scale ... --shard I/N' (csv or json), into\n"
	      "the table the whole sweep gives: the same bytes as running it unsharded. It checks that every file\n"
	      "comes from the same sweep (same scenario file, GPU list, hardware, mode) and that together they\n"
	      "hold every row exactly once, and names the missing or doubled rows when not.\n"
	      "\n"
	      "options:\n"
	      "  --format F        table (default), csv or json, as 'gpusim scale' writes them\n"
	      "  -o, --output FILE write to FILE instead of standard output ('-'); replaced only on success\n"
	      "  -h, --help        show this help\n"
	      "\n"
	      "examples:\n"
	      "  for i in 1 2 3 4; do gpusim scale big.yaml --gpus 64..16384 --shard $i/4 -o part$i.csv & done; wait\n"
	      "  gpusim merge part*.csv --format csv -o sweep.csv\n"
	      "  gpusim merge sweep.csv                  (one whole table: print it for people)\n"
	      "\n"
	      "exit status: 0 ok, 1 the files are not shards of one sweep or a row is missing or doubled,\n"
	      "2 usage error, 3 a file cannot be read or written\n", stdout);
}

enum { OPT_FORMAT, OPT_OUTPUT };
static const struct cli_option options[] = {
	{"format", 0, true, OPT_FORMAT}, {"output", 'o', true, OPT_OUTPUT}, {NULL, 0, false, 0},
};

struct args {
	const char **files;
	int nfiles;
	enum report_format fmt;
	const char *output;
};

static int on_opt(void *ctx, int id, const char *val)
{
	struct args *a = ctx;
	if (id == OPT_OUTPUT)
		a->output = val;
	else if (report_format_parse(val, &a->fmt) != 0)
		return diag_errorf("unknown format '%s' (use table, csv or json)", val);
	return 0;
}

static int on_arg(void *ctx, const char *arg)
{
	struct args *a = ctx;
	a->files[a->nfiles++] = arg;
	return 0;
}

int cmd_merge(int argc, char **argv)
{
	struct args a = { .files = xcalloc((size_t)argc, sizeof *a.files), .fmt = REPORT_TABLE };
	int status = cli_parse(argc, argv, "merge", options, help, on_opt, on_arg, &a);
	if (status == 0 && a.nfiles == 0) {
		diag_errorf("merge needs the shard files of a sweep");
		fputs(usage_line, stderr);
		status = cli_usage_error("merge");
	}
	const char **files = a.files;
	int nfiles = a.nfiles;
	if (status != 0) {
		free(files);
		return status < 0 ? 0 : status;
	}

	struct scale_table *tabs = xcalloc((size_t)nfiles, sizeof *tabs);
	struct scale_table all;
	struct cli_out out = { .path = a.output };
	int rc = 0;
	scale_table_init(&all);
	for (int i = 0; i < nfiles && rc == 0; i++)
		rc = cli_check_kind(files[i], FILEKIND_SWEEP) ? GS_EINVAL : scale_table_read(files[i], &tabs[i]);
	if (rc == 0)
		rc = scale_table_merge(tabs, files, nfiles, &all);
	if (rc != 0) {
		status = gserr_exit_code(rc);
	} else if ((status = cli_out_open(&out)) == 0) {
		int wr = scale_table_write(out.f ? out.f : stdout, a.fmt, &all);
		if (out.f)
			status = cli_out_commit(&out);
		else if (wr != 0)
			status = 3;
	}
	cli_out_discard(&out);
	for (int i = 0; i < nfiles; i++)
		scale_table_release(&tabs[i]);
	scale_table_release(&all);
	free(tabs);
	free(files);
	return status;
}
