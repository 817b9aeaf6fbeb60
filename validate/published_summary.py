#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Summarise `gpusim validate --format csv` of validate/published-step.csv and published-tflops.csv per source
and precision (the family column), in one sign convention: the step-time error, (predicted - measured)/measured
of the time. A TFLOP/s row's time error is measured/predicted - 1 (more TFLOP/s predicted = a shorter step = a
negative error, an optimistic prediction). usage: published_summary.py STEP.csv TFLOPS.csv (validate's csv)
[--before STEP0.csv TFLOPS0.csv]: with --before, also every row's signed error before and after (a re-score).)"""
import csv
import statistics
import sys


def rows(path, tflops):
    out = []
    with open(path) as f:
        for r in csv.DictReader(ln for ln in f if not ln.startswith("#")):
            if not r["predicted"]:
                out.append((r["family"], None, r["label"]))
                continue
            m, p = float(r["measured"]), float(r["predicted"])
            out.append((r["family"], (m / p - 1) if tflops else (p / m - 1), r["label"]))
    return out


def line(name, errs, missing):
    a = [abs(e) for e in errs]
    worst = max(errs, key=abs)
    return "| %s | %d | %.1f %% | %+.1f %% | %+.1f %% | %d |" % (name, len(errs), statistics.median(a) * 100,
                                                               statistics.median(errs) * 100, worst * 100, missing)


def per_row(allr, before):
    """Every row's signed error before and after, in the order of the after files; a row new in after has none
    before."""
    old = {label: e for _, e, label in before}
    print("| row | family | before | after | change |")
    print("|---|---|---|---|---|")
    for fam, e, label in allr:
        b = old.get(label)
        fmt = lambda x: "%+.1f %%" % (x * 100) if x is not None else "-"
        ch = "%+.1f" % ((abs(e) - abs(b)) * 100) if (e is not None and b is not None) else "new" if b is None else "-"
        print("| %s | %s | %s | %s | %s |" % (label, fam, fmt(b), fmt(e), ch))
    print()


def main():
    allr = rows(sys.argv[1], False) + rows(sys.argv[2], True)
    if len(sys.argv) == 6 and sys.argv[3] == "--before":
        per_row(allr, rows(sys.argv[4], False) + rows(sys.argv[5], True))
    fams = {}
    for fam, e, _ in allr:
        fams.setdefault(fam, ([], [0]))
        if e is None:
            fams[fam][1][0] += 1
        else:
            fams[fam][0].append(e)
    print("| source / precision | rows scored | median abs error | signed median | worst (signed) | not predicted |")
    print("|---|---|---|---|---|---|")
    for fam in sorted(fams):
        errs, miss = fams[fam]
        if errs:
            print(line(fam, errs, miss[0]))
    for prec in ("fp16", "bf16", "fp8"):
        errs = [e for f, e, _ in allr if e is not None and f.endswith("/" + prec)]
        if errs:
            print(line("**all %s**" % prec, errs, 0))
    errs = [e for _, e, _ in allr if e is not None]
    print(line("**all**", errs, sum(1 for _, e, _ in allr if e is None)))
    nz3 = [e for f, e, _ in allr if e is not None and "MEG21_T2" not in f]
    print(line("**all but SC'21 Table 2 (ZeRO-3 rows)**", nz3, 0))


if __name__ == "__main__":
    main()
