/* hwwrite_meta: the provenance section `meta:` (see hwwrite.h), free-form for the loader, which reads only
 * meta.node (a calibration's measuring host). A calibration's tree (util/ybuild) is written with libyaml's emitter,
 * keeping the styles it was built with; lines wrap at 118 columns. */
#include <string.h>
#include <yaml.h>

#include "hardware/hwwrite_internal.h"
#include "util/gserr.h"

struct emitter {
	yaml_emitter_t em;
	bool failed;
};

static void emit(struct emitter *e, yaml_event_t *ev, bool ok)
{
	if (e->failed) {
		if (ok)
			yaml_event_delete(ev);
		return;
	}
	if (!ok || !yaml_emitter_emit(&e->em, ev))
		e->failed = true;
}

static void scalar(struct emitter *e, const char *s, yaml_scalar_style_t style)
{
	yaml_event_t ev;
	emit(e, &ev, yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), 1, 1, style));
}

static void copy_node(struct emitter *e, yaml_document_t *doc, yaml_node_t *node, int depth)
{
	yaml_event_t ev;
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
		emit(e, &ev, yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, node->data.sequence.style));
		for (yaml_node_item_t *it = node->data.sequence.items.start; it < node->data.sequence.items.top; it++)
			copy_node(e, doc, yaml_document_get_node(doc, *it), depth + 1);
		emit(e, &ev, yaml_sequence_end_event_initialize(&ev));
		break;
	case YAML_MAPPING_NODE:
		emit(e, &ev, yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, node->data.mapping.style));
		for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top; p++) {
			copy_node(e, doc, yaml_document_get_node(doc, p->key), depth + 1);
			copy_node(e, doc, yaml_document_get_node(doc, p->value), depth + 1);
		}
		emit(e, &ev, yaml_mapping_end_event_initialize(&ev));
		break;
	default:
		scalar(e, "", YAML_PLAIN_SCALAR_STYLE);
	}
}

/* The tree as `meta: <tree>`: one implicit document holding a one-key map, so the text is a top-level key. */
static int write_tree(FILE *f, yaml_document_t *doc)
{
	struct emitter e = { .failed = false };
	yaml_event_t ev;
	if (!yaml_emitter_initialize(&e.em))
		return GS_EENV;
	yaml_emitter_set_output_file(&e.em, f);
	yaml_emitter_set_unicode(&e.em, 1);
	yaml_emitter_set_width(&e.em, 118);
	yaml_emitter_set_indent(&e.em, 2);
	emit(&e, &ev, yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING));
	emit(&e, &ev, yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1));
	emit(&e, &ev, yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE));
	scalar(&e, "meta", YAML_PLAIN_SCALAR_STYLE);
	copy_node(&e, doc, yaml_document_get_root_node(doc), 0);
	emit(&e, &ev, yaml_mapping_end_event_initialize(&ev));
	emit(&e, &ev, yaml_document_end_event_initialize(&ev, 1));
	emit(&e, &ev, yaml_stream_end_event_initialize(&ev));
	if (!e.failed && !yaml_emitter_flush(&e.em))
		e.failed = true;
	yaml_emitter_delete(&e.em);
	return e.failed ? GS_EENV : 0;
}

int hwwrite_meta(FILE *f, const struct hwmodel *hw, struct yaml_document_s *doc)
{
	if (doc && yaml_document_get_root_node(doc))
		return write_tree(f, doc);
	if (hw->origin.host_gpus > 0)  /* the measuring host's node, a fact the loader keeps (hwload.c) */
		fprintf(f, "meta:\n  node: {gpus: %d, fabric: %s}\n", hw->origin.host_gpus,
			hwmodel_fabric_name(hw->origin.host_fabric));
	return 0;
}
