/* toy_hw: the toy GPU of the hand-derived tests (test_sp, test_pipecfg, test_recompute, test_gradcomp): memory-
 * bound ops at exactly 1000 GB/s (eff 1, no launch or host cost), GEMMs at most half of 100 TFLOP/s, 8 GPUs a node,
 * every intra-node collective a ring of alpha 10 us + bytes at 100 GB/s bus bandwidth; the network 25 GB/s a GPU
 * with 5 us latency; 10 GB/s to host memory. */
#ifndef TESTS_TOY_HW_H
#define TESTS_TOY_HW_H

#include "check.h"
#include "hardware/hwmodel.h"

static const char *const toy_hw =
	"schema: gpusim-hw/1\nname: toy\ngpu:\n  name: toy gpu\n  sm_count: 4\n  memory_bytes: 1e9\n"
	"  hbm_gbps: 1000\n  peak_tflops: {bf16: 100}\n  launch_us: 0\n"
	"  memory_bound: {eff: 1}\n  gemm:\n    model: {max_eff: 0.5, tile_m: 128, tile_n: 128, k_half: 0}\n"
	"  attention: {fwd_eff: 0.5, bwd_eff: 0.4}\n"
	"node: {gpus: 8, fabric: nvswitch, link_gbps: 100, host_gbps: 10}\n"
	"network: {nics: 8, nic_gbps: 25, latency_us: 5, oversubscription: 1}\n"
	"collectives:\n  intra:\n"
	"    all_gather: {lines: [{algo: ring, alpha_us: 10, step_us: 0, bus_gbps: 100}]}\n"
	"    reduce_scatter: {lines: [{algo: ring, alpha_us: 10, step_us: 0, bus_gbps: 100}]}\n"
	"    all_reduce: {lines: [{algo: ring, alpha_us: 10, step_us: 0, bus_gbps: 100}]}\n";

/* The toy model, or NULL after a failed check. */
static inline struct hwmodel *toy_load(void)
{
	int err = 0;
	struct hwmodel *hw = hwmodel_load_string("toy.yaml", toy_hw, &err);
	CHECK(hw != NULL);
	return hw;
}

#endif
