/* base: the hardware model whose values fill what calibration cannot measure on this machine (the network,
 * inter-node collectives, cost), loaded by the one gpusim-hw reader (hardware/hwmodel.h); calibrate/calmodel.c
 * copies its sections into the model it writes, marked `source: preset ...`. */
#ifndef BASE_H
#define BASE_H

#include <stdbool.h>

struct hwmodel;

struct cal_base {
	bool loaded;
	char name[128];         /* preset name or file path, for messages and sources */
	struct hwmodel *hw;
};

/* base_load_text: a gpusim-hw/1 model from text; 0, or GS_EINVAL after the reader's file:line:col errors. */
int base_load_text(struct cal_base *b, const char *name, const char *text);
/* base_load: a built-in preset name or a YAML file path; 0, or GS_EINVAL / GS_EENV after the reader's errors. */
int base_load(struct cal_base *b, const char *name_or_path);
/* base_default: the built-in preset that best matches a GPU name ("h200" presets for an H200, ...), or NULL. */
const char *base_default(const char *gpu_name);
void base_release(struct cal_base *b);
/* base_preset_name: the built-in preset b is (its name, or a path hardware/NAME.yaml of one), else NULL: what a
 * calibration may write as `base:`. */
const char *base_preset_name(const struct cal_base *b);

#endif
