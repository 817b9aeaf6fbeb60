#!/usr/bin/env python3
"""validate/kernel_drift.py: does a GEMM run slower the longer its GPU has been busy? The same GEMM kernel's
duration along one profiled step, by how long the GPU had computed since its last wait, from the kernels' GPU
timestamps in a torch.profiler trace (the CPU-side traces of validate/runner/mp_profile.py, *-cpu-r<rank>.json.gz:
the GPU-only ones carry zero timestamps).

A power limiter that averages over a window shorter than a step lets the GEMMs right after a wait run at a higher
clock than those deep in a long busy stretch; one that averages over the whole step does not (gpusim's power
balance today: every wait of a stage counts in full, docs/simulation.md). A wait is a gap between kernels or an
NCCL kernel (a receive that spins until its data arrives) of at least --wait-ms.

usage: validate/kernel_drift.py TRACE.json.gz ... [--wait-ms 1] [--min-us 50]
Per trace: its waits (when, how long), then each GEMM's duration over the median of its shape in that trace (a
kernel name's durations split where one is 15 % over the last), grouped by the busy time since the last wait ended
and by the time into the trace (ms), each bin's median and quartiles; a ratio above 1 is slower.
"""
import argparse
import collections
import gzip
import json
import re
import statistics
import sys

BINS = (0, 5, 10, 20, 40, 80, 1e9)
TBINS = (0, 20, 40, 60, 80, 100, 1e9)
GEMM = re.compile(r"nvjet|gemm|cutlass|sm90_xmma|ampere_|Kernel2", re.I)


def kernels(path):
    with gzip.open(path) if path.endswith(".gz") else open(path) as f:
        d = json.load(f)
    ev = d["traceEvents"] if isinstance(d, dict) else d
    ks = sorted((e for e in ev if e.get("ph") == "X" and e.get("cat") == "kernel"), key=lambda e: e["ts"])
    if ks and all(e["ts"] == 0 for e in ks):
        raise ValueError(f"{path}: every kernel timestamp is 0 (a GPU-only trace): use the CPU-side trace")
    return ks


def drift(ks, wait_us, min_us):
    """The waits [(start_ms, length_ms)] and each GEMM's (busy ms since the last wait, ms into the trace,
    duration over its shape's median)."""
    t0 = ks[0]["ts"]
    waits, samples = [], []
    end = t0
    busy_from = t0  # when the current busy stretch began
    for e in ks:
        gap = e["ts"] - end
        if gap >= wait_us:
            waits.append(((end - t0) / 1e3, gap / 1e3))
            busy_from = e["ts"]
        if "nccl" in e["name"].lower():
            if e["dur"] >= wait_us:
                waits.append(((e["ts"] - t0) / 1e3, e["dur"] / 1e3))
                busy_from = e["ts"] + e["dur"]
        elif GEMM.search(e["name"]) and e["dur"] >= min_us:
            samples.append((e["name"], (e["ts"] - busy_from) / 1e3, (e["ts"] - t0) / 1e3, e["dur"]))
        end = max(end, e["ts"] + e["dur"])
    # one kernel name serves several shapes (a layer's GEMMs of one tile config): its durations sorted, a new
    # shape where the next is over 15 % longer; each GEMM over the median of its own shape
    groups = {}
    for n in {s[0] for s in samples}:
        ds = sorted(s[3] for s in samples if s[0] == n)
        cur = [ds[0]]
        for d in ds[1:]:
            if d > 1.15 * cur[-1]:
                groups.setdefault(n, []).append((cur[0], cur[-1], statistics.median(cur)))
                cur = []
            cur.append(d)
        groups.setdefault(n, []).append((cur[0], cur[-1], statistics.median(cur)))
    med = lambda n, d: next(m for lo, hi, m in groups[n] if lo <= d <= hi)
    return waits, [(b, t, d / med(n, d)) for n, b, t, d in samples]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("traces", nargs="+")
    ap.add_argument("--wait-ms", type=float, default=1.0)
    ap.add_argument("--min-us", type=float, default=50.0)
    a = ap.parse_args()
    for path in a.traces:
        try:
            ks = kernels(path)
        except (OSError, ValueError, KeyError) as err:
            print(f"{path}: {err}", file=sys.stderr)
            return 1
        waits, samples = drift(ks, a.wait_ms * 1e3, a.min_us)
        span = (ks[-1]["ts"] + ks[-1]["dur"] - ks[0]["ts"]) / 1e3
        print(f"{path}: {len(ks)} kernels over {span:.1f} ms; waits >= {a.wait_ms:g} ms: " +
              (", ".join(f"{w:.1f} ms at {t:.1f}" for t, w in waits) or "none"))
        for what, col in (("busy since a wait", 0), ("into the trace", 1)):
            by = collections.defaultdict(list)
            for s in samples:
                for lo, hi in zip(BINS if col == 0 else TBINS, (BINS if col == 0 else TBINS)[1:]):
                    if lo <= s[col] < hi:
                        by[lo, hi].append(s[2])
            for (lo, hi), rs in sorted(by.items()):
                name = f"{lo:g}-{hi:g} ms" if hi < 1e9 else f">= {lo:g} ms"
                q = statistics.quantiles(rs, n=4) if len(rs) > 1 else rs * 3
                print(f"  {what:>17} {name:>10}: {len(rs):4d} GEMMs, duration / shape median "
                      f"{statistics.median(rs):.3f} (quartiles {q[0]:.3f} {q[2]:.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
