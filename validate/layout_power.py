#!/usr/bin/env python3
"""validate/layout_power.py: the SM clock and power each row of a validate/runner/layout-power.sh run (or of
validate/runner/step-power.sh's rows) ran at, per GPU: the median over the row's busy samples (power above 300 W,
the first third of them dropped: process start, compilation, warm-up steps), beside its measured step time.

usage: validate/layout_power.py DIR        DIR holds samples.csv, marks.txt (`begin ROW GPUS` / `end ROW GPUS` lines)
                                           and rows.log (torch_step.py's `ROW median X ms` lines)
e.g.   validate/layout_power.py validate/runs/2026-11-27-h200x2-eve/layout-power-1
Prints a Markdown table: row, GPUs, step ms, then clock MHz / power W / samples per GPU sampled; for a row run alone
on several GPUs (ROW@g: layout-power.sh's ROWS1_GPUS), its step on each and the slowest over the fastest.
"""
import csv
import datetime
import os
import re
import statistics
import sys


def stamp(text):
    return datetime.datetime.strptime(text.strip()[:23], "%Y/%m/%d %H:%M:%S.%f")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    marks, begun = [], {}
    for line in open(os.path.join(d, "marks.txt")):
        p = line.split()
        if len(p) >= 4 and p[2] in ("begin", "end"):
            if p[2] == "begin":
                begun[p[3]] = (stamp(p[0] + " " + p[1]), p[4] if len(p) > 4 else "?")
            elif p[3] in begun:
                marks.append((p[3], begun[p[3]][1], begun[p[3]][0], stamp(p[0] + " " + p[1])))
    samples = []
    with open(os.path.join(d, "samples.csv")) as f:
        for r in list(csv.reader(f))[1:]:
            try:  # timestamp, index, clock, power, temperature
                samples.append((stamp(r[0]), int(r[1]), int(r[2]), float(r[3])))
            except (ValueError, IndexError):
                continue
    steps = {}
    log = os.path.join(d, "rows.log")
    if os.path.exists(log):
        for line in open(log):
            m = re.match(r"(\S+)\s+median\s+([0-9.]+) ms", line)
            if m:
                steps[m.group(1)] = float(m.group(2))
    gpus = sorted({s[1] for s in samples})
    print("| row | GPUs | step ms | " + " | ".join("GPU %d MHz / W (n)" % g for g in gpus) + " |")
    print("|---|---:|---:|" + "---:|" * len(gpus))
    for row, n, a, b in marks:
        cells = []
        for g in gpus:
            busy = [s for s in samples if a < s[0] < b and s[1] == g and s[3] > 300]
            busy = busy[len(busy) // 3:]
            cells.append("%.0f / %.0f (%d)" % (statistics.median(s[2] for s in busy),
                                               statistics.median(s[3] for s in busy), len(busy)) if busy else "idle")
        print("| %s | %s | %s | %s |" % (row, n, "%.1f" % steps[row] if row in steps else "-", " | ".join(cells)))
    # the chips: a row run alone on several GPUs (ROW@g, layout-power.sh's ROWS1_GPUS) by its step on each
    alone = {}
    for row, t in steps.items():
        if "@" in row:
            name, g = row.rsplit("@", 1)
            alone.setdefault(name, {})[g] = t
    for name, by in sorted(alone.items()):
        if len(by) > 1:
            print("\n%s alone on each GPU: %s ms; slowest over fastest %+.1f %%" % (
                name, ", ".join("GPU %s %.1f" % (g, by[g]) for g in sorted(by)),
                100 * (max(by.values()) / min(by.values()) - 1)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
