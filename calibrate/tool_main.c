/* gpusim-calibrate: `gpusim calibrate` as a program of its own, for machines or trees where the simulator is not
 * built (see calibrate/CMakeLists.txt). Same options, same output. */
#include "calibrate/calibrate.h"

int main(int argc, char **argv)
{
	return cmd_calibrate(argc, argv);
}
