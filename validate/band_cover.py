#!/usr/bin/env python3
"""validate/band_cover.py: how often a host-bound row's measurement falls inside the band `predict` gives it (the
step on a host as fast and as slow as the calibration's probe rounds: host.<mode>.drift_lo, drift_hi;
sim/hostband.h), for every table and calibrated model validate/score_tables.py scores.

A row has a band where its host, at the slowest the probe saw, would be at least half the step (`gpusim validate
--format json`: band_lo, band_hi). Per pair: rows with a band, inside it, below it (the step ran faster than the
fastest host read), above it; the band's width (hi over lo, median). Then the totals, split into each table scored
with its own lease's calibration and with another's (held out: the drift read on another day). A band from the
probe's own rounds is a measurement of the host, not a fit to these rows: how often it holds is the finding.
Last, the speedup rows (a row over its one-GPU baseline) of the same pairs and of the presets and compositions
the tables list: how many, how many on the wrong side of 1, how many `validate` marks as the host's to decide
(speedup_host_side) and how many of the wrong ones are among those.

With --refit-quick, only the quick calibrations (raw identity.csv: mode quick), each refitted by --gpusim
(`gpusim calibrate --refit` of its raw folder on its preset): what their band is since a quick probe keeps its
base's host range (docs/validation.md, "A quick calibration's host range"); --gpusim must be built with calibrate.

usage: validate/band_cover.py [--gpusim build/gpusim] [--pairs] [--refit-quick]
"""
import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from score_tables import MODELS  # noqa: E402


def lease(path):
    """the lease a table or calibration names: measured-h200x2-1128p.csv / h200x2-1128p-measured.yaml -> h200x2-1128p"""
    b = os.path.basename(path)
    b = b[len("measured-"):-len(".csv")] if b.startswith("measured-") else b[:-len("-measured.yaml")]
    return b.replace("-compiled", "")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpusim", default="build/gpusim")
    ap.add_argument("--pairs", action="store_true", help="print every pair, not only the totals")
    ap.add_argument("--refit-quick", action="store_true", help="the quick calibrations only, refitted by --gpusim")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp()
    try:
        return cover(a, refit_quick(a.gpusim, tmp) if a.refit_quick else None)
    finally:
        shutil.rmtree(tmp)


def refit_quick(gpusim, tmp):
    """{committed quick calibration: its refit by gpusim in tmp}"""
    out = {}
    for f in sorted(glob.glob("hardware/*-measured.yaml")):
        ident = f[:-len(".yaml")] + "/identity.csv"
        if not os.path.exists(ident) or "mode,quick" not in open(ident).read():
            continue
        raw = os.path.join(tmp, "raw")
        shutil.copytree(f[:-len(".yaml")], raw)
        new = os.path.join(tmp, os.path.basename(f))
        p = subprocess.run([gpusim, "calibrate", "--refit", raw, "-o", new, "--base",
                            "h100-dgx" if "h100" in f else "h200-sxm"], capture_output=True, text=True)
        shutil.rmtree(raw)
        if p.returncode:
            sys.exit("band_cover: refit of %s: %s" % (f, p.stderr.strip()))
        out[f] = new
    return out


def cover(a, swap):
    tot = {"own": [0, 0, 0, 0, []], "held out": [0, 0, 0, 0, []]}
    sides = {"own": [0, 0, 0, 0], "held out": [0, 0, 0, 0], "presets, compositions": [0, 0, 0, 0]}
    for table in sorted(glob.glob("validate/measured-*.csv")):
        for hw in MODELS.get(os.path.basename(table), []):
            if swap is not None and (len(hw) != 2 or hw[1] not in swap):
                continue
            run = [hw[0], swap[hw[1]]] if swap is not None else hw
            p = subprocess.run([a.gpusim, "validate", table, "--format", "json"] + run, capture_output=True,
                               text=True)
            if p.returncode not in (0, 1):
                sys.exit("band_cover: %s %s: %s" % (table, hw, p.stderr.strip()))
            got = json.loads(p.stdout)
            calibrated = len(hw) == 2 and hw[1].startswith("hardware/")
            kind = ("own" if lease(table) == lease(hw[1]) else "held out") if calibrated else "presets, compositions"
            sm = got["summary"]
            for i, k in enumerate(("speedup_rows", "speedup_sign_wrong", "speedup_host_side",
                                   "speedup_host_side_wrong")):
                sides[kind][i] += sm.get(k, 0)
            rows = [r for r in got["rows"] if "band_hi" in r]
            if not calibrated or not rows:
                continue  # the band counts: a table's own calibrations only
            n = len(rows)
            below = sum(1 for r in rows if r["measured"] < r["band_lo"])
            above = sum(1 for r in rows if r["measured"] > r["band_hi"])
            width = statistics.median(r["band_hi"] / r["band_lo"] for r in rows)
            t = tot[kind]
            t[0] += n
            t[1] += n - below - above
            t[2] += below
            t[3] += above
            t[4] += [r["band_hi"] / r["band_lo"] for r in rows]
            if a.pairs:
                print("%-40s %-32s %-8s %3d rows: inside %3d, below %2d, above %2d; width x%.2f" %
                      (os.path.basename(table), os.path.basename(hw[1]), kind, n, n - below - above, below, above,
                       width))
    for kind, t in tot.items():
        if t[0]:
            print("%-8s %4d rows with a band: inside %d (%.0f %%), below %d, above %d; width x%.2f (median)" %
                  (kind, t[0], t[1], 100 * t[1] / t[0], t[2], t[3], statistics.median(t[4])))
    for kind, t in sides.items():
        if t[0]:
            print("speedups, %s: %d rows, %d on the wrong side of 1; %d marked the host's to decide, %d of the wrong "
                  "among them; the rest wrong %d of %d" % (kind, t[0], t[1], t[2], t[3], t[1] - t[3], t[0] - t[2]))


if __name__ == "__main__":
    main()
