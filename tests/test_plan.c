/* test_plan: the layout search (plan/plan.h) against an exhaustive search written out here as plain loops, the
 * rules every layout it returns obeys, its bounds against the simulator, and time-to-train and cost by hand. */
#include <stdlib.h>
#include "tests/check.h"
#include "plan/plan.h"
#include "sim/comm.h"
#include "sim/memory.h"
#include "sim/predict.h"
#include "util/gserr.h"

/* A small transformer: 4 layers of hidden 256 with 8 heads, 128-token sequences, a 1000-token vocabulary;
 * 16 sequences a step, so dp*mb divides 16 and the search has layouts with 1 to 16 micro-batches. */
static const char small_yaml[] =
	"name: small\n"
	"model: {layers: 4, hidden: 256, heads: 8, seq: 128, vocab: 1000, dtype: bf16, flash_attention: %s}\n"
	"training: {global_batch: 16, micro_batch: 1, optimizer: adam, master_weights: fp32}\n"
	"parallel: {gpus: 1}\n"
	"hardware: h100-dgx\n";

/* The same with fp32 gradients: the reduction searched in fp32 and bf16. */
static const char fp32_grad_yaml[] =
	"name: small-fp32-grad\n"
	"model: {layers: 4, hidden: 256, heads: 8, seq: 128, vocab: 1000, dtype: bf16, flash_attention: %s}\n"
	"training: {global_batch: 16, micro_batch: 1, optimizer: adam, master_weights: fp32, grad_dtype: fp32}\n"
	"parallel: {gpus: 1}\n"
	"hardware: h100-dgx\n";

/* The same with 4 experts, 2 per token, in every layer's MLP: expert and expert-tensor parallelism searched. */
static const char moe_yaml[] =
	"name: small-moe\n"
	"model: {layers: 4, hidden: 256, heads: 8, seq: 128, vocab: 1000, dtype: bf16, flash_attention: %s,\n"
	"        moe: {experts: 4, top_k: 2}}\n"
	"training: {global_batch: 16, micro_batch: 1, optimizer: adam, master_weights: fp32}\n"
	"parallel: {gpus: 1}\n"
	"hardware: h100-dgx\n";

/* The same at 512-token sequences: context parallelism 2 (two chunks of 128 tokens a rank) is searched. */
static const char long_yaml[] =
	"name: small-long\n"
	"model: {layers: 4, hidden: 256, heads: 8, seq: 512, vocab: 1000, dtype: bf16, flash_attention: %s}\n"
	"training: {global_batch: 16, micro_batch: 1, optimizer: adam, master_weights: fp32}\n"
	"parallel: {gpus: 1}\n"
	"hardware: h100-dgx\n";

/* 8 layers of 512-token sequences: offload of 1 layer a chunk with interleaving (pp 2, v 2; pp 4 at 8 GPUs would
 * leave chunks of one layer), and context parallelism 2, beside ZeRO-3. */
static const char deep_yaml[] =
	"name: small-deep\n"
	"model: {layers: 8, hidden: 256, heads: 8, seq: 512, vocab: 1000, dtype: bf16, flash_attention: %s}\n"
	"training: {global_batch: 16, micro_batch: 1, optimizer: adam, master_weights: fp32}\n"
	"parallel: {gpus: 1}\n"
	"hardware: h100-dgx\n";

static const char *yaml_of = small_yaml;

static int load(const char *flash, struct scenario *s, struct hwmodel **hw)
{
	char text[1024];
	snprintf(text, sizeof text, yaml_of, flash);
	if (scenario_load_string("small.yaml", text, NULL, s) != 0)
		return -1;
	return scenario_load_hardware(s, hw);
}

struct found { double step; char desc[160]; };

static int by_found(const void *a, const void *b)
{
	const struct found *x = a, *y = b;
	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	return strcmp(x->desc, y->desc);
}

/* Every layout of gpus GPUs, by nested loops over the scenario keys: tp and pp dividing gpus, dp the rest, every
 * micro-batch dividing the batch per replica, each schedule (interleaved with 2..8 chunks), each recompute
 * mode (none, full, selective, torchtitan's per-op), ZeRO 0..3 and data-parallel overlap on and off (only 0 and on
 * at dp 1), sequence parallelism on and off (only off at tp 1), TP communication overlap on and off (only with
 * SP), context parallelism cp dividing gpus/(tp*pp) (seq a multiple of 2cp; ZeRO, HSDP, the reduction dtype and
 * the overlaps then over the dp*cp ranks), pipeline scatter/gather on and off (only off unless tp > 1, pp > 1 and
 * no SP; the schedule
 * only at pp > 1), the distributed optimizer's overlapped parameter gather on and off (at ZeRO 1 and 2 over
 * dp > 1), and with experts every expert parallelism up to the expert count and expert tensor parallelism
 * up to tp, and at pp >= 3 (1f1b, gpipe) the even and the balanced pipeline split (first and last stage
 * (layers + 2)/pp - 1 layers) where whole, and with fp32 gradients over dp > 1 the reduction in fp32 and in bf16, ZeRO sharded over all of DP
 * or (HSDP) the replicas of one node where that is fewer, at ZeRO 3 the parameters resharded after the
 * forward or kept, activation offload of none or all but the last layer of each chunk, and with full recompute
 * every layer or (block) the first half of each chunk rerun. Layouts the rules reject, tensor-parallel
 * groups wider than a node and those that do not fit are skipped; the rest are simulated and sorted. Also
 * checks the planner's bounds against each simulation. Returns the count kept, found[] sorted fastest first: when
 * max are found, the slower half is dropped (only the fastest few are compared), so the first max/2 are exact. */
static int exhaustive(const struct scenario *base, const struct hwmodel *hw, int gpus, struct found *found, int max)
{
	static const enum schedule scheds[] = { SCHED_1F1B, SCHED_GPIPE, SCHED_INTERLEAVED };
	int n = 0;
	char why[160];
	for (int tp = 1; tp <= gpus; tp++)
	for (int pp = 1; pp <= gpus; pp++)
	for (int cp = 1; cp <= gpus; cp++) {
		if (gpus % (tp * pp * cp) != 0 || tp > hw->node.gpus)
			continue;
		int dp = gpus / (tp * pp * cp), gr = dp * cp;
		for (int mb = 1; mb <= base->train.global_batch; mb++)
		for (int si = 0; si < (pp > 1 ? 3 : 1); si++)
		for (int v = (scheds[si] == SCHED_INTERLEAVED ? 2 : 1); v <= (scheds[si] == SCHED_INTERLEAVED ? 8 : 1); v++)
		for (int rc = 0; rc < 4; rc++)
		for (int rl = 0; rl <= (rc == RECOMPUTE_FULL && base->model.layers % (pp * v) == 0 &&
					base->model.layers / (pp * v) >= 2); rl++)
		for (int z = 0; z <= (gr > 1 ? 3 : 0); z++)
		for (int sp = 0; sp <= (tp > 1); sp++)
		for (int tpo = 0; tpo <= sp; tpo++)
		for (int sg = 0; sg <= (tp > 1 && pp > 1 && !sp); sg++)
		for (int opg = 0; opg <= (gr > 1 && (z == 1 || z == 2)); opg++)
		for (int ov = 1; ov >= (gr > 1 ? 0 : 1); ov--)
		for (int ep = 1; ep <= (base->model.moe.experts ? base->model.moe.experts : 1); ep++)
		for (int etp = (base->model.moe.experts ? 1 : 0); etp <= (base->model.moe.experts ? tp : 0); etp++)
		for (int split = 0; split <= (pp >= 3 && scheds[si] != SCHED_INTERLEAVED &&
					      (base->model.layers + 2) % pp == 0 && (base->model.layers + 2) / pp >= 2);
		     split++)
		for (int rd = 0; rd <= (gr > 1 && base->train.grad_dtype == DT_FP32); rd++)
		for (int sh = 0; sh <= (z >= 1 && gr > 1 && hw->node.gpus / tp > 1 && hw->node.gpus / tp < gr &&
					gr % (hw->node.gpus / tp) == 0); sh++)
		for (int kf = 0; kf <= (z == 3 && gr > 1); kf++)
		for (int off = 0; off <= (hw->node.host_gbps > 0 && base->model.type == MODEL_TRANSFORMER && !rl &&
					  base->model.layers % (pp * v) == 0 && base->model.layers / (pp * v) >= 2); off++) {
			struct scenario s = *base;
			s.par.gpus = gpus;
			s.par.tp = tp, s.par.pp = pp, s.par.dp = dp, s.par.cp = cp, s.par.zero = z;
			s.par.tp_comm_overlap = tpo;
			s.par.schedule = scheds[si];
			s.par.pp_scatter_gather = sg;
			s.par.sp = sp;
			s.par.overlap_param_gather = opg;
			s.par.ep = ep;
			s.par.etp = etp;
			s.par.dp_overlap = ov;
			s.par.virtual_stages = v;
			/* balanced: the embedding and the loss count as a layer each */
			s.par.first_stage_layers = s.par.last_stage_layers = split ? (base->model.layers + 2) / pp - 1 : 0;
			s.par.grad_reduce_dtype = rd ? DT_BF16 : base->train.grad_dtype;
			s.par.shard_group = sh ? hw->node.gpus / tp : 0;  /* HSDP: sharded within a node */
			s.par.keep_after_forward = kf;
			/* offload: all but the last layer of each chunk */
			s.train.offload_layers = off ? base->model.layers / (pp * v) - 1 : 0;
			s.train.micro_batch = mb;
			s.train.recompute = (enum recompute)rc;
			/* block recompute of the first half of each chunk */
			s.train.recompute_layers = rl ? base->model.layers / (pp * v) / 2 : 0;
			s.train.recompute_block = rl;
			if (rl && split)
				continue;  /* the planner halves only an even split's chunks */
			if (s.train.recompute == RECOMPUTE_SELECTIVE && s.model.flash_attention)
				continue;  /* no memory saved: the planner leaves it out */
			if (cp > 64 || (cp > 1 && base->model.seq / (base->model.causal ? 2 * cp : cp) < PLAN_CP_MIN_CHUNK))
				continue;  /* the planner tries context parallelism up to 64, chunks of 128 tokens or more */
			if (scenario_check_layout(&s, why, sizeof why) != 0)
				continue;
			struct result r;
			if (predict_run(&s, hw, NULL, &r) != 0)
				return -1;
			/* the bounds never exceed what the simulator says */
			CHECK(plan_memory_lower_bound(&s) <= r.mem.total * (1 + 1e-12));
			CHECK(plan_time_lower_bound(&s, hw) <= r.step_time_s);
			if (!r.fits_in_memory)
				continue;
			if (n == max) {  /* keep the faster half */
				qsort(found, (size_t)n, sizeof *found, by_found);
				n = max / 2;
			}
			found[n].step = r.step_time_s;
			plan_describe(&s, found[n].desc, sizeof found[n].desc);
			n++;
		}
	}
	qsort(found, (size_t)n, sizeof *found, by_found);
	return n;
}

/* Every returned layout obeys the layout rules, fits, keeps TP in a node and uses all the GPUs. */
static void check_sound(const struct plan_result *pr, const struct hwmodel *hw, int gpus)
{
	char why[160];
	for (int i = 0; i < pr->ntop; i++) {
		const struct plan_entry *e = &pr->top[i];
		CHECK_INT(scenario_check_layout(&e->sc, why, sizeof why), 0);
		CHECK_INT(e->sc.par.dp * e->sc.par.tp * e->sc.par.pp * e->sc.par.cp, gpus);
		CHECK(e->sc.par.tp <= hw->node.gpus);
		CHECK(e->r.fits_in_memory);
		CHECK(e->r.mem.total <= hw->gpu.memory_bytes);
		if (i > 0)
			CHECK(e->r.step_time_s >= pr->top[i - 1].r.step_time_s);
	}
}

static int node_gpus;  /* > 0: the hardware's GPUs per node, for a search with several nodes */
static double host_gbps;  /* > 0: the GPU's host link in GB/s (a slow one: offloaded layouts bound by their copies) */
static double nic_gbps;  /* > 0: the network's per-NIC rate in GB/s (a slow one: DP collectives outlast the compute) */

static void compare(const char *flash, int gpus, double memory_bytes, int K)
{
	struct scenario s;
	struct hwmodel *hw = NULL;
	CHECK_INT(load(flash, &s, &hw), 0);
	if (!hw)
		return;
	if (memory_bytes > 0)
		hw->gpu.memory_bytes = memory_bytes;
	if (node_gpus > 0)
		hw->node.gpus = node_gpus;
	if (host_gbps > 0)
		hw->node.host_gbps = host_gbps;
	if (nic_gbps > 0)
		hw->net.nic_gbps = nic_gbps;
	enum { MAX_FOUND = 8192 };  /* the fastest 4096 at least are exact (K is far smaller) */
	struct found *all = calloc(MAX_FOUND, sizeof *all);
	int n = exhaustive(&s, hw, gpus, all, MAX_FOUND);
	CHECK(n > 0);
	struct plan_spec spec = { .base = &s, .hw = hw, .gpus = gpus, .top = K };
	struct plan_result pr;
	CHECK_INT(plan_search(&spec, &pr), 0);
	check_sound(&pr, hw, gpus);
	int want = n < K ? n : K;
	CHECK_INT(pr.ntop, want);
	for (int i = 0; i < pr.ntop && i < want; i++) {
		CHECK_NEAR(pr.top[i].r.step_time_s, all[i].step, 1e-12);
		CHECK_STR(pr.top[i].desc, all[i].desc);
	}
	/* every candidate is accounted for: simulated, or dropped for one reason */
	long long dropped = 0;
	for (int r = 0; r < PLAN_NREJ; r++)
		if (r != PLAN_REJ_MEMORY_SIM)
			dropped += pr.rejected[r];
	CHECK_INT(pr.simulated + dropped, pr.candidates);
	CHECK(pr.rejected[PLAN_REJ_SAME] > 0);  /* e.g. every ZeRO stage at dp 1 is one layout */
	/* the bound-free search finds the same top */
	spec.exhaustive = true;
	struct plan_result px;
	CHECK_INT(plan_search(&spec, &px), 0);
	CHECK_INT(px.ntop, pr.ntop);
	for (int i = 0; i < px.ntop && i < pr.ntop; i++)
		CHECK_STR(px.top[i].desc, pr.top[i].desc);
	CHECK_INT(px.rejected[PLAN_REJ_BOUND], 0);
	plan_result_release(&px);
	plan_result_release(&pr);
	free(all);
	hwmodel_free(hw);
}

/* Nothing fits: an empty top and every candidate dropped before or after simulation. */
static void test_nothing_fits(void)
{
	struct scenario s;
	struct hwmodel *hw = NULL;
	CHECK_INT(load("true", &s, &hw), 0);
	if (!hw)
		return;
	hw->gpu.memory_bytes = 1e6;  /* 1 MB: the embedding alone is 1000*256*2 B = 512 KB of weights, 4 MB with Adam */
	struct plan_spec spec = { .base = &s, .hw = hw, .gpus = 4, .top = 3 };
	struct plan_result pr;
	CHECK_INT(plan_search(&spec, &pr), 0);
	CHECK_INT(pr.ntop, 0);
	CHECK(pr.rejected[PLAN_REJ_MEMORY] > 0);
	plan_result_release(&pr);
	hwmodel_free(hw);
}

/* Time to train and cost by hand: 16 sequences of 128 tokens = 2048 tokens a step; 2.048e9 tokens are
 * 1e6 steps; at 0.25 s a step that is 250,000 s (69.44 h); on 8 GPUs 555.56 GPU-hours; at 2.5 USD per
 * GPU-hour 1388.89 USD. With --steps 1000 instead: 250 s, 0.5556 GPU-hours, 1.3889 USD. */
static void test_cost(void)
{
	struct scenario s;
	struct hwmodel *hw = NULL;
	CHECK_INT(load("true", &s, &hw), 0);
	s.par.gpus = 8;
	struct plan_cost c;
	plan_cost_of(&s, 0.25, 2.048e9, 0, 2.5, &c);
	CHECK_NEAR(c.steps, 1e6, 1e-12);
	CHECK_NEAR(c.time_to_train_s, 250000, 1e-12);
	CHECK_NEAR(c.gpu_hours, 250000.0 / 3600 * 8, 1e-12);
	CHECK_NEAR(c.gpu_hours, 555.5555555556, 1e-9);
	CHECK_NEAR(c.usd, 1388.888888889, 1e-9);
	plan_cost_of(&s, 0.25, 0, 1000, 2.5, &c);
	CHECK_NEAR(c.time_to_train_s, 250, 1e-12);
	CHECK_NEAR(c.usd, 250.0 / 3600 * 8 * 2.5, 1e-12);
	/* the search fills the cost of each entry from the hardware model's price (h100-dgx: 2.5 USD) */
	struct plan_spec spec = { .base = &s, .hw = hw, .gpus = 8, .top = 2, .tokens = 2.048e9 };
	struct plan_result pr;
	CHECK_INT(plan_search(&spec, &pr), 0);
	CHECK_NEAR(pr.price, 2.5, 1e-12);
	CHECK(pr.ntop == 2);
	for (int i = 0; i < pr.ntop; i++) {
		const struct plan_entry *e = &pr.top[i];
		CHECK_NEAR(e->cost.usd, 1e6 * e->r.step_time_s / 3600 * 8 * 2.5, 1e-12);
	}
	plan_result_release(&pr);
	/* --price overrides it */
	spec.price = 1.0;
	CHECK_INT(plan_search(&spec, &pr), 0);
	CHECK_NEAR(pr.price, 1.0, 1e-12);
	plan_result_release(&pr);
	hwmodel_free(hw);
}

static void test_describe(void)
{
	struct scenario s;
	struct hwmodel *hw = NULL;
	CHECK_INT(load("false", &s, &hw), 0);
	char d[160];
	s.par.gpus = 16, s.par.tp = 2, s.par.pp = 2, s.par.dp = 4, s.par.zero = 1;
	s.par.schedule = SCHED_INTERLEAVED, s.par.virtual_stages = 2;
	s.train.micro_batch = 2, s.train.recompute = RECOMPUTE_SELECTIVE;
	plan_describe(&s, d, sizeof d);
	CHECK_STR(d, "tp 2 pp 2 dp 4 mb 2 interleaved v 2 selective zero 1");
	s.par.pp = 1, s.par.dp = 8, s.par.zero = 0, s.train.recompute = RECOMPUTE_NONE;
	plan_describe(&s, d, sizeof d);  /* the schedule and its depth do not matter at pp 1 */
	CHECK_STR(d, "tp 2 pp 1 dp 8 mb 2 none zero 0");
	/* flags are named only when not at their neutral value; scatter/gather only matters at tp > 1 and pp > 1 */
	s.par.dp_overlap = false, s.par.pp_scatter_gather = true;
	plan_describe(&s, d, sizeof d);
	CHECK_STR(d, "tp 2 pp 1 dp 8 mb 2 none zero 0 no-dp-overlap");
	s.par.pp = 2, s.par.dp = 4;
	plan_describe(&s, d, sizeof d);
	CHECK_STR(d, "tp 2 pp 2 dp 4 mb 2 interleaved v 2 none zero 0 sg no-dp-overlap");
	hwmodel_free(hw);
}

/* Activation offload over a slow host link (0.05 GB/s) on one GPU, tp = pp = dp = 1, mb 1: 16 micro-batches, each
 * copying 3 of its 4 layers' activations out and back, 96 copies of one layer's activations in a row on the copy
 * stream. The time bound counts at least those; the simulated step at least the bound. */
static void test_offload_bound(void)
{
	struct scenario s;
	struct hwmodel *hw = NULL;
	CHECK_INT(load("true", &s, &hw), 0);
	if (!hw)
		return;
	hw->node.host_gbps = 0.05;
	s.par.gpus = 1;
	s.train.offload_layers = 3;
	double copies = 96 * mem_layer_act_bytes(&s, 1) / 0.05e9;
	double lb = plan_time_lower_bound(&s, hw);
	struct result r;
	CHECK_INT(predict_run(&s, hw, NULL, &r), 0);
	CHECK(lb >= copies * (1 - 1e-9));
	CHECK(lb <= r.step_time_s);
	s.train.offload_layers = 0;  /* without offload: no copies, a far lower bound */
	CHECK(plan_time_lower_bound(&s, hw) < copies / 2);
	printf("offload bound: %.6g s of copies, bound %.6g s, simulated %.6g s\n", copies, lb, r.step_time_s);
	hwmodel_free(hw);
}

/* The DP stream in the time bound, by hand: ZeRO-3 on 4 GPUs of 4 nodes over a 1 GB/s network (the overlap pair
 * of h100-dgx on). Each of the 4 micro-batches gathers the 4 layers twice and reduce-scatters them once; two
 * carry the embedding or the head, so the bound counts 4 * (4 - 2) * (2 AG + RS) of one layer's parameters
 * (12 h^2 and two norms of h at h = 256: 786,944), bf16 gathers, gradients in their dtype. A ring over 4 moves 3/4 of the
 * bytes: 1.18 ms a bf16 layer at 1 GB/s at least. The step is at least that; with the pair, compute beside it
 * adds cs/(1+cs) of what does not lie beside the waits. */
static void test_dp_stream_bound(void)
{
	struct scenario s;
	struct hwmodel *hw = NULL;
	CHECK_INT(load("true", &s, &hw), 0);
	if (!hw)
		return;
	hw->node.gpus = 1;
	hw->net.nic_gbps = 1;
	s.par.gpus = 4, s.par.dp = 4, s.par.zero = 3;
	double pl = 12.0 * 256 * 256 + 2 * 256, gb = dtype_bytes(s.train.grad_dtype);
	CHECK_NEAR(scenario_params_per_layer(&s), pl, 1e-9);
	CHECK_NEAR(comm_net_share_gbps(hw), 1, 1e-12);  /* one GPU a node: the NIC's whole rate */
	struct group_shape g = comm_shape(1, 0, 1, 4);
	double ag = comm_coll_s(hw, COLL_ALL_GATHER, 2 * pl, g), rs = comm_coll_s(hw, COLL_REDUCE_SCATTER, gb * pl, g);
	CHECK(ag >= 0.75 * 2 * pl / 1e9 * (1 - 1e-12));  /* the floor itself: the preset's own line is for its 50 GB/s */
	double D = 4 * 2 * (2 * ag + rs);
	double lb = plan_time_lower_bound(&s, hw);
	struct result r;
	CHECK_INT(predict_run(&s, hw, NULL, &r), 0);
	CHECK(lb >= D * (1 - 1e-5));
	CHECK(lb <= r.step_time_s);
	printf("dp stream bound: %.6g s of ZeRO-3 collectives, bound %.6g s, simulated %.6g s\n", D, lb, r.step_time_s);
	/* ZeRO-1 on the same: the gradients' reduce-scatter and the parameters' gather at the network's floor, the
	 * 4 layers' bytes in one: 3/4 of them each way at 1 GB/s */
	s.par.zero = 1;
	double floor = comm_coll_floor_s(hw, COLL_REDUCE_SCATTER, 4 * gb * pl, g) +
		       comm_coll_floor_s(hw, COLL_ALL_GATHER, 4 * 2 * pl, g);
	CHECK_NEAR(floor, 0.75 * 4 * (gb + 2) * pl / 1e9, 1e-12);
	CHECK(comm_coll_s(hw, COLL_REDUCE_SCATTER, 4 * gb * pl, g) >=
	      comm_coll_floor_s(hw, COLL_REDUCE_SCATTER, 4 * gb * pl, g) * (1 - 1e-12));
	lb = plan_time_lower_bound(&s, hw);
	CHECK_INT(predict_run(&s, hw, NULL, &r), 0);
	CHECK(lb >= floor * (1 - 1e-5));
	CHECK(lb <= r.step_time_s);
	printf("dp stream bound, ZeRO-1: floor %.6g s, bound %.6g s, simulated %.6g s\n", floor, lb, r.step_time_s);
	hwmodel_free(hw);
}

int main(void)
{
	compare("true", 4, 0, 5);
	compare("false", 8, 0, 8);
	/* 6 GPUs: pp 3 does not split 4 layers evenly; the balanced split 1, 2, 1 does */
	compare("true", 6, 0, 8);
	yaml_of = fp32_grad_yaml;
	compare("true", 4, 0, 8);
	yaml_of = small_yaml;
	/* nodes of 2 GPUs: HSDP (sharded within a node) at dp 4 */
	node_gpus = 2;
	compare("true", 4, 0, 8);
	node_gpus = 0;
	/* a tight memory (80 MB, of which the cuBLAS workspaces take 64 MiB): most layouts are pruned before or after
	 * simulation */
	compare("false", 8, 80e6, 5);
	yaml_of = moe_yaml;
	compare("true", 8, 0, 5);
	/* 512-token sequences on 4 GPUs: cp 2 with tp, pp, dp and the overlaps */
	yaml_of = long_yaml;
	compare("true", 4, 0, 8);
	yaml_of = small_yaml;
	/* a slow host link (1 GB/s): offloaded layouts wait for their copies, the bound counts them */
	host_gbps = 1;
	compare("true", 4, 0, 8);
	/* the same with 8 layers of 512 tokens: offload with interleaved pipelines, beside CP and ZeRO-3 */
	yaml_of = deep_yaml;
	compare("true", 4, 0, 8);
	yaml_of = small_yaml;
	host_gbps = 0;
	/* one GPU a node on a 1 GB/s network: DP collectives (ZeRO-3's above all) outlast the compute, and with the
	 * overlap pair they slow it; the bound counts both */
	node_gpus = 1;
	nic_gbps = 1;
	compare("true", 4, 0, 8);
	node_gpus = 0;
	nic_gbps = 0;
	test_offload_bound();
	test_dp_stream_bound();
	test_nothing_fits();
	test_cost();
	test_describe();
	return check_result();
}
