#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Where a host-bound eager step's time goes (issue 11, item 3): runs single-GPU rows of validate/runner/configs.py
exactly as validate/runner/torch_step.py does and times the host side of each piece with CPU timestamps (the host
ahead of the GPU: no synchronize until the step's end, whose wait is the GPU's backlog), then sweeps the tokens per
micro-batch of one row's layers and times single ops at two sizes, to tell per-op costs that grow with the tensors
from ones that do not. Runs on the GPU machine only. One CSV on stdout, sections in the first column:

  step,ROW,WHAT,US      per step (median of --steps instrumented steps): wall (the runner's own timing, unprofiled,
                        median of 5), wall_instrumented, zero_grad, fwd (all micro-batches' forwards, host), bwd
                        (their backward() calls, host), opt, sync_wait (the GPU's backlog at the end), mb (micro-
                        batches), gc_off_wall (the runner's timing with Python's garbage collector disabled)
  prof,ROW,WHAT,VALUE   one profiled step (torch.profiler, CPU and CUDA): kernels, gpu_busy_us, gpu_span_us,
                        prof_wall_us, queue_us_p50/p90 (kernel start - its launch call's start: how long a kernel
                        waited in the queue; near zero when the GPU waits for the host), launch_gap_us_p50 (host
                        time between consecutive launch calls)
  op,ROW,NAME,CALLS,SELF_CPU_US   the profiled step's top operators by self CPU time
  tokens,LAYERS,TOKENS,WHAT,US    LAYERS layers of hidden H (of --sweep-row), one micro-batch of TOKENS: host fwd, bwd
                        and the backlog, per layer
  opsize,NAME,TOKENS,US,BACKLOG_US  one op's host time per call (median of 200 calls back to back) at 16 tokens and
                        at the row's tokens

usage: validate/runner/host_breakdown.py [--rows t04-single,t05-single,m01-single] [--sweep-row t04-single]
       [--steps 5]
"""
import argparse
import contextlib
import gc
import os
import statistics
import sys
import time
import types

# A torch.profiler session leaves CUPTI attached for the rest of the process unless TEARDOWN_CUPTI=1, and eager
# PyTorch's host cost is 30-45 % higher after it (validate/runner/cupti-after.sh; docs/validation.md, "CUPTI").
os.environ.setdefault("TEARDOWN_CUPTI", "1")
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import configs  # noqa: E402
import torch_step  # noqa: E402

pc = time.perf_counter


def emit(*v):
    print(",".join(str(x) if not isinstance(x, float) else "%.2f" % x for x in v), flush=True)


def flash():
    if torch_step.sdpa_kernel is not None:
        return torch_step.sdpa_kernel([torch_step.SDPBackend.FLASH_ATTENTION])
    return contextlib.nullcontext()


def runner_wall(row, n=5):
    ws = []
    for _ in range(n):
        torch.cuda.synchronize()
        t0 = pc()
        row.step()
        torch.cuda.synchronize()
        ws.append((pc() - t0) * 1e6)
    return statistics.median(ws)


def instrumented(row):
    """one step of a single-GPU row, the runner's _no_pipeline with host timestamps between the pieces"""
    t = {}
    torch.cuda.synchronize()
    t0 = pc()
    row.opt.zero_grad()
    t1 = pc()
    fwd = bwd = 0.0
    for i in range(row.m):
        a = pc()
        y = row._fwd(i, row.x[i])
        b = pc()
        row._bwd(i, None, y, row.dy[i])
        del y
        fwd += b - a
        bwd += pc() - b
    t2 = pc()
    row.opt.step()
    t3 = pc()
    torch.cuda.synchronize()
    t4 = pc()
    t.update(wall_instrumented=t4 - t0, zero_grad=t1 - t0, fwd=fwd, bwd=bwd, opt=t3 - t2, sync_wait=t4 - t3)
    return {k: v * 1e6 for k, v in t.items()}


def profile_row(label, row):
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        t0 = pc()
        row.step()
        torch.cuda.synchronize()
        wall = (pc() - t0) * 1e6
    ev = list(prof.events())
    kern = [e for e in ev if str(e.device_type).endswith("CUDA")]
    launches = sorted((e.time_range.start, e.id) for e in ev
                      if e.name in ("cudaLaunchKernel", "cuLaunchKernelEx", "cuLaunchKernel", "cudaLaunchKernelExC"))
    emit("prof", label, "kernels", len(kern))
    if kern:
        ks = sorted((e.time_range.start, e.time_range.end) for e in kern)
        emit("prof", label, "gpu_busy_us", sum(b - a for a, b in ks))
        emit("prof", label, "gpu_span_us", ks[-1][1] - ks[0][0])
    emit("prof", label, "prof_wall_us", wall)
    emit("prof", label, "launch_calls", len(launches))
    if len(launches) > 2:
        g = [launches[i + 1][0] - launches[i][0] for i in range(len(launches) - 1)]
        emit("prof", label, "launch_gap_us_p50", statistics.median(g))
        emit("prof", label, "launch_gap_us_mean", sum(g) / len(g))
    # queue time: a kernel's start against its launch call's (the i-th kernel of the stream is the i-th launch)
    if kern and len(launches) == len(kern):
        ks = sorted(e.time_range.start for e in kern)
        q = sorted(k - l for k, (l, _) in zip(ks, launches))
        emit("prof", label, "queue_us_p50", q[len(q) // 2])
        emit("prof", label, "queue_us_p90", q[int(len(q) * 0.9)])
    for e in sorted(prof.key_averages(), key=lambda e: -e.self_cpu_time_total)[:40]:
        emit("op", label, e.key.replace(",", ";")[:80], e.count, float(e.self_cpu_time_total))


def rows_part(labels, steps):
    args = types.SimpleNamespace(cpu=False, tiny=False, check=False)
    for r in configs.rows():
        if r["label"] not in labels or r["gpus"] != 1:
            continue
        with flash():
            row = torch_step.Row(r, args, torch_step.Layout(r, 0, 1, {}), torch.device("cuda", 0))
            for _ in range(3):
                row.step()
            emit("step", r["label"], "wall", runner_wall(row))
            ts = [instrumented(row) for _ in range(steps)]
            for k in ts[0]:
                emit("step", r["label"], k, statistics.median(t[k] for t in ts))
            emit("step", r["label"], "mb", row.m)
            gc.disable()
            emit("step", r["label"], "gc_off_wall", runner_wall(row))
            gc.enable()
            emit("step", r["label"], "wall_again", runner_wall(row))
            profile_row(r["label"], row)
            del row
        torch.cuda.empty_cache()


def sweep_part(label):
    r0 = next(r for r in configs.rows() if r["label"] == label)
    args = types.SimpleNamespace(cpu=False, tiny=False, check=False)
    for tokens in (16, 128, 512, r0["seq"], 2 * r0["seq"]):
        r = dict(r0, seq=tokens, mb=1, gb=1, m=1)
        with flash():
            row = torch_step.Row(r, args, torch_step.Layout(r, 0, 1, {}), torch.device("cuda", 0))
            for _ in range(3):
                row.step()
            fw, bw, bl = [], [], []
            for _ in range(15):
                torch.cuda.synchronize()
                a = pc()
                y = row._fwd(0, row.x[0])
                b = pc()
                row._bwd(0, None, y, row.dy[0])
                c = pc()
                torch.cuda.synchronize()
                d = pc()
                fw.append(b - a)
                bw.append(c - b)
                bl.append(d - c)
            L = r["layers"]
            emit("tokens", L, tokens, "fwd_per_layer_us", statistics.median(fw) * 1e6 / L)
            emit("tokens", L, tokens, "bwd_per_layer_us", statistics.median(bw) * 1e6 / L)
            emit("tokens", L, tokens, "backlog_us", statistics.median(bl) * 1e6)
            del row
    h = r0["hidden"]
    for tokens in (16, r0["seq"]):
        x = torch.randn(tokens, h, device="cuda", dtype=torch.bfloat16, requires_grad=True)
        w = torch.nn.Parameter(torch.randn(3 * h, h, device="cuda", dtype=torch.bfloat16) * 0.02)
        q = torch.randn(1, r0["heads"], tokens, h // r0["heads"], device="cuda", dtype=torch.bfloat16,
                        requires_grad=True)
        cases = [("linear_qkv", lambda: F.linear(x, w)),
                 ("layer_norm", lambda: F.layer_norm(x, (h,))),
                 ("gelu", lambda: F.gelu(x, approximate="tanh")),
                 ("add", lambda: x + x),
                 ("empty_3h", lambda: torch.empty(tokens, 3 * h, device="cuda", dtype=torch.bfloat16)),
                 ("mm_nograd", lambda: torch.mm(x.detach(), w.detach().t())),
                 ("transpose_view", lambda: x.view(tokens, h).transpose(0, 1))]
        with flash():
            cases.append(("sdpa_flash", lambda: F.scaled_dot_product_attention(q, q, q, is_causal=True)))
            for name, f in cases:
                for _ in range(20):
                    f()
                torch.cuda.synchronize()
                ts, bs = [], []
                for _ in range(5):
                    keep = []
                    a = pc()
                    for _ in range(200):
                        keep.append(f())
                    b = pc()
                    torch.cuda.synchronize()
                    ts.append((b - a) / 200 * 1e6)
                    bs.append((pc() - b) * 1e6)
                    del keep
                emit("opsize", name, tokens, statistics.median(ts), statistics.median(bs))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", default="t04-single,t05-single,m01-single")
    ap.add_argument("--sweep-row", default="t04-single")
    ap.add_argument("--steps", type=int, default=5)
    a = ap.parse_args()
    torch.cuda.set_device(0)
    print("# %s torch %s, %s" % (time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()), torch.__version__,
                                 torch.cuda.get_device_name(0)), flush=True)
    rows_part(set(a.rows.split(",")), a.steps)
    if a.sweep_row:
        sweep_part(a.sweep_row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
