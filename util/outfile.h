/* outfile: writing a result file so that a failed or interrupted run never leaves half a file and never
 * replaces what was not a file. For a regular file or a new name the output goes to a temporary file beside the
 * target (a unique name from mkstemp, ".NAME.XXXXXX") that is renamed over it only when everything was written;
 * a device, a FIFO or any other existing non-regular file is written directly (as root, `-o /dev/full` must not
 * rename a temporary over the device node); "-" is standard output. A temporary is removed on failure, on
 * outfile_discard, and on SIGINT or SIGTERM (outfile_open installs handlers that remove the open temporaries
 * and then die of the signal as before). */
#ifndef OUTFILE_H
#define OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

struct outfile {
	const char *path;   /* as given; "-": standard output */
	char tmp[4096];     /* the temporary's name, "" when writing directly */
	FILE *f;            /* where to write; NULL when not open */
};

/* outfile_open: 0, or GS_EENV after "gpusim: cannot open 'PATH' for writing: why". */
int outfile_open(struct outfile *o, const char *path);
/* outfile_commit: flush and close (standard output: flush only) and rename the temporary into place; 0, or
 * GS_EENV after "gpusim: cannot write 'PATH': why" (the temporary removed). */
int outfile_commit(struct outfile *o);
/* outfile_discard: close and remove the temporary, if open (after a failure). */
void outfile_discard(struct outfile *o);

#endif
