#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Host cost of eager PyTorch per layer, at the hidden sizes of the reference rows: the forward and backward of
8 transformer (or MLP) layers built like validate/runner/torch_step.py's, fed 16 tokens so the GPU work is negligible and
the time is what the host needs to issue one layer's kernels. Prints one CSV line per (kind, hidden): us per
layer fwd+bwd, kernels per layer. Runs on the GPU machine only.

usage: validate/runner/host_probe.py [--hidden 256,1024,2048,4096] [--out FILE.csv]
"""
import argparse
import contextlib
import os
import sys
import time

# A torch.profiler session leaves CUPTI attached for the rest of the process unless TEARDOWN_CUPTI=1, and eager
# PyTorch's host cost is 30-45 % higher after it (validate/runner/cupti-after.sh; docs/validation.md, "CUPTI").
os.environ.setdefault("TEARDOWN_CUPTI", "1")
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_step  # noqa: E402


def probe(dev, kind, hidden, layers=8, tokens=16):
    heads = max(1, hidden // 128)
    r = dict(kind=kind, layers=layers, hidden=hidden, heads=heads, kv_heads=heads, ffn="gelu",
             ffn_hidden=4 * hidden, seq=tokens, mb=1, vocab=0, dp=1, tp=1, pp=1)
    ini = torch_step.Init(dev, torch.bfloat16)
    if kind == "transformer":
        model = torch_step.Stage(r, torch_step.Layout(r, 0, 1, {}), ini)
        shape = (1, tokens, hidden)
    else:
        model = torch_step.MLP(r, ini)
        shape = (tokens, hidden)
    x = torch.randn(shape, device=dev, dtype=torch.bfloat16)
    dy = torch.randn(shape, device=dev, dtype=torch.bfloat16)
    ctx = contextlib.nullcontext()
    if torch_step.sdpa_kernel is not None and kind == "transformer":
        ctx = torch_step.sdpa_kernel([torch_step.SDPBackend.FLASH_ATTENTION])
    with ctx:
        for _ in range(5):
            model(x).backward(dy)
        torch.cuda.synchronize()
        n = 30
        t0 = time.perf_counter()
        for _ in range(n):
            model(x).backward(dy)
        torch.cuda.synchronize()
        us = (time.perf_counter() - t0) / (n * layers) * 1e6
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            model(x).backward(dy)
            torch.cuda.synchronize()
        kernels = sum(1 for e in prof.events() if str(e.device_type).endswith("CUDA")) / layers
    return us, kernels


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hidden", default="256,1024,2048,4096")
    ap.add_argument("--out")
    a = ap.parse_args()
    dev = torch.device("cuda", 0)
    torch.cuda.set_device(dev)
    lines = ["kind,hidden,us_per_layer,kernels_per_layer"]
    for kind in ("transformer", "mlp"):
        for h in (int(v) for v in a.hidden.split(",")):
            us, k = probe(dev, kind, h)
            lines.append("%s,%d,%.1f,%.1f" % (kind, h, us, k))
            print(lines[-1], flush=True)
    if a.out:
        with open(a.out, "w") as f:
            f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
