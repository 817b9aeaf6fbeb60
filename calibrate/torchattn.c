/* torchattn: run the PyTorch attention probe and read its rows (see torchattn.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "calibrate/torchattn.h"
#include "calibrate/torchprobe.h"
#include "hardware/hwmodel.h"
#include "util/diag.h"
#include "util/gserr.h"

#define HEADER11 "backend,head_dim,causal,gqa,seq,batch,heads,fwd_ms,bwd_ms,fwd_tflops,bwd_tflops"
static const char header[] = HEADER11 ",fwd_kernel_ms,bwd_kernel_ms";

/* FLOPs of one forward, as docs/hardware-model.md counts them (4*b*h*s^2*d, halved when causal) */
static double fwd_flops(const struct cal_fattn *a)
{
	return 4.0 * a->batch * a->heads * (double)a->seq * a->seq * a->head_dim * (a->causal ? 0.5 : 1.0);
}

static void chomp(char *s)
{
	size_t n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = 0;
}

/* A '# hold', '# gemm_held', '# mix' or '# layermix' line of the probe into c: 0, an error code (negative) at the
 * bad line, or 1 when the line is none of them. */
static int parse_marked(const char *line, const char *name, int ln, struct calib *c)
{
	if (strncmp(line, "# hold,", 7) == 0) {
		struct cal_fattn_hold *h = &c->fhold[c->nfhold];
		char be[16];
		if (c->nfhold >= 4 || sscanf(line + 7, "%15[^,],%d,%lf,%lf,%d,%lf", be, &h->sm_mhz, &h->power_w,
					      &h->limit_w, &h->max_mhz, &h->tflops) != 6)
			return diag_error(name, ln, 0, "expected '# hold,BACKEND,SM_MHZ,POWER_W,POWER_LIMIT_W,"
					  "MAX_SM_MHZ,TFLOPS' (at most 4)");
		snprintf(h->backend, sizeof h->backend, "%s", be);
		c->nfhold++;
		return 0;
	}
	if (strncmp(line, "# gemm_held,", 12) == 0) {
		if (sscanf(line + 12, "%d,%lf,%lf", &c->gemm_held_mhz, &c->gemm_held_w, &c->gemm_held_ms) != 3 ||
		    !(c->gemm_held_ms > 0))
			return diag_error(name, ln, 0, "expected '# gemm_held,SM_MHZ,POWER_W,GEMM_MS'");
		return 0;
	}
	if (strncmp(line, "# mix,", 6) == 0) {
		struct cal_fattn_mix *x = &c->fmix[c->nfmix];
		char be[16];
		if (c->nfmix >= 4 || sscanf(line + 6, "%15[^,],%d,%d,%lf,%lf,%lf,%lf", be, &x->gemms, &x->sm_mhz,
					     &x->power_w, &x->gemm_ms, &x->att_ms, &x->att_max_ms) != 7 ||
		    !(x->gemm_ms > 0 && x->att_ms > 0 && x->att_max_ms > 0))
			return diag_error(name, ln, 0, "expected '# mix,BACKEND,GEMMS,SM_MHZ,POWER_W,GEMM_MS,ATT_MS,"
					  "ATT_MAX_MS' with positive times (at most 4)");
		snprintf(x->backend, sizeof x->backend, "%s", be);
		c->nfmix++;
		return 0;
	}
	if (strncmp(line, "# layermix,", 11) == 0) {
		struct cal_fattn_layer *x = &c->flayer[c->nflayer];
		char be[16];
		if (c->nflayer >= 2 || sscanf(line + 11, "%15[^,],%d,%lf,%lf,%lf,%lf,%lf", be, &x->sm_mhz, &x->power_w,
					       &x->gemm_held_ms, &x->gemm_ms, &x->att_alone_ms, &x->att_ms) != 7 ||
		    !(x->gemm_held_ms > 0 && x->gemm_ms > 0 && x->att_alone_ms > 0 && x->att_ms > 0))
			return diag_error(name, ln, 0, "expected '# layermix,BACKEND,SM_MHZ,POWER_W,GEMM_HELD_MS,GEMM_MS,"
					  "ATT_ALONE_MS,ATT_MS' with positive times (at most 2)");
		snprintf(x->backend, sizeof x->backend, "%s", be);
		c->nflayer++;
		return 0;
	}
	return 1;
}

int torchattn_parse(FILE *f, const char *name, struct calib *c)
{
	char line[512];
	int ln = 0;
	bool have_header = false;
	c->nfattn = c->nfhold = c->nfmix = c->nflayer = 0;
	c->gemm_held_mhz = 0;
	c->gemm_held_w = c->gemm_held_ms = 0;
	while (fgets(line, sizeof line, f)) {
		ln++;
		chomp(line);
		if (!line[0])
			continue;
		int rc = parse_marked(line, name, ln, c);
		if (rc < 0)
			return rc;
		if (rc == 0)
			continue;
		if (line[0] == '#') {
			if (!c->fattn_source[0])
				snprintf(c->fattn_source, sizeof c->fattn_source, "%s", line + 1 + (line[1] == ' '));
			continue;
		}
		if (!have_header) {
			/* the first 11 columns are fixed; the kernel times came later */
			if (strncmp(line, HEADER11, sizeof HEADER11 - 1) != 0)
				return diag_error(name, ln, 0, "expected the header '%s'", header);
			have_header = true;
			continue;
		}
		if (c->nfattn >= CAL_MAX_FATTN)
			return diag_error(name, ln, 0, "more than %d rows", CAL_MAX_FATTN);
		struct cal_fattn *a = &c->fattn[c->nfattn];
		char be[16];
		int causal, gqa, used = 0;
		memset(a, 0, sizeof *a);
		int got = sscanf(line, "%15[^,],%d,%d,%d,%d,%d,%d,%lf,%lf,%*f,%*f%n", be, &a->head_dim, &causal, &gqa,
				 &a->seq, &a->batch, &a->heads, &a->fwd_ms, &a->bwd_ms, &used);
		if (got != 9 || !used)
			return diag_error(name, ln, 0, "expected %s", header);
		if (line[used] == ',' && sscanf(line + used, ",%lf,%lf", &a->fwd_kernel_ms, &a->bwd_kernel_ms) != 2)
			return diag_error(name, ln, 0, "expected the kernel times fwd_kernel_ms,bwd_kernel_ms");
		if (a->head_dim < 1 || a->head_dim > 1024 || a->seq < 1 || a->batch < 1 || a->heads < 1 ||
		    !(a->fwd_ms > 0) || !(a->bwd_ms > 0) || !isfinite(a->fwd_ms) || !isfinite(a->bwd_ms) ||
		    (causal != 0 && causal != 1) || (gqa != 0 && gqa != 1))
			return diag_error(name, ln, 0, "a shape out of range or a time that is not positive");
		snprintf(a->backend, sizeof a->backend, "%s", be);
		a->causal = causal;
		a->gqa = gqa;
		c->nfattn++;
	}
	if (!have_header)
		return diag_error(name, 0, 0, "no CSV header (did the probe run?)");
	return 0;
}

void torchattn_write(FILE *f, const struct calib *c)
{
	if (c->fattn_source[0])
		fprintf(f, "# %s\n", c->fattn_source);
	fprintf(f, "%s\n", header);
	for (int i = 0; i < c->nfhold; i++) {
		const struct cal_fattn_hold *h = &c->fhold[i];
		fprintf(f, "# hold,%s,%d,%.1f,%.1f,%d,%.1f\n", h->backend, h->sm_mhz, h->power_w, h->limit_w, h->max_mhz,
			h->tflops);
	}
	if (c->gemm_held_ms > 0)
		fprintf(f, "# gemm_held,%d,%.1f,%.4f\n", c->gemm_held_mhz, c->gemm_held_w, c->gemm_held_ms);
	for (int i = 0; i < c->nfmix; i++) {
		const struct cal_fattn_mix *x = &c->fmix[i];
		fprintf(f, "# mix,%s,%d,%d,%.1f,%.4f,%.4f,%.4f\n", x->backend, x->gemms, x->sm_mhz, x->power_w, x->gemm_ms,
			x->att_ms, x->att_max_ms);
	}
	for (int i = 0; i < c->nflayer; i++) {
		const struct cal_fattn_layer *x = &c->flayer[i];
		fprintf(f, "# layermix,%s,%d,%.1f,%.4f,%.4f,%.4f,%.4f\n", x->backend, x->sm_mhz, x->power_w,
			x->gemm_held_ms, x->gemm_ms, x->att_alone_ms, x->att_ms);
	}
	for (int i = 0; i < c->nfattn; i++) {
		const struct cal_fattn *a = &c->fattn[i];
		double fl = fwd_flops(a);
		fprintf(f, "%s,%d,%d,%d,%d,%d,%d,%.4f,%.4f,%.1f,%.1f,%.4f,%.4f\n", a->backend, a->head_dim, a->causal,
			a->gqa, a->seq, a->batch, a->heads, a->fwd_ms, a->bwd_ms, fl / a->fwd_ms / 1e9,
			2.5 * fl / a->bwd_ms / 1e9, a->fwd_kernel_ms, a->bwd_kernel_ms);
	}
}

bool torchattn_max_clock(const struct calib *c, const char *backend)
{
	for (int i = 0; i < c->nfhold; i++) {
		const struct cal_fattn_hold *h = &c->fhold[i];
		if (strcmp(h->backend, backend) == 0)
			return h->max_mhz > 0 && h->sm_mhz >= TORCHATTN_MAX_CLOCK_FRAC * h->max_mhz;
	}
	return false;
}

bool torchattn_fill(const struct calib *c, const char *backend, struct hw_attn *a)
{
	int n = 0;
	for (int i = 0; i < c->nfattn; i++)
		n += strcmp(c->fattn[i].backend, backend) == 0 && !c->fattn[i].gqa;
	if (!n)
		return false;
	memset(a, 0, sizeof *a);
	a->present = true;
	snprintf(a->impl, sizeof a->impl, "%s", backend);
	a->burst = true;
	a->max_clock = torchattn_max_clock(c, backend);
	for (int i = 0; i < c->nfattn && a->nrows < HW_ATTN_ROWS; i++) {
		const struct cal_fattn *x = &c->fattn[i];
		if (strcmp(x->backend, backend) != 0 || x->gqa)
			continue;
		double bh = (double)x->batch * x->heads;
		bool seen = false;  /* a shape measured twice (the 16K-token pass and a --tokens pass): the first */
		for (int j = 0; j < a->nrows && !seen; j++)
			seen = a->row[j].head_dim == x->head_dim && a->row[j].causal == x->causal &&
			       a->row[j].seq == x->seq && a->row[j].bh == bh;
		if (seen)
			continue;
		/* the kernels' GPU time where the probe profiled them: a step keeps the GPU fed, while the events of one
		 * call from an idle GPU add its launch (up to half the time of a short call) */
		double fwd = x->fwd_kernel_ms > 0 ? x->fwd_kernel_ms : x->fwd_ms;
		double bwd = x->bwd_kernel_ms > 0 ? x->bwd_kernel_ms : x->bwd_ms;
		double fl = fwd_flops(x);
		a->row[a->nrows++] = (struct attn_row){x->head_dim, x->causal, x->seq, bh, round(fl / fwd / 1e8) / 10,
						       round(2.5 * fl / bwd / 1e8) / 10};
	}
	snprintf(a->source, sizeof a->source, "measured: torch SDPA %s backend (calibrate/torch_attention.py), bf16, "
		 "%.80s", backend, c->fattn_source);
	return true;
}

static const struct cal_fattn_hold *hold_of(const struct calib *c, const char *backend)
{
	for (int i = 0; i < c->nfhold; i++)
		if (strcmp(c->fhold[i].backend, backend) == 0)
			return &c->fhold[i];
	return NULL;
}

bool torchattn_layer_point(const struct calib *c, const char *backend, double *v, double *u)
{
	const struct cal_fattn_layer *l = NULL;
	for (int i = 0; i < c->nflayer && !l; i++)
		if (strcmp(c->flayer[i].backend, backend) == 0)
			l = &c->flayer[i];
	for (int i = 0; l && i < c->nfattn; i++) {
		const struct cal_fattn *x = &c->fattn[i];
		if (strcmp(x->backend, backend) != 0 || x->gqa || !x->causal || x->head_dim != TORCHATTN_LAYER_HEAD_DIM ||
		    x->seq != TORCHATTN_LAYER_SEQ || x->batch != TORCHATTN_LAYER_BATCH || x->heads != TORCHATTN_LAYER_HEADS)
			continue;
		double t = (x->fwd_kernel_ms > 0 ? x->fwd_kernel_ms : x->fwd_ms) +
			   (x->bwd_kernel_ms > 0 ? x->bwd_kernel_ms : x->bwd_ms);
		*v = l->gemm_held_ms / l->gemm_ms;
		*u = t / l->att_ms;
		return true;
	}
	return false;
}

int torchattn_clock_law(const struct calib *c, const char *backend, double burst, struct hw_attn *a, double *fit)
{
	const struct cal_fattn_hold *h = hold_of(c, backend);
	if (!a->present || !a->max_clock || !h || !(h->limit_w > 0) || !(burst > 1) || !(c->gemm_held_ms > 0))
		return 0;
	/* x = ln v, y = ln u of each mix */
	double x[TORCHATTN_MIXES], y[TORCHATTN_MIXES];
	int n = 0;
	for (int i = 0; i < c->nfmix && n < TORCHATTN_MIXES; i++) {
		const struct cal_fattn_mix *m = &c->fmix[i];
		if (strcmp(m->backend, backend) != 0)
			continue;
		fit[2 * n] = c->gemm_held_ms / m->gemm_ms;
		fit[2 * n + 1] = m->att_max_ms / m->att_ms;
		x[n] = log(fit[2 * n]);
		y[n] = log(fit[2 * n + 1]);
		n++;
	}
	/* ln u = lambda (ln v - ln A): least squares over the mixes, whose v spread at least 2 % */
	double mx = 0, my = 0, sxx = 0, sxy = 0, lam = 0, A = 0;
	for (int i = 0; i < n; i++)
		mx += x[i] / n, my += y[i] / n;
	for (int i = 0; i < n; i++)
		sxx += (x[i] - mx) * (x[i] - mx), sxy += (x[i] - mx) * (y[i] - my);
	if (n > 1 && sxx > 0 && sqrt(sxx / n) >= 0.01 && sxy / sxx > 0 && sxy / sxx <= 2) {
		lam = sxy / sxx;
		A = exp(mx - my / lam);
	}
	if (!(A >= burst)) {
		/* no line, or its anchor under the burst: through u = 1 at the burst (mixes at least 1 % under it) */
		double bxx = 0, bxy = 0;
		for (int i = 0; i < n; i++) {
			double lx = x[i] - log(burst);
			if (lx < -0.01)
				bxy += lx * y[i], bxx += lx * lx;
		}
		if (bxx <= 0)
			return 0;
		lam = bxy / bxx;
		A = 0;
	}
	/* the layer mix: the call inside a layer's step, timed against the table's rate at its shape (the rate the
	 * model divides by u). The mixes' attention follows 8192^3 GEMMs and runs 5-10 % slower than a layer's at the
	 * same clock (docs/validation.md, "A step's clock"), so the law keeps their slope and passes through the
	 * layer's point: A = v_L u_L^(-1/lambda), which may lie under the burst (the attention at its full rate from
	 * there up while the GEMMs go on to the burst); v_L where the layer's call ran at the table's rate or faster */
	double vl, ul;
	if (lam > 0 && torchattn_layer_point(c, backend, &vl, &ul))
		A = fmin(fmax(ul < 1 ? vl * pow(ul, -1 / lam) : vl, 1), 4);
	a->power = round(h->power_w / h->limit_w * 1000) / 1000;
	a->clock_exponent = round(fmin(fmax(lam, 0), 2) * 1000) / 1000;
	a->clock_anchor = round(A * 1000) / 1000;
	return n;
}

void torchattn_clock_laws(const struct calib *c, struct hw_gpu *g)
{
	static const struct { const char *backend; enum attn_path path; } e[] = {
		{ "flash", ATTN_FUSED }, { "cudnn", ATTN_CUDNN },
	};
	for (size_t i = 0; i < sizeof e / sizeof e[0]; i++) {
		double fit[2 * TORCHATTN_MIXES];
		struct hw_attn *a = &g->attn[e[i].path];
		int n = torchattn_clock_law(c, e[i].backend, g->burst_speedup, a, fit);
		double lv, lu;
		bool layer = n > 0 && a->clock_exponent > 0 && torchattn_layer_point(c, e[i].backend, &lv, &lu);
		if (n > 0)
			fprintf(stderr, "calibrate: %s attention beside GEMMs: the GEMMs at x%.3f and x%.3f of their held "
				"rate, the attention at x%.3f and x%.3f of its rate alone: clock_exponent %.3f, at its "
				"maximum-clock rate where the GEMMs run at x%.3f (%s; burst x%.3f), power %.3f\n",
				e[i].backend, fit[0], n > 1 ? fit[2] : 0, fit[1], n > 1 ? fit[3] : 0, a->clock_exponent,
				a->clock_anchor > 0 ? a->clock_anchor : g->burst_speedup,
				a->clock_anchor > 0 ? (layer ? "clock_anchor, through the layer mix" : "clock_anchor, fitted")
						    : "the burst", g->burst_speedup, a->power);
		/* the call inside a layer's step, which anchors the law where the table has its shape */
		for (int k = 0; k < c->nflayer; k++) {
			const struct cal_fattn_layer *l = &c->flayer[k];
			if (strcmp(l->backend, e[i].backend) != 0)
				continue;
			double v = l->gemm_held_ms / l->gemm_ms, u = l->att_alone_ms / l->att_ms;
			fprintf(stderr, "calibrate: %s attention in a layer's step: the GEMMs at x%.3f of their held rate, the "
				"attention at x%.3f of its call alone", e[i].backend, v, u);
			if (layer)
				fprintf(stderr, ", x%.3f of the table's rate at its shape", lu);
			fprintf(stderr, " (%d MHz)\n", l->sm_mhz);
		}
	}
}

int torchattn_run(struct calib *c, bool quick)
{
	/* the 16K-token rows first (the entries' reference), then other batch x heads (the rows' bh) */
	static const char *const quick_args[] = { "--seqs", "512,1024,2048,4096", "--hold", "3", "--tokens",
						  "16384,4096", NULL };
	static const char *const full_args[] = { "--hold", "8", "--tokens", "16384,4096,8192,32768", NULL };
	int rc = torchprobe_run(torchattn_script, "--attention torch", "calibrate/torch_attention.py",
				quick ? quick_args : full_args, torchattn_parse, c);
	if (rc)
		return rc;
	if (!c->nfattn) {
		diag_errorf("--attention torch: the probe measured no row");
		return GS_EENV;
	}
	return 0;
}
