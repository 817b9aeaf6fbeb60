#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""validate/preset_kernels.py: the Hopper presets' memory-bound kernels, from the committed calibrations' measured
kernel families.

A step's memory-bound ops (layer norms, element-wise chains, casts, softmax, the optimizer) are priced by
`gpu.kernels` where the model has it (docs/hardware-model.md: each family's rate and fixed cost, measured by
`gpusim calibrate --kernels torch` on PyTorch's own kernels with torch.profiler, and the GPU's gap between
back-to-back kernels), else by the `memory_bound` copy rate. The presets had no `gpu.kernels`: their layer norm's
backward, for one, ran 2.2 times as fast as every calibration measured it (docs/validation.md, stop 40). This script
gives each Hopper preset the key-wise median of its GPU type's calibrations' `gpu.kernels`: per family the median
rate and fixed cost (and the median time at each measured size where every calibration measured the same sizes),
the median gap and the median kernels and time eager F.linear adds beside a GEMM.

Nothing here is fitted to a validation table: the inputs are the calibrations' kernel measurements only.

usage: validate/preset_kernels.py              print each GPU type's medians and the spread of the calibrations
       validate/preset_kernels.py --write      rewrite the kernels of the presets in PRESETS
       validate/preset_kernels.py --check      exit 1 when a preset's kernels differ from this script's
       validate/preset_kernels.py --score [--gpusim build/gpusim] [--rows]
                                               every measured table scored by its GPU's preset twice with the same
                                               binary: without kernels (the copy rate) and with the median of its
                                               type's calibrations without the table's own lease's (leave one lease
                                               out); per table and per layout family
"""
import glob
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from band_cover import lease  # noqa: E402
from preset_overlap import calibrations, preset_args, rewrite_presets, score_two  # noqa: E402

# calibrations committed after the presets' kernels were written, kept out of them so that their tables score the
# presets held out; the next --write that should take them in empties this
LATER = {"h200x2-1128ze": "stop 41, after the presets' kernels",
         "h200x1-1129a": "stop 42, after the presets' kernels"}
# the lent H100s were all H100 80GB HBM3 (3.35 TB/s), the GPU of h100-dgx; the 94 and 96 GB variants' faster HBM
# was not measured, so they keep the copy rate
PRESETS = {"h100-dgx": "h100", "h200-sxm": "h200"}
MARK = "# measured: the median of the lent GPUs' (validate/preset_kernels.py)"


def readings(exclude=None):
    """{gpu type: [(lease, gpu.kernels)]} of the calibrations that measured the kernel families"""
    out = {}
    for name, d in calibrations(exclude, LATER):
        k = (d.get("gpu") or {}).get("kernels")
        if k and "gap_us" in k:
            out.setdefault(name[:4], []).append((name, k))
    return out


def med(v, nd=3):
    return round(statistics.median(v), nd)


def median_kernels(rows):
    """the key-wise median of a GPU type's gpu.kernels: {family: {...}}, gap_us, gemm_extra"""
    ks = [k for _, k in rows]
    out = {"gap_us": med([k["gap_us"] for k in ks])}
    ge = [k["gemm_extra"] for k in ks if "gemm_extra" in k]
    if ge:
        out["gemm_extra"] = {"kernels": med([g["kernels"] for g in ge]), "us": med([g["us"] for g in ge])}
    fams = sorted({f for k in ks for f, v in k.items() if isinstance(v, dict) and "gbps" in v})
    for f in fams:
        vs = [k[f] for k in ks if isinstance(k.get(f), dict)]
        e = {"gbps": med([v["gbps"] for v in vs], 1), "latency_us": med([v["latency_us"] for v in vs])}
        grids = {tuple(v.get("bytes") or ()) for v in vs}
        if len(grids) == 1 and next(iter(grids)):
            b = next(iter(grids))
            e["bytes"] = list(b)
            e["us"] = [med([v["us"][i] for v in vs]) for i in range(len(b))]
        out[f] = (e, len(vs))
    return out, len(ks)


def block(gpu, rows):
    """the YAML lines of the preset's gpu.kernels (2-space indent under gpu:)"""
    m, n = median_kernels(rows)
    lines = ["  kernels:                          %s\n" % MARK,
             "    gap_us: %g\n" % m["gap_us"]]
    if "gemm_extra" in m:
        lines.append("    gemm_extra: {kernels: %g, us: %g}\n" % (m["gemm_extra"]["kernels"], m["gemm_extra"]["us"]))
    for f, v in m.items():
        if f in ("gap_us", "gemm_extra"):
            continue
        e, k = v
        s = "    %s: {gbps: %g, latency_us: %g" % (f, e["gbps"], e["latency_us"])
        if "bytes" in e:
            s += ", bytes: [%s], us: [%s]" % (", ".join(str(b) for b in e["bytes"]), ", ".join("%g" % u for u in e["us"]))
        lines.append(s + "}\n")
    lines.append('    source: "measured: the key-wise median of %d %s calibrations\' eager PyTorch kernels '
                 '(calibrate/torch_kernels.py, torch.profiler; PyTorch 2.11, 2026-11)"\n' % (n, gpu.upper()))
    return "".join(lines)


def with_kernels(text, gpu, rows):
    """text of a preset YAML with its gpu.kernels (MARK) replaced by the medians of rows (removed when rows is None)"""
    i = text.find("  kernels:                          " + MARK)
    if i >= 0:
        j = text.index("\n", text.index("\n    source:", i) + 1) + 1
        text = text[:i] + text[j:]
    if rows is None:
        return text
    g = text.index("\ngpu:\n")
    s = text.index("\n  source:", g) + 1  # the gpu mapping's own source: the kernels go before it
    return text[:s] + block(gpu, rows) + text[s:]


def preset_text(name, gpu, rows):
    with open("hardware/%s.yaml" % name) as fh:
        return with_kernels(fh.read(), gpu, rows)


def score(gpusim, show_rows):
    def texts(table, gpu, preset):
        return preset_text(preset, gpu, None), preset_text(preset, gpu, readings(exclude=lease(table)).get(gpu, []))
    score_two(gpusim, sorted(glob.glob("validate/measured-h*.csv")), texts,
              ("no kernels: med/max/signed", "median, lease out"),
              ("no kernels (copy rate)", "the type's median kernels, lease out"), show_rows)


def main():
    a = preset_args(__doc__).parse_args()
    if a.score:
        score(a.gpusim, a.rows)
        return 0
    r = readings()
    if a.write or a.check:
        return rewrite_presets(PRESETS, lambda gpu, old: with_kernels(old, gpu, r.get(gpu)), a.write, a.check,
                               "the kernels")
    for gpu, rows in sorted(r.items()):
        print("%s: the median of %d calibrations (%s)" % (gpu, len(rows), ", ".join(x[0] for x in rows)))
        print(block(gpu, rows), end="")
        for f in ("layernorm_bwd", "elementwise", "adam"):
            v = [k[f]["gbps"] for _, k in rows if f in k]
            if v:
                print("    %s gbps %.0f-%.0f" % (f, min(v), max(v)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
