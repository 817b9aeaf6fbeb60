/* loadhw: a scenario's hardware model (scenario_load_hardware): the preset or file `hardware:` names, a
 * measured GPU composed into it (--gpu) or carried to another GPU (--target-gpu), another model's host costs
 * (--host), and the rails that refuse a model the job cannot run on (no peak for its dtype, no fp8 or
 * block-scaled tensor cores for its recipe). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hardware/hwmodel.h"
#include "scenario/scenario.h"
#include "util/diag.h"
#include "util/gserr.h"

/* --gpu FILE and --target-gpu PRESET applied to the loaded *hw (docs/hardware-model.md, "Compose"), and the guard
 * rail: a model from gpusim calibrate asked for more GPUs than its node holds gets a one-line warning. */
static int compose_gpu(const struct scenario *s, struct hwmodel **hw)
{
	int err = 0;
	if (s->gpu[0]) {
		struct hwmodel *m = hwmodel_load(s->gpu, &err);
		if (!m) {
			hwmodel_free(*hw);
			*hw = NULL;
			return err ? err : GS_EINVAL;
		}
		struct hwmodel *c = hwmodel_compose(*hw, m);
		hwmodel_free(m);
		hwmodel_free(*hw);
		*hw = c;
	}
	if (s->target_gpu[0]) {
		if (!hwmodel_is_preset_name(s->target_gpu) || !hwmodel_preset_text(s->target_gpu)) {
			hwmodel_free(*hw);
			*hw = NULL;
			return hwmodel_unknown_preset(NULL, 0, 0, s->target_gpu);
		}
		struct hwmodel *t = hwmodel_load(s->target_gpu, &err);
		if (!t) {
			hwmodel_free(*hw);
			*hw = NULL;
			return err ? err : GS_EINVAL;
		}
		hwmodel_retarget(*hw, t);
		hwmodel_free(t);
	}
	int gpus = s->par.gpus;
	if ((*hw)->origin.calibrated && gpus > (*hw)->node.gpus)
		diag_warning("'%s' is a calibration of %d GPU%s; %d GPUs become %d such nodes joined by its network; to "
			     "predict a cluster, put the measured GPU in a preset's node: --hw PRESET --gpu %s",
			     (*hw)->name, (*hw)->node.gpus, (*hw)->node.gpus == 1 ? "" : "s", gpus,
			     (gpus + (*hw)->node.gpus - 1) / (*hw)->node.gpus, (*hw)->path);
	return 0;
}

/* --host MODEL: the host section (every mode's costs, rank spread and host range, and its source) of MODEL
 * replaces the loaded model's; the report's origin says so. A model without a host section is refused: it would
 * silently price every op at 0. */
static int take_host(const struct scenario *s, struct hwmodel *hw)
{
	int err = 0;
	struct hwmodel *m = hwmodel_load(s->host, &err);
	if (!m)
		return err ? err : GS_EINVAL;
	bool any = false;
	for (int e = 0; e < EXEC_N && !any; e++)
		for (int i = 0; hw_host_keys[i].key && !any; i++)
			any = hw_host_value(&m->host.mode[e], i) > 0;
	if (!any) {
		diag_errorf("--host %s: '%s' has no host section (host.eager, host.compiled, ...) to take the host costs "
			    "from; give a calibration (gpusim calibrate --kernels torch) or a preset", s->host, m->name);
		hwmodel_free(m);
		return GS_EINVAL;
	}
	hw->host = m->host;
	char note[200];
	snprintf(note, sizeof note, "host costs from %.150s", s->host);
	size_t used = strlen(hw->origin.note);
	snprintf(hw->origin.note + used, sizeof hw->origin.note - used, "%s%s", used ? "; " : "", note);
	hwmodel_free(m);
	return 0;
}

int scenario_load_hardware(const struct scenario *s, struct hwmodel **out)
{
	const char *file = s->hardware_line > 0 ? s->path : NULL;
	int line = s->hardware_line, col = s->hardware_col, err = 0;
	*out = NULL;
	if (hwmodel_is_preset_name(s->hardware)) {
		if (!hwmodel_preset_text(s->hardware))
			return hwmodel_unknown_preset(file, line, col, s->hardware);
	} else {
		FILE *f = fopen(s->hardware, "rb");
		if (!f) {
			diag_error(file, line, col, "cannot read hardware file '%s': %s", s->hardware, strerror(errno));
			return GS_EENV;
		}
		fclose(f);
	}
	struct hwmodel *hw = hwmodel_load(s->hardware, &err);
	if (!hw)
		return err ? err : GS_EINVAL;
	if ((err = compose_gpu(s, &hw)) != 0)
		return err;
	if (s->host[0] && (err = take_host(s, hw)) != 0) {
		hwmodel_free(hw);
		return err;
	}
	enum dtype dt = s->model.dtype;
	if (!(hw->gpu.peak_tflops[dt] > 0)) {
		diag_error(file, line, col, "hardware '%s' has no %s peak (gpu.peak_tflops.%s), so model.dtype %s "
			   "cannot run on it", hw->name, dtype_name(dt), dtype_name(dt), dtype_name(dt));
		hwmodel_free(hw);
		return GS_EINVAL;
	}
	if (s->model.attn_cudnn && !hw->gpu.attn[ATTN_CUDNN].present) {
		diag_error(file, line, col, "hardware '%s' has no cuDNN attention entry (gpu.attention.cudnn: "
			   "gpusim calibrate --attention torch measures one), so model.attention_kernel cudnn cannot be "
			   "priced on it", hw->name);
		hwmodel_free(hw);
		return GS_EINVAL;
	}
	enum fp8_recipe r = s->train.fp8.recipe;
	if (r != FP8_NONE && !(hw->gpu.peak_tflops[DT_FP8] > 0)) {
		diag_error(file, line, col, "hardware '%s' has no fp8 peak (gpu.peak_tflops.fp8), so training.fp8 "
			   "cannot run on it", hw->name);
		hwmodel_free(hw);
		return GS_EINVAL;
	}
	if ((r == FP8_MXFP8 || r == FP8_NVFP4) && !(hw->gpu.peak_fp4_tflops > 0)) {
		diag_error(file, line, col, "hardware '%s' has no block-scaled tensor cores (gpu.peak_tflops.fp4: "
			   "Blackwell), so training.fp8.recipe %s cannot run on it", hw->name,
			   r == FP8_MXFP8 ? "mxfp8" : "nvfp4");
		hwmodel_free(hw);
		return GS_EINVAL;
	}
	*out = hw;
	return 0;
}
