#!/usr/bin/env python3
"""validate/step_effect.py: what pricing the host's pieces as a whole step runs them changes (calibrate's
torchkern_step_pieces: the probe's stacks' forward and backward inside a step over alone scale the op classes, the
optimizer's call inside a step is opt_us; docs/validation.md, "A step's pieces where they run").

For each calibration named, its raw folder is refitted twice with this gpusim: as it is ("with"), and with the
probe's `*_step_fwd`, `*_step_bwd`, `*_step_opt` rows taken out ("without": the pricing before 2026-11-28, stop 37).
A `--graft HOST.csv` (the host rows of validate/runner/step-excess.sh) puts that file's host rows in place of the
first calibration's, for a model whose GPU is another lease's and whose host was read by the step-excess call.
Both models then predict every H200 table under validate/ (`gpusim validate`), and this prints per model: all rows
(median and max |error|, rows within 8 %) and the host-bound rows (those `validate` gives a band under the full
calibration h200x2-1128p, the same rows for every model): their signed median error, median |error| and 90th
percentile; then per table the median |error| of the host-bound rows, own lease or held out.

usage: validate/step_effect.py HW.yaml... [--graft HOST.csv...] [--gpusim build-rel/gpusim]
e.g.   validate/step_effect.py hardware/h200x1-1128s-measured.yaml hardware/h200x2-1128t-measured.yaml
       validate/step_effect.py hardware/h200x2-1128p-measured.yaml --graft validate/runs/2026-11-28-h200x1-steps/call2/host-a.csv
"""
import argparse
import csv
import glob
import io
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from band_cover import lease  # noqa: E402

STEP_ROW = re.compile(r"^host,(eager|compiled)_(mlp|block)_step_(fwd|bwd|opt),")
REF = "hardware/h200x2-1128p-measured.yaml"


def refit(gpusim, hw, tmp, tag, graft=None, drop=False):
    """the refit of hw's raw folder into tmp/tag.yaml, its kernels_torch.csv's host rows replaced by graft's and
    without the step rows when drop; None when it fails"""
    text = open(hw).read()
    base = re.search(r'^base: "?([^"\n]*)"?$', text, re.M).group(1)
    raw = os.path.join(tmp, tag)
    shutil.copytree(hw[:-5], raw)
    rows = open(os.path.join(raw, "kernels_torch.csv")).read().split("\n")
    if graft:
        rows = [r for r in rows if not r.startswith("host,")] + [r for r in open(graft).read().split("\n")
                                                                 if r.startswith("host,")]
    if drop:
        rows = [r for r in rows if not STEP_ROW.match(r)]
    with open(os.path.join(raw, "kernels_torch.csv"), "w") as f:
        f.write("\n".join(rows))
    out = raw + ".yaml"
    p = subprocess.run([gpusim, "calibrate", "--refit", raw, "-o", out, "--base", base], capture_output=True, text=True)
    if p.returncode:
        print("%s: refit failed: %s" % (hw, p.stderr.strip()[-300:]), file=sys.stderr)
        return None
    return out


def rows(gpusim, table, hw):
    p = subprocess.run([gpusim, "validate", table, "--hw", hw, "--format", "csv"], capture_output=True, text=True)
    return [r for r in csv.DictReader(io.StringIO(p.stdout)) if r["rel_error"]]


def stats(gpusim, tables, hw, host_bound, own):
    every, hb, per = [], [], {}
    for t in tables:
        e = []
        for r in rows(gpusim, t, hw):
            x = float(r["rel_error"]) * 100
            every.append(x)
            if r["label"] in host_bound[t]:
                hb.append(x)
                e.append(abs(x))
        if e:
            per[t] = (statistics.median(e), lease(t) == own)
    return every, hb, per


def p90(v):
    return sorted(v)[int(0.9 * len(v))] if v else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("hw", nargs="+")
    ap.add_argument("--graft", nargs="*", default=[])
    ap.add_argument("--gpusim", default="build-rel/gpusim")
    a = ap.parse_args()
    tables = sorted(glob.glob("validate/measured-h200*.csv"))
    host_bound = {t: {r["label"] for r in rows(a.gpusim, t, REF) if r["band_lo"]} for t in tables}
    jobs = [(hw, None) for hw in a.hw] if not a.graft else [(a.hw[0], g) for g in a.graft]
    with tempfile.TemporaryDirectory() as tmp:
        for i, (hw, graft) in enumerate(jobs):
            name = os.path.basename(hw)[:-len("-measured.yaml")] + (" + " + graft if graft else "")
            own = None if graft else lease(hw)
            print("%s (host-bound: %d rows over %d tables)" % (name, sum(map(len, host_bound.values())), len(tables)))
            per = {}
            for tag, drop in (("without", True), ("with", False)):
                m = refit(a.gpusim, hw, tmp, "%s%d" % (tag, i), graft, drop)
                if not m:
                    return 1
                every, hb, per[tag] = stats(a.gpusim, tables, m, host_bound, own)
                ab = [abs(x) for x in every]
                print("  %-8s all %4d: median %.2f %%, max %.1f %%, within 8 %%: %d %% | host-bound %d: signed %+.1f "
                      "%%, |median| %.1f %%, p90 %.1f %%" % (
                          tag, len(ab), statistics.median(ab), max(ab), 100 * sum(x <= 8 for x in ab) / len(ab),
                          len(hb), statistics.median(hb), statistics.median(abs(x) for x in hb),
                          p90([abs(x) for x in hb])))
            for t in sorted(per["with"]):
                w, o = per["without"][t], per["with"][t]
                print("    %-36s %s host-bound |median| %5.1f -> %5.1f %%" % (
                    os.path.basename(t), "own" if o[1] else "held out", w[0], o[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
