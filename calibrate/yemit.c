/* yemit: libyaml event emission with a sticky error (see yemit.h). */
#include <math.h>
#include <string.h>
#include "calibrate/yemit.h"
#include "util/gserr.h"

static void emit(struct yemit *e, yaml_event_t *ev, bool ok)
{
	if (e->failed) {
		if (ok)
			yaml_event_delete(ev);
		return;
	}
	if (!ok || !yaml_emitter_emit(&e->em, ev)) {
		e->failed = true;
		snprintf(e->error, sizeof e->error, "%s",
			 ok && e->em.problem ? e->em.problem : "cannot write YAML (out of memory or write error)");
	}
}

int yemit_open(struct yemit *e, FILE *f)
{
	yaml_event_t ev;
	memset(e, 0, sizeof *e);
	if (!yaml_emitter_initialize(&e->em)) {
		e->failed = true;
		snprintf(e->error, sizeof e->error, "cannot start the YAML emitter");
		return GS_ENOMEM;
	}
	yaml_emitter_set_output_file(&e->em, f);
	yaml_emitter_set_unicode(&e->em, 1);
	yaml_emitter_set_width(&e->em, 118);
	yaml_emitter_set_indent(&e->em, 2);
	emit(e, &ev, yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING));
	emit(e, &ev, yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1));
	return e->failed ? GS_EENV : 0;
}

int yemit_close(struct yemit *e)
{
	yaml_event_t ev;
	emit(e, &ev, yaml_document_end_event_initialize(&ev, 1));
	emit(e, &ev, yaml_stream_end_event_initialize(&ev));
	if (!e->failed && !yaml_emitter_flush(&e->em)) {
		e->failed = true;
		snprintf(e->error, sizeof e->error, "write error");
	}
	yaml_emitter_delete(&e->em);
	return e->failed ? GS_EENV : 0;
}

void yemit_map(struct yemit *e, bool flow)
{
	yaml_event_t ev;
	emit(e, &ev, yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
							 flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE));
}

void yemit_seq(struct yemit *e, bool flow)
{
	yaml_event_t ev;
	emit(e, &ev, yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
							  flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE));
}

void yemit_end_map(struct yemit *e)
{
	yaml_event_t ev;
	emit(e, &ev, yaml_mapping_end_event_initialize(&ev));
}

void yemit_end_seq(struct yemit *e)
{
	yaml_event_t ev;
	emit(e, &ev, yaml_sequence_end_event_initialize(&ev));
}

static void scalar(struct yemit *e, const char *s, yaml_scalar_style_t style)
{
	yaml_event_t ev;
	emit(e, &ev, yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), 1, 1, style));
}

void yemit_key(struct yemit *e, const char *k)
{
	scalar(e, k, YAML_PLAIN_SCALAR_STYLE);
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

void yemit_str(struct yemit *e, const char *s)
{
	scalar(e, s ? s : "", s && plain_safe(s) ? YAML_PLAIN_SCALAR_STYLE : YAML_DOUBLE_QUOTED_SCALAR_STYLE);
}

void yemit_literal(struct yemit *e, const char *s)
{
	scalar(e, s, YAML_LITERAL_SCALAR_STYLE);
}

void yemit_num(struct yemit *e, double v)
{
	char buf[40];
	if (!isfinite(v))
		snprintf(buf, sizeof buf, "%s", isnan(v) ? ".nan" : v > 0 ? ".inf" : "-.inf");
	else if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, sizeof buf, "%.0f", v);
	else
		snprintf(buf, sizeof buf, "%.6g", v);
	scalar(e, buf, YAML_PLAIN_SCALAR_STYLE);
}

void yemit_int(struct yemit *e, long long v)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%lld", v);
	scalar(e, buf, YAML_PLAIN_SCALAR_STYLE);
}

void yemit_bool(struct yemit *e, bool v)
{
	scalar(e, v ? "true" : "false", YAML_PLAIN_SCALAR_STYLE);
}

void yemit_nums(struct yemit *e, const double *v, int n)
{
	yemit_seq(e, true);
	for (int i = 0; i < n; i++)
		yemit_num(e, v[i]);
	yemit_end_seq(e);
}

void yemit_kstr(struct yemit *e, const char *k, const char *s) { yemit_key(e, k); yemit_str(e, s); }
void yemit_knum(struct yemit *e, const char *k, double v) { yemit_key(e, k); yemit_num(e, v); }
void yemit_kint(struct yemit *e, const char *k, long long v) { yemit_key(e, k); yemit_int(e, v); }
void yemit_kbool(struct yemit *e, const char *k, bool v) { yemit_key(e, k); yemit_bool(e, v); }
void yemit_knums(struct yemit *e, const char *k, const double *v, int n) { yemit_key(e, k); yemit_nums(e, v, n); }

static void copy_node(struct yemit *e, yaml_document_t *doc, yaml_node_t *node, const char *source, bool top,
		      int depth)
{
	if (!node || depth > 64) {
		scalar(e, "", YAML_PLAIN_SCALAR_STYLE);
		return;
	}
	switch (node->type) {
	case YAML_SCALAR_NODE:
		scalar(e, (const char *)node->data.scalar.value, node->data.scalar.style == YAML_ANY_SCALAR_STYLE ?
		       YAML_PLAIN_SCALAR_STYLE : node->data.scalar.style);
		break;
	case YAML_SEQUENCE_NODE:
		yemit_seq(e, node->data.sequence.style == YAML_FLOW_SEQUENCE_STYLE);
		for (yaml_node_item_t *it = node->data.sequence.items.start; it < node->data.sequence.items.top; it++)
			copy_node(e, doc, yaml_document_get_node(doc, *it), source, false, depth + 1);
		yemit_end_seq(e);
		break;
	case YAML_MAPPING_NODE: {
		bool had_source = false;
		yemit_map(e, node->data.mapping.style == YAML_FLOW_MAPPING_STYLE);
		for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(doc, p->key);
			yaml_node_t *v = yaml_document_get_node(doc, p->value);
			if (source && k && k->type == YAML_SCALAR_NODE && v && v->type == YAML_SCALAR_NODE &&
			    strcmp((const char *)k->data.scalar.value, "source") == 0) {
				char buf[512];
				had_source = true;
				if (top)
					snprintf(buf, sizeof buf, "%s (%s)", source, (const char *)v->data.scalar.value);
				else
					snprintf(buf, sizeof buf, "%s: %s", source, (const char *)v->data.scalar.value);
				yemit_kstr(e, "source", buf);
				continue;
			}
			copy_node(e, doc, k, NULL, false, depth + 1);
			copy_node(e, doc, v, source, false, depth + 1);
		}
		if (source && top && !had_source)
			yemit_kstr(e, "source", source);
		yemit_end_map(e);
		break;
	}
	default:
		scalar(e, "", YAML_PLAIN_SCALAR_STYLE);
	}
}

void yemit_copy(struct yemit *e, yaml_document_t *doc, yaml_node_t *node, const char *source)
{
	copy_node(e, doc, node, source, true, 0);
}
