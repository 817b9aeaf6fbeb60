/* slurp: whole files (see slurp.h). */
#include "util/slurp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/gserr.h"
#include "util/xalloc.h"

char *slurp_file(const char *path, size_t *len, int *err)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		diag_errorf("cannot open '%s': %s", path, strerror(errno));
		*err = GS_EENV;
		return NULL;
	}
	size_t cap = 1 << 16, n = 0, got;
	char *buf = xmalloc(cap);
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (n == cap - 1) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		diag_errorf("cannot read '%s'", path);
		*err = GS_EENV;
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}
