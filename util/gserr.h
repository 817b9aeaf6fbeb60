/* gserr: the error codes every library function returns, and how main maps them to exit codes.
 * Library code returns 0 or one of these negatives; only main() decides the process exit status. */
#ifndef GSERR_H
#define GSERR_H

enum {
	GS_OK = 0,
	GS_EINVAL = -1,  /* invalid input (YAML, scenario, hardware model) or simulation error: exit 1 */
	GS_EUSAGE = -2,  /* command-line usage error: exit 2 */
	GS_EENV = -3,    /* environment problem (no GPU, no driver, cannot write a file): exit 3 */
	GS_ENOMEM = -4,  /* out of memory: exit 3 */
};

/* gserr_exit_code maps a GS_* code to the process exit status (0, 1, 2 or 3). */
int gserr_exit_code(int code);

#endif
