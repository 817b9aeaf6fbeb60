#!/usr/bin/env python3
"""validate/what_if.py: a table scored with a calibration and with a copy of it changed one way, row by row: the
trials docs/validation.md reports as tried and not taken (or not measured yet) without editing a committed file.

usage: validate/what_if.py TABLE HW [--power KEY=VALUE ...] [--kernels KEY=VALUE ...]
                           [--drop SECTION.KEY ...] [--tp-coll TP_BLOCK.csv | --host-rows HOST.csv |
                           --gemm-patched | --gemm-capped] [--base PRESET] [--rows A,B]
                           [--keep FILE] [--gpusim build/gpusim]
  --power KEY=VALUE   a key of the model's gpu.power section set to VALUE (exponent, comm, idle, burst_speedup,
                      memory_bound), or added (gpu_rates, e.g. gpu_rates=[0.995,0.974,0.985,0.98]; window_ms=3)
  --kernels KEY=VALUE the same in gpu.kernels (gemm_extra="{kernels: 0.917, us: 0.99}")
  --tp-coll FILE      the calibration refitted (gpusim calibrate --refit of HW's raw folder, HW without .yaml)
                      with the tp_coll row of FILE (a lease's 2-rank TP-block probe, tp-block-*x2.csv) in place of
                      its own; --base is the preset it was calibrated on (h200-sxm, h100-dgx)
  --host-rows FILE    the calibration refitted likewise with the `host` rows of FILE (a lease's host rows,
                      host-*.csv of validate/runner/lease-run.sh) in place of its own of the same name and size
                      (the others, the compiled ones among them, kept; FILE's rank rows, where it has any,
                      in place of all of the calibration's: host.<mode>.rank_spread from FILE's lease)
  --drop SECTION.KEY  a key of gpu.SECTION removed (power.window_ms, kernels.gemm_extra: what the key is worth)
  --gemm-patched      the calibration refitted with each disturbed GEMM series of its raw gemm.csv (median over 1.1x
                      its fastest sample) taken at its fastest sample times the typical median/fastest ratio
  --gemm-capped       the calibration refitted with each grid GEMM more than 1.25x slower than a larger product of
                      its dtype (calibrate's cal_gemm_dominating) taken at that larger product's time
  --keep FILE         also write the changed model to FILE (for validate/spread.py, validate/host_split.py)
  (--tp-coll, --host-rows, --gemm-patched and --gemm-capped refit with `gpusim calibrate`: a --gpusim built with it, e.g.
  build-rel/gpusim)
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


def set_key(text, section, key, value):
    """text with gpu.SECTION's KEY set to value (replaced where present, else added after the section's line)."""
    m = re.search(r"^  %s:\n((?:    .*\n)+)" % section, text, re.M)
    if not m:
        sys.exit("what_if: the model has no gpu.%s section" % section)
    body = m.group(1)
    line = "    %s: %s\n" % (key, value)
    new, n = re.subn(r"^    %s: .*\n" % re.escape(key), line, body, count=1, flags=re.M)
    if not n:
        new = line + body
    return text[:m.start(1)] + new + text[m.end(1):]


def drop_key(text, section, key):
    """text without gpu.SECTION's KEY (a line of its own, or a flow map on one line)"""
    m = re.search(r"^  %s:\n((?:    .*\n)+)" % section, text, re.M)
    if not m:
        sys.exit("what_if: the model has no gpu.%s section" % section)
    new, n = re.subn(r"^    %s: .*\n" % re.escape(key), "", m.group(1), count=1, flags=re.M)
    if not n:
        sys.exit("what_if: the model has no gpu.%s.%s" % (section, key))
    return text[:m.start(1)] + new + text[m.end(1):]


def refit(gpusim, hw, base, out, edit, raw_file="kernels_torch.csv"):
    """HW's raw folder refitted into out with the lines of its raw_file passed through edit(lines)"""
    raw = hw[:-5] if hw.endswith(".yaml") else hw
    work = tempfile.mkdtemp()
    shutil.copytree(raw, os.path.join(work, "raw"))
    kt = os.path.join(work, "raw", raw_file)
    rows = edit(open(kt).readlines())
    open(kt, "w").writelines(rows)
    r = subprocess.run([gpusim, "calibrate", "--refit", os.path.join(work, "raw"), "-o", out, "--base", base],
                       capture_output=True, text=True)
    shutil.rmtree(work)
    if r.returncode:
        sys.exit("what_if: refit failed: %s" % r.stderr.strip())


def is_host(line, name=None):
    p = line.split(",")
    return len(p) > 5 and p[0] == "host" and (name is None or p[1] == name)


def tp_coll_edit(tp_block):
    """the edit that puts FILE's tp_coll time in place of the calibration's"""
    tp = [line.strip().split(",")[5] for line in open(tp_block) if is_host(line, "tp_coll")]
    if not tp:
        sys.exit("what_if: no tp_coll row in %s" % tp_block)

    def edit(lines):
        out = []
        for line in lines:
            if is_host(line, "tp_coll"):
                p = line.rstrip("\n").split(",")
                p[5] = tp[-1]
                line = ",".join(p) + "\n"
            out.append(line)
        return out
    return edit


def host_rows_edit(host_csv):
    """the edit that puts FILE's host rows in place of the calibration's"""
    rows = [line if line.endswith("\n") else line + "\n" for line in open(host_csv) if is_host(line)]
    if not rows:
        sys.exit("what_if: no host rows in %s" % host_csv)
    # the probe's reader: a row again replaces the one of its name and size; the rank rows (rank_block_ROUND) are
    # one measurement, so FILE's replace all of the calibration's where it has any
    if any(is_host(r, None) and r.split(",")[1].startswith("rank_block_") for r in rows):
        return lambda lines: [x for x in lines if not (is_host(x, None) and x.split(",")[1].startswith(
            "rank_block_"))] + rows
    return lambda lines: lines + rows


def gemm_patched_edit(lines):
    """gemm.csv with each disturbed series (median over 1.1x its fastest sample: cal_series_disturbed) taken at its
    fastest sample times the calibration's typical median/fastest ratio (that ratio's median over every series)"""
    head, rows = lines[0], [line.rstrip("\n").split(",") for line in lines[1:] if line.strip()]
    typ = statistics.median(float(r[4]) / float(r[5]) for r in rows if float(r[5]) > 0)
    for r in rows:
        if float(r[5]) > 0 and float(r[4]) > 1.1 * float(r[5]):
            r[4] = "%.4f" % (float(r[5]) * typ)
    return [head] + [",".join(r) + "\n" for r in rows]


def gemm_capped_edit(lines):
    """gemm.csv with each grid point more than 1.25x slower than a grid point of its dtype at least as large on
    every axis (calibrate/calib.c cal_gemm_dominating) given the fastest such point's median (an upper bound: the
    larger product's time), computed on the file as measured"""
    head, rows = lines[0], [line.rstrip("\n").split(",") for line in lines[1:] if line.strip()]
    col = {name: i for i, name in enumerate(head.strip().split(","))}
    grid = [r for r in rows if r[col["grid"]] == "1" and float(r[col["us"]]) > 0]
    dims = [(r[col["dtype"]], int(r[col["m"]]), int(r[col["n"]]), int(r[col["k"]]), float(r[col["us"]])) for r in grid]
    capped = []
    for r, (dt, m, n, k, us) in zip(grid, dims):
        best = min((q[4] for q in dims if q[0] == dt and q[1] >= m and q[2] >= n and q[3] >= k and q[4] * 1.25 < us),
                   default=None)
        if best is not None:
            capped.append((r, best))
    for r, best in capped:
        r[col["us"]] = "%.4f" % best
    print("what_if: %d grid GEMMs capped at a larger product's time" % len(capped), file=sys.stderr)
    return [head] + [",".join(r) + "\n" for r in rows]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("table")
    ap.add_argument("hw")
    ap.add_argument("--power", action="append", default=[])
    ap.add_argument("--kernels", action="append", default=[])
    ap.add_argument("--drop", action="append", default=[])
    ap.add_argument("--tp-coll")
    ap.add_argument("--host-rows")
    ap.add_argument("--gemm-patched", action="store_true")
    ap.add_argument("--gemm-capped", action="store_true")
    ap.add_argument("--base", default="h200-sxm")
    ap.add_argument("--rows")
    ap.add_argument("--keep")
    ap.add_argument("--gpusim", default="build/gpusim")
    a = ap.parse_args()
    gpusim = os.path.abspath(a.gpusim)
    table, hw = os.path.abspath(a.table), os.path.abspath(a.hw)
    with tempfile.TemporaryDirectory() as tmp:
        changed = os.path.join(tmp, "changed.yaml")
        if bool(a.tp_coll) + bool(a.host_rows) + a.gemm_patched + a.gemm_capped > 1:
            sys.exit("what_if: one of --tp-coll, --host-rows, --gemm-patched and --gemm-capped")
        if a.tp_coll or a.host_rows:
            refit(gpusim, hw, a.base, changed, tp_coll_edit(a.tp_coll) if a.tp_coll else host_rows_edit(a.host_rows))
        elif a.gemm_patched or a.gemm_capped:
            refit(gpusim, hw, a.base, changed, gemm_patched_edit if a.gemm_patched else gemm_capped_edit, "gemm.csv")
        else:
            shutil.copy(hw, changed)
        text = open(changed).read()
        for section, kvs in (("power", a.power), ("kernels", a.kernels)):
            for kv in kvs:
                k, _, v = kv.partition("=")
                text = set_key(text, section, k.strip(), re.sub(r",\s*", ", ", v.strip()))
        for sk in a.drop:
            section, _, key = sk.partition(".")
            text = drop_key(text, section, key)
        open(changed, "w").write(text)
        if a.keep:
            shutil.copy(changed, a.keep)
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
