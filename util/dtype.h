/* dtype: the number formats a model's tensors and GEMMs use. Its own header, below scenario/ and hardware/,
 * so that the hardware model (rates per dtype) and the scenario (what the job runs in) both use it without
 * one including the other. */
#ifndef DTYPE_H
#define DTYPE_H

enum dtype { DT_FP32, DT_TF32, DT_BF16, DT_FP16, DT_FP8, DT_COUNT };

/* dtype_names: "fp32", "tf32", "bf16", "fp16", "fp8", NULL, in enum order (for YAML enum lookups). */
extern const char *const dtype_names[];
/* dtype_bytes: bytes per element (fp8 = 1, bf16/fp16 = 2, tf32/fp32 = 4). */
int dtype_bytes(enum dtype dt);
/* dtype_name: the name above, "?" out of range. */
const char *dtype_name(enum dtype dt);
/* dtype_parse: 0 and *out set, or GS_EINVAL for an unknown name. */
int dtype_parse(const char *s, enum dtype *out);

#endif
