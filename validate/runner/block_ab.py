#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Host cost of one transformer layer as calibrate measures it and as the reference rows run it, in one process,
in turn: which of the two codes, and which tensor size, the host-bound rows' extra host time comes from.

On the 1 x H200 lease of 2026-11-28 10:00 the rows' host part (validate/host_speed.py) was 1.20-1.36x what gpusim
predicted from that lease's own host probe taken a minute before, on the transformer rows, and 0.8-1.0x on the
MLP rows; the probe's tensor size did not explain it (16 or 4096 tokens: block 1111 / 863 and 1124 / 1014 us).
This times, per layer, forward and backward (host us, the step enqueued before its sync, median of REPS):
  calib    calibrate/torch_kernels.py's standard block (block_host): the `host,block_*` rows
  runner   validate/runner/torch_step.py's Block in its Stage, parameters and gradients as the rows have them
           (FlatAdam: views into one flat buffer each), gradients accumulated into the existing ones
  runner_plain  the same Stage with plain parameters and their own .grad tensors
each at every size of --sizes (TOKENSxHIDDEN, 8 layers; default 16x256, the probe's, and 1024x1024, t04-single's
layer); ROUNDS rounds in turn, one CSV line per (round, code, size): round,code,tokens,hidden,fwd_us,bwd_us,
backlog_us (the GPU's backlog after the timed call: far below the host time, the host was the slower side).

usage: validate/runner/block_ab.py [--rounds 5] [--reps 15] [--sizes 16x256,1024x1024] [--codes calib,runner,...]
                                   [--out FILE.csv]      (GPU machine only)
"""
import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("TEARDOWN_CUPTI", "1")
import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "..", "calibrate"))
import torch_kernels  # noqa: E402
import torch_step  # noqa: E402


def runner_layer(dev, tokens, hidden, layers, flat, reps):
    r = dict(kind="transformer", layers=layers, hidden=hidden, heads=max(1, hidden // 64), kv_heads=max(1, hidden // 64),
             ffn="gelu", ffn_hidden=4 * hidden, seq=tokens, mb=1, vocab=0, dp=1, tp=1, pp=1)
    model = torch_step.Stage(r, torch_step.Layout(r, 0, 1, {}), torch_step.Init(dev, torch.bfloat16))
    if flat:
        torch_step.FlatAdam(model.parameters(), fused=True)  # views into a flat buffer, .grad views too
    else:
        for p in model.parameters():
            p.grad = torch.zeros_like(p)
    st = {}

    def mk_fwd():
        st.clear()
        st["x"] = torch.randn(1, tokens, hidden, device=dev, dtype=torch.bfloat16, requires_grad=True)
        return st

    def fwd(s):
        s["y"] = model(s["x"])

    def mk_bwd():
        y = model(torch.randn(1, tokens, hidden, device=dev, dtype=torch.bfloat16, requires_grad=True))
        return (y, torch.randn_like(y))
    f, bf = torch_kernels.host_timed(mk_fwd, fwd, reps)
    b, bb = torch_kernels.host_timed(mk_bwd, lambda s: torch.autograd.backward(s[0], s[1]), reps)
    return f / layers, b / layers, max(bf, bb)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--sizes", default="16x256,1024x1024")
    ap.add_argument("--codes", default="calib,runner,runner_plain")
    ap.add_argument("--out")
    a = ap.parse_args()
    sizes = [tuple(int(v) for v in x.split("x")) for x in a.sizes.split(",")]
    codes = a.codes.split(",")
    dev = torch.device("cuda", 0)
    torch.cuda.set_device(dev)
    lines = ["round,code,tokens,hidden,fwd_us,bwd_us,backlog_us"]
    t0 = time.perf_counter()
    with torch_step.flash_ctx():
        for rd in range(a.rounds):
            for tokens, hidden in sizes:
                if "calib" in codes:
                    f, b, k = torch_kernels.block_host(tokens, hidden, dev)
                    lines.append("%d,calib,%d,%d,%.2f,%.2f,%.1f" % (rd, tokens, hidden, f, b, k))
                for code, flat in (("runner", True), ("runner_plain", False)):
                    if code not in codes:
                        continue
                    f, b, k = runner_layer(dev, tokens, hidden, 8, flat, a.reps)
                    lines.append("%d,%s,%d,%d,%.2f,%.2f,%.1f" % (rd, code, tokens, hidden, f, b, k))
                torch.cuda.empty_cache()
    text = "\n".join(lines) + "\n"
    if a.out:
        with open(a.out, "w") as fh:
            fh.write(text)
    sys.stdout.write(text)
    # the medians over rounds, per code and size
    rows = [ln.split(",") for ln in lines[1:]]
    for tokens, hidden in sizes:
        for code in codes:
            sel = [r for r in rows if r[1] == code and int(r[2]) == tokens and int(r[3]) == hidden]
            print("# %-13s %5d tokens x %4d: fwd %7.1f  bwd %7.1f  us per layer (median of %d rounds)" % (
                code, tokens, hidden, statistics.median(float(r[4]) for r in sel),
                statistics.median(float(r[5]) for r in sel), len(sel)))
    print("# %.1f s" % (time.perf_counter() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
