/* xalloc: malloc wrappers that abort with the size they could not get. Zero-size requests allocate one byte so
 * a successful call never returns NULL. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static void oom(size_t nmemb, size_t size)
{
	if (nmemb == 1)
		fprintf(stderr, "gpusim: out of memory (allocating %zu bytes)\n", size);
	else
		fprintf(stderr, "gpusim: out of memory (allocating %zu * %zu bytes)\n", nmemb, size);
	abort();
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		oom(1, size);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	if (nmemb == 0 || size == 0)
		nmemb = size = 1;
	void *p = calloc(nmemb, size);
	if (!p)
		oom(nmemb, size);
	return p;
}

void *xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	if (nmemb && size > SIZE_MAX / nmemb)
		oom(nmemb, size);
	size_t total = nmemb * size;
	void *p = realloc(ptr, total ? total : 1);
	if (!p)
		oom(nmemb, size);
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	return xreallocarray(ptr, 1, size);
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xmalloc(n), s, n);
}

char *xstrndup(const char *s, size_t n)
{
	size_t len = 0;
	while (len < n && s[len])
		len++;
	char *p = xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}
