#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""validate/preset_overlap.py: the Hopper presets' overlap section, from the committed calibrations' measurements.

`overlap.compute_slowdown` and `overlap.comm_slowdown` say how much a GEMM and a collective slow each other while
they run together (docs/simulation.md, "Overlap interference"): DDP's gradient all-reduce beside the backward, a
distributed optimizer's gather beside the forward, TP overlap. The presets set both to 0 ("no published
measurement we trust"). Every `gpusim calibrate` on 2 or more GPUs measures the pair (bf16 8192^3 GEMMs beside
256 MiB all-reduces on another stream of the same GPUs, against each alone); 21 committed calibrations did, on 4
lent H100 hosts and 17 H200 hosts, on 2 and 4 NVLink-connected GPUs. This script computes each Hopper preset's pair
as the median of its GPU type's calibrations (h100-dgx and the H100 SXM variants: the H100 ones; h200-sxm: the H200
ones) and scores it; whether --write applies it or writes 0 with the medians in a comment is APPLY (off in stop 40,
when a nonzero pair turned off the engine's fused runs; on since stop 41). Not the A100 and Blackwell presets: no calibration measured
those GPUs.

Nothing here is fitted to a validation table: the inputs are the calibrations' overlap figures only.

usage: validate/preset_overlap.py              print each GPU type's median and the readings
       validate/preset_overlap.py --write      rewrite the overlap section of the presets in PRESETS
       validate/preset_overlap.py --check      exit 1 when a preset's overlap section differs from this script's
       validate/preset_overlap.py --score [--gpusim build/gpusim] [--rows]
                                               every measured table scored by its GPU's preset twice with the
                                               same binary: overlap 0 (the presets before) and the median of its
                                               type's calibrations without the table's own lease's (leave one
                                               lease out); per table, per layout family, and the DP rows
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from band_cover import lease  # noqa: E402

# calibrations committed after the presets' pairs were written, kept out of them so that their tables score the
# presets held out; the next --write that should take them in empties this
LATER = {"h200x2-1128zc": "stop 40, after the presets' overlap pair",
         "h200x2-1128ze": "stop 41, after the presets' overlap pair",
         "h200x1-1129a": "stop 42, after the presets' overlap pair"}
PRESETS = {"h100-dgx": "h100", "h100-sxm-94gb": "h100", "h100-sxm-96gb": "h100", "h200-sxm": "h200"}
KEYS = ("compute_slowdown", "comm_slowdown")


def calibrations(exclude, later):
    """(lease, parsed YAML) of every committed calibration but the excluded lease's and those in later"""
    for f in sorted(glob.glob("hardware/*-measured.yaml")):
        if lease(f) == exclude or lease(f) in later:
            continue
        with open(f) as fh:
            yield lease(f), yaml.safe_load(fh) or {}


def rewrite_presets(presets, new_text, write, check, what):
    """for each preset name -> GPU type: new_text(gpu, old text) -> new text; --write writes those that differ,
    --check says which do (returns 1 then)"""
    bad = 0
    for name, gpu in presets.items():
        path = "hardware/%s.yaml" % name
        with open(path) as fh:
            old = fh.read()
        new = new_text(gpu, old)
        if write and new != old:
            with open(path, "w") as fh:
                fh.write(new)
            print("wrote %s" % path)
        elif check and new != old:
            print("%s: %s differ from %s's" % (path, what, sys.argv[0]))
            bad = 1
    return bad


def readings(exclude=None):
    """{gpu type: [(lease, compute_slowdown, comm_slowdown, ranks)]} of the calibrations with an overlap section"""
    out = {}
    for name, d in calibrations(exclude, LATER):
        o = d.get("overlap") or {}
        if not all(k in o for k in KEYS):
            continue
        ranks = ((d.get("meta") or {}).get("overlap") or {}).get("ranks", 0)
        out.setdefault(name[:4], []).append((name, o["compute_slowdown"], o["comm_slowdown"], ranks))
    return out


def median_pair(rows):
    return tuple(round(statistics.median(r[i] for r in rows), 3) for i in (1, 2))


# Whether --write puts the medians into the presets. Off for stop 40's last commits: a nonzero pair turned off the
# engine's fused runs then (a preset's 70b_64gpu 0.6 -> 18 ms, the plan.md search 52 -> 370 CPU-seconds). Since
# stop 41 interference runs inside fused runs (sim/engine.c), and the presets carry the medians.
APPLY = True


def section(gpu, rows, apply=APPLY):
    cs, ms = median_pair(rows)
    n2 = sum(1 for r in rows if r[3] == 2)
    if not apply:
        return ("overlap:                            # how much a GEMM and a collective slow each other when they run "
                "together\n"
                "  # measured: the median of %d %s calibrations is %s / %s (validate/preset_overlap.py; DP rows 3.8 -> "
                "3.2 %% held\n"
                "  # out), not applied: a nonzero pair turns off the engine's fused runs (30x the time of a "
                "prediction)\n"
                "  compute_slowdown: 0\n"
                "  comm_slowdown: 0\n"
                '  source: "preset: interference not applied (0); measured by gpusim calibrate (2+ GPUs)"\n'
                % (len(rows), gpu.upper(), cs, ms))
    return ("overlap:                            # how much a GEMM and a collective slow each other when they run "
            "together\n"
            "  compute_slowdown: %s  # the median of %d %s calibrations' measured pair "
            "(validate/preset_overlap.py)\n"
            "  comm_slowdown: %s\n"
            "  # TP communication overlap (Transformer Engine's userbuffers: its own kernels, mostly copy engines) is not\n"
            "  # what the calibrations time (NCCL's all-reduce): not priced, as before (docs/hardware-model.md)\n"
            "  tp_compute_slowdown: 0\n"
            "  tp_comm_slowdown: 0\n"
            '  source: "measured: the median of %d calibrations (%d lent %s hosts on 2 GPUs, %d on 4; 2026-11): bf16 '
            '8192^3 GEMMs beside 256 MiB all-reduces on another stream, against each alone; compute %s-%s, comm '
            '%s-%s"\n' % (cs, len(rows), gpu.upper(), ms, len(rows), n2, gpu.upper(), len(rows) - n2,
                          min(r[1] for r in rows), max(r[1] for r in rows), min(r[2] for r in rows),
                          max(r[2] for r in rows)))


def with_overlap(text, sec):
    """text of a preset YAML with its overlap section (from 'overlap:' through its 'source:' line) replaced by sec"""
    i = text.index("\noverlap:") + 1
    j = text.index("\n", text.index("\n  source:", i) + 1) + 1
    return text[:i] + sec + text[j:]


def preset_text(name, sec):
    with open("hardware/%s.yaml" % name) as fh:
        return with_overlap(fh.read(), sec)


ZERO = ('overlap:\n  compute_slowdown: 0\n  comm_slowdown: 0\n  tp_compute_slowdown: 0\n  tp_comm_slowdown: 0\n'
        '  source: "preset: interference not modelled (0)"\n')


def validate(gpusim, table, hw):
    p = subprocess.run([gpusim, "validate", table, "--format", "json", "--hw", hw], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit("preset_overlap: %s --hw %s: %s" % (table, hw, p.stderr.strip()[-400:]))
    return json.loads(p.stdout)


def family(label):
    """t17-dp2-compiled -> dp; t07-tp2-pp2-1f1b -> tp+pp; m02-single -> single"""
    parts = label.split("-")[1:]
    fam = [p.rstrip("0123456789") for p in parts if p.rstrip("0123456789") in ("dp", "tp", "pp", "single")]
    return "+".join(fam) or "other"


def stats(v):
    a = sorted(abs(x) for x in v)
    return "%5.1f / %5.1f / %+6.1f %%" % (100 * statistics.median(a), 100 * a[-1], 100 * statistics.median(v))


def score_two(gpusim, tables, texts, heads, families, show_rows, note=None):
    """every table scored by its GPU's preset twice with the same binary: texts(table, gpu, preset) gives the two
    preset YAML texts (before, after); heads: the per-table columns' names, families: the family table's; note(table,
    gpu): an extra column. Prints per table (median |error| / max / signed median) and per layout family."""
    errs = ({}, {})
    print("%-22s %5s  %-26s  %-26s" % ("table", "rows", heads[0], heads[1]))
    with tempfile.TemporaryDirectory() as tmp:
        for table in tables:
            gpu = "h100" if "h100" in os.path.basename(table) else "h200"
            preset = "h100-dgx" if gpu == "h100" else "h200-sxm"
            e = []
            for k, text in enumerate(texts(table, gpu, preset)):
                path = os.path.join(tmp, "%s-%s-%d.yaml" % (preset, lease(table), k))
                with open(path, "w") as fh:
                    fh.write(text)
                got = validate(gpusim, table, path)
                e.append({r["label"]: r["rel_error"] for r in got["rows"] if "rel_error" in r})
                for lab, x in e[k].items():
                    errs[k].setdefault(family(lab), []).append(x)
            print("%-22s %5d  %-26s  %-26s%s" % (lease(table) + ("-compiled" if "compiled" in table else ""),
                                                len(e[1]), stats(e[0].values()), stats(e[1].values()),
                                                "  " + note(table, gpu) if note else ""))
            if show_rows:
                print_moved(e[0], e[1])
    print_families(errs[0], errs[1], *families)


def preset_args(doc):
    """the preset scripts' common options: --write, --check, --score [--rows] [--gpusim]"""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    for opt in ("--write", "--check", "--score", "--rows"):
        ap.add_argument(opt, action="store_true")
    ap.add_argument("--gpusim", default="build/gpusim")
    return ap


def score(gpusim, show_rows):
    def texts(table, gpu, preset):
        rows = readings(exclude=lease(table)).get(gpu, [])
        return preset_text(preset, ZERO), preset_text(preset, section(gpu, rows, apply=True))

    def note(table, gpu):
        return "pair used %.3f / %.3f" % median_pair(readings(exclude=lease(table)).get(gpu, []))
    score_two(gpusim, sorted(glob.glob("validate/measured-*.csv")), texts,
              ("overlap 0: med/max/signed", "median, lease out"),
              ("overlap 0", "median of the type's calibrations, lease out"), show_rows, note)


def print_moved(a, b):
    """every row whose error moved between two scorings ({label: error} each)"""
    for lab in b:
        if abs(b[lab] - a[lab]) > 0.0005:
            print("    %-26s %+6.1f %% -> %+6.1f %%" % (lab, 100 * a[lab], 100 * b[lab]))


def print_families(a, b, name_a, name_b):
    """a markdown table of two scorings per layout family ({family: [error]} each) and over all rows"""
    print()
    print("| layout family | rows | %s: median abs / max / signed | %s |" % (name_a, name_b))
    print("|---|---:|---|---|")
    for fam in sorted(a):
        print("| %s | %d | %s | %s |" % (fam, len(a[fam]), stats(a[fam]), stats(b[fam])))
    alla = [x for v in a.values() for x in v]
    allb = [x for v in b.values() for x in v]
    print("| all | %d | %s | %s |" % (len(alla), stats(alla), stats(allb)))


def main():
    a = preset_args(__doc__).parse_args()
    r = readings()
    if a.score:
        score(a.gpusim, a.rows)
        return 0
    bad = rewrite_presets(PRESETS, lambda gpu, old: with_overlap(old, section(gpu, r[gpu])), a.write, a.check,
                          "the overlap section")
    if not (a.write or a.check):
        for gpu, rows in sorted(r.items()):
            print("%s: median compute_slowdown %.3f, comm_slowdown %.3f over %d calibrations" % (
                gpu, *median_pair(rows), len(rows)))
            for row in rows:
                print("    %-16s %.3f %.3f  %d ranks" % row)
    return bad


if __name__ == "__main__":
    sys.exit(main())
