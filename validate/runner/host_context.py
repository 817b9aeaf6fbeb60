#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Does eager PyTorch's host cost depend on the process that pays it? (docs/validation.md, "Host-sensitive rows")

Answered for one GPU on 2026-11-28 (docs/validation.md, "A profiler session left CUPTI attached"): a process that
holds a model reads the host as a fresh one does; what had made the reference steps dearer than every probe was a
profiler session earlier in their process. What is left is on the rows of several GPUs: they pay more host time
than the one-process probe reads, on ten of eleven leases. So this runs, in each process of a job (one process on
one GPU, or under torchrun one per rank, as the runner's rows of that many GPUs run):

  1. the host-class rows of `gpusim calibrate --kernels torch` (calibrate/torch_kernels.py host_class_rows), fresh,
     on every rank at once (as a job's processes share the host); with several ranks, then on rank 0 alone while
     the others wait (`host-fresh-alone.csv`): whether the other processes make an op dearer;
  2. for each row of that many GPUs (validate/runner/configs.py, built and stepped exactly as
     validate/runner/torch_step.py does): warm-up steps, then --iters timed steps (`before`), then the host-class
     rows again on every rank with the row's model, optimizer state, process groups and DDP reducer alive, then
     --iters timed steps (`after`); the row is freed as the runner frees it;
  3. the host-class rows once more, after every row.

Files in --out DIR (with several ranks each name ends in -rankN before .csv): host-fresh.csv, host-in-ROW.csv (one
per row), host-end.csv (each `section,name,size,bytes,kernels,us` as torch_kernels.py writes them:
`validate/what_if.py TABLE HW --host-rows FILE` refits a calibration with them), steps.csv (label,phase,step,step_s,
host_s: each timed step and its host part, the enqueue before the device sync, as torch_step.py --steps writes
them) and host-context.log. Then: the same calibration refitted with each probe, predicting the same rows, says
whether the probe taken inside the job's processes reads what the steps pay.

usage: validate/runner/host_context.py --out DIR [--rows t04-single,t05-single,m01-single,m02-single]
                                       [--rounds 5] [--warmup 5] [--iters 10]
       torchrun --standalone --nproc_per_node=2 validate/runner/host_context.py --out DIR
                                       [--rows t04-dp2,t03-dp2,t05-tp2,t04-pp2-1f1b,m02-dp2]
Needs a CUDA GPU (exit 77 without one).
"""
import argparse
import contextlib
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
    import torch.distributed as dist
    import torch_step
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    dev = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
    torch.cuda.set_device(dev)
    if world > 1:
        dist.init_process_group("nccl")
    tag = "-rank%d" % rank if world > 1 else ""

    def name(stem):
        return os.path.join(a.out, "%s%s.csv" % (stem, tag))

    rows = [r for r in configs.select(a.rows) if r["gpus"] == world]
    if not rows:
        print("host_context: no rows of %d GPU(s) in %s" % (world, a.rows), file=sys.stderr)
        return 2
    os.makedirs(a.out, exist_ok=True)
    args = types.SimpleNamespace(cpu=False, tiny=False, check=False, warmup=a.warmup, iters=a.iters, steps=None)
    torch_step.warm_gpu(dev, 2.0)
    torch_step.barrier(dev)
    log = ["fresh probe%s: %.1f s" % (", every rank at once" if world > 1 else "",
                                       probe(name("host-fresh"), a.rounds, "fresh process, rank %d of %d" % (
                                           rank, world)))]
    torch_step.barrier(dev)
    if world > 1:
        if rank == 0:
            log.append("fresh probe, rank 0 alone: %.1f s" % probe(name("host-fresh-alone"), a.rounds,
                                                                   "fresh process, rank 0 alone"))
        torch_step.barrier(dev)
    print("\n".join(log), flush=True)
    steps = ["label,phase,step,step_s,host_s"]
    cache = {}
    for r in rows:
        ctx = contextlib.nullcontext()
        if torch_step.sdpa_kernel is not None and r["kind"] == "transformer":
            ctx = torch_step.sdpa_kernel([torch_step.SDPBackend.FLASH_ATTENTION])
        lay = torch_step.Layout(r, rank, world, cache)
        with ctx:
            row = torch_step.Row(r, args, lay, dev)
            torch_step.timed_steps(row, dev, a.warmup)
            got = {"before": torch_step.timed_steps(row, dev, a.iters)}
            torch_step.barrier(dev)
            s = probe(name("host-in-%s" % r["label"]), a.rounds,
                      "with %s's model, optimizer and inputs alive, after %d steps, rank %d of %d" % (
                          r["label"], a.warmup + a.iters, rank, world))
            got["after"] = torch_step.timed_steps(row, dev, a.iters)
        for phase, ts in got.items():
            steps += ["%s,%s,%d,%.7f,%.7f" % (r["label"], phase, i, t, h) for i, (t, h) in enumerate(ts)]
        med = {p: statistics.median(t for t, _ in ts) * 1e3 for p, ts in got.items()}
        log.append("%s: steps %.2f ms before, %.2f ms after the probe inside it (%.1f s)" % (
            r["label"], med["before"], med["after"], s))
        print(log[-1], flush=True)
        ddp = lay.dp > 1 and lay.pp == 1
        del row
        torch_step.release_row(dev, torch_step.row_groups(lay), torch_step.RELEASE_SETTLE_S if ddp else 0.0)
    torch_step.barrier(dev)
    log.append("end probe: %.1f s" % probe(name("host-end"), a.rounds, "after every row, rank %d of %d" % (
        rank, world)))
    print(log[-1], flush=True)
    with open(os.path.join(a.out, "steps%s.csv" % tag), "w") as f:
        f.write("\n".join(steps) + "\n")
    with open(os.path.join(a.out, "host-context%s.log" % tag), "w") as f:
        f.write("\n".join(log) + "\n")
    if world > 1:
        torch_step.barrier(dev)
        dist.destroy_process_group()
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="folder for the CSVs")
    ap.add_argument("--rows", default="t04-single,t05-single,m01-single,m02-single",
                    help="rows of validate/runner/configs.py of as many GPUs as ranks (comma list)")
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
