/* test_ydoc: the YAML tree keeps 1-based positions and dotted paths; getters accept what docs say and print
 * each error as "gpusim: file:line:col: message" at the right place; strsim's distances are the textbook ones;
 * diag's formats and gserr's exit codes. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "capture.h"
#include "check.h"
#include "util/diag.h"
#include "util/gserr.h"
#include "util/strsim.h"
#include "util/ydoc.h"

/* stderr captured into a buffer, so messages can be compared whole */
static struct ydoc *load(const char *text)
{
	int err = 0;
	return ydoc_load_string("t.yaml", text, strlen(text), &err);
}

/* Loads text expecting failure; returns the captured stderr. */
static const char *load_fails(const char *text)
{
	int err = 0;
	cap_begin();
	struct ydoc *d = ydoc_load_string("t.yaml", text, strlen(text), &err);
	const char *out = cap_end();
	CHECK(d == NULL);
	CHECK_INT(err, GS_EINVAL);
	ydoc_free(d);
	return out;
}

static void test_positions(void)
{
	struct ydoc *d = load("a: 1\nb:\n  c: [10, 20]\n  d: x\n");
	CHECK(d != NULL);
	const struct ynode *root = ydoc_root(d);
	CHECK_INT(ynode_kind(root), YNODE_MAP);
	CHECK_INT(ynode_len(root), 2);
	CHECK_STR(ynode_key(root, 0), "a");
	CHECK_INT(ynode_key_line(root, 0), 1);
	CHECK_INT(ynode_key_col(root, 0), 1);
	const struct ynode *a = ynode_get(root, "a");
	CHECK_INT(ynode_line(a), 1);
	CHECK_INT(ynode_col(a), 4);
	const struct ynode *b = ynode_get(root, "b");
	CHECK_INT(ynode_line(b), 3); /* a block mapping starts at its first key */
	CHECK_INT(ynode_col(b), 3);
	const struct ynode *c = ynode_get(b, "c");
	CHECK_INT(ynode_kind(c), YNODE_SEQ);
	CHECK_INT(ynode_col(c), 6);
	CHECK_STR(ynode_path(ynode_item(c, 1)), "b.c[1]");
	CHECK_INT(ynode_col(ynode_item(c, 1)), 11);
	CHECK_STR(ynode_str(ynode_get(b, "d")), "x");
	CHECK(ynode_get(b, "zz") == NULL);
	ydoc_free(d);
}

static void test_getters(void)
{
	struct ydoc *d = load("i: 80\nbig: 1e9\nf: 25e6\nneg: -3\nt: yes\nF: False\ns: hello\nn: 12\nq: \"8\"\n"
			      "e: swiglu\nxs: [1, 2.5, 4e3]\nnothing:\n");
	const struct ynode *r = ydoc_root(d);
	int i = 0;
	double f = 0;
	bool b = false;
	char s[16];
	CHECK_INT(ydoc_int(d, r, "i", YD_REQUIRED | YD_POSITIVE, &i), 1);
	CHECK_INT(i, 80);
	CHECK_INT(ydoc_int(d, r, "big", 0, &i), 1);
	CHECK_INT(i, 1000000000);
	CHECK_INT(ydoc_double(d, r, "f", YD_POSITIVE, &f), 1);
	CHECK_NEAR(f, 25e6, 1e-15);
	CHECK_INT(ydoc_int(d, r, "neg", 0, &i), 1);
	CHECK_INT(i, -3);
	CHECK_INT(ydoc_bool(d, r, "t", 0, &b), 1);
	CHECK(b);
	CHECK_INT(ydoc_bool(d, r, "F", 0, &b), 1);
	CHECK(!b);
	CHECK_INT(ydoc_string(d, r, "s", 0, s, sizeof s), 1);
	CHECK_STR(s, "hello");
	CHECK_INT(ydoc_string(d, r, "n", 0, s, sizeof s), 1); /* a plain number reads as its text */
	CHECK_STR(s, "12");
	CHECK_INT(ydoc_string(d, r, "q", 0, s, sizeof s), 1);
	CHECK_STR(s, "8");
	static const char *const ffn[] = { "gelu", "swiglu", NULL };
	int e = -1;
	CHECK_INT(ydoc_enum(d, r, "e", 0, ffn, &e), 1);
	CHECK_INT(e, 1);
	double *xs = NULL;
	int n = 0;
	CHECK_INT(ydoc_doubles(d, r, "xs", YD_POSITIVE, &xs, &n), 1);
	CHECK_INT(n, 3);
	CHECK_NEAR(xs[2], 4000, 1e-15);
	free(xs);
	/* absent, and an explicit null, are "not given": 0 and the default untouched */
	i = 7;
	CHECK_INT(ydoc_int(d, r, "absent", 0, &i), 0);
	CHECK_INT(ydoc_int(d, r, "nothing", 0, &i), 0);
	CHECK_INT(i, 7);
	/* a NULL map (a parent already reported) is absent even when required, and reports nothing */
	CHECK_INT(ydoc_int(d, NULL, "x", YD_REQUIRED, &i), 0);
	CHECK_INT(ydoc_errors(d), 0);
	ydoc_free(d);
}

/* Runs one getter on text and returns its message. */
enum getter { G_INT, G_DOUBLE, G_BOOL, G_ENUM, G_MAP };
static const char *getter_error(const char *text, const char *map, const char *key, enum getter g, unsigned flags)
{
	static const char *const ffn[] = { "gelu", "swiglu", NULL };
	struct ydoc *d = load(text);
	const struct ynode *m = map ? ynode_get(ydoc_root(d), map) : ydoc_root(d), *sub;
	int i, rc = 0;
	double f;
	bool b;
	cap_begin();
	switch (g) {
	case G_INT: rc = ydoc_int(d, m, key, flags, &i); break;
	case G_DOUBLE: rc = ydoc_double(d, m, key, flags, &f); break;
	case G_BOOL: rc = ydoc_bool(d, m, key, flags, &b); break;
	case G_ENUM: rc = ydoc_enum(d, m, key, flags, ffn, &i); break;
	case G_MAP: rc = ydoc_map(d, m, key, flags, &sub); break;
	}
	const char *out = cap_end();
	CHECK_INT(rc, GS_EINVAL);
	CHECK_INT(ydoc_errors(d), 1);
	ydoc_free(d);
	return out;
}

static void test_getter_errors(void)
{
	CHECK_STR(getter_error("model:\n  hidden: 8\n", "model", "layers", G_INT, YD_REQUIRED),
		  "gpusim: t.yaml:2:3: missing required key 'model.layers'\n");
	CHECK_STR(getter_error("model:\n  layers: {a: 1}\n", "model", "layers", G_INT, 0),
		  "gpusim: t.yaml:2:11: model.layers: expected an integer, got a mapping\n");
	CHECK_STR(getter_error("layers: 1.5\n", NULL, "layers", G_INT, 0),
		  "gpusim: t.yaml:1:9: layers: expected an integer, got '1.5'\n");
	CHECK_STR(getter_error("layers: \"8\"\n", NULL, "layers", G_INT, 0),
		  "gpusim: t.yaml:1:9: layers: expected an integer, got the string \"8\"\n");
	CHECK_STR(getter_error("layers: 0\n", NULL, "layers", G_INT, YD_POSITIVE),
		  "gpusim: t.yaml:1:9: layers: must be positive, got 0\n");
	CHECK_STR(getter_error("x: -1e3\n", NULL, "x", G_DOUBLE, YD_NONNEG),
		  "gpusim: t.yaml:1:4: x: must not be negative, got -1e3\n");
	CHECK_STR(getter_error("x: 3e9\n", NULL, "x", G_INT, 0),
		  "gpusim: t.yaml:1:4: x: 3e9 is out of range (at most 2147483647)\n");
	CHECK_STR(getter_error("x: 0x10\n", NULL, "x", G_DOUBLE, 0),
		  "gpusim: t.yaml:1:4: x: expected a number, got '0x10'\n");
	CHECK_STR(getter_error("x: maybe\n", NULL, "x", G_BOOL, 0),
		  "gpusim: t.yaml:1:4: x: expected true or false, got 'maybe'\n");
	CHECK_STR(getter_error("ffn: swiglo\n", NULL, "ffn", G_ENUM, 0),
		  "gpusim: t.yaml:1:6: ffn: unknown value 'swiglo' (did you mean 'swiglu'?)\n");
	CHECK_STR(getter_error("ffn: relu\n", NULL, "ffn", G_ENUM, 0),
		  "gpusim: t.yaml:1:6: ffn: unknown value 'relu' (did you mean 'gelu'?)\n");
	CHECK_STR(getter_error("ffn: tanh\n", NULL, "ffn", G_ENUM, 0),
		  "gpusim: t.yaml:1:6: ffn: unknown value 'tanh' (expected one of: gelu, swiglu)\n");
	CHECK_STR(getter_error("gpu: [1]\n", NULL, "gpu", G_MAP, 0),
		  "gpusim: t.yaml:1:6: gpu: expected a mapping, got a sequence\n");
	CHECK_STR(getter_error("layers:\n", NULL, "layers", G_INT, YD_REQUIRED),
		  "gpusim: t.yaml:1:8: missing value for required key 'layers'\n");
}

static void test_keys(void)
{
	static const char *const allowed[] = { "layers", "hidden", "heads", NULL };
	struct ydoc *d = load("model:\n  layers: 2\n  hiden: 8\n  colour: red\n");
	cap_begin();
	int rc = ydoc_check_keys(d, ynode_get(ydoc_root(d), "model"), allowed);
	const char *out = cap_end();
	CHECK_INT(rc, GS_EINVAL);
	CHECK_INT(ydoc_errors(d), 2);
	CHECK_STR(out, "gpusim: t.yaml:3:3: unknown key 'hiden' (did you mean 'hidden'?)\n"
		       "gpusim: t.yaml:4:3: unknown key 'colour' in model (expected one of: layers, hidden, heads)\n");
	ydoc_free(d);
}

static void test_load_errors(void)
{
	CHECK_STR(load_fails("a: 1\nb: 2\na: 3\n"), "gpusim: t.yaml:3:1: duplicate key 'a' (first at line 1)\n");
	CHECK_STR(load_fails(""), "gpusim: t.yaml:1:1: empty document\n");
	CHECK_STR(load_fails("# only a comment\n"), "gpusim: t.yaml:1:1: empty document\n");
	CHECK_STR(load_fails("a: 1\n---\nb: 2\n"), "gpusim: t.yaml:2:1: only one yaml document is allowed per file\n");
	CHECK_STR(load_fails("a: *nope\n"), "gpusim: t.yaml:1:4: unknown alias '*nope'\n");
	const char *out = load_fails("a: 1\n b: 2\n");
	CHECK_CONTAINS(out, "gpusim: t.yaml:2:3: syntax error: mapping values are not allowed in this context");
	out = load_fails("a: [1, 2\nb: 3\n");
	CHECK_CONTAINS(out, "gpusim: t.yaml:");
	CHECK_CONTAINS(out, "syntax error: did not find expected ',' or ']'");
	CHECK_CONTAINS(out, "(started at 1:4)");
	out = load_fails("a:\n\tb: 1\n");
	CHECK_CONTAINS(out, "gpusim: t.yaml:2:1: syntax error:");

	int err = 0;
	cap_begin();
	struct ydoc *d = ydoc_load_file("/nonexistent/x.yaml", &err);
	out = cap_end();
	CHECK(d == NULL);
	CHECK_INT(err, GS_EENV);
	CHECK_STR(out, "gpusim: cannot read '/nonexistent/x.yaml': No such file or directory\n");
}

static void test_aliases(void)
{
	struct ydoc *d = load("x: &ring {lines: [1, 2]}\ny: *ring\nz: &v 5\nw: *v\n");
	CHECK(d != NULL);
	const struct ynode *y = ynode_get(ydoc_root(d), "y");
	CHECK_INT(ynode_kind(y), YNODE_MAP);
	const struct ynode *lines = ynode_get(y, "lines");
	CHECK_STR(ynode_path(ynode_item(lines, 1)), "y.lines[1]");
	CHECK_STR(ynode_str(ynode_item(lines, 1)), "2");
	int w = 0;
	CHECK_INT(ydoc_int(d, ydoc_root(d), "w", 0, &w), 1);
	CHECK_INT(w, 5);
	ydoc_free(d);

	/* a "billion laughs": each line 9 aliases of the one before, 9^9 = 387 million values if copied. Copies are
	 * counted before they are made. Values so far: the root 1; a 10 (a list of 9); b 1 + 9 * 10 = 91; c 820;
	 * d 7,381: 8,303 in all. e's list adds 1 and each *d 7,381: 8,304 + 7,381 k after k of them; the sixth
	 * (line 5, column 28) would make 52,590 > 50,000: an error, at once. */
	static const char laughs[] =
		"a: &a [l, l, l, l, l, l, l, l, l]\n"
		"b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
		"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
		"d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
		"e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
		"f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
		"g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
		"h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\n";
	CHECK_STR(load_fails(laughs), "gpusim: t.yaml:5:28: alias '*d' expands the file past 50000 values (aliases are "
				      "copies)\n");
}

static void test_strsim(void)
{
	CHECK_INT(strsim_distance("kitten", "sitting"), 3);
	CHECK_INT(strsim_distance("hiden", "hidden"), 1);
	CHECK_INT(strsim_distance("ab", "ba"), 1); /* one transposition */
	CHECK_INT(strsim_distance("", "abc"), 3);
	CHECK_INT(strsim_distance("Hidden", "hidden"), 0);
	static const char *const keys[] = { "layers", "hidden", "heads", "kv_heads", "seq", NULL };
	CHECK_STR(strsim_suggest("hiden", keys), "hidden");
	CHECK_STR(strsim_suggest("layer", keys), "layers");
	CHECK_STR(strsim_suggest("kv_h", keys), "kv_heads");        /* a prefix of the key */
	CHECK_STR(strsim_suggest("hidden_size", keys), "hidden");   /* the key is a prefix */
	CHECK_STR(strsim_suggest("sq", keys), "seq");
	CHECK(strsim_suggest("xy", keys) == NULL);          /* distance 2 on a 2-letter word is no hint */
	CHECK(strsim_suggest("vocabulary", keys) == NULL);
}

static void test_diag_and_codes(void)
{
	cap_begin();
	int rc = diag_error("f.yaml", 3, 7, "bad %s", "thing");
	diag_error("f.yaml", 3, 0, "no column");
	diag_error("f.yaml", 0, 0, "no line");
	diag_errorf("plain %d", 1);
	diag_warning("careful");
	const char *out = cap_end();
	CHECK_INT(rc, GS_EINVAL);
	CHECK_STR(out, "gpusim: f.yaml:3:7: bad thing\ngpusim: f.yaml:3: no column\ngpusim: f.yaml: no line\n"
		       "gpusim: plain 1\ngpusim: warning: careful\n");
	CHECK_INT(gserr_exit_code(GS_OK), 0);
	CHECK_INT(gserr_exit_code(GS_EINVAL), 1);
	CHECK_INT(gserr_exit_code(GS_EUSAGE), 2);
	CHECK_INT(gserr_exit_code(GS_EENV), 3);
	CHECK_INT(gserr_exit_code(GS_ENOMEM), 3);
	CHECK_INT(gserr_exit_code(-42), 1);
}

int main(void)
{
	test_diag_and_codes();
	test_positions();
	test_getters();
	test_getter_errors();
	test_keys();
	test_load_errors();
	test_aliases();
	test_strsim();
	return check_result();
}
