#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Does one torch.profiler session (CUDA activity) make the rest of the process slower on the host?

PyTorch's profiler leaves CUPTI attached after the session unless TEARDOWN_CUPTI=1 (pytorch/pytorch#144455: "the
profiler slowed down training by roughly 10-20 % even after completion"). validate/runner/torch_step.py --probe
(device-run.sh's one-GPU phase) and calibrate/torch_kernels.py count kernels with the profiler in the process that
then times steps or host rows, so a lasting cost would bias every host-bound reference step and host probe.

This times, in one process, eager forward+backward of a small stack (host-bound: its kernels take a few us) in
--rounds rounds, then runs one profiler session over one call, then times --rounds rounds again. Prints one CSV
line per round (phase,round,us_per_step) and a summary line: the median after over the median before.
Run it with and without TEARDOWN_CUPTI=1 (validate/runner/cupti-after.sh does both, with the reference rows).

usage: validate/runner/cupti_after.py [--rounds 7] [--steps 50] [--no-profile]   (needs a CUDA GPU; exit 77 without)
"""
import argparse
import os
import statistics
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--no-profile", action="store_true", help="the control: no profiler session in between")
    a = ap.parse_args()
    import torch
    if not torch.cuda.is_available():
        print("cupti_after: no CUDA device", file=sys.stderr)
        return 77
    dev = torch.device("cuda", 0)
    torch.manual_seed(0)
    layers = [torch.nn.Linear(256, 256, device=dev, dtype=torch.bfloat16) for _ in range(8)]
    norms = [torch.nn.LayerNorm(256, device=dev, dtype=torch.bfloat16) for _ in range(8)]
    x = torch.randn(16, 256, device=dev, dtype=torch.bfloat16)
    dy = torch.randn_like(x)

    def step():
        h = x
        for lin, nrm in zip(layers, norms):
            h = h + torch.nn.functional.gelu(lin(nrm(h)))
        h.backward(dy)

    def rounds(phase):
        res = []
        for i in range(a.rounds):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(a.steps):
                step()
            torch.cuda.synchronize()
            us = (time.perf_counter() - t0) / a.steps * 1e6
            res.append(us)
            print("%s,%d,%.1f" % (phase, i, us), flush=True)
        return statistics.median(res)

    for _ in range(20):
        step()
    torch.cuda.synchronize()
    print("phase,round,us_per_step")
    before = rounds("before")
    if not a.no_profile:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            step()
            torch.cuda.synchronize()
        n = sum(1 for e in prof.events() if str(e.device_type).endswith("CUDA"))
        del prof
    else:
        n = 0
    after = rounds("after")
    print("# TEARDOWN_CUPTI=%s profile=%s kernels=%d: before %.1f us, after %.1f us a step: x%.3f" % (
        os.environ.get("TEARDOWN_CUPTI", "unset"), "no" if a.no_profile else "yes", n, before, after,
        after / before), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
