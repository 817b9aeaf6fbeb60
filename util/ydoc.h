/* ydoc: a YAML file loaded with libyaml into a read-only tree of maps, sequences and scalars in which every key
 * and value keeps its 1-based line and column, plus typed getters that check a value and report any problem as
 * "gpusim: file:line:col: message" at the value's place (at the map's place for a missing key).
 *
 * Invariants of a loaded tree: one document; map keys are scalars and unique within their map; aliases are
 * expanded into copies (so the tree is a tree), counted before they are made: a file of more than 50,000 values
 * (alias copies included: a "billion laughs" file) is an error, whatever keys it uses; every node knows its dotted path ("gpu.gemm.tables[0].m").
 *
 * The getters share one convention: they return 1 when the key is present and its value valid (*out set),
 * 0 when it is absent and not required (*out untouched: preset it to the default), GS_EINVAL after printing an
 * error (which also increments ydoc_errors). A NULL map (a parent that was absent or wrong, already reported)
 * reads as absent and is never reported again, so callers can check every key without cascading errors. */
#ifndef YDOC_H
#define YDOC_H

#include <stdbool.h>
#include <stddef.h>

struct ydoc;   /* opaque: the tree, its file name and its error count */
struct ynode;  /* opaque: one node, owned by its ydoc */

enum ynode_kind { YNODE_SCALAR, YNODE_MAP, YNODE_SEQ };

/* Getter flags. */
enum {
	YD_REQUIRED = 1,  /* absent: "missing required key 'model.layers'" at the map's position */
	YD_POSITIVE = 2,  /* numbers: > 0 */
	YD_NONNEG = 4,    /* numbers: >= 0 */
};

/* ydoc_load_file: read and parse path. NULL on failure after printing the error; *err is GS_EENV when the file
 * cannot be read, GS_EINVAL for a syntax error or an empty file. The caller frees with ydoc_free. */
struct ydoc *ydoc_load_file(const char *path, int *err);
/* ydoc_load_string: parse len bytes of text; name is the file name used in messages. */
struct ydoc *ydoc_load_string(const char *name, const char *text, size_t len, int *err);
void ydoc_free(struct ydoc *d);

const char *ydoc_file(const struct ydoc *d);
const struct ynode *ydoc_root(const struct ydoc *d);
/* errors reported through this document so far (getters and ydoc_error) */
int ydoc_errors(const struct ydoc *d);

/* ydoc_error: print "gpusim: file:line:col: msg" at node n (n NULL: at 1:1), count it, return GS_EINVAL. */
int ydoc_error(struct ydoc *d, const struct ynode *n, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
/* ydoc_error_arg: an error in a command-line value that overrides this document ("gpusim: msg", no position in the
 * file, which is not at fault), counted with the document's errors. */
int ydoc_error_arg(struct ydoc *d, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
/* ydoc_error_at: the same at an explicit position. */
int ydoc_error_at(struct ydoc *d, int line, int col, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;

/* Node accessors; n may be NULL for all of them (kind -1, len 0, strings NULL, position 0). */
int ynode_kind(const struct ynode *n);
int ynode_line(const struct ynode *n);
int ynode_col(const struct ynode *n);
const char *ynode_path(const struct ynode *n);  /* "" for the root */
const char *ynode_str(const struct ynode *n);   /* scalar text, else NULL */
bool ynode_is_null(const struct ynode *n);      /* plain "", "~", "null" */
int ynode_len(const struct ynode *n);           /* items of a sequence, pairs of a map, 0 for a scalar */
const struct ynode *ynode_item(const struct ynode *n, int i);  /* i-th item or i-th value */
const char *ynode_key(const struct ynode *map, int i);
int ynode_key_line(const struct ynode *map, int i);
int ynode_key_col(const struct ynode *map, int i);
/* ynode_get: the value of key in map, or NULL (also when map is not a map). */
const struct ynode *ynode_get(const struct ynode *map, const char *key);
/* ynode_describe: "a mapping", "a sequence", "null", or the scalar quoted ('abc'), for "got ..." messages;
 * writes into buf and returns it. */
const char *ynode_describe(const struct ynode *n, char *buf, size_t size);

/* ydoc_check_keys: report every key of map not in allowed (NULL-terminated) as
 * "unknown key 'hiden' (did you mean 'hidden'?)" at the key's position. Returns 0 or GS_EINVAL. */
int ydoc_check_keys(struct ydoc *d, const struct ynode *map, const char *const *allowed);

/* Physical ranges: every number a getter reads must lie in the range of its path, else it is an error
 * ("model.layers: 1e9 is out of range (1 to 100000)"). path is a dotted path where "[]" stands for any index
 * ("gpu.gemm.tables[].m[]") and "*" for any one key ("collectives.*.*.lines[].bus_gbps"); the first entry that
 * matches wins; a number whose path no entry names must lie in
 * [-YDOC_DEFAULT_MAX, YDOC_DEFAULT_MAX]. The table is NULL-terminated (path NULL) and must outlive the document. */
struct yrange {
	const char *path;
	double lo, hi;  /* inclusive */
};
#define YDOC_DEFAULT_MAX 1e15
void ydoc_set_ranges(struct ydoc *d, const struct yrange *ranges);
/* ydoc_range_of: the range for a dotted path (with indices); the default when the table names none. */
struct yrange ydoc_range_of(const struct ydoc *d, const char *path);

/* Typed getters (see the convention above). Numbers accept 8, -3, 1.5, 1e9, 25e6; an int must be integral and
 * fit an int; quoted scalars are strings, never numbers. Booleans: true/false, yes/no, on/off (any case). */
int ydoc_int(struct ydoc *d, const struct ynode *map, const char *key, unsigned flags, int *out);
int ydoc_double(struct ydoc *d, const struct ynode *map, const char *key, unsigned flags, double *out);
int ydoc_bool(struct ydoc *d, const struct ynode *map, const char *key, unsigned flags, bool *out);
/* ydoc_string: copies into buf (size bytes with the NUL); a longer value is an error. Plain scalars (8, true)
 * read as their text. */
int ydoc_string(struct ydoc *d, const struct ynode *map, const char *key, unsigned flags, char *buf, size_t size);
/* ydoc_enum: *out = index of the value in names (NULL-terminated); an unknown value is reported with the
 * accepted names and a did-you-mean. */
int ydoc_enum(struct ydoc *d, const struct ynode *map, const char *key, unsigned flags, const char *const *names,
	      int *out);
/* ydoc_map / ydoc_seq: the value when it is a mapping / sequence ("expected a mapping, got a sequence"). */
int ydoc_map(struct ydoc *d, const struct ynode *map, const char *key, unsigned flags, const struct ynode **out);
int ydoc_seq(struct ydoc *d, const struct ynode *map, const char *key, unsigned flags, const struct ynode **out);
/* ydoc_doubles: a sequence of numbers, each checked with flags; *out is a new array (caller frees) of *n items.
 * An empty sequence is an error. */
int ydoc_doubles(struct ydoc *d, const struct ynode *map, const char *key, unsigned flags, double **out, int *n);

/* Node-level conversions, for sequence items; messages name the node by its path ("gpu.gemm.tables[0].m[2]"). */
int ydoc_node_int(struct ydoc *d, const struct ynode *n, unsigned flags, int *out);
int ydoc_node_double(struct ydoc *d, const struct ynode *n, unsigned flags, double *out);

#endif
