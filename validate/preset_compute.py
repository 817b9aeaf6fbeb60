#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""validate/preset_compute.py: the Hopper presets' compute rates and the power law they run under, from the committed
calibrations: the GEMM tables, the fused (flash) attention rows with their clock law, and the power law's exponent
and memory-bound draw, each the median of the GPU type's calibrations.

Before stop 42 the presets priced a GEMM by the analytic model (docs/hardware-model.md: max_eff times the wave
quantization of its tiles times k/(k + k_half), split-K included), its ceiling one published short run divided by
the burst speedup, its tiles and k_half estimates; the flash attention by FlashAttention-2's published rates (the FA3
paper, short runs divided by the burst speedup); and the power law's exponent (3) and memory-bound draw (0.6) were
estimates. Every full calibration measures all of these on the lent GPU: cuBLASLt's bf16 GEMMs on a 15 x 13 x 13
grid of m, n, k (128-16384 x 512-32768 x 512-32768) on the settled GPU (sustained rates), PyTorch SDPA's flash
kernels at 88 shapes with the clock law they follow beside GEMMs (`--attention torch`), and the power phase's
exponent and memory-bound draw (docs/calibration.md). Against the tables the h100-dgx model is slow: its time over
the measured one has a signed median of +5.5 % on GEMMs of four waves or more and +5.6 % on those of one to four
(9 H100 80GB calibrations); h200-sxm's +1.2 % and +2.7 % (16 H200; GEMMs of 20 us or more, `--model`); the published
attention ran faster than every calibration measured it. The slow GEMMs and the fast attention cancelled on
multi-GPU rows and left the one-GPU rows slow (docs/validation.md, stop 41).

This script gives each of h100-dgx and h200-sxm the median of its GPU type's calibrations (the 94 and 96 GB H100
presets keep the model: their GPUs were not lent):
- gpu.gemm.tables: the point-wise median of the full bf16 tables, also as the fp16 table (one tensor-core peak,
  datasheet); other dtypes (fp8, tf32) keep the model;
- gpu.attention.fused: impl flash at the maximum clock (`rates: burst, clock: max`), each measured shape's median
  forward and backward rate, the medians of the clock law (power, clock_exponent, clock_anchor) where measured;
- gpu.power.exponent and memory_bound: the medians (burst_speedup, comm and idle were measured already).

Nothing here is fitted to a validation table: the inputs are the calibrations' own measurements only.

usage: validate/preset_compute.py              print each GPU type's calibrations and medians at a few shapes
       validate/preset_compute.py --model      the analytic GEMM model against every full table, by waves
       validate/preset_compute.py --write      rewrite the presets in PRESETS
       validate/preset_compute.py --check      exit 1 when a preset differs from this script's
       validate/preset_compute.py --score [--gpusim build/gpusim] [--rows] [--parts gemm,attention,power,window]
                                               every measured table scored by its GPU's preset twice with the same
                                               binary: the preset before this script wrote it (BEFORE_REV: the model,
                                               the published rows, the estimates), and with the medians (those of
                                               --parts, default all) of its type's calibrations without the table's
                                               own lease's (leave one lease out)
       validate/preset_compute.py --held       the GEMM tables against the power phase's 20-s held rates
       validate/preset_compute.py --swap CALIBRATION TABLE [--gpusim G]
                                               TABLE's signed median per family with the preset as written, with one
                                               section of CALIBRATION merged in at a time, and without clock boost
"""
import glob
import math
import os
import re
import statistics
import subprocess
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from band_cover import lease  # noqa: E402
from gemm_model import shape_eff  # noqa: E402
from preset_overlap import calibrations as all_calibrations  # noqa: E402
from preset_overlap import preset_args, rewrite_presets, score_two  # noqa: E402

_PARSED = []


def calibrations(exclude, later):
    """preset_overlap.calibrations, each file parsed once (a score asks for them three times a table)"""
    if not _PARSED:
        _PARSED.extend(all_calibrations(None, {}))
    return [(name, d) for name, d in _PARSED if name != exclude and name not in later]

# calibrations committed after the presets' tables were written, kept out of them so that their tables score the
# presets held out; the next --write that should take them in empties this
LATER = {"h200x2-1128ze": "stop 41, after the presets' kernels: its table scores them held out",
         "h200x1-1129a": "stop 42, measured before the presets' compute was written: its table scores it held out"}
PRESETS = {"h100-dgx": "h100", "h200-sxm": "h200"}
# the presets as they were before this script wrote them (the analytic model, the published attention rows, the
# estimated power law): what --score compares with
BEFORE_REV = "c98cf61"
MARK = "# measured: the median of the lent GPUs' (validate/preset_compute.py)"
MIN_POINTS = 15 * 13 * 13  # a full grid; the short runs' 4 x 3 x 3 grids are left out


def readings(exclude=None):
    """{gpu type: [(lease, bf16 table)]} of the calibrations with a full bf16 grid"""
    out = {}
    for name, d in calibrations(exclude, LATER):
        g = d.get("gpu") or {}
        for t in (g.get("gemm") or {}).get("tables") or []:
            if t.get("dtype") == "bf16" and len(t.get("eff") or ()) >= MIN_POINTS:
                out.setdefault(name[:4], []).append((name, t))
    return out


def median_table(rows):
    """(m, n, k, eff): the point-wise median of tables on one grid (the grid most of them share)"""
    grids = {}
    for _, t in rows:
        grids.setdefault((tuple(t["m"]), tuple(t["n"]), tuple(t["k"])), []).append(t["eff"])
    (m, n, k), effs = max(grids.items(), key=lambda x: len(x[1]))
    return list(m), list(n), list(k), [round(statistics.median(e[i] for e in effs), 4) for i in range(len(effs[0]))], \
        len(effs)


def block(gpu, rows):
    """the YAML lines of the preset's gpu.gemm.tables (4-space indent under gemm:)"""
    m, n, k, eff, used = median_table(rows)
    src = ("measured: the point-wise median of %d %s calibrations' cuBLASLt bf16 tables (gpusim calibrate, settled "
           "GPU, 2026-11-25..28)" % (used, gpu.upper()))
    lines = ["    tables:                         %s\n" % MARK]
    for dt, note in (("bf16", src), ("fp16", src + "; fp16 = bf16 (one tensor-core peak, datasheet)")):
        lines += ["      - dtype: %s\n" % dt,
                  "        m: [%s]\n" % ", ".join(str(x) for x in m),
                  "        n: [%s]\n" % ", ".join(str(x) for x in n),
                  "        k: [%s]\n" % ", ".join(str(x) for x in k),
                  "        eff: [%s]\n" % ", ".join("%g" % x for x in eff),
                  '        source: "%s"\n' % note]
    return "".join(lines)


def with_tables(text, gpu, rows):
    """text of a preset YAML with its gpu.gemm.tables (MARK) replaced by the medians of rows (removed: None)"""
    i = text.find("    tables:                         " + MARK)
    if i >= 0:
        j = i
        while True:  # to the end of the block: the next line indented less than the entries
            j = text.index("\n", j) + 1
            if not text.startswith("      ", j) and not text.startswith("    tables:", j):
                break
        text = text[:i] + text[j:]
    if not rows:
        return text
    g = text.index("\n  gemm:\n") + 1
    j = text.index("\n", g) + 1
    while text.startswith("    ", j) or text.startswith("\n", j):  # the gemm mapping's lines
        j = text.index("\n", j) + 1
    return text[:j] + block(gpu, rows) + text[j:]


def attention_medians(gpu, exclude=None):
    """({(seq, head_dim, causal, bh): [(fwd, bwd)]}, {law key: median}, calibrations) of gpu's flash entries"""
    rows, law, n = {}, {}, 0
    for name, d in calibrations(exclude, LATER):
        a = ((d.get("gpu") or {}).get("attention") or {})
        a = a.get("fused") if isinstance(a, dict) else None
        if name[:4] != gpu or not a or a.get("impl") != "flash" or a.get("clock") != "max":
            continue
        n += 1
        for r in a.get("rows") or ():
            rows.setdefault((r["seq"], r["head_dim"], bool(r["causal"]), r.get("bh") or 0), []).append(
                (r["fwd_tflops"], r["bwd_tflops"]))
        for k in ("power", "clock_exponent", "clock_anchor"):
            if k in a:
                law.setdefault(k, []).append(a[k])
    return rows, {k: (round(statistics.median(v), 3), len(v)) for k, v in law.items()}, n


def attention_block(gpu, exclude=None):
    """the YAML lines of the preset's gpu.attention (2-space indent under gpu:)"""
    rows, law, n = attention_medians(gpu, exclude)
    out = ["  attention:                        %s\n" % MARK,
           "    fused:\n",
           "      impl: flash\n",
           "      rates: burst\n",
           "      clock: max\n"]
    for k, (v, c) in law.items():
        out.append("      %s: %g\n" % (k, v))
    laws = "the median of %d" % min(c for _, c in law.values()) if law else "none measured"
    out.append('      source: "measured: the median of %d %s calibrations\' PyTorch SDPA flash kernels at each shape '
               '(gpusim calibrate --attention torch, 2026-11-25..28; clock law: %s)"\n' % (n, gpu.upper(), laws))
    out.append("      rows:\n")
    for k in sorted(rows, key=lambda k: (k[1], k[2], k[3], k[0])):
        f = statistics.median(x[0] for x in rows[k])
        b = statistics.median(x[1] for x in rows[k])
        out.append("        - {seq: %d, head_dim: %d, causal: %s, %sfwd_tflops: %.1f, bwd_tflops: %.1f}\n" %
                   (k[0], k[1], "true" if k[2] else "false", ("bh: %d, " % k[3]) if k[3] else "", f, b))
    return "".join(out)


def with_attention(text, gpu, exclude=None):
    """text with its gpu.attention mapping replaced by the medians"""
    i = text.index("\n  attention:") + 1
    j = text.index("\n", i) + 1
    while text.startswith("    ", j) or text.startswith("\n", j):
        j = text.index("\n", j) + 1
    return text[:i] + attention_block(gpu, exclude) + text[j:]


POWER_KEYS = ("exponent", "memory_bound", "window_ms")
# the parts --parts may pick (--score): the GEMM tables, the flash attention, the power law's exponent and
# memory-bound draw, its limiter window
PARTS = ("gemm", "attention", "power", "window")


def power_medians(gpu, exclude=None, keys=POWER_KEYS):
    v = {}
    for name, d in calibrations(exclude, LATER):
        p = (d.get("gpu") or {}).get("power") or {}
        if name[:4] == gpu:
            for k in keys:
                if k in p:
                    v.setdefault(k, []).append(p[k])
    return {k: (round(statistics.median(x), 3), len(x)) for k, x in v.items()}


def with_power(text, gpu, exclude=None, keys=POWER_KEYS):
    """text with gpu.power's keys (exponent, memory_bound, window_ms) the medians"""
    g = text.index("\n  power:\n")
    e = text.index("\n  ", g + 10)
    while text.startswith("\n    ", e) or text.startswith("\n\n", e):
        e = text.index("\n  ", e + 1)
    sec = text[g:e]
    what = {"exponent": "the power phase's fitted exponent", "memory_bound": "a held copy kernel's draw over the cap",
            "window_ms": "the limiter's time constant, from the idle-gap bursts"}
    med = power_medians(gpu, exclude, keys)
    for k, (v, c) in med.items():
        line = "    %s: %g" % (k, v)
        if "\n    %s: " % k not in sec:  # a key the preset did not have: after memory_bound
            sec = re.sub(r"(\n    memory_bound: [^\n]*)", "\\1\n    %s: 0" % k, sec)
        sec = re.sub(r"\n    %s: [^\n]*" % k, "\n%s%s# measured: the median of %d %s calibrations' (%s; "
                     "validate/preset_compute.py)" % (line, " " * max(1, 36 - len(line)), c, gpu.upper(), what[k]), sec)
    m = re.search(r'\n    source: "([^"]*)"', sec)
    if m and med and keys == POWER_KEYS:
        src = re.sub(r"; exponent(,| and) memory_bound.*$", "", m.group(1))  # the previous suffix
        sec = sec[:m.start(1)] + src + "; exponent, memory_bound and window_ms: the medians of the calibrations" + \
            sec[m.end(1):]
    return text[:g] + sec + text[e:]


def with_compute(text, gpu, exclude=None, parts=PARTS):
    """text with the medians of the parts asked for (all of them: what --write writes)"""
    if "gemm" in parts:
        text = with_tables(text, gpu, readings(exclude).get(gpu))
    if "attention" in parts:
        text = with_attention(text, gpu, exclude)
    keys = (("exponent", "memory_bound") if "power" in parts else ()) + (("window_ms",) if "window" in parts else ())
    return with_power(text, gpu, exclude, keys) if keys else text


def before_text(name):
    return subprocess.run(["git", "show", "%s:hardware/%s.yaml" % (BEFORE_REV, name)], capture_output=True, text=True,
                          check=True).stdout


def model_vs_tables():
    """the presets' analytic bf16 model against every full table: signed median of model time / measured - 1"""
    res = {}
    for gpu, rows in sorted(readings().items()):
        preset = [p for p, t in PRESETS.items() if t == gpu][0]
        with open("hardware/%s.yaml" % preset) as fh:
            g = yaml.safe_load(fh)["gpu"]
        mo, sm, peak = g["gemm"]["model"], g["sm_count"], g["peak_tflops"]["bf16"] * 1e12
        for _, t in rows:
            i = 0
            for m in t["m"]:
                for n in t["n"]:
                    for k in t["k"]:
                        e = t["eff"][i]
                        i += 1
                        if 2 * m * n * k / (peak * e) < 20e-6:
                            continue  # the timing loop's launch rate, not the GPU (validate/gemm_model.py)
                        pe = mo["max_eff"] * shape_eff(m, n, k, sm, mo["tile_m"], mo["tile_n"], mo["k_half"], True)
                        tiles = math.ceil(m / mo["tile_m"]) * math.ceil(n / mo["tile_n"])
                        w = "under 1 wave" if tiles < sm else "1-4 waves" if tiles < 4 * sm else "4 waves or more"
                        res.setdefault((preset, w), []).append(e / pe - 1)
    for (preset, w), v in sorted(res.items()):
        v.sort()
        print("%-9s %-16s %6d GEMMs  model/measured - 1: median %+.1f %%, p10 %+.1f, p90 %+.1f" %
              (preset, w, len(v), 100 * statistics.median(v), 100 * v[len(v) // 10], 100 * v[9 * len(v) // 10]))


def held_vs_tables():
    """each calibration's GEMM table, and its type's median table, against the power phase's 20-s held rates at
    the same shapes (meta.sustained.rates: table / held - 1), and the cool first seconds over the held rate"""
    med = {gpu: median_table(rows)[:4] for gpu, rows in readings().items()}

    def at(t, m, n, k):
        if m in t[0] and n in t[1] and k in t[2]:
            return t[3][(t[0].index(m) * len(t[1]) + t[1].index(n)) * len(t[2]) + t[2].index(k)]
        return None
    res = {}
    for name, d in calibrations(None, {}):
        gpu, g = name[:4], d.get("gpu") or {}
        own = [t for t in (g.get("gemm") or {}).get("tables") or () if t.get("dtype") == "bf16"]
        own = (own[0]["m"], own[0]["n"], own[0]["k"], own[0]["eff"]) if own else None
        for r in ((d.get("meta") or {}).get("sustained") or {}).get("rates") or ():
            if r.get("dtype") != "bf16" or gpu not in med:
                continue
            held = r["sustained_tflops"] / g["peak_tflops"]["bf16"]
            for what, t in (("own table", own), ("the median table", med[gpu])):
                e = at(t, r["m"], r["n"], r["k"]) if t else None
                if e:
                    res.setdefault((gpu, what), []).append(e / held - 1)
            if own:
                res.setdefault((gpu, "cool first seconds"), []).append(r["peak_tflops"] / r["sustained_tflops"] - 1)
    for (gpu, what), v in sorted(res.items()):
        v.sort()
        print("%s %-19s over the 20-s held rate: median %+.1f %% of %d (shape, calibration) pairs, %+.1f..%+.1f" %
              (gpu, what, 100 * statistics.median(v), len(v), 100 * v[0], 100 * v[-1]))


def swap(gpusim, cal, table):
    """table's signed median error by family with the GPU type's preset as written, then with one section of the
    calibration cal merged into it at a time, then without the clock boost (burst_speedup 1)"""
    import copy
    import csv
    import io
    import tempfile
    c = yaml.safe_load(open(cal))
    gpu = ((c.get("gpu") or {}).get("name") or "").lower()
    preset = "h100-dgx" if "h100" in gpu else "h200-sxm"
    with open("hardware/%s.yaml" % preset) as fh:
        base = yaml.safe_load(fh)

    def merge(a, b):
        if isinstance(a, dict) and isinstance(b, dict):
            return {**a, **{k: merge(a.get(k), v) if k in a else v for k, v in b.items()}}
        return b

    def fams(doc):
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as fh:
            fh.write(yaml.safe_dump(doc))
        p = subprocess.run([os.path.abspath(gpusim), "validate", os.path.basename(table), "--hw", fh.name,
                            "--format", "csv"], cwd=os.path.dirname(table) or ".", capture_output=True, text=True)
        os.unlink(fh.name)
        out = {}
        for r in csv.DictReader(io.StringIO(p.stdout)):
            if r.get("rel_error"):
                out.setdefault(r["family"], []).append(float(r["rel_error"]))
        return {f: 100 * statistics.median(v) for f, v in out.items()}
    variants = [(preset, base)]
    for path in (("gpu", "gemm"), ("gpu", "attention"), ("gpu", "power"), ("gpu", "kernels"), ("collectives",),
                 ("overlap",), ("host",)):
        src = c
        for k in path:
            src = src.get(k) if isinstance(src, dict) else None
        if src is None:
            continue
        doc = copy.deepcopy(base)
        tgt = doc
        for k in path[:-1]:
            tgt = tgt[k]
        tgt[path[-1]] = merge(tgt.get(path[-1]), src)
        variants.append(("+ its " + ".".join(path), doc))
    doc = copy.deepcopy(base)
    doc["gpu"]["power"]["burst_speedup"] = 1.0
    variants.append(("burst_speedup 1", doc))
    rows = [(name, fams(doc)) for name, doc in variants]
    keys = sorted({f for _, r in rows for f in r})
    print("%-26s %s" % ("signed median %", " ".join("%9s" % f[:9] for f in keys)))
    for name, r in rows:
        print("%-26s %s" % (name, " ".join("%+9.1f" % r[f] if f in r else "%9s" % "-" for f in keys)))


def score(gpusim, show_rows, parts=PARTS):
    def texts(table, gpu, preset):
        old = before_text(preset)
        return old, with_compute(old, gpu, exclude=lease(table), parts=parts)
    score_two(gpusim, sorted(glob.glob("validate/measured-h*.csv")), texts,
              ("before: med/max/signed", "medians, lease out"),
              ("before (model, published, estimates)", "the type's medians, lease out"), show_rows)


def main():
    p = preset_args(__doc__)
    p.add_argument("--model", action="store_true", help="the presets' analytic model against the tables")
    p.add_argument("--parts", default=",".join(PARTS), help="with --score: the medians to apply (of %s)" % ",".join(PARTS))
    p.add_argument("--held", action="store_true", help="the GEMM tables against the power phase's held rates")
    p.add_argument("--swap", nargs=2, metavar=("CALIBRATION", "TABLE"),
                   help="TABLE's families with the preset, then one section of CALIBRATION in it at a time")
    a = p.parse_args()
    if a.score:
        parts = tuple(x for x in a.parts.split(",") if x)
        if not parts or any(x not in PARTS for x in parts):
            p.error("--parts: a comma list of %s" % ", ".join(PARTS))
        score(a.gpusim, a.rows, parts)
        return 0
    if a.model:
        model_vs_tables()
        return 0
    if a.held:
        held_vs_tables()
        return 0
    if a.swap:
        swap(a.gpusim, *a.swap)
        return 0
    r = readings()
    if a.write or a.check:
        return rewrite_presets(PRESETS, lambda gpu, old: with_compute(old, gpu), a.write, a.check, "the compute")
    shapes = ((8192, 6144, 2048), (8192, 2048, 2048), (8192, 8192, 2048), (8192, 2048, 8192), (4096, 4096, 4096))
    for gpu, rows in sorted(r.items()):
        m, n, k, eff, used = median_table(rows)
        print("%s: the median of %d calibrations (%s)" % (gpu, used, ", ".join(x[0] for x in rows)))
        for s in shapes:
            if s[0] in m and s[1] in n and s[2] in k:
                i = (m.index(s[0]) * len(n) + n.index(s[1])) * len(k) + k.index(s[2])
                v = [t["eff"][i] for _, t in rows if len(t["eff"]) == len(eff)]
                print("  %5d x %5d x %5d: median %.3f, calibrations %.3f-%.3f" % (s + (eff[i], min(v), max(v))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
