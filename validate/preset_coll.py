#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""validate/preset_coll.py: the Hopper presets' collectives on groups of 2 to 4 GPUs of a node, from the committed
calibrations' measured tables.

A preset prices an intra-node collective with NCCL's cost model (docs/hardware-model.md, Collectives): lines of
NCCL's tuning.cc latencies and the bus bandwidth nccl-tests publishes for 8 GPUs of an HGX node (ring Simple 370
GB/s). On a group of 2 that is 0.77-0.90 of the H200 calibrations' median time between 1 MiB and 1 GiB (18
calibrations of 2-GPU groups on lent HGX H200 nodes, NV18 between every pair, within 7 % of one another at 16
MiB; this script prints both): the 8-GPU figure does not carry over to small groups. Every `gpusim calibrate` on 2 or more GPUs times each
collective on groups of 2 up to its GPU count from 8 B to 1 or 4 GiB (collectives.intra.<op>.tables). This script
gives each Hopper preset, for each collective and each group size 2-4 that its GPU type's calibrations measured, a
table: at every power of two from 8 B to 4 GiB the median over those calibrations of their time, each calibration's
table read log-log between its points as gpusim reads it (hardware/hwlookup.c) and only inside its range. Groups
of 5 and more keep the preset's lines (no calibration here measured them), as does every inter-node collective.

Nothing here is fitted to a validation table: the inputs are the calibrations' collective tables only.

usage: validate/preset_coll.py              print each GPU type's tables against the preset's lines
       validate/preset_coll.py --write      rewrite the tables of the presets in PRESETS
       validate/preset_coll.py --check      exit 1 when a preset's tables differ from this script's
       validate/preset_coll.py --score [--gpusim build/gpusim] [--rows]
                                            every multi-GPU measured table scored by its GPU's preset twice with
                                            the same binary: without the tables (the preset's lines) and with the
                                            median of its type's calibrations without the table's own lease's
                                            (leave one lease out); per table and per layout family
"""
import glob
import math
import os
import statistics
import sys

import yaml


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from band_cover import lease  # noqa: E402
from preset_overlap import calibrations, preset_args, rewrite_presets, score_two  # noqa: E402

# calibrations committed after the presets' tables were written, kept out of them so that their tables score the
# presets held out; the next --write that should take them in empties this
LATER = {"h200x2-1128ze": "stop 41, after the presets' collective tables",
         "h200x1-1129a": "stop 42, after the presets' collective tables"}
PRESETS = {"h100-dgx": "h100", "h100-sxm-94gb": "h100", "h100-sxm-96gb": "h100", "h200-sxm": "h200"}
OPS = ("all_reduce", "all_gather", "reduce_scatter", "broadcast", "send_recv", "all_to_all")
GRID = [2 ** e for e in range(3, 33)]  # 8 B .. 4 GiB
MARK = "# measured, groups of 2-4 GPUs (validate/preset_coll.py)"


def table_us(t, b):
    """a calibration's table (bytes, time_us) at b bytes, log-log between its points; None outside its range"""
    xs, ys = t["bytes"], t["time_us"]
    if b < xs[0] or b > xs[-1]:
        return None
    for i in range(1, len(xs)):
        if b <= xs[i]:
            x0, x1, y0, y1 = xs[i - 1], xs[i], ys[i - 1], ys[i]
            if b == x1 or x1 == x0:
                return y1
            f = math.log(b / x0) / math.log(x1 / x0)
            return math.exp(math.log(y0) + f * (math.log(y1) - math.log(y0)))
    return ys[0]


def readings(exclude=None):
    """{gpu type: {(op, n): [(lease, table)]}} of the calibrations' intra-node tables"""
    out = {}
    for name, d in calibrations(exclude, LATER):
        intra = (d.get("collectives") or {}).get("intra") or {}
        for op in OPS:
            for t in (intra.get(op) or {}).get("tables") or []:
                if 2 <= t["n"] <= 4:
                    out.setdefault(name[:4], {}).setdefault((op, t["n"]), []).append((name, t))
    return out


def median_table(rows):
    """(bytes, time_us, count of calibrations) at the grid points two or more calibrations cover"""
    bs, ts, ns = [], [], []
    for b in GRID:
        v = [x for x in (table_us(t, b) for _, t in rows) if x is not None]
        if len(v) >= 2 or (len(rows) == 1 and v):
            bs.append(b)
            ts.append(round(statistics.median(v), 2))
            ns.append(len(v))
    return bs, ts, ns


def tables_block(rd, op):
    """the YAML lines of one op's tables (6-space indent), or '' when no calibration measured it"""
    lines = []
    for n in (2, 3, 4):
        rows = rd.get((op, n))
        if not rows:
            continue
        bs, ts, ns = median_table(rows)
        lines.append("        - {n: %d, bytes: [%s],\n           time_us: [%s]}  # median of %d calibrations\n"
                     % (n, ", ".join(str(b) for b in bs), ", ".join("%g" % t for t in ts), max(ns)))
    if not lines:
        return ""
    return "      tables:  %s\n" % MARK + "".join(lines)


def op_span(text, op):
    """(start, end) of the op's mapping inside collectives.intra: its '    op:' line and the lines indented past it"""
    i0 = text.index("\n  intra:\n")
    i = text.index("\n    %s:" % op, i0, text.index("\n  inter:", i0)) + 1
    j = text.index("\n", i) + 1
    while text.startswith("      ", j):
        j = text.index("\n", j) + 1
    return i, j


def with_tables(text, rd):
    """text of a preset YAML with each intra op's tables (MARK) replaced by rd's (removed when rd is None)"""
    for op in OPS:
        i, j = op_span(text, op)
        body = text[i:j]
        m = body.find("      tables:  " + MARK)
        if m >= 0:  # the block runs to the op's end
            body = body[:m]
        if rd is not None:
            body += tables_block(rd, op)
        text = text[:i] + body + text[j:]
    return text


def preset_text(name, rd):
    with open("hardware/%s.yaml" % name) as fh:
        return with_tables(fh.read(), rd)


def score(gpusim, show_rows):
    def texts(table, gpu, preset):
        return preset_text(preset, None), preset_text(preset, readings(exclude=lease(table)).get(gpu, {}))
    score_two(gpusim, sorted(glob.glob("validate/measured-h*x[24]*.csv")), texts,
              ("lines: med/max/signed", "tables, lease out"),
              ("the preset's lines", "tables: median of the type's calibrations, lease out"), show_rows)


# busfactor and steps of NCCL's ring, as hardware/hwlookup.c prices a line (coll_busfactor, coll_steps)
def ring_factors(op, n):
    bus = {"all_reduce": 2.0 * (n - 1) / n, "send_recv": 1.0, "broadcast": 1.0}.get(op, (n - 1) / n)
    steps = {"all_reduce": 2.0 * (n - 1), "send_recv": 1.0}.get(op, n - 1.0)
    return bus, steps


def lines_us(lines, op, n, b):
    """the fastest of a preset's intra-node lines that applies (no tree lines inside a node), as hwmodel_coll_us
    prices a collective without a table: alpha + steps * step + bytes * busfactor / bus"""
    bus, steps = ring_factors(op, n)
    return min(l["alpha_us"] + l["step_us"] * steps + b * bus / (l["bus_gbps"] * 1e3) for l in lines
               if l.get("n", 0) in (0, n) and (not l.get("max_bytes") or b <= l["max_bytes"]))


def show():
    """each GPU type's all-reduce and send/recv tables against its preset's lines (the tables taken out) at a few
    sizes: docs/validation.md's comparison"""
    rd = readings()
    for gpu, name in (("h100", "h100-dgx"), ("h200", "h200-sxm")):
        intra = yaml.safe_load(preset_text(name, None))["collectives"]["intra"]
        for op, n in (("all_reduce", 2), ("all_reduce", 4), ("send_recv", 2)):
            rows = rd.get(gpu, {}).get((op, n))
            if not rows:
                continue
            bs, ts, ns = median_table(rows)
            print("%s %s n=%d: median of %d calibrations (%s)" % (gpu, op, n, max(ns), ", ".join(r[0] for r in rows)))
            for b, t in zip(bs, ts):
                if b in (2 ** 20, 2 ** 22, 2 ** 24, 2 ** 26, 2 ** 28, 2 ** 30):
                    v = [x for x in (table_us(x, b) for _, x in rows) if x is not None]
                    line = lines_us(intra[op]["lines"], op, n, b)
                    print("    %10d B  %9.1f us  (calibrations %.1f-%.1f)  %s's lines %.1f us (x%.2f)" % (
                        b, t, min(v), max(v), name, line, t / line))


def main():
    a = preset_args(__doc__).parse_args()
    if a.score:
        score(a.gpusim, a.rows)
        return 0
    if not (a.write or a.check):
        show()
        return 0
    r = readings()
    return rewrite_presets(PRESETS, lambda gpu, old: with_tables(old, r.get(gpu, {})), a.write, a.check,
                           "the collective tables")


if __name__ == "__main__":
    sys.exit(main())
