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
       validate/rank_steps.py --spread [--host-share 0.9] STEPS.csv...
       validate/rank_steps.py --probe PROBE.csv...
With --spread, over every row of 2 or more ranks in the files that is host-bound (its ranks' median host part at
least --host-share of their median step) and not a pipeline (whose ranks run different stages): how far the
slowest rank's host part (each rank's median) sits above the ranks' mean, by rank count, the median over the rows:
what a job pays for its slowest process (docs/validation.md, "The slowest process"; for a spread s of the ranks'
host speed, 1 + s E[max of N normals]).
With --probe, the rank rows (`host,rank_block_ROUND,RANK`) of calibrate's probe CSVs (a calibration's raw
kernels_torch.csv, a lease run's host-*.csv): per file, the spread calibrate wrote before stop 39 (each round's
standard deviation over mean, root mean square over the rounds) and the part that holds from round to round, which it
writes since (calibrate/torchkern_host.c, torchkern_rank_spread), and the median of each over the files.
"""
import argparse
import csv
import math
import statistics
import sys
from collections import defaultdict


def spread(paths, share):
    by_n = defaultdict(list)
    for path in paths:
        with open(path) as f:
            rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
        if not rows or "rank" not in rows[0]:
            continue
        runs = defaultdict(lambda: defaultdict(list))
        for r in rows:
            runs[r["label"]][r["rank"]].append((float(r["step_s"]), float(r["host_s"])))
        for label, ranks in runs.items():
            if len(ranks) < 2 or "-pp" in label:
                continue
            st = [statistics.median(s for s, _ in v) for v in ranks.values()]
            hs = [statistics.median(h for _, h in v) for v in ranks.values()]
            if statistics.median(h / s for h, s in zip(hs, st)) < share:
                continue
            by_n[len(ranks)].append(max(hs) / statistics.mean(hs))
    if not by_n:
        print("rank_steps: no host-bound row of 2 or more ranks", file=sys.stderr)
        return 1
    for n in sorted(by_n):
        v = sorted(by_n[n])
        print("%d ranks: %3d rows, the slowest rank's host part over the ranks' mean: median %.3f (quartiles %.3f, "
              "%.3f)" % (n, len(v), statistics.median(v), v[len(v) // 4], v[(3 * len(v)) // 4]))
    return 0


def probe(paths):
    whole, kept = [], []
    for path in paths:
        d = defaultdict(dict)
        with open(path) as f:
            for line in f:
                p = line.strip().split(",")
                if len(p) > 5 and p[0] == "host" and p[1].startswith("rank_block_"):
                    d[p[1]][int(float(p[2]))] = float(p[5])
        n = max((len(r) for r in d.values()), default=0)
        x = [[math.log(r[k]) for k in range(n)] for r in d.values() if sorted(r) == list(range(n))]
        if n < 2 or len(x) < 2:
            continue
        m = len(x)
        w = math.sqrt(statistics.mean((statistics.stdev(map(math.exp, r)) / statistics.mean(map(math.exp, r))) ** 2
                                      for r in x))
        gm = statistics.mean(v for r in x for v in r)
        rm = [statistics.mean(r) for r in x]
        km = [statistics.mean(r[k] for r in x) for k in range(n)]
        msk = m * sum((v - gm) ** 2 for v in km) / (n - 1)
        mse = sum((x[i][k] - rm[i] - km[k] + gm) ** 2 for i in range(m) for k in range(n)) / ((m - 1) * (n - 1))
        k = math.sqrt(max(0.0, (msk - mse) / m))
        whole.append(w)
        kept.append(k)
        print("%-60s %d ranks, %d rounds: each round's spread %.3f, what holds from round to round %.3f" % (
            path, n, m, w, k))
    if not kept:
        print("rank_steps: no rank rows of 2 or more ranks and rounds", file=sys.stderr)
        return 1
    print("%d files: median %.3f (each round's) and %.3f (what holds); 1 + that x 0.564 for 2 ranks: %.3f and %.3f" % (
        len(kept), statistics.median(whole), statistics.median(kept), 1 + 0.564 * statistics.median(whole),
        1 + 0.564 * statistics.median(kept)))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("steps", nargs="+")
    ap.add_argument("--rows", help="comma list of labels (default all)")
    ap.add_argument("--spread", action="store_true", help="the slowest rank's host part over many files")
    ap.add_argument("--host-share", type=float, default=0.9)
    ap.add_argument("--probe", action="store_true", help="the probe's rank rows: calibrate's rank_spread, two ways")
    a = ap.parse_args()
    if a.probe:
        return probe(a.steps)
    if a.spread:
        return spread(a.steps, a.host_share)
    if len(a.steps) != 1:
        ap.error("one STEPS.csv without --spread")
    a.steps = a.steps[0]
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
