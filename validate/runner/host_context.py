#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Does eager PyTorch's host cost depend on the process that pays it? (docs/validation.md, "Host-sensitive rows")

Every host probe gpusim has read the host cheaper than the host-bound reference steps pay on the same lease (27 of
30 probes on ten leases). The probe times op classes on 16 x 256 tensors in a process that holds little; a training
process holds a model, its optimizer state, an autograd graph and a warm caching allocator. This runs, in ONE
process on one GPU:

  1. the host-class rows of `gpusim calibrate --kernels torch` (calibrate/torch_kernels.py host_class_rows), fresh;
  2. for each row (single-GPU rows of validate/runner/configs.py, built and stepped exactly as
     validate/runner/torch_step.py does): warm-up steps, then --iters timed steps (`before`), then the host-class
     rows again with the row's model, optimizer state and inputs alive, then --iters timed steps (`after`); the row
     is freed;
  3. the host-class rows once more, after every row.

Files in --out DIR: host-fresh.csv, host-in-ROW.csv (one per row), host-end.csv (each `section,name,size,bytes,
kernels,us` as torch_kernels.py writes them: `validate/what_if.py TABLE HW --host-rows FILE` refits a calibration
with them) and steps.csv (label,phase,step,step_s,host_s: each timed step and its host part, the enqueue before the
device sync, as torch_step.py --steps writes them). Then: the same calibration refitted with each probe, predicting
the same rows, says whether the probe taken inside the training process reads what the steps pay.

usage: validate/runner/host_context.py --out DIR [--rows t04-single,t05-single,m01-single,m02-single]
                                       [--rounds 5] [--warmup 5] [--iters 10]
Needs a CUDA GPU (exit 77 without one).
"""
import argparse
import contextlib
import gc
import os
import statistics
import sys
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "calibrate"))

# A torch.profiler session leaves CUPTI attached for the rest of the process unless TEARDOWN_CUPTI=1, and eager
# PyTorch's host cost is 30-45 % higher after it (validate/runner/cupti-after.sh; docs/validation.md, "CUPTI").
os.environ.setdefault("TEARDOWN_CUPTI", "1")
import torch  # noqa: E402

import configs  # noqa: E402

HEADER = "section,name,size,bytes,kernels,us"


def probe(path, rounds, note):
    """the host-class rows now, into path; returns the seconds it took"""
    import torch_kernels
    t0 = time.perf_counter()
    out = []
    torch_kernels.host_class_rows(out, rounds=rounds)
    with open(path, "w") as f:
        f.write("# %s; torch %s, %s\n" % (note, torch.__version__, torch.cuda.get_device_name(0)))
        f.write(HEADER + "\n")
        for line in out:
            f.write(line + "\n")
    return time.perf_counter() - t0


def run(a):
    import torch_step
    dev = torch.device("cuda", 0)
    torch.cuda.set_device(dev)
    rows = [r for r in configs.select(a.rows) if r["gpus"] == 1]
    if not rows:
        print("host_context: no single-GPU rows in %s" % a.rows, file=sys.stderr)
        return 2
    os.makedirs(a.out, exist_ok=True)
    args = types.SimpleNamespace(cpu=False, tiny=False, check=False, warmup=a.warmup, iters=a.iters, steps=None)
    torch_step.warm_gpu(dev, 2.0)
    log = ["fresh probe: %.1f s" % probe(os.path.join(a.out, "host-fresh.csv"), a.rounds, "fresh process")]
    print(log[-1], flush=True)
    steps = ["label,phase,step,step_s,host_s"]
    for r in rows:
        ctx = contextlib.nullcontext()
        if torch_step.sdpa_kernel is not None and r["kind"] == "transformer":
            ctx = torch_step.sdpa_kernel([torch_step.SDPBackend.FLASH_ATTENTION])
        with ctx:
            row = torch_step.Row(r, args, torch_step.Layout(r, 0, 1, {}), dev)
            torch_step.timed_steps(row, dev, a.warmup)
            got = {"before": torch_step.timed_steps(row, dev, a.iters)}
            s = probe(os.path.join(a.out, "host-in-%s.csv" % r["label"]), a.rounds,
                      "with %s's model, optimizer and inputs alive, after %d steps" % (r["label"],
                                                                                        a.warmup + a.iters))
            got["after"] = torch_step.timed_steps(row, dev, a.iters)
        for phase, ts in got.items():
            steps += ["%s,%s,%d,%.7f,%.7f" % (r["label"], phase, i, t, h) for i, (t, h) in enumerate(ts)]
        med = {p: statistics.median(t for t, _ in ts) * 1e3 for p, ts in got.items()}
        log.append("%s: steps %.2f ms before, %.2f ms after the probe inside it (%.1f s)" % (
            r["label"], med["before"], med["after"], s))
        print(log[-1], flush=True)
        del row
        gc.collect()
        torch.cuda.empty_cache()
    log.append("end probe: %.1f s" % probe(os.path.join(a.out, "host-end.csv"), a.rounds, "after every row"))
    print(log[-1], flush=True)
    with open(os.path.join(a.out, "steps.csv"), "w") as f:
        f.write("\n".join(steps) + "\n")
    with open(os.path.join(a.out, "host-context.log"), "w") as f:
        f.write("\n".join(log) + "\n")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="folder for the CSVs")
    ap.add_argument("--rows", default="t04-single,t05-single,m01-single,m02-single",
                    help="single-GPU rows of validate/runner/configs.py (comma list)")
    ap.add_argument("--rounds", type=int, default=5, help="rounds of each host-class probe (calibrate's: 5)")
    ap.add_argument("--warmup", type=int, default=configs.WARMUP_STEPS)
    ap.add_argument("--iters", type=int, default=configs.TIMED_STEPS)
    a = ap.parse_args()
    if not torch.cuda.is_available():
        print("host_context: no CUDA GPU here", file=sys.stderr)
        return 77
    return run(a)


if __name__ == "__main__":
    sys.exit(main())
