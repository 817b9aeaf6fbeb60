/* gserr: maps the GS_* codes library functions return to the process exit status. The mapping is the one
 * gserr.h documents; any other negative code is treated as invalid input so a stray code never exits 0. */
#include "util/gserr.h"

int gserr_exit_code(int code)
{
	switch (code) {
	case GS_OK:
		return 0;
	case GS_EINVAL:
		return 1;
	case GS_EUSAGE:
		return 2;
	case GS_EENV:
	case GS_ENOMEM:
		return 3;
	default:
		return code > 0 ? 0 : 1;
	}
}
