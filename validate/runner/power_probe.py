#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a GPU sustains, and what the reference steps see: (1) a bf16 8192^3 torch.matmul held back to back on operands
of different distributions (uniform [-1, 1] as gpusim calibrate draws them, standard normal, a training-like pair:
activations N(0, 1) times weights N(0, 0.02), and zeros), with NVML's SM clock and power sampled every 50 ms: a
GPU at its power cap runs the data that toggles fewer bits at a higher clock; (2) reference training steps of
validate/runner/configs.py run back to back for a while, step time, clock and power against time: how far the
steps the validation rows time (a few seconds after 3 warm-up steps) are from the steady state of a long job.
(3) the host cost of one collective call on a 1-rank NCCL process group (torch.distributed all_reduce, eager):
the enqueue a training step pays per collective, and a 1-rank DDP step's cost beside the plain one.
Runs on the GPU machine only; prints CSV sections.

usage: validate/runner/power_probe.py [--hold 12] [--rows t07-single] [--row-seconds 40] [--out FILE]
"""
import argparse
import os
import statistics
import sys
import threading
import time
import types

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import configs  # noqa: E402
import torch_step  # noqa: E402


class Sampler:
    """NVML SM clock (MHz), power (W) and temperature every period seconds, in a thread."""

    def __init__(self, period=0.05):
        import pynvml
        pynvml.nvmlInit()
        self.nv = pynvml
        self.h = pynvml.nvmlDeviceGetHandleByIndex(torch.cuda.current_device())
        self.period, self.samples, self.run = period, [], False
        self.limit_w = pynvml.nvmlDeviceGetPowerManagementLimit(self.h) / 1000.0

    def _loop(self):
        nv, h = self.nv, self.h
        while self.run:
            self.samples.append((time.perf_counter(), nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_SM),
                                 nv.nvmlDeviceGetPowerUsage(h) / 1000.0,
                                 nv.nvmlDeviceGetTemperature(h, nv.NVML_TEMPERATURE_GPU)))
            time.sleep(self.period)

    def __enter__(self):
        self.samples, self.run = [], True
        self.t = threading.Thread(target=self._loop, daemon=True)
        self.t.start()
        return self

    def __exit__(self, *a):
        self.run = False
        self.t.join()

    def between(self, t0, t1):
        s = [x for x in self.samples if t0 <= x[0] <= t1]
        if not s:
            return 0, 0, 0
        return (statistics.median(x[1] for x in s), statistics.median(x[2] for x in s),
                statistics.median(x[3] for x in s))


def hold_gemm(out, samp, name, a, b, seconds):
    n = 8192
    fl = 2.0 * n * n * n
    c = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
    for _ in range(3):
        torch.matmul(a, b, out=c)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    rows = []
    while time.perf_counter() - t0 < seconds:
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        for _ in range(40):
            torch.matmul(a, b, out=c)
        e1.record()
        e1.synchronize()
        t = time.perf_counter()
        rows.append((t - t0, fl * 40 / (e0.elapsed_time(e1) * 1e-3) / 1e12, *samp.between(t - 0.1, t)))
    for r in rows:
        out.write("gemm,%s,%.2f,%.1f,%d,%.0f,%d\n" % (name, *r))
    late = [r for r in rows if r[0] > seconds / 3]
    first = [r for r in rows if r[0] < 0.6]
    print("gemm %-8s first 0.6 s %.0f TFLOP/s; after %.0f s: %.0f TFLOP/s at %d MHz, %.0f W, %d C" % (
        name, statistics.median(r[1] for r in first) if first else 0, seconds / 3,
        statistics.median(r[1] for r in late), statistics.median(r[2] for r in late),
        statistics.median(r[3] for r in late), statistics.median(r[4] for r in late)), flush=True)


def gemms(out, samp, seconds):
    n = 8192
    g = torch.Generator(device="cuda")
    g.manual_seed(1)
    u = lambda: torch.rand(n, n, device="cuda", generator=g).mul_(2).sub_(1).to(torch.bfloat16)  # noqa: E731
    r = lambda std: (torch.randn(n, n, device="cuda", generator=g) * std).to(torch.bfloat16)  # noqa: E731
    cases = [("uniform", u, u), ("normal", lambda: r(1.0), lambda: r(1.0)),
             ("train", lambda: r(1.0), lambda: r(0.02)),
             ("zeros", lambda: torch.zeros(n, n, device="cuda", dtype=torch.bfloat16),
              lambda: torch.zeros(n, n, device="cuda", dtype=torch.bfloat16))]
    for name, fa, fb in cases:
        a, b = fa(), fb()
        hold_gemm(out, samp, name, a, b, seconds)
        del a, b
        time.sleep(2)  # some cooling between the cases, the same for each


def hold_fn(out, samp, section, name, fn, flops, seconds, batch=20):
    """fn() back to back for seconds, in batches: TFLOP/s (flops per call; 0: ms per call), clock, power"""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    rows = []
    while time.perf_counter() - t0 < seconds:
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        for _ in range(batch):
            fn()
        e1.record()
        e1.synchronize()
        t = time.perf_counter()
        ms = e0.elapsed_time(e1) / batch
        rows.append((t - t0, flops / (ms * 1e-3) / 1e12 if flops else ms, *samp.between(t - 0.1, t)))
    for r in rows:
        out.write("%s,%s,%.2f,%.3f,%d,%.0f,%d\n" % (section, name, *r))
    late = [r for r in rows if r[0] > seconds / 3]
    print("%s %-22s after %.0f s: %.3f %s at %d MHz, %.0f W, %d C" % (
        section, name, seconds / 3, statistics.median(r[1] for r in late), "TFLOP/s" if flops else "ms",
        statistics.median(r[2] for r in late), statistics.median(r[3] for r in late),
        statistics.median(r[4] for r in late)), flush=True)


def kernels(out, samp, seconds):
    """the power of the other kernel kinds of a step, each held: flash attention forward + backward at t07's shape
    (b 4, s 2048, 16 heads of 128, causal), and elementwise work (GELU, add) over t07's 8192 x 8192 activations"""
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    b, h, s, d = 4, 16, 2048, 128
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
    g = torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16)
    fl = 4.0 * b * h * s * s * d * 0.5 * 3.5  # forward + backward (2.5x), causal

    def attn():
        q.grad = k.grad = v.grad = None
        F.scaled_dot_product_attention(q, k, v, is_causal=True).backward(g)
    for be, name in ((SDPBackend.FLASH_ATTENTION, "flash_fwd_bwd_t07"), (SDPBackend.CUDNN_ATTENTION, "cudnn_fwd_bwd_t07")):
        with sdpa_kernel([be]):
            hold_fn(out, samp, "kernel", name, attn, fl, seconds)
        time.sleep(2)
    x = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    y = torch.empty_like(x)

    def elem():
        torch.add(x, F.gelu(x), out=y)
    hold_fn(out, samp, "kernel", "gelu_add_8192x8192", elem, 0, seconds)
    time.sleep(2)
    n = 8192
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
    hold_fn(out, samp, "kernel", "gemm_8192", lambda: torch.matmul(a, a, out=c), 2.0 * n ** 3, seconds)


def layer_gemms(out, samp, seconds):
    """t07's layer GEMMs as PyTorch issues them (F.linear forward, dgrad grad @ W, wgrad grad^T @ x; cuBLAS picks
    the kernels): a short run on a cool GPU (after 3 s idle), then each held for seconds. Beside calibrate's
    cuBLASLt peak and sustained times of the same shapes (meta.sustained.rates) this says whether the GEMMs of a
    step differ by kernel choice or by clock."""
    import torch.nn.functional as F
    T, h, f = 8192, 2048, 8192
    shapes = [("qkv", T, h, 3 * h), ("proj", T, h, h), ("fc1", T, h, f), ("fc2", T, f, h)]
    for name, t, i, o in shapes:
        x = torch.randn(t, i, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(o, i, device="cuda", dtype=torch.bfloat16) * 0.02
        gy = torch.randn(t, o, device="cuda", dtype=torch.bfloat16) * 0.01
        fl = 2.0 * t * i * o
        for kind, fn in (("fwd", lambda: F.linear(x, w)), ("dgrad", lambda: gy @ w), ("wgrad", lambda: gy.t() @ x)):
            time.sleep(1)
            fn()
            torch.cuda.synchronize()
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            e0.record()
            for _ in range(10):
                fn()
            e1.record()
            e1.synchronize()
            cool = fl * 10 / (e0.elapsed_time(e1) * 1e-3) / 1e12
            out.write("layer,%s_%s,0,%.1f,0,0,0\n" % (name, kind, cool))
            print("layer %s_%s %dx%dx%d: cool %.0f TFLOP/s" % (name, kind, t, o, i, cool), flush=True)
            hold_fn(out, samp, "layer", "%s_%s" % (name, kind), fn, fl, seconds)


def steps(out, samp, label, seconds):
    r = next(x for x in configs.rows() if x["label"] == label)
    dev = torch.device("cuda", torch.cuda.current_device())
    args = types.SimpleNamespace(cpu=False, tiny=False, check=False)
    lay = torch_step.Layout(r, 0, 1, {})
    with torch_step.flash_ctx(r):
        row = torch_step.Row(r, args, lay, dev)
        torch.cuda.synchronize()
        time.sleep(3)  # start from an idle GPU, as a validation run does after its setup
        t0 = time.perf_counter()
        rows = []
        while time.perf_counter() - t0 < seconds:
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            e0.record()
            row.step()
            e1.record()
            e1.synchronize()
            t = time.perf_counter()
            rows.append((t - t0, e0.elapsed_time(e1), *samp.between(t - e0.elapsed_time(e1) * 1e-3, t)))
    for x in rows:
        out.write("step,%s,%.2f,%.3f,%d,%.0f,%d\n" % (label, *x))
    ms = [x[1] for x in rows]
    val = statistics.median(ms[3:13]) if len(ms) >= 13 else 0
    late = [x for x in rows if x[0] > seconds / 2]
    print("steps %s: steps 4-13 (as validation times them) %.2f ms; after %.0f s %.2f ms at %d MHz, %.0f W, %d C "
          "(%.1f %% slower)" % (label, val, seconds / 2, statistics.median(x[1] for x in late),
                                statistics.median(x[2] for x in late), statistics.median(x[3] for x in late),
                                statistics.median(x[4] for x in late),
                                100 * (statistics.median(x[1] for x in late) / val - 1) if val else 0), flush=True)
    del row


def host_collective(out):
    import torch.distributed as dist
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29533")
    dist.init_process_group("nccl", rank=0, world_size=1, device_id=torch.device("cuda", 0))
    for nbytes in (4, 1 << 20, 25 << 20):
        t = torch.ones(max(1, nbytes // 4), device="cuda")
        for _ in range(20):
            dist.all_reduce(t)
        torch.cuda.synchronize()
        n = 200
        t0 = time.perf_counter()
        for _ in range(n):
            dist.all_reduce(t)
        host = (time.perf_counter() - t0) / n * 1e6
        torch.cuda.synchronize()
        wall = (time.perf_counter() - t0) / n * 1e6
        out.write("collective,all_reduce,%d,%.2f,%.2f\n" % (nbytes, host, wall))
        print("1-rank NCCL all_reduce %d B: host enqueue %.1f us per call, %.1f us per call to completion" % (
            nbytes, host, wall), flush=True)
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hold", type=float, default=12)
    ap.add_argument("--rows", default="t07-single")
    ap.add_argument("--row-seconds", type=float, default=40)
    ap.add_argument("--out", default="-")
    ap.add_argument("--skip", default="")
    a = ap.parse_args()
    out = sys.stdout if a.out == "-" else open(a.out, "w")
    torch.cuda.set_device(0)
    samp = Sampler()
    print("# %s, power limit %.0f W, torch %s" % (torch.cuda.get_device_name(0), samp.limit_w, torch.__version__),
          flush=True)
    out.write("section,case,t_s,value,sm_mhz,power_w,temp_c\n")
    with samp:
        if "gemm" not in a.skip:
            gemms(out, samp, a.hold)
        if "layer" not in a.skip:
            layer_gemms(out, samp, a.hold)
        if "kernels" not in a.skip:
            kernels(out, samp, a.hold)
        if "steps" not in a.skip:
            for label in a.rows.split(","):
                steps(out, samp, label, a.row_seconds)
                time.sleep(2)
    if "collective" not in a.skip:
        host_collective(out)
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
