/* ops: per-op costs. Shapes for a micro-batch of T = b*s tokens on one TP rank (t = tp, h = hidden,
 * f = ffn_hidden, hd = h/heads, kv = 2*kv_heads*hd):
 *   qkv  (T, (h+kv)/t, h)     proj (T, h, h/t)     fc1 (T, f/t [x2 SwiGLU], h)     fc2 (T, h, f/t)
 * backward runs a dgrad (T, in, out) and a wgrad (out, in, T) GEMM for each. Element-wise ops move
 * the bytes they read and write through HBM. */
#include "sim/ops.h"

#include <math.h>
#include "sim/cp.h"
#include "sim/fp8.h"
#include "sim/memory.h"
#include "sim/moe.h"
#include "sim/overlap.h"

double ops_gemm_s(const struct hwmodel *hw, enum dtype dt, double m, double n, double k)
{
	double eff = hwmodel_gemm_eff(hw, dt, m, n, k);
	double flops = 2 * m * n * k;
	double t_math = flops / (hw->gpu.peak_tflops[dt] * 1e12 * eff);
	double bytes = (m * k + k * n + m * n) * dtype_bytes(dt);
	double t_mem = bytes / (hwmodel_mem_gbps(hw, bytes) * 1e9);
	return fmax(t_math, t_mem) + ops_gemm_overhead_s(hw);
}

/* Batched GEMM of `count` independent m x n x k products in one launch. The tiles of all of them fill the GPU
 * together, so its efficiency is that of the products stacked along m: (count*m) x n x k. */
static double batched_gemm_s(const struct hwmodel *hw, enum dtype dt, double count, double m, double n, double k)
{
	double eff = hwmodel_gemm_eff(hw, dt, count * m, n, k);
	double t_math = count * 2 * m * n * k / (hw->gpu.peak_tflops[dt] * 1e12 * eff);
	double bytes = count * (m * k + k * n + m * n) * dtype_bytes(dt);
	double t_mem = bytes / (hwmodel_mem_gbps(hw, bytes) * 1e9);
	return fmax(t_math, t_mem) + ops_gemm_overhead_s(hw);
}

/* A fused (flash) kernel runs at the hardware model's attention efficiency. Without one, attention is what
 * Megatron-LM ran before fused kernels: batched GEMMs for QK^T (s, s, hd) and PV (s, hd, s) over b*heads,
 * timed by their shapes like any GEMM, and the s*s scores going through HBM: a fused scale-mask-softmax (read,
 * write) and dropout (read, write, 1-byte mask). Backward: dP = dO V^T and dS^T/dQ/dK/dV GEMMs (4 batched
 * GEMMs of the same shapes), dropout backward (read mask and grad, write) and softmax backward (read P and dP,
 * write dS). */
enum attn_path ops_attn_path(const struct model_cfg *m)
{
	return !m->flash_attention ? ATTN_UNFUSED : m->attn_cudnn ? ATTN_CUDNN : ATTN_FUSED;
}

static enum attn_path attn_path_of(const struct model_cfg *m)
{
	return ops_attn_path(m);
}

/* How the attention core follows the SM clock (gpu.power): as a GEMM unless its entry runs at the maximum clock
 * (clock: max: a kernel that stays under the power cap when held alone), then by its clock_exponent where its
 * power is measured. */
enum op_clock ops_attn_clock(const struct opctx *c)
{
	const struct hw_attn *a = &c->hw->gpu.attn[attn_path_of(&c->sc->model)];
	if (!a->max_clock)
		return OPCLK_SCALED;
	return a->power > 0 && c->hw->gpu.burst_speedup > 1 ? OPCLK_MAX : OPCLK_FIXED;
}

double ops_attn_s(const struct opctx *c, int backward)
{
	const struct model_cfg *m = &c->sc->model;
	const struct hwmodel *hw = c->hw;
	/* packed sequences (model.doc_tokens): a varlen kernel over seq/len documents of len tokens each costs what a
	 * batch of that many sequences of len does */
	double s = scenario_attn_len(c->sc), b = c->sc->train.micro_batch * ((double)m->seq / s);
	double heads = (double)m->heads / c->tp, hd = (double)m->hidden / m->heads;
	/* QK^T and PV: 2 GEMMs of 2*s*s*hd flops per (query) head; a fused causal kernel skips the upper half.
	 * Backward: dV, dP, dQ, dK plus recomputing P (5 GEMMs against 2: x2.5). GQA shares K and V between
	 * query heads: the same FLOPs. */
	double flops = 4 * b * heads * s * s * hd * (backward ? 2.5 : 1.0);
	enum attn_path path = attn_path_of(m);
	if (m->flash_attention || hw->gpu.attn[ATTN_UNFUSED].nrows > 0) {
		bool causal = m->flash_attention && m->causal;
		/* at this call's batch x heads: a small one leaves SMs idle (rows that give bh) */
		double tf = hwmodel_attn_tflops_bh(hw, path, m->dtype, s, (int)hd, causal, backward, b * heads);
		double f8 = m->flash_attention ? fp8_attention_factor(hw, c->sc) : 1;
		return f8 * flops * (causal ? 0.5 : 1.0) / (tf * 1e12) + ops_kernel_overhead_s(hw);
	}
	/* unfused without measured rows: its batched GEMMs and softmax passes over the materialised scores */
	double n = b * heads, e = dtype_bytes(m->dtype), sq = n * s * s;
	double qk = batched_gemm_s(hw, m->dtype, n, s, s, hd);   /* scores (s x s) from Q (s x hd), K^T */
	double pv = batched_gemm_s(hw, m->dtype, n, s, hd, s);   /* context (s x hd) from P (s x s), V */
	if (!backward)
		return qk + pv + ops_mem_s(hw, 2 * sq * e) + ops_mem_s(hw, sq * (2 * e + 1));
	return 2 * qk + 2 * pv + ops_mem_s(hw, sq * (2 * e + 1)) + ops_mem_s(hw, 3 * sq * e);
}

static int put(struct opcost *out, int n, const char *name, double s)
{
	out[n] = (struct opcost){ name, OPK_COMPUTE, s, 0, false, 0, 0, 0, false };
	return n + 1;
}

/* A compute-bound op (GEMM, attention core): its rate follows the SM clock (gpu.power). */
static int put_cb(struct opcost *out, int n, const char *name, double s)
{
	out[n] = (struct opcost){ name, OPK_COMPUTE, s, 0, true, 0, 0, 0, false };
	return n + 1;
}

static int put_ar(const struct opctx *c, struct opcost *out, int n, const char *name, double bytes)
{
	if (c->tp < 2)
		return n;
	out[n] = (struct opcost){ name, OPK_TP_ALLREDUCE, 0, bytes, false, 0, 0, 0, false };
	return n + 1;
}

/* Sequence parallelism (parallel.sp, Korthikanti et al. 2022, arXiv 2205.05198, Sec. 4.2.2): the TP region of a
 * block (QKV..proj, fc1..fc2) starts with an all-gather of the sequence-split input (g) and ends with a
 * reduce-scatter (g-bar) instead of an all-reduce; the backward runs them in reverse (a reduce-scatter where the
 * forward all-gathered, an all-gather where it reduce-scattered). On a ring the pair moves the bytes one
 * all-reduce moves. bytes: the whole T x h activation (the nccl-tests size of both). */
static bool sp(const struct opctx *c)
{
	return c->sc->par.sp && c->tp > 1;
}

/* SP's all-gather: where a forward TP region opens, and where a backward one opens (the gradient of the
 * forward's closing reduce-scatter). Nothing without SP. */
static int put_sp_gather(const struct opctx *c, struct opcost *out, int n, const char *name, double bytes)
{
	return sp(c) ? ops_put_coll(c, out, n, OPK_TP_ALLGATHER, name, bytes) : n;
}

/* Where a TP region closes: the all-reduce, or with SP the reduce-scatter (forward, and backward as the
 * gradient of the forward's opening all-gather). */
static int put_tp_reduce(const struct opctx *c, struct opcost *out, int n, const char *ar_name, const char *rs_name,
			 double bytes)
{
	return sp(c) ? ops_put_coll(c, out, n, OPK_TP_REDUCESCATTER, rs_name, bytes) : put_ar(c, out, n, ar_name, bytes);
}

/* The rows outside the TP region (norms, residuals, dropout): T, or T/tp with SP. */
static double outer_rows(const struct opctx *c, double T)
{
	return sp(c) ? T / c->tp : T;
}

/* AMP: a forward casts the fp32 weights of `params` parameters to the autocast dtype (read 4, write e bytes each);
 * the backward casts their gradients back to fp32 (read e, write 4). Nothing without AMP. */
int ops_put(struct opcost *out, int n, const char *name, double s, bool compute_bound)
{
	return compute_bound ? put_cb(out, n, name, s) : put(out, n, name, s);
}

int ops_put_attn(struct opcost *out, int n, const char *name, double s, enum op_clock clk)
{
	n = ops_put(out, n, name, s, clk == OPCLK_SCALED);
	out[n - 1].at_max = clk == OPCLK_MAX;
	return n;
}

int ops_put_coll(const struct opctx *c, struct opcost *out, int n, enum opkind kind, const char *name, double bytes)
{
	if (kind != OPK_EP_ALLTOALL && c->tp < 2)
		return n;
	out[n] = (struct opcost){ name, kind, 0, bytes, false, 0, 0, 0, false };
	return n + 1;
}

/* training.fp8: the quantize kernel (read e, write the row- and column-wise copies), after an amax pass of its
 * own with current scaling (read e). */
int ops_quantize(const struct opctx *c, struct opcost *out, int n, const char *name, double elems)
{
	if (!fp8_on(c->sc))
		return n;
	if (fp8_separate_amax(c->sc))
		n = put(out, n, "fp8_amax", ops_mem_s(c->hw, elems * dtype_bytes(c->sc->model.dtype)));
	return put(out, n, name, ops_mem_s(c->hw, fp8_quantize_bytes(c->sc, elems)));
}

/* A linear layer's GEMM: in the FP8 recipe's format under training.fp8, else the model dtype. */
static double lin(const struct opctx *c, double m, double n, double k)
{
	return fp8_linear_gemm_s(c->hw, c->sc, m, n, k);
}

static enum kern_family eager_family(const struct opctx *c, enum kern_family f);

static int put_cast(const struct opctx *c, struct opcost *out, int n, double params, int bwd)
{
	if (!c->sc->train.amp)
		return n;
	double bytes = params * (4 + dtype_bytes(c->sc->model.dtype));
	return put(out, n, bwd ? "amp_grad_cast" : "amp_weight_cast", ops_kern_s(c->hw,
				   eager_family(c, bwd ? KF_UPCAST : KF_DOWNCAST), bytes));
}

struct dims { double T, h, qkv, f_in, f, dtb; enum dtype dt; };

static struct dims dims_of(const struct opctx *c)
{
	const struct model_cfg *m = &c->sc->model;
	struct dims d;
	d.T = c->tokens;
	d.h = m->hidden;
	d.dt = m->dtype;
	d.dtb = dtype_bytes(m->dtype);
	double hd = m->type == MODEL_TRANSFORMER ? (double)m->hidden / m->heads : 0;
	d.qkv = (m->hidden + 2.0 * m->kv_heads * hd) / c->tp;
	d.f = (double)m->ffn_hidden / c->tp;
	d.f_in = m->ffn == FFN_SWIGLU ? 2 * d.f : d.f;
	return d;
}

/* torch.compile (inductor) fuses chains of elementwise kernels into one; eager and CUDA graphs run the chain's
 * kernels one by one (a graph replays the eager kernels). */
static int fused(const struct opctx *c)
{
	return c->sc->train.exec == EXEC_COMPILED;
}

/* The kernel family of an eager op (gpu.kernels, measured on PyTorch's own kernels); compiled steps run
 * inductor's generated kernels, which no family measures: the copy rate of memory_bound. */
static enum kern_family eager_family(const struct opctx *c, enum kern_family f)
{
	return fused(c) ? KF_COPY : f;
}

/* SwiGLU y = silu(gate) * up over the fc1 output's two halves (T*f each, p = T*f*e bytes a pass).
 * Eager: silu (read gate, write s: 2p), mul (read s, up, write: 3p); backward: mul's two products (read g and
 * up or s, write: 6p), silu backward (read grad, gate, write: 3p) and chunk's backward, a cat of the two halves
 * into the fc1 output gradient (read and write 2*T*f: 4p). Fused: one kernel (read gate, up, write: 3p), its
 * backward one kernel (read g, gate, up, write both halves: 5p). GeLU: one kernel (2p), backward (3p). */
int ops_ffn_act(const struct opctx *c, struct opcost *out, int n, double rows, double f, int bwd)
{
	const struct hwmodel *hw = c->hw;
	double p = rows * f * dtype_bytes(c->sc->model.dtype);
	enum kern_family ew = eager_family(c, KF_ELEMENTWISE);
	if (c->sc->model.ffn != FFN_SWIGLU)
		return put(out, n, bwd ? "gelu_bwd" : "gelu", ops_kern_s(hw, ew, (bwd ? 3 : 2) * p));
	if (fused(c))
		return put(out, n, bwd ? "swiglu_bwd" : "swiglu", ops_mem_s(hw, (bwd ? 5 : 3) * p));
	if (!bwd) {
		n = put(out, n, "silu", ops_kern_s(hw, ew, 2 * p));
		return put(out, n, "swiglu_mul", ops_kern_s(hw, ew, 3 * p));
	}
	n = put(out, n, "swiglu_mul_bwd", ops_kern_s(hw, ew, 6 * p));
	n = put(out, n, "silu_bwd", ops_kern_s(hw, ew, 3 * p));
	return put(out, n, "swiglu_cat_bwd", ops_kern_s(hw, ew, 4 * p));
}

/* FP8 (training.fp8): fc1's input comes quantized from the norm before it (Transformer Engine's
 * LayerNormLinear writes FP8), fc2's is quantized by a kernel of its own; with current scaling the norm writes
 * the model dtype and both are quantized after an amax pass. Backward: each GEMM's output gradient is
 * quantized before its dgrad and wgrad. */
static int mlp_fwd(const struct opctx *c, const struct dims *d, struct opcost *out, int n)
{
	if (c->sc->model.moe.experts > 0)
		return moe_mlp_fwd(c, out, n);
	if (fp8_separate_amax(c->sc))
		n = ops_quantize(c, out, n, "fc1_quantize", d->T * d->h);
	double act = d->T * d->h * d->dtb;
	n = overlap_gather_gemm(c, out, n, "tp_allgather_mlp", "tp_ag_p2p_mlp", "fc1", act, d->T, d->f_in, d->h);
	n = ops_ffn_act(c, out, n, d->T, d->f, 0);
	n = ops_quantize(c, out, n, "fc2_quantize", d->T * d->f);
	return overlap_gemm_reduce(c, out, n, "fc2", "tp_allreduce_mlp", "tp_reducescatter_mlp", "tp_rs_p2p_mlp", "tp_rs_sum_mlp",
			   act, d->T, d->h, d->f);
}

static int mlp_bwd(const struct opctx *c, const struct dims *d, struct opcost *out, int n)
{
	if (c->sc->model.moe.experts > 0)
		return moe_mlp_bwd(c, out, n);
	double act = d->T * d->h * d->dtb;
	if (overlap_tp(c)) {  /* TE quantizes its own chunk of the gradient before the (FP8) exchange */
		n = ops_quantize(c, out, n, "fc2_grad_quantize", d->T * d->h);
		n = overlap_gather_gemm(c, out, n, "tp_allgather_mlp_bwd", "tp_ag_p2p_mlp_bwd", "fc2_dgrad", act, d->T, d->f,
				d->h);
	} else {
		n = put_sp_gather(c, out, n, "tp_allgather_mlp_bwd", act);
		n = ops_quantize(c, out, n, "fc2_grad_quantize", d->T * d->h);
		n = put_cb(out, n, "fc2_dgrad", lin(c, d->T, d->f, d->h));
	}
	n = put_cb(out, n, "fc2_wgrad", lin(c, d->h, d->f, d->T));
	n = ops_ffn_act(c, out, n, d->T, d->f, 1);
	n = ops_quantize(c, out, n, "fc1_grad_quantize", d->T * d->f_in);
	return overlap_dgrad_wgrad(c, out, n, "fc1_dgrad", lin(c, d->T, d->h, d->f_in), "fc1_wgrad",
				  lin(c, d->f_in, d->h, d->T), "tp_allgather_fc1_input", "tp_allreduce_mlp_bwd",
				  "tp_reducescatter_mlp_bwd", act);
}

/* Rotary embeddings on Q and K (p = their bytes, T*(h + kv_heads*hd)/tp*e). Fused (flash-attn's or TE's
 * rotary kernel, or compiled): read and write once (2p), backward alike. Unfused (the Hugging Face
 * apply_rotary_pos_emb: x*cos + rotate_half(x)*sin): mul (2p), neg of a half (1p), cat (2p), mul (2p), add (3p):
 * 10p; backward: the two products' gradients (4p), neg (1p), the slices' gradients scattered into zeros (4p) and
 * their sum (3p): 12p. */
static int put_rope(const struct opctx *c, const struct dims *d, struct opcost *out, int n, int bwd)
{
	enum rope_kind r = c->sc->model.rope;
	if (r == ROPE_NONE)
		return n;
	double hd = (double)c->sc->model.hidden / c->sc->model.heads;
	double p = d->T * (d->h + (double)c->sc->model.kv_heads * hd) / c->tp * d->dtb;
	double passes = r == ROPE_FUSED || fused(c) ? 2 : bwd ? 12 : 10;
	return put(out, n, bwd ? "rope_bwd" : "rope", ops_kern_s(c->hw, eager_family(c, KF_ELEMENTWISE), passes * p));
}

/* A norm over N = rows*h elements of e bytes. LayerNorm (F.layer_norm) and a fused RMSNorm (Apex, Transformer
 * Engine, compiled) are one kernel: read x, write y (2e per element); backward one kernel for the input gradient
 * (read x, dy, write dx, with the per-row statistics) and the weight gradient's reduction: 4e.
 * rmsnorm_unfused is the Hugging Face LlamaRMSNorm as eager PyTorch runs it, kernel by kernel (bytes per
 * element; "row" kernels move rows*4 bytes, a few per row, and cost their launch):
 *   forward  x.float() e+4, pow(2) 8, mean(-1) 4, +eps row, rsqrt row, x*r 8, .to(dtype) 4+e, weight*x 2e:
 *            28 + 4e (36 B for bf16, against 4 for a fused kernel)
 *   backward weight*x: dx 2e, dw product 3e and its sum over rows e; .to(dtype) e+4; x*r: dx 8, dr product 12
 *            and its row sum 4; rsqrt row; mean's expand 4; pow 12; the two fp32 gradients of x added 12;
 *            x.float() 4+e: 60 + 8e. */
struct norm_kernel {
	const char *name;
	double b_e, b_4;   /* bytes per element: b_e * e + b_4 (0, 0: a per-row kernel) */
	enum kern_family fam;
};
#define EW KF_ELEMENTWISE
static const struct norm_kernel rms_fwd[] = {
	{ "rmsnorm_to_fp32", 1, 4, KF_UPCAST }, { "rmsnorm_pow", 0, 8, EW }, { "rmsnorm_mean", 0, 4, EW },
	{ "rmsnorm_add_eps", 0, 0, EW }, { "rmsnorm_rsqrt", 0, 0, EW }, { "rmsnorm_mul", 0, 8, EW },
	{ "rmsnorm_to_dtype", 1, 4, KF_DOWNCAST }, { "rmsnorm_weight_mul", 2, 0, EW },
};
static const struct norm_kernel rms_bwd[] = {
	{ "rmsnorm_weight_mul_bwd", 2, 0, EW }, { "rmsnorm_weight_grad_mul", 3, 0, EW },
	{ "rmsnorm_weight_grad_sum", 1, 0, EW }, { "rmsnorm_to_dtype_bwd", 1, 4, KF_UPCAST },
	{ "rmsnorm_mul_bwd", 0, 8, EW }, { "rmsnorm_r_grad_mul", 0, 12, EW }, { "rmsnorm_r_grad_sum", 0, 4, EW },
	{ "rmsnorm_rsqrt_bwd", 0, 0, EW }, { "rmsnorm_mean_bwd", 0, 4, EW }, { "rmsnorm_pow_bwd", 0, 12, EW },
	{ "rmsnorm_grad_add", 0, 12, EW }, { "rmsnorm_to_fp32_bwd", 1, 4, KF_DOWNCAST },
};
#undef EW

static int put_norm(const struct opctx *c, struct opcost *out, int n, const char *name, double rows, double h,
		    int bwd)
{
	double e = dtype_bytes(c->sc->model.dtype), N = rows * h;
	if (c->sc->model.norm != NORM_RMSNORM_UNFUSED || fused(c)) {
		enum kern_family f = c->sc->model.norm == NORM_LAYERNORM ? (bwd ? KF_LAYERNORM_BWD : KF_LAYERNORM)
								     : (bwd ? KF_RMSNORM_BWD : KF_RMSNORM);
		return put(out, n, name, ops_kern_s(c->hw, eager_family(c, f), (bwd ? 4 : 2) * N * e));
	}
	const struct norm_kernel *k = bwd ? rms_bwd : rms_fwd;
	int nk = bwd ? (int)(sizeof rms_bwd / sizeof *rms_bwd) : (int)(sizeof rms_fwd / sizeof *rms_fwd);
	for (int i = 0; i < nk; i++) {
		double b = k[i].b_e == 0 && k[i].b_4 == 0 ? rows * 8 : N * (k[i].b_e * e + k[i].b_4);
		n = put(out, n, k[i].name, ops_kern_s(c->hw, k[i].fam, b));
	}
	return n;
}

/* The fused QKV projection's output is split into Q, K and V (views) for the attention kernel; in eager autograd
 * the split's backward is a cat of dQ, dK and dV into the projection's output gradient: read and write T*qkv*e
 * (PyTorch's CatArrayBatchedCopy: on an H100, 67.6 us for t07's 8192 x 6144 bf16, kernel_profile.py). Compiled:
 * inductor writes the three gradients into one buffer, no kernel of its own. */
static int put_qkv_split_bwd(const struct opctx *c, const struct dims *d, struct opcost *out, int n)
{
	if (fused(c))
		return n;
	return put(out, n, "qkv_split_bwd", ops_kern_s(c->hw, KF_ELEMENTWISE, 2 * d->T * d->qkv * d->dtb));
}

/* Grouped-query attention's backward in FlashAttention-2 (flash_api.cpp mha_bwd, PyTorch's flash backend): the
 * kernel writes dK and dV for every query head, as for multi-head attention (inside the attention rows), and a
 * sum over each group of heads/kv_heads query heads then reads them and writes the kv_heads gradients:
 * read 2*T*hq*hd*e, write 2*T*hkv*hd*e (hq, hkv: heads and kv_heads of this TP rank). Nothing without GQA. */
static int put_gqa_bwd(const struct opctx *c, const struct dims *d, struct opcost *out, int n)
{
	const struct model_cfg *m = &c->sc->model;
	if (!m->flash_attention || m->kv_heads == m->heads)
		return n;
	double hd = (double)m->hidden / m->heads, hq = (double)m->heads / c->tp, hkv = (double)m->kv_heads / c->tp;
	return put(out, n, "gqa_dkv_sum", ops_kern_s(c->hw, eager_family(c, KF_ELEMENTWISE),
						     2 * d->T * hd * (hq + hkv) * d->dtb));
}

int ops_layer_fwd(const struct opctx *c, struct opcost *out)
{
	const struct hwmodel *hw = c->hw;
	struct dims d = dims_of(c);
	int n = put_cast(c, out, 0, scenario_params_per_layer(c->sc) / c->tp, 0);
	if (c->sc->model.type == MODEL_MLP)
		return ops_price_layer_host(c, out, mlp_fwd(c, &d, out, n), 0);
	double act = d.T * d.h * d.dtb, R = outer_rows(c, d.T), ract = R * d.h * d.dtb;  /* SP: outside on T/tp */
	n = put_norm(c, out, n, "ln1", R, d.h, 0);
	if (fp8_separate_amax(c->sc))
		n = ops_quantize(c, out, n, "qkv_quantize", d.T * d.h);
	n = overlap_gather_gemm(c, out, n, "tp_allgather_attn", "tp_ag_p2p_attn", "qkv", act, d.T, d.qkv, d.h);
	n = put_rope(c, &d, out, n, 0);
	n = cp_attn_fwd(c, out, n);
	n = ops_quantize(c, out, n, "proj_quantize", d.T * d.h / c->tp);
	n = overlap_gemm_reduce(c, out, n, "proj", "tp_allreduce_attn", "tp_reducescatter_attn", "tp_rs_p2p_attn",
			"tp_rs_sum_attn", act, d.T, d.h, d.h / c->tp);
	if (fused(c)) {  /* one kernel: read x and the branch, write the sum and its norm */
		n = put(out, n, "residual1_ln2", ops_mem_s(hw, 4 * ract));
	} else {
		n = put(out, n, "residual1", ops_kern_s(hw, KF_ELEMENTWISE, 3 * ract));
		n = put_norm(c, out, n, "ln2", R, d.h, 0);
	}
	n = mlp_fwd(c, &d, out, n);
	n = put(out, n, "residual2", ops_kern_s(hw, eager_family(c, KF_ELEMENTWISE), 3 * ract));
	return ops_price_layer_host(c, out, n, 0);
}

int ops_layer_bwd(const struct opctx *c, int recompute_attn, struct opcost *out)
{
	const struct hwmodel *hw = c->hw;
	struct dims d = dims_of(c);
	int n = 0;
	if (c->sc->model.type == MODEL_MLP) {
		n = put_cast(c, out, mlp_bwd(c, &d, out, 0), scenario_params_per_layer(c->sc) / c->tp, 1);
		return ops_price_layer_host(c, out, n, 1);
	}
	double act = d.T * d.h * d.dtb, R = outer_rows(c, d.T), ract = R * d.h * d.dtb;
	n = mlp_bwd(c, &d, out, n);
	/* the residual: the gradient through the MLP branch and the one around it are added (compiled: in the
	 * norm's backward kernel, which then also reads the gradient around the branch) */
	if (fused(c)) {
		n = put(out, n, "ln2_residual_bwd", ops_mem_s(hw, 5 * ract));
	} else {
		n = put_norm(c, out, n, "ln2_bwd", R, d.h, 1);
		n = put(out, n, "residual2_bwd", ops_kern_s(hw, KF_ELEMENTWISE, 3 * ract));
	}
	if (overlap_tp(c)) {
		n = ops_quantize(c, out, n, "proj_grad_quantize", d.T * d.h);
		n = overlap_gather_gemm(c, out, n, "tp_allgather_attn_bwd", "tp_ag_p2p_attn_bwd", "proj_dgrad", act, d.T,
				d.h / c->tp, d.h);
	} else {
		n = put_sp_gather(c, out, n, "tp_allgather_attn_bwd", act);
		n = ops_quantize(c, out, n, "proj_grad_quantize", d.T * d.h);
		n = put_cb(out, n, "proj_dgrad", lin(c, d.T, d.h / c->tp, d.h));
	}
	n = put_cb(out, n, "proj_wgrad", lin(c, d.h, d.h / c->tp, d.T));
	n = cp_attn_bwd(c, recompute_attn, out, n);
	n = put_gqa_bwd(c, &d, out, n);
	n = put_rope(c, &d, out, n, 1);
	n = put_qkv_split_bwd(c, &d, out, n);
	n = ops_quantize(c, out, n, "qkv_grad_quantize", d.T * d.qkv);
	n = overlap_dgrad_wgrad(c, out, n, "qkv_dgrad", lin(c, d.T, d.h, d.qkv), "qkv_wgrad", lin(c, d.qkv, d.h, d.T),
			       "tp_allgather_qkv_input", "tp_allreduce_attn_bwd", "tp_reducescatter_attn_bwd", act);
	n = put_norm(c, out, n, "ln1_bwd", R, d.h, 1);
	n = put(out, n, "residual1_bwd", ops_kern_s(hw, eager_family(c, KF_ELEMENTWISE), 3 * ract));
	return ops_price_layer_host(c, out, put_cast(c, out, n, scenario_params_per_layer(c->sc) / c->tp, 1), 1);
}

int ops_embed_fwd(const struct opctx *c, struct opcost *out)
{
	struct dims d = dims_of(c);
	int n = put(out, 0, "embedding", ops_mem_s(c->hw, 2 * d.T * d.h * d.dtb));
	n = put_tp_reduce(c, out, n, "tp_allreduce_embedding", "tp_reducescatter_embedding", d.T * d.h * d.dtb);
	return ops_price_host(c, out, 0, n, 0);
}

/* PyTorch's embedding_dense_backward: zero the (V/tp) x h weight gradient, sort the T token ids and add each
 * token's gradient row into its word's row through fp32 partial sums: write V/tp*h*e, read T*h*e, write and read
 * T*h*4 partial sums, approximated as T*h*(e+4) + V/tp*h*e. */
int ops_embed_bwd(const struct opctx *c, struct opcost *out)
{
	struct dims d = dims_of(c);
	double v = (double)c->sc->model.vocab / c->tp;
	int n = put_sp_gather(c, out, 0, "tp_allgather_embedding_bwd", d.T * d.h * d.dtb);  /* SP: its gradient */
	n = put(out, n, "embedding_bwd", ops_mem_s(c->hw, d.T * d.h * (d.dtb + 4) + v * d.h * d.dtb));
	return ops_price_host(c, out, 0, n, 1);
}

/* Cross entropy over T rows of V logits of ei bytes, computed in el-byte precision (the head upcasts to fp32,
 * el = 4; a dense classifier keeps its dtype, el = ei). L = T*V.
 * Eager (F.cross_entropy): an upcast when el > ei (read ei, write el), log_softmax (read el, write el),
 * nll_loss (T targets of 8 bytes, T values); backward: nll_loss_backward (a zero fill and a scatter: write el),
 * log_softmax_backward (read the gradient and the saved output, write: 3 el), a downcast (read el, write ei).
 * Compiled (inductor): one kernel reads the logits twice (max and sum of exponentials, then the target) and writes
 * T log-sum-exps; its backward reads the logits once and writes their gradient: 2 ei each way. */
static int put_ce(const struct opctx *c, struct opcost *out, int n, double T, double V, double ei, double el, int bwd)
{
	const struct hwmodel *hw = c->hw;
	double L = T * V;
	if (fused(c))
		return put(out, n, bwd ? "cross_entropy_bwd" : "cross_entropy", ops_mem_s(hw, 2 * L * ei + T * 4));
	if (!bwd) {
		if (el > ei)
			n = put(out, n, "logits_upcast", ops_kern_s(hw, KF_UPCAST, L * (ei + el)));
		n = put(out, n, "log_softmax", ops_kern_s(hw, KF_SOFTMAX, 2 * L * el));
		return put(out, n, "nll_loss", ops_kern_s(hw, KF_ELEMENTWISE, T * (8 + el)));
	}
	n = put(out, n, "nll_loss_bwd", ops_kern_s(hw, KF_FILL, L * el));
	n = put(out, n, "log_softmax_bwd", ops_kern_s(hw, KF_SOFTMAX_BWD, 3 * L * el));
	if (el > ei)
		n = put(out, n, "logits_grad_downcast", ops_kern_s(hw, KF_DOWNCAST, L * (ei + el)));
	return n;
}

int ops_head_fwd(const struct opctx *c, struct opcost *out)
{
	struct dims d = dims_of(c);
	double v = (double)c->sc->model.vocab / c->tp;
	int n = put_norm(c, out, 0, "final_ln", outer_rows(c, d.T), d.h, 0);
	n = put_cast(c, out, n, v * d.h, 0);
	n = put_sp_gather(c, out, n, "tp_allgather_head", d.T * d.h * d.dtb);
	n = put_cb(out, n, "logits", ops_gemm_s(c->hw, d.dt, d.T, v, d.h));
	/* vocab-parallel cross entropy (Megatron's _VocabParallelCrossEntropy): each TP rank holds V/tp logits of a
	 * row; three all-reduces of T fp32 values join them: the row maxima (before the exponentials), then the
	 * target logits (from the rank whose shard holds the target) and the sums of exponentials; its backward
	 * is local */
	n = put_ar(c, out, n, "tp_allreduce_ce_max", d.T * 4);
	n = put_ce(c, out, n, d.T, v, d.dtb, 4, 0);
	n = put_ar(c, out, n, "tp_allreduce_ce_target", d.T * 4);
	return ops_price_host(c, out, 0, put_ar(c, out, n, "tp_allreduce_ce_sumexp", d.T * 4), 0);
}

int ops_head_bwd(const struct opctx *c, struct opcost *out)
{
	struct dims d = dims_of(c);
	double v = (double)c->sc->model.vocab / c->tp;
	int n = put_ce(c, out, 0, d.T, v, d.dtb, 4, 1);
	n = put_cb(out, n, "logits_dgrad", ops_gemm_s(c->hw, d.dt, d.T, d.h, v));
	n = put_cb(out, n, "logits_wgrad", ops_gemm_s(c->hw, d.dt, v, d.h, d.T));
	n = put_cast(c, out, n, v * d.h, 1);
	n = put_tp_reduce(c, out, n, "tp_allreduce_head_bwd", "tp_reducescatter_head_bwd", d.T * d.h * d.dtb);
	return ops_price_host(c, out, 0, put_norm(c, out, n, "final_ln_bwd", outer_rows(c, d.T), d.h, 1), 1);
}

/* Dense layer l of a layer list (type: dense), in = widths[l], out = widths[l+1], T samples of e bytes:
 *   linear      GEMM (T, out, in); a bias rides in the GEMM's epilogue (cuBLASLt, as PyTorch's addmm)
 *   activation  elementwise, reads and writes T*out (not after the last layer)
 *   dropout     reads T*out, writes T*out and a 1-byte mask (not after the last layer)
 *   loss        after the last layer: cross entropy in the layer's dtype (put_ce); mse = one pass over
 *               prediction and target (2*T*out). */
static const char *const act_op[] = { "relu", "gelu", "tanh", "" };
static const char *const act_bwd_op[] = { "relu_bwd", "gelu_bwd", "tanh_bwd", "" };

int ops_dense_fwd(const struct opctx *c, int l, struct opcost *out)
{
	const struct model_cfg *m = &c->sc->model;
	const struct hwmodel *hw = c->hw;
	double T = c->tokens, in = m->widths[l], o = m->widths[l + 1], e = dtype_bytes(m->dtype);
	enum kern_family ew = eager_family(c, KF_ELEMENTWISE);
	int n = put_cast(c, out, 0, scenario_dense_layer_params(c->sc, l), 0);
	n = put_cb(out, n, "linear", ops_gemm_s(hw, m->dtype, T, o, in));
	if (l + 1 < m->layers) {
		if (m->act != ACT_NONE)
			n = put(out, n, act_op[m->act], ops_kern_s(hw, ew, 2 * T * o * e));
		if (m->dropout > 0)
			n = put(out, n, "dropout", ops_kern_s(hw, ew, T * o * (2 * e + 1)));
		return ops_price_host(c, out, 0, n, 0);
	}
	if (m->loss == LOSS_CROSS_ENTROPY) {
		n = put_ce(c, out, n, T, o, e, e, 0);
	} else if (m->loss == LOSS_MSE) {
		n = put(out, n, "mse_loss", ops_kern_s(hw, ew, 2 * T * o * e));
	}
	return ops_price_host(c, out, 0, n, 0);
}

/* Backward of dense layer l: the loss's gradient (last layer: nll_loss_backward writes T*out, log_softmax
 * backward reads the gradient and the saved output and writes T*out; mse reads prediction and target, writes
 * the gradient), or dropout (read gradient and mask, write) and activation backward (read gradient and saved
 * tensor, write); then the weight gradient GEMM (out, in, T), the bias gradient (a reduction reading T*out) and
 * the input gradient GEMM (T, in, out), which the first layer skips: its input needs no gradient. */
int ops_dense_bwd(const struct opctx *c, int l, struct opcost *out)
{
	const struct model_cfg *m = &c->sc->model;
	const struct hwmodel *hw = c->hw;
	double T = c->tokens, in = m->widths[l], o = m->widths[l + 1], e = dtype_bytes(m->dtype);
	enum kern_family ew = eager_family(c, KF_ELEMENTWISE);
	int n = 0;
	if (l + 1 == m->layers) {
		if (m->loss == LOSS_CROSS_ENTROPY) {
			n = put_ce(c, out, n, T, o, e, e, 1);
		} else if (m->loss == LOSS_MSE) {
			n = put(out, n, "mse_loss_bwd", ops_kern_s(hw, ew, 3 * T * o * e));
		}
	} else {
		if (m->dropout > 0)
			n = put(out, n, "dropout_bwd", ops_kern_s(hw, ew, T * o * (2 * e + 1)));
		if (m->act != ACT_NONE)
			n = put(out, n, act_bwd_op[m->act], ops_kern_s(hw, ew, 3 * T * o * e));
	}
	n = put_cb(out, n, "linear_wgrad", ops_gemm_s(hw, m->dtype, o, in, T));
	if (m->bias)
		n = put(out, n, "bias_grad", ops_kern_s(hw, ew, T * o * e));
	if (l > 0)
		n = put_cb(out, n, "linear_dgrad", ops_gemm_s(hw, m->dtype, T, in, o));
	return ops_price_host(c, out, 0, put_cast(c, out, n, scenario_dense_layer_params(c->sc, l), 1), 1);
}
