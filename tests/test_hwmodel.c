/* test_hwmodel: lookups checked against numbers derived by hand (a 2x2x2 GEMM table at log2 midpoints, the
 * analytic wave model, the memory ramp, collective lines, a log-log table, the ring fallback), the loader's
 * errors, and that every built-in preset loads, is named after its file and carries provenance. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "check.h"
#include "hardware/hwmodel.h"
#include "util/csvr.h"
#include "util/gserr.h"

/* A small model whose numbers are easy to follow. eff[(im*2 + in)*2 + ik] = 0.1*(1 + 4*im + 2*in + ik). */
#define HW_HEAD \
	"schema: gpusim-hw/1\n" \
	"name: toy\n" \
	"gpu:\n" \
	"  name: toy gpu\n" \
	"  sm_count: 4\n" \
	"  memory_bytes: 1e9\n" \
	"  hbm_gbps: 1000\n" \
	"  peak_tflops: {bf16: 100, fp32: 10}\n" \
	"  launch_us: 1\n" \
	"  memory_bound: {eff: 0.8, half_bytes: 1e6}\n" \
	"  gemm:\n" \
	"    model: {max_eff: 0.8, tile_m: 128, tile_n: 128, k_half: 256}\n" \
	"    tables:\n" \
	"      - dtype: bf16\n" \
	"        m: [128, 512]\n" \
	"        n: [128, 512]\n" \
	"        k: [128, 512]\n" \
	"        eff: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]\n" \
	"        source: \"measured: toy\"\n" \
	"  attention: {fwd_eff: 0.5, bwd_eff: 0.4}\n" \
	"node: {gpus: 8, fabric: nvswitch, link_gbps: 100}\n" \
	"network: {nics: 4, nic_gbps: 50, latency_us: 5, oversubscription: 2}\n"

#define HW_COLL \
	"collectives:\n" \
	"  intra:\n" \
	"    all_reduce:\n" \
	"      source: \"measured: toy lines\"\n" \
	"      lines:\n" \
	"        - {algo: ring, alpha_us: 10, step_us: 1, bus_gbps: 100}\n" \
	"        - {algo: quad, n: 4, alpha_us: 2, bus_gbps: 50}\n" \
	"        - {algo: tiny, alpha_us: 1, bus_gbps: 1, max_bytes: 1000}\n" \
	"      tables:\n" \
	"        - {n: 2, bytes: [1000, 100000], time_us: [10, 1000]}\n"

static struct hwmodel *toy(void)
{
	int err = -99;
	struct hwmodel *hw = hwmodel_load_string("toy.yaml", HW_HEAD HW_COLL, &err);
	CHECK(hw != NULL);
	CHECK_INT(err, 0);
	return hw;
}

static void test_fields(void)
{
	struct hwmodel *hw = toy();
	if (!hw)
		return;
	CHECK_STR(hw->name, "toy");
	CHECK_STR(hw->path, "toy.yaml");
	CHECK_INT(hw->gpu.sm_count, 4);
	CHECK_NEAR(hw->gpu.peak_tflops[DT_BF16], 100, 1e-15);
	CHECK_NEAR(hw->gpu.peak_tflops[DT_FP8], 0, 1e-15); /* not given: unsupported */
	CHECK_STR(hw->gpu.attn[ATTN_FUSED].impl, "flash"); /* default: the flat keys are the fused entry */
	CHECK_STR(hw->gpu.gemm[DT_BF16].source, "measured: toy");
	CHECK_STR(hw->gpu.source, "unspecified: toy.yaml gives no source");
	CHECK_INT(hw->node.fabric, FABRIC_NVSWITCH);
	CHECK_NEAR(hw->net.oversubscription, 2, 1e-15);
	CHECK_STR(hw->coll[SCOPE_INTRA][COLL_ALL_REDUCE].source, "measured: toy lines");
	CHECK_STR(hw->coll[SCOPE_INTRA][COLL_ALL_GATHER].source, "fallback: ring formula from node.link_gbps");
	CHECK_STR(hw->coll[SCOPE_INTER][COLL_ALL_REDUCE].source, "fallback: ring formula from network");
	CHECK_NEAR(hw->overlap_compute_slowdown, 0, 1e-15);
	CHECK_NEAR(hw->usd_per_gpu_hour, 0, 1e-15);
	hwmodel_free(hw);
}

static void test_gemm(void)
{
	struct hwmodel *hw = toy();
	if (!hw)
		return;
	/* corners */
	CHECK_NEAR(hwmodel_gemm_eff(hw, DT_BF16, 128, 128, 128), 0.1, 1e-12);
	CHECK_NEAR(hwmodel_gemm_eff(hw, DT_BF16, 512, 512, 512), 0.8, 1e-12);
	/* 256 is the log2 midpoint of 128 and 512 on every axis: the mean of the 8 corners, 0.45 */
	CHECK_NEAR(hwmodel_gemm_eff(hw, DT_BF16, 256, 256, 256), 0.45, 1e-12);
	/* a quarter of the way in log2 along m only: 0.1 + 0.25*(0.5 - 0.1) = 0.2 */
	CHECK_NEAR(hwmodel_gemm_eff(hw, DT_BF16, 128 * sqrt(2.0), 128, 128), 0.2, 1e-12);
	/* clamped outside the grid: m beyond 512 reads the m = 512 plane, below 128 the m = 128 plane */
	CHECK_NEAR(hwmodel_gemm_eff(hw, DT_BF16, 4096, 128, 128), 0.5, 1e-12);
	CHECK_NEAR(hwmodel_gemm_eff(hw, DT_BF16, 16, 64, 1), 0.1, 1e-12);
	/* analytic model for fp32 (no table): m 256, n 384 -> 2*3 = 6 tiles on 4 SMs = 2 waves, wave_eff 6/8;
	 * k = k_half -> 1/2; 0.8 * 0.75 * 0.5 = 0.3 */
	CHECK_NEAR(hwmodel_gemm_eff(hw, DT_FP32, 256, 384, 256), 0.3, 1e-12);
	/* 4 tiles fill 4 SMs: 0.8 * 1 * 768/1024 = 0.6 */
	CHECK_NEAR(hwmodel_gemm_eff(hw, DT_FP32, 256, 256, 768), 0.6, 1e-12);
	/* 1 tile on 4 SMs with a long k: unsplit 0.8 * 1/4 * 4096/4352 = 0.188; k split in 4 fills the wave with
	 * slices of 1024: 0.8 * 4/4 * 1024/1280 = 0.64 (2 slices: 0.8 * 2/4 * 2048/2304 = 0.356; 8: 0.8 * 8/8 *
	 * 512/768 = 0.533) */
	CHECK_NEAR(hwmodel_gemm_eff(hw, DT_FP32, 128, 128, 4096), 0.64, 1e-12);
	/* a slice keeps at least one k block of 64: k = 64 is not split, 0.8 * 1/4 * 64/320 = 0.04 */
	CHECK_NEAR(hwmodel_gemm_eff(hw, DT_FP32, 128, 128, 64), 0.04, 1e-12);
	hwmodel_free(hw);
}

static void test_mem(void)
{
	struct hwmodel *hw = toy();
	if (!hw)
		return;
	CHECK_NEAR(hwmodel_mem_gbps(hw, 1e6), 400, 1e-12); /* 1000*0.8*1e6/(1e6+1e6) */
	CHECK_NEAR(hwmodel_mem_gbps(hw, 3e6), 600, 1e-12); /* 1000*0.8*3/4 */
	CHECK_NEAR(hwmodel_mem_gbps(hw, 0), 800, 1e-12);
	hwmodel_free(hw);
}

static void test_coll(void)
{
	struct hwmodel *hw = toy();
	if (!hw)
		return;
	CHECK_NEAR(coll_busfactor(COLL_ALL_REDUCE, 8), 1.75, 1e-15);
	CHECK_NEAR(coll_busfactor(COLL_ALL_GATHER, 4), 0.75, 1e-15);
	CHECK_NEAR(coll_busfactor(COLL_SEND_RECV, 2), 1, 1e-15);
	CHECK_NEAR(coll_steps(COLL_ALL_REDUCE, 8), 14, 1e-15);
	CHECK_NEAR(coll_steps(COLL_BROADCAST, 8), 7, 1e-15);
	CHECK_NEAR(coll_steps(COLL_SEND_RECV, 8), 1, 1e-15);
	CHECK_NEAR(coll_steps(COLL_ALL_TO_ALL, 8), 7, 1e-15);
	/* n 8, 1e6 B: ring 10 + 14*1 + 1e6*1.75/1e5 = 41.5; quad is for n 4 only; tiny stops at 1000 B */
	CHECK_NEAR(hwmodel_coll_us(hw, SCOPE_INTRA, COLL_ALL_REDUCE, 8, 1e6), 41.5, 1e-12);
	/* n 4, 1e6 B: ring 10 + 6 + 15 = 31 beats quad 2 + 1e6*1.5/5e4 = 32 */
	CHECK_NEAR(hwmodel_coll_us(hw, SCOPE_INTRA, COLL_ALL_REDUCE, 4, 1e6), 31, 1e-12);
	/* n 4, 1e5 B: quad 2 + 3 = 5 beats ring 16 + 1.5 */
	CHECK_NEAR(hwmodel_coll_us(hw, SCOPE_INTRA, COLL_ALL_REDUCE, 4, 1e5), 5, 1e-12);
	/* n 8, 100 B: tiny applies, 1 + 100*1.75/1e3 = 1.175 */
	CHECK_NEAR(hwmodel_coll_us(hw, SCOPE_INTRA, COLL_ALL_REDUCE, 8, 100), 1.175, 1e-12);
	/* n 2 inside the table's range: log-log, the midpoint 1e4 B gives 100 us */
	CHECK_NEAR(hwmodel_coll_us(hw, SCOPE_INTRA, COLL_ALL_REDUCE, 2, 1e4), 100, 1e-12);
	CHECK_NEAR(hwmodel_coll_us(hw, SCOPE_INTRA, COLL_ALL_REDUCE, 2, 1e5), 1000, 1e-12);
	/* n 2 outside it: the lines, ring 10 + 2 + 1e6/1e5 = 22 */
	CHECK_NEAR(hwmodel_coll_us(hw, SCOPE_INTRA, COLL_ALL_REDUCE, 2, 1e6), 22, 1e-12);
	/* no lines: ring fallback. intra all_gather n 2: 8.4 + 3.4*1 + 1e6*0.5/(100e3) = 16.8 */
	CHECK_NEAR(hwmodel_coll_us(hw, SCOPE_INTRA, COLL_ALL_GATHER, 2, 1e6), 16.8, 1e-12);
	/* inter: a GPU's share of the NICs, 50*4/8/2 = 12.5 GB/s, network latency per step:
	 * send_recv n 2: 8.4 + 5*1 + 1e6/12.5e3 = 93.4 */
	CHECK_NEAR(hwmodel_coll_us(hw, SCOPE_INTER, COLL_SEND_RECV, 2, 1e6), 93.4, 1e-12);
	CHECK_NEAR(hwmodel_coll_us(hw, SCOPE_INTRA, COLL_ALL_REDUCE, 1, 1e6), 0, 1e-15);
	CHECK_STR(coll_op_name(COLL_REDUCE_SCATTER), "reduce_scatter");
	CHECK_STR(coll_scope_name(SCOPE_INTER), "inter");
	hwmodel_free(hw);
}

/* Loads HW_HEAD with one substitution (or extra text) and returns the message. */
static const char *bad_hw(const char *text)
{
	int err = 0;
	cap_begin();
	struct hwmodel *hw = hwmodel_load_string("hw.yaml", text, &err);
	const char *out = cap_end();
	CHECK(hw == NULL);
	CHECK_INT(err, GS_EINVAL);
	hwmodel_free(hw);
	return out;
}

static char *replace(const char *s, const char *from, const char *to)
{
	static char buf[8192];
	const char *p = strstr(s, from);
	if (!p)
		return strcpy(buf, "not found");
	snprintf(buf, sizeof buf, "%.*s%s%s", (int)(p - s), s, to, p + strlen(from));
	return buf;
}

/* Hostile numbers (issue 16): every number has a physical range, checked where it stands; a GEMM table whose
 * axes multiply past INT_MAX is counted in 64 bits (2048 * 2048 * 1024 = 2^32 wrapped to 0 in an int). */
static void test_ranges(void)
{
	CHECK_STR(bad_hw(replace(HW_HEAD, "launch_us: 1\n", "launch_us: 1e308\n")),
		  "gpusim: hw.yaml:9:14: gpu.launch_us: 1e308 is out of range (0 to 100000)\n");
	CHECK_STR(bad_hw(replace(HW_HEAD, "bf16: 100,", "bf16: 1e-310,")),
		  "gpusim: hw.yaml:8:23: gpu.peak_tflops.bf16: 1e-310 is out of range (0.001 to 100000)\n");
	CHECK_STR(bad_hw(replace(HW_HEAD, "gpus: 8,", "gpus: 1e9,")),
		  "gpusim: hw.yaml:21:14: node.gpus: 1e9 is out of range (1 to 1000000)\n");
	size_t cap = 1 << 16, n = 0;
	char *axes = malloc(cap);
	const int len[3] = { 2048, 2048, 1024 };
	for (int a = 0; a < 3; a++) {
		n += (size_t)snprintf(axes + n, cap - n, "        %c: [", "mnk"[a]);
		for (int i = 0; i < len[a]; i++)
			n += (size_t)snprintf(axes + n, cap - n, "%s%d", i ? "," : "", i + 1);
		n += (size_t)snprintf(axes + n, cap - n, "]\n");
	}
	snprintf(axes + n, cap - n, "        eff: [0.5]\n");
	char *text = malloc(cap + 8192);
	const char *from = "        m: [128, 512]\n", *to = "        source:";
	const char *p = strstr(HW_HEAD, from), *q = strstr(HW_HEAD, to);
	snprintf(text, cap + 8192, "%.*s%s%s", (int)(p - HW_HEAD), HW_HEAD, axes, q);
	CHECK_CONTAINS(bad_hw(text), "gpu.gemm.tables[0].eff: has 1 values, expected len(m)*len(n)*len(k) = "
				     "2048*2048*1024 = 4294967296\n");
	free(axes);
	free(text);
}

/* TP overlap's own interference pair: absent, the collective pair; given, its own; the Hopper presets carry the
 * calibrations' median collective pair (validate/preset_overlap.py) and 0 for TP overlap (userbuffers, not
 * measured) */
static void test_tp_overlap(void)
{
	int err = 0;
	double cs, ms;
	struct hwmodel *hw = hwmodel_load_string("a.yaml", HW_HEAD "overlap: {compute_slowdown: 0.2, comm_slowdown: 0.5}\n",
						 &err);
	CHECK(hw != NULL);
	if (hw) {
		hwmodel_tp_overlap(hw, &cs, &ms);
		CHECK(!hw->overlap_tp_set && cs == 0.2 && ms == 0.5);
		hwmodel_free(hw);
	}
	hw = hwmodel_load_string("b.yaml", HW_HEAD "overlap: {compute_slowdown: 0.2, comm_slowdown: 0.5, "
				 "tp_compute_slowdown: 0.01, tp_comm_slowdown: 0}\n", &err);
	CHECK(hw != NULL);
	if (hw) {
		hwmodel_tp_overlap(hw, &cs, &ms);
		CHECK(hw->overlap_tp_set && cs == 0.01 && ms == 0);
		hwmodel_free(hw);
	}
	hw = hwmodel_load("h200-sxm", &err);
	CHECK(hw != NULL);
	if (hw) {
		hwmodel_tp_overlap(hw, &cs, &ms);
		CHECK(hw->overlap_compute_slowdown > 0 && hw->overlap_comm_slowdown > 0);
		CHECK(hw->overlap_tp_set && cs == 0 && ms == 0);
		hwmodel_free(hw);
	}
}

static void test_errors(void)
{
	CHECK_STR(bad_hw(replace(HW_HEAD, "schema: gpusim-hw/1", "schema: gpusim-hw/2")),
		  "gpusim: hw.yaml:1:9: schema: expected 'gpusim-hw/1', got 'gpusim-hw/2'\n");
	CHECK_STR(bad_hw(replace(HW_HEAD, "  sm_count: 4\n", "  sm_cnt: 4\n")),
		  "gpusim: hw.yaml:5:3: unknown key 'sm_cnt' (did you mean 'sm_count'?)\n"
		  "gpusim: hw.yaml:4:3: missing required key 'gpu.sm_count'\n");
	CHECK_STR(bad_hw(replace(HW_HEAD, "bf16: 100", "bf16: -100")),
		  "gpusim: hw.yaml:8:23: gpu.peak_tflops.bf16: must be positive, got -100\n");
	CHECK_STR(bad_hw(replace(HW_HEAD, "{bf16: 100, fp32: 10}", "{bf61: 100}")),
		  "gpusim: hw.yaml:8:17: unknown key 'bf61' (did you mean 'bf16'?)\n");
	CHECK_STR(bad_hw(replace(HW_HEAD, "max_eff: 0.8", "max_eff: 1.7")),
		  "gpusim: hw.yaml:12:22: gpu.gemm.model.max_eff: must be in (0, 1.5], got 1.7\n");
	CHECK_STR(bad_hw(replace(HW_HEAD, "0.7, 0.8]", "0.7]")),
		  "gpusim: hw.yaml:18:14: gpu.gemm.tables[0].eff: has 7 values, expected len(m)*len(n)*len(k) = "
		  "2*2*2 = 8\n");
	CHECK_STR(bad_hw(replace(HW_HEAD, "n: [128, 512]", "n: [512, 128]")),
		  "gpusim: hw.yaml:16:18: gpu.gemm.tables[0].n: values must increase (128 after 512)\n");
	CHECK_STR(bad_hw(replace(HW_HEAD, "fabric: nvswitch", "fabric: infiniband")),
		  "gpusim: hw.yaml:21:25: node.fabric: unknown value 'infiniband' (expected one of: nvswitch, nvlink, "
		  "pcie)\n");
	CHECK_STR(bad_hw(replace(HW_HEAD, "oversubscription: 2", "oversubscription: 0.5")),
		  "gpusim: hw.yaml:22:67: network.oversubscription: must be >= 1, got 0.5\n");
	CHECK_STR(bad_hw(HW_HEAD "collectives:\n  intra:\n    all_reduse:\n      lines: []\n"),
		  "gpusim: hw.yaml:25:5: unknown key 'all_reduse' (did you mean 'all_reduce'?)\n");
	CHECK_STR(bad_hw(HW_HEAD "collectives:\n  intra:\n    all_reduce:\n      lines:\n"
			 "        - {algo: ring, n: 1, alpha_us: 1, bus_gbps: 0}\n"),
		  "gpusim: hw.yaml:27:27: collectives.intra.all_reduce.lines[0].n: must be 0 (any group) or a group "
		  "size >= 2\n"
		  "gpusim: hw.yaml:27:53: collectives.intra.all_reduce.lines[0].bus_gbps: must be positive, got 0\n");
	CHECK_STR(bad_hw(HW_HEAD "collectives:\n  inter:\n    send_recv:\n      tables:\n"
			 "        - {n: 2, bytes: [8, 16], time_us: [1]}\n"),
		  "gpusim: hw.yaml:27:43: collectives.inter.send_recv.tables[0].time_us: has 1 values, bytes has 2\n");
	CHECK_STR(bad_hw(HW_HEAD "collectives:\n  inter:\n    send_recv: {}\n"),
		  "gpusim: hw.yaml:25:16: collectives.inter.send_recv: give at least one of lines or tables\n");
	CHECK_STR(bad_hw(HW_HEAD "overlap: {compute_slowdown: 0.2, comm_slowdown: 0.5, tp_comm_slowdown: 0.1}\n"),
		  "gpusim: hw.yaml:23:10: overlap: tp_compute_slowdown and tp_comm_slowdown go together (give both, or "
		  "neither to use compute_slowdown and comm_slowdown for TP overlap too)\n");

	int err = 0;
	cap_begin();
	struct hwmodel *hw = hwmodel_load("h100-dxg", &err);
	const char *out = cap_end();
	CHECK(hw == NULL);
	CHECK_INT(err, GS_EINVAL);
	CHECK_STR(out, "gpusim: unknown hardware preset 'h100-dxg' (did you mean 'h100-dgx'? presets: a100-dgx, "
		       "b200-hgx, gb200-nvl72, gb300-nvl72, h100-dgx, h100-sxm-94gb, h100-sxm-96gb, h200-sxm, "
		       "rtx4070ti-super-pcie)\n");
	cap_begin();
	hw = hwmodel_load("/nonexistent/hw.yaml", &err);
	out = cap_end();
	CHECK(hw == NULL);
	CHECK_INT(err, GS_EENV);
	CHECK_CONTAINS(out, "cannot read '/nonexistent/hw.yaml'");
}

static void check_source(const char *what, const char *src)
{
	if (!src[0] || strncmp(src, "unspecified", 11) == 0)
		fprintf(stderr, "missing provenance: %s\n", what);
	CHECK(src[0] && strncmp(src, "unspecified", 11) != 0);
}

static void test_presets(void)
{
	const char *const *names = hwmodel_preset_names();
	int n = 0;
	for (const char *const *p = names; *p; p++, n++) {
		if (n > 0)
			CHECK(strcmp(names[n - 1], *p) < 0); /* sorted */
		CHECK(hwmodel_is_preset_name(*p));
		CHECK(hwmodel_preset_text(*p) != NULL);
		int err = -99;
		struct hwmodel *hw = hwmodel_load(*p, &err);
		CHECK_INT(err, 0);
		if (!hw)
			continue;
		CHECK_STR(hw->name, *p); /* a preset's name is its file stem */
		CHECK(hw->gpu.peak_tflops[DT_BF16] > 0);
		check_source(*p, hw->gpu.source);
		check_source(*p, hw->node.source);
		check_source(*p, hw->net.source);
		for (int sc = 0; sc < SCOPE_N; sc++)
			for (int op = 0; op < COLL_NOPS; op++) {
				const struct coll_model *cm = &hw->coll[sc][op];
				CHECK(cm->nlines >= 2); /* an LL line for small sizes and a Simple line for large */
				check_source(*p, cm->source);
				/* time grows with size and stays finite */
				double t1 = hwmodel_coll_us(hw, sc, op, 2, 8), t2 = hwmodel_coll_us(hw, sc, op, 2, 1e9);
				CHECK(t1 > 0 && t2 > t1 && isfinite(t2));
			}
		hwmodel_free(hw);
	}
	CHECK_INT(n, 9);
	CHECK(hwmodel_preset_text("nope") == NULL);
	CHECK(!hwmodel_is_preset_name("hw/h100.yaml"));
	CHECK(!hwmodel_is_preset_name("h100.yaml"));
	CHECK(!hwmodel_is_preset_name("h100.yml"));
	CHECK(hwmodel_is_preset_name("h100-dgx"));

	/* spot checks of the H100 preset against its comments */
	int err;
	struct hwmodel *hw = hwmodel_load("h100-dgx", &err);
	if (!hw)
		return;
	/* 8 GPUs, 8 B: ring LL 6.6 + 14*0.6 + 8*1.75/141e3 */
	CHECK_NEAR(hwmodel_coll_us(hw, SCOPE_INTRA, COLL_ALL_REDUCE, 8, 8), 15.0 + 14.0 / 141e3, 1e-12);
	/* 8 GPUs, 1 GiB: NVLS 25 + 2^30*1.75/480e3 */
	CHECK_NEAR(hwmodel_coll_us(hw, SCOPE_INTRA, COLL_ALL_REDUCE, 8, 1073741824.0),
		   25 + 1073741824.0 * 1.75 / 480e3, 1e-12);
	/* 5 GPUs, 1 GiB: no NVLS line for 5, no measured table; ring Simple 8.4 + 8*3.4 + 2^30*1.6/370e3 */
	CHECK_NEAR(hwmodel_coll_us(hw, SCOPE_INTRA, COLL_ALL_REDUCE, 5, 1073741824.0),
		   8.4 + 27.2 + 1073741824.0 * 1.6 / 370e3, 1e-12);
	/* 4 GPUs, 1 GiB: the measured table (validate/preset_coll.py: the median of the H100 calibrations that timed
	 * groups of 4, between their 4529.3 and 4550.9 us), slower than the 8-GPU ring line's 4381.8 */
	double t4 = hwmodel_coll_us(hw, SCOPE_INTRA, COLL_ALL_REDUCE, 4, 1073741824.0);
	CHECK(t4 >= 4529.3 && t4 <= 4550.9);
	/* across 128 nodes, 50 MB: the ring pays 2 x 127 steps (LL: 6.6 + 254 * 2.7 + 5e7 * 254/128 / 24e3 =
	 * 4826.5 us; Simple 5631.5); NCCL's tree 2 log2(128) = 14 (Simple: 8.4 + 14 * 14, the bytes twice at 44.16 GB/s
	 * times NCCL's correction 0.7 at log2(5e7/64) = 19: 3439.4 us) */
	CHECK_NEAR(hwmodel_coll_us(hw, SCOPE_INTER, COLL_ALL_REDUCE, 128, 5e7), 8.4 + 14 * 14.0 + 2 * 5e7 / (44.16e3 * 0.7),
		   1e-9);
	/* 3 nodes: log2i(3) = 1, 2 steps; tiny messages take the tree's LL line, 6.8 + 2 * 5 + 8 * 2 / 11.62e3 (ring LL
	 * 6.6 + 4 * 2.7 = 17.4 plus its bytes) */
	CHECK_NEAR(hwmodel_coll_us(hw, SCOPE_INTER, COLL_ALL_REDUCE, 3, 8), 16.8 + 16 / 11.62e3, 1e-12);
	/* the tree is an all-reduce only: an all-gather over 128 nodes is the ring's, LL 6.6 + 127 * 2.7 + ... */
	CHECK_NEAR(hwmodel_coll_us(hw, SCOPE_INTER, COLL_ALL_GATHER, 128, 8), 6.6 + 127 * 2.7 + 8 * 127.0 / 128 / 24e3,
		   1e-12);
	hwmodel_free(hw);
	/* the analytic GEMM model reproduces the MAMF point it was derived from, a short run (80.3% at
	 * 2048x2048x13312), as a sustained rate: divided by the power section's burst_speedup 1.18; the power model
	 * gives the burst back to a step that leaves the GPU room under its cap (the 94 GB H100 preset: h100-dgx
	 * carries the lent H100s' measured table instead, validate/preset_compute.py) */
	hw = hwmodel_load("h100-sxm-94gb", &err);
	if (!hw)
		return;
	CHECK(!hw->gpu.gemm[DT_BF16].present);
	CHECK_NEAR(hw->gpu.burst_speedup, 1.18, 0);
	CHECK_NEAR(hwmodel_gemm_eff(hw, DT_BF16, 2048, 2048, 13312), 0.803 / 1.18, 0.002);
	hwmodel_free(hw);
	/* h100-dgx's bf16 table is the median of the lent H100s' (sustained rates): at 8192^3 0.69-0.75 of the peak
	 * across them */
	hw = hwmodel_load("h100-dgx", &err);
	if (!hw)
		return;
	CHECK(hw->gpu.gemm[DT_BF16].present && hw->gpu.gemm[DT_FP16].present);
	CHECK(hwmodel_gemm_eff(hw, DT_BF16, 8192, 8192, 8192) > 0.68 && hwmodel_gemm_eff(hw, DT_BF16, 8192, 8192, 8192) < 0.76);
	CHECK_NEAR(hwmodel_gemm_eff(hw, DT_FP16, 8192, 8192, 8192), hwmodel_gemm_eff(hw, DT_BF16, 8192, 8192, 8192), 0);
	hwmodel_free(hw);
	hw = hwmodel_load("a100-dgx", &err);
	if (!hw)
		return;
	CHECK_NEAR(hwmodel_gemm_eff(hw, DT_BF16, 1024, 10240, 5120), 0.869, 0.002); /* A100 MAMF 86.9% */
	CHECK_NEAR(hw->gpu.peak_tflops[DT_FP8], 0, 1e-15);
	hwmodel_free(hw);
}

/* gpu.attention: fused rows at 1024 (100 TFLOP/s fwd, 50 bwd) and 4096 (300, 150), head dim 128, causal;
 * unfused as fractions of peak. */
static void test_attention(void)
{
	const char *attn = "  attention:\n"
			   "    fused:\n"
			   "      impl: cudnn\n"
			   "      rows:\n"
			   "        - {head_dim: 128, causal: true, seq: 1024, fwd_tflops: 100, bwd_tflops: 50}\n"
			   "        - {head_dim: 128, causal: true, seq: 4096, fwd_tflops: 300, bwd_tflops: 150}\n"
			   "    unfused: {fwd_eff: 0.2, bwd_eff: 0.3}\n";
	int err = 0;
	struct hwmodel *hw = hwmodel_load_string("a.yaml", replace(HW_HEAD, "  attention: {fwd_eff: 0.5, bwd_eff: 0.4}\n",
								      attn), &err);
	CHECK(hw != NULL);
	if (!hw)
		return;
	CHECK_STR(hw->gpu.attn[ATTN_FUSED].impl, "cudnn");
	CHECK_STR(hw->gpu.attn[ATTN_UNFUSED].impl, "cublas_unfused");
	/* 2048 lies halfway between 1024 and 4096 in log2: (100 + 300)/2 = 200, (50 + 150)/2 = 100 */
	CHECK_NEAR(hwmodel_attn_tflops(hw, ATTN_FUSED, DT_BF16, 2048, 128, true, false), 200, 1e-12);
	CHECK_NEAR(hwmodel_attn_tflops(hw, ATTN_FUSED, DT_BF16, 2048, 128, true, true), 100, 1e-12);
	/* clamped at both ends; head dim 64 and a non-causal mask take the nearest rows there are */
	CHECK_NEAR(hwmodel_attn_tflops(hw, ATTN_FUSED, DT_BF16, 512, 128, true, false), 100, 1e-12);
	CHECK_NEAR(hwmodel_attn_tflops(hw, ATTN_FUSED, DT_BF16, 32768, 64, false, false), 300, 1e-12);
	/* no rows: eff * peak = 0.3 * 100 */
	CHECK_NEAR(hwmodel_attn_tflops(hw, ATTN_UNFUSED, DT_BF16, 2048, 128, false, true), 30, 1e-12);
	/* rows without bh: any bh gives the same rates */
	CHECK_NEAR(hwmodel_attn_tflops_bh(hw, ATTN_FUSED, DT_BF16, 2048, 128, true, false, 7), 200, 1e-12);
	hwmodel_free(hw);

	/* rows with bh (batch x heads): at seq 1024 bh 64 -> 100, bh 256 -> 200; at seq 4096 one row, bh 64 -> 300.
	 * seq 1024, bh 128 (halfway in log2): 150; bh 32 and 1024 clamp to 100 and 200; no bh: the largest, 200.
	 * seq 2048 (halfway between 1024 and 4096), bh 128: (150 + 300)/2 = 225 */
	const char *bh = "  attention:\n"
			 "    fused:\n"
			 "      rows:\n"
			 "        - {head_dim: 128, causal: true, seq: 1024, bh: 64, fwd_tflops: 100, bwd_tflops: 50}\n"
			 "        - {head_dim: 128, causal: true, seq: 1024, bh: 256, fwd_tflops: 200, bwd_tflops: 100}\n"
			 "        - {head_dim: 128, causal: true, seq: 4096, bh: 64, fwd_tflops: 300, bwd_tflops: 150}\n";
	hw = hwmodel_load_string("b.yaml", replace(HW_HEAD, "  attention: {fwd_eff: 0.5, bwd_eff: 0.4}\n", bh), &err);
	CHECK(hw != NULL);
	if (!hw)
		return;
	CHECK_NEAR(hwmodel_attn_tflops_bh(hw, ATTN_FUSED, DT_BF16, 1024, 128, true, false, 128), 150, 1e-12);
	CHECK_NEAR(hwmodel_attn_tflops_bh(hw, ATTN_FUSED, DT_BF16, 1024, 128, true, false, 32), 100, 1e-12);
	CHECK_NEAR(hwmodel_attn_tflops_bh(hw, ATTN_FUSED, DT_BF16, 1024, 128, true, false, 1024), 200, 1e-12);
	CHECK_NEAR(hwmodel_attn_tflops(hw, ATTN_FUSED, DT_BF16, 1024, 128, true, false), 200, 1e-12);
	CHECK_NEAR(hwmodel_attn_tflops_bh(hw, ATTN_FUSED, DT_BF16, 2048, 128, true, false, 128), 225, 1e-12);
	CHECK_NEAR(hwmodel_attn_tflops_bh(hw, ATTN_FUSED, DT_BF16, 1024, 128, true, true, 128), 75, 1e-12);
	hwmodel_free(hw);

	/* the power section's bounds, and a row given twice */
	char pw[8192];
	snprintf(pw, sizeof pw, "%s", replace(HW_HEAD, "  attention:", "  power: {burst_speedup: 0.9, exponent: 1, comm: 1.2}\n  attention:"));
	CHECK_STR(bad_hw(pw),
		  "gpusim: hw.yaml:20:26: gpu.power.burst_speedup: must be >= 1, got 0.9\n"
		  "gpusim: hw.yaml:20:41: gpu.power.exponent: must be > 1, got 1\n"
		  "gpusim: hw.yaml:20:50: gpu.power.comm: must be in [0, 1), got 1.2\n");
	/* gpu.power.gpu_rates: one positive number per GPU of the measured host, each at most 2 */
	snprintf(pw, sizeof pw, "%s", replace(HW_HEAD, "  attention:", "  power: {burst_speedup: 1.2, gpu_rates: [1, 2.5]}\n"
					      "  attention:"));
	CHECK_STR(bad_hw(pw), "gpusim: hw.yaml:20:42: gpu.power.gpu_rates: GPU 1's rate 2.5 is not in (0, 2] (a fraction "
			      "of the calibrated GPU's)\n");
	snprintf(pw, sizeof pw, "%s", replace(HW_HEAD, "  attention:", "  power: {burst_speedup: 1.2, gpu_rates: [1, 0]}\n"
					      "  attention:"));
	CHECK(strstr(bad_hw(pw), "gpu_rates") != NULL);
	snprintf(pw, sizeof pw, "%s", replace(HW_HEAD, "  attention:", "  power: {burst_speedup: 1.2, gpu_rates: [1, 0.97]}"
					      "\n  attention:"));
	/* gpu.power.window_ms: positive, within its bounds; read as given */
	snprintf(pw, sizeof pw, "%s", replace(HW_HEAD, "  attention:", "  power: {burst_speedup: 1.2, window_ms: 0}\n"
					      "  attention:"));
	CHECK(strstr(bad_hw(pw), "window_ms") != NULL);
	snprintf(pw, sizeof pw, "%s", replace(HW_HEAD, "  attention:", "  power: {burst_speedup: 1.2, window_ms: 6.5, "
					      "gpu_rates: [1, 0.97]}\n  attention:"));
	hw = hwmodel_load_string("r.yaml", pw, &err);
	CHECK(hw != NULL);
	if (hw) {
		CHECK_NEAR(hw->gpu.power_window_ms, 6.5, 0);
		CHECK_INT(hw->gpu.ngpu_rates, 2);
		CHECK_NEAR(hwmodel_gpu_rate(hw, 2), 0.97, 0);
		CHECK_NEAR(hwmodel_gpu_rate(hw, 1), 1, 0);
		hwmodel_free(hw);
	}
	snprintf(pw, sizeof pw, "%s", replace(HW_HEAD, "  attention: {fwd_eff: 0.5, bwd_eff: 0.4}\n",
					      "  attention:\n    fused:\n      rows:\n"
					      "        - {head_dim: 64, seq: 512, fwd_tflops: 1, bwd_tflops: 1}\n"
					      "        - {head_dim: 64, seq: 512, fwd_tflops: 2, bwd_tflops: 2}\n"));
	CHECK_STR(bad_hw(pw), "gpusim: hw.yaml:24:11: gpu.attention.fused.rows[1]: a second row for seq 512, head_dim 64, "
			      "causal false\n");
	/* an attention entry's power and clock exponent: power needs clock: max, the exponent needs power */
	snprintf(pw, sizeof pw, "%s", replace(HW_HEAD, "  attention: {fwd_eff: 0.5, bwd_eff: 0.4}\n",
					      "  attention:\n    fused: {fwd_eff: 0.5, bwd_eff: 0.4, power: 0.9}\n"
					      "    cudnn: {fwd_eff: 0.5, bwd_eff: 0.4, clock: max, clock_exponent: 0.5}\n"));
	CHECK_STR(bad_hw(pw), "gpusim: hw.yaml:21:12: gpu.attention.fused: power (0.9, a fraction of the power limit) "
			      "needs clock: max and at most 1.5\n"
			      "gpusim: hw.yaml:22:12: gpu.attention.cudnn: clock_exponent (0.5) needs power and lies in (0, 2]\n");

	/* only an unfused entry, for a GPU no preset names: no fused entry to fall back on */
	CHECK_STR(bad_hw(replace(HW_HEAD, "{fwd_eff: 0.5, bwd_eff: 0.4}", "{fwd_eff: 0.5, bwd_eff: 0.4, impl: cublas_unfused}")),
		  "gpusim: hw.yaml: gpu.attention: no fused entry (attention.fused) and no built-in preset for GPU 'toy gpu' "
		  "to take one from; measure it (gpusim calibrate) or add one (docs/hardware-model.md)\n");
	/* ... for an H100 the preset's rows, its source naming the preset (the 94 GB one: its rows are still the
	 * published ones; h100-dgx's are the lent H100s' measured medians) */
	char h100[8192];
	snprintf(h100, sizeof h100, "%s", replace(HW_HEAD, "{fwd_eff: 0.5, bwd_eff: 0.4}",
						  "{fwd_eff: 0.5, bwd_eff: 0.4, impl: cublas_unfused}"));
	hw = hwmodel_load_string("b.yaml", replace(h100, "name: toy gpu", "name: NVIDIA H100 94GB HBM3"), &err);
	CHECK(hw != NULL);
	if (!hw)
		return;
	CHECK_CONTAINS(hw->gpu.attn[ATTN_FUSED].source, "preset h100-sxm-94gb");
	/* the preset's rows are a published short benchmark (rates: burst): 319 TFLOP/s / burst_speedup 1.18 of the
	 * preset's power section (the power section itself is this file's: none, so 1.0 here) */
	CHECK(hw->gpu.attn[ATTN_FUSED].burst);
	CHECK_NEAR(hwmodel_attn_tflops(hw, ATTN_FUSED, DT_BF16, 4096, 128, true, false), 319, 1e-12);
	/* head dim 64 has non-causal rows only: 318 at 2048, times head dim 128's causal/non-causal 298/362 */
	CHECK_NEAR(hwmodel_attn_tflops(hw, ATTN_FUSED, DT_BF16, 2048, 64, true, false), 318.0 * 298 / 362, 1e-9);
	hw->gpu.burst_speedup = 1.18;
	CHECK_NEAR(hwmodel_attn_tflops(hw, ATTN_FUSED, DT_BF16, 4096, 128, true, false), 319 / 1.18, 1e-12);
	/* gemm.rates: burst divides the GEMM efficiency alike: the toy table's 0.8 at its corner */
	CHECK_NEAR(hwmodel_gemm_eff(hw, DT_BF16, 512, 512, 512), 0.8, 1e-12);
	hw->gpu.gemm_burst = true;
	CHECK_NEAR(hwmodel_gemm_eff(hw, DT_BF16, 512, 512, 512), 0.8 / 1.18, 1e-12);
	hwmodel_free(hw);
}

/* The size-band lines calibrate fitted to the 2 x H200 sweep (hardware/h200x2-measured/collectives.csv, 8 B to
 * 4 GiB, each collective of 2 GPUs) give, with the measured tables set aside, the envelope calibrate wrote
 * beside each point (fit_us), within 15% of every measured time (the worst: broadcast at the 2 MiB knee, 14%)
 * and 2% at the median: latency-, protocol- and bandwidth-bound regions alike. */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void test_measured_collectives(void)
{
	int err = 0;
	struct hwmodel *hw = hwmodel_load("hardware/h200x2-measured.yaml", &err);
	CHECK(hw != NULL);
	if (!hw)
		return;
	int saved[COLL_NOPS];
	for (int op = 0; op < COLL_NOPS; op++) {
		saved[op] = hw->coll[SCOPE_INTRA][op].ntables;
		hw->coll[SCOPE_INTRA][op].ntables = 0;  /* lines only */
	}
	struct csvr *r = csvr_open("hardware/h200x2-measured/collectives.csv", CSVR_COMMENTS, &err);
	CHECK(r != NULL);
	int rows = 0;
	double worst = 0, errs[256];
	while (r && csvr_next(r) > 0) {
		if (strcmp(csvr_cell(r, 0), "intra") != 0)
			continue;  /* the header */
		int op = 0;
		while (op < COLL_NOPS && strcmp(coll_op_name((enum coll_op)op), csvr_cell(r, 1)) != 0)
			op++;
		CHECK(op < COLL_NOPS);
		if (op == COLL_NOPS)
			continue;
		double bytes = atof(csvr_cell(r, 3)), meas = atof(csvr_cell(r, 4)), fit = atof(csvr_cell(r, 9));
		double us = hwmodel_coll_us(hw, SCOPE_INTRA, (enum coll_op)op, atoi(csvr_cell(r, 2)), bytes);
		CHECK_NEAR(us, fit, 1e-3);
		worst = fmax(worst, fabs(us - meas) / meas);
		if (rows < 256)
			errs[rows] = fabs(us - meas) / meas;
		rows++;
	}
	csvr_free(r);
	CHECK_INT(rows, 180);
	CHECK(worst <= 0.15);
	qsort(errs, 180, sizeof *errs, cmp_double);
	CHECK(0.5 * (errs[89] + errs[90]) <= 0.02);
	for (int op = 0; op < COLL_NOPS; op++)
		hw->coll[SCOPE_INTRA][op].ntables = saved[op];
	hwmodel_free(hw);
}

/* Writes text to dir/name. */
static void put_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* hwmodel_write of hw, as a string (caller frees). */
static char *written(const struct hwmodel *hw)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	hwmodel_write(f, hw);
	fclose(f);
	return buf;
}

/* base: a file gives only what it overrides; bases nest (b -> a -> h100-dgx, a found relative to b); maps merge
 * key by key, a given list replaces the base's; cycles and unknown bases are errors at the base: value; the
 * merged model written by hwmodel_write (presets show FILE) loads back to the same numbers. */
static void test_base(void)
{
	char dir[] = "/tmp/gpusim-base-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	put_file(dir, "a.yaml", "schema: gpusim-hw/1\nname: a\nbase: h100-dgx\nnode:\n  gpus: 4\n"
				"network: {nic_gbps: 25}\n");
	put_file(dir, "b.yaml", "schema: gpusim-hw/1\nname: b\nbase: a.yaml\ngpu:\n  peak_tflops: {bf16: 500}\n"
				"collectives:\n  intra:\n    all_reduce:\n      lines:\n"
				"        - {algo: ring, alpha_us: 10, step_us: 0, bus_gbps: 100}\n");
	put_file(dir, "c1.yaml", "schema: gpusim-hw/1\nname: c1\nbase: c2.yaml\n");
	put_file(dir, "c2.yaml", "schema: gpusim-hw/1\nname: c2\nbase: c1.yaml\n");
	put_file(dir, "u.yaml", "schema: gpusim-hw/1\nname: u\nbase: h100-dxg\n");
	put_file(dir, "m.yaml", "schema: gpusim-hw/1\nname: m\nbase: missing.yaml\n");
	put_file(dir, "z.yaml", "schema: gpusim-hw/1\nname: z\nbase: /dev/zero\n");

	int err = -1;
	char path[600];
	struct hwmodel *pre = hwmodel_load("h100-dgx", &err);
	snprintf(path, sizeof path, "%s/b.yaml", dir);
	struct hwmodel *hw = hwmodel_load(path, &err);
	CHECK(hw != NULL && pre != NULL);
	if (!hw || !pre)
		return;
	CHECK_STR(hw->name, "b");
	CHECK_STR(hw->base, "a.yaml");
	CHECK_INT(hw->node.gpus, 4);                                   /* from a.yaml */
	CHECK_NEAR(hw->net.nic_gbps, 25, 0);                           /* from a.yaml */
	CHECK_INT(hw->net.nics, pre->net.nics);                        /* the rest of network: the preset's */
	CHECK_NEAR(hw->net.latency_us, pre->net.latency_us, 0);
	CHECK_NEAR(hw->gpu.peak_tflops[DT_BF16], 500, 0);              /* from b.yaml */
	CHECK_NEAR(hw->gpu.peak_tflops[DT_FP16], pre->gpu.peak_tflops[DT_FP16], 0);  /* merged map: kept */
	CHECK_NEAR(hw->gpu.hbm_gbps, pre->gpu.hbm_gbps, 0);
	CHECK_INT(hw->coll[SCOPE_INTRA][COLL_ALL_REDUCE].nlines, 1);  /* a given list replaces the preset's */
	CHECK_INT(hw->coll[SCOPE_INTRA][COLL_ALL_REDUCE].ntables, 0);
	/* 1 MB all-reduce over 8: 10 us + 1e6 * 2*7/8 / (100 * 1e3) = 10 + 17.5 = 27.5 us */
	CHECK_NEAR(hwmodel_coll_us(hw, SCOPE_INTRA, COLL_ALL_REDUCE, 8, 1e6), 27.5, 1e-9);
	CHECK_INT(hw->coll[SCOPE_INTRA][COLL_ALL_GATHER].nlines, pre->coll[SCOPE_INTRA][COLL_ALL_GATHER].nlines);

	/* round trip: write, load, write gives the same text, and the same numbers as the merged model */
	char *text = written(hw);
	struct hwmodel *back = hwmodel_load_string("back.yaml", text, &err);
	CHECK(back != NULL);
	if (back) {
		char *again = written(back);
		const char *body1 = strstr(text, "\nschema:"), *body2 = strstr(again, "\nschema:");
		CHECK(body1 && body2 && strcmp(body1, body2) == 0);
		CHECK_INT(back->node.gpus, 4);
		CHECK_NEAR(back->gpu.peak_tflops[DT_BF16], 500, 0);
		CHECK_NEAR(back->gpu.gemm_max_eff, pre->gpu.gemm_max_eff, 0);
		CHECK_NEAR(hwmodel_gemm_eff(back, DT_BF16, 4096, 8192, 8192), hwmodel_gemm_eff(hw, DT_BF16, 4096, 8192, 8192),
			   0);
		CHECK_NEAR(hwmodel_attn_tflops(back, ATTN_FUSED, DT_BF16, 4096, 128, true, true),
			   hwmodel_attn_tflops(hw, ATTN_FUSED, DT_BF16, 4096, 128, true, true), 0);
		CHECK_NEAR(hwmodel_coll_us(back, SCOPE_INTER, COLL_ALL_REDUCE, 8, 1e8),
			   hwmodel_coll_us(hw, SCOPE_INTER, COLL_ALL_REDUCE, 8, 1e8), 0);
		CHECK_STR(back->node.source, hw->node.source);
		free(again);
		hwmodel_free(back);
	}
	free(text);
	/* a preset written and loaded back is the preset (measured tables and attention rows included) */
	struct hwmodel *h2 = hwmodel_load("hardware/h200x2-measured.yaml", &err);
	CHECK(h2 != NULL);
	if (h2) {
		text = written(h2);
		back = hwmodel_load_string("back.yaml", text, &err);
		CHECK(back != NULL);
		if (back) {
			for (int n = 2; n <= 8; n *= 2)
				CHECK_NEAR(hwmodel_coll_us(back, SCOPE_INTRA, COLL_ALL_REDUCE, n, 3e6),
					   hwmodel_coll_us(h2, SCOPE_INTRA, COLL_ALL_REDUCE, n, 3e6), 0);
			CHECK_NEAR(hwmodel_gemm_eff(back, DT_BF16, 3000, 5000, 7000),
				   hwmodel_gemm_eff(h2, DT_BF16, 3000, 5000, 7000), 0);
			hwmodel_free(back);
		}
		free(text);
		hwmodel_free(h2);
	}
	hwmodel_free(hw);
	hwmodel_free(pre);

	snprintf(path, sizeof path, "%s/c1.yaml", dir);
	cap_begin();
	hw = hwmodel_load(path, &err);
	const char *out = cap_end();
	CHECK(hw == NULL);
	CHECK_INT(err, GS_EINVAL);
	char want[1200];
	snprintf(want, sizeof want, "gpusim: %s/c2.yaml:3:7: base: 'c1.yaml' makes a cycle of bases (%s/c1.yaml -> "
		 "%s/c2.yaml -> %s/c1.yaml)\n", dir, dir, dir, dir);
	CHECK_STR(out, want);
	snprintf(path, sizeof path, "%s/u.yaml", dir);
	cap_begin();
	hw = hwmodel_load(path, &err);
	out = cap_end();
	CHECK(hw == NULL);
	snprintf(want, sizeof want, "gpusim: %s/u.yaml:3:7: unknown hardware preset 'h100-dxg' (did you mean "
		 "'h100-dgx'?", dir);
	CHECK_CONTAINS(out, want);
	snprintf(path, sizeof path, "%s/m.yaml", dir);
	cap_begin();
	hw = hwmodel_load(path, &err);
	out = cap_end();
	CHECK(hw == NULL);
	snprintf(want, sizeof want, "gpusim: %s/m.yaml:3:7: base: cannot read '%s/missing.yaml'", dir, dir);
	CHECK_CONTAINS(out, want);
	snprintf(path, sizeof path, "%s/z.yaml", dir);  /* a device would never end: refused before reading */
	cap_begin();
	hw = hwmodel_load(path, &err);
	out = cap_end();
	CHECK(hw == NULL);
	snprintf(want, sizeof want, "gpusim: %s/z.yaml:3:7: base: '/dev/zero' is not a regular file\n", dir);
	CHECK_STR(out, want);
	const char *names[] = { "a.yaml", "b.yaml", "c1.yaml", "c2.yaml", "u.yaml", "m.yaml", "z.yaml" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

static const struct coll_table *intra_table(const struct hwmodel *hw, enum coll_op op, int n)
{
	const struct coll_model *cm = &hw->coll[SCOPE_INTRA][op];
	for (int i = 0; i < cm->ntables; i++)
		if (cm->tables[i].n == n)
			return &cm->tables[i];
	return NULL;
}

static int point(const struct coll_table *t, double bytes)
{
	for (int i = 0; t && i < t->npts; i++)
		if (t->bytes[i] == bytes)
			return i;
	return -1;
}

/* hwmodel_compose: the 2x H200 calibration in the h200-sxm preset's node of 8 (same GPU, NVSwitch): groups of 2 are
 * the measured tables; groups of 4 and 8 grow from them by NCCL's ring; the 1x H100 calibration in h100-dgx keeps
 * the preset's collectives; the GPU is the measured one and the network the preset's. */
static void test_compose(void)
{
	int err = 0;
	struct hwmodel *m = hwmodel_load("hardware/h200x2-measured.yaml", &err);
	struct hwmodel *pre = hwmodel_load("h200-sxm", &err);
	CHECK(m && pre);
	if (!m || !pre)
		return;
	CHECK(m->origin.calibrated);
	CHECK_INT(m->origin.measured_group, 2);
	CHECK_CONTAINS(m->origin.gpu, "measured (hardware/h200x2-measured.yaml)");
	CHECK_STR(pre->origin.gpu, "preset h200-sxm");
	struct hwmodel *c = hwmodel_compose(pre, m);
	CHECK_INT(c->node.gpus, 8);
	CHECK(c->origin.composed && !c->origin.calibrated);
	CHECK_CONTAINS(c->origin.intra, "groups of 3 to 8 grown from them by NCCL's ring");
	CHECK_NEAR(hwmodel_gemm_eff(c, DT_BF16, 4096, 4096, 4096), hwmodel_gemm_eff(m, DT_BF16, 4096, 4096, 4096), 0);
	CHECK_NEAR(hwmodel_coll_us(c, SCOPE_INTER, COLL_ALL_REDUCE, 16, 1e8),
		   hwmodel_coll_us(pre, SCOPE_INTER, COLL_ALL_REDUCE, 16, 1e8), 0);

	const struct coll_table *t2 = intra_table(m, COLL_ALL_REDUCE, 2);
	int big = point(t2, 1073741824.0), small = point(t2, 65536.0);
	CHECK(big >= 0 && small >= 0);
	if (big >= 0 && small >= 0) {
		/* groups of 2: the measured table as it is */
		CHECK_NEAR(hwmodel_coll_us(c, SCOPE_INTRA, COLL_ALL_REDUCE, 2, t2->bytes[big]), t2->time_us[big], 1e-12);
		/* all-reduce on 4: busfactor 2(n-1)/n = 1 on 2 ranks, 1.5 on 4, so B bytes on 4 ranks move per link what
		 * 1.5 B move on 2: t4(B / 1.5) = t2(B) + (steps 6 - 2) x step. 1 GiB on 2 ranks moves 512 MiB per link
		 * step (> 64 KiB: LL128, 1.9 us); 64 KiB moves 32 KiB (LL, 0.6 us). */
		CHECK_NEAR(hwmodel_coll_us(c, SCOPE_INTRA, COLL_ALL_REDUCE, 4, 1073741824.0 / 1.5),
			   t2->time_us[big] + 4 * 1.9, 1e-9);
		CHECK_NEAR(hwmodel_coll_us(c, SCOPE_INTRA, COLL_ALL_REDUCE, 4, 65536.0 / 1.5),
			   t2->time_us[small] + 4 * 0.6, 1e-9);
		/* on 8: busfactor 1.75, 14 steps: t8(B / 1.75) = t2(B) + 12 x 1.9 */
		CHECK_NEAR(hwmodel_coll_us(c, SCOPE_INTRA, COLL_ALL_REDUCE, 8, 1073741824.0 / 1.75),
			   t2->time_us[big] + 12 * 1.9, 1e-9);
		/* against the preset's published 8-GPU ring (nccl-tests busbw 370 GB/s, tuning.cc Simple latencies; NVLS
		 * off as in the validation runs): 1 GiB on 8 ranks, ring Simple 8.4 + 14 x 3.4 + 2^30 x 1.75 / 370e3 =
		 * 5134.1 us; grown from the measured 2-GPU busbw (~345 GB/s at 2 GiB): within 10 % */
		double ring = 8.4 + 14 * 3.4 + 1073741824.0 * 1.75 / 370e3;
		double grown = hwmodel_coll_us(c, SCOPE_INTRA, COLL_ALL_REDUCE, 8, 1073741824.0);
		CHECK(fabs(grown / ring - 1) < 0.10);
	}
	/* all-gather on 8 from 2: busfactor (n-1)/n = 0.5 -> 0.875, steps 1 -> 7: t8(B x 0.5 / 0.875) = t2(B) + 6 x 1.9 */
	const struct coll_table *g2 = intra_table(m, COLL_ALL_GATHER, 2);
	int gb = point(g2, 1073741824.0);
	CHECK(gb >= 0);
	if (gb >= 0)
		CHECK_NEAR(hwmodel_coll_us(c, SCOPE_INTRA, COLL_ALL_GATHER, 8, 1073741824.0 * 0.5 / 0.875),
			   g2->time_us[gb] + 6 * 1.9, 1e-9);
	/* send/recv does not change with the group: busfactor 1, one step */
	CHECK_NEAR(hwmodel_coll_us(c, SCOPE_INTRA, COLL_SEND_RECV, 8, 1e7),
		   hwmodel_coll_us(m, SCOPE_INTRA, COLL_SEND_RECV, 2, 1e7), 1e-12);
	hwmodel_free(c);
	hwmodel_free(pre);
	hwmodel_free(m);

	/* one H100 measured in the h100-dgx node: no group measured, so every intra-node curve is the preset's */
	m = hwmodel_load("tests/data/h100x1-measured-v1.yaml", &err);
	pre = hwmodel_load("h100-dgx", &err);
	CHECK(m && pre);
	if (!m || !pre)
		return;
	CHECK_INT(m->origin.measured_group, 0);
	c = hwmodel_compose(pre, m);
	for (int op = 0; op < COLL_NOPS; op++)
		CHECK_NEAR(hwmodel_coll_us(c, SCOPE_INTRA, (enum coll_op)op, 8, 3e6),
			   hwmodel_coll_us(pre, SCOPE_INTRA, (enum coll_op)op, 8, 3e6), 0);
	CHECK_STR(c->gpu.name, m->gpu.name);
	CHECK_NEAR(c->gpu.mem_eff, m->gpu.mem_eff, 0);
	CHECK_CONTAINS(c->origin.intra, "preset h100-dgx (none measured)");
	CHECK_STR(c->origin.note, "");
	/* --target-gpu: efficiencies kept, peaks the target's: a GEMM's achieved rate scales by the peak ratio */
	struct hwmodel *h200 = hwmodel_load("h200-sxm", &err);
	double eff = hwmodel_gemm_eff(c, DT_BF16, 8192, 8192, 8192);
	hwmodel_retarget(c, h200);
	CHECK_NEAR(hwmodel_gemm_eff(c, DT_BF16, 8192, 8192, 8192), eff, 1e-12);
	CHECK_NEAR(c->gpu.peak_tflops[DT_BF16], h200->gpu.peak_tflops[DT_BF16], 0);
	CHECK_NEAR(c->gpu.hbm_gbps, h200->gpu.hbm_gbps, 0);
	CHECK_CONTAINS(c->origin.note, "GPU rates carried from NVIDIA H100 80GB HBM3 to");
	hwmodel_free(h200);
	hwmodel_free(c);
	hwmodel_free(pre);
	hwmodel_free(m);

	/* a calibration that names its base is composed into it as it loads; `--hw h100-dgx --gpu FILE` composes that
	 * again and keeps the measured groups: the 2 x H100 calibration's all-reduce on 2 ranks is its own table, in
	 * both models */
	m = hwmodel_load("hardware/h100x2-1128e-measured.yaml", &err);
	pre = hwmodel_load("h100-dgx", &err);
	CHECK(m && pre);
	if (!m || !pre)
		return;
	CHECK_INT(m->origin.measured_group, 2);
	CHECK_INT(m->origin.host_gpus, 2);
	c = hwmodel_compose(pre, m);
	CHECK_INT(c->origin.measured_group, 2);
	CHECK_CONTAINS(c->origin.intra, "measured (hardware/h100x2-1128e-measured.yaml) for groups of 2 to 2");
	CHECK_NEAR(hwmodel_coll_us(c, SCOPE_INTRA, COLL_ALL_REDUCE, 2, 1048576.0),
		   hwmodel_coll_us(m, SCOPE_INTRA, COLL_ALL_REDUCE, 2, 1048576.0), 1e-12);
	CHECK(hwmodel_coll_us(c, SCOPE_INTRA, COLL_ALL_REDUCE, 2, 1048576.0) !=
	      hwmodel_coll_us(pre, SCOPE_INTRA, COLL_ALL_REDUCE, 2, 1048576.0));
	hwmodel_free(c);
	hwmodel_free(pre);
	hwmodel_free(m);
}

/* gemm.model.dtype_eff and peak_tflops.fp4: the toy with fp8 and fp4 peaks and their own ceilings. */
static void test_dtype_eff(void)
{
	const char *text = "schema: gpusim-hw/1\nname: toy8\ngpu:\n  name: toy gpu\n  sm_count: 4\n"
			   "  memory_bytes: 1e9\n  hbm_gbps: 1000\n"
			   "  peak_tflops: {bf16: 100, fp8: 200, fp4: 400}\n  launch_us: 1\n"
			   "  memory_bound: {eff: 0.8}\n  gemm:\n"
			   "    model: {max_eff: 0.8, tile_m: 128, tile_n: 128, k_half: 256, dtype_eff: {fp8: 0.6, fp4: 0.5}}\n"
			   "  attention: {fwd_eff: 0.5, bwd_eff: 0.4}\n"
			   "node: {gpus: 8, fabric: nvswitch, link_gbps: 100}\n"
			   "network: {nics: 4, nic_gbps: 50, latency_us: 5, oversubscription: 1}\n";
	int err = 0;
	struct hwmodel *hw = hwmodel_load_string("toy8.yaml", text, &err);
	CHECK(hw != NULL);
	if (!hw)
		return;
	CHECK_NEAR(hw->gpu.peak_fp4_tflops, 400, 1e-12);
	/* m = n = 256: 4 tiles on 4 SMs (wave_eff 1), k = 768: 768/1024 = 0.75. bf16 0.8*0.75 = 0.6;
	 * fp8 its own ceiling: 0.6*0.75 = 0.45 */
	CHECK_NEAR(hwmodel_gemm_eff(hw, DT_BF16, 256, 256, 768), 0.6, 1e-12);
	CHECK_NEAR(hwmodel_gemm_eff(hw, DT_FP8, 256, 256, 768), 0.45, 1e-12);
	/* fp4: 2*256*256*768 = 100.66e6 FLOP at 400e12 * 0.5 * 0.75 = 150e12 FLOP/s: 0.67109 us */
	CHECK_NEAR(hwmodel_gemm_fp4_s(hw, 256, 256, 768), 2.0 * 256 * 256 * 768 / 150e12, 1e-18);
	hwmodel_free(hw);
	/* a ceiling above 1.5 is refused where it stands */
	const char *bad = "schema: gpusim-hw/1\nname: toy8\ngpu:\n  name: toy gpu\n  sm_count: 4\n"
			  "  memory_bytes: 1e9\n  hbm_gbps: 1000\n  peak_tflops: {bf16: 100}\n  launch_us: 1\n"
			  "  memory_bound: {eff: 0.8}\n  gemm:\n"
			  "    model: {max_eff: 0.8, tile_m: 128, tile_n: 128, dtype_eff: {fp8: 2}}\n"
			  "node: {gpus: 8, fabric: nvswitch, link_gbps: 100}\n"
			  "network: {nics: 4, nic_gbps: 50, latency_us: 5, oversubscription: 1}\n";
	cap_begin();
	hw = hwmodel_load_string("bad.yaml", bad, &err);
	const char *msg = cap_end();
	CHECK(hw == NULL);
	CHECK(strstr(msg, "bad.yaml:12:") != NULL && strstr(msg, "dtype_eff.fp8: must be in (0, 1.5]") != NULL);
}

/* host.<mode>.drift_lo, drift_hi: factors on the host's costs, both or neither, lo <= 1 <= hi; hwmodel_scale_host
 * multiplies the costs (keys in us) and leaves the counts and factors: op_us 10 -> 15 at x1.5, layer_kernels 9 */
static void test_host_drift(void)
{
	int err = 0;
	struct hwmodel *hw = hwmodel_load_string("d.yaml", HW_HEAD "host:\n  eager: {op_us: 10, layer_kernels: 9, "
						 "rank_spread: 0.1, drift_lo: 0.8, drift_hi: 1.5}\n", &err);
	CHECK(hw != NULL);
	if (hw) {
		const struct hw_host_cost *e = &hw->host.mode[EXEC_EAGER];
		CHECK_NEAR(e->drift_lo, 0.8, 1e-12);
		CHECK_NEAR(e->drift_hi, 1.5, 1e-12);
		hwmodel_scale_host(hw, 1.5);
		CHECK_NEAR(e->op_us, 15, 1e-12);
		CHECK_NEAR(e->layer_kernels, 9, 1e-12);
		CHECK_NEAR(e->rank_spread, 0.1, 1e-12);
		CHECK_NEAR(e->drift_lo, 0.8, 1e-12);
		CHECK_NEAR(e->drift_hi, 1.5, 1e-12);
		hwmodel_free(hw);
	}
	CHECK_STR(bad_hw(HW_HEAD "host:\n  eager: {op_us: 10, drift_lo: 1.2, drift_hi: 1.5}\n"),
		  "gpusim: hw.yaml:24:32: host.eager.drift_lo, drift_hi: factors on the host's costs, drift_lo at most "
		  "1 and drift_hi at least 1, both or neither; got 1.2 and 1.5\n");
	CHECK_STR(bad_hw(HW_HEAD "host:\n  eager: {op_us: 10, drift_lo: 0.8, drift_hi: 0.9}\n"),
		  "gpusim: hw.yaml:24:47: host.eager.drift_lo, drift_hi: factors on the host's costs, drift_lo at most "
		  "1 and drift_hi at least 1, both or neither; got 0.8 and 0.9\n");
	CHECK(strstr(bad_hw(HW_HEAD "host:\n  eager: {op_us: 10, drift_hi: 1.3}\n"), "both or neither") != NULL);
}

/* A host mode a based file gives is the file's alone; a mode it leaves out keeps the base's whole. */
static void test_host_mode_replaced(void)
{
	int err = 0;
	struct hwmodel *p = hwmodel_load("h200-sxm", &err);
	struct hwmodel *hw = hwmodel_load_string("b.yaml", "schema: gpusim-hw/1\nname: b\nbase: h200-sxm\n"
						 "host:\n  eager: {op_us: 10}\n", &err);
	CHECK(p != NULL && hw != NULL);
	if (p && hw) {
		const struct hw_host_cost *e = &hw->host.mode[EXEC_EAGER], *pe = &p->host.mode[EXEC_EAGER];
		CHECK(pe->gemm_us > 0 && pe->drift_hi > 1);  /* the preset measures them (validate/preset_host.py) */
		CHECK_NEAR(e->op_us, 10, 1e-12);
		CHECK_NEAR(e->gemm_us, 0, 0);     /* not the preset's op classes */
		CHECK_NEAR(e->drift_lo, 0, 0);    /* nor its host range */
		CHECK_NEAR(e->drift_hi, 0, 0);
		CHECK_NEAR(e->step_us, 0, 0);
		const struct hw_host_cost *c = &hw->host.mode[EXEC_COMPILED], *pc = &p->host.mode[EXEC_COMPILED];
		CHECK(pc->kernel_us > 0);
		CHECK_NEAR(c->kernel_us, pc->kernel_us, 0);  /* compiled, left out: the base's */
		CHECK_NEAR(c->drift_hi, pc->drift_hi, 0);
		/* group_us, which no one-GPU probe measures, is the base's unless the file gives it */
		CHECK(pe->group_us > 0);
		CHECK_NEAR(e->group_us, pe->group_us, 0);
	}
	hwmodel_free(hw);
	hw = hwmodel_load_string("b.yaml", "schema: gpusim-hw/1\nname: b\nbase: h200-sxm\n"
				 "host:\n  eager: {op_us: 10, group_us: 0}\n", &err);
	CHECK(hw != NULL);
	if (hw)
		CHECK_NEAR(hw->host.mode[EXEC_EAGER].group_us, 0, 0);
	hwmodel_free(hw);
	hwmodel_free(p);
}

int main(void)
{
	test_dtype_eff();
	test_measured_collectives();
	test_fields();
	test_gemm();
	test_mem();
	test_coll();
	test_errors();
	test_tp_overlap();
	test_ranges();
	test_attention();
	test_presets();
	test_base();
	test_compose();
	test_host_drift();
	test_host_mode_replaced();
	return check_result();
}
