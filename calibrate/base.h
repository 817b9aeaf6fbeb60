/* base: the hardware model whose values fill what calibration cannot measure on this machine (the network,
 * inter-node collectives, cost), kept as a libyaml document so its sections are copied into the output verbatim
 * and marked `source: preset ...`. */
#ifndef BASE_H
#define BASE_H

#include <stdbool.h>
#include <yaml.h>

struct cal_base {
	bool loaded;
	char name[128];         /* preset name or file path, for messages and sources */
	yaml_document_t doc;
};

/* base_load_text: parse text (a gpusim-hw/1 YAML); 0, or GS_EINVAL after "gpusim: NAME: ..." on stderr. */
int base_load_text(struct cal_base *b, const char *name, const char *text);
/* base_load: a built-in preset name (hwmodel_preset_text) or a YAML file path (calibrate/base_preset.c). */
int base_load(struct cal_base *b, const char *name_or_path);
/* base_default: the built-in preset that best matches a GPU name ("h200" presets for an H200, ...), or NULL. */
const char *base_default(const char *gpu_name);
void base_release(struct cal_base *b);
/* base_preset_name: the built-in preset b is (its name, or a path hardware/NAME.yaml of one), else NULL: what a
 * calibration may write as `base:` (calibrate/core_glue.c). */
const char *base_preset_name(const struct cal_base *b);
/* base_get: the node at a dotted path of maps ("collectives.inter"), or NULL. */
yaml_node_t *base_get(struct cal_base *b, const char *path);

#endif
