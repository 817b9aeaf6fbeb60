/* scenshapes: a scenario's GEMM shapes (see scenshapes.h). For a linear layer y[T x out] = x[T x in] W^T:
 * forward (T, out, in), data gradient dx = dy W (T, in, out), weight gradient dW = dy^T x (out, in, T). */
#include <stdio.h>
#include <string.h>
#include "calibrate/scenshapes.h"

static int add(struct cal_shape *out, int n, int max, const char *name, enum dtype dt, long m, long nn, long k)
{
	if (n >= max || m <= 0 || nn <= 0 || k <= 0)
		return n;
	for (int i = 0; i < n; i++)
		if (out[i].dt == dt && out[i].m == m && out[i].n == nn && out[i].k == k)
			return n;
	snprintf(out[n].name, sizeof out[n].name, "%s", name);
	out[n].dt = dt;
	out[n].m = m;
	out[n].n = nn;
	out[n].k = k;
	return n + 1;
}

static int linear(struct cal_shape *out, int n, int max, const char *name, enum dtype dt, long t, long o, long i)
{
	char buf[32];
	n = add(out, n, max, name, dt, t, o, i);
	snprintf(buf, sizeof buf, "%s_dgrad", name);
	n = add(out, n, max, buf, dt, t, i, o);
	snprintf(buf, sizeof buf, "%s_wgrad", name);
	return add(out, n, max, buf, dt, o, i, t);
}

int scenshapes_from(const struct scenario *s, struct cal_shape *out, int max)
{
	const struct model_cfg *m = &s->model;
	long tp = s->par.tp > 0 ? s->par.tp : 1;
	long t = (long)s->train.micro_batch * (m->seq > 0 ? m->seq : 1);
	long h = m->hidden, f = m->ffn_hidden > 0 ? m->ffn_hidden : 4L * m->hidden;
	enum dtype dt = m->dtype == DT_FP32 ? DT_TF32 : m->dtype;  /* fp32 GEMMs run on TF32 tensor cores */
	int n = 0;
	if (m->type == MODEL_TRANSFORMER && m->heads > 0) {
		long kv = m->kv_heads > 0 ? m->kv_heads : m->heads;
		long qkv = (m->heads + 2 * kv) * (h / m->heads);
		n = linear(out, n, max, "qkv", dt, t, qkv / tp, h);
		n = linear(out, n, max, "proj", dt, t, h, h / tp);
	}
	n = linear(out, n, max, "mlp_up", dt, t, (m->ffn == FFN_SWIGLU ? 2 : 1) * f / tp, h);
	n = linear(out, n, max, "mlp_down", dt, t, h, f / tp);
	if (m->vocab > 0)
		n = linear(out, n, max, "head", dt, t, m->vocab / tp, h);
	return n;
}
