#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""validate/contend.py: what validate/runner/contend.sh measured, as a table: per row and round, each process's
median step and median host part (the enqueue before the device sync), then per model what a micro-batch's host
costs alone, beside a second busy process, and in the two-GPU job (docs/validation.md, "Two processes on one host").

A rank of a two-GPU row issues a share of the one-GPU row's ops: DDP (dp2) its micro-batches (each with every
layer; where the micro-batch count does not split, as in the MLPs, every one at half the size), a pipeline stage
(pp2) every micro-batch with half the layers, TP (tp2) every op at half the width; plus what the job adds (DDP's hooks
and all-reduce calls, the pipeline's sends and receives, TP's all-reduces). The "share" column is that fraction of
the one-GPU row's layer-passes (micro-batches x layers, from validate/runner/configs.py), "ratio" the job's slowest
rank's host part over the one-GPU row's (the mean of its alone rounds), "per share" the ratio over the share: what
a layer-pass's host costs in the job, the one-GPU row's being 1.

usage: validate/contend.py DIR      (DIR: validate/runs/2026-11-28-h200x2-contend, or a contend.tar.gz unpacked)
"""
import collections
import csv
import glob
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "runner"))
import configs  # noqa: E402


def steps(path):
    """{label: {rank: (median step_s, median host_s)}} of one steps CSV"""
    got = collections.defaultdict(lambda: collections.defaultdict(list))
    with open(path) as f:
        for r in csv.DictReader(f):
            got[r["label"]][r["rank"]].append((float(r["step_s"]), float(r["host_s"])))
    return {lab: {rk: (statistics.median(s for s, _ in v), statistics.median(h for _, h in v))
                  for rk, v in ranks.items()} for lab, ranks in got.items()}


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        sys.exit(__doc__)
    d = sys.argv[1]
    rounds = {}  # round-gpuN or round -> steps
    for path in sorted(glob.glob(os.path.join(d, "*-steps.csv"))):
        rounds[os.path.basename(path)[:-len("-steps.csv")]] = steps(path)
    if not rounds:
        sys.exit("contend: no *-steps.csv under %s" % d)
    print("%-14s %-14s %s" % ("round", "row", "per process: step ms / host ms"))
    for name, rows in rounds.items():
        for lab, ranks in rows.items():
            print("%-14s %-14s %s" % (name, lab, "   ".join(
                "%s %.2f / %.2f" % ("rank " + rk if len(ranks) > 1 else "", s * 1e3, h * 1e3)
                for rk, (s, h) in sorted(ranks.items()))))
    # the one-GPU host part per model: alone rounds, and every process of the pair/pinned rounds
    kinds = collections.defaultdict(lambda: collections.defaultdict(list))
    for name, rows in rounds.items():
        kind = re.sub(r"\d+(-gpu\d+)?$", "", name)
        for lab, ranks in rows.items():
            for s, h in ranks.values():
                kinds[kind][lab].append(h)
    print()
    singles = sorted(l for k in ("alone", "pair", "pinned") for l in kinds.get(k, {}))
    print("%-14s %12s %12s %12s %8s %8s" % ("one-GPU row", "alone ms", "pair ms", "pinned ms", "pair/al", "pin/al"))
    for lab in sorted(set(singles)):
        a = statistics.mean(kinds["alone"].get(lab, [float("nan")]))
        p = statistics.mean(kinds["pair"].get(lab, [float("nan")]))
        q = statistics.mean(kinds["pinned"].get(lab, [float("nan")])) if "pinned" in kinds else float("nan")
        print("%-14s %12.2f %12.2f %12.2f %8.3f %8.3f" % (lab, a * 1e3, p * 1e3, q * 1e3, p / a, q / a))
    print()
    cfg = {r["label"]: r for r in configs.rows()}
    print("%-16s %14s %14s %7s %8s %10s" % ("job row", "slowest host", "one-GPU alone", "share", "ratio",
                                            "per share"))
    for lab, hs in sorted(kinds.get("job", {}).items()):
        one = cfg[lab]["baseline"]
        base = kinds["alone"].get(one)
        if not base:
            continue
        passes = {k: cfg[k]["m"] * cfg[k]["layers"] / cfg[k]["pp"] for k in (lab, one)}
        share = passes[lab] / passes[one]
        mx = max(hs)  # the rank whose host took longest (the job's ranks of one round)
        r = mx / statistics.mean(base)
        print("%-16s %14.2f %14.2f %7.2f %8.3f %10.3f" % (lab, mx * 1e3, statistics.mean(base) * 1e3, share, r,
                                                         r / share))
    return 0


if __name__ == "__main__":
    sys.exit(main())
