#!/usr/bin/env python3
"""validate/row_errors.py: the signed error of chosen rows over every (table, calibrated model) pair that
validate/score_tables.py scores, held out (another lease's calibration) and own (the table's lease), per row label:
how many pairs, the median signed error and the median |error|. Presets and compositions are left out.

usage: validate/row_errors.py REGEX [--gpusim build-rel/gpusim]
e.g.   validate/row_errors.py '^(m01|m02|t04|t05)-(single|dp2|tp2|pp2-1f1b)$'     (the host-bound rows)
       validate/row_errors.py compiled                                           (the torch.compile rows)
"""
import argparse
import csv
import io
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from band_cover import lease  # noqa: E402
from score_tables import MODELS  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("regex")
    ap.add_argument("--gpusim", default="build-rel/gpusim")
    a = ap.parse_args()
    pat = re.compile(a.regex)
    res = {}
    for table, models in MODELS.items():
        for m in models:
            hw = [x for x in m if x.endswith("-measured.yaml")]
            if not hw:
                continue
            own = any(lease(h) == lease(table) for h in hw)
            out = subprocess.run([a.gpusim, "validate", "validate/" + table, *m, "--format", "csv"],
                                 capture_output=True, text=True).stdout
            for r in csv.DictReader(io.StringIO(out)):
                if pat.search(r["label"]) and r["rel_error"]:
                    res.setdefault(r["label"], {}).setdefault(own, []).append(float(r["rel_error"]) * 100)

    def f(v):
        if not v:
            return "n  0"
        return "n %2d median %+6.1f %%, |median| %5.1f %%" % (len(v), statistics.median(v),
                                                             statistics.median(abs(x) for x in v))
    for label in sorted(res):
        print("%-24s held out: %s   own: %s" % (label, f(res[label].get(False)), f(res[label].get(True))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
