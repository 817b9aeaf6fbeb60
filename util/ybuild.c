/* ybuild: a libyaml document built call by call (see ybuild.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "util/gserr.h"
#include "util/ybuild.h"

int ybuild_init(struct ybuild *b)
{
	memset(b, 0, sizeof *b);
	if (!yaml_document_initialize(&b->doc, NULL, NULL, NULL, 1, 1)) {
		b->failed = true;
		return GS_ENOMEM;
	}
	return 0;
}

void ybuild_release(struct ybuild *b)
{
	yaml_document_delete(&b->doc);
	memset(b, 0, sizeof *b);
}

int ybuild_finish(struct ybuild *b)
{
	if (b->failed)
		return GS_ENOMEM;
	return b->depth == 0 && b->key == 0 ? 0 : GS_EINVAL;
}

/* Attaches node id to the open map (as key or value) or sequence; the first node is the root. */
static void attach(struct ybuild *b, int id)
{
	if (!id) {
		b->failed = true;
		return;
	}
	if (b->depth == 0)
		return;
	int parent = b->stack[b->depth - 1];
	yaml_node_t *p = yaml_document_get_node(&b->doc, parent);
	if (p->type == YAML_SEQUENCE_NODE) {
		b->failed |= !yaml_document_append_sequence_item(&b->doc, parent, id);
	} else if (!b->key) {
		b->key = id;
	} else {
		b->failed |= !yaml_document_append_mapping_pair(&b->doc, parent, b->key, id);
		b->key = 0;
	}
}

static void open_node(struct ybuild *b, int id)
{
	attach(b, id);
	if (b->failed)
		return;
	if (b->depth == YBUILD_DEPTH) {
		b->failed = true;
		return;
	}
	b->stack[b->depth++] = id;
}

void ybuild_map(struct ybuild *b, bool flow)
{
	if (!b->failed)
		open_node(b, yaml_document_add_mapping(&b->doc, NULL, flow ? YAML_FLOW_MAPPING_STYLE :
									YAML_BLOCK_MAPPING_STYLE));
}

void ybuild_seq(struct ybuild *b, bool flow)
{
	if (!b->failed)
		open_node(b, yaml_document_add_sequence(&b->doc, NULL, flow ? YAML_FLOW_SEQUENCE_STYLE :
									  YAML_BLOCK_SEQUENCE_STYLE));
}

void ybuild_end(struct ybuild *b)
{
	if (!b->failed && b->depth > 0)
		b->depth--;
}

static void scalar(struct ybuild *b, const char *s, yaml_scalar_style_t style)
{
	if (!b->failed)
		attach(b, yaml_document_add_scalar(&b->doc, NULL, (yaml_char_t *)s, (int)strlen(s), style));
}

void ybuild_key(struct ybuild *b, const char *k)
{
	scalar(b, k, YAML_PLAIN_SCALAR_STYLE);
}

static bool same_word(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if ((*a | 0x20) != *b)
			return false;
	return !*a && !*b;
}

/* Plain only for identifier-like text that YAML 1.1 cannot take for a number, boolean or null. */
static bool plain_safe(const char *s)
{
	static const char *const words[] = {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~", NULL};
	if (!*s || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
		return false;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
		      *p == '-' || *p == '.' || *p == '/'))
			return false;
	for (int i = 0; words[i]; i++)
		if (same_word(s, words[i]))
			return false;
	return true;
}

void ybuild_str(struct ybuild *b, const char *s)
{
	scalar(b, s ? s : "", s && plain_safe(s) ? YAML_PLAIN_SCALAR_STYLE : YAML_DOUBLE_QUOTED_SCALAR_STYLE);
}

void ybuild_literal(struct ybuild *b, const char *s)
{
	scalar(b, s, YAML_LITERAL_SCALAR_STYLE);
}

void ybuild_num(struct ybuild *b, double v)
{
	char buf[40];
	if (!isfinite(v))
		snprintf(buf, sizeof buf, "%s", isnan(v) ? ".nan" : v > 0 ? ".inf" : "-.inf");
	else if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, sizeof buf, "%.0f", v);
	else
		snprintf(buf, sizeof buf, "%.6g", v);
	scalar(b, buf, YAML_PLAIN_SCALAR_STYLE);
}

void ybuild_int(struct ybuild *b, long long v)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%lld", v);
	scalar(b, buf, YAML_PLAIN_SCALAR_STYLE);
}

void ybuild_bool(struct ybuild *b, bool v)
{
	scalar(b, v ? "true" : "false", YAML_PLAIN_SCALAR_STYLE);
}

void ybuild_nums(struct ybuild *b, const double *v, int n)
{
	ybuild_seq(b, true);
	for (int i = 0; i < n; i++)
		ybuild_num(b, v[i]);
	ybuild_end(b);
}

void ybuild_kstr(struct ybuild *b, const char *k, const char *s) { ybuild_key(b, k); ybuild_str(b, s); }
void ybuild_knum(struct ybuild *b, const char *k, double v) { ybuild_key(b, k); ybuild_num(b, v); }
void ybuild_kint(struct ybuild *b, const char *k, long long v) { ybuild_key(b, k); ybuild_int(b, v); }
void ybuild_kbool(struct ybuild *b, const char *k, bool v) { ybuild_key(b, k); ybuild_bool(b, v); }
void ybuild_knums(struct ybuild *b, const char *k, const double *v, int n) { ybuild_key(b, k); ybuild_nums(b, v, n); }
