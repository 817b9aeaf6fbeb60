#!/usr/bin/env python3
"""validate/host_speed.py: the host's part of a lease's steps against gpusim's, row by row, and what a host speed
measured at each row does to the prediction.

A step of eager PyTorch costs the host the issue of every op and call (gpusim: `host work` in `predict`, JSON
`host_issue_s`); where that is above the GPU's work the step waits for it. The runner times each rank's host part
(validate/runner/torch_step.py --steps: the step enqueued, before its device sync). On a row whose host part is at
least --host-share of its step (host-bound: the GPU keeps up, nothing blocks the host) that part is the host's
work itself, so measured over predicted host work is the host model's own error, free of the GPU's. (On a
GPU-bound row the host also waits for the GPU's queue and its part says little; those rows are listed, marked.)

With --yardstick (torch_step.py --yardstick, validate/runner/device-run.sh YARDSTICK=1): each rank's reading of
calibrate's standard block (us per layer, forward + backward) just before the row's steps and just after. Over the
calibration's own reading of the same block (its raw folder's `host,block_fwd` + `host,block_bwd`, or --ref-us),
it is how much slower or faster the host ran during the row than while the calibration measured it. The row is
then predicted again with every host cost of the model times that ratio (`--rank mean`: the ranks' mean reading,
the model's rank factor kept; `--rank slowest`: the slowest rank's reading, rank_spread set to 0): if the host
model is right, what is left of a host-bound row's error is what the yardstick does not see.

usage: validate/host_speed.py RUN_DIR TABLE.csv HW.yaml [--yardstick] [--ref-us US] [--rank mean|slowest]
                              [--host-share 0.9] [--gpusim build/gpusim]
RUN_DIR holds steps.csv (and yardstick.csv); TABLE.csv is the lease's table (its scenario paths); HW.yaml the
calibration to predict with (its raw folder, HW without .yaml, gives the reference reading).
e.g.   validate/host_speed.py validate/runs/2026-11-28-h200x2-1128l/rows validate/measured-h200x2-1128l.csv \\
           hardware/h200x2-1128l-measured.yaml
"""
import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict


def per_rank(path):
    """steps.csv -> ({label: {rank: (median step_s, median host_s)}}, labels in file order)"""
    by, order = defaultdict(lambda: defaultdict(list)), []
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["label"] not in by:
                order.append(r["label"])
            by[r["label"]][int(r["rank"])].append((float(r["step_s"]), float(r["host_s"])))
    med = {lab: {k: (statistics.median(s for s, _ in v), statistics.median(h for _, h in v)) for k, v in ranks.items()}
           for lab, ranks in by.items()}
    return med, order


def yardsticks(path):
    """yardstick.csv -> {label: {rank: us per layer, fwd + bwd, mean of before and after}}"""
    out = defaultdict(dict)
    with open(path) as f:
        for r in csv.DictReader(f):
            b = float(r["before_fwd_us"]) + float(r["before_bwd_us"])
            a = float(r["after_fwd_us"]) + float(r["after_bwd_us"])
            out[r["label"]][int(r["rank"])] = (b + a) / 2
    return out


def reference_us(hw):
    """The calibration's reading of the standard block: host,block_fwd + host,block_bwd of its raw folder."""
    raw = os.path.join(hw[:-5] if hw.endswith(".yaml") else hw, "kernels_torch.csv")
    got = {}
    with open(raw) as f:
        for line in f:
            p = line.strip().split(",")
            if len(p) >= 6 and p[0] == "host" and p[1] in ("block_fwd", "block_bwd"):
                got[p[1]] = float(p[5])
    if len(got) != 2:
        raise SystemExit("%s: no host,block_fwd and host,block_bwd rows (give --ref-us)" % raw)
    return got["block_fwd"] + got["block_bwd"]


def scaled_model(hw, factor, slowest, tmpdir):
    """A copy of hw with every host.<mode>.*_us times factor (and rank_spread 0 when slowest); its path."""
    text, out, inside = open(hw).read().split("\n"), [], False
    for line in text:
        if re.match(r"^[A-Za-z_]", line):
            inside = line.startswith("host:")
        if inside and re.match(r"^  [a-z_]+: \{", line):
            line = re.sub(r"\b(\w+_us): ([-0-9.eE+]+)", lambda m: "%s: %.6g" % (m.group(1), float(m.group(2)) * factor),
                          line)
            if slowest:
                line = re.sub(r"\brank_spread: [-0-9.eE+]+", "rank_spread: 0", line)
        out.append(line)
    path = os.path.join(tmpdir, "h%.6f.yaml" % factor)
    with open(path, "w") as f:
        f.write("\n".join(out))
    # a calibration's raw folder beside it is not needed to predict
    return path


def predict(gpusim, scen, hw):
    p = subprocess.run([gpusim, "predict", scen, "--hw", hw, "--format", "json"], capture_output=True, text=True)
    if p.returncode != 0:
        return None
    j = json.loads(p.stdout)
    return j["step_time_s"], j["host_issue_s"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run_dir")
    ap.add_argument("hw")
    ap.add_argument("--yardstick", action="store_true", help="rescale each row's host by RUN_DIR/yardstick.csv")
    ap.add_argument("--ref-us", type=float, help="the calibration's block reading (default: from its raw folder)")
    ap.add_argument("--rank", choices=("mean", "slowest"), default="mean")
    ap.add_argument("--host-share", type=float, default=0.9)
    ap.add_argument("--gpusim", default="build/gpusim")
    a = ap.parse_args()

    steps, order = per_rank(os.path.join(a.run_dir, "steps.csv"))
    scen = {lab: os.path.join("scenarios", "validate", lab + ".yaml") for lab in order}
    ys = yardsticks(os.path.join(a.run_dir, "yardstick.csv")) if a.yardstick else {}
    ref = (a.ref_us or reference_us(a.hw)) if a.yardstick else None
    if ref:
        print("reference reading of the standard block: %.1f us per layer (fwd + bwd)" % ref)
    print("%-22s %1s %9s %9s %9s %6s %8s" % ("row", "", "step ms", "host ms", "pred host", "ratio", "step err") +
          ("  %8s %6s %8s" % ("yard us", "x", "scaled") if ys else ""))
    hb_ratio, hb_err, hb_scaled = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for lab in order:
            if not os.path.exists(scen[lab]):
                print("%-22s   no %s" % (lab, scen[lab]))
                continue
            pr = predict(a.gpusim, scen[lab], a.hw)
            if pr is None:
                print("%-22s   gpusim cannot predict it" % lab)
                continue
            ranks = steps[lab]
            step = max(s for s, _ in ranks.values())
            host = max(h for _, h in ranks.values())
            bound = statistics.median(h / s for s, h in ranks.values()) >= a.host_share
            ratio, err = host / pr[1] if pr[1] > 0 else float("nan"), pr[0] / step - 1
            line = "%-22s %1s %9.2f %9.2f %9.2f %6.2f %+7.1f%%" % (lab, "H" if bound else "", step * 1e3, host * 1e3,
                                                                    pr[1] * 1e3, ratio, 100 * err)
            if bound:
                hb_ratio.append(ratio)
                hb_err.append(err)
            if ys and lab in ys:
                r = ys[lab].values()
                y = max(r) if a.rank == "slowest" else statistics.mean(r)
                x = y / ref
                sp = predict(a.gpusim, scen[lab], scaled_model(a.hw, x, a.rank == "slowest", tmp))
                serr = sp[0] / step - 1 if sp else float("nan")
                line += "  %8.1f %6.2f %+7.1f%%" % (y, x, 100 * serr)
                if bound:
                    hb_scaled.append(serr)
            print(line)

    def summ(v):
        return "median %+.1f %%, median |.| %.1f %%, max |.| %.1f %%" % (
            100 * statistics.median(v), 100 * statistics.median(abs(x) for x in v), 100 * max(abs(x) for x in v))
    if hb_ratio:
        print("host-bound rows (H, host part >= %.2f of the step): %d" % (a.host_share, len(hb_ratio)))
        print("  measured host part / predicted host work: median %.2f, %.2f-%.2f" % (
            statistics.median(hb_ratio), min(hb_ratio), max(hb_ratio)))
        print("  step error, the model as it is:  " + summ(hb_err))
        if hb_scaled:
            print("  step error, host x the yardstick (%s rank): %s" % (a.rank, summ(hb_scaled)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
