/* test_gpubench: the GPU measurements against references (GEMM and attention against double-precision CPU
 * products of the same inputs, NCCL results against known sums) and their timings against sane bounds. Needs a
 * GPU: exits 77 (ctest: skipped) when cudaGetDeviceCount finds none, as on CI. */
#include <math.h>
#include <stdio.h>
#include "tests/check.h"
#include "cuda/gpubench.h"
#include "util/gserr.h"

static void test_gemm(const struct gb_system *s)
{
	/* tolerances: the output is rounded to its type (bf16: 2^-9 relative, fp16: 2^-11); tf32 inputs keep 10
	 * mantissa bits (~2^-11 per product, averaging out over k); fp8 inputs are exact, its output is bf16 */
	const struct { enum dtype dt; double tol; } cases[] = {
		{DT_BF16, 1e-2}, {DT_FP16, 5e-3}, {DT_TF32, 5e-3}, {DT_FP8, 1e-2}};
	for (int i = 0; i < 4; i++) {
		double err = -1;
		if (cases[i].dt == DT_FP8 && !(s->gpu[0].cc_major > 8 || (s->gpu[0].cc_major == 8 &&
									 s->gpu[0].cc_minor >= 9)))
			continue;
		CHECK_INT(gb_gemm_check(0, cases[i].dt, 256, 192, 320, &err), 0);
		printf("gemm check dtype %d: rel err %.2e\n", (int)cases[i].dt, err);
		CHECK(err >= 0 && err < cases[i].tol);
	}
	struct gb_gemm *g = NULL;
	struct gb_stat st;
	char algo[64];
	CHECK_INT(gb_gemm_new(0, 4096.0 * 4096, 4096.0 * 4096, 4096.0 * 4096, &g), 0);
	if (g) {
		CHECK_INT(gb_gemm_time(g, DT_BF16, 4096, 4096, 4096, 5, 500, &st, algo, sizeof algo), 0);
		double tf = 2.0 * 4096 * 4096 * 4096 / (st.median_us * 1e-6) / 1e12;
		printf("gemm 4096^3 bf16: %.1f us, %.1f TFLOP/s, %s\n", st.median_us, tf, algo);
		CHECK(tf > 50 && tf < 2000);
		CHECK(st.min_us <= st.median_us && st.median_us <= st.p90_us);
		/* GEMM bursts after a 5 ms idle: 20 ms blocks in 5 ms bins; the idle the GPU saw is at least the one asked
		 * for, every bin has GEMMs of about the timed one's length (within 3x either way: clocks move) */
		double us[4], idle = 0;
		CHECK_INT(gb_gap_burst(g, DT_BF16, 4096, 4096, 4096, 5000, 20000, 3, 5000, 4, us, &idle), 0);
		printf("gap burst after 5 ms (%.0f us measured): %.1f %.1f %.1f %.1f us\n", idle, us[0], us[1], us[2], us[3]);
		CHECK(idle >= 5000 && idle < 100000);
		for (int b = 0; b < 4; b++)
			CHECK(us[b] > st.median_us / 3 && us[b] < 3 * st.median_us);
		CHECK_INT(gb_gap_burst(g, DT_BF16, 4096, 4096, 4096, 5000, 20000, 1, 5000, 4, us, &idle), GS_EINVAL);
		/* a shape over the buffers is refused, not run */
		CHECK_INT(gb_gemm_time(g, DT_BF16, 8192, 8192, 8192, 1, 100, &st, NULL, 0), -1);
		gb_gemm_free(g);
	}
}

static void test_other(void)
{
	double err = -1, f = 0, b = 0, btb = 0, rt = 0;
	struct gb_stat st[2];
	double bytes[2] = {1 << 20, 1 << 30};
	CHECK_INT(gb_attn_check(0, &err), 0);
	printf("attention check: rel err %.2e\n", err);
	CHECK(err >= 0 && err < 2e-2);
	/* a median of 11: of 3, a GPU still clocking up right after the build twice timed the forward slower */
	CHECK_INT(gb_attn_time(0, 8, 1024, 128, 11, &f, &b), 0);
	CHECK(f > 0 && b > f);
	CHECK_INT(gb_mem_time(0, GB_MEM_COPY, bytes, 2, 3, st), 0);
	printf("copy 1 GiB: %.0f GB/s\n", bytes[1] / (st[1].median_us * 1e3));
	CHECK(bytes[1] / (st[1].median_us * 1e3) > 100);
	CHECK_INT(gb_launch_time(0, &btb, &rt), 0);
	printf("launch: %.2f us back to back, %.1f us round trip\n", btb, rt);
	CHECK(btb > 0 && btb < 100 && rt > 0);
}

static void test_nccl(int n)
{
	int devs[GB_MAX_GPUS];
	struct gb_comm *c = NULL;
	double tr[3], host = 0;
	for (int i = 0; i < n; i++)
		devs[i] = i;
	CHECK_INT(gb_comm_new_local(devs, n, 256 << 20, &c), 0);
	if (!c)
		return;
	CHECK_INT(gb_comm_nranks(c), n);
	CHECK_INT(gb_coll_check(c), 0);
	for (int op = 0; op < COLL_NOPS; op++) {
		CHECK_INT(gb_coll_time(c, (enum coll_op)op, 1 << 20, 2, 10, 3, tr), 0);
		CHECK(tr[0] > 0 && tr[1] > 0 && tr[2] > 0);
	}
	/* events and the host clock agree on a large all-reduce (launch costs are small beside 64 MiB) */
	CHECK_INT(gb_coll_time(c, COLL_ALL_REDUCE, 64 << 20, 5, 20, 3, tr), 0);
	CHECK_INT(gb_coll_time_hostclock(c, COLL_ALL_REDUCE, 64 << 20, false, 5, 20, &host), 0);
	printf("all_reduce 64 MiB on %d GPUs: events %.1f us, host clock %.1f us\n", n, tr[1], host);
	CHECK_NEAR(tr[1], host, 0.1);
	CHECK_NEAR(gb_coll_bytes(COLL_ALL_GATHER, 3, 8), 12, 0);
	CHECK_NEAR(gb_coll_bytes(COLL_ALL_REDUCE, 3, 8), 8, 0);
	gb_comm_free(c);
}

int main(void)
{
	int n = gb_device_count();
	struct gb_system s;
	if (n <= 0) {
		printf("test_gpubench: no CUDA GPU here: skipped\n");
		return 77;
	}
	CHECK_INT(gb_query(0, &s), 0);
	printf("%d x %s, %d SMs, cc %d.%d, NCCL %d, driver %s, NVML %d, nvlinks %d\n", s.ngpus, s.gpu[0].name,
	       s.gpu[0].sm_count, s.gpu[0].cc_major, s.gpu[0].cc_minor, s.nccl_version, s.driver, s.nvml,
	       s.gpu[0].nvlinks_active);
	CHECK(s.gpu[0].sm_count > 0 && s.gpu[0].memory_bytes > 0);
	test_gemm(&s);
	test_other();
	if (n >= 2)
		test_nccl(n);
	return check_result();
}
