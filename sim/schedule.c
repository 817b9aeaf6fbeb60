/* schedule: per-stage unit orders. 1F1B: stage s runs min(p-s-1, m) forwards to warm up, then alternates one
 * forward and one backward, then drains the backwards. Interleaved (Megatron-LM, Narayanan et al. SC'21):
 * the k-th forward unit is micro-batch (k / (p*v))*p + k%p of chunk (k/p)%v; backwards walk the chunks in
 * reverse; warm-up is (p-s-1)*2 + (v-1)*p units, or everything when m == p. */
#include "sim/schedule.h"

const char *sched_name(enum schedule sc)
{
	switch (sc) {
	case SCHED_GPIPE: return "gpipe";
	case SCHED_1F1B: return "1f1b";
	case SCHED_INTERLEAVED: return "interleaved";
	}
	return "?";
}

static struct unit unit_at(int k, int bwd, int p, int v)
{
	int in_group = k % (p * v);
	int chunk = in_group / p;
	if (bwd)
		chunk = v - 1 - chunk;
	return (struct unit){ bwd, (k / (p * v)) * p + k % p, chunk };
}

int sched_order(enum schedule sc, int p, int v, int m, int s, struct unit *out)
{
	int n = 0, total = m * v;
	if (sc == SCHED_GPIPE) {
		for (int c = 0; c < v; c++)
			for (int mb = 0; mb < m; mb++)
				out[n++] = (struct unit){ 0, mb, c };
		for (int c = v - 1; c >= 0; c--)
			for (int mb = 0; mb < m; mb++)
				out[n++] = (struct unit){ 1, mb, c };
		return n;
	}
	if (sc == SCHED_1F1B)
		v = 1, total = m;
	int warmup;
	if (v == 1)
		warmup = p - s - 1;
	else
		warmup = (p - s - 1) * 2 + (v - 1) * p;
	if (warmup > total || (v > 1 && m == p))
		warmup = total;
	int f = 0, b = 0;
	for (; f < warmup; f++)
		out[n++] = unit_at(f, 0, p, v);
	while (f < total) {
		out[n++] = unit_at(f++, 0, p, v);
		out[n++] = unit_at(b++, 1, p, v);
	}
	while (b < total)
		out[n++] = unit_at(b++, 1, p, v);
	return n;
}
