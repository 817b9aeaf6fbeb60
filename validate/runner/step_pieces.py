#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Where a reference row's host time goes, piece by piece, without a profiler (validate/runner/torch_step.py's own
Row, one GPU): each timed step's zero_grad, every micro-batch's forward and backward call, and the optimizer step,
each timed on the host with time.perf_counter (the host's issue time: nothing in them waits for the GPU), in two
ways, in turn:
  busy   the step as the runner runs it: no synchronisation inside the step, so the GPU works behind the host
  idle   a device synchronisation before each piece: every piece starts with the GPU idle, as calibrate's host
         probe times its ops (calibrate/torch_kernels.py host_timed)
A piece that costs the host more in `busy` than in `idle` costs more while the GPU is busy behind it, which a probe
whose GPU work is negligible does not see. Prints, per row and way, the medians over STEPS steps (and over the
micro-batches) in ms: zero_grad, forward, backward, optimizer, the sum, and the step's own host part (busy only).

A compiled row (t05-single-compiled) is compiled in the three untimed steps before; its forward piece is the
compiled graph's call, its backward the compiled backward graph with the parameters' eager AccumulateGrad.

usage: validate/runner/step_pieces.py [--rows t04-single,t05-single,t03-single,m02-single] [--steps 8]
       [--out FILE.csv]      (GPU machine only; rows of one GPU, eager or compiled)
"""
import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("TEARDOWN_CUPTI", "1")
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import configs  # noqa: E402
import torch_step  # noqa: E402


def timed_step(row, dev, idle):
    """One step of row (one GPU, no pipeline) with its pieces timed: {piece: [seconds]} and the step's host part."""
    def clock():
        if idle:
            torch.cuda.synchronize(dev)
        return time.perf_counter()
    t = {"zero_grad": [], "forward": [], "backward": [], "optimizer": []}
    torch.cuda.synchronize(dev)
    start = time.perf_counter()
    c = clock()
    row.opt.zero_grad()
    t["zero_grad"].append(time.perf_counter() - c)
    for i in range(row.m):
        c = clock()
        y = row._fwd(i, row.x[i])
        t["forward"].append(time.perf_counter() - c)
        c = clock()
        row._bwd(i, None, y, row.dy[i])
        t["backward"].append(time.perf_counter() - c)
        del y
    c = clock()
    row.opt.step()
    t["optimizer"].append(time.perf_counter() - c)
    host = time.perf_counter() - start
    torch.cuda.synchronize(dev)
    return t, host


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", default="t04-single,t05-single,t03-single,m02-single")
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--out")
    a = ap.parse_args()
    dev = torch.device("cuda", 0)
    torch.cuda.set_device(dev)
    args = argparse.Namespace(cpu=False, check=False)
    lines = ["label,way,step,piece,index,ms"]
    summary = []
    for r in configs.select(a.rows):
        if r["gpus"] != 1:
            continue
        lay = torch_step.Layout(r, 0, 1, {})
        with torch_step.flash_ctx(r):
            row = torch_step.Row(r, args, lay, dev)
            for _ in range(3):  # a compiled row compiles its forward and backward graphs here
                row.step()
            torch.cuda.synchronize(dev)
            got = {"busy": [], "idle": []}
            for s in range(a.steps):
                for way in ("busy", "idle"):
                    t, host = timed_step(row, dev, way == "idle")
                    got[way].append((t, host))
                    for piece, v in t.items():
                        for k, x in enumerate(v):
                            lines.append("%s,%s,%d,%s,%d,%.4f" % (r["label"], way, s, piece, k, x * 1e3))
                    lines.append("%s,%s,%d,host,0,%.4f" % (r["label"], way, s, host * 1e3))
        del row
        torch.cuda.empty_cache()
        for way in ("busy", "idle"):
            med = {p: statistics.median(x for t, _ in got[way] for x in t[p]) * 1e3 for p in got[way][0][0]}
            tot = statistics.median(sum(sum(v) for v in t.values()) for t, _ in got[way]) * 1e3
            host = statistics.median(h for _, h in got[way]) * 1e3
            summary.append("# %-12s %s: zero_grad %.3f  forward %.3f  backward %.3f (x%d micro-batches)  optimizer %.3f"
                           "  sum %.2f  host part %.2f ms" % (r["label"], way, med["zero_grad"], med["forward"],
                                                              med["backward"], row_m(r), med["optimizer"], tot, host))
    text = "\n".join(lines) + "\n"
    if a.out:
        with open(a.out, "w") as fh:
            fh.write(text)
    print("\n".join(summary))
    return 0


def row_m(r):
    return r["m"]


if __name__ == "__main__":
    sys.exit(main())
