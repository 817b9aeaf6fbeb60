#!/usr/bin/env python3
"""validate/host_swap.py: every table's held-out calibrated models (validate/score_tables.py's MODELS, the table's
own lease's calibration left out) scored with their own host and with the presets' median host (`--host PRESET`,
the table's GPU's preset), against the preset itself: all rows, the host-bound rows (those the preset gives a
band), how many (table, model) pairs score a larger median or max |error| than the preset, and the wrong speedup
signs. It answers issue 11's "a model calibrated on one GPU type must score as well as the preset on that type, or
better" once the presets carry the lent hosts' median (docs/validation.md, "The presets' host: the lent hosts'
median").

First, with --before too, how many of all the (table, calibrated or composed model) pairs score a larger median
and a larger max |error| than the preset.

usage: validate/host_swap.py [--gpusim build-rel/gpusim] [--before OLD/gpusim]     (from the repository root)
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from band_cover import lease  # noqa: E402
from score_tables import MODELS  # noqa: E402


def val(gpusim, table, hw):
    p = subprocess.run([gpusim, "validate", table, "--format", "json"] + hw, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit("host_swap: %s %s: %s" % (table, " ".join(hw), p.stderr.strip()[-400:]))
    d = json.loads(p.stdout)
    return [r for r in d["rows"] if "rel_error" in r], d["summary"]


def versus_preset(gpusim):
    """every (table, calibrated or composed model) pair of MODELS that gpusim reads: how many score a larger median
    and a larger max |error| than the table's GPU's preset"""
    med = mx = n = 0
    for table in sorted(glob.glob("validate/measured-*.csv")):
        preset = "h100-dgx" if "h100" in os.path.basename(table) else "h200-sxm"
        try:
            prow, _ = val(gpusim, table, ["--hw", preset])
        except (SystemExit, ValueError):
            continue  # a table this binary cannot read
        if not prow:
            continue
        pe = [abs(r["rel_error"]) for r in prow]
        for hw in MODELS.get(os.path.basename(table), []):
            if not any(x.startswith("hardware/") for x in hw):
                continue
            try:
                rows, _ = val(gpusim, table, hw)
            except (SystemExit, ValueError):
                continue
            if not rows:
                continue
            e = [abs(r["rel_error"]) for r in rows]
            n += 1
            med += statistics.median(e) > statistics.median(pe)
            mx += max(e) > max(pe)
    return med, mx, n


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpusim", default="build-rel/gpusim")
    ap.add_argument("--before", help="also count, with this binary (one whose presets had the old host), the pairs "
                    "worse than the preset")
    a = ap.parse_args()
    for name, binary in (("--before", a.before), ("--gpusim", a.gpusim)):
        if binary:
            med, mx, n = versus_preset(binary)
            print("%-9s every calibrated or composed pair it reads, worse than the preset: median %d, max %d, of %d"
                  % (name, med, mx, n))
    kinds = ("own host", "median host")
    every = {k: [] for k in kinds}
    bound_err = {k: [] for k in kinds}
    cnt = {k: {"med": 0, "max": 0, "signs": 0, "pairs": 0} for k in kinds}
    for table in sorted(glob.glob("validate/measured-*.csv")):
        preset = "h100-dgx" if "h100" in os.path.basename(table) else "h200-sxm"
        prow, _ = val(a.gpusim, table, ["--hw", preset])
        bound = {r["label"] for r in prow if "band_lo" in r}
        pmed = statistics.median(abs(r["rel_error"]) for r in prow)
        pmax = max(abs(r["rel_error"]) for r in prow)
        for hw in MODELS.get(os.path.basename(table), []):
            if not any(x.startswith("hardware/") for x in hw) or lease(hw[-1]) == lease(table):
                continue
            for k, extra in zip(kinds, ([], ["--host", preset])):
                rows, sm = val(a.gpusim, table, hw + extra)
                e = [abs(r["rel_error"]) for r in rows]
                every[k] += e
                bound_err[k] += [abs(r["rel_error"]) for r in rows if r["label"] in bound]
                c = cnt[k]
                c["med"] += statistics.median(e) > pmed
                c["max"] += max(e) > pmax
                c["signs"] += sm.get("speedup_sign_wrong", 0)
                c["pairs"] += 1
    for k in kinds:
        e, h, c = sorted(every[k]), sorted(bound_err[k]), cnt[k]
        print("%-12s %d held-out pairs: all rows median %.2f %%, p90 %.1f %%; host-bound median %.1f %%, p90 %.1f %%; "
              "pairs worse than the preset: median %d, max %d; wrong speedup signs %d" % (
                  k, c["pairs"], 100 * statistics.median(e), 100 * e[int(0.9 * len(e))], 100 * statistics.median(h),
                  100 * h[int(0.9 * len(h))], c["med"], c["max"], c["signs"]))


if __name__ == "__main__":
    main()
