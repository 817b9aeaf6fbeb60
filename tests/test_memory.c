/* test_memory: what a job keeps per parameter and moves in its optimizer step, by dtype keys, and the loss's
 * peak over the vocabulary, against numbers derived by hand (sim/memory.c, sim/ops.c). */
#include <stdlib.h>
#include "scenario/scenario.h"
#include "sim/build.h"
#include "sim/memory.h"
#include "sim/ops.h"
#include "check.h"

/* The scenarios run on h100-sxm-94gb, an H100 preset without gpu.kernels: memory-bound ops at the copy rate
 * (ops_mem_s), which the checks below derive by hand (h100-dgx carries the lent H100s' measured kernel families,
 * validate/preset_kernels.py). */
static void load(struct scenario *s, const char *model, const char *train)
{
	char buf[1024];
	snprintf(buf, sizeof buf,
		 "name: t\nmodel: {%s}\ntraining: {global_batch: 1, micro_batch: 1, %s}\n"
		 "parallel: {gpus: 1}\nhardware: h100-sxm-94gb\n", model, train);
	int rc = scenario_load_string("t.yaml", buf, NULL, s);
	CHECK_INT(rc, 0);
}

static void load_par(struct scenario *s, const char *model, const char *train, const char *par)
{
	char buf[1024];
	snprintf(buf, sizeof buf, "name: t\nmodel: {%s}\ntraining: {global_batch: 8, micro_batch: 2, %s}\n"
		 "parallel: {%s}\nhardware: h100-sxm-94gb\n", model, train, par);
	CHECK_INT(scenario_load_string("t.yaml", buf, NULL, s), 0);
}

/* What a stage holds beside its saved activations (mem_stage_extra_bytes), by hand: micro-batches of 2
 * sequences of 8 tokens, T = 16, h = 64, f = 256, bf16. One hidden-state tensor th = T*h*2 = 2,048 B; the MLP's
 * hidden gradient T*f*2 = 8,192 B; fc1's weight gradient f*h*2 = 32,768 B (SwiGLU: 2f*h*2 = 65,536 B). */
static void test_stage_extra(void)
{
	struct scenario s;
	const char *m = "layers: 4, hidden: 64, heads: 4, seq: 8, ffn_hidden: 256, dtype: bf16";
	/* one stage, one micro-batch in flight: its output and its arriving gradient, and the hidden gradient */
	load_par(&s, m, "grad_accumulation: fused", "gpus: 1");
	CHECK_NEAR(mem_stage_extra_bytes(&s, 1, 0, 1, 1), 2048 + 2048 + 8192, 0);
	/* PyTorch's accumulation into an existing .grad computes fc1's weight gradient first */
	load_par(&s, m, "grad_accumulation: add", "gpus: 1");
	CHECK_NEAR(mem_stage_extra_bytes(&s, 1, 0, 1, 1), 12288 + 32768, 0);
	/* staged: 4 micro-batches' inputs and output gradients (8 x th), less the input the first norm saves and the
	 * gradient counted as arriving */
	load_par(&s, m, "grad_accumulation: add, inputs: staged", "gpus: 1");
	CHECK_NEAR(mem_stage_extra_bytes(&s, 1, 0, 1, 1), 45056 + 8 * 2048 - 2048 - 2048, 0);
	/* two stages under 1F1B: the first receives a gradient, and frees its 2 sent outputs (Megatron-LM) or keeps
	 * them (pp_keep_outputs); the last keeps its 1 (no loss) and sends its input's gradient back */
	load_par(&s, m, "grad_accumulation: fused", "gpus: 2, pp: 2");
	CHECK_NEAR(mem_stage_extra_bytes(&s, 1, 0, 2, 2), 2048 + 8192, 0);
	CHECK_NEAR(mem_stage_extra_bytes(&s, 1, 1, 2, 1), 2048 + 2048 + 2048 + 8192, 0);
	load_par(&s, m, "grad_accumulation: fused", "gpus: 2, pp: 2, pp_keep_outputs: true");
	CHECK_NEAR(mem_stage_extra_bytes(&s, 1, 0, 2, 2), 2 * 2048 + 2048 + 8192, 0);
	/* TP 2 splits the MLP's hidden width (4,096 B); with SP also the hidden states (1,024 B each) */
	load_par(&s, m, "grad_accumulation: fused", "gpus: 2, tp: 2");
	CHECK_NEAR(mem_stage_extra_bytes(&s, 2, 0, 1, 1), 2048 + 2048 + 4096, 0);
	load_par(&s, m, "grad_accumulation: fused", "gpus: 2, tp: 2, sp: true");
	CHECK_NEAR(mem_stage_extra_bytes(&s, 2, 0, 1, 1), 1024 + 1024 + 4096, 0);
	/* SwiGLU: fc1 is 2f wide, its weight gradient twice GeLU's; the hidden gradient stays T*f */
	load_par(&s, "layers: 4, hidden: 64, heads: 4, seq: 8, ffn: swiglu, ffn_hidden: 256, dtype: bf16",
		 "grad_accumulation: add", "gpus: 1");
	CHECK_NEAR(mem_stage_extra_bytes(&s, 1, 0, 1, 1), 2048 + 2048 + 8192 + 65536, 0);
	/* a vocabulary: the head keeps the last stage's output; staged inputs are token ids and targets, 16 B a
	 * token: 4 x 16 x 16 */
	load_par(&s, "layers: 4, hidden: 64, heads: 4, seq: 8, ffn_hidden: 256, vocab: 100, dtype: bf16",
		 "grad_accumulation: fused, inputs: staged", "gpus: 1");
	CHECK_NEAR(mem_stage_extra_bytes(&s, 1, 0, 1, 1), 2048 + 8192 + 1024, 0);
	/* a dense layer list: nothing (not measured) */
	load_par(&s, "type: dense, widths: [64, 32, 10]", "grad_accumulation: add", "gpus: 1");
	CHECK_NEAR(mem_stage_extra_bytes(&s, 1, 0, 1, 1), 0, 0);
}

int main(void)
{
	struct scenario s;
	const char *gpt = "layers: 2, hidden: 64, heads: 4, seq: 16, vocab: 1000, dtype: bf16";

	/* mixed precision (Megatron-LM's Float16Optimizer, a PyTorch flat-buffer loop): bf16 weights and gradients,
	 * fp32 master, its fp32 gradients and Adam's two fp32 moments: 2 | 2 | 4 + 4 + 8 = 16 bytes.
	 * Step traffic: upcast gradients (read 2, write 4), Adam (read master 4, gradient 4, moments 8; write
	 * master 4, moments 8), cast back (read 4, write 2): 6 + 28 + 6 = 40 bytes */
	load(&s, gpt, "master_weights: fp32, grad_dtype: bf16");
	CHECK_NEAR(mem_weight_bytes_per_param(&s), 2, 0);
	CHECK_NEAR(mem_grad_bytes_per_param(&s), 2, 0);
	CHECK_NEAR(mem_optimizer_bytes_per_param(&s), 16, 0);
	CHECK_NEAR(ops_optimizer_bytes_per_param(&s), 40, 0);

	/* fp32 gradients (main_grad): they are the master gradients, no copy: 4 + 8 = 12 bytes; traffic
	 * 28 + 6 = 34 */
	load(&s, gpt, "master_weights: fp32, grad_dtype: fp32");
	CHECK_NEAR(mem_optimizer_bytes_per_param(&s), 12, 0);
	CHECK_NEAR(ops_optimizer_bytes_per_param(&s), 34, 0);

	/* pure bf16 with bf16 moments (no master): 2 | 2 | 2 + 2 = 4; traffic read 2 + 2 + 4, write 2 + 4 = 14 */
	load(&s, gpt, "master_weights: bf16, optimizer_state: bf16");
	CHECK_NEAR(mem_optimizer_bytes_per_param(&s), 4, 0);
	CHECK_NEAR(ops_optimizer_bytes_per_param(&s), 14, 0);

	/* SGD with bf16 momentum and fp32 master, fp32 gradients: 4 + 2 = 6 */
	load(&s, gpt, "optimizer: sgd, master_weights: fp32, grad_dtype: fp32, optimizer_state: bf16");
	CHECK_NEAR(mem_optimizer_bytes_per_param(&s), 6, 0);

	/* PyTorch AMP: fp32 parameters and gradients, fp32 moments, no master: 4 | 4 | 8; traffic
	 * read 4 + 4 + 8, write 4 + 8 = 28. Every layer's forward casts its weights (read 4, write 2 per
	 * parameter) and its backward casts their gradients back (read 2, write 4) */
	load(&s, gpt, "amp: true");
	CHECK(s.train.amp);
	CHECK_NEAR(mem_weight_bytes_per_param(&s), 4, 0);
	CHECK_NEAR(mem_grad_bytes_per_param(&s), 4, 0);
	CHECK_NEAR(mem_optimizer_bytes_per_param(&s), 8, 0);
	CHECK_NEAR(ops_optimizer_bytes_per_param(&s), 28, 0);
	{
		struct hwmodel *hw = NULL;
		CHECK_INT(scenario_load_hardware(&s, &hw), 0);
		struct opctx c = { hw, &s, 1, 16, 0 };
		struct opcost o[OPS_MAX];
		int n = ops_layer_fwd(&c, o);
		CHECK_STR(o[0].name, "amp_weight_cast");
		CHECK_NEAR(o[0].s, ops_mem_s(hw, scenario_params_per_layer(&s) * 6), 1e-12);
		n = ops_layer_bwd(&c, 0, o);
		CHECK_STR(o[n - 1].name, "amp_grad_cast");
		hwmodel_free(hw);
	}

	/* the loss over the vocabulary: one micro-batch of T = 16 tokens, V = 1000, one GPU. Saved: both layers'
	 * activations, the embedding output (T*h*2 bytes) and the fp32 log-softmax (T*V*4); at the start of the
	 * backward the gradients of the log-softmax's output and input (T*V*4 each) join them:
	 * peak = 2 * layer + 16*64*2 + 16*1000*(4 + 8) */
	load(&s, gpt, "master_weights: fp32");
	{
		struct hwmodel *hw = NULL;
		struct build b;
		CHECK_INT(scenario_load_hardware(&s, &hw), 0);
		CHECK_INT(build_programs(&s, hw, 0, &b), 0);
		CHECK_NEAR(b.stages[0].activations, 2 * mem_layer_act_bytes(&s, 1) + 16 * 64 * 2 + 16 * 1000 * 12.0 +
			   mem_stage_extra_bytes(&s, 1, 0, 1, 1), 1e-12);
		build_release(&b);
		hwmodel_free(hw);
	}

	test_stage_extra();

	/* amp with bf16 optimizer state is allowed; amp with bf16 gradients is not */
	char buf[512];
	snprintf(buf, sizeof buf, "name: t\nmodel: {%s}\ntraining: {global_batch: 1, micro_batch: 1, amp: true, "
		 "grad_dtype: bf16}\nparallel: {gpus: 1}\nhardware: h100-sxm-94gb\n", gpt);
	fprintf(stderr, "(an error about grad_dtype is expected next)\n");
	CHECK(scenario_load_string("t.yaml", buf, NULL, &s) != 0);
	return check_result();
}
