/* hwwrite_value: the scalars every section of the writer writes alike (hwwrite_internal.h): quoted strings,
 * numbers in shortest round-trip form, key: value lines, number lists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hardware/hwwrite_internal.h"

/* s as a YAML double-quoted scalar: backslash and quote escaped, control characters as spaces. */
void hww_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fputc('\\', f);
		fputc(c < 0x20 || c == 0x7f ? ' ' : c, f);
	}
	fputc('"', f);
}

/* v with the fewest significant digits (15 to 17) that read back as the same double. */
void hww_num(FILE *f, double v)
{
	char buf[40];
	for (int p = 15; p <= 17; p++) {
		snprintf(buf, sizeof buf, "%.*g", p, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	fputs(buf, f);
}

void hww_kv_num(FILE *f, int indent, const char *key, double v)
{
	fprintf(f, "%*s%s: ", indent, "", key);
	hww_num(f, v);
	fputc('\n', f);
}

void hww_kv_str(FILE *f, int indent, const char *key, const char *v)
{
	fprintf(f, "%*s%s: ", indent, "", key);
	hww_str(f, v);
	fputc('\n', f);
}

void hww_kv_own_source(FILE *f, int indent, const char *v, const char *parent)
{
	if (v[0] && strcmp(v, parent) != 0)
		hww_kv_str(f, indent, "source", v);
}

void hww_list_num(FILE *f, int indent, const char *key, const double *v, long long n)
{
	fprintf(f, "%*s%s: [", indent, "", key);
	for (long long i = 0; i < n; i++) {
		fputs(i ? ", " : "", f);
		hww_num(f, v[i]);
	}
	fputs("]\n", f);
}
