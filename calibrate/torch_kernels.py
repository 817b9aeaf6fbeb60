#!/usr/bin/env python3
"""calibrate/torch_kernels.py: what an eager PyTorch training step launches besides GEMMs and attention, measured
on the GPU it runs on: the rates of its memory-bound kernels by family, the GPU's idle time between two
back-to-back kernels of a stream the host keeps full, the host's cost of one eager op and of one collective
call, and of a torch.compile'd step. `gpusim calibrate --kernels torch` runs this script (the copy compiled into
gpusim) and writes gpu.kernels, host.eager and host.compiled from its CSV (docs/calibration.md); it also runs on its
own (`--compiled-only`: the header and the compiled rows alone).

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
  extra,linear_fwd|linear_bwd,GEMMS,0,KERNELS,US   what eager F.linear launches beside its GEMMs at a layer's
        shapes (bias-free, bf16, (1, 8192, in) activations; in x out 2048x6144, 2048x2048, 2048x8192, 8192x2048;
        the backward through torch.autograd.grad: dgrad and wgrad, no AccumulateGrad), 10 calls of each: GEMMS the
        GEMM kernels counted, KERNELS the other kernels (cuBLAS's workspace memsets), US their GPU time in all.
        gpusim adds KERNELS/GEMMS kernels of US/KERNELS each, and a gap each, to every GEMM (gpu.kernels.gemm_extra).
  host,NAME,BYTES,0,CALLS,US           host time per call: `eager_add` (torch.add of 1 Mi bf16 elements, out of
        the caching allocator), `all_reduce` (torch.distributed.all_reduce on a 1-rank NCCL process group, at
        BYTES bytes): the enqueue a step pays per op and per collective.
  host,CLASS,N,0,KERNELS,US            host time of eager PyTorch by op class (host_class_rows), with the host
        ahead of the GPU (tensors of 16 tokens x 256: every kernel is shorter than its issue; the GPU's backlog
        when the host is done is checked and written as `host,CLASS_backlog,...`): CLASS is `fwd_linear` (on
        (1, tokens, h) activations, as a transformer's), `fwd_linear_2d` (on (tokens, h), as a dense layer's),
        `fwd_elementwise`, `fwd_norm`, `fwd_attention` (one forward op under autograd: dispatch, its graph node, its
        kernel's launch), `bwd_linear`, `bwd_linear_2d` (the backward of one F.linear: its
        autograd nodes, dgrad and wgrad GEMMs and the weight's AccumulateGrad), `bwd_linear_dgrad`
        (the node with its dgrad alone), `bwd_elementwise` (GeluBackward), `bwd_norm` (NativeLayerNormBackward, no
        affine parameters), `bwd_attention` (the flash backward), each the slope over chains of N and 4N ops;
        `accumulate_grad` (one AccumulateGrad into an existing .grad: its add kernel), `backward_call` (the fixed cost
        of one torch.autograd.backward: the engine's start and its hand-back, the intercept of the chains),
        `optimizer_tensor` and `optimizer_step` (fused AdamW: per parameter tensor and per call), `zero_grad_tensor`
        (optimizer.zero_grad(set_to_none=True) per tensor), `fwd_view` (one view op: view, transpose);
        `block_fwd`, `block_bwd` (host us per layer of 8 standard pre-LN GPT blocks at the same size, forward and
        backward: the classes in a mixed stream) and `mix_fwd`, `mix_bwd` (the block's time over the sum of the isolated
        class costs of its kernel-launching ops, as gpusim lists them: views, Python and interleaving different
        ops, which the isolated chains do not have). Every class and block is measured in 5 rounds in turn (2 with
        --quick): each row is the median over the rounds, `mix_fwd`/`mix_bwd` the median of each round's own ratio,
        `mix_fwd_min`, `_max` (and bwd) their spread; `block_mlp_fwd`, `block_mlp_bwd`, `mix2d_fwd`, `mix2d_bwd` the
        same for the runner's MLP layer (Linear-GeLU-Linear on 2-D activations, mlp_host) against its 2-D classes
        (reported; calibrate does not use them yet). KERNELS: kernels per op. `tp_coll` (one tensor-parallel
        all-reduce as Megatron-style code issues it, in a mixed stream: tp_block_rows) with `block_tp_fwd`,
        `block_tp_bwd`, `block_plain_fwd`, `block_plain_bwd` (the two blocks it compares, per layer).
  host,rank_block_ROUND,RANK,0,0,US    with 2 or more GPUs visible (rank_host_rows): the same standard block's host
        us per layer, forward plus backward, timed in one process per GPU at the same time, ROUND by ROUND (5; 2
        with --quick): how far the processes of one job differ in host speed at one time, which a synchronous
        step pays at its slowest (gpusim: host.<mode>.rank_spread, their standard deviation over their mean).
  host,compiled_FAM_ROW,LAYERS,0,N,US  torch.compile's host cost (compiled_rows, run with the host rows; alone with
        --compiled-only): a stack of LAYERS (1, 2, 4) layers of family FAM, compiled with torch.compile's default mode
        as validate/runner/torch_step.py compiles its module, each run with the runner's eager optimizer: FAM `mlp`
        (the runner's MLP layer Linear-GeLU-Linear on (tokens, h) activations) or `block` (its pre-LN GPT block on
        (1, tokens, h), causal flash SDPA), tokens 16 x h 256 as the host classes. ROW and its N, US:
        `fwd` (the forward call: N device activities it launched by torch.profiler, US host us, median of the
        rounds), `fwd_extern` (N of them not inductor's Triton kernels: GEMMs, flash attention; US 0), `bwd` (one
        torch.autograd.backward on the output: the compiled backward graph and each parameter's eager AccumulateGrad
        into its existing .grad), `bwd_extern`, `step` (zero the flat gradient, forward, backward, optimizer),
        `step2` (the same with two micro-batches: forward and backward twice; N 0), `step_fwd`, `step_bwd`,
        `step_opt` (the forward, backward and optimizer of a step read off the clock as it ran: step_timed; N 0),
        `opt` (the optimizer alone: cast, fused Adam, cast), `params` (N parameter tensors: an AccumulateGrad each
        in backward; US 0), `graphs` (N graphs dynamo compiled for it, -1 not known; US 0), `backlog` (US the GPU's
        largest backlog after a timed call: far below the call's US, the host was the slower side). Compilation is
        in untimed warm-up steps; every stack is timed in 5 rounds in turn (2 with --quick). A stack that fails to
        compile is a comment line `# compiled FAM xLAYERS skipped: ...`, a torch without torch.compile one
        `# compiled host rows skipped: ...`; the other rows stay.
  host,eager_FAM_ROW,LAYERS,0,0,US      the same stacks run eagerly (eager_step_rows, with the host rows): ROW
        `fwd`, `bwd`, `opt`, `step`, `step2` as above, and `step_fwd`, `step_bwd`, `step_opt` (the pieces of
        `step` read off the clock as it ran), each the median of 5 rounds (2 with --quick), host us.
        A failure is `# eager step rows skipped: ...`; the other rows stay.
  host,compiled_ddp_ROW,SUBGRAPHS,0,N,US  a compiled DDP module's subgraphs (compiled_ddp_rows): 4 runner MLP layers
        on flat parameters in DDP on a 1-rank group (1 MiB buckets), compiled with dynamo's DDPOptimizer
        off (1 graph) and on (a subgraph per linear layer); ROW `fwd` or `bwd` as above, SUBGRAPHS the compiled
        functions a forward called (-1 not known). A failure is `# compiled ddp rows skipped: ...`.
  memory,NAME,PARAMS,BYTES,0,0         DistributedDataParallel's own memory on a 1-rank group, for a model of PARAMS
        bf16 parameters, plain and under DDP (`ddp`: gradient_as_bucket_view False, the default; `ddp_view`:
        True): MODE_built (after construction), MODE_stepK_peak (the peak of step K, reset before it), MODE_held
        (after step 4), each in bytes above what was allocated before the model.

usage: torch_kernels.py [--quick] [--no-host] [--host-only] [--host-tokens N] [--no-memory] [--no-compiled]
       torch_kernels.py --compiled-only [--quick] [--host-tokens N]
"""
import argparse
import os
import re
import statistics
import sys
import time

# A torch.profiler session leaves CUPTI attached for the rest of the process unless TEARDOWN_CUPTI=1, and eager
# PyTorch's host cost is 30-45 % higher after it (validate/runner/cupti-after.sh; docs/validation.md, "CUPTI").
os.environ.setdefault("TEARDOWN_CUPTI", "1")
import torch
import torch.nn.functional as F

BF = torch.bfloat16


def device_events(f, calls):
    """(name, GPU us) of every device event (kernels, memsets) of `calls` calls of f, after 3 calls to warm up"""
    from torch.profiler import ProfilerActivity, profile
    for _ in range(3):
        f()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            f()
        torch.cuda.synchronize()
    return [(e.name, e.device_time if hasattr(e, "device_time") else e.cuda_time) for e in prof.events()
            if str(e.device_type).endswith("CUDA")]


def kernel_us(f, calls=20):
    """GPU kernel time of one call of f (summed over its kernels, mean of `calls`), and kernels per call"""
    ev = device_events(f, calls)
    return sum(t for _, t in ev) / calls, len(ev) / calls


GEMM_KERNEL = re.compile(r"gemm|nvjet|cutlass|xmma|sm90_|sm80_|sm100_|Kernel2|cublas", re.I)


def gemm_extra_rows(out, tokens=8192, h=2048, calls=10):
    """extra rows (the header's): eager F.linear forward and backward at a layer's four shapes, its GEMM kernels
    and the other kernels beside them (count and GPU time), over `calls` calls of each"""
    tot = {"linear_fwd": [0, 0, 0.0], "linear_bwd": [0, 0, 0.0]}
    for k_in, n_out in ((h, 3 * h), (h, h), (h, 4 * h), (4 * h, h)):
        x = torch.randn(1, tokens, k_in, device="cuda", dtype=BF, requires_grad=True)
        w = (torch.randn(n_out, k_in, device="cuda", dtype=BF) * 0.02).requires_grad_()
        y = F.linear(x, w)
        g = torch.randn_like(y)
        for kind, f in (("linear_fwd", lambda x=x, w=w: F.linear(x, w)),
                        ("linear_bwd", lambda x=x, w=w, y=y, g=g: torch.autograd.grad(y, (x, w), g,
                                                                                       retain_graph=True))):
            for name, t in device_events(f, calls):
                if GEMM_KERNEL.search(name) and "reduce" not in name.lower():  # split-K's reduce: an extra
                    tot[kind][0] += 1
                else:
                    tot[kind][1] += 1
                    tot[kind][2] += t
        del x, w, y, g
    for kind, (gemms, others, us) in tot.items():
        out.append(f"extra,{kind},{gemms},0,{others},{us:.3f}")


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


def host_timed(make, run, reps=15):
    """Host microseconds of run(state), state = make() built and synchronized before the clock starts (median of
    reps), and the GPU's backlog when run returned (the synchronize after it): a backlog much smaller than the host
    time says the host was the slower side, so the time is the host's issue cost alone."""
    for _ in range(3):
        st = make()
        torch.cuda.synchronize()
        run(st)
        del st
    torch.cuda.synchronize()
    hs, bs = [], []
    for _ in range(reps):
        st = make()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        run(st)
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        hs.append((t1 - t0) * 1e6)
        bs.append((time.perf_counter() - t1) * 1e6)
        del st
    return statistics.median(hs), statistics.median(bs)


def step_timed(zero, fwd, bwd, opt, m=1, reps=15):
    """Host microseconds of the pieces of a whole step as it runs (zero(); m times y = fwd(), bwd(y); opt()), each
    read off a clock between them with nothing synchronized inside the step (the GPU idle at its start, as
    host_timed): the median over reps of (forward, backward, optimizer, whole step), forward and backward summed
    over the micro-batches, zero() in the whole step only. A piece timed this way runs after the step's other
    pieces, not after itself: what host_timed's repeated calls of one piece do not see."""
    for _ in range(3):
        zero()
        for _ in range(m):
            bwd(fwd())
        opt()
    torch.cuda.synchronize()
    rec = []
    for _ in range(reps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        zero()
        f = b = 0.0
        for _ in range(m):
            a = time.perf_counter()
            y = fwd()
            c = time.perf_counter()
            bwd(y)
            d = time.perf_counter()
            f, b = f + c - a, b + d - c
            del y
        e = time.perf_counter()
        opt()
        g = time.perf_counter()
        rec.append((f * 1e6, b * 1e6, (g - e) * 1e6, (g - t0) * 1e6))
    torch.cuda.synchronize()
    return tuple(statistics.median(r[i] for r in rec) for i in range(4))


class _CopyToTP(torch.autograd.Function):
    """Megatron's f: identity in forward, all-reduce of the input gradient in backward."""

    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, g):
        import torch.distributed as dist
        g = g.contiguous()
        dist.all_reduce(g)
        return g


class _ReduceFromTP(torch.autograd.Function):
    """Megatron's g: all-reduce of the partial output in forward, identity in backward."""

    @staticmethod
    def forward(ctx, x):
        import torch.distributed as dist
        x = x.contiguous()
        dist.all_reduce(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g


def block_host(tokens, h, dev, layers=8, tp=False):
    """host us per layer of a stack of standard pre-LN GPT blocks (LayerNorm, fused QKV Linear, causal flash SDPA,
    out Linear, residual, LayerNorm, Linear-GeLU-Linear, residual; no biases in the Linears), forward and
    backward(), parameters with existing gradients; and the GPU's backlog after the backward. tp: the block as
    Megatron's tensor parallelism writes it (f before QKV and fc1, g after the out projection and fc2: two
    all-reduces in forward, two in backward), on the default process group (here of one rank)"""
    hd = 64
    nh = max(1, h // hd)
    f_ = _CopyToTP.apply if tp else (lambda x: x)
    g_ = _ReduceFromTP.apply if tp else (lambda x: x)

    def par(*shape):
        p = torch.nn.Parameter(torch.randn(*shape, device=dev, dtype=BF) * 0.02)
        p.grad = torch.zeros_like(p)
        return p

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1_w, self.ln1_b, self.ln2_w, self.ln2_b = par(h), par(h), par(h), par(h)
            self.w_qkv, self.w_o, self.w_1, self.w_2 = par(3 * h, h), par(h, h), par(4 * h, h), par(h, 4 * h)

        def forward(self, x):
            b, t, _ = x.shape
            q, k, v = F.linear(f_(F.layer_norm(x, (h,), self.ln1_w, self.ln1_b)), self.w_qkv).split(h, dim=-1)
            q = q.view(b, t, nh, hd).transpose(1, 2)
            k = k.view(b, t, nh, hd).transpose(1, 2)
            v = v.view(b, t, nh, hd).transpose(1, 2)
            o = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, t, h)
            x = x + g_(F.linear(o, self.w_o))
            y = F.gelu(F.linear(f_(F.layer_norm(x, (h,), self.ln2_w, self.ln2_b)), self.w_1), approximate="tanh")
            return x + g_(F.linear(y, self.w_2))

    model = torch.nn.Sequential(*[Block() for _ in range(layers)])
    st = {}

    def fwd(s):
        s["y"] = model(s["x"])

    def mk_fwd():
        st.clear()
        st["x"] = torch.randn(1, tokens, h, device=dev, dtype=BF, requires_grad=True)
        return st

    def mk_bwd():
        y = model(torch.randn(1, tokens, h, device=dev, dtype=BF, requires_grad=True))
        return (y, torch.randn_like(y))
    f, bf = host_timed(mk_fwd, fwd)
    b, bb = host_timed(mk_bwd, lambda s: torch.autograd.backward(s[0], s[1]))
    return f / layers, b / layers, max(bf, bb)


def mlp_host(tokens, h, dev, layers=8):
    """host us per layer of a stack of the runner's MLP layers (validate/runner/torch_step.py MLP: Linear-GeLU-Linear
    on (tokens, h) activations, no biases, width h), forward and backward(), parameters with existing gradients;
    and the GPU's backlog after the backward: the dense layer list's mixed stream, as block_host is the
    transformer's"""
    ws = []
    for _ in range(2 * layers):
        p = torch.nn.Parameter(torch.randn(h, h, device=dev, dtype=BF) * 0.02)
        p.grad = torch.zeros_like(p)
        ws.append(p)

    def model(x):
        for i in range(0, len(ws), 2):
            x = F.linear(F.gelu(F.linear(x, ws[i]), approximate="tanh"), ws[i + 1])
        return x
    st = {}

    def fwd(s):
        s["y"] = model(s["x"])

    def mk_fwd():
        st.clear()
        st["x"] = torch.randn(tokens, h, device=dev, dtype=BF, requires_grad=True)
        return st

    def mk_bwd():
        y = model(torch.randn(tokens, h, device=dev, dtype=BF, requires_grad=True))
        return (y, torch.randn_like(y))
    f, bf = host_timed(mk_fwd, fwd)
    b, bb = host_timed(mk_bwd, lambda s: torch.autograd.backward(s[0], s[1]))
    return f / layers, b / layers, max(bf, bb)


def host_class_rows(out, tokens=16, h=256, n=16, rounds=5):
    """Host cost of eager PyTorch by op class (the header's `host,CLASS` lines): each class timed over chains of n
    and 4n ops on tensors of `tokens` x h (bf16), per op = the slope, fixed cost = the intercept; and the mixed
    stream's ratios. A lease's host drifts by 20-70 % over seconds (2026-11-27: the same block 211 and 327 us a
    layer minutes apart in one process), so all of it is measured `rounds` times in turn and each row is the median
    over the rounds, the ratios `mix_fwd`, `mix_bwd` the median of each round's own ratio (its block over its
    classes, timed seconds apart), not a ratio of medians taken at different times."""
    per_round = [host_class_round(tokens, h, n) for _ in range(rounds)]
    res = {}
    for name in per_round[0]:
        per = statistics.median(r[name][0][0] for r in per_round)
        icpt = statistics.median(r[name][0][1] for r in per_round)
        res[name] = ((per, icpt), per_round[0][name][1], max(r[name][2] for r in per_round))
    for name, ((per, _), kern, back) in res.items():
        out.append(f"host,{name},{n},0,{kern},{max(0.0, per):.2f}")
        out.append(f"host,{name}_backlog,{n},0,0,{back:.1f}")
    # the spread of the ratios over the rounds (reported, not modelled): how far the lease's host drifted
    for name in ("mix_fwd", "mix_bwd"):
        v = [r[name][0][0] for r in per_round]
        out.append(f"host,{name}_min,{n},0,0,{min(v):.2f}")
        out.append(f"host,{name}_max,{n},0,0,{max(v):.2f}")
    # the intercepts of the forward chains: a module's call with nothing in it (reported, not modelled)
    out.append(f"host,fwd_chain_fixed,{n},0,0,{max(0.0, res['fwd_elementwise'][0][1]):.2f}")


def host_class_round(tokens, h, n):
    """One round of host_class_rows: {name: ((per op us, intercept us), kernels per op, GPU backlog us)}."""
    dev = "cuda"
    ws = [torch.nn.Parameter(torch.randn(h, h, device=dev, dtype=BF) * 0.05) for _ in range(4 * n)]
    for w in ws:
        w.grad = torch.zeros_like(w)
    hd = 64
    kv = torch.randn(1, h // hd, tokens, hd, device=dev, dtype=BF)

    def x0(shape=(tokens, h)):
        return torch.randn(shape, device=dev, dtype=BF, requires_grad=True)

    def linear(x, i):
        return F.linear(x, ws[i])

    def gelu(x, i):
        return F.gelu(x, approximate="tanh")

    def norm(x, i):
        return F.layer_norm(x, (h,))

    def attn(x, i):
        return F.scaled_dot_product_attention(x, kv, kv, is_causal=True)

    def view(x, i):
        return x.transpose(0, 1)

    # a transformer's activations are (batch, tokens, hidden): F.linear on them reshapes to 2-D around its GEMM
    # (matmul, view, mm, _unsafe_view; their backward nodes); a dense layer list's are (rows, width) already
    shapes = {"attention": (1, h // hd, tokens, hd), "linear": (1, tokens, h)}
    ops = [("linear", linear, 1), ("linear_2d", linear, 1), ("elementwise", gelu, 1), ("norm", norm, 1),
           ("attention", attn, 1), ("view", view, 0)]
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
        flash = lambda: sdpa_kernel([SDPBackend.FLASH_ATTENTION])  # noqa: E731
    except ImportError:
        import contextlib
        flash = contextlib.nullcontext

    def chain(f, k, shape):
        y = x0(shape)
        for i in range(k):
            y = f(y, i)
        return y

    def slope(times):
        (k1, t1), (k2, t2) = times
        per = (t2 - t1) / (k2 - k1)
        return per, t1 - k1 * per

    res = {}
    with flash():
        for name, f, kern in ops:
            shape = shapes.get(name, (tokens, h))
            fw, bw, back = [], [], 0.0
            for k in (n, 4 * n):
                st = {}
                t, b = host_timed(lambda: st.clear() or st, lambda s, f=f, k=k: s.update(y=chain(f, k, shape)))
                fw.append((k, t))
                back = max(back, b)

                def mk(f=f, k=k):
                    y = chain(f, k, shape)
                    return (y, torch.randn_like(y))
                t, b = host_timed(mk, lambda s: torch.autograd.backward(s[0], s[1]))
                bw.append((k, t))
                back = max(back, b)
            res["fwd_" + name] = (slope(fw), kern, back)
            if name != "view":
                res["bwd_" + name] = (slope(bw), 2 if name.startswith("linear") else 1, back)
        # the MmBackward node with its dgrad GEMM alone (weights that need no gradient)
        for w in ws:
            w.requires_grad_(False)
        bw, back = [], 0.0
        for k in (n, 4 * n):
            def mk(k=k):
                y = chain(linear, k, shapes["linear"])
                return (y, torch.randn_like(y))
            t, back = host_timed(mk, lambda s: torch.autograd.backward(s[0], s[1]))
            bw.append((k, t))
        res["bwd_linear_dgrad"] = (slope(bw), 1, back)
        for w in ws:
            w.requires_grad_(True)
    # AccumulateGrad into an existing .grad: k leaves summed (their stack's backward hands each its gradient)
    leaves = [torch.nn.Parameter(torch.randn(h, device=dev, dtype=BF)) for _ in range(4 * n)]
    for p in leaves:
        p.grad = torch.zeros_like(p)
    acc, back = [], 0.0
    for k in (n, 4 * n):
        t, b = host_timed(lambda k=k: torch.stack(leaves[:k]).sum(), lambda y: y.backward())
        acc.append((k, t))
        back = max(back, b)
    res["accumulate_grad"] = (slope(acc), 1, back)
    # the fixed cost of one backward() call: the elementwise chain's intercept, less the input's accumulate
    (pe, ie), _, be = res["bwd_elementwise"]
    res["backward_call"] = ((ie - res["accumulate_grad"][0][0], 0), 0, be)
    # fused AdamW per parameter tensor and per step; zero_grad(set_to_none=True) per tensor
    opt_t, zg, back = [], [], 0.0
    for k in (n, 4 * n):
        ps = [torch.nn.Parameter(torch.randn(h, device=dev)) for _ in range(k)]
        for p in ps:
            p.grad = torch.randn_like(p)
        opt = torch.optim.AdamW(ps, lr=1e-4, fused=True)
        t, b = host_timed(lambda: None, lambda s: opt.step())
        opt_t.append((k, t))
        back = max(back, b)

        def regrad(ps=ps):
            for p in ps:
                p.grad = torch.zeros_like(p)
        t, _ = host_timed(regrad, lambda s, opt=opt: opt.zero_grad(set_to_none=True))
        zg.append((k, t))
    (po, io) = slope(opt_t)
    res["optimizer_tensor"] = ((po, 0), 0, back)
    res["optimizer_step"] = ((io, 0), 1, back)
    res["zero_grad_tensor"] = ((slope(zg)[0], 0), 0, 0.0)
    # the same classes in a mixed stream: a standard pre-LN GPT block (plain PyTorch, the ops gpusim models for one
    # layer) against the sum of its ops' isolated costs; the ratios scale the classes to what a layer costs
    with flash():
        blk_f, blk_b, blk_back = block_host(tokens, h, dev)
    # its ops that launch kernels, as gpusim's op list for the layer has them: forward 2 norms, 4 GEMMs, the
    # attention core, GeLU and 2 residual adds (the split, views and transposes launch none: their cost, the
    # Python around the ops and what interleaving costs go into the ratio); backward 4 linears' (8 GEMMs and the
    # weights' AccumulateGrad), the attention core's, 2 norms' (with 4 AccumulateGrad: weight and bias), GeLU's,
    # the split's cat and 2 residual gradient sums
    iso_f = (2 * res["fwd_norm"][0][0] + 4 * res["fwd_linear"][0][0] + res["fwd_attention"][0][0] +
             3 * res["fwd_elementwise"][0][0])
    iso_b = (4 * res["bwd_linear"][0][0] + res["bwd_attention"][0][0] + 2 * res["bwd_norm"][0][0] +
             4 * res["accumulate_grad"][0][0] + 4 * res["bwd_elementwise"][0][0])
    res["block_fwd"] = ((blk_f, 0), 0, blk_back)
    res["block_bwd"] = ((blk_b, 0), 0, blk_back)
    res["mix_fwd"] = ((blk_f / iso_f if iso_f > 0 else 1.0, 0), 0, 0.0)
    res["mix_bwd"] = ((blk_b / iso_b if iso_b > 0 else 1.0, 0), 0, 0.0)
    # the dense layer list's own: the runner's MLP layer (Linear-GeLU-Linear on 2-D activations) against its ops'
    # classes, forward 2 linear_2d and the GeLU, backward 2 linear_2d (4 GEMMs, the weights' AccumulateGrad) and
    # the GeLU's. Reported, not modelled yet: on the one table measured without a profiler session before its
    # steps (2026-11-28) the transformer's ratio priced the MLP rows 16-47 % slow (docs/validation.md, "A profiler
    # session left CUPTI attached")
    mlp_f, mlp_b, mlp_back = mlp_host(tokens, h, dev)
    iso2_f = 2 * res["fwd_linear_2d"][0][0] + res["fwd_elementwise"][0][0]
    iso2_b = 2 * res["bwd_linear_2d"][0][0] + res["bwd_elementwise"][0][0]
    res["block_mlp_fwd"] = ((mlp_f, 0), 0, mlp_back)
    res["block_mlp_bwd"] = ((mlp_b, 0), 0, mlp_back)
    res["mix2d_fwd"] = ((mlp_f / iso2_f if iso2_f > 0 else 1.0, 0), 0, 0.0)
    res["mix2d_bwd"] = ((mlp_b / iso2_b if iso2_b > 0 else 1.0, 0), 0, 0.0)
    return res


def _sdpa_flash():
    """a context that picks SDPA's flash backend (a no-op on a torch without torch.nn.attention)"""
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
        return sdpa_kernel([SDPBackend.FLASH_ATTENTION])
    except ImportError:
        import contextlib
        return contextlib.nullcontext()


def _rank_worker(rank, tokens, h, rounds, barrier, q):
    """one process of rank_host_rows, on GPU `rank`: the block's host us a layer (forward + backward) each round,
    every round started with the other processes (barrier); (rank, -1, why) on a failure"""
    try:
        torch.cuda.set_device(rank)
        dev = torch.device("cuda", rank)
        with _sdpa_flash():
            block_host(tokens, h, dev)  # warm-up: the allocator, each kernel's first launch
            for r in range(rounds):
                barrier.wait(timeout=120)
                f, b, _ = block_host(tokens, h, dev)
                q.put((rank, r, f + b))
    except Exception as e:  # noqa: BLE001  # said to the parent, which writes a comment line instead of the rows
        q.put((rank, -1, "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:120] if str(e) else "")))
        barrier.abort()


def rank_host_rows(out, tokens=16, h=256, rounds=5):
    """`host,rank_block_ROUND,RANK` (the header): the standard block's host cost in one process per visible GPU at
    the same time (spawned, so none inherits this process's CUDA context or a profiler), `rounds` rounds each begun
    together. The processes of a training job run their host work side by side like this; a step waits at each
    collective for the slowest, and one process's probe reads a typical one (2026-11-28, 2 x H100: two ranks'
    simultaneous probes 1-18 % apart, their spread 7.0 %; docs/validation.md, "The slowest process"). Nothing with
    one GPU."""
    n = torch.cuda.device_count()
    if n < 2:
        return
    import multiprocessing as mp
    import queue
    ctx = mp.get_context("spawn")
    barrier, q = ctx.Barrier(n), ctx.Queue()
    procs = [ctx.Process(target=_rank_worker, args=(r, tokens, h, rounds, barrier, q)) for r in range(n)]
    for p in procs:
        p.start()
    got, err = {}, None
    while len(got) < n * rounds and err is None:
        try:
            rank, r, v = q.get(timeout=120)
        except queue.Empty:
            err = "no answer from the processes within 120 s"
            break
        if r < 0:
            err = "rank %d: %s" % (rank, v)
        else:
            got[(r, rank)] = v
    for p in procs:
        p.join(timeout=30)
        if p.is_alive():
            p.terminate()
    if err:
        out.append("# rank rows skipped: %s" % err)
        return
    for (r, rank), v in sorted(got.items()):
        out.append(f"host,rank_block_{r},{rank},0,0,{v:.2f}")


def tp_block_rows(out, tokens=16, h=256, rounds=3):
    """The host cost of one tensor-parallel collective as Megatron-style code issues it, in a mixed stream: the
    standard block with its f and g (two all-reduces forward, two backward, each with its autograd.Function) against
    the same block without them, on the 1-rank group of host_rows, alternated `rounds` times (median of each).
    `host,block_tp_fwd` and `host,block_tp_bwd` per layer; `host,tp_coll` = the median over the rounds of
    (difference forward + backward) / 4: one collective call, its Function pair and what interleaving them costs,
    which the tight loop of `all_reduce` does not show. A group of more ranks costs NCCL more per call
    (docs/calibration.md)."""
    plain_f, plain_b, tp_f, tp_b, back = [], [], [], [], 0.0
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
        flash = lambda: sdpa_kernel([SDPBackend.FLASH_ATTENTION])  # noqa: E731
    except ImportError:
        import contextlib
        flash = contextlib.nullcontext
    with flash():
        for _ in range(rounds):
            f, b, bk = block_host(tokens, h, "cuda")
            plain_f.append(f)
            plain_b.append(b)
            f, b, bk2 = block_host(tokens, h, "cuda", tp=True)
            tp_f.append(f)
            tp_b.append(b)
            back = max(back, bk, bk2)
    pf, pb = statistics.median(plain_f), statistics.median(plain_b)
    tf, tb = statistics.median(tp_f), statistics.median(tp_b)
    # each round's own difference (its two blocks timed seconds apart), then the median: a difference of medians
    # taken at different times read 70-160 us on one lease as the host drifted (2026-11-27, 4 x H200)
    coll = statistics.median((tp_f[i] - plain_f[i] + tp_b[i] - plain_b[i]) / 4 for i in range(len(tp_f)))
    out.append(f"host,block_tp_fwd,{tokens},0,0,{tf:.2f}")
    out.append(f"host,block_tp_bwd,{tokens},0,0,{tb:.2f}")
    out.append(f"host,block_plain_fwd,{tokens},0,0,{pf:.2f}")
    out.append(f"host,block_plain_bwd,{tokens},0,0,{pb:.2f}")
    out.append(f"host,tp_coll,{tokens},0,1,{max(0.0, coll):.2f}")
    out.append(f"host,tp_coll_backlog,{tokens},0,0,{back:.1f}")


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


# ----------------------------------------------------------------------------------------------------------
# torch.compile's host cost (compiled_rows)


class _CBlock(torch.nn.Module):
    """The runner's GPT block (validate/runner/torch_step.py Block, tp 1): pre-LN, no Linear biases, causal SDPA."""

    def __init__(self, h, hd=64):
        super().__init__()
        self.nh, self.hd = max(1, h // hd), hd

        def par(*shape):
            return torch.nn.Parameter(torch.randn(*shape, device="cuda", dtype=BF) * 0.02)
        self.ln1_w, self.ln1_b, self.ln2_w, self.ln2_b = par(h), par(h), par(h), par(h)
        self.w_qkv, self.w_o, self.w_1, self.w_2 = par(3 * h, h), par(h, h), par(4 * h, h), par(h, 4 * h)

    def forward(self, x):
        b, t, h = x.shape
        q, k, v = F.linear(F.layer_norm(x, (h,), self.ln1_w, self.ln1_b), self.w_qkv).split(h, dim=-1)
        q = q.view(b, t, self.nh, self.hd).transpose(1, 2)
        k = k.view(b, t, self.nh, self.hd).transpose(1, 2)
        v = v.view(b, t, self.nh, self.hd).transpose(1, 2)
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, t, h)
        x = x + F.linear(o, self.w_o)
        y = F.gelu(F.linear(F.layer_norm(x, (h,), self.ln2_w, self.ln2_b), self.w_1), approximate="tanh")
        return x + F.linear(y, self.w_2)


class _CMlp(torch.nn.Module):
    """The runner's MLP layer (validate/runner/torch_step.py MLP): Linear(h, h) - GeLU(tanh) - Linear(h, h)."""

    def __init__(self, h):
        super().__init__()
        self.w1 = torch.nn.Parameter(torch.randn(h, h, device="cuda", dtype=BF) * 0.02)
        self.w2 = torch.nn.Parameter(torch.randn(h, h, device="cuda", dtype=BF) * 0.02)

    def forward(self, x):
        return F.linear(F.gelu(F.linear(x, self.w1), approximate="tanh"), self.w2)


class _CStack(torch.nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.layers = torch.nn.ModuleList(layers)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def _own_stack(tag, layers):
    """A _CStack whose forward has a code object of its own: dynamo keeps its compiled graphs per code object and
    checks their guards in turn, so the stacks sharing one would each pay the others' guards, which the runner's one
    compiled module does not."""
    import types
    f = _CStack.forward
    code = f.__code__.replace(co_name="forward_" + tag)
    fwd = types.FunctionType(code, f.__globals__, code.co_name, f.__defaults__, f.__closure__)
    return type("_CStack_" + tag, (_CStack,), {"forward": fwd})(layers)


def _flat_adam(model):
    """The runner's FlatAdam (validate/runner/torch_step.py): parameters and gradients as views of one flat bf16
    buffer each (so backward's AccumulateGrad adds into an existing .grad), fused Adam on an fp32 master; returns
    (the gradient buffer, its step: cast the gradients, Adam, cast back)."""
    ps = list(model.parameters())
    n = sum(p.numel() for p in ps)
    flat = torch.empty(n, dtype=BF, device="cuda")
    gflat = torch.zeros(n, dtype=BF, device="cuda")
    off = 0
    for p in ps:
        k = p.numel()
        flat[off:off + k].copy_(p.data.view(-1))
        p.data = flat[off:off + k].view_as(p)
        p.grad = gflat[off:off + k].view_as(p)
        off += k
    master = flat.detach().to(torch.float32, copy=True)
    master.grad = torch.zeros_like(master)
    opt = torch.optim.Adam([master], lr=1e-5, fused=True)

    @torch.no_grad()
    def step():
        master.grad.copy_(gflat)
        opt.step()
        flat.copy_(master)
    return gflat, step


def _kernels(run):
    """(device activities, of them not generated by inductor) that run() launched: torch.profiler's CUDA events
    (kernels, memsets, copies); inductor's generated kernels are named triton_*, the rest are extern (cuBLAS
    GEMMs, flash attention) or eager (AccumulateGrad's add, the optimizer's)."""
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        run()
        torch.cuda.synchronize()
    names = [e.name for e in prof.events() if str(e.device_type).endswith("CUDA")]
    return len(names), sum(1 for s in names if "triton" not in s.lower())


def _graphs(clear=False):
    """The graphs dynamo compiled since its counters were last cleared (-1: not known in this torch)."""
    try:
        from torch._dynamo.utils import counters
        if clear:
            counters.clear()
        return int(counters["stats"]["unique_graphs"])
    except Exception:  # noqa: BLE001
        return -1


def _fwd_bwd_timed(m):
    """host_timed of a compiled module m (cm, x, dy): its forward call, then torch.autograd.backward on a fresh
    forward's output; (forward us, its backlog, backward us, its backlog)"""
    st = {}
    cm, x, dy = m["cm"], m["x"], m["dy"]
    f, bf = host_timed(lambda: st.clear() or st, lambda s, cm=cm, x=x: s.update(y=cm(x)))
    b, bb = host_timed(lambda cm=cm, x=x, dy=dy: (cm(x), dy), lambda s: torch.autograd.backward(s[0], s[1]))
    return f, bf, b, bb


def compiled_rows(out, tokens=16, h=256, depths=(1, 2, 4), rounds=5):
    """torch.compile's host cost (the header's `host,compiled_*` lines): stacks of `depths` runner MLP layers on
    (tokens, h) activations (family `mlp`) and runner GPT blocks on (1, tokens, h) (family `block`), each compiled
    once with torch.compile's default mode, as validate/runner/torch_step.py compiles its module, its parameters'
    gradients views of one flat buffer and the runner's eager fused Adam (FlatAdam). Compilation happens in 3
    untimed warm-up steps; then, `rounds` times in turn over all the stacks, the host time (host_timed) of the
    forward call, of torch.autograd.backward through the compiled backward graph (and the parameters' eager
    AccumulateGrad), of the whole step (zero the gradients, forward, backward, optimizer) and of the optimizer
    alone; each row the median over the rounds. Kernels per call are counted once with torch.profiler. A stack
    that fails to compile is a comment line."""
    import torch._dynamo
    torch._dynamo.reset()
    mods = []
    for fam in ("mlp", "block"):
        for L in depths:
            try:
                _graphs(clear=True)
                model = _own_stack("%s%d" % (fam, L), [_CMlp(h) if fam == "mlp" else _CBlock(h) for _ in range(L)])
                gflat, opt_step = _flat_adam(model)
                cm = torch.compile(model)
                shape = (tokens, h) if fam == "mlp" else (1, tokens, h)
                x = torch.randn(shape, device="cuda", dtype=BF)  # the runner's inputs need no gradient
                dy = torch.randn(shape, device="cuda", dtype=BF)

                def step(cm=cm, x=x, dy=dy, gflat=gflat, opt_step=opt_step):
                    gflat.zero_()
                    torch.autograd.backward(cm(x), dy)
                    opt_step()
                for _ in range(3):  # compiles the forward and the backward graph
                    step()
                torch.cuda.synchronize()
                graphs = _graphs()
                params = sum(1 for p in model.parameters() if p.requires_grad)
                mods.append(dict(fam=fam, L=L, cm=cm, x=x, dy=dy, gflat=gflat, step=step, opt=opt_step,
                                 params=params, graphs=graphs, t={}))
            except Exception as e:  # noqa: BLE001
                out.append("# compiled %s x%d skipped: %s: %s" % (fam, L, type(e).__name__,
                                                                 str(e).splitlines()[0][:120] if str(e) else ""))
    for _ in range(rounds):
        for m in mods:
            f, bf, b, bb = _fwd_bwd_timed(m)
            s, bs = host_timed(lambda: None, lambda _, m=m: m["step"]())
            o, bo = host_timed(lambda: None, lambda _, m=m: m["opt"]())
            cm, x, dy, gflat = m["cm"], m["x"], m["dy"], m["gflat"]
            sf, sb, so, _ = step_timed(gflat.zero_, lambda cm=cm, x=x: cm(x),
                                       lambda y, dy=dy: torch.autograd.backward(y, dy), m["opt"])
            s2 = step_timed(gflat.zero_, lambda cm=cm, x=x: cm(x), lambda y, dy=dy: torch.autograd.backward(y, dy),
                            m["opt"], m=2)[3]
            for key, v in (("fwd", f), ("bwd", b), ("step", s), ("step2", s2), ("opt", o), ("step_fwd", sf),
                           ("step_bwd", sb), ("step_opt", so), ("backlog", max(bf, bb, bs, bo))):
                m["t"].setdefault(key, []).append(v)
    for m in mods:  # the kernel counts after the timing: a profiler session slows the host after it ("CUPTI")
        cm, x, dy = m["cm"], m["x"], m["dy"]
        m["kf"] = _kernels(lambda cm=cm, x=x: cm(x))
        y = cm(x)
        m["kb"] = _kernels(lambda y=y, dy=dy: torch.autograd.backward(y, dy))
        m["ks"] = _kernels(m["step"])
        m["ko"] = _kernels(m["opt"])
    for m in mods:
        fam, L, t = m["fam"], m["L"], m["t"]
        med = {k: statistics.median(v) for k, v in t.items()}
        out.append(f"host,compiled_{fam}_fwd,{L},0,{m['kf'][0]},{med['fwd']:.2f}")
        out.append(f"host,compiled_{fam}_fwd_extern,{L},0,{m['kf'][1]},0.00")
        out.append(f"host,compiled_{fam}_bwd,{L},0,{m['kb'][0]},{med['bwd']:.2f}")
        out.append(f"host,compiled_{fam}_bwd_extern,{L},0,{m['kb'][1]},0.00")
        out.append(f"host,compiled_{fam}_step,{L},0,{m['ks'][0]},{med['step']:.2f}")
        for key in ("step2", "step_fwd", "step_bwd", "step_opt"):
            out.append(f"host,compiled_{fam}_{key},{L},0,0,{med[key]:.2f}")
        out.append(f"host,compiled_{fam}_opt,{L},0,{m['ko'][0]},{med['opt']:.2f}")
        out.append(f"host,compiled_{fam}_params,{L},0,{m['params']},0.00")
        out.append(f"host,compiled_{fam}_graphs,{L},0,{m['graphs']},0.00")
        out.append(f"host,compiled_{fam}_backlog,{L},0,0,{max(t['backlog']):.1f}")


def eager_step_rows(out, tokens=16, h=256, depths=(1, 2, 4), rounds=5):
    """A whole eager step against its parts (the header's `host,eager_*` lines): the same stacks as compiled_rows
    (runner MLP layers, runner GPT blocks; tokens x h; parameters and gradients views of one flat buffer, the
    runner's FlatAdam), run eagerly. `rounds` times in turn over the stacks: host_timed of the forward call, of
    torch.autograd.backward on a fresh forward's output and of the optimizer alone (each piece repeated on its
    own), then step_timed of whole steps (zero the flat gradient, forward, backward, optimizer): `step` and its
    pieces as the step ran them (`step_fwd`, `step_bwd`, `step_opt`), and `step2`, the same with two
    micro-batches. gpusim prices the pieces from the op classes, each timed repeated on its own; what a step's
    pieces cost where they run (after each other) is measured here (docs/calibration.md). No profiler: the rows
    are host times only."""
    mods = []
    for fam in ("mlp", "block"):
        for L in depths:
            model = _CStack([_CMlp(h) if fam == "mlp" else _CBlock(h) for _ in range(L)])
            gflat, opt_step = _flat_adam(model)
            shape = (tokens, h) if fam == "mlp" else (1, tokens, h)
            x = torch.randn(shape, device="cuda", dtype=BF)  # the runner's inputs need no gradient
            dy = torch.randn(shape, device="cuda", dtype=BF)
            mods.append(dict(fam=fam, L=L, cm=model, x=x, dy=dy, gflat=gflat, opt=opt_step, t={}))
    for _ in range(rounds):
        for m in mods:
            f, bf, b, bb = _fwd_bwd_timed(m)
            o, bo = host_timed(lambda: None, lambda _, m=m: m["opt"]())
            pieces = {}
            for mb in (1, 2):
                gflat, model, x, dy = m["gflat"], m["cm"], m["x"], m["dy"]
                pieces[mb] = step_timed(gflat.zero_, lambda model=model, x=x: model(x),
                                        lambda y, dy=dy: torch.autograd.backward(y, dy), m["opt"], m=mb)
            (sf, sb, so, s), s2 = pieces[1], pieces[2][3]
            for key, v in (("fwd", f), ("bwd", b), ("opt", o), ("step", s), ("step2", s2), ("step_fwd", sf),
                           ("step_bwd", sb), ("step_opt", so), ("backlog", max(bf, bb, bo))):
                m["t"].setdefault(key, []).append(v)
    for m in mods:
        fam, L, t = m["fam"], m["L"], m["t"]
        for key in ("fwd", "bwd", "opt", "step", "step2", "step_fwd", "step_bwd", "step_opt"):
            out.append(f"host,eager_{fam}_{key},{L},0,0,{statistics.median(t[key]):.2f}")
        out.append(f"host,eager_{fam}_backlog,{L},0,0,{max(t['backlog']):.1f}")


def _subgraphs(run):
    """The compiled functions run() called (torch.profiler's CPU events named CompiledFunction): the subgraphs
    dynamo's DDPOptimizer split a DDP module's graph into, one per call; -1 when the profile has none."""
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        run()
        torch.cuda.synchronize()
    n = sum(1 for e in prof.events() if e.name == "CompiledFunction")
    return n if n > 0 else -1


def compiled_ddp_rows(out, tokens=16, h=256, layers=4, rounds=5):
    """What each subgraph of a compiled DDP module costs the host (the header's `host,compiled_ddp_*` lines):
    dynamo's DDPOptimizer splits the graph of a DDP module at its bucket boundaries (sim/ddpsplit.h), and every
    subgraph is a compiled function called in the forward and again in the backward. The same stack of `layers`
    runner MLP layers (parameters views of one flat buffer, as the runner's FlatAdam makes them, so each counts
    the whole buffer: 1 MiB), wrapped in DDP on a 1-rank group with a bucket cap of 1 MiB and compiled twice: with DDPOptimizer off (torch._dynamo.config.optimize_ddp: one graph, DDP's hooks
    after its backward) and on (a subgraph per linear layer). The reducer's buckets and all-reduces are the same
    in both, so what differs is the subgraphs. Rows per variant (SUBGRAPHS the compiled functions a forward
    called): `fwd`, `bwd` (as compiled_rows times them: the forward call; torch.autograd.backward on its output),
    N the kernels. The slope over the subgraphs is a subgraph's own host cost (torchkern_compiled)."""
    import torch._dynamo
    import torch.distributed as dist
    own = not dist.is_initialized()
    if own:
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", "29542")
        dist.init_process_group("nccl", rank=0, world_size=1, device_id=torch.device("cuda", 0))
    try:
        _ddp_variants(out, tokens, h, layers, rounds)
    finally:
        if own:
            dist.destroy_process_group()


def _ddp_variants(out, tokens, h, layers, rounds):
    """compiled_ddp_rows' two compiled DDP modules, timed in turn"""
    import torch._dynamo
    torch._dynamo.reset()  # once: each stack's forward has a code object of its own (_own_stack), so its graphs stay
    mods = []
    for tag, split in (("ddpa", False), ("ddpb", True)):
        model = _own_stack(tag, [_CMlp(h) for _ in range(layers)])
        gflat, opt_step = _flat_adam(model)
        # a cap of 1 MiB, DDPOptimizer's first-bucket cap and (h 256, 4 layers) the flat buffer every parameter
        # counts: a subgraph per linear layer; below the first cap DDPOptimizer refuses to split
        ddp = torch.nn.parallel.DistributedDataParallel(model, device_ids=[0], bucket_cap_mb=1)
        cm = torch.compile(ddp)
        x = torch.randn(tokens, h, device="cuda", dtype=BF)
        dy = torch.randn(tokens, h, device="cuda", dtype=BF)
        with torch._dynamo.config.patch(optimize_ddp=split):  # dynamo reads it as it compiles, in the first step
            for _ in range(3):
                gflat.zero_()
                torch.autograd.backward(cm(x), dy)
                opt_step()
        torch.cuda.synchronize()
        mods.append(dict(cm=cm, x=x, dy=dy, t={}))
    for _ in range(rounds):
        for m in mods:
            f, _, b, _ = _fwd_bwd_timed(m)
            m["t"].setdefault("fwd", []).append(f)
            m["t"].setdefault("bwd", []).append(b)
    for m in mods:  # the profiled counts after the timing (compiled_rows says why)
        cm, x, dy = m["cm"], m["x"], m["dy"]
        m["n"] = _subgraphs(lambda cm=cm, x=x: cm(x))
        m["kf"] = _kernels(lambda cm=cm, x=x: cm(x))
        y = cm(x)
        m["kb"] = _kernels(lambda y=y, dy=dy: torch.autograd.backward(y, dy))
    for m in mods:
        out.append(f"host,compiled_ddp_fwd,{m['n']},0,{m['kf'][0]},{statistics.median(m['t']['fwd']):.2f}")
        out.append(f"host,compiled_ddp_bwd,{m['n']},0,{m['kb'][0]},{statistics.median(m['t']['bwd']):.2f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-host", action="store_true")
    ap.add_argument("--host-only", action="store_true", help="the host rows alone (no kernels, gaps or memory)")
    ap.add_argument("--host-tokens", type=int, default=16, help="tokens of the host-class probe's tensors")
    ap.add_argument("--no-memory", action="store_true")
    ap.add_argument("--no-compiled", action="store_true", help="without the torch.compile host rows")
    ap.add_argument("--compiled-only", action="store_true", help="the torch.compile host rows alone")
    a = ap.parse_args()
    torch.cuda.set_device(0)
    print("# torch %s, cuda %s, %s" % (torch.__version__, torch.version.cuda, torch.cuda.get_device_name(0)),
          flush=True)
    print("section,name,size,bytes,kernels,us", flush=True)
    if a.compiled_only:
        out = []
        compiled_section(out, a)
        for line in out:
            print(line, flush=True)
        return 0
    # the host rows first, before any torch.profiler session in this process: one leaves CUPTI attached and the
    # host's cost 30-45 % higher after it (validate/runner/cupti-after.sh, docs/validation.md "CUPTI"; the rows
    # were timed after the GPU work until 2026-11-28, which read the host 1.2-1.9x slower than a fresh process);
    # they are printed after the GPU rows, as before
    out, dist = [], None
    if not a.no_host:
        host_class_rows(out, tokens=a.host_tokens, rounds=2 if a.quick else 5)
        dist = host_rows(out)
        tp_block_rows(out, tokens=a.host_tokens, rounds=2 if a.quick else 5)
        rank_host_rows(out, tokens=a.host_tokens, rounds=2 if a.quick else 5)
        try:
            eager_step_rows(out, tokens=a.host_tokens, rounds=2 if a.quick else 5)
        except Exception as e:  # noqa: BLE001  # the rest of the host rows stand without them
            msg = str(e).splitlines()[0][:120] if str(e) else ""
            out.append("# eager step rows skipped: %s: %s" % (type(e).__name__, msg))
    # 64 Ki to 256 Mi elements, --quick too: gpusim fits each family's rate over the sizes above twice the L2
    # (calibrate/torchkern.c, fit_family), and an H200's 50 MiB leaves only 64 Mi and 256 Mi elements there; with
    # --quick's sweep to 64 Mi (until 2026-11-28) the elementwise rate read 6,237 GB/s and the norms, casts, fill and
    # Adam were not fitted: GPU-bound steps 2-3 % fast (docs/validation.md, "Quick calibrations"). The largest
    # size costs well under a second. kernel_rows holds every size's tensors at once, about 38 bytes an element of
    # the largest (its bf16 and fp32 operands, the norm and softmax inputs, outputs and gradients) and a third more
    # for the smaller sizes: a GPU with less free memory stops at a smaller size (fit_family then fits only the
    # families with two sizes above the floor)
    top = 28
    if not a.host_only:
        free = torch.cuda.mem_get_info()[0]
        while top > 20 and 52 * (1 << top) > 0.9 * free:
            top -= 2
    sizes = [1 << k for k in range(16, top + 1, 2)]
    for name, n, bpe, f in ([] if a.host_only else kernel_rows(sizes) + adam_rows(sizes[:-1])):
        us, k = kernel_us(f)
        print(f"kernel,{name},{n},{n * bpe},{k:.2f},{us:.3f}", flush=True)
    torch.cuda.empty_cache()
    for kind in ([] if a.host_only else ("small", "mixed")):
        g, k = gaps(kind, 800)
        print(f"gap,{kind},{k},0,{k},{g:.3f}", flush=True)
    if not a.host_only:
        extra = []
        try:
            gemm_extra_rows(extra)
        except Exception as e:  # noqa: BLE001  # an extra: the rest of the probe goes on without it
            msg = str(e).splitlines()[0][:120] if str(e) else ""
            extra = ["# extra rows skipped: %s: %s" % (type(e).__name__, msg)]
        for line in extra:
            print(line, flush=True)
        torch.cuda.empty_cache()
    if not a.no_host and not a.no_compiled:
        compiled_section(out, a)
    if not a.no_memory and not a.host_only and dist is not None:
        memory_rows(out)
    for line in out:
        print(line, flush=True)
    if dist is not None:
        dist.destroy_process_group()
    return 0


def compiled_section(out, a):
    """compiled_rows, or a comment line saying why not: a torch without a working torch.compile (no Triton, no
    compiler) leaves the rest of the calibration as it is."""
    try:
        compiled_rows(out, tokens=a.host_tokens, rounds=2 if a.quick else 5)
    except Exception as e:  # noqa: BLE001
        msg = str(e).splitlines()[0][:120] if str(e) else ""
        out.append("# compiled host rows skipped: %s: %s" % (type(e).__name__, msg))
    try:
        compiled_ddp_rows(out, tokens=a.host_tokens, rounds=2 if a.quick else 5)
    except Exception as e:  # noqa: BLE001
        msg = str(e).splitlines()[0][:120] if str(e) else ""
        out.append("# compiled ddp rows skipped: %s: %s" % (type(e).__name__, msg))


if __name__ == "__main__":
    sys.exit(main())
