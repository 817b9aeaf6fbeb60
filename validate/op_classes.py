#!/usr/bin/env python3
"""validate/op_classes.py: a step's GPU time by class, the model's beside a profile's, as docs/validation.md's
kernel-by-kernel tables print them ("Why the calibrated H100 is fast on GPU-bound rows").

The model: `gpusim predict SCENARIO --hw HW --trace T --trace-ranks stages`, each compute op of the trace summed into
a class by its name. The profile (optional): validate/runner/kernel_profile.py's `--kernels` CSV for that row, each
kernel summed into the same classes (the fused optimizer's kernel and the step's casts count as the optimizer, as
the model's `optimizer` op holds both; LayerNorm's weight-gradient kernel counts as the norm).

usage: validate/op_classes.py SCENARIO HW [KERNELS.csv LABEL] [GPUSIM]     (from the repository root)
e.g.   validate/op_classes.py scenarios/validate/t07-single.yaml hardware/h100x1-1127-measured.yaml \\
           validate/runs/2026-11-27-h100x1/kernels.csv t07-single build/gpusim
"""
import collections
import csv
import json
import os
import subprocess
import sys
import tempfile

CLASSES = ("gemm", "attention", "elementwise", "norm", "optimizer")
GEMM_OPS = ("qkv", "proj", "fc1", "fc2", "fc3", "head", "w1", "w2", "w3")


def model_class(name):
    if name.startswith("attention"):
        return "attention"
    if name == "optimizer" or name.startswith("opt"):
        return "optimizer"
    if name.split("_")[0] in GEMM_OPS and "split" not in name:
        return "gemm"
    if name.startswith(("ln", "norm", "rms")):
        return "norm"
    return "elementwise"


def kernel_class(kclass, name):
    n = name.lower()
    if "gammabeta" in n or kclass == "layernorm":
        return "norm"
    if "fusedoptimizer" in n or kclass == "adam" or (kclass == "copy_cast" and "cat" not in n):
        return "optimizer"
    if kclass in ("gemm", "attention"):
        return kclass
    return "elementwise"


def model_ms(gpusim, scenario, hw):
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "t.json")
        p = subprocess.run([gpusim, "predict", scenario, "--hw", hw, "--trace", trace, "--trace-ranks", "stages"],
                           capture_output=True, text=True)
        if p.returncode:
            sys.exit(p.stderr)
        ev = json.load(open(trace))
    ev = ev["traceEvents"] if isinstance(ev, dict) else ev
    out = collections.Counter()
    for e in ev:
        if e.get("ph") == "X":
            out[model_class(e["name"])] += e["dur"] / 1e3
    return out


def profile_ms(path, label):
    out = collections.Counter()
    for row in csv.reader(open(path)):
        if row and row[0] == label:
            out[kernel_class(row[1], ",".join(row[2:-2]))] += float(row[-1]) / 1e3
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    scenario, hw = sys.argv[1:3]
    prof = profile_ms(*sys.argv[3:5]) if len(sys.argv) > 4 else None
    gpusim = sys.argv[5] if len(sys.argv) > 5 else "build/gpusim"
    mod = model_ms(gpusim, scenario, hw)
    print("%-12s %10s %10s" % ("class (ms)", "model", "profile" if prof else ""))
    for c in CLASSES + ("sum",):
        m = sum(mod.values()) if c == "sum" else mod[c]
        p = (sum(prof.values()) if c == "sum" else prof[c]) if prof else None
        print("%-12s %10.1f %10s" % (c, m, "%.1f" % p if p is not None else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
