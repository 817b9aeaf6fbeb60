#!/usr/bin/env python3
"""validate/op_classes.py: a step's GPU time by class, the model's beside a profile's, as docs/validation.md's
kernel-by-kernel tables print them ("Why the calibrated H100 is fast on GPU-bound rows").

The model: `gpusim predict SCENARIO --hw HW --trace T --trace-ranks stages`, each compute op of the trace summed into
a class by its name. The profile (optional): validate/runner/kernel_profile.py's `--kernels` CSV for that row, each
kernel summed into the same classes (the fused optimizer's kernel and the step's casts count as the optimizer, as
the model's `optimizer` op holds both; LayerNorm's weight-gradient kernel counts as the norm).

The engine scales a stage's compute segments as a whole by its clock speed (docs/simulation.md, "Power cap"); the
timeline divides each segment among its ops at their own speeds (GEMMs at v, attention at u: sim/engine.c
trace_segment, since 2026-11-27 evening; before, every op carried the segment's average speed), so the trace's
classes are the model's split. `--implied` computes the same split without the trace, as a check: the classes at their nominal times (the hardware file with burst_speedup 1: GEMMs
at their sustained rates, attention at its maximum-clock rate), then the GEMMs at v and the attention at u, the
critical stage's speeds `gpusim predict` reports (its `power cap` line, JSON `clock`); for a one-GPU step, whose
one stage is the critical one.

usage: validate/op_classes.py [--implied] SCENARIO HW [KERNELS.csv LABEL] [GPUSIM]     (from the repository root)
e.g.   validate/op_classes.py scenarios/validate/t07-single.yaml hardware/h100x1-1127-measured.yaml \\
           validate/runs/2026-11-27-h100x1/kernels.csv t07-single build/gpusim
"""
import collections
import csv
import json
import os
import re
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


def implied(gpusim, scenario, hw):
    """The model's classes at their own speeds (see the module's comment), with v and u as `gpusim predict`
    reports them (JSON `clock`)."""
    p = subprocess.run([gpusim, "predict", scenario, "--hw", hw, "--format", "json"], capture_output=True, text=True)
    if p.returncode:
        sys.exit(p.stderr)
    clock = json.loads(p.stdout).get("clock")
    if not clock:
        sys.exit("%s: gpusim reports no power cap speeds (no attention clock law): the trace's split is the model's"
                 % hw)
    text = open(hw).read()
    i = text.find("\n  power:")  # gpu.power's (meta.sustained has a burst_speedup of its own, before it)
    with tempfile.TemporaryDirectory() as tmp:
        nom = os.path.join(tmp, "nominal.yaml")
        with open(nom, "w") as f:
            f.write(text[:i] + re.sub(r"(\n\s+burst_speedup: )[0-9.eE+-]+", r"\g<1>1", text[i:], count=1))
        nominal = model_ms(gpusim, scenario, nom)
    v, u = clock["gemm_speed"], clock["attention_speed"]
    out = collections.Counter(nominal)
    out["gemm"], out["attention"] = nominal["gemm"] / v, nominal["attention"] / u
    return out, v, u, nominal


def main():
    args = sys.argv[1:]
    imp = bool(args) and args[0] == "--implied"
    args = args[1:] if imp else args
    if len(args) < 2:
        sys.exit(__doc__)
    scenario, hw = args[0:2]
    prof = profile_ms(*args[2:4]) if len(args) > 3 else None
    gpusim = args[4] if len(args) > 4 else "build/gpusim"
    if imp:
        mod, v, u, nominal = implied(gpusim, scenario, hw)
        print("# implied: the GEMMs at %.3f of their sustained rate, the attention at %.3f of its maximum-clock rate"
              % (v, u))
        if prof and prof["gemm"] > 0 and prof["attention"] > 0:
            print("# profile: the GEMMs at %.3f, the attention at %.3f (their nominal time over the profiled)"
                  % (nominal["gemm"] / prof["gemm"], nominal["attention"] / prof["attention"]))
    else:
        mod = model_ms(gpusim, scenario, hw)
    print("%-12s %10s %10s" % ("class (ms)", "model", "profile" if prof else ""))
    for c in CLASSES + ("sum",):
        m = sum(mod.values()) if c == "sum" else mod[c]
        p = (sum(prof.values()) if c == "sum" else prof[c]) if prof else None
        print("%-12s %10.1f %10s" % (c, m, "%.1f" % p if p is not None else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
