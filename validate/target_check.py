#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""validate/target_check.py: issue 11's target (median |error| <= 3 %, max <= 8 %, every speedup on the right side
of 1) over every measured table, split where the host bounds a step and where the GPU does, and against how far the
measurements themselves repeat.

Models, each on every row of every measured table (validate/measured-h*.csv):
- preset, held out: the table's GPU preset with every section the calibrations' medians give it (compute, host,
  collectives, kernels, overlap: validate/preset_{compute,host,coll,kernels,overlap}.py) recomputed without the
  table's own lease, so nothing measured on the lease that ran a row enters the model that predicts it;
- own calibration: the calibration of the lease that ran the table (validate/score_tables.py's MODELS);
- held-out calibrations: the other calibrations MODELS lists for the table;
the calibrations made by `calibrate --quick` (a coarse GEMM table, seconds a phase) apart.
A row is host-bound when the held-out preset gives it a host band (sim/hostband.c: its host work at the slow end of
the lent hosts' range would reach half of the step), else GPU-bound; one classification for every model.

The measurements' own repeat: a host-bound row was measured on many leases of one GPU type (the same job, script and
software); predicting each measurement by the median of the other leases' measurements of that row (a model that
knows every answer but the one it is asked) shows how close any fixed prediction can come while the host drifts.

usage: validate/target_check.py [--gpusim build/gpusim] [--families] [--over PCT] [-j N]
       (about 1,100 `gpusim validate` runs: 10 minutes of one core)
"""
import argparse
import collections
import concurrent.futures
import copy
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import preset_coll  # noqa: E402
import preset_compute  # noqa: E402
import preset_host  # noqa: E402
import preset_kernels  # noqa: E402
import preset_overlap  # noqa: E402
from band_cover import lease  # noqa: E402
from score_tables import MODELS  # noqa: E402


def cached_yaml():
    """yaml.safe_load for the preset scripts, each file parsed once (libyaml's loader where there is one) and handed out
    as a fresh copy: held_out_preset() reads every calibration five times a table, 20 minutes of pure-Python parsing"""
    load, cache = yaml.safe_load, {}
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    def safe_load(stream):
        name = getattr(stream, "name", None)
        if name is None:
            return load(stream)
        key = (name, os.path.getmtime(name))
        if key not in cache:
            cache[key] = yaml.load(stream, Loader=loader)
        return copy.deepcopy(cache[key])
    yaml.safe_load = safe_load


def held_out_preset(preset, gpu, out):
    """the preset's text with every calibration-median section recomputed without lease `out`"""
    with open("hardware/%s.yaml" % preset) as fh:
        text = fh.read()
    text = preset_compute.with_compute(text, gpu, exclude=out)
    cals = preset_host.calibrations(exclude=out)
    tp = preset_host.tp_group(exclude=out)
    host, s = preset_host.median_host(cals, False, tp)
    text = preset_host.with_host(text, preset_host.section(host, preset_host.source(cals, s, tp=tp)))
    text = preset_coll.with_tables(text, preset_coll.readings(exclude=out).get(gpu, {}))
    text = preset_kernels.with_kernels(text, gpu, preset_kernels.readings(exclude=out).get(gpu, []))
    rows = preset_overlap.readings(exclude=out).get(gpu, [])
    return preset_overlap.with_overlap(text, preset_overlap.section(gpu, rows))


def quick(path):
    """whether a calibration was made by `calibrate --quick` (meta.mode: quick: seconds a phase, a coarse table)"""
    with open(path) as fh:
        return ((yaml.safe_load(fh) or {}).get("meta") or {}).get("mode") == "quick"


def validate(gpusim, table, hw):
    p = subprocess.run([gpusim, "validate", table, "--format", "json", "--hw", hw], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit("target_check: %s --hw %s: %s" % (table, hw, p.stderr.strip()[-400:]))
    return {r["label"]: r for r in json.loads(p.stdout)["rows"] if "rel_error" in r}


def stats(errs):
    a = sorted(abs(x) for x in errs)
    if not a:
        return "%6d rows" % 0
    return "%6d rows  median %5.1f %%  p90 %5.1f %%  max %5.1f %%  within 8 %% %5.1f %%  signed %+5.1f %%" % (
        len(a), 100 * statistics.median(a), 100 * a[min(len(a) - 1, int(0.9 * len(a)))], 100 * a[-1],
        100 * sum(x <= 0.08 for x in a) / len(a), 100 * statistics.median(errs))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpusim", default="build/gpusim")
    ap.add_argument("--families", action="store_true", help="also the held-out preset per family and GPU type")
    ap.add_argument("--over", type=float, metavar="PCT", help="also list the GPU-bound rows beyond PCT %% |error|")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 1, help="validate runs at once (default: the CPUs)")
    a = ap.parse_args()
    gpusim = os.path.abspath(a.gpusim)
    cached_yaml()
    err = collections.defaultdict(list)     # (model kind, bound) -> [rel_error]
    sign = collections.defaultdict(lambda: [0, 0, 0])  # (model kind, bound) -> [speedup rows, wrong, wrong and marked]
    worst = {}
    fam = collections.defaultdict(list)     # (gpu, family, bound) -> [rel_error], held-out preset
    meas = collections.defaultdict(dict)    # (gpu, label) -> {table: measured}
    spd = collections.defaultdict(dict)     # (gpu, label) -> {table: measured speedup over its one-GPU row}
    bound_of = {}
    over = []
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(max(1, a.j)) as pool:
        jobs = []
        for table in sorted(glob.glob("validate/measured-h*.csv")):
            base = os.path.basename(table)
            gpu = "h100" if "h100" in base else "h200"
            preset = "h100-dgx" if gpu == "h100" else "h200-sxm"
            path = os.path.join(tmp, "%s-%s.yaml" % (preset, base[:-4]))  # lease() drops "-compiled"
            with open(path, "w") as fh:
                fh.write(held_out_preset(preset, gpu, lease(table)))
            runs = [("preset, held out", path)]
            for hw in MODELS.get(base, []):
                if len(hw) == 2 and hw[1].startswith("hardware/"):
                    kind = "own calibration" if lease(hw[1]) == lease(table) else "held-out calibrations"
                    runs.append((kind + (" (quick)" if quick(hw[1]) else ""), hw[1]))
            jobs.append((table, gpu, [(kind, hw, pool.submit(validate, gpusim, table, hw)) for kind, hw in runs]))
        for table, gpu, runs in jobs:
            base = os.path.basename(table)
            runs = [(kind, hw, f.result()) for kind, hw, f in runs]
            bound = {lab: ("host" if "band_lo" in r else "gpu") for lab, r in runs[0][2].items()}
            for lab, r in runs[0][2].items():
                meas[(gpu, lab)][base] = r["measured"]
                if "measured_speedup" in r:
                    spd[(gpu, lab)][base] = r["measured_speedup"]
                bound_of[(base, lab)] = bound[lab]
                fam[(gpu, r.get("family", "?"), bound[lab])].append(r["rel_error"])
            for kind, hw, rows in runs:
                for lab, r in rows.items():
                    if lab not in bound:
                        continue
                    k = (kind, bound[lab])
                    err[k].append(r["rel_error"])
                    if abs(r["rel_error"]) > abs(worst.get(k, (0,))[0]):
                        worst[k] = (r["rel_error"], lease(table), lab)
                    if a.over is not None and bound[lab] == "gpu" and abs(r["rel_error"]) > a.over / 100:
                        over.append((kind, lease(hw) if hw.startswith("hardware/") else "preset", lease(table), lab,
                                     r["rel_error"]))
                    if "speedup_sign_ok" in r:
                        sign[k][0] += 1
                        sign[k][1] += not r["speedup_sign_ok"]
                        sign[k][2] += not r["speedup_sign_ok"] and bool(r.get("speedup_host_side"))
    # the measurements' own repeat: each host-bound measurement against the median of the other leases' of that row
    for (gpu, lab), by in meas.items():
        for base, m in by.items():
            others = [v for b, v in by.items() if b != base]
            if len(others) >= 4:
                err[("other leases' median measurement", bound_of[(base, lab)])].append(
                    statistics.median(others) / m - 1)
    for (gpu, lab), by in spd.items():  # and each measured speedup's side of 1 against the others' median's
        for base, x in by.items():
            others = [v for b, v in by.items() if b != base]
            if len(others) >= 4:
                k = ("other leases' median measurement", bound_of[(base, lab)])
                sign[k][0] += 1
                sign[k][1] += (x > 1) != (statistics.median(others) > 1)
    order = ("preset, held out", "own calibration", "own calibration (quick)", "held-out calibrations",
             "held-out calibrations (quick)", "other leases' median measurement")
    for b, name in (("gpu", "GPU-bound rows"), ("host", "host-bound rows (the held-out preset gives a band)")):
        print(name)
        for kind in order:
            k = (kind, b)
            if k in err:
                s = sign.get(k)
                w = worst.get(k)
                print("  %-34s %s%s%s" % (kind, stats(err[k]),
                                          "  speedups wrong %d of %d (%d marked the host's)" % (s[1], s[0], s[2]) if s else "",
                                          "  worst %+.1f %% (%s %s)" % (100 * w[0], w[1], w[2]) if w else ""))
    k = ("preset, held out", "gpu"), ("preset, held out", "host")
    s = [sum(sign[x][i] for x in k) for i in range(3)]
    print("all rows, preset held out          %s  speedups wrong %d of %d (%d marked the host's)"
          % (stats(err[k[0]] + err[k[1]]), s[1], s[0], s[2]))
    # how far a host-bound row's measurements spread over the leases of its GPU type (rows on 8 leases or more)
    spread = sorted((max(by.values()) / min(by.values()), gpu, lab, len(by), min(by.values()), max(by.values()))
                    for (gpu, lab), by in meas.items() if len(by) >= 8 and
                    any(bound_of[(b, lab)] == "host" for b in by))
    if spread:
        print("host-bound rows measured on 8 leases or more: %d (row, GPU type) pairs, max/min x%.2f to x%.2f, "
              "%d of them x1.5 or more; the widest:" % (len(spread), spread[0][0], spread[-1][0],
                                                        sum(x[0] >= 1.5 for x in spread)))
        for x in spread[-3:][::-1] + [x for x in spread if x[2] == "t04-single"]:
            print("  %-22s %s  %2d leases  %.4f to %.4f s (x%.2f)" % (x[2], x[1].upper(), x[3], x[4], x[5], x[0]))
    if a.over is not None:
        print("\nGPU-bound rows beyond %g %%: model, table, row, error" % a.over)
        for o in sorted(over):
            print("  %-22s %-26s %-22s %-22s %+6.1f %%" % (o[0], o[1], o[2], o[3], 100 * o[4]))
    if a.families:
        print("\nheld-out preset per GPU type and family")
        for k in sorted(fam):
            print("  %-5s %-18s %-4s %s" % (k[0], k[1], k[2], stats(fam[k])))


if __name__ == "__main__":
    main()
