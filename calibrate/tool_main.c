/* gpusim-calibrate: `gpusim calibrate` as a program of its own, for machines or trees where the simulator is not
 * built (see calibrate/CMakeLists.txt). Same options, same output. It links the measuring code directly (no
 * module to load) and has no simulator: calibrate/core_stubs.c stands in for the presets and scenarios. */
#include "calibrate/calibrate.h"
#include "calibrate/module.h"

const char *calibrate_backend(void)
{
	return "compiled in (CUDA, linked)";
}

int calibrate_measure(const struct cal_opts *o)
{
	return calibrate_run(o);
}

int main(int argc, char **argv)
{
	return cmd_calibrate(argc, argv);
}
