/* torchattn: fused attention rows measured through PyTorch (`gpusim calibrate --attention torch`). The lent and
 * typical training machines have PyTorch, whose SDPA runs the kernels training jobs run (FlashAttention-2 as its
 * flash backend, cuDNN's fused attention as its cudnn backend), while cuDNN's headers are often absent; so the
 * module runs our own probe, calibrate/torch_attention.py, compiled into gpusim as text (never a path read from a
 * file or the environment), with python3, and reads its CSV. The rows become the model's gpu.attention.fused
 * (impl flash) and gpu.attention.cudnn (impl cudnn) entries; the CSV is kept as raw/attention_torch.csv, which
 * --refit reads back. */
#ifndef TORCHATTN_H
#define TORCHATTN_H

#include <stdbool.h>
#include <stdio.h>
#include "calibrate/calib.h"
#include "hardware/hwmodel.h"

/* The probe's text (generated from calibrate/torch_attention.py at build time). */
extern const char torchattn_script[];

/* torchattn_run: run the probe with the python3 on PATH, all lengths, or 512-4096 when quick; 0, or GS_EENV
 * after one line saying why (no python3, no torch, a failed probe). */
int torchattn_run(struct calib *c, bool quick);
/* torchattn_parse: the probe's CSV (its header line first; '#' lines are comments, the first one the source)
 * into c->fattn; name is for messages. 0 or GS_EINVAL at the bad line. */
int torchattn_parse(FILE *f, const char *name, struct calib *c);
/* torchattn_write: the rows back as the probe's CSV (raw/attention_torch.csv) */
void torchattn_write(FILE *f, const struct calib *c);
/* A backend held alone (--hold) that the power limiter left at the maximum SM clock (at least this fraction of it)
 * is written `clock: max`: its rates hold in any step (flash on an H100: 1980 MHz at 633-675 of 700 W; on an
 * H200 1980 MHz at 687 W; cuDNN's is clipped to 1725-1815 MHz). */
#define TORCHATTN_MAX_CLOCK_FRAC 0.97
bool torchattn_max_clock(const struct calib *c, const char *backend);
/* torchattn_fill: the attention entry of one backend ("flash" for gpu.attention.fused, "cudnn" for
 * gpu.attention.cudnn) with that backend's MHA rows as TFLOP/s (at most HW_ATTN_ROWS), rates: burst, clock: max
 * when torchattn_max_clock; false (a untouched) when the backend has no row. */
bool torchattn_fill(const struct calib *c, const char *backend, struct hw_attn *a);
/* torchattn_clock_law: for an entry at the maximum clock (a, from torchattn_fill) whose backend the probe also ran
 * interleaved with GEMMs (its '# mix' lines, after '# gemm_held'), the entry's power (the hold's draw over the
 * limit), clock_exponent lambda and clock_anchor A: in mix i the GEMMs ran at v_i = held/mix of their held
 * (sustained) time and the attention at u_i = alone/mix of its time held alone; ln u = lambda (ln v - ln A) by
 * least squares over the mixes (their ln v spread, as a standard deviation, at least 0.01; lambda in (0, 2]),
 * kept where A >= burst (gpu.power.burst_speedup). Else (one mix, no spread, a slope out of range or an anchor
 * under the burst) the line goes through u = 1 at v = burst: ln u = lambda ln(v/burst) (least squares over the
 * mixes whose v is at least 1 % under burst), clipped to [0, 2], clock_anchor 0. Where the probe also ran the
 * call inside a layer (torchattn_layer_point: (v_L, u_L) against the table's rate), the law keeps lambda and passes
 * through that point: A = v_L u_L^(-1/lambda) (v_L where u_L >= 1; within [1, 4]), under the burst too: the mixes'
 * attention runs slower than a layer's at the same clock. fit gets (v_i, u_i) of each mix (at most TORCHATTN_MIXES pairs). Returns the
 * mixes read, 0 when nothing was set (no mix, no power phase, or no mix under the maximum clock). */
#define TORCHATTN_MIXES 4
int torchattn_clock_law(const struct calib *c, const char *backend, double burst, struct hw_attn *a, double *fit);
/* The layer mix's shape (calibrate/torch_attention.py layer_mix): causal, 8 sequences of 2048 tokens, 16 heads of
 * 128, no GQA. */
#define TORCHATTN_LAYER_SEQ 2048
#define TORCHATTN_LAYER_BATCH 8
#define TORCHATTN_LAYER_HEADS 16
#define TORCHATTN_LAYER_HEAD_DIM 128
/* torchattn_layer_point: backend's layer mix (a '# layermix' line) as a point of the law: v its GEMMs' speed over
 * their held rate, u the table's kernel time at the layer's shape (a row of the probe's table) over the call's time
 * inside the layer. False without the line or the row. */
bool torchattn_layer_point(const struct calib *c, const char *backend, double *v, double *u);
/* torchattn_clock_laws: torchattn_clock_law for the fused (flash) and cuDNN entries of g, each said on stderr with
 * the mixes' speeds, and the probe's layer mix beside what the law gives at its GEMM speed (the raw CSV keeps
 * them all). */
void torchattn_clock_laws(const struct calib *c, struct hw_gpu *g);

#endif
