/* strsim: edit distance on short identifiers (YAML keys, enum values, preset names). It works on a fixed
 * 64x64 table on the stack: identifiers are short, and a longer one is compared on its prefix, which keeps the
 * function allocation-free. */
#include <ctype.h>
#include <string.h>

#include "util/strsim.h"

#define STRSIM_MAX 63

static int min3(int a, int b, int c)
{
	int m = a < b ? a : b;
	return m < c ? m : c;
}

int strsim_distance(const char *a, const char *b)
{
	int la = (int)strlen(a), lb = (int)strlen(b);
	if (la > STRSIM_MAX)
		la = STRSIM_MAX;
	if (lb > STRSIM_MAX)
		lb = STRSIM_MAX;
	int d[STRSIM_MAX + 1][STRSIM_MAX + 1];
	for (int i = 0; i <= la; i++)
		d[i][0] = i;
	for (int j = 0; j <= lb; j++)
		d[0][j] = j;
	for (int i = 1; i <= la; i++) {
		for (int j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
			int cost = ca != cb;
			d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < d[i][j])
				d[i][j] = d[i - 2][j - 2] + 1;
		}
	}
	return d[la][lb];
}

/* p is a prefix of s (ignoring case) and has at least 3 letters. */
static int is_prefix(const char *p, const char *s)
{
	size_t n = strlen(p);
	if (n < 3 || strlen(s) < n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (tolower((unsigned char)p[i]) != tolower((unsigned char)s[i]))
			return 0;
	return 1;
}

const char *strsim_suggest(const char *word, const char *const *candidates)
{
	const char *best = NULL;
	int best_d = 1 << 30;
	int len = (int)strlen(word);
	for (const char *const *c = candidates; c && *c; c++) {
		int d = strsim_distance(word, *c);
		int ok = (d <= 2 && d < len) || is_prefix(word, *c) || is_prefix(*c, word);
		if (ok && d < best_d) {
			best = *c;
			best_d = d;
		}
	}
	return best;
}
