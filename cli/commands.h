/* commands: the subcommands of gpusim. Each takes the arguments after its name (argv[0] is the command name)
 * and returns the process exit status: 0 ok, 1 invalid input or simulation error, 2 usage error,
 * 3 environment problem. Data goes to stdout, diagnostics to stderr. */
#ifndef COMMANDS_H
#define COMMANDS_H

int cmd_predict(int argc, char **argv);    /* cli/cmd_predict.c */
int cmd_presets(int argc, char **argv);    /* cli/cmd_presets.c: list / show built-in hardware presets */
int cmd_scale(int argc, char **argv);      /* cli/cmd_scale.c: scaling sweeps over GPU counts and hardware */
int cmd_merge(int argc, char **argv);      /* cli/cmd_merge.c: join the shards of a sweep */
int cmd_plot(int argc, char **argv);       /* cli/cmd_plot.c: report plots with gnuplot */
int cmd_validate(int argc, char **argv);   /* cli/cmd_validate.c: score predictions against measured runs */
int cmd_plan(int argc, char **argv);       /* cli/cmd_plan.c: search layouts, time-to-train and cost */
int cmd_advise(int argc, char **argv);     /* cli/cmd_advise.c: is another GPU worth it */
/* cmd_calibrate and calibrate_backend: calibrate/calibrate.h (measure GPUs, write a hardware YAML) */
#include "calibrate/calibrate.h"

#endif
