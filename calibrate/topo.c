/* topo: `nvidia-smi topo -m` reading and parsing (see topo.h). */
#define _POSIX_C_SOURCE 200809L  /* popen */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "calibrate/topo.h"

/* a copy of text without ANSI escape sequences (nvidia-smi underlines the header even into a pipe) */
static char *strip_ansi(const char *text)
{
	char *out = malloc(strlen(text) + 1), *o = out;
	if (!out)
		return NULL;
	for (const char *p = text; *p; p++) {
		if (*p == '\033' && p[1] == '[') {
			p += 2;
			while (*p && !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
				p++;
			if (!*p)
				break;
			continue;
		}
		*o++ = *p;
	}
	*o = 0;
	return out;
}

int topo_read(char *buf, size_t len)
{
	FILE *p = popen("nvidia-smi topo -m 2>/dev/null", "r");
	size_t got = 0, n;
	buf[0] = 0;
	if (!p)
		return -1;
	while (got + 1 < len && (n = fread(buf + got, 1, len - 1 - got, p)) > 0)
		got += n;
	buf[got] = 0;
	if (pclose(p) != 0 || got == 0) {
		buf[0] = 0;
		return -1;
	}
	/* stored as text: without the escape codes nvidia-smi writes even into a pipe */
	char *clean = strip_ansi(buf);
	if (clean) {
		snprintf(buf, len, "%s", clean);
		free(clean);
	}
	return 0;
}

/* next whitespace-separated token of a line; NULL at its end */
static const char *token(const char **s, size_t *len)
{
	const char *p = *s;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '\n') {
		*s = p;
		return NULL;
	}
	const char *t = p;
	while (*p && *p != ' ' && *p != '\t' && *p != '\n')
		p++;
	*len = (size_t)(p - t);
	*s = p;
	return t;
}

static int gpu_index(const char *t, size_t len)
{
	if (len < 4 || strncmp(t, "GPU", 3) != 0)
		return -1;
	int v = 0;
	for (size_t i = 3; i < len; i++) {
		if (t[i] < '0' || t[i] > '9')
			return -1;
		v = v * 10 + (t[i] - '0');
	}
	return v;
}

int topo_parse(const char *raw, int n, int nv[CAL_MAX_GPUS][CAL_MAX_GPUS])
{
	int cols[CAL_MAX_GPUS * 2], ncols = -1, rows = 0;
	char *text;
	if (n > CAL_MAX_GPUS)
		n = CAL_MAX_GPUS;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			nv[i][j] = -1;
	if (!(text = strip_ansi(raw)))
		return 0;
	for (const char *line = text; line && *line; ) {
		const char *next = strchr(line, '\n');
		const char *s = line, *t;
		size_t len = 0;
		t = token(&s, &len);
		if (t && ncols < 0 && gpu_index(t, len) == 0) {
			/* the header: GPU0 GPU1 ... then other columns */
			ncols = 0;
			do {
				int g = gpu_index(t, len);
				if (g < 0 || ncols >= (int)(sizeof cols / sizeof cols[0]))
					break;
				cols[ncols++] = g;
			} while ((t = token(&s, &len)));
		} else if (t && ncols > 0) {
			int r = gpu_index(t, len);
			if (r < 0) {
				if (len == 6 && strncmp(t, "Legend", 6) == 0)
					break;
			} else if (r < n) {
				rows++;
				for (int c = 0; c < ncols && (t = token(&s, &len)); c++) {
					int g = cols[c];
					if (g >= n)
						continue;
					if (len == 1 && t[0] == 'X')
						nv[r][g] = 0;
					else if (len > 2 && t[0] == 'N' && t[1] == 'V')
						nv[r][g] = atoi(t + 2);
					else
						nv[r][g] = 0;
				}
			}
		}
		line = next ? next + 1 : NULL;
	}
	free(text);
	return rows;
}
