#!/usr/bin/env python3
"""validate/rank_steps.py: what the slowest rank costs a step, from a lease's steps.csv (validate/runner/torch_step.py
--steps, which validate/runner/device-run.sh writes: every rank's timed steps and their host part).

A row's measurement is the median over its timed steps of the slowest rank's step. For each row this prints that
median, the median over ranks of each rank's own median step, the median and the largest of the ranks' median host
parts (the step enqueued, before the device sync), and the gap between the first two. A rank's own step already
holds its waits at the collectives; the gap is how far the slowest rank's step sits above a typical rank's (ranks
that leave the last collective or the start barrier at different times), and a host part close to the step says
the step is host-bound on that rank.

usage: validate/rank_steps.py STEPS.csv [--rows LABEL,...]
"""
import argparse
import csv
import statistics
import sys
from collections import defaultdict


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("steps")
    ap.add_argument("--rows", help="comma list of labels (default all)")
    a = ap.parse_args()
    want = set(a.rows.split(",")) if a.rows else None
    step = defaultdict(lambda: defaultdict(dict))  # label -> rank -> step -> (step_s, host_s)
    with open(a.steps) as f:
        for r in csv.DictReader(f):
            if want and r["label"] not in want:
                continue
            step[r["label"]][int(r["rank"])][int(r["step"])] = (float(r["step_s"]), float(r["host_s"]))
    if not step:
        print("rank_steps: no rows in %s" % a.steps, file=sys.stderr)
        return 1
    print("%-22s %5s %10s %10s %10s %10s %7s" % ("row", "ranks", "slowest", "rank med", "host med", "host max",
                                                 "gap"))
    for label, ranks in step.items():
        steps = sorted(set.intersection(*(set(v) for v in ranks.values())))
        slowest = statistics.median(max(ranks[r][i][0] for r in ranks) for i in steps)
        own = statistics.median(statistics.median(ranks[r][i][0] for i in steps) for r in ranks)
        host = [statistics.median(ranks[r][i][1] for i in steps) for r in ranks]
        print("%-22s %5d %8.3f ms %7.3f ms %7.3f ms %7.3f ms %+6.1f%%" % (
            label, len(ranks), slowest * 1e3, own * 1e3, statistics.median(host) * 1e3, max(host) * 1e3,
            100 * (slowest / own - 1)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
