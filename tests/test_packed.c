/* test_packed: packed sequences (model.doc_tokens). A sequence of seq tokens packed from documents of d tokens runs
 * attention within each document, as a varlen flash kernel over cu_seqlens does: its attention costs what a batch
 * of seq/d sequences of d tokens costs (the same calls, the same rate at that batch x heads), while every other op
 * sees the same tokens. Model FLOPs count attention over d. */
#include <string.h>
#include "scenario/scenario.h"
#include "sim/ops.h"
#include "check.h"
#include "oplist.h"

static void load(struct scenario *s, const char *model, int mb)
{
	char buf[1024];
	snprintf(buf, sizeof buf,
		 "name: t\nmodel: {layers: 2, hidden: 1024, heads: 8, vocab: 32000, dtype: bf16, %s}\n"
		 "training: {global_batch: %d, micro_batch: %d}\nparallel: {gpus: 1}\nhardware: h100-dgx\n",
		 model, mb, mb);
	CHECK_INT(scenario_load_string("t.yaml", buf, NULL, s), 0);
}

static int loads(const char *model)
{
	char buf[1024];
	struct scenario s;
	snprintf(buf, sizeof buf,
		 "name: t\nmodel: {layers: 2, hidden: 1024, heads: 8, dtype: bf16, %s}\n"
		 "training: {global_batch: 2, micro_batch: 1}\nparallel: {gpus: 2, cp: 2}\nhardware: h100-dgx\n", model);
	return scenario_load_string("t.yaml", buf, NULL, &s);
}

int main(void)
{
	struct scenario packed, batch, plain;
	struct hwmodel *hw = NULL;
	/* one sequence of 8192 tokens packed from documents of 1024, against 8 sequences of 1024 */
	load(&packed, "seq: 8192, doc_tokens: 1024", 1);
	load(&batch, "seq: 1024", 8);
	load(&plain, "seq: 8192", 1);
	CHECK_INT(scenario_attn_len(&packed), 1024);
	CHECK_INT(scenario_attn_len(&plain), 8192);
	CHECK_INT(scenario_load_hardware(&packed, &hw), 0);
	struct opctx cp = { hw, &packed, 1, 8192, 0 }, cb = { hw, &batch, 1, 8192, 0 }, cl = { hw, &plain, 1, 8192, 0 };
	for (int bwd = 0; bwd < 2; bwd++) {
		/* the attention core: that of the batch of 8 short sequences, to the last bit */
		CHECK_NEAR(ops_attn_s(&cp, bwd), ops_attn_s(&cb, bwd), 0);
		/* an eighth of the work of one 8192-token attention: faster */
		CHECK(ops_attn_s(&cp, bwd) < ops_attn_s(&cl, bwd));
	}
	/* every op of a layer: the same list and times as the batch of 8 (same tokens, same GEMMs) */
	struct opcost a[OPS_MAX], b[OPS_MAX];
	int na = ops_layer_fwd(&cp, a), nb = ops_layer_fwd(&cb, b);
	CHECK_INT(na, nb);
	for (int i = 0; i < na && i < nb; i++) {
		CHECK_STR(a[i].name, b[i].name);
		CHECK_NEAR(a[i].s, b[i].s, 0);
	}
	/* model FLOPs: 6 N T + 12 len h L T, T = 8192 tokens in both; the attention term with len 1024 for the
	 * packed and the batch, 8192 for the plain sequence: plain - packed = 12 (8192 - 1024) h L T */
	double T = 8192, h = 1024, L = 2;
	CHECK_NEAR(scenario_model_flops(&packed), scenario_model_flops(&batch), 0);
	CHECK_NEAR(scenario_model_flops(&plain) - scenario_model_flops(&packed), 12 * (8192.0 - 1024) * h * L * T,
		   1e-9);
	hwmodel_free(hw);
	/* what packing cannot be: longer than the sequence, unfused, with context parallelism, in an MLP */
	CHECK(loads("seq: 1024, doc_tokens: 2048") != 0);
	CHECK(loads("seq: 1024, doc_tokens: 256, flash_attention: false") != 0);
	CHECK(loads("seq: 1024, doc_tokens: 256") != 0);  /* cp 2 */
	return check_result();
}
