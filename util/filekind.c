/* filekind: sniff gpusim's own file kinds (see filekind.h). */
#include "util/filekind.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define SNIFF_BYTES 8192

/* needle within the first len bytes of text (text need not be NUL-terminated) */
static bool has(const char *text, size_t len, const char *needle)
{
	size_t n = strlen(needle);
	for (size_t i = 0; i + n <= len; i++)
		if (memcmp(text + i, needle, n) == 0)
			return true;
	return false;
}

/* a line of text that starts with key (YAML top-level key or CSV header) */
static bool line_starts(const char *text, size_t len, const char *key)
{
	size_t n = strlen(key);
	for (size_t i = 0; i + n <= len; i++)
		if ((i == 0 || text[i - 1] == '\n') && memcmp(text + i, key, n) == 0)
			return true;
	return false;
}

static const char *skip_space(const char *t, const char *end)
{
	while (t < end && (*t == ' ' || *t == '\t' || *t == '\r' || *t == '\n'))
		t++;
	return t;
}

enum filekind filekind_sniff_text(const char *text, size_t len)
{
	const char *first = skip_space(text, text + len);
	if (first < text + len && *first == '{') {
		if (has(text, len, "\"traceEvents\""))
			return FILEKIND_TRACE;
		if (has(text, len, "\"sweep\"") && has(text, len, "\"rows\""))
			return FILEKIND_SWEEP;
		if (has(text, len, "\"step_time_s\""))
			return FILEKIND_PREDICT;
		return FILEKIND_UNKNOWN;
	}
	if (line_starts(text, len, "sweep,scenario,mode,"))
		return FILEKIND_SWEEP;
	if (line_starts(text, len, "scenario,hardware,gpus,step_time_s,"))
		return FILEKIND_PREDICT;
	/* predict's table for people: "scenario   NAME", "hardware   NAME", "gpus   N (dp ...)" */
	if (line_starts(text, len, "scenario ") && line_starts(text, len, "hardware ") && line_starts(text, len, "gpus "))
		return FILEKIND_PREDICT;
	if (line_starts(text, len, "scenario,measured_"))
		return FILEKIND_MEASURED;
	if (line_starts(text, len, "schema: gpusim-hw/"))
		return FILEKIND_HARDWARE;
	if (line_starts(text, len, "model:") && line_starts(text, len, "training:"))
		return FILEKIND_SCENARIO;
	return FILEKIND_UNKNOWN;
}

enum filekind filekind_sniff(const char *path)
{
	char buf[SNIFF_BYTES];
	FILE *f = fopen(path, "rb");
	if (!f)
		return FILEKIND_UNKNOWN;
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	return filekind_sniff_text(buf, n);
}

const char *filekind_describe(enum filekind k)
{
	switch (k) {
	case FILEKIND_SCENARIO: return "a scenario (a job description)";
	case FILEKIND_HARDWARE: return "a hardware model (gpusim-hw)";
	case FILEKIND_PREDICT: return "one prediction (gpusim predict)";
	case FILEKIND_SWEEP: return "a sweep table (gpusim scale or merge)";
	case FILEKIND_TRACE: return "a timeline trace (gpusim predict --trace)";
	case FILEKIND_MEASURED: return "a table of measured runs (gpusim validate's input)";
	case FILEKIND_UNKNOWN: break;
	}
	return "a file of unknown kind";
}
