/* diag: the one error format of gpusim, on stderr: "gpusim: file:line:col: message" for a place in an input
 * file, "gpusim: message" otherwise, "gpusim: warning: message" for warnings. Messages are lowercase, the
 * problem first, no trailing period. The error functions return GS_EINVAL for `return diag_error(...);`. */
#ifndef DIAG_H
#define DIAG_H

#include <stdarg.h>

#if defined(__GNUC__)
#define DIAG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define DIAG_PRINTF(f, a)
#endif

#ifdef __cplusplus  /* cuda/ is compiled as CUDA C++ */
extern "C" {
#endif

/* diag_error: "gpusim: file:line:col: msg"; line or col <= 0 are left out ("file: msg", "file:line: msg"),
 * file NULL gives "gpusim: msg". Returns GS_EINVAL. */
int diag_error(const char *file, int line, int col, const char *fmt, ...) DIAG_PRINTF(4, 5);
int diag_verror(const char *file, int line, int col, const char *fmt, va_list ap);
/* diag_errorf: "gpusim: msg". Returns GS_EINVAL. */
int diag_errorf(const char *fmt, ...) DIAG_PRINTF(1, 2);
/* diag_warning: "gpusim: warning: msg". */
void diag_warning(const char *fmt, ...) DIAG_PRINTF(1, 2);

#ifdef __cplusplus
}
#endif

#endif
