/* dtype: names and sizes of the number formats (util/dtype.h). */
#include "util/dtype.h"

#include <string.h>

#include "util/gserr.h"

const char *const dtype_names[] = { "fp32", "tf32", "bf16", "fp16", "fp8", NULL };

const char *dtype_name(enum dtype dt)
{
	return dt >= 0 && dt < DT_COUNT ? dtype_names[dt] : "?";
}

int dtype_parse(const char *s, enum dtype *out)
{
	for (int i = 0; i < DT_COUNT; i++)
		if (strcmp(s, dtype_names[i]) == 0)
			return *out = (enum dtype)i, 0;
	return GS_EINVAL;
}

int dtype_bytes(enum dtype dt)
{
	switch (dt) {
	case DT_FP8:
		return 1;
	case DT_BF16:
	case DT_FP16:
		return 2;
	default:
		return 4;
	}
}
