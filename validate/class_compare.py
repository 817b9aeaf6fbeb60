#!/usr/bin/env python3
"""validate/class_compare.py: where a step's predicted time goes against where a profiled one went, by kernel class
(GEMM, attention, communication, the rest of the kernels, and the GPU's idle between kernels), for one rank.

gpusim's timeline of the critical rank (`gpusim predict --trace`) is summed by op into the classes the runner's
profiles use (validate/runner/kernel_profile.py, mp_profile.py); the measured side is a profile's summary line of
one rank (mp_profile's `gemm 51.7, attention 19.7, nccl 18.6, ... ms` with `span S, kernels cover K ms`), or a
kernel_profile kprof.csv and gaps.csv of a one-GPU row. A model that is right overall for the wrong reasons shows
here: a class too slow that another too fast makes up for, which a layout that changes one of them breaks.

usage: validate/class_compare.py SCENARIO HW (--summary FILE --row LABEL [--rank R] | --kprof DIR --row LABEL)
                                 [--gpusim build/gpusim]
e.g.   validate/class_compare.py scenarios/validate/t07-tp2.yaml hardware/h200x4-1128a-measured.yaml \\
           --summary validate/runs/2026-11-27-h200x4-late/layout-power/summary.txt --row t07-tp2 --rank 0
Prints each class's predicted and measured ms and the difference; "idle" is the span less the kernels (measured)
and the step less the ops (predicted: waits on the host, bubbles); the model's per-kernel gap (gpu.kernels.gap_us)
is inside its ops' times, the profile's between its kernels, so "rest" and "idle" are compared together too; a
pipeline's waits are the model's idle (bubble) and the profile's NCCL receive kernels spinning: compare comm+idle.
A data-parallel profile's NCCL kernels run beside the compute: its "all" is not a step.
"""
import argparse
import collections
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

GEMM = re.compile(r"^(qkv|proj|fc1|fc2|linear|logits|expert_fc1|expert_fc2|shared_fc1|shared_fc2|moe_router)"
                  r"(_dgrad|_wgrad)?$")
CLASSES = ("gemm", "attention", "comm", "rest", "idle")


def op_class(cat, name):
    if cat in ("tp", "dp", "pp", "ep", "cp"):
        return "comm"
    if cat == "optimizer":
        return "rest"
    if GEMM.match(name):
        return "gemm"
    if name.startswith("attention"):
        return "attention"
    return "rest"


def predicted(gpusim, scenario, hw):
    with tempfile.TemporaryDirectory() as d:
        tr = os.path.join(d, "t.json")
        p = subprocess.run([gpusim, "predict", scenario, "--hw", hw, "--trace", tr, "--trace-ranks", "critical",
                            "--format", "json"], capture_output=True, text=True)
        if p.returncode:
            raise RuntimeError(p.stderr.strip())
        step = json.loads(p.stdout)["step_time_s"] * 1e3
        d = json.load(open(tr))
    ev = d["traceEvents"] if isinstance(d, dict) else d
    # the critical rank's GPU lanes only: the events of the first pid that has compute
    pid = next(e["pid"] for e in ev if e.get("ph") == "X" and e.get("cat") == "compute")
    acc = collections.Counter()
    for e in ev:
        if e.get("ph") == "X" and e.get("pid") == pid and e.get("cat"):
            acc[op_class(e["cat"], e["name"].split("(")[0].split(" ")[0])] += e["dur"] / 1e3
    busy = sum(acc.values())
    acc["idle"] = max(0.0, step - busy)
    return step, acc


def measured_summary(path, row, rank):
    pat = re.compile(rf"^{re.escape(row)}\s+rank {rank}: .*?span ([\d.]+), kernels cover ([\d.]+) ms, \d+ kernels "
                     r"\(([^)]*)\)")
    for line in open(path):
        m = pat.match(line)
        if m:
            span, cover = float(m.group(1)), float(m.group(2))
            acc = collections.Counter()
            for part in m.group(3).split(","):
                name, ms = re.sub(r"\s*ms$", "", part.strip()).rsplit(" ", 1)
                k = {"gemm": "gemm", "attention": "attention", "nccl": "comm"}.get(name, "rest")
                acc[k] += float(ms)
            acc["idle"] = max(0.0, span - cover)
            return span, acc
    raise ValueError(f"{path}: no summary line of {row} rank {rank}")


def measured_kprof(d, row):
    acc = collections.Counter()
    for r in csv.DictReader(open(os.path.join(d, "kprof.csv"))):
        if r["label"] == row:
            k = {"gemm": "gemm", "attention": "attention", "nccl": "comm"}.get(r["kernel_class"], "rest")
            acc[k] += float(r["gpu_us"]) / 1e3
    span = None
    for r in csv.DictReader(open(os.path.join(d, "gaps.csv"))):
        if r["label"] == row and r["next_class"] == "span":
            span = float(r["total_us"]) / 1e3
    if not acc or span is None:
        raise ValueError(f"{d}: no kprof.csv or gaps.csv span rows of {row}")
    # kernel_profile profiles several steps: its classes are summed over them, the span is one step's
    steps = sum(float(r["gpu_us"]) for r in csv.DictReader(open(os.path.join(d, "kprof.csv")))
                if r["label"] == row) / 1e3 / max(span, 1e-9)
    n = max(1, round(steps))
    for k in list(acc):
        acc[k] /= n
    acc["idle"] = max(0.0, span - sum(acc.values()))
    return span, acc


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("scenario")
    ap.add_argument("hw")
    ap.add_argument("--summary")
    ap.add_argument("--kprof")
    ap.add_argument("--row", required=True)
    ap.add_argument("--rank", type=int, default=0)
    ap.add_argument("--gpusim", default="build/gpusim")
    a = ap.parse_args()
    if bool(a.summary) == bool(a.kprof):
        ap.error("give one of --summary FILE or --kprof DIR")
    try:
        step, pred = predicted(a.gpusim, a.scenario, a.hw)
        span, meas = (measured_summary(a.summary, a.row, a.rank) if a.summary else measured_kprof(a.kprof, a.row))
    except (OSError, ValueError, RuntimeError, KeyError, StopIteration) as err:
        print(f"class_compare: {err}", file=sys.stderr)
        return 1
    print(f"{a.row} (rank {a.rank}) with {os.path.basename(a.hw)}: predicted step {step:.2f} ms, "
          f"profiled span {span:.2f} ms")
    print(f"{'class':12s} {'predicted':>10s} {'measured':>10s} {'diff':>8s}")
    def value(acc, k):
        if k in ("rest+idle", "comm+idle"):
            return acc[k.split("+")[0]] + acc["idle"]
        return sum(acc[c] for c in CLASSES) if k == "all" else acc[k]
    for k in CLASSES + ("rest+idle", "comm+idle", "all"):
        p, m = value(pred, k), value(meas, k)
        print(f"{k:12s} {p:10.2f} {m:10.2f} {p - m:+8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
