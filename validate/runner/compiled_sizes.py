#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""torch.compile's host rows (calibrate/torch_kernels.py compiled_rows: stacks of 1, 2, 4 runner layers compiled as
the runner compiles its module) at the probe's size and at a row's: does inductor launch more kernels per layer,
and does a layer cost the host more, at the shapes a step runs? `gpusim calibrate` fits host.compiled from the
probe's size (16 tokens x 256); t05-single-compiled (4 layers of 1024 on 1024 tokens, one micro-batch) is
predicted 12-44 % fast on six H200 leases with their own calibrations while its eager twin scores within a few
percent (docs/validation.md). Prints the rows of each size as calibrate's CSV has them (`host,compiled_*`), the
size in a comment line before them.

usage: validate/runner/compiled_sizes.py [--sizes 16x256,1024x1024] [--rounds 3]      (GPU machine only)
"""
import argparse
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "calibrate"))
import torch  # noqa: E402
import torch_kernels  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="16x256,1024x1024")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    torch.cuda.set_device(0)
    print("section,name,size,bytes,kernels,us")
    for spec in a.sizes.split(","):
        tokens, h = (int(v) for v in spec.split("x"))
        out = []
        try:
            torch_kernels.compiled_rows(out, tokens=tokens, h=h, rounds=a.rounds)
        except Exception as e:  # noqa: BLE001
            out.append("# failed: %s: %s" % (type(e).__name__, str(e).splitlines()[0][:120] if str(e) else ""))
        print("# size %d tokens x %d" % (tokens, h), flush=True)
        for line in out:
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
