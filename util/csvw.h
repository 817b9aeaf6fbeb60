/* csvw: writing CSV cells as util/csvr.h reads them back (RFC 4180). */
#ifndef CSVW_H
#define CSVW_H

#include <stdio.h>

/* csvw_cell: s as a CSV cell: quoted only when it holds a comma, a quote or a line break (quotes doubled);
 * nothing for NULL. */
void csvw_cell(FILE *f, const char *s);

#endif
