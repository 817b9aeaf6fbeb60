/* test_pipecfg: the pipeline as configured (issue 13 item 7): an uneven layer split (parallel.first_stage_layers
 * / last_stage_layers), tied embeddings (model.tie_embeddings) with their gradient all-reduce between the first
 * and last stage, and the vocabulary-parallel cross entropy's three TP all-reduces, on the toy GPU of test_sp
 * (memory-bound ops at exactly 1000 GB/s, collectives alpha 10 us + bytes at 100 GB/s bus bandwidth, no host
 * cost). Model: h = 64, 4 heads, GeLU f = 256, bf16, vocabulary 1000; a layer holds 12h^2 + 2h = 49,280
 * parameters, a vocabulary matrix 64,000. */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include "capture.h"
#include "check.h"
#include "toy_hw.h"
#include "scenario/scenario.h"
#include "sim/build.h"
#include "sim/comm.h"
#include "sim/ops.h"
#include "sim/predict.h"


static int load(struct scenario *s, int layers, const char *model_extra, const char *par)
{
	char buf[1024];
	snprintf(buf, sizeof buf,
		 "name: t\nmodel: {layers: %d, hidden: 64, heads: 4, seq: 128, ffn: gelu, ffn_hidden: 256, dtype: bf16, "
		 "vocab: 1000%s}\ntraining: {global_batch: 4, micro_batch: 1}\nparallel: {%s}\nhardware: h100-dgx\n",
		 layers, model_extra, par);
	return scenario_load_string("t.yaml", buf, NULL, s);
}

/* Sum of the compute-bound ops' times of an op list. */
static double bound(const struct opcost *o, int n)
{
	double t = 0;
	for (int i = 0; i < n; i++)
		if (o[i].kind == OPK_COMPUTE && o[i].compute_bound)
			t += o[i].s;
	return t;
}

/* 6 layers over pp 3 with first_stage_layers 1 and last_stage_layers 1: the middle stage takes the other 4
 * (Megatron's --decoder-first/last-pipeline-num-layers). Stage 0 holds layer 0 and the embedding, stage 1
 * layers 1-4, stage 2 layer 5 and the head: weights (49,280 + 64,000) * 2 B = 226,560 B, 4 * 49,280 * 2 =
 * 394,240 B and 226,560 B. Each of the 4 micro-batches runs every layer of the stage forward and backward once,
 * so the compute-bound time of stage 1 is 4 * 4 * (B_f + B_b) (the layer's GEMMs and attention core) and of
 * stage 2 4 * (B_f + B_b + its head's logits GEMMs). */
static void test_uneven(const struct hwmodel *hw)
{
	struct scenario s;
	CHECK_INT(load(&s, 6, "", "pp: 3, gpus: 3, first_stage_layers: 1, last_stage_layers: 1"), 0);
	CHECK(scenario_uneven_split(&s));
	CHECK_INT(scenario_chunk_layers(&s, 0), 1);
	CHECK_INT(scenario_chunk_layers(&s, 1), 4);
	CHECK_INT(scenario_chunk_layers(&s, 2), 1);
	CHECK_INT(scenario_chunk_first_layer(&s, 2), 5);
	CHECK_INT(scenario_min_chunk_layers(&s), 1);
	CHECK_INT(scenario_max_chunk_layers(&s), 4);
	struct build b;
	CHECK_INT(build_programs(&s, hw, 0, &b), 0);
	CHECK_NEAR(b.stages[0].weights, 226560, 0);
	CHECK_NEAR(b.stages[1].weights, 394240, 0);
	CHECK_NEAR(b.stages[2].weights, 226560, 0);
	struct opctx oc = { hw, &s, 1, 128, 0 };
	struct opcost f[OPS_MAX], g[OPS_MAX], hf[OPS_MAX], hb[OPS_MAX];
	double layer = bound(f, ops_layer_fwd(&oc, f)) + bound(g, ops_layer_bwd(&oc, 0, g));
	double head = bound(hf, ops_head_fwd(&oc, hf)) + bound(hb, ops_head_bwd(&oc, hb));
	CHECK_NEAR(b.stages[1].compute_bound_s, 4 * 4 * layer, 1e-15);
	CHECK_NEAR(b.stages[2].compute_bound_s, 4 * (layer + head), 1e-15);
	CHECK_NEAR(b.stages[0].compute_bound_s, 4 * layer, 1e-15);
	build_release(&b);
	struct result r;
	CHECK_INT(predict_run(&s, hw, NULL, &r), 0);

	/* the split must be whole: 6 - 1 = 5 layers do not split over the other 2 stages */
	char why[256];
	struct scenario t = s;
	t.par.last_stage_layers = 0;
	CHECK(scenario_check_layout(&t, why, sizeof why) != 0);
	CHECK_CONTAINS(why, "the other 2 stages must split the remaining 5 of model.layers (6) evenly");
	cap_begin();
	CHECK(load(&t, 6, "", "pp: 3, gpus: 3, first_stage_layers: 1") != 0);
	CHECK_CONTAINS(cap_end(), "t.yaml:4:48: parallel.first_stage_layers: the other 2 stages must split the "
				  "remaining 5 of model.layers (6) evenly, at least one layer each");
	cap_begin();
	CHECK(load(&t, 6, "", "pp: 2, gpus: 2, schedule: interleaved, virtual_stages: 3, last_stage_layers: 2") != 0);
	CHECK_CONTAINS(cap_end(), "parallel.last_stage_layers: an uneven pipeline split runs the 1f1b or gpipe "
				  "schedule, not interleaved");
	cap_begin();
	CHECK(load(&t, 6, "", "gpus: 1, first_stage_layers: 2") != 0);
	CHECK_CONTAINS(cap_end(), "needs pp >= 2 (pp is 1)");
	/* pp 2: the two given counts must make the model */
	CHECK_INT(load(&t, 6, "", "pp: 2, gpus: 2, first_stage_layers: 2, last_stage_layers: 4"), 0);
	cap_begin();
	CHECK(load(&t, 6, "", "pp: 2, gpus: 2, first_stage_layers: 2, last_stage_layers: 3") != 0);
	CHECK_CONTAINS(cap_end(), "first_stage_layers + last_stage_layers (2 + 3) must be model.layers (6) with pp 2");
}

/* Tied embeddings. One stage: the head multiplies by the embedding's matrix, so 2 layers hold 2 * 49,280 +
 * 64,000 = 162,560 parameters (untied 226,560): weights 325,120 B (bf16), gradients the same, Adam with fp32
 * master weights and master gradients 16 B per parameter = 2,600,960 B. Two stages: each keeps a copy (stage 0
 * the embedding, stage 1 the head), and after the backward they all-reduce its gradients, 64,000 * 2 B =
 * 128,000 B over the two ranks: ring all-reduce of 2, 2(n-1)/n = 1 of the bytes at 100 GB/s plus 10 us =
 * 11.28 us. Stage 0 finishes its backward last (1F1B), so the step is longer by exactly that. */
static void test_tied(const struct hwmodel *hw)
{
	struct scenario s, u;
	CHECK_INT(load(&s, 2, ", tie_embeddings: true", "gpus: 1"), 0);
	CHECK_INT(load(&u, 2, "", "gpus: 1"), 0);
	CHECK_NEAR(scenario_params_embedding(&s), 64000, 0);
	CHECK_NEAR(scenario_params_embedding(&u), 128000, 0);
	struct build b;
	CHECK_INT(build_programs(&s, hw, 0, &b), 0);
	CHECK_NEAR(b.stages[0].weights, 325120, 0);
	CHECK_NEAR(b.stages[0].gradients, 325120, 0);
	CHECK_NEAR(b.stages[0].optimizer, 2600960, 0);
	build_release(&b);

	CHECK_INT(load(&s, 2, ", tie_embeddings: true", "pp: 2, gpus: 2"), 0);
	CHECK_INT(load(&u, 2, "", "pp: 2, gpus: 2"), 0);
	struct result rs, ru;
	CHECK_INT(predict_run(&s, hw, NULL, &rs), 0);
	CHECK_INT(predict_run(&u, hw, NULL, &ru), 0);
	double t = comm_coll_s(hw, COLL_ALL_REDUCE, 128000, comm_shape(8, 0, 1, 2));
	CHECK_NEAR(t, 10e-6 + 128000 / 100e9, 1e-15);
	CHECK_TICKS(rs.step_time_s - ru.step_time_s, t, 16);
	CHECK_NEAR(rs.mem.total, ru.mem.total, 0);  /* both stages keep their copy */
	cap_begin();
	CHECK(scenario_load_string("t.yaml", "name: t\nmodel: {type: mlp, layers: 2, hidden: 64, tie_embeddings: true}\n"
				   "training: {global_batch: 4, micro_batch: 1}\nhardware: h100-dgx\n", NULL, &s) != 0);
	CHECK_CONTAINS(cap_end(), "model.tie_embeddings: only for transformer models");
}

/* Vocabulary-parallel cross entropy over tp = 2: three all-reduces of T = 128 fp32 values (512 B): the row
 * maxima, the target logits and the sums of exponentials; the backward has none. */
static void test_vocab_ce(const struct hwmodel *hw)
{
	struct scenario s;
	CHECK_INT(load(&s, 2, "", "tp: 2, gpus: 2"), 0);
	struct opctx oc = { hw, &s, 2, 128, 0 };
	struct opcost o[OPS_MAX];
	int n = ops_head_fwd(&oc, o), k = 0;
	static const char *const names[] = { "tp_allreduce_ce_max", "tp_allreduce_ce_target", "tp_allreduce_ce_sumexp" };
	for (int i = 0; i < n; i++)
		if (o[i].kind == OPK_TP_ALLREDUCE) {
			CHECK_STR(o[i].name, names[k < 3 ? k : 2]);
			CHECK_NEAR(o[i].bytes, 512, 0);
			k++;
		}
	CHECK_INT(k, 3);
	n = ops_head_bwd(&oc, o);
	for (int i = 0; i < n; i++)
		CHECK(strncmp(o[i].name, "tp_allreduce_ce", 15) != 0);
}

int main(void)
{
	struct hwmodel *hw = toy_load();
	if (!hw)
		return check_result();
	test_uneven(hw);
	test_tied(hw);
	test_vocab_ce(hw);
	hwmodel_free(hw);
	return check_result();
}
