/* test_scenario: defaults, derived numbers a person can check by hand (a tiny model, Llama-2-70B against its
 * released parameter count), every class of bad input with its exact "file:line:col: message", the --gpus and
 * --hw overrides, hardware path resolution, and that the shipped scenarios load. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "capture.h"
#include "check.h"
#include "hardware/hwmodel.h"
#include "scenario/scenario.h"
#include "util/gserr.h"

#define TINY_MODEL "model:\n  layers: 2\n  hidden: 8\n  heads: 2\n  kv_heads: 1\n  seq: 4\n  vocab: 10\n"
#define TINY_TRAIN "training:\n  global_batch: 4\n  micro_batch: 1\n"

static void test_tiny(void)
{
	struct scenario s;
	const char *text = TINY_MODEL TINY_TRAIN "parallel:\n  gpus: 2\nhardware: h100-dgx\n";
	CHECK_INT(scenario_load_string("dir/tiny.yaml", text, NULL, &s), 0);
	CHECK_STR(s.name, "tiny"); /* the file stem */
	CHECK_STR(s.model.name, "tiny");
	CHECK_INT(s.model.type, MODEL_TRANSFORMER);
	CHECK_INT(s.model.ffn, FFN_GELU);
	CHECK_INT(s.model.ffn_hidden, 32); /* 4*hidden */
	CHECK_INT(s.model.dtype, DT_BF16);
	CHECK(s.model.flash_attention && s.model.causal);
	CHECK_INT(s.train.optimizer, OPT_ADAM);
	CHECK_INT(s.train.master_dtype, DT_FP32);
	CHECK_INT(s.train.grad_dtype, DT_BF16); /* the model dtype */
	CHECK_INT(s.train.recompute, RECOMPUTE_NONE);
	CHECK_INT(s.par.tp, 1);
	CHECK_INT(s.par.pp, 1);
	CHECK_INT(s.par.dp, 2);
	CHECK_INT(s.par.gpus, 2);
	CHECK_INT(s.par.schedule, SCHED_1F1B);
	CHECK_INT(s.par.virtual_stages, 1);
	CHECK_NEAR(s.par.dp_bucket_bytes, 25e6, 1e-15);
	CHECK(s.par.dp_overlap);
	CHECK_STR(s.hardware, "h100-dgx");
	CHECK_INT(s.hardware_line, 13);
	CHECK_INT(s.hardware_col, 11);
	CHECK_INT(scenario_num_microbatches(&s), 2); /* 4 / (2*1) */
	/* per layer: Q and O 2*8*8 = 128, K and V 2*8*(8*1/2) = 64, MLP 2*8*32 = 512, norms 2*8 = 16 */
	CHECK_NEAR(scenario_params_per_layer(&s), 720, 1e-15);
	CHECK_NEAR(scenario_params_embedding(&s), 160, 1e-15);         /* 2*10*8 */
	CHECK_NEAR(scenario_params_total(&s), 2 * 720 + 160 + 8, 1e-15); /* + final norm */
	/* tokens 4*4 = 16: layers 6*2*720*16 = 138240, head 6*10*8*16 = 7680, attention 12*4*8*2*16 = 12288 */
	CHECK_NEAR(scenario_model_flops(&s), 138240 + 7680 + 12288, 1e-15);
}

static void test_defaults_and_dtypes(void)
{
	struct scenario s;
	const char *swiglu = "model:\n  layers: 80\n  hidden: 8192\n  heads: 64\n  ffn: swiglu\n  seq: 4096\n"
			     TINY_TRAIN "parallel:\n  dp: 4\nhardware: h100-dgx\n";
	CHECK_INT(scenario_load_string("s.yaml", swiglu, NULL, &s), 0);
	CHECK_INT(s.model.ffn_hidden, 22016); /* 8/3*8192 = 21845.3, up to a multiple of 256 */
	CHECK_INT(s.model.kv_heads, 64);
	CHECK_INT(s.par.gpus, 4);            /* dp*tp*pp */
	const char *mlp = "model:\n  type: mlp\n  layers: 4\n  hidden: 1024\n"
			  "training:\n  global_batch: 8\n  micro_batch: 2\nparallel:\n  gpus: 2\nhardware: h100-dgx\n";
	CHECK_INT(scenario_load_string("m.yaml", mlp, NULL, &s), 0);
	CHECK_INT(s.model.seq, 1);
	CHECK_INT(s.model.heads, 0);
	CHECK_NEAR(scenario_params_per_layer(&s), 2.0 * 1024 * 4096, 1e-15);
	CHECK_NEAR(scenario_params_total(&s), 4 * 2.0 * 1024 * 4096, 1e-15);
	CHECK_NEAR(scenario_model_flops(&s), 6 * 4 * 2.0 * 1024 * 4096 * 8, 1e-15);

	CHECK_INT(dtype_bytes(DT_FP8), 1);
	CHECK_INT(dtype_bytes(DT_BF16), 2);
	CHECK_INT(dtype_bytes(DT_FP16), 2);
	CHECK_INT(dtype_bytes(DT_TF32), 4);
	CHECK_INT(dtype_bytes(DT_FP32), 4);
	enum dtype dt;
	CHECK_INT(dtype_parse("fp16", &dt), 0);
	CHECK_INT(dt, DT_FP16);
	CHECK_INT(dtype_parse("int8", &dt), GS_EINVAL);
	CHECK_STR(dtype_name(DT_TF32), "tf32");
}

/* Loads text as bad.yaml expecting GS_EINVAL and returns what was printed. */
static const char *bad(const char *text, const struct scenario_overrides *ov)
{
	struct scenario s;
	cap_begin();
	int rc = scenario_load_string("bad.yaml", text, ov, &s);
	const char *out = cap_end();
	CHECK_INT(rc, GS_EINVAL);
	return out;
}

/* Hostile numbers (issue 16): a physical range per key, checked at load where the number stands. */
static void test_ranges(void)
{
	CHECK_STR(bad("model:\n  layers: 1e9\n  hidden: 8\n  heads: 2\n  seq: 4\n" TINY_TRAIN
		      "parallel:\n  gpus: 2\nhardware: h100-dgx\n", NULL),
		  "gpusim: bad.yaml:2:11: model.layers: 1e9 is out of range (1 to 100000)\n");
	CHECK_STR(bad("model:\n  layers: 2\n  hidden: 8\n  heads: 2\n  seq: 4\n"
		      "training:\n  global_batch: 16777216\n  micro_batch: 1\n"
		      "parallel:\n  gpus: 2\nhardware: h100-dgx\n", NULL),
		  "gpusim: bad.yaml:7:17: training.global_batch: 16777216 is out of range (1 to 10000000)\n");
	CHECK_STR(bad("model:\n  layers: 2\n  hidden: 8\n  heads: 2\n  seq: 4\n" TINY_TRAIN
		      "parallel:\n  gpus: 2e7\nhardware: h100-dgx\n", NULL),
		  "gpusim: bad.yaml:10:9: parallel.gpus: 2e7 is out of range (1 to 10000000)\n");
}

static void test_errors(void)
{
	CHECK_STR(bad("model:\n  layers: 2\n  hiden: 8\n  hidden: 8\n  heads: 2\n  seq: 4\n" TINY_TRAIN
		      "parallel:\n  gpus: 2\nhardware: h100-dgx\n", NULL),
		  "gpusim: bad.yaml:3:3: unknown key 'hiden' (did you mean 'hidden'?)\n");
	CHECK_STR(bad("model: [1\n", NULL),
		  "gpusim: bad.yaml:2:1: syntax error: did not find expected ',' or ']' while parsing a flow sequence "
		  "(started at 1:8)\n");
	CHECK_STR(bad("model:\n  layers: 2\n  heads: 2\n  seq: 4\n" TINY_TRAIN "parallel:\n  gpus: 2\n"
		      "hardware: h100-dgx\n", NULL),
		  "gpusim: bad.yaml:2:3: missing required key 'model.hidden'\n");
	CHECK_STR(bad(TINY_MODEL "parallel:\n  gpus: 2\nhardware: h100-dgx\n", NULL),
		  "gpusim: bad.yaml:1:1: missing required key 'training'\n");
	CHECK_STR(bad(TINY_MODEL TINY_TRAIN "parallel:\n  gpus: 2\n", NULL),
		  "gpusim: bad.yaml:1:1: missing required key 'hardware'\n");
	CHECK_STR(bad("model:\n  layers: eighty\n  hidden: 8\n  heads: 2\n  seq: 4\n" TINY_TRAIN "parallel:\n"
		      "  gpus: 2\nhardware: h100-dgx\n", NULL),
		  "gpusim: bad.yaml:2:11: model.layers: expected an integer, got 'eighty'\n");
	CHECK_STR(bad(TINY_MODEL "training:\n  global_batch: 4\n  micro_batch: 0\n" "parallel:\n  gpus: 2\n"
		      "hardware: h100-dgx\n", NULL),
		  "gpusim: bad.yaml:10:16: training.micro_batch: must be positive, got 0\n");
	CHECK_STR(bad(TINY_MODEL TINY_TRAIN "parallel:\n  gpus: 2\n  tp: 3\nhardware: h100-dgx\n", NULL),
		  "gpusim: bad.yaml:13:7: parallel.tp (3) does not divide model.heads (2)\n"
		  "gpusim: bad.yaml:13:7: parallel.tp (3) does not divide model.kv_heads (1)\n"
		  "gpusim: bad.yaml:13:7: parallel.tp (3) does not divide model.hidden (8)\n"
		  "gpusim: bad.yaml:13:7: parallel.tp (3) does not divide model.ffn_hidden (32)\n"
		  "gpusim: bad.yaml:12:9: parallel.gpus (2) is not a multiple of tp*pp = 3*1 = 3\n");
	CHECK_STR(bad("model:\n  layers: 3\n  hidden: 8\n  heads: 2\n  seq: 4\n" TINY_TRAIN
		      "parallel:\n  gpus: 2\n  pp: 2\nhardware: h100-dgx\n", NULL),
		  "gpusim: bad.yaml:2:11: model.layers (3) is not divisible by parallel.pp (2)\n");
	CHECK_STR(bad(TINY_MODEL TINY_TRAIN "parallel:\n  gpus: 8\n  dp: 2\n  pp: 2\nhardware: h100-dgx\n", NULL),
		  "gpusim: bad.yaml:12:9: parallel.gpus (8) must equal dp*tp*pp = 2*1*2 = 4\n");
	CHECK_STR(bad(TINY_MODEL "training:\n  global_batch: 5\n  micro_batch: 1\n" "parallel:\n  gpus: 2\n"
		      "hardware: h100-dgx\n", NULL),
		  "gpusim: bad.yaml:9:17: training.global_batch (5) is not a multiple of dp*micro_batch = 2*1 = 2\n");
	CHECK_STR(bad(TINY_MODEL TINY_TRAIN "parallel:\n  gpus: 2\n  schedule: interleaved\nhardware: h100-dgx\n",
		      NULL),
		  "gpusim: bad.yaml:13:13: parallel.schedule: interleaved needs pp >= 2 (pp is 1)\n");
	/* 4 sequences over dp 1 = 4 micro-batches, not a multiple of pp = 8 */
	CHECK_STR(bad("model:\n  layers: 16\n  hidden: 8\n  heads: 2\n  seq: 4\n" TINY_TRAIN
		      "parallel:\n  gpus: 8\n  pp: 8\n  schedule: interleaved\nhardware: h100-dgx\n", NULL),
		  "gpusim: bad.yaml:12:13: parallel.schedule: interleaved needs the number of micro-batches "
		  "(4 = global_batch/(dp*micro_batch)) to be a multiple of pp (8)\n");
	CHECK_STR(bad("model:\n  layers: 12\n  hidden: 8\n  heads: 2\n  seq: 4\n" "training:\n  global_batch: 8\n"
		      "  micro_batch: 1\nparallel:\n  gpus: 4\n  pp: 4\n  schedule: interleaved\n"
		      "  virtual_stages: 2\nhardware: h100-dgx\n", NULL),
		  "gpusim: bad.yaml:2:11: model.layers (12) is not divisible by pp*virtual_stages = 4*2 = 8\n");
	CHECK_STR(bad(TINY_MODEL TINY_TRAIN "parallel:\n  gpus: 2\n  virtual_stages: 2\nhardware: h100-dgx\n", NULL),
		  "gpusim: bad.yaml:13:19: parallel.virtual_stages: only with schedule: interleaved (schedule is 1f1b)\n");
	CHECK_STR(bad(TINY_MODEL TINY_TRAIN "parallel:\n  tp: 1\nhardware: h100-dgx\n", NULL),
		  "gpusim: bad.yaml:12:3: missing required key 'parallel.gpus' (or give 'parallel.dp')\n");
	CHECK_STR(bad("model:\n  layers: 2\n  hidden: 8\n  heads: 3\n  seq: 4\n" TINY_TRAIN "parallel:\n  gpus: 1\n"
		      "hardware: h100-dgx\n", NULL),
		  "gpusim: bad.yaml:4:10: model.heads (3) does not divide model.hidden (8)\n");
	CHECK_STR(bad("model:\n  type: mlp\n  layers: 2\n  hidden: 8\n  seq: 16\n" TINY_TRAIN "parallel:\n"
		      "  gpus: 1\nhardware: h100-dgx\n", NULL),
		  "gpusim: bad.yaml:5:8: model.seq: an mlp takes one token per sample, so seq must be 1 (or left out)\n");
	CHECK_STR(bad("model:\n  type: mlp\n  layers: 2\n  hidden: 8\n  heads: 2\n" TINY_TRAIN "parallel:\n"
		      "  gpus: 1\nhardware: h100-dgx\n", NULL),
		  "gpusim: bad.yaml:5:10: model.heads: only for transformer models (an mlp has no attention)\n");
	CHECK_STR(bad(TINY_MODEL "  dtype: bf61\n" TINY_TRAIN "parallel:\n  gpus: 2\nhardware: h100-dgx\n", NULL),
		  "gpusim: bad.yaml:8:10: model.dtype: unknown value 'bf61' (did you mean 'bf16'?)\n");
	CHECK_STR(bad(TINY_MODEL "  dtype: fp16\ntraining:\n  global_batch: 4\n  micro_batch: 1\n"
		      "  master_weights: bf16\n" "parallel:\n  gpus: 2\nhardware: h100-dgx\n", NULL),
		  "gpusim: bad.yaml:12:19: training.master_weights: must be fp32 or the model dtype (fp16), got bf16\n");
	CHECK_STR(bad("- a\n- b\n", NULL),
		  "gpusim: bad.yaml:1:1: expected a mapping of scenario keys (name, model, training, parallel, "
		  "hardware), got a sequence\n");
	/* several independent field errors are all reported */
	CHECK_STR(bad("model:\n  layers: 0\n  hidden: -8\n  heads: 2\n  seq: 4\n" TINY_TRAIN "tarining: 1\n", NULL),
		  "gpusim: bad.yaml:9:1: unknown key 'tarining' (did you mean 'training'?)\n"
		  "gpusim: bad.yaml:2:11: model.layers: must be positive, got 0\n"
		  "gpusim: bad.yaml:3:11: model.hidden: must be positive, got -8\n"
		  "gpusim: bad.yaml:1:1: missing required key 'hardware'\n");
}

static void test_overrides(void)
{
	struct scenario s;
	const char *text = "model:\n  layers: 8\n  hidden: 64\n  heads: 8\n  seq: 4\n"
			   "training:\n  global_batch: 64\n  micro_batch: 1\n"
			   "parallel:\n  gpus: 64\n  tp: 8\n  pp: 4\n  dp: 2\nhardware: hw/box.yaml\n";
	struct scenario_overrides ov = { .gpus = 128 };
	CHECK_INT(scenario_load_string("runs/a/x.yaml", text, &ov, &s), 0);
	CHECK_INT(s.par.gpus, 128);
	CHECK_INT(s.par.dp, 4); /* 128/(8*4) */
	CHECK_INT(scenario_num_microbatches(&s), 16);
	CHECK_STR(s.hardware, "runs/a/hw/box.yaml"); /* relative to the scenario's folder */

	ov = (struct scenario_overrides){ .gpus = 60 };
	/* valid counts are 32*dp with 64 % dp == 0: 32, 64, 128, ...; 60 lies between 32 and 64 */
	CHECK_STR(bad(text, &ov), "gpusim: --gpus 60 is not a multiple of tp*pp = 8*4 = 32; nearest valid counts: "
				  "32, 64\n");
	/* 96 = 32*3 is a multiple, but dp = 3 does not split the batch of 64: the nearest counts skip it */
	ov = (struct scenario_overrides){ .gpus = 96 };
	CHECK_STR(bad(text, &ov), "gpusim: --gpus 96 gives dp = 3, and training.global_batch (64) is not a multiple "
				  "of dp*micro_batch = 3*1 = 3; nearest valid counts: 64, 128\n");
	/* above dp = 64 no batch of 64 splits: only a count below is offered */
	ov = (struct scenario_overrides){ .gpus = 3000 };
	CHECK_STR(bad(text, &ov), "gpusim: --gpus 3000 is not a multiple of tp*pp = 8*4 = 32; nearest valid count: "
				  "2048\n");

	ov = (struct scenario_overrides){ .hardware = "my/hw.yaml" };
	CHECK_INT(scenario_load_string("runs/a/x.yaml", text, &ov, &s), 0);
	CHECK_STR(s.hardware, "my/hw.yaml"); /* a command-line path stays relative to the working directory */
	CHECK_INT(s.hardware_line, 0);

	const char *abs = "model:\n  layers: 8\n  hidden: 64\n  heads: 8\n  seq: 4\n"
			  "training:\n  global_batch: 64\n  micro_batch: 1\nparallel:\n  dp: 1\nhardware: /opt/hw.yml\n";
	CHECK_INT(scenario_load_string("runs/a/x.yaml", abs, NULL, &s), 0);
	CHECK_STR(s.hardware, "/opt/hw.yml");
}

static void test_load_hardware(void)
{
	struct scenario s;
	struct hwmodel *hw = NULL;
	const char *text = TINY_MODEL TINY_TRAIN "parallel:\n  gpus: 2\nhardware: h100-dxg\n";
	CHECK_INT(scenario_load_string("bad.yaml", text, NULL, &s), 0); /* presets are checked when loaded */
	cap_begin();
	int rc = scenario_load_hardware(&s, &hw);
	const char *out = cap_end();
	CHECK_INT(rc, GS_EINVAL);
	CHECK(hw == NULL);
	CHECK_STR(out, "gpusim: bad.yaml:13:11: unknown hardware preset 'h100-dxg' (did you mean 'h100-dgx'? presets: "
		       "a100-dgx, b200-hgx, gb200-nvl72, gb300-nvl72, h100-dgx, h100-sxm-94gb, h100-sxm-96gb, h200-sxm, "
		       "rtx4070ti-super-pcie)\n");

	text = TINY_MODEL "  dtype: fp8\n" TINY_TRAIN "parallel:\n  gpus: 2\nhardware: a100-dgx\n";
	CHECK_INT(scenario_load_string("fp8.yaml", text, NULL, &s), 0);
	cap_begin();
	rc = scenario_load_hardware(&s, &hw);
	out = cap_end();
	CHECK_INT(rc, GS_EINVAL);
	CHECK_STR(out, "gpusim: fp8.yaml:14:11: hardware 'a100-dgx' has no fp8 peak (gpu.peak_tflops.fp8), so "
		       "model.dtype fp8 cannot run on it\n");

	text = TINY_MODEL TINY_TRAIN "parallel:\n  gpus: 2\nhardware: missing.yaml\n";
	CHECK_INT(scenario_load_string("dir/x.yaml", text, NULL, &s), 0);
	cap_begin();
	rc = scenario_load_hardware(&s, &hw);
	out = cap_end();
	CHECK_INT(rc, GS_EENV);
	CHECK_STR(out, "gpusim: dir/x.yaml:13:11: cannot read hardware file 'dir/missing.yaml': "
		       "No such file or directory\n");

	text = TINY_MODEL TINY_TRAIN "parallel:\n  gpus: 2\nhardware: h200-sxm\n";
	CHECK_INT(scenario_load_string("ok.yaml", text, NULL, &s), 0);
	CHECK_INT(scenario_load_hardware(&s, &hw), 0);
	CHECK(hw != NULL);
	if (hw)
		CHECK_STR(hw->name, "h200-sxm");
	hwmodel_free(hw);
}

/* The shipped scenarios load, and their headline numbers are the ones their comments claim. */
static void test_shipped(void)
{
	struct scenario s;
	struct hwmodel *hw;
	CHECK_INT(scenario_load("scenarios/70b_64gpu.yaml", NULL, &s), 0);
	CHECK_STR(s.name, "llama2-70b-64gpu");
	CHECK_INT(s.par.gpus, 64);
	CHECK_INT(s.par.dp, 2);
	CHECK_INT(scenario_num_microbatches(&s), 512);
	CHECK_NEAR(scenario_params_total(&s), 68976648192.0, 1e-15); /* the released Llama-2-70B checkpoint */
	CHECK_INT(scenario_load_hardware(&s, &hw), 0);
	hwmodel_free(hw);

	CHECK_INT(scenario_load("scenarios/gpt3_175b_1024gpu.yaml", NULL, &s), 0);
	CHECK_INT(s.par.gpus, 1024);
	CHECK_INT(s.model.ffn_hidden, 49152);
	CHECK_INT(scenario_num_microbatches(&s), 192);
	/* 96 layers * 12*12288^2 (+norms) + 2*51200*12288: 175.2e9 */
	CHECK_NEAR(scenario_params_total(&s), 96 * (12.0 * 12288 * 12288 + 2 * 12288) + 2.0 * 51200 * 12288 + 12288,
		   1e-15);
	CHECK_INT(scenario_load_hardware(&s, &hw), 0);
	hwmodel_free(hw);

	CHECK_INT(scenario_load("scenarios/gpt_small_2gpu.yaml", NULL, &s), 0);
	CHECK_INT(s.par.gpus, 2);
	CHECK_INT(scenario_num_microbatches(&s), 4);
	CHECK_NEAR(scenario_params_total(&s), 162148608.0, 1e-15);
	CHECK_INT(scenario_load_hardware(&s, &hw), 0);
	hwmodel_free(hw);

	CHECK_INT(scenario_load("scenarios/mlp_pcie_2gpu.yaml", NULL, &s), 0);
	CHECK_INT(s.model.type, MODEL_MLP);
	CHECK_INT(scenario_num_microbatches(&s), 1);                 /* 1024 / (2 * 512) */
	CHECK_NEAR(scenario_params_total(&s), 8388608.0, 1e-15);    /* 4 layers * 2 * 512 * 2048 */
	CHECK_INT(scenario_load_hardware(&s, &hw), 0);
	hwmodel_free(hw);
}

int main(void)
{
	test_tiny();
	test_defaults_and_dtypes();
	test_errors();
	test_ranges();
	test_overrides();
	test_load_hardware();
	test_shipped();
	return check_result();
}
