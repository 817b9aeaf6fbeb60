/* calibrate: the `gpusim calibrate` command's entry points, for cli/ (which sits above calibrate/) to call. */
#ifndef CALIBRATE_H
#define CALIBRATE_H

/* cmd_calibrate: `gpusim calibrate ARGS` (argv[0] is the command name); returns the process exit status. */
int cmd_calibrate(int argc, char **argv);
/* 1 when calibrate was compiled with CUDA (calibrate/cmd_calibrate.c), else 0; shown by --version. */
int calibrate_compiled_in(void);

#endif
