#!/usr/bin/env python3
"""validate/gemm_disturbed.py: the GEMM series of every calibration's raw gemm.csv whose median lies over 1.1x their
fastest sample (cal_series_disturbed in calibrate/calib.h: most of the series slowed by something else), and how
three stand-ins for such a series compare with the same shape's clean median on the other calibrations of the same
GPU type (at least two): the disturbed median itself, the fastest sample times the calibration's typical
median/fastest ratio, and the rate of the nearest clean grid point (log2 distance in m, n, k: how gemmtab fills a
missing point). docs/validation.md ("Disturbed GEMM series") quotes its output.

usage: validate/gemm_disturbed.py [hardware/*-measured/gemm.csv ...]     (run from the repository root)
"""
import csv
import glob
import math
import statistics
import sys

SPREAD = 1.1


def disturbed(v):
    return v[1] > 0 and v[0] > SPREAD * v[1]


def flops(key):
    return 2 * float(key[1]) * float(key[2]) * float(key[3])


def load(paths):
    data = {}
    for f in paths:
        name = f.split("/")[-2]
        data[name] = (name[:4], {(r["dtype"], r["m"], r["n"], r["k"]): (float(r["us"]), float(r["min_us"]))
                                 for r in csv.DictReader(open(f))})
    return data


def nearest_rate(clean, key):
    """us of key at the rate of the nearest clean point of its dtype"""
    km = [math.log2(float(x)) for x in key[1:]]
    best = min((sum((math.log2(float(a)) - b) ** 2 for a, b in zip(k2[1:], km)), k2, v2)
               for k2, v2 in clean.items() if k2[0] == key[0])
    return flops(key) / (flops(best[1]) / best[2][0])


def main():
    paths = sys.argv[1:] or sorted(glob.glob("hardware/*-measured/gemm.csv"))
    data = load(paths)
    res = {}
    for name, (gpu, d) in sorted(data.items()):
        n = sum(1 for v in d.values() if disturbed(v))
        print("%-28s %4d of %d series disturbed" % (name, n, len(d)))
        typ = statistics.median(u / m for u, m in d.values() if m > 0)
        clean = {k: v for k, v in d.items() if not disturbed(v)}
        for key, v in d.items():
            if not disturbed(v):
                continue
            others = [data[o][1][key][0] for o in data if o != name and data[o][0] == gpu and key in data[o][1]
                      and not disturbed(data[o][1][key])]
            if len(others) < 2:
                continue
            ref = statistics.median(others)
            res.setdefault(gpu, []).append((v[0] / ref - 1, v[1] * typ / ref - 1, nearest_rate(clean, key) / ref - 1))
    for gpu, rows in sorted(res.items()):
        print("%s: %d disturbed series with a clean median on 2+ other calibrations; each stand-in against it:"
              % (gpu, len(rows)))
        for i, label in enumerate(("the disturbed median", "fastest x typical ratio", "nearest clean point's rate")):
            e = sorted(abs(r[i]) for r in rows)
            print("   %-28s median |diff| %5.1f %%, p90 %5.1f %%, within 5 %%: %d" % (
                label, 100 * statistics.median(e), 100 * e[int(0.9 * len(e))], sum(1 for x in e if x < 0.05)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
