/* diag: formats diagnostics into one buffer and writes them with a single fputs, so a message is one line on
 * stderr even when several simulations write at once. */
#include <stdio.h>

#include "util/diag.h"
#include "util/gserr.h"

int diag_verror(const char *file, int line, int col, const char *fmt, va_list ap)
{
	char where[640] = "", msg[1024];
	if (file && line > 0 && col > 0)
		snprintf(where, sizeof where, "%s:%d:%d: ", file, line, col);
	else if (file && line > 0)
		snprintf(where, sizeof where, "%s:%d: ", file, line);
	else if (file)
		snprintf(where, sizeof where, "%s: ", file);
	vsnprintf(msg, sizeof msg, fmt, ap);
	char out[1800];
	snprintf(out, sizeof out, "gpusim: %s%s\n", where, msg);
	fputs(out, stderr);
	return GS_EINVAL;
}

int diag_error(const char *file, int line, int col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = diag_verror(file, line, col, fmt, ap);
	va_end(ap);
	return rc;
}

int diag_errorf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = diag_verror(NULL, 0, 0, fmt, ap);
	va_end(ap);
	return rc;
}

void diag_warning(const char *fmt, ...)
{
	char msg[1024], out[1100];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(out, sizeof out, "gpusim: warning: %s\n", msg);
	fputs(out, stderr);
}
