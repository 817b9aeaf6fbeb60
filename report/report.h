/* report: writes a prediction result as a table (people), JSON (one object, docs/output.md) or CSV (one header
 * line and one data line). The writer checks for stream errors, so a full disk is an error, not a short file. */
#ifndef REPORT_H
#define REPORT_H

#include <stdio.h>
#include "sim/predict.h"

enum report_format { REPORT_TABLE, REPORT_JSON, REPORT_CSV };

int report_format_parse(const char *s, enum report_format *out);
/* 0, or GS_EENV when the stream reports a write error. */
int report_write(FILE *f, enum report_format fmt, const struct result *r);

/* report_group_digits: v rounded to an integer with thousands separators, 1234567.8 -> "1,234,568". */
void report_group_digits(double v, char *buf, size_t n);

#endif
