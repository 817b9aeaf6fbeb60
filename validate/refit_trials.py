#!/usr/bin/env python3
"""validate/refit_trials.py: two trials of stop 39 (docs/validation.md, "A collective call on a real group") that
refit committed calibrations from their raw folders and score them on every table validate/score_tables.py lists
them for, split into each calibration's own lease's table and the others (held out).

  tp-coll      the calibrations whose lease also timed the TP block on a real 2-rank group (validate/preset_host.py,
               TP_GROUP), each refitted three ways: its 1-rank TP call alone (no group_us: before stop 39), that
               call replaced by its lease's 2-rank reading (no group_us), and as `calibrate` writes it now (its
               1-rank call plus its base's group_us). Scored on the narrow TP rows (t01/t03/t05/t06/t17-tp2):
               signed median, median and p90 of |error|, and the wrong speedup signs of those tables.
  rank-spread  the calibrations with rank rows (host,rank_block_*), refitted by --before (a build with the old
               rank_spread: each round's whole spread) and by --gpusim (what holds from round to round): every
               row's median and p90 |error|, the host-bound rows' signed and median |error|, wrong signs.

usage: validate/refit_trials.py tp-coll [--gpusim build-rel/gpusim]
       validate/refit_trials.py rank-spread --before OLD/gpusim [--gpusim build-rel/gpusim]
(--gpusim and --before must be built with calibrate, e.g. build-rel.)
"""
import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from band_cover import lease  # noqa: E402
from preset_host import tp_group  # noqa: E402
from score_tables import MODELS  # noqa: E402
from what_if import is_host, refit  # noqa: E402

NARROW = ("t01-tp2", "t03-tp2", "t05-tp2", "t06-tp2", "t17-tp2")


def base_of(hw):
    return "h100-dgx" if os.path.basename(hw).startswith("h100") else "h200-sxm"


def no_group(path):
    """the model at path with group_us 0 in eager (left out, the base's would be kept: hardware/hwload.c)"""
    with open(path) as fh:
        text = fh.read()
    text, n = re.subn(r", group_us: [0-9.e+-]+", ", group_us: 0", text)
    if not n:
        sys.exit("refit_trials: no group_us in %s" % path)
    with open(path, "w") as fh:
        fh.write(text)


def tp_edit(us):
    def edit(lines):
        out = []
        for line in lines:
            if is_host(line, "tp_coll"):
                p = line.rstrip("\n").split(",")
                p[5] = "%.2f" % us
                line = ",".join(p) + "\n"
            out.append(line)
        return out
    return edit


def pairs(hw):
    """(table, own) for every table MODELS scores hw on alone"""
    for t in sorted(glob.glob("validate/measured-*.csv")):
        if any(len(m) == 2 and m[1] == hw for m in MODELS.get(os.path.basename(t), [])):
            yield t, lease(t) == lease(hw)


def validate(gpusim, table, model):
    p = subprocess.run([gpusim, "validate", table, "--format", "json", "--hw", model], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit("refit_trials: %s --hw %s: %s" % (table, model, p.stderr.strip()[-300:]))
    return json.loads(p.stdout)


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))]


def tp_coll(gpusim, tmp):
    reads = tp_group()
    kinds = ("1-rank call", "2-rank reading", "1-rank + group_us")
    got = {(o, k): ([], 0) for o in ("own", "held out") for k in kinds}
    n, diff = 0, []
    for name, us in sorted(reads.items()):
        hw = "hardware/%s-measured.yaml" % name
        if not os.path.exists(hw[:-5] + "/kernels_torch.csv"):
            continue
        n += 1
        with open(hw[:-5] + "/kernels_torch.csv") as fh:
            diff += [us - float(line.split(",")[5]) for line in fh if is_host(line, "tp_coll")]
        files = [os.path.join(tmp, "%s-%d.yaml" % (name, i)) for i in range(3)]
        refit(gpusim, hw, base_of(hw), files[0], lambda lines: lines)
        no_group(files[0])
        refit(gpusim, hw, base_of(hw), files[1], tp_edit(us))
        no_group(files[1])
        refit(gpusim, hw, base_of(hw), files[2], lambda lines: lines)
        for table, own in pairs(hw):
            for k, f in zip(kinds, files):
                d = validate(gpusim, table, f)
                e, w = got[("own" if own else "held out", k)]
                e += [r["rel_error"] for r in d["rows"] if r["label"] in NARROW and "rel_error" in r]
                got[("own" if own else "held out", k)] = (e, w + d["summary"].get("speedup_sign_wrong", 0))
    print("%d calibrations with their lease's 2-rank reading (over their own 1-rank call: median %+.1f us); narrow TP "
          "rows (%s)" % (n, statistics.median(diff), ", ".join(NARROW)))
    for (o, k), (e, w) in got.items():
        a = [abs(x) for x in e]
        print("  %-8s %-18s %4d rows: signed %+6.1f %%, median |error| %5.1f %%, p90 %5.1f %%; wrong signs %d" % (
            o, k, len(e), 100 * statistics.median(e), 100 * statistics.median(a), 100 * pct(a, 0.9), w))
    return 0


def rank_spread(gpusim, before, tmp):
    cals = [f for f in sorted(glob.glob("hardware/*-measured.yaml")) if os.path.exists(f[:-5] + "/kernels_torch.csv")
            and "rank_block_" in open(f[:-5] + "/kernels_torch.csv").read()]
    got = {(o, k): [[], [], 0] for o in ("own", "held out") for k in ("before", "now")}
    for hw in cals:
        name = os.path.basename(hw)[:-len("-measured.yaml")]
        files = {}
        for k, binary in (("before", before), ("now", gpusim)):
            files[k] = os.path.join(tmp, "%s-%s.yaml" % (name, k))
            refit(binary, hw, base_of(hw), files[k], lambda lines: lines)
        spread = {k: re.search(r"rank_spread: ([0-9.]+)", open(f).read()) for k, f in files.items()}
        print("%-16s rank_spread %s -> %s" % (name, *(m.group(1) if m else "0" for m in spread.values())))
        for table, own in pairs(hw):
            for k, f in files.items():
                d = validate(gpusim, table, f)
                g = got[("own" if own else "held out", k)]
                g[0] += [r["rel_error"] for r in d["rows"] if "rel_error" in r]
                g[1] += [r["rel_error"] for r in d["rows"] if "rel_error" in r and "band_lo" in r]
                g[2] += d["summary"].get("speedup_sign_wrong", 0)
    for (o, k), (e, h, w) in got.items():
        a = [abs(x) for x in e]
        print("  %-8s %-6s %5d rows: median |error| %.2f %%, p90 %.1f %%; %d host-bound: signed %+.1f %%, median "
              "|error| %.1f %%; wrong signs %d" % (o, k, len(e), 100 * statistics.median(a), 100 * pct(a, 0.9), len(h),
                                                   100 * statistics.median(h) if h else 0,
                                                   100 * statistics.median(map(abs, h)) if h else 0, w))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trial", choices=("tp-coll", "rank-spread"))
    ap.add_argument("--gpusim", default="build-rel/gpusim")
    ap.add_argument("--before", help="rank-spread: a build with the old rank_spread estimate")
    a = ap.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    with tempfile.TemporaryDirectory() as tmp:
        if a.trial == "tp-coll":
            return tp_coll(a.gpusim, tmp)
        if not a.before:
            ap.error("rank-spread needs --before")
        return rank_spread(a.gpusim, a.before, tmp)


if __name__ == "__main__":
    sys.exit(main())
