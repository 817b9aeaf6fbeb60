#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The rank rows `gpusim calibrate` reads (host,rank_block_ROUND,RANK,0,0,US: calibrate/torch_kernels.py
rank_host_rows) from the probes validate/runner/host_context.py took on every rank at once.

Under torchrun, host_context.py runs the host-class probe on all ranks together (host-fresh-rankN.csv), inside each
row with the row alive on every rank (host-in-ROW-rankN.csv) and at the end (host-end-rankN.csv): each such set is
one round of processes timed at the same time. Its standard block's host us a layer, forward plus backward
(block_fwd + block_bwd), is what rank_host_rows times. The rows go on standard output; appended to a calibration's
raw kernels_torch.csv of the same lease and refitted (`gpusim calibrate --refit DIR -o DIR.yaml --base PRESET`),
they give it host.<mode>.rank_spread (docs/validation.md, "The slowest process").

usage: validate/rank_rows.py RUN_DIR/two     (the folder of host-*-rankN.csv)
"""
import collections
import glob
import os
import re
import sys


def block_us(path):
    """block_fwd + block_bwd of one probe file (size 16 rows), or None"""
    got = {}
    with open(path) as f:
        for line in f:
            p = line.strip().split(",")
            if len(p) == 6 and p[0] == "host" and p[1] in ("block_fwd", "block_bwd"):
                got[p[1]] = float(p[5])
    return got["block_fwd"] + got["block_bwd"] if len(got) == 2 else None


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        sys.exit(__doc__)
    sets = collections.defaultdict(dict)
    for path in glob.glob(os.path.join(sys.argv[1], "host-*-rank*.csv")):
        m = re.match(r"(host-.*)-rank(\d+)\.csv$", os.path.basename(path))
        us = block_us(path)
        if m and us is not None:
            sets[m.group(1)][int(m.group(2))] = us
    rounds = [(stem, ranks) for stem, ranks in sorted(sets.items()) if len(ranks) >= 2]
    if not rounds:
        sys.exit("rank_rows: no probe of 2 or more ranks at once under %s" % sys.argv[1])
    print("# rank rows from %s (validate/rank_rows.py): rounds %s" % (
        sys.argv[1], ", ".join("%d %s" % (i, s) for i, (s, _) in enumerate(rounds))))
    for i, (_, ranks) in enumerate(rounds):
        for r in sorted(ranks):
            print("host,rank_block_%d,%d,0,0,%.2f" % (i, r, ranks[r]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
