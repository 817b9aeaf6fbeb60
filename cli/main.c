/* main: the gpusim front door. Finds the command in the table below (git's builtin table: one file per command),
 * runs it, then flushes stdout: a write error there (full disk, closed pipe reader) turns into exit 3, so a short
 * output never comes with exit 0. The general help is generated from the table, so a new command only needs its
 * line here. */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "cli/cli.h"
#include "util/diag.h"
#include "util/strsim.h"
#include "cli/commands.h"

#ifndef GPUSIM_VERSION
#define GPUSIM_VERSION "unknown"
#endif

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;  /* one line for the command list */
	const char *usage;    /* arguments, after "gpusim <name>" */
};

static int cmd_help(int argc, char **argv);

static const struct command commands[] = {
	{"predict", cmd_predict, "predict step time, throughput and memory of a training job",
	 "SCENARIO.yaml [--hw FILE|PRESET] [--gpus N] [--format table|json|csv] [-o FILE] [--all-ranks] "
	 "[--trace FILE]"},
	{"scale", cmd_scale, "predict a job at many GPU counts and hardware models: scaling table",
	 "SCENARIO.yaml --gpus LIST [--hw FILE|PRESET ...] [--mode strong|weak] [--format table|csv|json] "
	 "[-o FILE] [--shard I/N]"},
	{"merge", cmd_merge, "join the shards of a scaling sweep into one table",
	 "SHARD... [--format table|csv|json] [-o FILE]"},
	{"plot", cmd_plot, "draw a scaling sweep or a step's timeline with gnuplot (png, svg, pdf)",
	 "efficiency|throughput|breakdown|compare SWEEP.csv|SWEEP.json, or timeline TRACE.json; -o FILE.png|.svg|.pdf"},
	{"plan", cmd_plan, "search the fastest layouts; time to train and cost of GPU counts and hardware models",
	 "SCENARIO.yaml --gpus LIST [--hw FILE|PRESET ...] [--tokens T] [--price USD] [--by time|cost] [--top K] "
	 "[--report DIR]"},
	{"advise", cmd_advise, "is another GPU worth it: the best layout on 1, 2, 4, ... GPUs, and why it stops paying",
	 "SCENARIO.yaml [--hw FILE|PRESET] [--max-gpus N] [--format table|csv|json]"},
	{"presets", cmd_presets, "list the built-in hardware models, or print one as YAML", "[show NAME]"},
	{"validate", cmd_validate, "compare predictions with measured step times",
	 "MEASURED.csv [--hw FILE|PRESET] [--format table|csv|json] [options]"},
	{"calibrate", cmd_calibrate, "measure this machine's GPUs and write a hardware model",
	 "[-o FILE] [--quick] [--base PRESET|FILE] [options]"},
	{"help", cmd_help, "show the help of gpusim or of one command", "[COMMAND]"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static const struct command *find(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static void general_help(FILE *f)
{
	fputs("usage: gpusim <command> [arguments]\n"
	      "       gpusim --help | --version\n"
	      "\n"
	      "gpusim predicts the step time of distributed (data, tensor and pipeline parallel) training with a\n"
	      "discrete-event simulation of every micro-batch, layer and collective on a hardware model.\n"
	      "\n"
	      "commands:\n", f);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-11s %s\n", commands[i].name, commands[i].summary);
	fputs("\nusage of each command:\n", f);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  gpusim %s %s\n", commands[i].name, commands[i].usage);
	fputs("\n"
	      "example:\n"
	      "  gpusim predict scenarios/70b_64gpu.yaml --format json\n"
	      "\n"
	      "'gpusim help <command>' or 'gpusim <command> --help' explains a command and its options.\n"
	      "exit status: 0 ok, 1 invalid input or simulation error, 2 usage error, 3 environment problem\n"
	      "(a file that cannot be read or written, no GPU for calibrate).\n", f);
}

static void version(void)
{
	printf("gpusim %s\n", GPUSIM_VERSION);
	printf("calibrate: %s\n", calibrate_backend());
}

static int unknown_command(const char *name)
{
	const char *names[NCOMMANDS + 1];
	for (size_t i = 0; i < NCOMMANDS; i++)
		names[i] = commands[i].name;
	names[NCOMMANDS] = NULL;
	const char *s = strsim_suggest(name, names);
	if (s)
		diag_errorf("'%s' is not a gpusim command (did you mean '%s'?)", name, s);
	else
		diag_errorf("'%s' is not a gpusim command (see 'gpusim --help')", name);
	return 2;
}

/* help [COMMAND]: the general help, or the command's own --help. */
static int cmd_help(int argc, char **argv)
{
	if (argc < 2 || cli_is_help(argv[1])) {
		general_help(stdout);
		return 0;
	}
	if (argc > 2) {
		diag_errorf("help takes one command name (see 'gpusim --help')");
		return 2;
	}
	const struct command *c = find(argv[1]);
	if (!c)
		return unknown_command(argv[1]);
	if (c->fn == cmd_help) {
		general_help(stdout);
		return 0;
	}
	char help_opt[] = "--help";
	char *sub[] = {argv[1], help_opt, NULL};
	return c->fn(2, sub);
}

/* The command's status, or 3 when stdout could not be written in full. */
static int finish(int status)
{
	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno)
			diag_errorf("cannot write to standard output: %s", strerror(errno));
		else
			diag_errorf("cannot write to standard output");
		return 3;
	}
	return status;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		general_help(stderr);
		return 2;
	}
	const char *name = argv[1];
	if (cli_is_help(name))
		return finish(cmd_help(1, argv + 1));
	if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
		version();
		return finish(0);
	}
	if (name[0] == '-') {
		diag_errorf("unknown option '%s' (see 'gpusim --help')", name);
		return 2;
	}
	const struct command *c = find(name);
	if (!c)
		return unknown_command(name);
#ifdef __GLIBC__
	/* A prediction allocates and frees each simulation's tables (a few MB) several times over: from the heap,
	 * kept there, instead of mmap'd and unmapped each time, the pages are not faulted in again (70b_64gpu:
	 * 683 -> 494 page faults; docs/performance.md). Freed memory above 64 MB still goes back to the system. */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
	return finish(c->fn(argc - 1, argv + 1));
}
