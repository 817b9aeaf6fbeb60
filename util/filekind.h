/* filekind: which of gpusim's own file kinds a file is, from its first few kilobytes, so that a command handed
 * the wrong kind (a trace to `plot efficiency`, a hardware model as a scenario) can name the right command
 * instead of listing the keys the file lacks. Only a sniff: FILEKIND_UNKNOWN means "let the reader decide". */
#ifndef FILEKIND_H
#define FILEKIND_H

#include <stddef.h>

enum filekind {
	FILEKIND_UNKNOWN,
	FILEKIND_SCENARIO,     /* YAML with top-level model: and training: */
	FILEKIND_HARDWARE,     /* YAML with schema: gpusim-hw/1 */
	FILEKIND_PREDICT,      /* gpusim predict (table, json or csv): one prediction */
	FILEKIND_SWEEP,        /* gpusim scale / merge --format json|csv: a sweep table */
	FILEKIND_TRACE,        /* gpusim predict --trace: Chrome trace events */
	FILEKIND_MEASURED,     /* a validate CSV: scenario,measured_... */
};

/* filekind_sniff: the kind of the file at path; FILEKIND_UNKNOWN when it cannot be read or is none of these. */
enum filekind filekind_sniff(const char *path);
/* filekind_sniff_text: the same for the first len bytes of a file. */
enum filekind filekind_sniff_text(const char *text, size_t len);
/* filekind_describe: "a timeline trace (gpusim predict --trace)" and so on. */
const char *filekind_describe(enum filekind k);

#endif
