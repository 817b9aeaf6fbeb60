#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The figures docs/validation.md, "Quick calibrations, four processes, two processes on one host", quotes, from
the committed data (run from the repository root; GPUSIM, default build/gpusim, predicts; GPUSIM_REFIT, default
build-rel/gpusim, a gpusim built with calibrate, refits raw folders).

  grid HW TABLE...        HW's raw GEMM table whole and cut to --quick's 37 points (calibrate/plan.c: bf16, m
                          256/1K/4K/16K, n and k 1K/4K/16K, and the reference product), each refitted: the GPU-bound
                          one-GPU rows (GPU_BOUND below) of each table, their median and max |error|
  swap BASE DONOR [FILE...] -- TABLE...   BASE's raw folder with DONOR's FILEs in place of its own (none: BASE
                          refitted as it is), refitted: the GPU-bound rows as above
  graft QUICK FULL TABLE...   QUICK's raw folder with FULL's kernel rows of the sizes QUICK lacks (its 256 Mi
                          elements) appended, refitted: the GPU-bound rows as above
  gemm FULL QUICK...      FULL's GEMM time over each QUICK's at the points both timed: median, and at the points with
                          a 4096 side and m of 1024 or more
  scores TABLE... -- HW...   every row of each table with each model: median / max |error| / signed median
  spread FILE...          the rank rows (host,rank_block_ROUND,RANK) of each probe file: their spread as calibrate
                          computes it (calibrate/torchkern_host.c, torchkern_rank_spread) and each round's slowest over mean
  ratios HW...            each 2-GPU host-bound row's step over its one-GPU row's: measured, over every measured table
                          that has both (range, median), and predicted with each HW
  p2p FILE...             mp_profile.py --coll's rows (coll-*x2.csv): host us per call by op, range over sizes
e.g. validate/quick_effect.py grid hardware/h200x4-1128a-measured.yaml validate/measured-h200x4-1128a.csv
     validate/quick_effect.py swap hardware/h200x4-1128a-measured hardware/h200x4-1128k-measured kernels_torch.csv \\
         -- validate/measured-h200x4-1128a.csv
"""
import collections
import csv
import glob
import io
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

GPUSIM = os.environ.get("GPUSIM", "build/gpusim")
REFIT = os.environ.get("GPUSIM_REFIT", "build-rel/gpusim")
# the one-GPU rows validate/host_split.py calls GPU-bound with every H200 calibration (t16 left out: near the edge)
GPU_BOUND = ["t%02d-single" % i for i in (6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 17, 18, 19)]
QUICK_M, QUICK_NK = {256, 1024, 4096, 16384}, {1024, 4096, 16384}
RATIO_ROWS = [("t04-pp2-gpipe", "t04-single"), ("t04-dp2", "t04-single"), ("t05-tp2", "t05-single"),
              ("t03-tp2", "t03-single"), ("m02-dp2", "m02-single")]


def errors(table, hw):
    out = subprocess.run([GPUSIM, "validate", table, "--hw", hw, "--format", "csv"], capture_output=True,
                         text=True).stdout
    return {r["label"]: 100 * float(r["rel_error"]) for r in csv.DictReader(io.StringIO(out)) if r.get("rel_error")}


def predicted(scenario, hw):
    out = subprocess.run([GPUSIM, "predict", scenario, "--hw", hw, "--format", "json"], capture_output=True,
                         text=True).stdout
    return json.loads(out)["step_time_s"]


def gpu_bound(name, table, hw):
    e = errors(table, hw)
    got = [(lab, e[lab]) for lab in GPU_BOUND if lab in e]
    v = [x for _, x in got]
    print("%-16s %-24s median %+5.1f %% max %4.1f %% | %s" % (
        name, os.path.basename(table)[9:-4], statistics.median(v), max(map(abs, v)),
        " ".join("%s %+.1f" % (lab[:3], x) for lab, x in got)))


def refit(raw, tmp):
    """raw folder -> a refitted YAML in tmp (the base preset from the folder's identity: H100 or H200)"""
    ident = open(os.path.join(raw, "identity.csv")).read()
    base = "hardware/h100-dgx.yaml" if "H100" in ident else "hardware/h200-sxm.yaml"
    out = os.path.join(tmp, os.path.basename(raw.rstrip("/")) + ".yaml")
    p = subprocess.run([REFIT, "calibrate", "--refit", raw, "-o", out, "--base", base], capture_output=True,
                       text=True)
    if p.returncode:
        sys.exit("quick_effect: refit of %s failed: %s" % (raw, p.stderr.strip()))
    return out


def copy_raw(src, tmp, name):
    dst = os.path.join(tmp, name)
    shutil.copytree(src, dst)
    return dst


def cmd_grid(hw, tables):
    with tempfile.TemporaryDirectory(dir="hardware") as tmp:
        raw = copy_raw(hw[:-len(".yaml")], tmp, "cut")
        path = os.path.join(raw, "gemm.csv")
        with open(path) as f:
            head, *lines = f.read().splitlines()
        keep = [l for l in lines if l.split(",")[0] == "bf16" and (l.split(",")[9] == "0" or (
            int(l.split(",")[1]) in QUICK_M and int(l.split(",")[2]) in QUICK_NK and int(l.split(",")[3]) in QUICK_NK))]
        with open(path, "w") as f:
            f.write("\n".join([head] + keep) + "\n")
        cut = refit(raw, tmp)
        for t in tables:
            gpu_bound("whole", t, hw)
            gpu_bound("cut to %d points" % len(keep), t, cut)


def cmd_swap(base, donor, files, tables):
    with tempfile.TemporaryDirectory(dir="hardware") as tmp:
        raw = copy_raw(base, tmp, "swap")
        for f in files:
            src = os.path.join(donor, f)
            if os.path.exists(src):
                shutil.copy(src, os.path.join(raw, f))
            elif os.path.exists(os.path.join(raw, f)):
                os.remove(os.path.join(raw, f))
        hw = refit(raw, tmp)
        for t in tables:
            gpu_bound("+".join(files) or "refitted", t, hw)


def cmd_graft(quick, full, tables):
    with tempfile.TemporaryDirectory(dir="hardware") as tmp:
        raw = copy_raw(quick[:-len(".yaml")], tmp, "graft")
        path = os.path.join(raw, "kernels_torch.csv")
        lines = open(path).read().splitlines()
        have = {tuple(l.split(",")[1:3]) for l in lines if l.startswith("kernel,")}
        add = [l for l in open(os.path.join(full[:-len(".yaml")], "kernels_torch.csv")).read().splitlines()
               if l.startswith("kernel,") and tuple(l.split(",")[1:3]) not in have]
        last = max(i for i, l in enumerate(lines) if l.startswith("kernel,"))
        lines[last + 1:last + 1] = add
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        hw = refit(raw, tmp)
        for t in tables:
            gpu_bound("grafted (%d rows)" % len(add), t, hw)


def gemm_us(hw):
    with open(os.path.join(hw[:-len(".yaml")], "gemm.csv")) as f:
        return {(r["dtype"], r["m"], r["n"], r["k"]): float(r["us"]) for r in csv.DictReader(f)}


def cmd_gemm(full, quicks):
    a = gemm_us(full)
    for q in quicks:
        b = gemm_us(q)
        both = [k for k in b if k in a]
        mid = [k for k in both if "4096" in k[1:] and int(k[1]) >= 1024]
        print("%-28s full/quick median %.3f over %d points; with a 4096 side and m >= 1024: %.3f (%d)" % (
            os.path.basename(q), statistics.median(a[k] / b[k] for k in both), len(both),
            statistics.median(a[k] / b[k] for k in mid), len(mid)))


def cmd_scores(tables, hws):
    for t in tables:
        for hw in hws:
            e = list(errors(t, hw).values())
            a = [abs(x) for x in e]
            print("%-26s %-30s %3d rows  %.1f / %.1f / %+.1f" % (os.path.basename(t), os.path.basename(hw), len(e),
                                                                 statistics.median(a), max(a), statistics.median(e)))


def cmd_spread(paths):
    for path in paths:
        rounds = collections.defaultdict(list)
        with open(path) as f:
            for line in f:
                p = line.strip().split(",")
                if len(p) == 6 and p[0] == "host" and p[1].startswith("rank_block_"):
                    rounds[p[1]].append(float(p[5]))
        rel, top = [], []
        for v in rounds.values():
            if len(v) < 2:
                continue
            m = statistics.mean(v)
            rel.append(statistics.variance(v) / (m * m))
            top.append(max(v) / m)
        if rel:
            print("%-70s spread %.3f over %d rounds of %d; slowest over mean %s" % (
                path, math.sqrt(statistics.mean(rel)), len(rel), max(len(v) for v in rounds.values()),
                " ".join("%.3f" % x for x in top)))


def cmd_ratios(hws):
    for job, one in RATIO_ROWS:
        got = []
        for path in sorted(glob.glob("validate/measured-h*.csv")):
            with open(path) as f:
                d = {r["label"]: float(r["measured_step_s"]) for r in csv.DictReader(
                    l for l in f if not l.startswith("#"))}
            if job in d and one in d:
                got.append(d[job] / d[one])
        pred = ["%.3f" % (predicted("scenarios/validate/%s.yaml" % job, hw) /
                          predicted("scenarios/validate/%s.yaml" % one, hw)) for hw in hws]
        print("%-14s measured %.3f-%.3f median %.3f (%d tables); gpusim %s" % (
            job, min(got), max(got), statistics.median(got), len(got), " ".join(pred)))


def cmd_p2p(paths):
    for path in paths:
        by = collections.defaultdict(list)
        with open(path) as f:
            for r in csv.DictReader(f):
                by[r["op"]].append(float(r["host_us_per_call"]))
        print("%-64s %s" % (path, "; ".join("%s %.0f-%.0f" % (op, min(v), max(v)) for op, v in by.items())))


def split(args):
    if "--" not in args:
        sys.exit(__doc__)
    i = args.index("--")
    return args[:i], args[i + 1:]


def main():
    a = sys.argv[1:]
    if not a or a[0] in ("-h", "--help"):
        sys.exit(__doc__)
    cmd, rest = a[0], a[1:]
    if cmd == "grid" and len(rest) >= 2:
        cmd_grid(rest[0], rest[1:])
    elif cmd == "swap" and len(rest) >= 3:
        before, tables = split(rest)
        cmd_swap(before[0], before[1], before[2:], tables)
    elif cmd == "graft" and len(rest) >= 3:
        cmd_graft(rest[0], rest[1], rest[2:])
    elif cmd == "gemm" and len(rest) >= 2:
        cmd_gemm(rest[0], rest[1:])
    elif cmd == "scores" and len(rest) >= 3:
        tables, hws = split(rest)
        cmd_scores(tables, hws)
    elif cmd == "spread" and rest:
        cmd_spread(rest)
    elif cmd == "ratios" and rest:
        cmd_ratios(rest)
    elif cmd == "p2p" and rest:
        cmd_p2p(rest)
    else:
        sys.exit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main())
