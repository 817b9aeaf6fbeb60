/* ops_host: the host's time to issue each op (ops.h, struct host_cost and ops_price_host): by op class from the
 * hardware model's host.<mode> (docs/hardware-model.md, "host"), which `gpusim calibrate --kernels torch` measures
 * on the user's machine (calibrate/torch_kernels.py, host_class_rows), or, where the mode gives its kernel keys (a
 * compiled step: compiled_rows), per kernel of the compiled graphs plus a fixed cost per graph call. */
#include <math.h>
#include <string.h>
#include "hardware/hwmodel.h"
#include "sim/ops.h"

double ops_max_normal(int n)
{
	if (n < 2)
		return 0;
	/* E[max] = integral of x n phi(x) Phi(x)^(n-1) dx, by the midpoint rule over [-9, 9 + sqrt(2 ln n)] in steps of
	 * 0.1 (the integrand is smooth and below 1e-17 outside; the rule converges fast on it: the same to 1e-7 as with
	 * steps of 0.001 from n = 2 to 100,000): 1/sqrt(pi) = 0.5641896 for n = 2. About 190 points; the builder calls
	 * it once a scenario (struct opctx.host_k; the planner's bound prices no host), tests' contexts once an op
	 * list */
	const double sqrt_2pi = 2.5066282746310002;
	double hi = 9 + sqrt(2 * log((double)n)), dx = 0.1, sum = 0;
	for (double x = -9 + dx / 2; x < hi; x += dx) {
		double phi = exp(-x * x / 2) / sqrt_2pi, cdf = 0.5 * erfc(-x / sqrt(2));
		sum += x * n * phi * pow(cdf, n - 1) * dx;
	}
	return sum;
}

double ops_host_rank_factor(const struct hwmodel *hw, const struct scenario *sc)
{
	double s = hw->host.mode[sc->train.exec].rank_spread;
	return s > 0 && sc->par.gpus > 1 ? 1 + s * ops_max_normal(sc->par.gpus) : 1;
}

void ops_host_cost(const struct hwmodel *hw, const struct scenario *sc, struct host_cost *out)
{
	const struct hw_host_cost *h = &hw->host.mode[sc->train.exec];
	double ov = sc->train.host_us_per_op, k = ops_host_rank_factor(hw, sc) * 1e-6;
	out->step = h->step_us * k;
	out->op = (ov > 0 ? ov : h->op_us + h->launch_us) * k;
	out->coll = (ov > 0 ? ov : h->op_us + h->coll_us + h->group_us) * k;
	out->bucket = (h->bucket_us + h->coll_us + h->group_us) * k;
	bool d2 = sc->model.type != MODEL_TRANSFORMER;  /* an MLP or dense layer list: its family's calls where given */
	out->mb = ov > 0 ? 0 : (d2 && h->backward2d_us > 0 ? h->backward2d_us : h->backward_us) * k;
	/* a compiled forward graph's call, at the forward's start */
	out->fwd = ov > 0 ? 0 : (d2 && h->graph2d_us > 0 ? h->graph2d_us : h->graph_us) * k;
	out->accum = ov > 0 || !(h->accum_us > 0) ? out->op : 0;
	out->opt = ov > 0 || !(h->opt_us > 0) ? out->op : h->opt_us * k;
	out->grad_hook = ov > 0 || !(h->accum_us > 0) ? out->op : h->accum_us * k;
	out->sub_fwd = h->subgraph_us > 0 ? h->subgraph_us * k : out->fwd;
	out->sub_bwd = h->bwd_subgraph_us > 0 ? h->bwd_subgraph_us * k : out->mb;
}

static bool has(const char *name, const char *part)
{
	return strstr(name, part) != NULL;
}

static bool ends(const char *name, const char *tail)
{
	size_t n = strlen(name), t = strlen(tail);
	return n >= t && strcmp(name + n - t, tail) == 0;
}

/* A class's host us, or op_us + launch_us where the hardware model does not give it. */
static double klass(const struct hw_host_cost *h, double us)
{
	return us > 0 ? us : h->op_us + h->launch_us;
}

/* a if given, else b */
static double either(double a, double b)
{
	return a > 0 ? a : b;
}

/* A compiled graph's kernel (the mode gives kernel keys), or -1: per kernel of its forward or backward graph, the
 * 2-D family's for an MLP or dense layer list, each falling back to the other family's. */
static double graph_kernel(const struct hw_host_cost *h, bool back, bool d2)
{
	double f = d2 ? either(h->kernel2d_us, h->kernel_us) : either(h->kernel_us, h->kernel2d_us);
	double b = d2 ? either(h->bwd_kernel2d_us, h->bwd_kernel_us) : either(h->bwd_kernel_us, h->bwd_kernel2d_us);
	if (!(f > 0) && !(b > 0))
		return -1;
	return back ? either(b, f) : either(f, b);
}

static bool is_norm(const char *name)
{
	return !strncmp(name, "ln", 2) || !strncmp(name, "final_ln", 8);
}

int ops_grad_tensors(const struct opctx *c, const char *name)
{
	if (has(name, "recompute"))
		return 0;
	if (ends(name, "_wgrad") || ends(name, "bias_grad") || ends(name, "embedding_bwd") ||
	    ends(name, "weight_grad_sum"))
		return 1;
	if (is_norm(name))
		return c->sc->model.norm == NORM_LAYERNORM ? 2 : 1;  /* LayerNorm: weight and bias */
	return 0;
}

int ops_price_host(const struct opctx *c, struct opcost *out, int from, int n, int bwd)
{
	if (c->host_k == OPS_NO_HOST) {
		for (int i = from; i < n; i++)
			out[i].host = 0;
		return n;
	}
	const struct hw_host_cost *h = &c->hw->host.mode[c->sc->train.exec];
	double ov = c->sc->train.host_us_per_op;
	double k = (c->host_k > 0 ? c->host_k : ops_host_rank_factor(c->hw, c->sc)) * 1e-6;
	bool d2 = c->sc->model.type != MODEL_TRANSFORMER;  /* MLP and dense layer lists: 2-D activations */
	for (int i = from; i < n; i++) {
		struct opcost *o = &out[i];
		if (o->kind != OPK_COMPUTE) {
			o->host = 0;
			continue;
		}
		if (ov > 0) {
			o->host = ov * k;
			continue;
		}
		bool back = bwd && !has(o->name, "recompute");
		bool attn = has(o->name, "attention"), gemm = o->compute_bound && !attn;
		bool norm = is_norm(o->name);
		double us = graph_kernel(h, back, d2);  /* a compiled graph's: no per-op dispatch */
		if (us < 0 && !back)
			us = attn ? klass(h, h->attn_us) : gemm ? klass(h, d2 ? h->gemm2d_us : h->gemm_us)
							 : norm ? klass(h, h->norm_us) : klass(h, 0);
		else if (us < 0)
			us = attn ? klass(h, h->bwd_attn_us) : gemm ? klass(h, d2 ? h->bwd_gemm2d_us : h->bwd_gemm_us)
							 : klass(h, h->bwd_op_us);
		if (back && h->accum_us > 0)
			us += ops_grad_tensors(c, o->name) * h->accum_us;
		o->host = us * k;
	}
	return n;
}

int ops_price_layer_host(const struct opctx *c, struct opcost *out, int n, int bwd)
{
	n = ops_price_host(c, out, 0, n, bwd);
	if (c->host_k == OPS_NO_HOST)
		return n;
	const struct hw_host_cost *h = &c->hw->host.mode[c->sc->train.exec];
	bool d2 = c->sc->model.type != MODEL_TRANSFORMER;
	double kpl = bwd ? (d2 ? h->bwd_layer2d_kernels : h->bwd_layer_kernels)
			 : (d2 ? h->layer2d_kernels : h->layer_kernels);
	double us = graph_kernel(h, bwd, d2);
	/* an expert layer's list is not the probe's dense layer: one kernel an op, as without the counts */
	if (c->sc->train.host_us_per_op > 0 || !(kpl > 0) || us < 0 || c->sc->model.moe.experts > 0)
		return n;
	/* the ops of the list's own graph (a backward list's recompute ops belong to a forward) */
	int nk = 0;
	for (int i = 0; i < n; i++)
		nk += out[i].kind == OPK_COMPUTE && !(bwd && has(out[i].name, "recompute"));
	if (nk == 0)
		return n;
	double k = (c->host_k > 0 ? c->host_k : ops_host_rank_factor(c->hw, c->sc)) * 1e-6;
	double extra = us * (kpl / nk - 1) * k;  /* each op's share of the layer's kernels, beyond its one */
	for (int i = 0; i < n; i++)
		if (out[i].kind == OPK_COMPUTE && !(bwd && has(out[i].name, "recompute")))
			out[i].host += extra;
	return n;
}
