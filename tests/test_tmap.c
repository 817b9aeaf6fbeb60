/* test_tmap: ticks and the max-plus maps of fused runs (sim/tmap.h), by hand on small integers. A map
 * (A, B, C) sends (t, h) to (max(t + A, h + B), h + C); one with the side channel also sends the side time s. */
#include "sim/tmap.h"
#include "check.h"

static void apply(const struct tmap *m, int64_t *t, int64_t *h)
{
	int64_t t1 = m->B == TMAP_NEG ? *t + m->A : imax(*t + m->A, *h + m->B);
	*h += m->C;
	*t = t1;
}

static struct tmap compute(int64_t a)
{
	return (struct tmap){ .A = a, .B = TMAP_NEG, .sum = { a, 0, 0, 0 } };
}

static struct tmap side(int64_t a)
{
	struct instr in = { .dur = tk_s(a), .kind = INS_SIDE, .cat = CAT_TP };
	struct tmap m;
	tmap_instr(&in, 1, &m);
	return m;
}

static struct tmap side_wait(void)
{
	struct instr in = { .kind = INS_SIDE_WAIT, .cat = CAT_TP };
	struct tmap m;
	tmap_instr(&in, 1, &m);
	return m;
}

/* compute 2, side transfer 6, compute 2, transfer 1, compute 2, wait, compute 1, from (t, s) = (0, 0): the first
 * transfer runs 2-8, the second 8-9 (issued at 4), the GPU reaches the wait at 6 and goes on at 9, ends at 10.
 * In general: s' = max(max(s, t + 2) + 6, t + 4) + 1 = max(s + 7, t + 9), and the wait takes t to
 * max(t + 6, s') then + 1: t' = max(t + 10, s + 8). */
static void side_by_hand(void)
{
	struct tmap seq[] = { compute(2), side(6), compute(2), side(1), compute(2), side_wait(), compute(1) };
	struct tmap m = seq[0];
	for (int i = 1; i < 7; i++)
		tmap_then(&m, &seq[i]);
	CHECK(m.has_side && m.waits);
	CHECK_INT(m.A, 10);
	CHECK_INT(m.D, 8);
	CHECK_INT(m.E, 9);
	CHECK_INT(m.G, 7);
	CHECK(m.B == TMAP_NEG && m.F == TMAP_NEG && m.C == 0);
	CHECK_INT(m.sum[SUM_COMP], 7);
	int64_t t = 0, h = 0, s = 0;
	tmap_apply(&m, &t, &h, &s);
	CHECK_INT(t, 10);
	CHECK_INT(s, 9);
	/* twice: the second block starts at t 10, s 9 (the channel idle): (20, 19); the map squared agrees */
	struct tmap m2 = m;
	tmap_pow(&m2, 2);
	CHECK_INT(m2.A, 20);
	CHECK_INT(m2.sum[SUM_COMP], 14);
	t = h = s = 0;
	tmap_apply(&m2, &t, &h, &s);
	CHECK_INT(t, 20);
	CHECK_INT(s, 19);
}

/* k passes by squaring = k compositions = k applications, for random runs of compute, host work, side transfers
 * and waits, from random (t, h, s) */
static void side_random(void)
{
	unsigned x = 11;
	int same = 1;
	for (int i = 0; i < 2000; i++) {
		struct tmap one = { .B = TMAP_NEG }, in;
		int n = 1 + (int)((x >> 5) % 6);
		for (int j = 0; j < n; j++) {
			x = x * 1103515245u + 12345u;
			int64_t a = (x >> 8) % 40;
			switch ((x >> 20) % 4) {
			case 0: in = compute(a); break;
			case 1: in = (struct tmap){ .B = a, .C = a }; break;  /* host work */
			case 2: in = side(a); break;
			default: in = side_wait(); break;
			}
			tmap_then(&one, &in);
		}
		x = x * 1103515245u + 12345u;
		uint32_t k = 1 + (x >> 26) % 20;
		struct tmap pw = one, seq = one;
		tmap_pow(&pw, k);
		for (uint32_t j = 1; j < k; j++)
			tmap_then(&seq, &one);
		int64_t t0 = (x >> 3) % 100, h0 = (x >> 9) % 100, s0 = (x >> 15) % 100;
		int64_t t1 = t0, h1 = h0, s1 = s0, t2 = t0, h2 = h0, s2 = s0, t3 = t0, h3 = h0, s3 = s0;
		tmap_apply(&pw, &t1, &h1, &s1);
		tmap_apply(&seq, &t3, &h3, &s3);
		for (uint32_t j = 0; j < k; j++)
			tmap_apply(&one, &t2, &h2, &s2);
		if (t1 != t2 || h1 != h2 || s1 != s2 || t3 != t2 || h3 != h2 || s3 != s2 || pw.sum[0] != seq.sum[0])
			same = 0;
	}
	CHECK(same);
}

/* The host work of a program: a segment of 3 ops (host_s of host time in all: 3 us at 1 us an op), host work of
 * 5 us, stored once and run 4 times: 4 * (3 + 5) = 32 us; a TP collective adds nothing. */
static void host_work(double host_s)
{
	static const char key = 0;
	struct program p;
	program_init(&p, 0, 0);
	for (int i = 0; i < 4; i++) {
		if (program_repeat_begin(&p, &key))
			continue;
		program_op(&p, NULL, 0, CAT_COMPUTE, 0, 0);
		program_add_time(&p, 3, 1e-3, host_s);
		program_host(&p, 5e-6);
		program_coll(&p, STREAM_COMPUTE, GROUP_TP, 1e-3, 1e6, CAT_TP, "ar", 0, 0);
		program_repeat_end(&p, &key);
	}
	program_seal(&p);
	CHECK_INT(p.n[STREAM_COMPUTE], 3);
	CHECK_INT(tmap_host_work(&p), 4 * (tk(host_s) + tk(5e-6)));
	program_release(&p);
}

/* tmap_apply_pow: k passes of a map without the side channel applied at once, as tmap_pow then tmap_apply */
static void apply_pow(void)
{
	/* A = 3, B = 5, C = 2 ticks, sums (3, 0, 0, 0); 4 passes from t = h = 0: t = max(4*3, 5 + 3*max(3, 2)) = 14,
	 * h = 4*2 = 8, compute 12 */
	struct tmap m = { .A = 3, .B = 5, .C = 2, .sum = { 3, 0, 0, 0 } };
	int64_t t = 0, h = 0, sum[SUM_N] = { 0 };
	tmap_apply_pow(&m, 4, &t, &h, sum);
	CHECK_INT(t, 14);
	CHECK_INT(h, 8);
	CHECK_INT(sum[SUM_COMP], 12);
	/* a host far ahead (h = 100): t = 100 + 14 = 114 from t = 20 */
	t = 20;
	h = 100;
	tmap_apply_pow(&m, 4, &t, &h, sum);
	CHECK_INT(t, 114);
	CHECK_INT(h, 108);
	/* no host term (B = TMAP_NEG): t moves by A*k only */
	struct tmap n = { .A = 7, .B = TMAP_NEG, .C = 0, .sum = { 0, 0, 7, 0 } };
	t = 1;
	h = 50;
	tmap_apply_pow(&n, 3, &t, &h, sum);
	CHECK_INT(t, 22);
	CHECK_INT(h, 50);
	CHECK_INT(sum[SUM_TP], 21);
	/* random maps and k: the same as tmap_pow on a copy and tmap_apply */
	unsigned x = 12345;
	for (int i = 0; i < 2000; i++) {
		x = x * 1103515245u + 12345u;
		struct tmap r = { .A = x % 1000, .C = (x >> 10) % 1000, .sum = { x % 1000, 0, 0, 0 } };
		r.B = (x >> 20) % 4 ? (int64_t)((x >> 12) % 3000) : TMAP_NEG;
		uint32_t k = 1 + (x >> 8) % 50;
		int64_t t1 = (x >> 3) % 5000, h1 = (x >> 5) % 5000, s1 = 0, t2 = t1, h2 = h1, sm[SUM_N] = { 0 };
		struct tmap c = r;
		tmap_pow(&c, k);
		tmap_apply(&c, &t1, &h1, &s1);
		tmap_apply_pow(&r, k, &t2, &h2, sm);
		CHECK_INT(t2, t1);
		CHECK_INT(h2, h1);
		CHECK_INT(sm[SUM_COMP], c.sum[SUM_COMP]);
	}
}

int main(void)
{
	apply_pow();
	host_work(3e-6);  /* 3 ops of 1 us each */
	host_work(0);     /* the host keeps ahead of its ops: the 5 us alone */
	/* ticks: 2^40 a second, rounded to the nearest */
	CHECK_INT(tk(1.0), 1LL << 40);
	CHECK_INT(tk(0.5 / TICKS_PER_S), 1);
	CHECK_INT(tk(0.49 / TICKS_PER_S), 0);
	CHECK_NEAR(tk_s(tk(3e-6)), 3e-6, 1e-6);

	/* one compute segment of 3 us and 2 ops, 2 us of host time (1 us an op): A = 3 us; the host issues op 1 at
	 * h + 1 us and op 2 at h + 2 us, so the segment ends no earlier than max(h + 1 + 3, h + 2 + 3/2) = h + 4 us;
	 * host + 2 us */
	struct instr seg = { .dur = 3e-6, .host = 2e-6, .nops = 2, .kind = INS_COMPUTE, .cat = CAT_COMPUTE };
	struct tmap m;
	tmap_instr(&seg, 1, &m);
	CHECK_INT(m.A, tk(3e-6));
	CHECK_INT(m.B, tk(4e-6));
	CHECK_INT(m.C, tk(2e-6));
	CHECK_INT(m.sum[SUM_COMP], tk(3e-6));
	/* at stage speed 2 it computes 1.5 us: B = max(1 + 1.5, 2 + 0.75) = 2.75 us */
	tmap_instr(&seg, 2, &m);
	CHECK_INT(m.A, tk(1.5e-6));
	CHECK_INT(m.B, tk(2.75e-6));
	/* host work of 5 us: the GPU waits for it only when the host is behind: B = C = 5 us, A = 0 */
	struct instr host = { .dur = 5e-6, .kind = INS_HOST };
	struct tmap hm;
	tmap_instr(&host, 1, &hm);
	CHECK_INT(hm.A, 0);
	CHECK_INT(hm.B, tk(5e-6));
	CHECK_INT(hm.C, tk(5e-6));
	/* a TP collective of 7 us (one simulated member): A only, accounted as TP */
	struct instr coll = { .dur = 7e-6, .kind = INS_COLL, .group = GROUP_TP, .cat = CAT_TP };
	struct tmap cm;
	tmap_instr(&coll, 1, &cm);
	CHECK_INT(cm.A, tk(7e-6));
	CHECK(cm.B == TMAP_NEG);
	CHECK_INT(cm.sum[SUM_TP], tk(7e-6));
	CHECK(tmap_fusable(&coll, 1) && !tmap_fusable(&coll, 0));

	/* compose, in ticks: compute (3, -, 0) then host (0, 5, 5): A 3, B max(-, 0 + 5) = 5, C 5; from (0, 0) the GPU
	 * computes to 3, the host works to 5, the GPU waits for it: (5, 5) */
	struct tmap a = { .A = 3, .B = TMAP_NEG, .sum = { 3, 0, 0, 0 } }, b = { .B = 5, .C = 5 }, ab = a;
	tmap_then(&ab, &b);
	CHECK_INT(ab.A, 3);
	CHECK_INT(ab.B, 5);
	CHECK_INT(ab.C, 5);
	int64_t t = 0, h = 0;
	apply(&ab, &t, &h);
	CHECK_INT(t, 5);
	CHECK_INT(h, 5);
	/* (3, 4, 2) three times: A 9, C 6, B = 4 + 2*max(3, 2) = 10 (the host's first constraint, then two GPU
	 * steps); from (0, 0): step by step (4, 2), (7, 4), (10, 6) */
	struct tmap p = { .A = 3, .B = 4, .C = 2, .sum = { 3, 0, 0, 0 } };
	tmap_pow(&p, 3);
	CHECK_INT(p.A, 9);
	CHECK_INT(p.B, 10);
	CHECK_INT(p.C, 6);
	CHECK_INT(p.sum[SUM_COMP], 9);
	t = h = 0;
	apply(&p, &t, &h);
	CHECK_INT(t, 10);
	CHECK_INT(h, 6);

	/* k passes of a map at once = k compositions = k applications, over many maps, k and starting points */
	unsigned x = 7;
	int same = 1;
	for (int i = 0; i < 2000; i++) {
		x = x * 1103515245u + 12345u;
		struct tmap one = { .A = (x >> 4) % 50, .B = (x >> 12) % 3 ? (int64_t)((x >> 16) % 80) : TMAP_NEG,
				    .C = (x >> 20) % 40, .sum = { (x >> 4) % 50, 0, 0, 0 } };
		uint32_t k = 1 + (x >> 26) % 20;
		struct tmap pw = one, seq = one;
		tmap_pow(&pw, k);
		for (uint32_t j = 1; j < k; j++)
			tmap_then(&seq, &one);
		int64_t t0 = (x >> 3) % 100, h0 = (x >> 9) % 100, t1 = t0, h1 = h0, t2 = t0, h2 = h0;
		apply(&pw, &t1, &h1);
		for (uint32_t j = 0; j < k; j++)
			apply(&one, &t2, &h2);
		if (pw.A != seq.A || pw.B != seq.B || pw.C != seq.C || t1 != t2 || h1 != h2)
			same = 0;
	}
	CHECK(same);
	side_by_hand();
	side_random();
	return check_result();
}
