/* outfile: atomic result files (see outfile.h). */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen, sigaction */
#include "util/outfile.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/diag.h"
#include "util/gserr.h"

/* The temporaries open now, for the signal handler. This is the one piece of process-wide state in gpusim: a
 * handler for SIGINT can reach nothing else. Slots hold copies of the names; a slot is free when empty. */
#define OUTFILE_SLOTS 8
static char pending[OUTFILE_SLOTS][4096];
static volatile sig_atomic_t handlers_set;

static void on_signal(int sig)
{
	for (int i = 0; i < OUTFILE_SLOTS; i++)
		if (pending[i][0])
			unlink(pending[i]);  /* async-signal-safe */
	signal(sig, SIG_DFL);
	raise(sig);
}

static void watch(const char *tmp)
{
	if (!handlers_set) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		handlers_set = 1;
	}
	for (int i = 0; i < OUTFILE_SLOTS; i++)
		if (!pending[i][0]) {
			snprintf(pending[i], sizeof pending[i], "%s", tmp);
			return;
		}
}

static void unwatch(const char *tmp)
{
	for (int i = 0; i < OUTFILE_SLOTS; i++)
		if (pending[i][0] && strcmp(pending[i], tmp) == 0)
			pending[i][0] = '\0';
}

int outfile_open(struct outfile *o, const char *path)
{
	memset(o, 0, sizeof *o);
	o->path = path;
	if (strcmp(path, "-") == 0) {
		o->f = stdout;
		return 0;
	}
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* a device, a FIFO, a socket: written in place, never replaced */
		if (!(o->f = fopen(path, "w"))) {
			diag_errorf("cannot open '%s' for writing: %s", path, strerror(errno));
			return GS_EENV;
		}
		return 0;
	}
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path + 1) : 0;
	if (snprintf(o->tmp, sizeof o->tmp, "%.*s.%s.XXXXXX", dirlen, path, path + dirlen) >= (int)sizeof o->tmp) {
		o->tmp[0] = '\0';
		diag_errorf("cannot open '%s' for writing: name too long", path);
		return GS_EENV;
	}
	int fd = mkstemp(o->tmp);
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		diag_errorf("cannot open '%s' for writing: %s", path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(o->tmp);
		}
		o->tmp[0] = '\0';
		return GS_EENV;
	}
	mode_t mask = umask(0);  /* mkstemp makes 0600: give the file the mode fopen would have */
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	watch(o->tmp);
	return 0;
}

int outfile_commit(struct outfile *o)
{
	if (!o->f)
		return 0;
	int bad = ferror(o->f), rc;
	errno = 0;
	if (o->f == stdout) {
		rc = fflush(stdout);
		o->f = NULL;
	} else {
		rc = fclose(o->f);
		o->f = NULL;
	}
	if (bad || rc != 0) {
		diag_errorf("cannot write '%s': %s", o->path, errno ? strerror(errno) : "write error");
		if (o->tmp[0]) {
			unlink(o->tmp);
			unwatch(o->tmp);
		}
		return GS_EENV;
	}
	if (o->tmp[0]) {
		if (rename(o->tmp, o->path) != 0) {
			diag_errorf("cannot write '%s': %s", o->path, strerror(errno));
			unlink(o->tmp);
			unwatch(o->tmp);
			return GS_EENV;
		}
		unwatch(o->tmp);
	}
	return 0;
}

void outfile_discard(struct outfile *o)
{
	if (!o->f)
		return;
	if (o->f != stdout)
		fclose(o->f);
	o->f = NULL;
	if (o->tmp[0]) {
		unlink(o->tmp);
		unwatch(o->tmp);
	}
}
