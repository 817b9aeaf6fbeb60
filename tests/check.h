/* check: typed test asserts that print both values and file:line, and keep going so one run shows every
 * failure. A test file's main returns check_result(): 0 when all passed, 1 otherwise. */
#ifndef CHECK_H
#define CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_failures_;
static int check_count_;

#define CHECK(cond) do { check_count_++; if (!(cond)) { check_failures_++; \
	fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); } } while (0)
#define CHECK_INT(a, b) do { long long a_ = (a), b_ = (b); check_count_++; if (a_ != b_) { check_failures_++; \
	fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", __FILE__, __LINE__, #a, a_, #b, b_); } } while (0)
/* relative tolerance rel (e.g. 1e-9); also passes when both are within 1e-300 of zero */
#define CHECK_NEAR(a, b, rel) do { double a_ = (a), b_ = (b); check_count_++; \
	if (!(fabs(a_ - b_) <= (rel) * fmax(fabs(a_), fabs(b_)) || fabs(a_ - b_) < 1e-300)) { check_failures_++; \
	fprintf(stderr, "%s:%d: %s == %.12g, expected %s == %.12g (rel tol %g)\n", __FILE__, __LINE__, \
		#a, a_, #b, b_, (double)(rel)); } } while (0)
/* Simulated times are whole ticks of 2^-40 s (sim/engine.c), each instruction's duration rounded by at most half
 * a tick (0.45 ps): a simulated sum of tens of microsecond instructions matches the hand sum in doubles to
 * TICK_REL, and a difference of two simulated steps (each a few ticks off) is checked in ticks, CHECK_TICKS(a, b,
 * n): |a - b| <= n ticks. */
#define TICK_REL 1e-9
#define TICK_S 0x1p-40
#define CHECK_TICKS(a, b, n) do { double a_ = (a), b_ = (b); check_count_++; \
	if (!(fabs(a_ - b_) <= (n) * TICK_S)) { check_failures_++; \
	fprintf(stderr, "%s:%d: %s == %.12g, expected %s == %.12g (within %d ticks of 2^-40 s)\n", __FILE__, \
		__LINE__, #a, a_, #b, b_, (int)(n)); } } while (0)
#define CHECK_STR(a, b) do { const char *a_ = (a), *b_ = (b); check_count_++; \
	if (!a_ || !b_ || strcmp(a_, b_) != 0) { check_failures_++; \
	fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #a, a_ ? a_ : "(null)", \
		b_ ? b_ : "(null)"); } } while (0)
#define CHECK_CONTAINS(hay, needle) do { const char *h_ = (hay), *n_ = (needle); check_count_++; \
	if (!h_ || !strstr(h_, n_)) { check_failures_++; \
	fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__, h_ ? h_ : "(null)", n_); } \
	} while (0)

static inline int check_result(void)
{
	printf("%d checks, %d failed\n", check_count_, check_failures_);
	return check_failures_ ? 1 : 0;
}

#endif
