/* xalloc: allocation that cannot fail. On out-of-memory they print "gpusim: out of memory (allocating N bytes)"
 * and abort(), as tmux's xmalloc does, so call sites carry no NULL checks. Memory from them is freed with free(). */
#ifndef XALLOC_H
#define XALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
/* xreallocarray: resize ptr to nmemb*size bytes, dying on overflow as on out-of-memory. */
void *xreallocarray(void *ptr, size_t nmemb, size_t size);
char *xstrdup(const char *s);
/* xstrndup: the first n bytes of s (or fewer, up to a NUL), NUL-terminated. */
char *xstrndup(const char *s, size_t n);

#endif
