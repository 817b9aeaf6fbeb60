#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Where a multi-GPU reference step's time goes, on every rank (issue 11: TP=2 on narrow models slower than one GPU,
and predicted on the wrong side of 1). Runs rows of validate/runner/configs.py exactly as validate/runner/torch_step.py
does, under torchrun, and on each rank:

  1. times 5 unprofiled steps (barrier and device sync around each, as torch_step times them): the wall;
  2. profiles one step with CUDA activity only (CUPTI: little host overhead), and one with CPU and CUDA activity
     (the launch calls, the autograd and c10d operators and their host time), and writes both as Chrome traces
     (DIR/LABEL-gpu-rRANK.json.gz, DIR/LABEL-cpu-rRANK.json.gz) for validate/runner/mp_trace.py to read here;
  3. prints one summary line per rank: wall, GPU busy by kernel class (nccl apart), GPU idle inside the step's
     span, the NCCL kernels' count and time, and the host's time to enqueue the step (first to last launch call).

Then (--coll) rank 0 times the host cost of one all-reduce call of the default process group, with the GPU ahead
(chains of 200 calls, no sync in between) and each call's GPU time (one call, synchronised), at sizes of 4 KiB to
64 MiB: what an eager framework's collective costs the host, by size, against what it costs the GPU; with 2 ranks
also the runner's pipeline transfer (p2p_sweep: batched isend/irecv, one way and paired).

usage: torchrun --standalone --nproc_per_node=2 validate/runner/mp_profile.py --rows t03-tp2,t01-tp2 --dir DIR \
           [--coll DIR/coll.csv] [--tp-block DIR/tp-block.csv]
Runs on the GPU machine only.
"""
import argparse
import contextlib
import datetime
import gzip
import os
import shutil
import statistics
import sys
import time
import types

# A torch.profiler session leaves CUPTI attached for the rest of the process unless TEARDOWN_CUPTI=1, and eager
# PyTorch's host cost is 30-45 % higher after it (validate/runner/cupti-after.sh; docs/validation.md, "CUPTI").
os.environ.setdefault("TEARDOWN_CUPTI", "1")
import torch
import torch.distributed as dist

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import configs  # noqa: E402
import kernel_profile  # noqa: E402
import torch_step  # noqa: E402


def export(prof, path):
    tmp = path[:-3]
    prof.export_chrome_trace(tmp)
    with open(tmp, "rb") as f, gzip.open(path, "wb", compresslevel=6) as g:
        shutil.copyfileobj(f, g)
    os.remove(tmp)


def step_walls(row, dev, n):
    return [t * 1e6 for t, _ in torch_step.timed_steps(row, dev, n)]


def summarise(prof):
    """GPU busy by class, idle inside the span, nccl kernels; host enqueue span (CPU trace only)."""
    kern = sorted((e.time_range.start, e.time_range.end, kernel_profile.kernel_class(e.name)) for e in prof.events()
                  if str(e.device_type).endswith("CUDA"))
    busy = {}
    for s, e, c in kern:
        busy[c] = busy.get(c, 0.0) + (e - s)
    span = kern[-1][1] - kern[0][0] if kern else 0.0
    # union of kernel intervals (NCCL overlaps compute on its own stream)
    cover, end = 0.0, None
    for s, e, _ in kern:
        if end is None or s > end:
            cover += e - s
            end = e
        elif e > end:
            cover += e - end
            end = e
    launches = sorted(e.time_range.start for e in prof.events()
                      if not str(e.device_type).endswith("CUDA") and e.name in ("cudaLaunchKernel", "cudaLaunchKernelExC",
                                                                                 "cuLaunchKernel", "cuLaunchKernelEx"))
    nccl = [e - s for s, e, c in kern if c == "nccl"]
    return dict(span=span, cover=cover, busy=busy, kernels=len(kern), nccl_n=len(nccl), nccl_us=sum(nccl),
                nccl_med=statistics.median(nccl) if nccl else 0.0,
                enqueue=(launches[-1] - launches[0]) if len(launches) > 1 else 0.0, launches=len(launches))


def call_costs(dev, call, n):
    """(GPU us of one call, host us per call): 5 warm-up calls; the median over 7 single calls timed by CUDA events,
    every rank synchronised first; the least over 3 chains of n calls with the GPU ahead (no sync in between) of the
    host's time per call. Every rank runs the same calls in the same order."""
    for _ in range(5):
        call()
    torch_step.sync(dev)
    g = []
    for _ in range(7):
        torch_step.barrier(dev)
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        call()
        b.record()
        b.synchronize()
        g.append(a.elapsed_time(b) * 1e3)
    h = []
    for _ in range(3):
        torch_step.barrier(dev)
        t0 = time.perf_counter()
        for _ in range(n):
            call()
        h.append((time.perf_counter() - t0) * 1e6 / n)
        torch_step.sync(dev)
    return statistics.median(g), min(h)


def coll_sweep(dev, path, rank, world):
    sizes = [4 << 10, 64 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20]
    out = open(path, "w") if rank == 0 else None
    if out:
        out.write("op,world,bytes,host_us_per_call,gpu_us_per_call,calls\n")
    for nbytes in sizes:
        t = torch.ones(nbytes // 2, dtype=torch.bfloat16, device=dev)
        n = 200 if nbytes <= (1 << 20) else 40
        g, h = call_costs(dev, lambda: dist.all_reduce(t), n)
        if out:
            out.write("all_reduce,%d,%d,%.2f,%.2f,%d\n" % (world, nbytes, h, g, n))
            out.flush()
    if world == 2:
        try:
            p2p_sweep(dev, out, rank, world)
        except Exception as e:  # noqa: BLE001  # the all-reduce rows stand without these
            if out:
                out.write("# p2p rows skipped: %s: %s\n" % (type(e).__name__, str(e).splitlines()[0][:120] if str(e)
                                                               else ""))
    if out:
        out.close()


def p2p_sweep(dev, out, rank, world):
    """The runner's pipeline transfer as validate/runner/torch_step.py Row._p2p issues it (dist.batch_isend_irecv of
    P2POps, each request waited) between ranks 0 and 1: one way (rank 0 sends, rank 1 receives) and both ways in one
    batch (the steady 1F1B's paired send/recv), at 64 KiB, 2 MiB (a t04 micro-batch's activations) and 8 MiB. Rows
    `p2p_send`, `p2p_recv`, `p2p_pair` (rank 0's), `p2p_pair_r1`: each rank's host us per call in a chain of calls
    with the GPU ahead, and one call's GPU time on rank 0 (both synchronised first). No probe measured a pipeline
    send's host cost before (2026-11-28); gpusim charges it as a collective call (host.<mode>.coll_us)."""
    peer = 1 - rank
    P = dist.P2POp
    for nbytes in (64 << 10, 2 << 20, 8 << 20):
        s = torch.ones(nbytes // 2, dtype=torch.bfloat16, device=dev)
        r = torch.empty_like(s)

        def one_way():
            op = P(dist.isend, s, peer) if rank == 0 else P(dist.irecv, r, peer)
            for req in dist.batch_isend_irecv([op]):
                req.wait()

        def pair():
            for req in dist.batch_isend_irecv([P(dist.isend, s, peer), P(dist.irecv, r, peer)]):
                req.wait()
        for name, f in (("oneway", one_way), ("pair", pair)):
            n = 100
            g, h = call_costs(dev, f, n)
            mine = torch.tensor([h], dtype=torch.float64, device=dev)
            both = [torch.zeros_like(mine) for _ in range(world)]
            dist.all_gather(both, mine)
            if out:
                hr = [float(x.item()) for x in both]
                names = ("p2p_send", "p2p_recv") if name == "oneway" else ("p2p_pair", "p2p_pair_r1")
                for op, us in zip(names, hr):
                    out.write("%s,%d,%d,%.2f,%.2f,%d\n" % (op, world, nbytes, us, g, n))
                out.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--coll")
    ap.add_argument("--tp-block", help="also write calibrate/torch_kernels.py's host,tp_coll rows measured on this "
                    "group of ranks (rank 0) to this CSV: a TP all-reduce's host cost in a mixed stream at this "
                    "world size")
    a = ap.parse_args()
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    dev = torch.device("cuda", local)
    if world > 1:
        dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=90))
    os.makedirs(a.dir, exist_ok=True)
    want = a.rows.split(",")
    rows = [r for lab in want for r in configs.rows() if r["label"] == lab and r["gpus"] == world]
    args = types.SimpleNamespace(cpu=False, tiny=False, check=False)
    torch_step.warm_gpu(dev, 2.0)
    from torch.profiler import ProfilerActivity, profile
    cache = {}
    for r in rows:
        lay = torch_step.Layout(r, rank, world, cache)
        ctx = contextlib.nullcontext()
        if torch_step.sdpa_kernel is not None and r["kind"] == "transformer":
            ctx = torch_step.sdpa_kernel([torch_step.SDPBackend.FLASH_ATTENTION])
        with ctx:
            row = torch_step.Row(r, args, lay, dev)
            step_walls(row, dev, 3)
            walls = step_walls(row, dev, 5)
            torch_step.barrier(dev)
            with profile(activities=[ProfilerActivity.CUDA]) as gp:
                row.step()
                torch_step.sync(dev)
            torch_step.barrier(dev)
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as cp:
                t0 = time.perf_counter()
                row.step()
                torch_step.sync(dev)
                cpu_wall = (time.perf_counter() - t0) * 1e6
        export(gp, os.path.join(a.dir, "%s-gpu-r%d.json.gz" % (r["label"], rank)))
        export(cp, os.path.join(a.dir, "%s-cpu-r%d.json.gz" % (r["label"], rank)))
        g, c = summarise(gp), summarise(cp)
        busy = ", ".join("%s %.1f" % (k, v / 1e3) for k, v in sorted(g["busy"].items(), key=lambda kv: -kv[1]))
        print("%-14s rank %d: wall %.1f ms (5 steps %s); gpu-only profile: span %.1f, kernels cover %.1f ms, %d kernels "
              "(%s ms), nccl %d kernels %.1f ms (median %.0f us); cpu profile: wall %.1f ms, enqueue %.1f ms, %d "
              "launches, nccl %.1f ms" % (
                  r["label"], rank, statistics.median(walls) / 1e3, "/".join("%.1f" % (w / 1e3) for w in walls),
                  g["span"] / 1e3, g["cover"] / 1e3, g["kernels"], busy, g["nccl_n"], g["nccl_us"] / 1e3,
                  g["nccl_med"], cpu_wall / 1e3, c["enqueue"] / 1e3, c["launches"], c["nccl_us"] / 1e3), flush=True)
        del row
        torch.cuda.empty_cache()
    if a.coll and world > 1:
        coll_sweep(dev, a.coll, rank, world)
    if a.tp_block and world > 1:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "calibrate"))
        import torch_kernels  # noqa: E402
        rows = []
        torch_kernels.tp_block_rows(rows)
        if rank == 0:
            with open(a.tp_block, "w") as f:
                f.write("# world %d, %s\nsection,name,size,bytes,kernels,us\n" % (world, torch.cuda.get_device_name(dev)))
                f.write("\n".join(rows) + "\n")
    if world > 1:
        torch_step.barrier(dev)
        dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
