#!/usr/bin/env python3
"""validate/preset_host.py: the built-in presets' host section, from the committed calibrations' measured hosts.

A preset describes hardware nobody calibrated, but a step of eager PyTorch is priced by its host as much as by its
GPU (docs/hardware-model.md, "host"). The presets' host used to be three typed figures (op 28, launch 6, collective
20 us) from an early probe. Every committed calibration with the probe's op classes (hardware/*-measured.yaml whose
host.eager has gemm_us) measured a lent H100 or H200 host with PyTorch 2.11; this script makes the presets' host
the key-wise median of those, per execution mode:

  - every time key (step_us, op_us, the op classes, accum_us, backward_us, opt_us, coll_us, the compiled graph and
    kernel keys) and the kernel counts: the median over the calibrations that measured it; but eager coll_us, the
    median of the calibrations' TP call (op_us + coll_us, on a 1-rank group) less the median op_us, and group_us,
    the median of the leases' TP call on a real 2-rank group (TP_GROUP) over that median call;
  - not rank_spread: measured on 2-4 processes of lent cloud hosts (7-47 %), it says how unevenly those hosts ran;
    a preset's cluster of hundreds of dedicated hosts is another matter, and the law that carries a spread to N
    processes (docs/hardware-model.md) is checked only to 4: a preset pays no slowest-process factor;
  - drift_lo, drift_hi: not one host's drift over minutes but how far the measured hosts lie from their median:
    each calibration's eager op classes over the median's (the geometric mean of the ratios), the smallest and the
    largest. A preset's user does not know where their host falls; `predict` gives a host-bound step on the
    fastest and the slowest host measured (the host drift band, sim/hostband.h).

Nothing here is fitted to a validation table: the inputs are the calibrations' probe figures only. Calibrations
listed in LATER (made after the presets' host was written) are left out until the next --write takes them in.

usage: validate/preset_host.py                 print the host section the presets get (and the hosts' spread)
       validate/preset_host.py --write         rewrite the host section of the presets listed in PRESETS
       validate/preset_host.py --check         exit 1 when a preset's host section differs from this script's
       validate/preset_host.py --score [--gpusim build/gpusim] [--before OLD/gpusim] [--rows] [--rank-spread [S]]
                                       [--no-group]
                                               every measured table scored by its GPU's preset: --before's
                                               built-in preset against this host, computed without the
                                               calibration of the table's own lease (leave one lease out)
       validate/preset_host.py --models TABLE... [--gpusim G] [--before OLD/gpusim]
                                               those tables' host-bound rows by --before's preset, this one and
                                               each calibrated model validate/score_tables.py lists for them
"""
import argparse
import glob
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from band_cover import lease  # noqa: E402
from score_tables import MODELS  # noqa: E402

MODES = ("eager", "cuda_graphs", "compiled")
# the presets whose host is the lent hosts' median; rtx4070ti-super-pcie keeps its own (a desktop CPU, estimated)
PRESETS = ("a100-dgx", "b200-hgx", "gb200-nvl72", "gb300-nvl72", "h100-dgx", "h100-sxm-94gb", "h100-sxm-96gb",
           "h200-sxm")
# the eager op classes whose ratio to the median says how fast a host is (not opt_us: two calibrations measure it
# inside a step, the rest repeated alone; not coll_us: the process group's, not Python's)
SPEED_KEYS = ("op_us", "gemm_us", "gemm2d_us", "attn_us", "norm_us", "bwd_op_us", "bwd_gemm_us", "bwd_gemm2d_us",
              "bwd_attn_us", "accum_us", "backward_us")
# calibrations committed after the presets' host was last written, kept out of it so that the tables measured
# since score the presets held out; the next --write that should take them in empties this
LATER = {
    "h200x1-1128y": "stop 38, after the presets' host: its table and the fresh 1128w, 1128x score the preset",
    "h200x2-1128za": "stop 39, after the presets' host: its table scores the preset held out",
    "h200x2-1128zc": "stop 40, after the presets' host: its table scores the preset held out",
    "h200x2-1128ze": "stop 41, after the presets' host: its table scores the preset held out",
    "h200x1-1129a": "stop 42, after the presets' host: its table scores the preset held out",
}
# the TP-block probes on a real 2-rank group (validate/runner/mp_profile.py --tp-block, step 2 of every
# validate/runner/lease-run.sh call) and the lease (table) each ran on: `host,tp_coll`, one tensor-parallel all-reduce
# as a step issues it. A preset describes a node of several GPUs, whose TP group has 2 or more ranks; the
# calibrations' own reading is on a 1-rank group, which costs NCCL less per call (docs/calibration.md)
TP_GROUP = {
    "2026-11-27-h100x2": "h100x2", "2026-11-27-h100x4-night": "h100x4-1127j", "2026-11-28-h100x2-pm": "h100x2-1128f",
    "2026-11-28-h100x4": "h100x4-1128c", "2026-11-28-h100x4/repeat": "h100x4-1128c",
    "2026-11-27-h200x2": "h200x2-1127", "2026-11-27-h200x2b": "h200x2-1127b", "2026-11-27-h200x2-pm": "h200x2-1127f",
    "2026-11-27-h200x2-eve": "h200x2-1127g", "2026-11-27-h200x2-late": "h200x2-1128b",
    "2026-11-28-h200x2-lease": "h200x2-1128j", "2026-11-28-h200x2-1128l/rows": "h200x2-1128l",
    "2026-11-28-h200x2-1128m/rows": "h200x2-1128m", "2026-11-28-h200x2-1128p": "h200x2-1128p",
    "2026-11-28-h200x2-1128q": "h200x2-1128q", "2026-11-28-h200x2-1128r": "h200x2-1128r",
    "2026-11-28-h200x2-1128t": "h200x2-1128t", "2026-11-28-h200x2-1128v": "h200x2-1128v",
    "2026-11-28-h200x2-1128w": "h200x2-1128w", "2026-11-27-h200x4": "h200x4", "2026-11-27-h200x4-pm": "h200x4-1127e",
    "2026-11-27-h200x4-night": "h200x4-1127i", "2026-11-27-h200x4-late": "h200x4-1128a",
    "2026-11-28-h200x4-1128k/rows": "h200x4-1128k",
}
NOTE = {
    "gb200-nvl72": "; Grace (Arm) hosts not measured",
    "gb300-nvl72": "; Grace (Arm) hosts not measured",
    "a100-dgx": "; an A100 DGX's EPYC not measured",
    "b200-hgx": "",
}


def calibrations(exclude=None):
    """(lease, host) of every committed calibration with the probe's op classes, but exclude's"""
    out = []
    for f in sorted(glob.glob("hardware/*-measured.yaml")):
        with open(f) as fh:
            host = (yaml.safe_load(fh) or {}).get("host") or {}
        if "gemm_us" not in (host.get("eager") or {}) or lease(f) == exclude or lease(f) in LATER:
            continue
        out.append((lease(f), host))
    return out


def tp_group(exclude=None):
    """the 2-rank TP-block probes' `tp_coll` (us), one per lease (the median of a lease's readings), but exclude's"""
    by = {}
    for run, name in sorted(TP_GROUP.items()):
        if name == exclude:
            continue
        for path in glob.glob("validate/runs/%s/tp-block-*x2.csv" % run):
            with open(path) as fh:
                for line in fh:
                    f = line.strip().split(",")
                    if len(f) == 6 and f[:2] == ["host", "tp_coll"]:
                        by.setdefault(name, []).append(float(f[5]))
    return {k: statistics.median(v) for k, v in by.items()}


def num(x):
    return int(x) if float(x).is_integer() else round(float(x), 2)


def speeds(cals, med):
    """each calibration's eager op classes over the median host's: the geometric mean of the ratios"""
    out = {}
    for name, h in cals:
        e = h["eager"]
        r = [math.log(e[k] / med[k]) for k in SPEED_KEYS if e.get(k) and med.get(k)]
        out[name] = math.exp(sum(r) / len(r))
    return out


def median_host(cals, rank_spread=False, tp=None):
    """the median host of cals and each calibration's speed; rank_spread: True keeps the calibrations' median rank
    spread, a number sets it in every mode (the trials of docs/validation.md, not what the presets carry); tp: the 2-rank TP-block readings (tp_group()):
    eager group_us is their median over the calibrations' median TP call (op_us + coll_us, on a 1-rank group)"""
    host = {}
    drop = ("drift_lo", "drift_hi") + (() if rank_spread else ("rank_spread",))
    for m in MODES:
        keys = []
        for _, h in cals:
            keys += [k for k in (h.get(m) or {}) if k not in keys and k not in drop]
        host[m] = {k: num(statistics.median(h[m][k] for _, h in cals if k in (h.get(m) or {}))) for k in keys}
    if tp:
        # the TP call the calibrations measured (op_us + coll_us, on the probe's 1-rank group): its median, not the
        # sum of the two medians; what a call on a real group adds (the 2-rank readings) over that median: group_us
        e = host["eager"]
        one = statistics.median(h["eager"]["op_us"] + h["eager"]["coll_us"] for _, h in cals)
        e["coll_us"] = num(one - e["op_us"])
        extra = statistics.median(tp.values()) - one
        if extra > 0:
            keys = list(e)
            e["group_us"] = num(extra)
            host["eager"] = {k: e[k] for k in keys[:keys.index("bucket_us") + 1] + ["group_us"] + keys[
                keys.index("bucket_us") + 1:]}
    if rank_spread is not True and rank_spread:
        for m in MODES:
            host[m]["rank_spread"] = rank_spread
    s = speeds(cals, host["eager"])
    lo, hi = round(min(s.values()), 3), round(max(s.values()), 3)
    for m in MODES:
        host[m]["drift_lo"], host[m]["drift_hi"] = min(lo, 1.0), max(hi, 1.0)
    return host, s


def source(cals, s, note="", tp=None):
    n100 = sum(1 for c, _ in cals if c.startswith("h100"))
    return ("measured: the median of %d calibrations' host probes (%d lent H100 hosts, %d H200, PyTorch 2.11, "
            "2026-11; validate/preset_host.py)%s; drift: the fastest and slowest of those hosts, x%.2f-x%.2f%s"
            % (len(cals), n100, len(cals) - n100, "; group_us: %d leases' TP call on 2 ranks" % len(tp) if tp else "",
               min(s.values()), max(s.values()), note))


def section(host, src):
    lines = ["host:"]
    for m in MODES:
        lines.append("  %s: {%s}" % (m, ", ".join("%s: %s" % (k, v) for k, v in host[m].items())))
    lines.append('  source: "%s"' % src)
    return "\n".join(lines) + "\n"


def with_host(text, sec):
    """text of a preset YAML with its host section (from 'host:' through its 'source:' line) replaced by sec"""
    i = text.index("\nhost:\n") + 1
    j = text.index("\n", text.index("\n  source:", i) + 1) + 1
    return text[:i] + sec + text[j:]


def preset_text(name, sec):
    with open("hardware/%s.yaml" % name) as fh:
        return with_host(fh.read(), sec)


def validate(gpusim, table, hw, gpu=()):
    """gpusim validate TABLE --hw HW [--gpu GPU] as JSON"""
    cmd = [gpusim, "validate", table, "--format", "json", "--hw", hw] + (["--gpu", gpu[0]] if gpu else [])
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit("preset_host: %s --hw %s: %s" % (table, hw, p.stderr.strip()[-400:]))
    return json.loads(p.stdout)


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))]


def score(gpusim, before, show_rows, rank_spread, group=True):
    tot = {k: {"all": [], "hb": [], "in": 0, "nb": 0, "sr": 0, "sw": 0, "sh": 0, "shw": 0} for k in ("now", "new")}
    cal = {"held out": [], "own": []}  # |error| of the same host-bound rows with the tables' calibrated models
    print("%-24s %5s  %-34s  %-34s" % ("table", "rows", "--before's preset: med / max / host-bound signed",
                                        "lent hosts' median, this lease out"))
    with tempfile.TemporaryDirectory() as tmp:
        for table in sorted(glob.glob("validate/measured-*.csv")):
            preset = "h100-dgx" if "h100" in os.path.basename(table) else "h200-sxm"
            cals = calibrations(exclude=lease(table))
            tp = tp_group(exclude=lease(table)) if group else None
            host, s = median_host(cals, rank_spread, tp)
            path = os.path.join(tmp, "%s-%s.yaml" % (preset, lease(table)))
            with open(path, "w") as fh:
                fh.write(preset_text(preset, section(host, source(cals, s, tp=tp))))
            got = {"now": validate(before, table, preset), "new": validate(gpusim, table, path)}
            bound = {r["label"] for r in got["new"]["rows"] if "band_lo" in r}  # host-bound: the new preset's band
            for hw in MODELS.get(os.path.basename(table), []):
                if len(hw) == 2 and hw[1].startswith("hardware/"):
                    d = validate(gpusim, table, hw[1])
                    cal["own" if lease(hw[1]) == lease(table) else "held out"] += [
                        abs(r["rel_error"]) for r in d["rows"] if r["label"] in bound and "rel_error" in r]
            cells = []
            for k in ("now", "new"):
                t, d = tot[k], got[k]
                e = [r["rel_error"] for r in d["rows"] if "rel_error" in r]
                hb = [r["rel_error"] for r in d["rows"] if r["label"] in bound and "rel_error" in r]
                t["all"] += e
                t["hb"] += hb
                for r in d["rows"]:
                    if "band_lo" in r:
                        t["nb"] += 1
                        t["in"] += r["band_lo"] <= r["measured"] <= r["band_hi"]
                sm = d["summary"]
                for a, b in (("sr", "speedup_rows"), ("sw", "speedup_sign_wrong"), ("sh", "speedup_host_side"),
                             ("shw", "speedup_host_side_wrong")):
                    t[a] += sm.get(b, 0)
                cells.append("%4.1f / %5.1f / %+6.1f %% (%d) w%d" % (
                    100 * statistics.median(map(abs, e)), 100 * max(map(abs, e)),
                    100 * statistics.median(hb) if hb else float("nan"), len(hb), sm.get("speedup_sign_wrong", 0)))
                if show_rows and k == "new":
                    for r in d["rows"]:
                        if r["label"] in bound:
                            old = next(x for x in got["now"]["rows"] if x["label"] == r["label"])
                            print("    %-26s measured %9.3f ms  committed %+6.1f %%  new %+6.1f %%  band %.3f-%.3f"
                                  % (r["label"], 1e3 * r["measured"], 100 * old["rel_error"], 100 * r["rel_error"],
                                     1e3 * r["band_lo"], 1e3 * r["band_hi"]))
            print("%-24s %5d  %-34s  %-34s" % (lease(table) + ("-compiled" if "compiled" in table else ""),
                                               len(got["new"]["rows"]), cells[0], cells[1]))
    for k, name in (("now", "--before's preset"), ("new", "lent hosts' median (leave one lease out)")):
        t = tot[k]
        a = [abs(x) for x in t["all"]]
        hb = t["hb"]
        print("%s: %d rows, median %.1f %%, p90 %.1f %%, max %.1f %%, within 8 %% %.0f %%; host-bound %d rows: signed "
              "median %+.1f %%, median |error| %.1f %%, p90 %.1f %%" % (
                  name, len(a), 100 * statistics.median(a), 100 * pct(a, 0.9), 100 * max(a),
                  100 * sum(x <= 0.08 for x in a) / len(a), len(hb), 100 * statistics.median(hb),
                  100 * statistics.median(map(abs, hb)), 100 * pct([abs(x) for x in hb], 0.9)))
        if t["nb"]:
            print("  band: %d of %d measurements inside (%.0f %%)" % (t["in"], t["nb"], 100 * t["in"] / t["nb"]))
        print("  speedups: %d rows, %d on the wrong side of 1; %d marked the host's to decide, %d of the wrong among "
              "them" % (t["sr"], t["sw"], t["sh"], t["shw"]))
    for k, v in cal.items():
        if v:
            print("the same host-bound rows with the tables' calibrations, %s: %d (row, calibration) pairs, median "
                  "|error| %.1f %%, p90 %.1f %%" % (k, len(v), 100 * statistics.median(v), 100 * pct(v, 0.9)))


def models(gpusim, before, tables):
    """each of tables (host-bound rows: those the preset gives a band) with --before's preset, this binary's built-in
    preset and every calibrated model score_tables.py lists for it: median |error|, max, signed median, wrong signs"""
    for table in tables:
        preset = "h100-dgx" if "h100" in os.path.basename(table) else "h200-sxm"
        bound = {r["label"] for r in validate(gpusim, table, preset)["rows"] if "band_lo" in r}
        print("%s: %d host-bound rows" % (table, len(bound)))
        runs = [("--before's preset", before, [preset]), ("this preset", gpusim, [preset])]
        runs += [(os.path.basename(hw[-1]) + (" in " + hw[1] if len(hw) > 2 else ""), gpusim, hw[1::2])
                 for hw in MODELS.get(os.path.basename(table), []) if hw[-1].startswith("hardware/")]
        for name, binary, hw in runs:
            d = validate(binary, table, hw[0], hw[1:])
            e = [r["rel_error"] for r in d["rows"] if r["label"] in bound and "rel_error" in r]
            a = [abs(x) for x in e]
            print("  %-44s median %5.1f %%  max %5.1f %%  signed %+6.1f %%  wrong signs %d of %d%s" % (
                name, 100 * statistics.median(a), 100 * max(a), 100 * statistics.median(e),
                d["summary"].get("speedup_sign_wrong", 0), d["summary"].get("speedup_rows", 0),
                "  (own)" if lease(hw[-1]) == lease(table) else ""))


def type_speeds(s):
    """the calibrations' speeds over the median, per GPU type: (type, count, median)"""
    out = []
    for t in ("h100", "h200"):
        v = [x for n, x in s.items() if n.startswith(t)]
        if v:
            out.append((t, len(v), statistics.median(v)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--score", action="store_true")
    ap.add_argument("--rows", action="store_true", help="with --score: every host-bound row")
    ap.add_argument("--rank-spread", nargs="?", const=True, default=False, type=float, metavar="S",
                    help="with --score: keep the calibrations' median rank_spread, or give every mode S (the trials "
                    "not kept)")
    ap.add_argument("--no-group", action="store_true",
                    help="with --score: no group_us (the presets of stop 38, left out one lease at a time)")
    ap.add_argument("--models", nargs="+", metavar="TABLE",
                    help="score these tables' host-bound rows with the presets and their calibrated models")
    ap.add_argument("--gpusim", default="build/gpusim")
    ap.add_argument("--before", help="with --score: the binary whose built-in preset is the baseline (a build of "
                    "the commit before the presets took this host; default: --gpusim)")
    a = ap.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    if a.models:
        return models(a.gpusim, a.before or a.gpusim, a.models)
    if a.score:
        return score(a.gpusim, a.before or a.gpusim, a.rows, a.rank_spread, not a.no_group)
    cals = calibrations()
    tp = tp_group()
    host, s = median_host(cals, tp=tp)
    if not (a.write or a.check):
        sys.stdout.write(section(host, source(cals, s, tp=tp)))
        for name, v in sorted(s.items(), key=lambda x: x[1]):
            print("# %-16s x%.3f" % (name, v))
        for t, n, v in type_speeds(s):
            print("# the %s hosts' median: x%.3f (%d calibrations)" % (t.upper(), v, n))
        return 0
    stale = []
    for name in PRESETS:
        path = "hardware/%s.yaml" % name
        with open(path) as fh:
            old = fh.read()
        new = with_host(old, section(host, source(cals, s, NOTE.get(name, ""), tp)))
        if new != old:
            stale.append(path)
            if a.write:
                with open(path, "w") as fh:
                    fh.write(new)
    if a.check and stale:
        print("preset_host: host section not the calibrations' median (run validate/preset_host.py --write): %s"
              % " ".join(stale), file=sys.stderr)
        return 1
    print("%s %d presets" % ("rewrote" if a.write else "checked", len(stale) if a.write else len(PRESETS)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
