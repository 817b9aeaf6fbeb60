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

--per-family adds a third model, tried and not kept: the "with" model's eager classes with the MLP stacks' ratios on
the 2-D GEMM classes (gemm2d_us, bwd_gemm2d_us) and the blocks' on the rest, in place of the ratios summed over both
families (validate/step_ratios.py prints them).

usage: validate/step_effect.py HW.yaml... [--graft HOST.csv...] [--per-family] [--gpusim build-rel/gpusim]
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
from step_ratios import load, stacks  # noqa: E402

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


def per_family(model):
    """model (a refit with the step rows) with its eager classes scaled by each family's ratios over the summed ones
    (validate/step_ratios.py); the new file's path"""
    probe = load(os.path.join(model[:-5], "kernels_torch.csv"))
    f, b, sf, sb, _, _ = stacks(probe, "eager", ("mlp", "block"))
    fam = {k: stacks(probe, "eager", (k,)) for k in ("mlp", "block")}
    scale = {}  # key: factor on the summed ratio's value
    for key in ("op_us", "gemm_us", "attn_us", "norm_us"):
        scale[key] = (fam["block"][2] / fam["block"][0]) / (sf / f)
    for key in ("bwd_gemm_us", "bwd_attn_us", "bwd_op_us"):
        scale[key] = (fam["block"][3] / fam["block"][1]) / (sb / b)
    scale["gemm2d_us"] = (fam["mlp"][2] / fam["mlp"][0]) / (sf / f)
    scale["bwd_gemm2d_us"] = (fam["mlp"][3] / fam["mlp"][1]) / (sb / b)
    text = open(model).read().split("\n")
    for i, line in enumerate(text):
        if line.startswith("  eager: {"):
            for key, x in scale.items():
                line = re.sub(r"([{ ]%s: )([0-9.e+-]+)" % key,
                              lambda m, x=x: m.group(1) + "%.2f" % (float(m.group(2)) * x), line)
            text[i] = line
    out = model[:-5] + "-per-family.yaml"
    with open(out, "w") as fo:
        fo.write("\n".join(text))
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
    ap.add_argument("--per-family", action="store_true")
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
            for tag, drop in (("without", True), ("with", False)) + ((("per-family", False),) if a.per_family else ()):
                m = refit(a.gpusim, hw, tmp, "%s%d" % (tag, i), graft, drop)
                if not m:
                    return 1
                if tag == "per-family":
                    m = per_family(m)
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
