/* base: parsing a base hardware model and looking up its sections (see base.h). No dependency on the simulator's
 * own loader: the text is only parsed and copied, never interpreted. */
#include <string.h>
#include "calibrate/base.h"
#include "util/gserr.h"
#include "util/diag.h"

int base_load_text(struct cal_base *b, const char *name, const char *text)
{
	yaml_parser_t p;
	memset(b, 0, sizeof *b);
	snprintf(b->name, sizeof b->name, "%s", name);
	if (!yaml_parser_initialize(&p))
		return GS_ENOMEM;
	yaml_parser_set_input_string(&p, (const unsigned char *)text, strlen(text));
	if (!yaml_parser_load(&p, &b->doc)) {
		diag_errorf("%s:%zu:%zu: %s", name, p.problem_mark.line + 1, p.problem_mark.column + 1,
			p.problem ? p.problem : "YAML error");
		yaml_parser_delete(&p);
		return GS_EINVAL;
	}
	yaml_parser_delete(&p);
	yaml_node_t *root = yaml_document_get_root_node(&b->doc);
	if (!root || root->type != YAML_MAPPING_NODE) {
		diag_errorf("%s: not a hardware model (expected a map at the top)", name);
		yaml_document_delete(&b->doc);
		return GS_EINVAL;
	}
	b->loaded = true;
	return 0;
}

void base_release(struct cal_base *b)
{
	if (b->loaded)
		yaml_document_delete(&b->doc);
	b->loaded = false;
}

static yaml_node_t *map_get(yaml_document_t *d, yaml_node_t *m, const char *key, size_t len)
{
	if (!m || m->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(d, p->key);
		if (k && k->type == YAML_SCALAR_NODE && k->data.scalar.length == len &&
		    memcmp(k->data.scalar.value, key, len) == 0)
			return yaml_document_get_node(d, p->value);
	}
	return NULL;
}

yaml_node_t *base_get(struct cal_base *b, const char *path)
{
	if (!b || !b->loaded)
		return NULL;
	yaml_node_t *n = yaml_document_get_root_node(&b->doc);
	while (n && *path) {
		const char *dot = strchr(path, '.');
		size_t len = dot ? (size_t)(dot - path) : strlen(path);
		n = map_get(&b->doc, n, path, len);
		path += len + (dot ? 1 : 0);
	}
	return n;
}
