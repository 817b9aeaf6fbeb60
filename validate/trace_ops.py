#!/usr/bin/env python3
"""validate/trace_ops.py: whose kernels a profiled step launched, and what gpusim's timeline has for an op.

A torch.profiler trace with CPU ops and kernels (the CPU-side traces of validate/runner/mp_profile.py,
*-cpu-r<rank>.json.gz): each kernel (and memset) is joined through its launch (the runtime call of the same
correlation id) to the CPU ops around that launch; prints, per innermost three ops (or per the first enclosing op
whose name holds --parent), how many kernels and their GPU time, for the kernels whose name holds --kernel.
A gpusim timeline (`gpusim predict --trace FILE`; --gpusim): the ops of the first traced GPU by name, their count
and time, those whose name starts with --op.

usage: validate/trace_ops.py TRACE [--kernel TEXT] [--parent TEXT] [--top N]
       validate/trace_ops.py --gpusim TRACE [--op NAME]
e.g.   validate/trace_ops.py validate/runs/2026-11-27-h200x4-late/layout-power/prof/t07-pp2-1f1b-cpu-r1.json.gz \\
           --kernel Memset
       validate/trace_ops.py ...-cpu-r1.json.gz --parent AccumulateGrad
       build/gpusim predict scenarios/validate/t07-pp2-1f1b.yaml --hw hardware/h200x4-1128a-measured.yaml \\
           --trace /tmp/t.json --trace-ranks critical && validate/trace_ops.py --gpusim /tmp/t.json --op grad_accumulate
"""
import argparse
import collections
import gzip
import json
import sys


def load(path):
    with gzip.open(path) if path.endswith(".gz") else open(path) as f:
        d = json.load(f)
    return d["traceEvents"] if isinstance(d, dict) else d


def torch_ops(ev, kernel, parent, top):
    ops = collections.defaultdict(list)  # tid -> cpu ops
    for e in ev:
        if e.get("cat") == "cpu_op" and e.get("ph") == "X":
            ops[e["tid"]].append(e)
    launch = {e["args"]["correlation"]: e for e in ev
              if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})}
    n, t = collections.Counter(), collections.Counter()
    for k in ev:
        if k.get("cat") not in ("kernel", "gpu_memset") or kernel not in k["name"]:
            continue
        lc = launch.get(k.get("args", {}).get("correlation"))
        if lc is None:
            if parent:
                continue
            key = "(no launch found)"
        else:
            enc = sorted((o for o in ops[lc["tid"]] if o["ts"] <= lc["ts"] and o["ts"] + o["dur"] >= lc["ts"] +
                          lc["dur"]), key=lambda o: o["dur"])
            if parent:
                hit = [o["name"] for o in enc if parent in o["name"]]
                if not hit:
                    continue
                key = hit[0]
            else:
                key = " < ".join(o["name"] for o in enc[:3]) or "(no CPU op)"
        n[key] += 1
        t[key] += k["dur"]
    print(f"{'kernels':>8} {'GPU us':>10}  CPU ops around the launch")
    for key, c in n.most_common(top):
        print(f"{c:8d} {t[key]:10.1f}  {key}")
    print(f"{sum(n.values()):8d} {sum(t.values()):10.1f}  in all")


def gpusim_ops(ev, op):
    pid = next((e["pid"] for e in ev if e.get("ph") == "X" and e.get("cat") == "compute"), None)
    n, t = collections.Counter(), collections.Counter()
    for e in ev:
        if e.get("ph") == "X" and e.get("pid") == pid and e.get("cat"):
            name = e["name"].split("(")[0].split(" ")[0]
            if name.startswith(op):
                n[name] += 1
                t[name] += e["dur"]
    print(f"{'ops':>6} {'us':>10} {'us each':>9}  op")
    for name, c in sorted(n.items(), key=lambda kv: -t[kv[0]]):
        print(f"{c:6d} {t[name]:10.1f} {t[name] / c:9.1f}  {name}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--gpusim", action="store_true", help="TRACE is gpusim's timeline")
    ap.add_argument("--kernel", default="")
    ap.add_argument("--parent", default="")
    ap.add_argument("--op", default="")
    ap.add_argument("--top", type=int, default=12)
    a = ap.parse_args()
    try:
        ev = load(a.trace)
    except (OSError, ValueError) as err:
        print(f"trace_ops: {a.trace}: {err}", file=sys.stderr)
        return 1
    if a.gpusim:
        gpusim_ops(ev, a.op)
    else:
        torch_ops(ev, a.kernel, a.parent, a.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
