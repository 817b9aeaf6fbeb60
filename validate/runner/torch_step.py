#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Reference runner for `gpusim validate`: train the rows of validate/runner/configs.py for a few steps on real GPUs
and write the median step time of each to a CSV that `gpusim validate` reads.

Runs on the GPU machine only (PyTorch with CUDA and NCCL):
    python3 validate/runner/torch_step.py --out measured.csv                      # the 1-GPU rows
    torchrun --standalone --nproc_per_node=2 validate/runner/torch_step.py --out measured.csv   # the 2-GPU rows
Each process runs the rows whose GPU count equals the world size (2, 4 or 8 under torchrun), one after another,
and appends one CSV line per row (rank 0 writes). validate/runner/device-run.sh runs every GPU count the machine has.
validate/runner/configs.py says exactly what a step is.

A step is: zero the gradient buffer, forward and backward of every micro-batch in the schedule, the DP
gradient all-reduce, and the optimizer step. Every step of a row starts on all ranks together (an all-reduce
and a device sync, outside the timer), is timed with time.perf_counter around the step and a device sync,
and counts as the slowest rank's time. The row's measurement is the median over the timed steps after the
warm-up steps.

--cpu runs the same code with gloo and fp32 on the CPU, and --check prints one gradient checksum per row
instead of timing, so tensor and pipeline parallel can be checked against the single-process result
(validate/runner/selftest-cpu.sh) on a machine without GPUs.
"""

import argparse
import contextlib
import datetime
import gc
import math
import os
import statistics
import sys
import time
import traceback

# A torch.profiler session leaves CUPTI attached for the rest of the process unless TEARDOWN_CUPTI=1, and eager
# PyTorch's host cost is 30-45 % higher after it (validate/runner/cupti-after.sh; docs/validation.md, "CUPTI").
os.environ.setdefault("TEARDOWN_CUPTI", "1")
import torch
import torch.distributed as dist
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import configs  # noqa: E402

try:  # torch >= 2.3
    from torch.nn.attention import SDPBackend, sdpa_kernel
except ImportError:  # pragma: no cover - old torch (CPU self-test)
    SDPBackend = sdpa_kernel = None


# ----------------------------------------------------------------------------------------------------------
# process layout


class Layout:
    """Ranks of one row: rank = (dp_i * pp + pp_i) * tp + tp_i (tensor parallel fastest, then pipeline)."""

    def __init__(self, r, rank, world, group_cache):
        self.dp, self.tp, self.pp = r["dp"], r["tp"], r["pp"]
        assert self.dp * self.tp * self.pp == world
        self.rank = rank
        self.tp_i = rank % self.tp
        self.pp_i = (rank // self.tp) % self.pp
        self.dp_i = rank // (self.tp * self.pp)
        self.tp_group = self._group(group_cache, "tp", world)
        self.pp_group = self._group(group_cache, "pp", world)
        self.dp_group = self._group(group_cache, "dp", world)
        self.first = self.pp_i == 0
        self.last = self.pp_i == self.pp - 1
        self.prev_rank = rank - self.tp if not self.first else None
        self.next_rank = rank + self.tp if not self.last else None

    def _members(self, kind, world):
        out = []
        for r in range(world):
            t, p, d = r % self.tp, (r // self.tp) % self.pp, r // (self.tp * self.pp)
            key = {"tp": (p, d), "pp": (t, d), "dp": (t, p)}[kind]
            out.append((key, r))
        groups = {}
        for key, r in out:
            groups.setdefault(key, []).append(r)
        return sorted(groups.values())

    def _group(self, cache, kind, world):
        """Process group of this rank for kind; the world group when it spans every rank. Every rank creates
        every group in the same order (dist.new_group is collective), once per layout."""
        if world == 1:
            return None
        sets = self._members(kind, world)
        if len(sets[0]) == world:
            return dist.group.WORLD
        mine = None
        for ranks in sets:
            key = tuple(ranks)
            if key not in cache:
                cache[key] = dist.new_group(ranks)
            if self.rank in ranks:
                mine = cache[key]
        return mine

    def size(self, kind):
        return {"tp": self.tp, "pp": self.pp, "dp": self.dp}[kind]

    def warm(self, dev, warmed):
        """One all-reduce on each proper subgroup of 3 or more ranks that this rank meets for the first time, so
        NCCL builds its communicator here, outside the timed steps, and not inside the first batched send/recv
        of a pipeline group, which torch requires every member to join. A group is first met where it is
        created (every rank creates every group, in the same order), so all its members reach this together; all
        do tp, then pp, then dp, and groups of one kind are disjoint, so no rank waits on one that waits on it.
        Worlds of 2 have no such group: the 2-GPU rows run as before."""
        for g, n in ((self.tp_group, self.tp), (self.pp_group, self.pp), (self.dp_group, self.dp)):
            if g is None or g is dist.group.WORLD or n < 3 or id(g) in warmed:
                continue
            warmed.add(id(g))
            t = torch.ones(1, device=dev)
            dist.all_reduce(t, group=g)


# ----------------------------------------------------------------------------------------------------------
# tensor parallel operators (Megatron f and g)


class _CopyToTP(torch.autograd.Function):
    """f: identity in forward, all-reduce of the input gradient in backward."""

    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        return x

    @staticmethod
    def backward(ctx, g):
        g = g.contiguous()
        dist.all_reduce(g, group=ctx.group)
        return g, None


class _ReduceFromTP(torch.autograd.Function):
    """g: all-reduce of the partial output in forward, identity in backward."""

    @staticmethod
    def forward(ctx, x, group):
        x = x.contiguous()
        dist.all_reduce(x, group=group)
        return x

    @staticmethod
    def backward(ctx, g):
        return g, None


# ----------------------------------------------------------------------------------------------------------
# model: parameters are made full size from a per-tensor seed and sliced, so a TP/PP run holds exactly the
# shards of the single-GPU model (what --check compares)


class Init:
    def __init__(self, device, dtype, seed=1234):
        self.device, self.dtype, self.seed = device, dtype, seed
        self.count = 0

    def full(self, shape, std):
        self.count += 1
        g = torch.Generator(device=self.device)
        g.manual_seed(self.seed * 1000003 + self.count)
        if std == 0:
            t = torch.zeros(shape, device=self.device, dtype=torch.float32)
        elif std < 0:  # LayerNorm weight: around one
            t = 1.0 + 0.1 * torch.randn(shape, generator=g, device=self.device, dtype=torch.float32)
        else:
            t = std * torch.randn(shape, generator=g, device=self.device, dtype=torch.float32)
        return t

    def param(self, t):
        return torch.nn.Parameter(t.to(self.dtype).contiguous())


def _rows(t, parts, tp, i):
    """Rows of this TP rank from each of the consecutive row blocks of sizes parts."""
    out, off = [], 0
    for n in parts:
        blk = t[off:off + n]
        out.append(blk[i * n // tp:(i + 1) * n // tp])
        off += n
    return torch.cat(out, 0)


def attention(q, k, v, gqa):
    if hasattr(F, "scaled_dot_product_attention"):
        if gqa:
            return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)
    # old torch (CPU self-test only): plain causal attention
    if gqa:
        rep = q.shape[1] // k.shape[1]
        k, v = k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1)
    s = q.shape[-2]
    w = (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
    mask = torch.ones(s, s, dtype=torch.bool, device=q.device).triu(1)
    return torch.softmax(w.masked_fill(mask, float("-inf")), -1) @ v


class Block(torch.nn.Module):
    """Pre-LN GPT block without linear biases (as gpusim counts it), Megatron tensor parallel over
    lay.tp_group."""

    def __init__(self, r, lay, ini, nlayers):
        super().__init__()
        h, nh, nkv, f = r["hidden"], r["heads"], r["kv_heads"], r["ffn_hidden"]
        tp, ti = lay.tp, lay.tp_i
        d = h // nh
        self.tp, self.group = tp, lay.tp_group
        self.nh, self.nkv, self.d = nh // tp, nkv // tp, d
        self.swiglu = r["ffn"] == "swiglu"
        std, ostd = 0.02, 0.02 / math.sqrt(2 * nlayers)
        qkv = (h, nkv * d, nkv * d)
        self.ln1_w = ini.param(ini.full((h,), -1))
        self.ln1_b = ini.param(ini.full((h,), 0.02))
        self.w_qkv = ini.param(_rows(ini.full((sum(qkv), h), std), qkv, tp, ti))
        self.w_o = ini.param(ini.full((h, h), ostd)[:, ti * h // tp:(ti + 1) * h // tp])
        self.ln2_w = ini.param(ini.full((h,), -1))
        self.ln2_b = ini.param(ini.full((h,), 0.02))
        up = (f, f) if self.swiglu else (f,)
        self.w_1 = ini.param(_rows(ini.full((sum(up), h), std), up, tp, ti))
        self.w_2 = ini.param(ini.full((h, f), ostd)[:, ti * f // tp:(ti + 1) * f // tp])
        # parameters replicated over TP (checksum counts them once)
        for p in (self.ln1_w, self.ln1_b, self.ln2_w, self.ln2_b):
            p.replicated = True

    def _f(self, x):
        return _CopyToTP.apply(x, self.group) if self.tp > 1 else x

    def _row_linear(self, x, w):
        y = F.linear(x, w)
        return _ReduceFromTP.apply(y, self.group) if self.tp > 1 else y

    def forward(self, x):
        b, s, h = x.shape
        y = self._f(F.layer_norm(x, (h,), self.ln1_w, self.ln1_b))
        qkv = F.linear(y, self.w_qkv)
        q, k, v = qkv.split([self.nh * self.d, self.nkv * self.d, self.nkv * self.d], dim=-1)
        q = q.view(b, s, self.nh, self.d).transpose(1, 2)
        k = k.view(b, s, self.nkv, self.d).transpose(1, 2)
        v = v.view(b, s, self.nkv, self.d).transpose(1, 2)
        o = attention(q, k, v, self.nkv != self.nh)
        o = o.transpose(1, 2).reshape(b, s, self.nh * self.d)
        x = x + self._row_linear(o, self.w_o)
        y = self._f(F.layer_norm(x, (h,), self.ln2_w, self.ln2_b))
        y = F.linear(y, self.w_1)
        if self.swiglu:
            gate, up = y.chunk(2, dim=-1)
            y = F.silu(gate) * up
        else:
            y = F.gelu(y, approximate="tanh")
        return x + self._row_linear(y, self.w_2)


class Stage(torch.nn.Module):
    """The layers of one pipeline stage; with vocab > 0 (single stage only) also the token embedding, final
    norm and an untied output head (no position embedding: gpusim counts neither), and forward returns the
    loss."""

    def __init__(self, r, lay, ini):
        super().__init__()
        L, per = r["layers"], r["layers"] // lay.pp
        self.vocab = r["vocab"]
        if self.vocab:
            h = r["hidden"]
            self.tok = ini.param(ini.full((self.vocab, h), 0.02))
        blocks = []
        for i in range(L):  # every rank draws every layer's seeds, so shards match the full model
            blk = Block(r, lay, ini, L)
            if lay.pp_i * per <= i < (lay.pp_i + 1) * per:
                blocks.append(blk)
        self.blocks = torch.nn.ModuleList(blocks)
        if self.vocab:
            self.lnf_w = ini.param(ini.full((r["hidden"],), -1))
            self.lnf_b = ini.param(ini.full((r["hidden"],), 0.0))
            self.head = ini.param(ini.full((self.vocab, r["hidden"]), 0.02))

    def forward(self, x, targets=None):
        if self.vocab:
            x = F.embedding(x, self.tok)
        for blk in self.blocks:
            x = blk(x)
        if self.vocab:
            x = F.layer_norm(x, (x.shape[-1],), self.lnf_w, self.lnf_b)
            logits = F.linear(x, self.head)
            return F.cross_entropy(logits.float().view(-1, self.vocab), targets.view(-1))
        return x


class MLP(torch.nn.Module):
    def __init__(self, r, ini):
        super().__init__()
        h, f = r["hidden"], r["ffn_hidden"]
        ps = []
        for _ in range(r["layers"]):
            ps += [ini.param(ini.full((f, h), 0.02)), ini.param(ini.full((h, f), 0.02))]
        self.ps = torch.nn.ParameterList(ps)

    def forward(self, x):
        for i in range(0, len(self.ps), 2):
            x = F.linear(F.gelu(F.linear(x, self.ps[i]), approximate="tanh"), self.ps[i + 1])
        return x


# ----------------------------------------------------------------------------------------------------------
# flat parameters and mixed-precision Adam


class FlatAdam:
    """Parameters and gradients as views into one flat buffer each (model dtype); Adam on an fp32 master copy.
    step(): one cast of the gradients to fp32, one fused Adam over the master, one cast back into the
    parameters. Backward accumulates into the gradient views in place (autograd adds into an existing .grad)."""

    def __init__(self, params, fused):
        self.params = list(params)
        p0 = self.params[0]
        n = sum(p.numel() for p in self.params)
        self.flat = torch.empty(n, dtype=p0.dtype, device=p0.device)
        self.gflat = torch.zeros(n, dtype=p0.dtype, device=p0.device)
        off = 0
        for p in self.params:
            k = p.numel()
            self.flat[off:off + k].copy_(p.data.view(-1))
            p.data = self.flat[off:off + k].view_as(p)
            p.grad = self.gflat[off:off + k].view_as(p)
            off += k
        self.master = self.flat.detach().to(torch.float32, copy=True)
        self.master.grad = torch.zeros_like(self.master)
        kw = {"fused": True} if fused else {}
        self.opt = torch.optim.Adam([self.master], lr=1e-5, **kw)
        self.numel = n

    def zero_grad(self):
        self.gflat.zero_()

    @torch.no_grad()
    def step(self):
        self.master.grad.copy_(self.gflat)
        self.opt.step()
        self.flat.copy_(self.master)


# ----------------------------------------------------------------------------------------------------------
# one row


class Row:
    def __init__(self, r, args, lay, device):
        self.r, self.args, self.lay, self.dev = r, args, lay, device
        self.dtype = torch.float32 if args.cpu else torch.bfloat16
        ini = Init(device, self.dtype)
        self.m = r["m"]
        if r["kind"] == "mlp":
            self.model = MLP(r, ini)
            self.shape = (r["mb"], r["hidden"])
        else:
            self.model = Stage(r, lay, ini)
            self.shape = (r["mb"], r["seq"], r["hidden"])
        self.opt = FlatAdam(self.model.parameters(), fused=not args.cpu)
        self.ddp = None
        if lay.dp > 1 and lay.pp == 1:
            from torch.nn.parallel import DistributedDataParallel as DDP
            kw = {} if args.cpu else {"device_ids": [device.index]}
            self.ddp = DDP(self.model, process_group=lay.dp_group, broadcast_buffers=False,
                           bucket_cap_mb=configs.DP_BUCKET_BYTES / 2**20, gradient_as_bucket_view=False, **kw)
        self.net = self.ddp if self.ddp is not None else self.model
        if r["execution"] == "compiled" and not args.cpu:
            # torch.compile's default mode over the module the step calls (DDP's too: its DDPOptimizer splits
            # the graph at the buckets); it compiles in the warm-up steps, which are not timed
            self.net = torch.compile(self.net)
        # inputs and output gradients of this replica's micro-batches, drawn per sample from the sample's
        # global index, so every layout (and micro-batch size) sees the same data. The output gradient is
        # that of a loss averaged over the global batch: 1/(m*mb) per sample (DDP divides by dp).
        g = torch.Generator(device=device)
        per = self.shape[1:]
        self.x, self.dy, self.tgt = [], [], []
        for i in range(self.m):
            xs, dys, ts = [], [], []
            for k in range(r["mb"]):
                g.manual_seed(7919 * ((lay.dp_i * self.m + i) * r["mb"] + k + 1))
                if r["vocab"]:
                    xs.append(torch.randint(0, r["vocab"], per[:1], generator=g, device=device))
                    ts.append(torch.randint(0, r["vocab"], per[:1], generator=g, device=device))
                else:
                    xs.append(torch.randn(per, generator=g, device=device))
                    dys.append(torch.randn(per, generator=g, device=device))
            if r["vocab"]:
                self.x.append(torch.stack(xs))
                self.tgt.append(torch.stack(ts))
                self.dy.append(None)
            else:
                self.x.append(torch.stack(xs).to(self.dtype))
                self.dy.append((torch.stack(dys) / (self.m * r["mb"])).to(self.dtype))

    # -- pieces ---------------------------------------------------------------------------------------------

    def _net(self):
        return self.net

    def _p2p(self, send_prev=None, send_next=None, recv_prev=False, recv_next=False):
        lay, ops, got_prev, got_next = self.lay, [], None, None
        P = dist.P2POp
        if send_prev is not None:
            ops.append(P(dist.isend, send_prev.contiguous(), lay.prev_rank, lay.pp_group))
        if recv_prev:
            got_prev = torch.empty(self.shape, dtype=self.dtype, device=self.dev)
            ops.append(P(dist.irecv, got_prev, lay.prev_rank, lay.pp_group))
        if send_next is not None:
            ops.append(P(dist.isend, send_next.contiguous(), lay.next_rank, lay.pp_group))
        if recv_next:
            got_next = torch.empty(self.shape, dtype=self.dtype, device=self.dev)
            ops.append(P(dist.irecv, got_next, lay.next_rank, lay.pp_group))
        if ops:
            for req in dist.batch_isend_irecv(ops):
                req.wait()
        if got_prev is not None:
            got_prev.requires_grad_(True)
        return got_prev, got_next

    def _fwd(self, i, x):
        if self.r["vocab"]:
            return self._net()(self.x[i], self.tgt[i]) / self.m  # token mean per micro-batch
        return self._net()(x)

    def _bwd(self, i, x, y, g):
        if self.r["vocab"]:
            y.backward()
        else:
            torch.autograd.backward(y, grad_tensors=g)
        return x.grad if (x is not None and x.requires_grad) else None

    # -- schedules ------------------------------------------------------------------------------------------

    def _no_pipeline(self):
        for i in range(self.m):
            sync = self.ddp.no_sync() if (self.ddp is not None and i < self.m - 1) else contextlib.nullcontext()
            with sync:
                y = self._fwd(i, self.x[i])
                self._bwd(i, None, y, self.dy[i])

    def _recv_fwd(self, i):
        return self.x[i] if self.lay.first else self._p2p(recv_prev=True)[0]

    def _send_fwd(self, y):
        if not self.lay.last:
            self._p2p(send_next=y)

    def _recv_bwd(self, i):
        return self.dy[i] if self.lay.last else self._p2p(recv_next=True)[1]

    def _send_bwd(self, gx):
        if not self.lay.first:
            self._p2p(send_prev=gx)

    def _send_fwd_recv_bwd(self, y, i):
        if self.lay.last:
            return self.dy[i]
        return self._p2p(send_next=y, recv_next=True)[1]

    def _send_bwd_recv_fwd(self, gx, i):
        if self.lay.first:
            return self.x[i]
        return self._p2p(send_prev=gx, recv_prev=True)[0]

    def _gpipe(self):
        xs, ys = [], []
        for i in range(self.m):
            x = self._recv_fwd(i)
            y = self._fwd(i, x)
            self._send_fwd(y)
            xs.append(x)
            ys.append(y)
        for i in range(self.m):
            g = self._recv_bwd(i)
            self._send_bwd(self._bwd(i, xs[i], ys[i], g))
            xs[i] = ys[i] = None

    def _1f1b(self):
        """PipeDream-Flush as Megatron's forward_backward_pipelining_without_interleaving: warm-up forwards,
        steady one-forward-one-backward with the paired send/recv batched, cool-down backwards."""
        m, lay = self.m, self.lay
        warm = min(lay.pp - lay.pp_i - 1, m)
        steady = m - warm
        fifo = []
        for i in range(warm):
            x = self._recv_fwd(i)
            y = self._fwd(i, x)
            self._send_fwd(y)
            fifo.append((i, x, y))
        x = self._recv_fwd(warm) if steady > 0 else None
        for k in range(steady):
            i = warm + k
            y = self._fwd(i, x)
            fifo.append((i, x, y))
            j, xj, yj = fifo.pop(0)
            g = self._send_fwd_recv_bwd(y, j)
            gx = self._bwd(j, xj, yj, g)
            if k == steady - 1:
                self._send_bwd(gx)
                x = None
            else:
                x = self._send_bwd_recv_fwd(gx, i + 1)
        for _ in range(warm):
            j, xj, yj = fifo.pop(0)
            g = self._recv_bwd(j)
            self._send_bwd(self._bwd(j, xj, yj, g))

    def _dp_allreduce_after(self):
        """DP with PP (not DDP): one all-reduce per bucket after the schedule (scenario dp_overlap false)."""
        g, n = self.opt.gflat, self.opt.numel
        step = max(1, int(configs.DP_BUCKET_BYTES // g.element_size()))
        for off in range(0, n, step):
            dist.all_reduce(g[off:off + step], group=self.lay.dp_group)
        g.div_(self.lay.dp)

    def step(self, optimizer=True):
        self.opt.zero_grad()
        if self.lay.pp == 1:
            self._no_pipeline()
        elif self.r["schedule"] == "gpipe":
            self._gpipe()
        else:
            self._1f1b()
        if self.lay.pp > 1 and self.lay.dp > 1:
            self._dp_allreduce_after()
        if optimizer:
            self.opt.step()

    def checksum(self):
        """Sum of squared gradients over the whole model, each parameter counted once."""
        lay = self.lay
        tot = torch.zeros((), dtype=torch.float64, device=self.dev)
        if lay.dp_i == 0:
            for p in self.model.parameters():
                if getattr(p, "replicated", False) and lay.tp_i != 0:
                    continue
                tot += p.grad.double().pow(2).sum()
        if dist.is_initialized():
            dist.all_reduce(tot)
        return tot.item()


# ----------------------------------------------------------------------------------------------------------
# driver


def sync(dev):
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def barrier(dev):
    if dist.is_initialized():
        t = torch.ones(1, device=dev)
        dist.all_reduce(t)
    sync(dev)


def warm_gpu(dev, seconds):
    """Bring the clocks up before the first row (matrix products for about `seconds`)."""
    if dev.type != "cuda" or seconds <= 0:
        return
    a = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(10):
            a @ a
        sync(dev)
    del a


def host_probe(dev, dtype):
    """Host cost of eager PyTorch: forward+backward of toy layers whose GPU work is negligible, so the time is
    what the host needs to issue a layer's kernels. A diagnostic for the hardware model's launch overhead."""
    out = []
    toy = dict(kind="transformer", layers=8, hidden=256, heads=4, kv_heads=4, ffn="gelu", ffn_hidden=1024,
               seq=16, mb=1, vocab=0, dp=1, tp=1, pp=1)
    for kind in ("transformer", "mlp"):
        r = dict(toy, kind=kind)
        model = (Stage(r, Layout(r, 0, 1, {}), Init(dev, dtype)) if kind == "transformer"
                 else MLP(r, Init(dev, dtype)))
        shape = (1, 16, 256) if kind == "transformer" else (16, 256)
        x, dy = torch.randn(shape, device=dev, dtype=dtype), torch.randn(shape, device=dev, dtype=dtype)
        ctx = contextlib.nullcontext()
        if dev.type == "cuda" and sdpa_kernel is not None and kind == "transformer":
            ctx = sdpa_kernel([SDPBackend.FLASH_ATTENTION])
        with ctx:
            for _ in range(3):
                model(x).backward(dy)
            sync(dev)
            n = 30
            t0 = time.perf_counter()
            for _ in range(n):
                model(x).backward(dy)
            sync(dev)
            us = (time.perf_counter() - t0) / (n * r["layers"]) * 1e6
            kernels = 0
            try:
                from torch.profiler import ProfilerActivity, profile
                with profile(activities=[ProfilerActivity.CUDA]) as prof:
                    model(x).backward(dy)
                    sync(dev)
                kernels = sum(1 for e in prof.events() if str(e.device_type).endswith("CUDA")) / r["layers"]
            except Exception:  # noqa: BLE001 - the profiler is a nicety here
                pass
        per = " (%.0f kernels, %.1f us each)" % (kernels, us / kernels) if kernels else ""
        out.append("%s layer fwd+bwd %.0f us on the host%s" % (kind, us, per))
    return "host probe: " + "; ".join(out)


def flash_ctx(r=None):
    """SDPA's flash backend for a transformer row (r None: for any code), where this torch has sdpa_kernel; else a
    context that does nothing."""
    if sdpa_kernel is not None and (r is None or r["kind"] == "transformer"):
        return sdpa_kernel([SDPBackend.FLASH_ATTENTION])
    return contextlib.nullcontext()


def host_yardstick(dev):
    """--yardstick: how fast this process's host issues eager PyTorch now. calibrate/torch_kernels.py's standard
    block (block_host: 8 pre-LN GPT blocks of 256 on 16 tokens, forward and backward, the GPU far behind the host),
    in us per layer: (forward, backward), the numbers of a calibration's `host,block_fwd` and `host,block_bwd` rows
    (and, summed, its `host,rank_block_*` rows), so a row's reading over its calibration's is how much slower or
    faster this host ran than the one the calibration measured (validate/host_speed.py). About 0.2 s."""
    cal = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "calibrate")
    if cal not in sys.path:
        sys.path.insert(0, cal)
    import torch_kernels  # calibrate's probe: the block its host rows time (imported once, then from sys.modules)
    with flash_ctx():
        f, b, _ = torch_kernels.block_host(16, 256, dev)
    return f, b


def shrink(r):
    """--tiny: the same row structure (modes, batches, micro-batches) with toy sizes, for the CPU self-test. The
    sizes depend on the config alone, never on the mode, so every row of a config trains the same toy model as
    its single-GPU row (what --check compares): enough heads for the config's widest tensor parallel split and
    enough layers for its deepest pipeline (4 heads, 2 KV heads with GQA, 4 layers where 2 GPUs is the most)."""
    r = dict(r)
    if r["kind"] == "mlp":
        r.update(hidden=32, ffn_hidden=48)
        return r
    same = [x for x in configs.rows() if x["id"] == r["id"]]
    tpmax = max(x["tp"] for x in same)
    gqa = r["kv_heads"] != r["heads"]
    kv = max(2, tpmax) if gqa else max(4, tpmax)
    heads = max(4, 2 * kv) if gqa else kv
    layers = min(r["layers"], max(4, max(x["pp"] for x in same)))
    if any(layers % x["pp"] for x in same):
        layers = r["layers"]
    r.update(hidden=max(64, 8 * heads), heads=heads, kv_heads=kv if gqa else heads, seq=16, layers=layers,
             ffn_hidden=96 if r["ffn"] == "swiglu" else 256, vocab=100 if r["vocab"] else 0)
    return r


def allocated(dev):
    return torch.cuda.memory_allocated(dev) if dev.type == "cuda" else 0


def row_groups(lay):
    """The process groups this rank used in a row, each once, in the same order on every rank: the world, then
    its tp, pp and dp groups of more than one rank (groups of one kind are disjoint, so an all-reduce on each in
    turn has no rank wait on one that waits on it, as in Layout.warm). lay None (the row failed before its
    layout): the world alone."""
    if not dist.is_initialized():
        return []
    out = [dist.group.WORLD]
    for kind in ("tp", "pp", "dp") if lay is not None else ():
        g = getattr(lay, kind + "_group")
        if g is not None and lay.size(kind) > 1 and all(g is not h for h in out):
            out.append(g)
    return out


def release_row(dev, groups, settle_s):
    """Free what a finished row left allocated, before the next row resets the peak (max_memory_allocated
    starts from what is allocated at the reset, so anything left would count in the next row's peak).

    Dropping the row's references is not enough under DDP: its bucket all-reduces are asynchronous works nobody
    waits on, and ProcessGroupNCCL (PyTorch >= 2.8, which stashes an async work's tensors instead of calling
    record_stream) keeps their tensors until its watchdog thread, which looks at the works every 100 ms, has
    seen them complete and handed them to the process group, which frees them at its next operation. A
    subgroup that no later row uses (t14-dp2-tp2's dp groups {0,2} and {1,3}) kept the last step's buckets,
    1.26 GB, through m02-dp4. So: collect, give the watchdog settle_s (rows with DDP), then one tiny all-reduce
    on each group the row used (row_groups), and return the cache's free blocks to the driver."""
    gc.collect()
    sync(dev)
    if groups and settle_s > 0 and dev.type == "cuda":
        time.sleep(settle_s)
    t = torch.zeros(1, device=dev)
    for g in groups:
        dist.all_reduce(t, group=g)
    sync(dev)
    del t
    if dev.type == "cuda":
        torch.cuda.empty_cache()


# the time release_row gives the NCCL watchdog (its period is 100 ms) after a row with DDP
RELEASE_SETTLE_S = 0.3


def run_row(r, args, lay, world, dev, cache, carried=0):
    """One row on this rank's layout lay; carried: bytes allocated at its start beyond what was allocated
    before the phase's first row (a diagnostic: 0 when every earlier row was freed)."""
    if world > 2:
        lay.warm(dev, cache.setdefault("warmed", set()))
    ctx = contextlib.nullcontext()
    if dev.type == "cuda" and sdpa_kernel is not None and r["kind"] == "transformer":
        ctx = sdpa_kernel([SDPBackend.FLASH_ATTENTION])
    compiled = r["execution"] == "compiled" and not args.cpu
    if compiled:
        dynamo_counts(clear=True)
    with ctx:
        row = Row(r, args, lay, dev)
        if dev.type == "cuda":
            gc.collect()
            torch.cuda.reset_peak_memory_stats(dev)
        barrier(dev)
        if args.check:
            row.step(optimizer=False)
            sync(dev)
            return {"checksum": row.checksum()}
        ys = list(host_yardstick(dev)) if args.yardstick else []
        steps = timed_steps(row, dev, args.warmup + args.iters)
        times, host = [t for t, _ in steps], [h for _, h in steps]
        if args.yardstick:
            ys += host_yardstick(dev)
    peak = torch.cuda.max_memory_allocated(dev) if dev.type == "cuda" else 0
    ranks = None
    if args.steps:  # every rank's own steps, before the slowest rank's is taken (--steps)
        mine = torch.tensor(times + host, dtype=torch.float64, device=dev)
        ranks = [mine]
        if dist.is_initialized():
            ranks = [torch.empty_like(mine) for _ in range(world)]
            dist.all_gather(ranks, mine)
        ranks = [x.tolist() for x in ranks]
    yard = None
    if ys:  # every rank's yardstick before and after its steps (--yardstick)
        mine = torch.tensor(ys, dtype=torch.float64, device=dev)
        yard = [mine]
        if dist.is_initialized():
            yard = [torch.empty_like(mine) for _ in range(world)]
            dist.all_gather(yard, mine)
        yard = [x.tolist() for x in yard]
    t = torch.tensor(times + [peak, carried], dtype=torch.float64, device=dev)
    if dist.is_initialized():
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
    t = t.tolist()
    timed = t[args.warmup:-2]
    del row
    return {"median": statistics.median(timed), "min": min(timed), "max": max(timed), "n": len(timed),
            "peak_mem": t[-2], "carried": t[-1], "dynamo": dynamo_counts() if compiled else None, "ranks": ranks,
            "yardstick": yard}


def timed_steps(row, dev, n):
    """n steps of row, each started on every rank together (barrier): [(seconds to the device sync, seconds of the
    host's part: the step enqueued, before the sync)]"""
    res = []
    for _ in range(n):
        barrier(dev)
        t0 = time.perf_counter()
        row.step()
        host = time.perf_counter() - t0
        sync(dev)
        res.append((time.perf_counter() - t0, host))
    return res


def write_steps(path, label, warmup, ranks):
    """--steps: one line per rank and timed step: its own step time (seconds, to its device sync) and its host's
    part (to the end of the enqueue, before the sync); a row's measurement is the median over steps of the slowest
    rank's step. A host-bound step has host_s close to step_s; a rank that waits for another at a collective has
    a step_s above its host_s and its GPU work."""
    new = not os.path.exists(path)
    with open(path, "a") as f:
        if new:
            f.write("label,rank,step,step_s,host_s\n")
        for rank, v in enumerate(ranks):
            n = len(v) // 2
            for i in range(warmup, n):
                f.write("%s,%d,%d,%.6g,%.6g\n" % (label, rank, i - warmup, v[i], v[n + i]))


def write_yardstick(path, label, ranks):
    """--yardstick: one line per rank and row: the host yardstick (host_yardstick: us per layer of the standard
    block, forward and backward) just before the row's first step and just after its last."""
    new = not os.path.exists(path)
    with open(path, "a") as f:
        if new:
            f.write("label,rank,before_fwd_us,before_bwd_us,after_fwd_us,after_bwd_us\n")
        for rank, v in enumerate(ranks):
            f.write("%s,%d,%s\n" % (label, rank, ",".join("%.2f" % x for x in v)))


def dynamo_counts(clear=False):
    """What dynamo compiled for a compiled row (this rank, since the last clear): "graphs G, breaks B" (G unique
    graphs: one per DDPOptimizer bucket split or graph break, each a host call of its own in every step), or
    "graphs ?" where this torch keeps no such counters."""
    try:
        from torch._dynamo.utils import counters
        if clear:
            counters.clear()
            return ""
        return "graphs %d, breaks %d" % (int(counters["stats"]["unique_graphs"]),
                                         sum(counters["graph_break"].values()))
    except Exception:  # noqa: BLE001 - a diagnostic only
        return "graphs ?"


CSV_HEADER = ("scenario,measured_step_s,label,baseline,id,mode,gpus,repeats,step_s_min,step_s_max,"
              "peak_mem_bytes,device\n")


def read_progress(path):
    done, started = set(), set()
    if path and os.path.exists(path):
        with open(path) as f:
            for line in f:
                w = line.split()
                if len(w) >= 2 and w[0] in ("start", "done", "fail"):
                    (started if w[0] == "start" else done).add(w[1])
    return done, started - done


def log_progress(path, rank, word, label, msg=""):
    if path and rank == 0:
        with open(path, "a") as f:
            f.write("%s %s %s\n" % (word, label, msg.replace("\n", " ")[:300]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="CSV to append rows to (header written when new)")
    ap.add_argument("--rows", default="all", help="comma list of labels or config ids (default all)")
    ap.add_argument("--gpus", type=int, default=0, help="run rows of this GPU count (default: world size)")
    ap.add_argument("--warmup", type=int, default=configs.WARMUP_STEPS)
    ap.add_argument("--iters", type=int, default=configs.TIMED_STEPS)
    ap.add_argument("--progress", help="progress file: rows done or failed are skipped when run again, and a "
                    "row that started but never finished (a crash or hang) is marked failed and skipped")
    ap.add_argument("--cpu", action="store_true", help="gloo and fp32 on the CPU (self-test)")
    ap.add_argument("--tiny", action="store_true", help="toy sizes (self-test)")
    ap.add_argument("--check", action="store_true", help="print a gradient checksum per row, no timing")
    ap.add_argument("--warm-gpu-s", type=float, default=2.0)
    ap.add_argument("--pg-timeout-s", type=int, default=90)
    ap.add_argument("--list", action="store_true", help="list the rows and exit")
    ap.add_argument("--probe", action="store_true", help="also print the host cost of eager layers (rank 0, after the rows)")
    ap.add_argument("--steps", help="CSV to append every rank's timed steps to (label,rank,step,step_s,host_s)")
    ap.add_argument("--yardstick", help="CSV to append every rank's host yardstick to, taken just before each row's "
                    "steps and just after (host_yardstick: calibrate's standard block, us per layer; about 0.4 s a row)")
    args = ap.parse_args()

    rows = configs.select(args.rows)
    if args.list:
        for r in rows:
            print(r["label"], r["gpus"], configs.scenario_relpath(r["label"]))
        return 0

    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    local = int(os.environ.get("LOCAL_RANK", "0"))
    if args.cpu:
        dev = torch.device("cpu")
    else:
        torch.cuda.set_device(local)
        dev = torch.device("cuda", local)
    if world > 1:
        dist.init_process_group("gloo" if args.cpu else "nccl",
                                timeout=datetime.timedelta(seconds=args.pg_timeout_s))
    ngpus = args.gpus or world
    rows = [r for r in rows if r["gpus"] == ngpus]
    if ngpus != world:
        print("torch_step: rows of %d GPUs need a world of %d processes, have %d" % (ngpus, ngpus, world),
              file=sys.stderr)
        return 2
    name = "cpu" if args.cpu else torch.cuda.get_device_name(dev)
    if rank == 0:
        nccl = ""
        if not args.cpu and hasattr(torch.cuda, "nccl"):
            try:
                nccl = " nccl %s" % (torch.cuda.nccl.version(),)
            except Exception:  # noqa: BLE001
                pass
        print("torch_step: torch %s cuda %s%s, world %d, device %s, %d rows" % (
            torch.__version__, torch.version.cuda, nccl, world, name, len(rows)), flush=True)

    done, crashed = read_progress(args.progress)
    for label in sorted(crashed):
        log_progress(args.progress, rank, "fail", label, "crashed or hung in an earlier attempt")
    skip = done | crashed
    if world > 1:
        barrier(dev)
    warm_gpu(dev, args.warm_gpu_s)

    cache = {}
    nfail = 0
    base = allocated(dev)
    for r in rows:
        if r["label"] in skip:
            if rank == 0:
                print("%-18s skipped (progress file)" % r["label"], flush=True)
            continue
        if args.tiny:
            r = shrink(r)
        log_progress(args.progress, rank, "start", r["label"])
        t_row = time.perf_counter()
        res, err, lay = None, "", None
        try:
            lay = Layout(r, rank, world, cache)
            res = run_row(r, args, lay, world, dev, cache, carried=allocated(dev) - base)
        except Exception as e:  # noqa: BLE001 - one row's failure must not end the others
            err = "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
            traceback.print_exc()
        ddp = lay is not None and lay.dp > 1 and lay.pp == 1
        try:
            release_row(dev, row_groups(lay), RELEASE_SETTLE_S if ddp else 0.0)
        except Exception as e:  # noqa: BLE001 - the next row still runs; its carried bytes will say
            print("%s: releasing the row's memory failed: %s" % (r["label"], e), file=sys.stderr, flush=True)
        ok = torch.tensor([0.0 if err else 1.0], device=dev)
        if world > 1:
            dist.all_reduce(ok, op=dist.ReduceOp.MIN)
        if ok.item() < 1:
            nfail += 1
            log_progress(args.progress, rank, "fail", r["label"], err or "failed on another rank")
            if rank == 0:
                print("%-18s FAILED %s" % (r["label"], err or "on another rank"), flush=True)
            continue
        log_progress(args.progress, rank, "done", r["label"])
        if rank != 0:
            continue
        if args.check:
            print("CHECK %s %.12e" % (r["label"], res["checksum"]), flush=True)
            continue
        if args.steps and res.get("ranks"):
            write_steps(args.steps, r["label"], args.warmup, res["ranks"])
        if args.yardstick and res.get("yardstick"):
            write_yardstick(args.yardstick, r["label"], res["yardstick"])
        print("%-18s median %9.3f ms  min %9.3f  max %9.3f  (%d steps)  peak %6.2f GB  carried %5.2f GB  "
              "row %.1f s" % (r["label"], res["median"] * 1e3, res["min"] * 1e3, res["max"] * 1e3, res["n"],
                              res["peak_mem"] / 1e9, res["carried"] / 1e9, time.perf_counter() - t_row) +
              ("  (%s)" % res["dynamo"] if res.get("dynamo") else ""), flush=True)
        if args.out:
            new = True
            if os.path.exists(args.out):
                with open(args.out) as f:
                    new = not any(line.startswith("scenario,") for line in f)
            with open(args.out, "a") as f:
                if new:
                    f.write(CSV_HEADER)
                f.write("%s,%.6g,%s,%s,%s,%s,%d,%d,%.6g,%.6g,%.0f,%s\n" % (
                    configs.scenario_relpath(r["label"]), res["median"], r["label"], r["baseline"], r["id"],
                    r["mode"], r["gpus"], res["n"], res["min"], res["max"], res["peak_mem"],
                    name.replace(",", " ")))
                f.flush()
                os.fsync(f.fileno())
    # the host probe after the rows: it counts kernels with torch.profiler, after which the host-bound rows of
    # this process ran 11-41 % slower until 2026-11-28 (validate/runner/cupti-after.sh; docs/validation.md, "CUPTI")
    if args.probe and rank == 0:
        try:
            print(host_probe(dev, torch.float32 if args.cpu else torch.bfloat16), flush=True)
        except Exception as e:  # noqa: BLE001
            print("host probe failed: %s" % e, flush=True)
    if world > 1:
        barrier(dev)
        dist.destroy_process_group()
    log_progress(args.progress, rank, "finished", "-", "%d rows failed" % nfail)
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
