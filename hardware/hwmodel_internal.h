/* hwmodel_internal: what hardware/hwmodel.c (presets, lookups, bases) and hardware/hwload.c (YAML reading)
 * share. */
#ifndef HWMODEL_INTERNAL_H
#define HWMODEL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "hardware/hwmodel.h"

struct ydoc;
/* hwload_parse: fill hw from the tree of d. based false: hw is zeroed and every required key must be given;
 * based true: hw holds the file's base model (`base:`), every key is optional and overrides it (maps merge key
 * by key; a given list - gemm.tables, attention rows, a collective's lines/tables - replaces the base's).
 * 0, or GS_EINVAL after printing every error. The `base:` value itself is read by hwmodel.c. */
int hwload_parse(struct ydoc *d, struct hwmodel *hw, bool based);

/* hwmodel_pack: hw as one block of bytes (*out, malloc'd; returns its length) that hwmodel_unpack turns back into
 * the same model, every field and table (hardware/hwdata.c). The block holds the struct's own bytes, so it is
 * read only by a build of the same struct on the same kind of machine: the built-in presets are packed at build
 * time by hardware/gen/presetgen.c, which loads each from its YAML, so `--hw h100-dgx` copies a model instead of
 * parsing 12 kB of YAML (docs/performance.md). hwmodel_unpack: a new model, or NULL for a block of another struct
 * size or a short or long one. */
size_t hwmodel_pack(const struct hwmodel *hw, unsigned char **out);
struct hwmodel *hwmodel_unpack(const void *data, size_t len);
/* The packed presets (generated preset_models.c; empty in presetgen itself and where cross-compiling), ending with
 * { NULL, NULL, 0 }: len bytes of words. */
struct hw_preset_model {
	const char *name;
	const uint64_t *words;
	size_t len;
};
extern const struct hw_preset_model hw_preset_models[];

/* What hwload.c and hwload_gpu.c share. */
struct ynode;
#define HW_EFF_MAX 1.5  /* an efficiency lies in (0, HW_EFF_MAX] */
/* hwload_source: dst = map's `source:` (cut to fit), else def; hwload_source_over: the same for a section of a
 * file that may have a base (an absent section keeps the base's source). */
void hwload_source(struct ydoc *d, const struct ynode *map, char *dst, size_t size, const char *def);
void hwload_source_over(struct ydoc *d, const struct ynode *map, char *dst, size_t size, const char *def,
			bool based);
/* hwload_eff: an efficiency in (0, HW_EFF_MAX]; hwload_axis: a positive, strictly increasing list (ydoc's codes). */
int hwload_eff(struct ydoc *d, const struct ynode *map, const char *key, unsigned flags, double *out);
int hwload_axis(struct ydoc *d, const struct ynode *map, const char *key, double **out, int *n);
/* hwload_gpu: the gpu section into g (based: g holds the base's GPU and every key overrides it). */
void hwload_gpu(struct ydoc *d, const struct ynode *gpu, struct hw_gpu *g, const char *file_source, bool based);

#endif
