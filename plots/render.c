/* render: runs gnuplot on a plot's script in the image's folder and checks that it wrote the image (plot.h). */
#define _POSIX_C_SOURCE 200809L /* fork, execvp, waitpid, pipe; fcntl for FD_CLOEXEC */
#include "plots/plot.h"
#include "plots/plot_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/diag.h"
#include "util/gserr.h"

int plot_render(const struct plot_files *pf, const char *program, int *not_found)
{
	*not_found = 0;
	/* exec failure travels back through a close-on-exec pipe: nothing read means gnuplot started */
	int fds[2];
	if (pipe(fds) != 0) {
		diag_errorf("cannot start gnuplot: %s", strerror(errno));
		return GS_EENV;
	}
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		diag_errorf("cannot start gnuplot: %s", strerror(errno));
		return GS_EENV;
	}
	if (pid == 0) {
		close(fds[0]);
		int e = 0;
		if (chdir(pf->dir) != 0)
			e = errno;
		else {
			char *argv[] = { (char *)program, (char *)plot_base_name(pf->script), NULL };
			execvp(program, argv);
			e = errno;
		}
		if (write(fds[1], &e, sizeof e) < 0)
			_exit(126);
		_exit(127);
	}
	close(fds[1]);
	int e = 0;
	ssize_t got = read(fds[0], &e, sizeof e);
	close(fds[0]);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (got == (ssize_t)sizeof e) {
		*not_found = e == ENOENT;
		diag_errorf("cannot run '%s': %s", program, strerror(e));
		return GS_EENV;
	}
	struct stat sb;
	bool ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
	if (!ok || stat(pf->image, &sb) != 0 || sb.st_size == 0) {
		if (ok)
			diag_errorf("gnuplot wrote no image to '%s'", pf->image);
		else if (WIFEXITED(st))
			diag_errorf("gnuplot failed on '%s' (exit status %d; its message is above)", pf->script,
				    WEXITSTATUS(st));
		else
			diag_errorf("gnuplot was killed by signal %d", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
		remove(pf->image);
		return GS_EINVAL;
	}
	return 0;
}
