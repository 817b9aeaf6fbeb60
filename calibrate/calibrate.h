/* calibrate: the `gpusim calibrate` command's entry points, for cli/ (which sits above calibrate/) to call. */
#ifndef CALIBRATE_H
#define CALIBRATE_H

/* cmd_calibrate: `gpusim calibrate ARGS` (argv[0] is the command name); returns the process exit status. */
int cmd_calibrate(int argc, char **argv);
/* How calibrate measures, for --version: "compiled in (CUDA module ...)" or "not compiled in (...)"
 * (calibrate/loader.c in gpusim, calibrate/tool_main.c in gpusim-calibrate); loads nothing. */
const char *calibrate_backend(void);

#endif
