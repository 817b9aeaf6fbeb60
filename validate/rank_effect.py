#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The figures docs/validation.md, "The slowest process", quotes, from the committed data.

  rows HW TABLE...      each table predicted with the calibration HW as it is and with its host.<mode>.rank_spread
                        taken out (a copy beside it): the rows that move by over 0.5 points, how many came closer
                        to their measurement, and each one's error without -> with
  probes < OUTPUT       the last part of validate/host_probes.sh's output (the host-ranks probes): per probe, the
                        signed median of the rows of several GPUs minus that of the one-GPU rows; their median and
                        range
  mlp PROBE.csv...      the runner's MLP layer timed whole (block_mlp_fwd, _bwd) against the model's price of it with
                        the transformer block's ratio, as calibrate/torchkern_host.c writes host.eager (forward 2 gemm2d +
                        an op, backward 4 bwd_gemm2d + 2 AccumulateGrad + a bwd_op): measured / priced, forward,
                        backward and the layer, each probe and the medians
  mix2d HW KT.csv TABLE...  the m rows (MLPs) of each table with HW as it is and with its eager classes scaled
                        by the MLP layer's own mixed-stream ratio over the block's (mix2d_fwd / mix_fwd forward,
                        mix2d_bwd / mix_bwd backward, from KT.csv, HW's raw kernels_torch.csv): the trial of
                        pricing the dense layers with their own ratio (not taken)
  classes REF.csv PROBE.csv...   each probe's host classes (size 16, no backlog rows, over 5 us in REF) over REF's:
                        the median ratio per probe
e.g. validate/rank_effect.py rows hardware/h100x2-1128h-measured.yaml validate/measured-h100x2-1128f.csv
     bash validate/host_probes.sh | validate/rank_effect.py probes
"""
import csv
import io
import os
import re
import statistics
import subprocess
import sys


def errors(gpusim, table, hw):
    out = subprocess.run([gpusim, "validate", table, "--hw", hw, "--format", "csv"], capture_output=True,
                         text=True).stdout
    return {r["label"]: 100 * float(r["rel_error"]) for r in csv.DictReader(io.StringIO(out)) if r.get("rel_error")}


def rows(hw, tables, gpusim=os.environ.get("GPUSIM", "build/gpusim")):
    text = open(hw).read()
    bare, n = re.subn(r", rank_spread: [0-9.eE+-]+", "", text)
    if not n:
        sys.exit("rank_effect: %s has no rank_spread" % hw)
    copy = os.path.join(os.path.dirname(hw) or ".", ".no-spread-%d.yaml" % os.getpid())
    with open(copy, "w") as f:
        f.write(bare)
    try:
        for t in tables:
            a, b = errors(gpusim, t, copy), errors(gpusim, t, hw)
            moved = [(k, a[k], b[k]) for k in a if k in b and abs(b[k] - a[k]) > 0.5]
            closer = sum(1 for _, x, y in moved if abs(y) < abs(x))
            print("%s: %d moved, %d closer: %s" % (os.path.basename(t), len(moved), closer,
                                                   "  ".join("%s %+.1f -> %+.1f" % m for m in moved)))
    finally:
        os.remove(copy)


def probes(stream):
    lines = stream.read().split("the probes of validate/runner/host-ranks.sh")[-1].splitlines()
    pat = re.compile(r"one GPU:\s+\d+ rows\s+[\d.]+ % /\s+[\d.]+ % /\s+([+-][\d.]+) % \| several:\s+\d+ rows"
                     r"\s+[\d.]+ % /\s+[\d.]+ % /\s+([+-][\d.]+) %")
    d = [float(m.group(2)) - float(m.group(1)) for m in map(pat.search, lines) if m]
    if not d:
        sys.exit("rank_effect: no host-ranks probe lines on standard input")
    print("%d probes: several minus one GPU, signed medians: median %+.1f, range %+.1f to %+.1f" % (
        len(d), statistics.median(d), min(d), max(d)))


def host16(path):
    got = {}
    for line in open(path):
        p = line.strip().split(",")
        if len(p) == 6 and p[0] == "host" and p[2] == "16" and not p[1].endswith("_backlog"):
            got[p[1]] = float(p[5])
    return got


def mlp(paths):
    fw, bw, lay = [], [], []
    for path in paths:
        d = host16(path)
        if "block_mlp_fwd" not in d:
            continue
        mf, mb = d["mix_fwd"], d["mix_bwd"]
        fwd = (2 * d["fwd_linear_2d"] + d["fwd_elementwise"]) * mf
        bwd = (2 * d["bwd_linear_2d"] + (d["bwd_elementwise"] + d["bwd_norm"]) / 2) * mb
        fw.append(d["block_mlp_fwd"] / fwd)
        bw.append(d["block_mlp_bwd"] / bwd)
        lay.append((d["block_mlp_fwd"] + d["block_mlp_bwd"]) / (fwd + bwd))
        print("%-70s forward %.2f backward %.2f layer %.2f" % (path[-70:], fw[-1], bw[-1], lay[-1]))
    if not fw:
        sys.exit("rank_effect: no probe with block_mlp rows")
    print("%d probes: forward %.2f-%.2f (median %.2f, %d below 1), backward %.2f-%.2f (%.2f), layer %.2f-%.2f (%.2f)"
          % (len(fw), min(fw), max(fw), statistics.median(fw), sum(x < 1 for x in fw), min(bw), max(bw),
             statistics.median(bw), min(lay), max(lay), statistics.median(lay)))


def mix2d(hw, kt, tables, gpusim=os.environ.get("GPUSIM", "build/gpusim")):
    d = host16(kt)
    sf, sb = d["mix2d_fwd"] / d["mix_fwd"], d["mix2d_bwd"] / d["mix_bwd"]
    text = open(hw).read()
    m = re.search(r"^  eager: \{(.*)\}$", text, re.M)
    kv = dict(x.split(": ") for x in m.group(1).split(", "))
    for k in ("op_us", "gemm2d_us", "norm_us", "gemm_us", "attn_us"):
        kv[k] = "%.3f" % (float(kv[k]) * sf)
    for k in ("bwd_op_us", "bwd_gemm2d_us", "bwd_gemm_us", "bwd_attn_us", "accum_us"):
        kv[k] = "%.3f" % (float(kv[k]) * sb)
    copy = os.path.join(os.path.dirname(hw) or ".", ".mix2d-%d.yaml" % os.getpid())
    with open(copy, "w") as f:
        f.write(text[:m.start(1)] + ", ".join("%s: %s" % x for x in kv.items()) + text[m.end(1):])
    print("scales: forward %.3f, backward %.3f" % (sf, sb))
    try:
        for t in tables:
            a, b = errors(gpusim, t, hw), errors(gpusim, t, copy)
            print("%s: %s" % (os.path.basename(t), "  ".join("%s %+.1f -> %+.1f" % (k, a[k], b[k]) for k in a
                                                             if k.startswith("m0") and "compiled" not in k)))
    finally:
        os.remove(copy)


def classes(ref, paths):
    r = host16(ref)
    for path in paths:
        d = host16(path)
        v = [d[k] / r[k] for k in r if k in d and r[k] > 5 and d[k] > 0]
        print("%-70s %.2f" % (path[-70:], statistics.median(v)))


def main():
    a = sys.argv[1:]
    if len(a) >= 3 and a[0] == "rows":
        rows(a[1], a[2:])
    elif a == ["probes"]:
        probes(sys.stdin)
    elif len(a) >= 2 and a[0] == "mlp":
        mlp(a[1:])
    elif len(a) >= 4 and a[0] == "mix2d":
        mix2d(a[1], a[2], a[3:])
    elif len(a) >= 3 and a[0] == "classes":
        classes(a[1], a[2:])
    else:
        sys.exit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main())
