#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Where a reference step's GPU time goes, kernel by kernel: runs single-GPU rows of validate/runner/configs.py the way
validate/runner/torch_step.py does, profiles one step after warm-up with torch.profiler (CUDA activity), and writes one
CSV line per (row, kernel class): GPU time summed over the step. A diagnostic for `gpusim validate`: compare with
`gpusim predict --trace` of the same scenario to see which op the model gets wrong. Runs on the GPU machine only.

usage: validate/runner/kernel_profile.py --rows t07-single,t12-single --out FILE.csv [--host HOST.csv] [--kernels K.csv]
       [--gaps G.csv]
  --kernels  also one line per kernel name (label,kernel_class,kernel,calls,gpu_us): which attention, GEMM or
          elementwise kernel the time is in, to compare with the ops of `gpusim predict --trace`
  --gaps  also the GPU's idle time between consecutive kernels of the profiled step, by the class of the kernel
          after the gap (label,next_class,gaps,total_us,median_us,over_10us,over_10us_total_us; a line `span` with
          the first kernel's start to the last one's end and the kernels' sum, a line `wall` with the median wall
          time of 5 unprofiled steps before it, a line `profiled_wall` with the profiled step's own wall time; the
          profiled step is the third of three back to back under torch.profiler's schedule): what the model's gap_us
          and host costs must account for
  --host  also profile the host side of the same step: self CPU time of the top operators, and the step's wall
          time against the sum of its kernels (where a host-bound step's time goes)
"""
import argparse
import collections
import os
import sys
import types

# A torch.profiler session leaves CUPTI attached for the rest of the process unless TEARDOWN_CUPTI=1, and eager
# PyTorch's host cost is 30-45 % higher after it (validate/runner/cupti-after.sh; docs/validation.md, "CUPTI").
os.environ.setdefault("TEARDOWN_CUPTI", "1")
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import configs  # noqa: E402
import torch_step  # noqa: E402

CLASSES = [  # first match wins; lower-case substrings of the kernel name. Attention first: flash kernels carry
    # cutlass types in their template arguments (pytorch_flash::flash_bwd_...<...cutlass::bfloat16_t...>)
    ("attention", ("flash", "fmha", "attention", "sdpa")),
    ("gemm", ("gemm", "nvjet", "cutlass", "sm90_xmma", "ampere_", "cublas")),
    ("layernorm", ("layer_norm", "layernorm")),
    ("adam", ("adam",)),
    ("nccl", ("nccl",)),
    ("copy_cast", ("copy", "cast", "convert")),
    ("elementwise", ("elementwise", "vectorized", "gelu", "silu", "mul", "add", "fill", "reduce")),
]


def kernel_class(name):
    n = name.lower()
    for cls, keys in CLASSES:
        if any(k in n for k in keys):
            return cls
    return "other"


def write_gaps(f, label, prof, wall_us):
    import statistics
    ev = sorted((e.time_range.start, e.time_range.end, kernel_class(e.name)) for e in prof.events()
                if str(e.device_type).endswith("CUDA"))
    by = collections.defaultdict(list)
    for i in range(len(ev) - 1):
        by[ev[i + 1][2]].append(max(0.0, ev[i + 1][0] - ev[i][1]))
    for cls, g in sorted(by.items(), key=lambda kv: -sum(kv[1])):
        big = [x for x in g if x > 10]
        f.write("%s,%s,%d,%.1f,%.2f,%d,%.1f\n" % (label, cls, len(g), sum(g), statistics.median(g), len(big), sum(big)))
    busy = sum(e[1] - e[0] for e in ev)
    f.write("%s,span,%d,%.1f,%.1f,0,0\n" % (label, len(ev), ev[-1][1] - ev[0][0], busy))
    f.write("%s,wall,5,%.1f,0,0,0\n" % (label, wall_us[0]))
    f.write("%s,profiled_wall,1,%.1f,0,0,0\n" % (label, wall_us[1]))
    f.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--host")
    ap.add_argument("--kernels")
    ap.add_argument("--gaps")
    a = ap.parse_args()
    gapf = open(a.gaps, "w") if a.gaps else None
    if gapf:
        gapf.write("label,next_class,gaps,total_us,median_us,over_10us,over_10us_total_us\n")
    hostf = open(a.host, "w") if a.host else None
    kernf = open(a.kernels, "w") if a.kernels else None
    if kernf:
        kernf.write("label,kernel_class,kernel,calls,gpu_us\n")
    if hostf:
        hostf.write("label,op,calls,self_cpu_us,step_wall_us\n")
    dev = torch.device("cuda", 0)
    torch.cuda.set_device(dev)
    want = set(a.rows.split(","))
    rows = [r for r in configs.rows() if r["label"] in want and r["gpus"] == 1]
    args = types.SimpleNamespace(cpu=False, tiny=False, check=False)
    with open(a.out, "w") as f:
        f.write("label,kernel_class,calls,gpu_us,top_kernel\n")
        for r in rows:
            lay = torch_step.Layout(r, 0, 1, {})
            with torch_step.flash_ctx(r):
                row = torch_step.Row(r, args, lay, dev)
                for _ in range(3):
                    row.step()
                torch.cuda.synchronize()
                wall_us = 0.0
                if gapf:  # the step's wall time on this machine, unprofiled: median of 5, as torch_step times it
                    import statistics
                    import time
                    ws = []
                    for _ in range(5):
                        t0 = time.perf_counter()
                        row.step()
                        torch.cuda.synchronize()
                        ws.append((time.perf_counter() - t0) * 1e6)
                    wall_us = statistics.median(ws)
                from torch.profiler import ProfilerActivity, profile, schedule
                # three steps back to back under a schedule: the first untraced, the second traced and discarded
                # (the tracer's start-up), the third kept, so the kept step follows a step with no pause, as the
                # timed steps do (a lone profiled step after the tracer's start ran 2.7-3.5 % faster than the
                # wall time of the steps before it on 2026-11-27, a GPU that had cooled in the pause being one
                # explanation); its own wall time goes to gaps.csv as `profiled_wall`
                import time
                pw = []
                with profile(activities=[ProfilerActivity.CUDA], schedule=schedule(wait=1, warmup=1, active=1)) as prof:
                    for _ in range(3):
                        t0 = time.perf_counter()
                        row.step()
                        torch.cuda.synchronize()
                        pw.append((time.perf_counter() - t0) * 1e6)
                        prof.step()
                wall_us = (wall_us, pw[-1])
                if hostf:
                    import time
                    with profile(activities=[ProfilerActivity.CPU]) as hprof:
                        t0 = time.perf_counter()
                        row.step()
                        torch.cuda.synchronize()
                        wall = (time.perf_counter() - t0) * 1e6
                    for ev in sorted(hprof.key_averages(), key=lambda e: -e.self_cpu_time_total)[:25]:
                        hostf.write("%s,%s,%d,%.1f,%.1f\n" % (r["label"], ev.key.replace(",", ";")[:80], ev.count,
                                                              ev.self_cpu_time_total, wall))
            us, calls, top = collections.Counter(), collections.Counter(), {}
            kus, kcalls = collections.Counter(), collections.Counter()
            for e in prof.events():
                if not str(e.device_type).endswith("CUDA"):
                    continue
                cls = kernel_class(e.name)
                dt = e.device_time if hasattr(e, "device_time") else e.cuda_time
                us[cls] += dt
                calls[cls] += 1
                kname = e.name[:160].replace(",", ";")
                kus[kname] += dt
                kcalls[kname] += 1
                if dt > top.get(cls, ("", 0))[1]:
                    top[cls] = (e.name[:80].replace(",", ";"), dt)
            if gapf:
                write_gaps(gapf, r["label"], prof, wall_us)
            if kernf:
                for kname, t in kus.most_common():
                    kernf.write("%s,%s,%s,%d,%.1f\n" % (r["label"], kernel_class(kname), kname, kcalls[kname], t))
                kernf.flush()
            for cls in sorted(us, key=lambda k: -us[k]):
                f.write("%s,%s,%d,%.1f,%s\n" % (r["label"], cls, calls[cls], us[cls], top[cls][0]))
            print("%s: %s" % (r["label"], ", ".join("%s %.1f ms" % (k, v / 1e3) for k, v in us.most_common())),
                  flush=True)
            del row
    return 0


if __name__ == "__main__":
    sys.exit(main())
