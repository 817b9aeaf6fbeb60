/* torchprobe: run a PyTorch probe compiled into gpusim and parse its output (see torchprobe.h). */
#define _POSIX_C_SOURCE 200809L  /* mkstemp, fdopen, fork */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "calibrate/torchprobe.h"
#include "util/diag.h"
#include "util/gserr.h"

#define MAX_ARGS 16

int torchprobe_run(const char *script, const char *what, const char *file, const char *const *args,
		   torchprobe_parse_fn parse, struct calib *c)
{
	char path[] = "/tmp/gpusim-probe-XXXXXX";
	const char *py = "python3";
	int fd = mkstemp(path), pfd[2] = {-1, -1}, rc = 0, status = 0;
	if (fd < 0) {
		diag_errorf("%s: cannot create a temporary file: %s", what, strerror(errno));
		return GS_EENV;
	}
	size_t len = strlen(script);
	if (write(fd, script, len) != (ssize_t)len) {
		diag_errorf("%s: cannot write %s: %s", what, path, strerror(errno));
		close(fd);
		unlink(path);
		return GS_EENV;
	}
	close(fd);
	if (pipe(pfd) != 0) {
		diag_errorf("%s: pipe: %s", what, strerror(errno));
		unlink(path);
		return GS_EENV;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		diag_errorf("%s: fork: %s", what, strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		unlink(path);
		return GS_EENV;
	}
	if (pid == 0) {
		char *argv[MAX_ARGS + 3];
		int n = 0;
		argv[n++] = (char *)py;
		argv[n++] = path;
		for (int i = 0; args && args[i] && n < MAX_ARGS + 2; i++)
			argv[n++] = (char *)args[i];
		argv[n] = NULL;
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		execvp(py, argv);
		fprintf(stderr, "gpusim: %s: cannot run '%s': %s\n", what, py, strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	FILE *f = fdopen(pfd[0], "r");
	if (!f) {
		close(pfd[0]);
		rc = GS_EENV;
	} else {
		char name[96];
		snprintf(name, sizeof name, "%s output", file);
		rc = parse(f, name, c);
		fclose(f);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	unlink(path);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		diag_errorf("%s: '%s %s' failed (exit %d): it needs PyTorch with CUDA", what, py, file,
			    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return GS_EENV;
	}
	return rc == GS_EINVAL ? GS_EENV : rc;
}
