#!/usr/bin/env python3
"""calibrate/torch_kernels.py: what an eager PyTorch training step launches besides GEMMs and attention, measured
on the GPU it runs on: the rates of its memory-bound kernels by family, the GPU's idle time between two
back-to-back kernels of a stream the host keeps full, and the host's cost of one eager op and of one collective
call. `gpusim calibrate --kernels torch` runs this script (the copy compiled into gpusim) and writes
gpu.kernels and host.eager.coll_us from its CSV (docs/calibration.md); it also runs on its own.

Sections of the CSV on stdout (one header, the section in the first column):

  kernel,NAME,ELEMS,BYTES,KERNELS,US   one op of PyTorch at ELEMS elements: BYTES = the bytes gpusim's op model
        counts for it (sim/ops.c: what the op must read and write), KERNELS = kernels it launched, US = their GPU
        time (torch.profiler, summed, mean of 20 calls; launch gaps not included). Families (FAMILY = the part of
        NAME before '.'): elementwise (add, mul: 3e per element; gelu, silu: 2e; gelu_bwd: 3e), cast (bf16->fp32
        and back: e+4), fill (zero_: e), norm (F.layer_norm over rows of 2048 and F.rms_norm fused: 2e forward,
        4e backward), softmax (log_softmax over fp32 rows of 32768: 8 per element, its backward 12), adam (fused
        AdamW, torch.optim, fp32 parameters, gradients and two moments: 28 bytes per parameter).
  gap,STREAM,KERNELS,0,KERNELS,US      the median GPU idle time between consecutive kernels of STREAM, issued
        after a 50 ms sleep kernel so the host is far ahead (the GPU-side cost of a kernel boundary): `small`
        (800 adds of 1 Mi bf16 elements), `mixed` (400 pairs of a 2048x2048x2048 GEMM and an add of 4 Mi).
  host,NAME,BYTES,0,CALLS,US           host time per call: `eager_add` (torch.add of 1 Mi bf16 elements, out of
        the caching allocator), `all_reduce` (torch.distributed.all_reduce on a 1-rank NCCL process group, at
        BYTES bytes): the enqueue a step pays per op and per collective.
  memory,NAME,PARAMS,BYTES,0,0         DistributedDataParallel's own memory on a 1-rank group, for a model of PARAMS
        bf16 parameters, plain and under DDP (`ddp`: gradient_as_bucket_view False, the default; `ddp_view`:
        True): MODE_built (after construction), MODE_stepK_peak (the peak of step K, reset before it), MODE_held
        (after step 4), each in bytes above what was allocated before the model.

usage: torch_kernels.py [--quick] [--no-host] [--no-memory]
"""
import argparse
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

BF = torch.bfloat16


def kernel_us(f, calls=20):
    """GPU kernel time of one call of f (summed over its kernels, mean of `calls`), and kernels per call"""
    from torch.profiler import ProfilerActivity, profile
    for _ in range(3):
        f()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            f()
        torch.cuda.synchronize()
    tot, n = 0.0, 0
    for e in prof.events():
        if str(e.device_type).endswith("CUDA"):
            tot += e.device_time if hasattr(e, "device_time") else e.cuda_time
            n += 1
    return tot / calls, n / calls


def kernel_rows(sizes):
    """(name, elems, bytes per element as sim/ops.c counts, make) for every op and size"""
    rows = []
    for n in sizes:
        a, b = torch.randn(n, device="cuda", dtype=BF), torch.randn(n, device="cuda", dtype=BF)
        o = torch.empty_like(a)
        f32 = torch.randn(n, device="cuda")
        rows += [
            ("elementwise.add", n, 6, lambda a=a, b=b, o=o: torch.add(a, b, out=o)),
            ("elementwise.mul", n, 6, lambda a=a, b=b, o=o: torch.mul(a, b, out=o)),
            ("elementwise.gelu", n, 4, lambda a=a: F.gelu(a, approximate="tanh")),
            ("elementwise.silu", n, 4, lambda a=a: F.silu(a)),
            ("elementwise.gelu_bwd", n, 6,
             lambda a=a, b=b: torch.ops.aten.gelu_backward(b, a, approximate="tanh")),
            ("cast.to_fp32", n, 6, lambda a=a: a.float()),
            ("cast.to_bf16", n, 6, lambda f32=f32: f32.to(BF)),
            ("fill.zero", n, 2, lambda o=o: o.zero_()),
        ]
        h = 2048
        if n % h == 0:
            x = torch.randn(n // h, h, device="cuda", dtype=BF, requires_grad=True)
            w = torch.ones(h, device="cuda", dtype=BF, requires_grad=True)
            bb = torch.zeros(h, device="cuda", dtype=BF, requires_grad=True)
            g = torch.randn(n // h, h, device="cuda", dtype=BF)
            y = F.layer_norm(x, (h,), w, bb)
            rows.append(("norm.layer_norm", n, 4, lambda x=x, w=w, bb=bb: F.layer_norm(x, (h,), w, bb)))
            rows.append(("norm.layer_norm_bwd", n, 8,
                         lambda x=x, w=w, bb=bb, y=y, g=g: torch.autograd.grad(y, (x, w, bb), g, retain_graph=True)))
            if hasattr(F, "rms_norm"):
                yr = F.rms_norm(x, (h,), w)
                rows.append(("norm.rms_norm", n, 4, lambda x=x, w=w: F.rms_norm(x, (h,), w)))
                rows.append(("norm.rms_norm_bwd", n, 8,
                             lambda x=x, w=w, yr=yr, g=g: torch.autograd.grad(yr, (x, w), g, retain_graph=True)))
        v = 32768
        if n % v == 0:
            lg = torch.randn(n // v, v, device="cuda")
            ls = torch.log_softmax(lg, -1)
            gl = torch.randn_like(lg)
            rows.append(("softmax.log_softmax", n, 8, lambda lg=lg: torch.log_softmax(lg, -1)))
            rows.append(("softmax.log_softmax_bwd", n, 12,
                         lambda ls=ls, gl=gl: torch._log_softmax_backward_data(gl, ls, -1, torch.float32)))
    return rows


def adam_rows(sizes):
    rows = []
    for n in sizes:
        p = torch.nn.Parameter(torch.randn(n, device="cuda"))
        p.grad = torch.randn(n, device="cuda") * 1e-3
        opt = torch.optim.AdamW([p], lr=1e-4, fused=True)
        opt.step()
        rows.append(("adam.fused_adamw", n, 28, opt.step))
    return rows


def gaps(kind, count):
    """median idle time between consecutive kernels of a stream issued after a long sleep kernel"""
    from torch.profiler import ProfilerActivity, profile
    if kind == "small":
        a = torch.randn(1 << 20, device="cuda", dtype=BF)
        b, o = torch.randn_like(a), torch.empty_like(a)

        def issue():
            for _ in range(count):
                torch.add(a, b, out=o)
    else:
        m = torch.randn(2048, 2048, device="cuda", dtype=BF)
        mo = torch.empty_like(m)
        a = torch.randn(4 << 20, device="cuda", dtype=BF)
        b, o = torch.randn_like(a), torch.empty_like(a)

        def issue():
            for _ in range(count // 2):
                torch.mm(m, m, out=mo)
                torch.add(a, b, out=o)
    issue()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        torch.cuda._sleep(int(50e-3 * 1.98e9))  # ~50 ms at the top clock: the host gets far ahead
        issue()
        torch.cuda.synchronize()
    ev = sorted((e.time_range.start, e.time_range.end, e.name) for e in prof.events()
                if str(e.device_type).endswith("CUDA") and "sleep" not in e.name.lower())
    # the first kernels after the sleep may still race the host; the stream stays under CUDA's queue of ~1,000
    # pending launches (beyond it the host blocks and the stream runs at the host's pace)
    ev = ev[10:]
    g = [ev[i + 1][0] - ev[i][1] for i in range(len(ev) - 1)]
    return statistics.median(g), len(ev)


def host_rows(out):
    a = torch.randn(1 << 20, device="cuda", dtype=BF)
    b = torch.randn_like(a)
    for _ in range(50):
        torch.add(a, b)
    torch.cuda.synchronize()
    n, ts = 500, []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            torch.add(a, b)
        ts.append((time.perf_counter() - t0) / n * 1e6)
        torch.cuda.synchronize()
    out.append(f"host,eager_add,{2 << 20},0,{n},{statistics.median(ts):.2f}")
    import torch.distributed as dist
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29541")
    dist.init_process_group("nccl", rank=0, world_size=1, device_id=torch.device("cuda", 0))
    for nbytes in (4, 1 << 20, 25 << 20):
        t = torch.ones(max(1, nbytes // 4), device="cuda")
        for _ in range(20):
            dist.all_reduce(t)
        torch.cuda.synchronize()
        ts = []
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(100):
                dist.all_reduce(t)
            ts.append((time.perf_counter() - t0) / 100 * 1e6)
            torch.cuda.synchronize()
        out.append(f"host,all_reduce,{nbytes},0,100,{statistics.median(ts):.2f}")
    return dist


def memory_rows(out):
    """DDP's own memory on a 1-rank group: a model of 16 bf16 Linear layers (8 blocks of h -> 4h -> h), each step's
    peak (reset before it) and what is held after it, for the plain model and under DDP (gradient_as_bucket_view
    False, the default, and True). Step 1 is the first backward; DDP rebuilds its buckets before step 2."""
    import gc
    from torch.nn.parallel import DistributedDataParallel as DDP
    h = 2048

    def model():
        torch.manual_seed(0)
        return torch.nn.Sequential(*[torch.nn.Linear(h, 4 * h, bias=False) if i % 2 == 0 else
                                     torch.nn.Linear(4 * h, h, bias=False) for i in range(16)]).to("cuda", BF)

    x = torch.randn(8192, h, device="cuda", dtype=BF)
    res = {}
    for mode in ("plain", "ddp", "ddp_view"):
        gc.collect()
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        base = torch.cuda.memory_allocated()
        m = model()
        params = sum(p.numel() for p in m.parameters())
        run = m if mode == "plain" else DDP(m, bucket_cap_mb=25, gradient_as_bucket_view=(mode == "ddp_view"))
        res[mode] = [params, torch.cuda.memory_allocated() - base]
        for step in range(4):
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            for p in m.parameters():
                p.grad = None
            run(x).float().pow(2).mean().backward()
            torch.cuda.synchronize()
            res[mode].append(torch.cuda.max_memory_allocated() - base)
        res[mode].append(torch.cuda.memory_allocated() - base)
        del run, m
    for mode in ("plain", "ddp", "ddp_view"):
        params, built, *steps, held = res[mode]
        out.append(f"memory,{mode}_built,{params},{built},0,0")
        for i, pk in enumerate(steps):
            out.append(f"memory,{mode}_step{i + 1}_peak,{params},{pk},0,0")
        out.append(f"memory,{mode}_held,{params},{held},0,0")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-host", action="store_true")
    ap.add_argument("--no-memory", action="store_true")
    a = ap.parse_args()
    torch.cuda.set_device(0)
    print("# torch %s, cuda %s, %s" % (torch.__version__, torch.version.cuda, torch.cuda.get_device_name(0)),
          flush=True)
    print("section,name,size,bytes,kernels,us", flush=True)
    top = 26 if a.quick else 28
    sizes = [1 << k for k in range(16, top + 1, 2)]
    for name, n, bpe, f in kernel_rows(sizes) + adam_rows(sizes[:-1]):
        us, k = kernel_us(f)
        print(f"kernel,{name},{n},{n * bpe},{k:.2f},{us:.3f}", flush=True)
    torch.cuda.empty_cache()
    for kind in ("small", "mixed"):
        g, k = gaps(kind, 800)
        print(f"gap,{kind},{k},0,{k},{g:.3f}", flush=True)
    out, dist = [], None
    if not a.no_host:
        dist = host_rows(out)
    if not a.no_memory and dist is not None:
        memory_rows(out)
    for line in out:
        print(line, flush=True)
    if dist is not None:
        dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
