/* capture: collect what the code under test prints on stderr, to check its messages word for word.
 * cap_begin() redirects file descriptor 2 into a temporary file; cap_end() restores it and returns the text
 * (valid until the next cap_end). Needs _POSIX_C_SOURCE >= 200809L defined before the first include. */
#ifndef CAPTURE_H
#define CAPTURE_H

#include <stdio.h>
#include <unistd.h>

static FILE *cap_file;
static int cap_saved = -1;
static char cap_buf[8192];

static void cap_begin(void)
{
	fflush(stderr);
	cap_file = tmpfile();
	cap_saved = dup(2);
	dup2(fileno(cap_file), 2);
}

static const char *cap_end(void)
{
	fflush(stderr);
	dup2(cap_saved, 2);
	close(cap_saved);
	rewind(cap_file);
	size_t n = fread(cap_buf, 1, sizeof cap_buf - 1, cap_file);
	cap_buf[n] = '\0';
	fclose(cap_file);
	return cap_buf;
}

#endif
