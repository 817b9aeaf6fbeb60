#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""release_check: that validate/runner/torch_step.py frees each row before the next row resets the peak, checked
without PyTorch or GPUs (a CTest test).

torch.cuda.max_memory_allocated() after reset_peak_memory_stats() starts from what is allocated at the reset, so a
row's peak holds whatever an earlier row left allocated then. What DDP leaves: its bucket all-reduces are
asynchronous works nobody waits on, and ProcessGroupNCCL keeps their tensors (its "stash") until its watchdog
thread has seen them complete and the same process group runs another operation. m02-dp4 of the 4-GPU tables
carried t14-dp2-tp2's buckets (1.26 GB) that way, on a dp subgroup no later row used.

This runs torch_step.main() for the rows of 2, 4 and 8 GPUs (as rank 0) on a stand-in for torch that models just
that: tensors count their bytes while referenced (Python frees them when the last reference goes), a stub row holds
20 bytes a parameter of its shard, DDP buckets of 2 bytes a parameter, and 2 bytes a parameter of activations
during a step, each step runs one operation on each of the row's groups, and a DDP step's bucket all-reduce stays
stashed until the watchdog (TICK seconds after the work) and the next operation on that group. Every row's peak
must be its own bytes and its `carried` 0, for a watchdog that moves a work at once and one that needs 0.1 s
(time.sleep advances the clock; nothing else does). Exit 0 when every row passes, else 1 with the rows that failed.
"""
import contextlib
import io
import os
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True   # a CTest test leaves nothing in the source tree


class Mock:
    """The stand-in's state: bytes allocated and the peak since the last reset, the clock, the watchdog's delay."""

    def __init__(self, tick):
        self.alloc = self.peak = 0
        self.clock = 0.0
        self.tick = tick


M = Mock(0.0)


class Tensor:
    def __init__(self, nbytes=8, vals=None):
        self.nbytes, self.vals, self.mock = nbytes, vals, M   # a later check's state is another Mock
        M.alloc += nbytes
        M.peak = max(M.peak, M.alloc)

    def __del__(self):
        self.mock.alloc -= self.nbytes

    def tolist(self):
        return list(self.vals)

    def item(self):
        return self.vals[0]


class Group:
    """A process group: the stashed tensors of its asynchronous works, freed by its next operation once the
    watchdog has handed them over (tick seconds after the work)."""

    def __init__(self, ranks):
        self.ranks = tuple(ranks)
        self.stash = []

    def op(self):
        self.stash = [(t0, x) for t0, x in self.stash if M.clock - t0 < M.tick]


def _install(world):
    """Put the stand-in modules for torch, torch.nn, torch.nn.functional and torch.distributed in sys.modules."""
    def noop(*a, **k):
        return None

    def reset(dev):
        M.peak = M.alloc

    torch = types.ModuleType("torch")
    torch.__version__ = "mock"
    torch.version = types.SimpleNamespace(cuda="mock")
    torch.float32 = torch.float64 = torch.bfloat16 = "dtype"
    torch.device = lambda kind, index=0: types.SimpleNamespace(type=kind, index=index)
    torch.cuda = types.SimpleNamespace(
        set_device=noop, synchronize=noop, empty_cache=noop, get_device_name=lambda d: "mock",
        reset_peak_memory_stats=reset, max_memory_allocated=lambda d: M.peak, memory_allocated=lambda d: M.alloc)
    torch.ones = lambda *a, **k: Tensor(8, [1.0])
    torch.zeros = lambda *a, **k: Tensor(8, [0.0])
    torch.tensor = lambda v, **k: Tensor(8 * len(v), v)
    torch.no_grad = lambda: (lambda f: f)
    torch.autograd = types.SimpleNamespace(Function=object)
    nn = types.ModuleType("torch.nn")
    nn.Module = object
    nn.functional = types.ModuleType("torch.nn.functional")
    torch.nn = nn
    dist = types.ModuleType("torch.distributed")
    world_group = Group(range(world))
    dist.group = types.SimpleNamespace(WORLD=world_group)
    dist.is_initialized = lambda: world > 1
    dist.init_process_group = dist.destroy_process_group = noop
    dist.new_group = Group
    dist.ReduceOp = types.SimpleNamespace(MAX="max", MIN="min", SUM="sum")
    dist.all_reduce = lambda t, op=None, group=None: (group or world_group).op()
    torch.distributed = dist
    for name, mod in (("torch", torch), ("torch.nn", nn), ("torch.nn.functional", nn.functional),
                      ("torch.distributed", dist)):
        sys.modules[name] = mod


class StubRow:
    """A row's memory by its shard's n parameters: 20n held (bf16 weights and gradients, fp32 master, gradients
    and Adam), 2n of DDP buckets, 2n of activations during a step."""

    def __init__(self, r, args, lay, dev):
        import configs
        self.n = configs.params_per_layer(r) * r["layers"] // (lay.tp * lay.pp)
        self.lay = lay
        self.held = Tensor(20 * self.n)
        self.ddp = lay.dp > 1 and lay.pp == 1
        self.buckets = Tensor(2 * self.n) if self.ddp else None

    def own_bytes(self):
        return 22 * self.n + (2 * self.n if self.ddp else 0)

    def step(self, optimizer=True):
        act = Tensor(2 * self.n)
        del act
        M.clock += 0.05
        for kind in ("tp", "pp", "dp"):   # TP all-reduces, PP send/recv, the DP all-reduce after a pipeline
            if self.lay.size(kind) > 1:
                getattr(self.lay, kind + "_group").op()
        if self.ddp:                       # DDP's bucket all-reduce: asynchronous, never waited on
            self.lay.dp_group.stash.append((M.clock, self.buckets))


def check(world, tick):
    """Run the rows of `world` GPUs; return (rows, failures) with a line for each failure."""
    global M
    M = Mock(tick)
    _install(world)
    for name in ("torch_step", "configs"):
        sys.modules.pop(name, None)
    sys.path.insert(0, HERE)
    import configs
    import time
    import torch_step
    sleep = time.sleep
    time.sleep = lambda s: setattr(M, "clock", M.clock + s)
    torch_step.Row = StubRow
    os.environ.update(WORLD_SIZE=str(world), RANK="0", LOCAL_RANK="0")
    argv = sys.argv
    sys.argv = ["torch_step", "--gpus", str(world), "--warm-gpu-s", "0", "--warmup", "1", "--iters", "1"]
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            rc = torch_step.main()
    finally:
        time.sleep, sys.argv = sleep, argv
    if rc != 0:
        return 0, ["world %d: torch_step.main() returned %s:\n%s" % (world, rc, out.getvalue())]
    rows, bad = 0, []
    by_label = {r["label"]: r for r in configs.rows()}
    for line in out.getvalue().splitlines():
        w = line.split()
        if len(w) < 2 or w[1] != "median":
            continue
        rows += 1
        r = by_label[w[0]]
        lay = types.SimpleNamespace(tp=r["tp"], pp=r["pp"], dp=r["dp"])
        own = StubRow(r, None, lay, None).own_bytes() / 1e9
        peak = float(w[w.index("peak") + 1])
        carried = float(w[w.index("carried") + 1]) if "carried" in w else 0.0   # older runners print none
        if abs(peak - own) > 0.006 or carried != 0:
            bad.append("world %d, watchdog %.1f s: %s peak %.2f GB, its own %.2f GB, carried %.2f GB" % (
                world, tick, w[0], peak, own, carried))
    return rows, bad


def main():
    total, failures = 0, []
    for world in (2, 4, 8):
        for tick in (0.0, 0.1):
            n, bad = check(world, tick)
            total += n
            failures += bad
            if n == 0 and not bad:
                failures.append("world %d: no rows ran" % world)
    for f in failures:
        print(f)
    print("release_check: %d rows, %d failed" % (total, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
