#!/usr/bin/env python3
"""validate/what_if.py: a table scored with a calibration and with a copy of it changed one way, row by row: the
trials docs/validation.md reports as tried and not taken (or not measured yet) without editing a committed file.

usage: validate/what_if.py TABLE HW [--power KEY=VALUE ...] [--tp-coll TP_BLOCK.csv --base PRESET] [--rows A,B]
                           [--gpusim build/gpusim]
  --power KEY=VALUE   a key of the model's gpu.power section set to VALUE (exponent, comm, idle, burst_speedup,
                      memory_bound), or added (gpu_rates, e.g. gpu_rates=[0.995,0.974,0.985,0.98])
  --tp-coll FILE      the calibration refitted (gpusim calibrate --refit of HW's raw folder, HW without .yaml)
                      with the tp_coll row of FILE (a lease's 2-rank TP-block probe, tp-block-*x2.csv) in place of
                      its own; --base is the preset it was calibrated on (h200-sxm, h100-dgx)
e.g.   validate/what_if.py validate/measured-h100x4-1127j.csv hardware/h100x4-1127j-measured.yaml --power comm=0.85
Prints each selected row's error with HW and with the changed copy, then median and max |error| of both.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile


def errors(gpusim, table, hw):
    out = subprocess.run([gpusim, "validate", table, "--hw", hw, "--format", "csv"], capture_output=True,
                         text=True).stdout.splitlines()
    head = out[0].split(",") if out else []
    res = {}
    for line in out[1:]:
        p = dict(zip(head, line.split(",")))
        if p.get("rel_error"):
            res[p["label"]] = 100 * float(p["rel_error"])
    return res


def set_power(text, key, value):
    """text with gpu.power's KEY set to value (replaced where present, else added after the section's line)."""
    m = re.search(r"^  power:\n((?:    .*\n)+)", text, re.M)
    if not m:
        sys.exit("what_if: the model has no gpu.power section")
    body = m.group(1)
    line = "    %s: %s\n" % (key, value)
    new, n = re.subn(r"^    %s: .*\n" % re.escape(key), line, body, count=1, flags=re.M)
    if not n:
        new = line + body
    return text[:m.start(1)] + new + text[m.end(1):]


def refit_tp(gpusim, hw, tp_block, base, out):
    raw = hw[:-5] if hw.endswith(".yaml") else hw
    tp = None
    for line in open(tp_block):
        p = line.strip().split(",")
        if len(p) > 5 and p[0] == "host" and p[1] == "tp_coll":
            tp = p[5]
    if tp is None:
        sys.exit("what_if: no tp_coll row in %s" % tp_block)
    work = tempfile.mkdtemp()
    shutil.copytree(raw, os.path.join(work, "raw"))
    kt = os.path.join(work, "raw", "kernels_torch.csv")
    rows = []
    for line in open(kt):
        p = line.rstrip("\n").split(",")
        if len(p) > 5 and p[0] == "host" and p[1] == "tp_coll":
            p[5] = tp
            line = ",".join(p) + "\n"
        rows.append(line)
    open(kt, "w").writelines(rows)
    r = subprocess.run([gpusim, "calibrate", "--refit", os.path.join(work, "raw"), "-o", out, "--base", base],
                       capture_output=True, text=True)
    shutil.rmtree(work)
    if r.returncode:
        sys.exit("what_if: refit failed: %s" % r.stderr.strip())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("table")
    ap.add_argument("hw")
    ap.add_argument("--power", action="append", default=[])
    ap.add_argument("--tp-coll")
    ap.add_argument("--base", default="h200-sxm")
    ap.add_argument("--rows")
    ap.add_argument("--gpusim", default="build/gpusim")
    a = ap.parse_args()
    gpusim = os.path.abspath(a.gpusim)
    table, hw = os.path.abspath(a.table), os.path.abspath(a.hw)
    with tempfile.TemporaryDirectory() as tmp:
        changed = os.path.join(tmp, "changed.yaml")
        if a.tp_coll:
            refit_tp(gpusim, hw, a.tp_coll, a.base, changed)
        else:
            shutil.copy(hw, changed)
        text = open(changed).read()
        for kv in a.power:
            k, _, v = kv.partition("=")
            text = set_power(text, k.strip(), v.strip().replace(",", ", "))
        open(changed, "w").write(text)
        before, after = errors(gpusim, table, hw), errors(gpusim, table, changed)
    rows = a.rows.split(",") if a.rows else list(before)
    for r in rows:
        if r in before and r in after:
            print("%-22s %+7.1f%% -> %+7.1f%%" % (r, before[r], after[r]))
    for name, e in (("as is", before), ("changed", after)):
        v = [abs(e[r]) for r in rows if r in e]
        if v:
            print("%-8s %d rows: median |error| %.1f%%, max %.1f%%" % (name, len(v), statistics.median(v), max(v)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
