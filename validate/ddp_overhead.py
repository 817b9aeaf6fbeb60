#!/usr/bin/env python3
"""validate/ddp_overhead.py: what DDP adds to a small model's one-GPU step, measured and predicted - the m01/m02
rows of each table, dp row minus its single row (ms), as docs/validation.md's "DDP's per-tensor copies" table
prints them; each GPUSIM binary a column (an older build beside the current one shows a change).

usage: validate/ddp_overhead.py GPUSIM [GPUSIM ...]      (from the repository root)
"""
import csv
import io
import subprocess
import sys

# each table with the calibration it is scored with (docs/validation.md, "Where it stands")
TABLES = [
    ("4 x H200 1127e", "validate/measured-h200x4-1127e.csv", ["--hw", "hardware/h200x4-1127e-measured.yaml"]),
    ("2 x H200 1127f", "validate/measured-h200x2-1127f.csv", ["--hw", "hardware/h200x2-1127f-measured.yaml"]),
    ("4 x H200 (morning)", "validate/measured-h200x4.csv", ["--hw", "hardware/h200x4-measured.yaml"]),
    ("2 x H200 1127", "validate/measured-h200x2-1127.csv", ["--hw", "hardware/h200x2-1127-measured.yaml"]),
    ("2 x H100 (1127d in the NV18 node)", "validate/measured-h100x2.csv",
     ["--hw", "hardware/h200x4-measured.yaml", "--gpu", "hardware/h100x1-1127d-measured.yaml"]),
    ("4 x H100 (same)", "validate/measured-h100x4.csv",
     ["--hw", "hardware/h200x4-measured.yaml", "--gpu", "hardware/h100x1-1127d-measured.yaml"]),
]
ROWS = ("m01-dp2", "m02-dp2", "m02-dp4")


def rows(gpusim, table, hw):
    p = subprocess.run([gpusim, "validate", table, "--format", "csv"] + hw, capture_output=True, text=True)
    if p.returncode:
        sys.exit(p.stderr)
    return {r["label"]: r for r in csv.DictReader(io.StringIO(p.stdout)) if r.get("predicted")}


def main():
    bins = sys.argv[1:]
    if not bins:
        sys.exit(__doc__)
    print("| table | " + " | ".join("%s measured / %s" % (r, " / ".join(bins)) for r in ROWS) + " |")
    print("|---|" + "---|" * len(ROWS))
    for name, table, hw in TABLES:
        got = [rows(b, table, hw) for b in bins]
        cells = []
        for r in ROWS:
            single = r.split("-")[0] + "-single"
            if r not in got[0] or single not in got[0]:
                cells.append("")
                continue
            meas = (float(got[0][r]["measured"]) - float(got[0][single]["measured"])) * 1e3
            pred = [(float(g[r]["predicted"]) - float(g[single]["predicted"])) * 1e3 for g in got]
            cells.append("%+.2f / %s" % (meas, " / ".join("%+.2f" % x for x in pred)))
        print("| %s | %s |" % (name, " | ".join(cells)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
