#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The steps of a validate/runner/host_context.py run as a measured table that `gpusim validate` reads.

host_context.py (validate/runner/host-ranks.sh runs it in one process and under torchrun) times each row's steps
before and after a host probe taken inside the row's processes, into steps.csv (one process) or steps-rankN.csv
(one per rank): label,phase,step,step_s,host_s. This writes, for one phase, each row's step time as the runner's
tables have it (the median of the timed steps on each rank, the slowest rank's) with its host part, into
RUN_DIR/measured-PHASE.csv, the scenario paths relative to that folder.

usage: validate/context_steps.py RUN_DIR [--phase before|after]
then:  gpusim validate RUN_DIR/measured-before.csv --hw HW   (validate/host_probes.sh scores it with every probe)
"""
import argparse
import csv
import glob
import os
import statistics
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run_dir")
    ap.add_argument("--phase", default="before", choices=("before", "after"))
    a = ap.parse_args()
    files = sorted(glob.glob(os.path.join(a.run_dir, "**", "steps*.csv"), recursive=True))
    if not files:
        sys.exit("context_steps: no steps*.csv under %s" % a.run_dir)
    runs = {}  # label -> one list of (step_s, host_s) per rank
    for f in files:
        with open(f) as fh:
            per = {}
            for r in csv.DictReader(fh):
                if r.get("phase") == a.phase:
                    per.setdefault(r["label"], []).append((float(r["step_s"]), float(r["host_s"])))
        for label, steps in per.items():
            runs.setdefault(label, []).append(steps)
    scen = os.path.relpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenarios", "validate"),
                           os.path.abspath(a.run_dir))
    out = os.path.join(a.run_dir, "measured-%s.csv" % a.phase)
    with open(out, "w") as f:
        f.write("# validate/context_steps.py %s --phase %s: the steps %s the probe inside each row "
                "(validate/runner/host_context.py), median of each rank's, the slowest rank's\n" % (
                    a.run_dir, a.phase, a.phase))
        f.write("scenario,measured_step_s,label,host_s,ranks\n")
        for label in sorted(runs):
            med = [(statistics.median(s for s, _ in st), statistics.median(h for _, h in st)) for st in runs[label]]
            step, host = max(med)
            f.write("%s/%s.yaml,%.7f,%s,%.7f,%d\n" % (scen, label, step, label, host, len(med)))
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
