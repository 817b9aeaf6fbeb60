#!/usr/bin/env python3
"""validate/stage_host.py: each pipeline stage's host part of a step under two schedules, run by run.

For every `steps.csv` under validate/runs (validate/runner/torch_step.py --steps: each rank's step and its host
part, the step enqueued before its device sync) that holds both rows A and B: each rank's median host part in
each, and the last stage's A over B. docs/validation.md ("A third machine") reads it for 1F1B against GPipe.

usage: validate/stage_host.py [A] [B]        (default t04-pp2-1f1b t04-pp2-gpipe)
"""
import csv
import glob
import statistics
import sys
from collections import defaultdict


def main():
    a = sys.argv[1] if len(sys.argv) > 1 else "t04-pp2-1f1b"
    b = sys.argv[2] if len(sys.argv) > 2 else "t04-pp2-gpipe"
    ratios = []
    for path in sorted(glob.glob("validate/runs/**/steps.csv", recursive=True)):
        host = defaultdict(list)
        with open(path) as f:
            for r in csv.DictReader(f):
                if r["label"] in (a, b):
                    host[(r["label"], int(r["rank"]))].append(float(r["host_s"]))
        ranks = sorted({k for lab, k in host if lab == a} & {k for lab, k in host if lab == b})
        if not ranks:
            continue
        med = {k: 1e3 * statistics.median(v) for k, v in host.items()}
        last = ranks[-1]
        ratio = med[(a, last)] / med[(b, last)]
        ratios.append(ratio)
        cells = "  ".join("rank %d %.1f / %.1f ms" % (k, med[(a, k)], med[(b, k)]) for k in ranks)
        print("%-52s %s  last stage x%.2f" % (path[len("validate/runs/"):], cells, ratio))
    if ratios:
        print("%d runs: the last stage's host in %s over %s x%.2f-%.2f, median x%.2f" %
              (len(ratios), a, b, min(ratios), max(ratios), statistics.median(ratios)))


if __name__ == "__main__":
    main()
