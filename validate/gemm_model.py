#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The analytic GEMM model (hardware/hwlookup.c, analytic_shape_eff) scored against every committed calibration's
measured GEMM table: the model the presets use, held out against cuBLASLt times nobody fitted it to.

For each hardware/*-measured.yaml with gpu.gemm.tables, each bf16/fp16 grid point, the model's time (as
sim/ops.c prices a GEMM: max(math at the model's efficiency, the bytes at the memory-bound rate), with that file's
own max_eff, tiles, k_half, SM count and memory_bound) against the measured time (2mnk / (peak * eff)). Two
models: `unsplit` (the wave quantization of the m x n tiles alone, gpusim before 2026-11-28 stop 40) and `split`
(the best split of k: s slices, s = 1..64 while k/s >= 64, as hwlookup.c now does). Errors are (model -
measured) / measured: positive = the model is slow. Points measured under MIN_US (default 20 us) are left out:
there the timing loop's launch rate, not the GPU, sets the time (the grids' smallest GEMMs all read 6-8 us).

usage: validate/gemm_model.py [MIN_US [CALIBRATION.yaml ...]]      (run from the repository root; default: every
       hardware/*-measured.yaml)
"""
import glob
import math
import statistics
import sys

import yaml

SPLIT_MAX, K_BLOCK = 64, 64  # as hardware/hwlookup.c


def shape_eff(m, n, k, sm, tm, tn, k_half, split):
    tiles = math.ceil(m / tm) * math.ceil(n / tn)
    best = 0.0
    s = 1
    while s <= (SPLIT_MAX if split else 1) and (s == 1 or k / s >= K_BLOCK):
        units = tiles * s
        ks = k / s
        best = max(best, units / (math.ceil(units / sm) * sm) * ks / (ks + k_half))
        s += 1
    return best


def region(m, n, sm, tm, tn):
    t = math.ceil(m / tm) * math.ceil(n / tn)
    return "tiles < SMs/4" if t < sm / 4 else "tiles < SMs" if t < sm else "tiles < 4 SMs" if t < 4 * sm \
        else "tiles >= 4 SMs"


def main():
    min_us = float(sys.argv[1]) if len(sys.argv) > 1 else 20.0
    errs = {"unsplit": [], "split": []}
    files = 0
    for f in sys.argv[2:] or sorted(glob.glob("hardware/*-measured.yaml")):
        g = yaml.safe_load(open(f))["gpu"]
        if "tables" not in g["gemm"]:
            continue
        files += 1
        mo, sm, mb = g["gemm"]["model"], g["sm_count"], g["memory_bound"]
        for tb in g["gemm"]["tables"]:
            if tb["dtype"] not in ("bf16", "fp16"):
                continue
            peak = g["peak_tflops"][tb["dtype"]] * 1e12
            i = 0
            for m in tb["m"]:
                for n in tb["n"]:
                    for k in tb["k"]:
                        flops, eff = 2.0 * m * n * k, tb["eff"][i]
                        i += 1
                        t_meas = flops / (peak * eff)
                        if t_meas < min_us * 1e-6:
                            continue
                        by = (m * k + k * n + m * n) * 2
                        t_mem = by / (g["hbm_gbps"] * mb["eff"] * by / (by + mb["half_bytes"]) * 1e9)
                        reg = region(m, n, sm, mo["tile_m"], mo["tile_n"])
                        for name in errs:
                            e = mo["max_eff"] * shape_eff(m, n, k, sm, mo["tile_m"], mo["tile_n"], mo["k_half"],
                                                          name == "split")
                            errs[name].append((max(flops / (peak * e), t_mem) / t_meas - 1, reg))
    print("%d calibrations, %d bf16/fp16 GEMMs of %g us or more" % (files, len(errs["split"]), min_us))
    print()
    regs = ["tiles < SMs/4", "tiles < SMs", "tiles < 4 SMs", "tiles >= 4 SMs", "all"]
    print("| model | " + " | ".join(regs) + " | p90 all | max all |")
    print("|---|" + "---|" * (len(regs) + 2))
    for name, v in errs.items():
        cells = []
        for r in regs:
            x = [e for e, rr in v if r == "all" or rr == r]
            cells.append("%+.1f / %.1f %% (%d)" % (statistics.median(x) * 100,
                                                    statistics.median([abs(e) for e in x]) * 100, len(x)))
        a = sorted(abs(e) for e, _ in v)
        print("| %s | %s | %.1f %% | %.1f %% |" % (name, " | ".join(cells), a[int(0.9 * len(a))] * 100, a[-1] * 100))
    print()
    print("cells: signed median / median |error| (points); tiles counted at the model's tile_m x tile_n")


if __name__ == "__main__":
    main()
