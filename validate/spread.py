#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Score `gpusim validate` output against how reproducible each measured row is.

usage: gpusim validate validate/measured-h200x2.csv --format csv > pred.csv
       validate/spread.py pred.csv validate/runs/measured-h200x2-*.csv [--stable-pct 3] [--markdown]

A row is *stable* when every run of it lies within --stable-pct of the others (max/min - 1; a row with one run
counts as stable: its spread is not known); the rest move with
the host's speed from one lease to the next (host-bound and launch-latency-bound rows). Prints the median and
max |error| of all rows, the stable ones and the unstable ones, and the speedup-sign tally, as the numbers in
docs/validation.md come from.
"""
import argparse
import csv
import statistics
import sys


def load(path):
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pred")
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--stable-pct", type=float, default=3.0)
    ap.add_argument("--markdown", action="store_true", help="also print the per-row table")
    a = ap.parse_args()
    pred = load(a.pred)
    runs = [{r["label"]: float(r["measured_step_s"]) for r in load(p)} for p in a.runs]
    groups = {"all": [], "stable": [], "unstable": []}
    signs = {"all": [0, 0], "stable": [0, 0], "unstable": [0, 0]}
    table = []
    for r in pred:
        label = r["label"]
        vals = [run[label] for run in runs if label in run]
        spread = (max(vals) / min(vals) - 1) * 100 if len(vals) > 1 else 0.0
        kind = "stable" if spread <= a.stable_pct else "unstable"
        err = abs(float(r["rel_error"])) * 100
        for g in ("all", kind):
            groups[g].append((err, label))
            if r["speedup_sign_ok"]:
                signs[g][0] += r["speedup_sign_ok"] == "true"
                signs[g][1] += 1
        table.append((label, float(r["measured"]) * 1e3, float(r["predicted"]) * 1e3, float(r["rel_error"]) * 100,
                      spread, r["measured_speedup"], r["predicted_speedup"], r["speedup_sign_ok"]))
    print("| rows | count | median \\|error\\| | max \\|error\\| (row) | speedup sign right |")
    print("|---|---|---|---|---|")
    for g in ("all", "stable", "unstable"):
        e = groups[g]
        if not e:
            continue
        worst = max(e)
        print("| %s | %d | %.1f%% | %.1f%% (%s) | %d of %d |" % (
            g, len(e), statistics.median(x for x, _ in e), worst[0], worst[1], signs[g][0], signs[g][1]))
    # how the runs themselves agree, over every label measured in three or more of them (not only PRED's rows)
    labels = sorted(set().union(*runs))
    sp = sorted(((max(v) / min(v) - 1) * 100, l) for l in labels
                for v in [[run[l] for run in runs if l in run]] if len(v) >= 3)
    if sp:
        print("\nrows in 3+ runs: %d; spread within 3%%: %d, 3-%g%%: %d, beyond: %d; widest: %s" % (
            len(sp), sum(x <= 3 for x, _ in sp), a.stable_pct, sum(3 < x <= a.stable_pct for x, _ in sp),
            sum(x > a.stable_pct for x, _ in sp), ", ".join("%s %.0f%%" % (l, x) for x, l in sp[::-1][:5])))
    if a.markdown:
        print()
        print("| row | measured ms | predicted ms | error | run-to-run spread | speedup meas / pred |")
        print("|---|---|---|---|---|---|")
        for label, m, p, e, sp, ms, ps, ok in table:
            s = "%sx / %sx%s" % (ms[:4], ps[:4], "" if ok != "false" else " (wrong side of 1)") if ms else ""
            print("| %s | %.2f | %.2f | %+.1f%% | %.1f%% | %s |" % (label, m, p, e, sp, s))
    return 0


if __name__ == "__main__":
    sys.exit(main())
