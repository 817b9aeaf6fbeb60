#!/usr/bin/env python3
"""validate/family_table.py: one measured table scored by family with two hardware models side by side, as the
tables of docs/validation.md ("2 and 4 H100 GPUs", 2026-11-27) print them: median |error| / max |error| / signed
median per family and over all rows, the speedup signs right, and the fit/score roles' medians.

usage: validate/family_table.py TABLE.csv "HW ARGS A" "HW ARGS B" [GPUSIM]     (from the repository root)
e.g.   validate/family_table.py validate/measured-h100x2.csv \\
           "--hw h100-dgx --gpu hardware/h100x1-measured.yaml" "--hw h100-dgx"
"""
import csv
import io
import statistics
import subprocess
import sys


def rows(gpusim, table, hw):
    p = subprocess.run([gpusim, "validate", table, "--format", "csv"] + hw.split(), capture_output=True, text=True)
    out = [r for r in csv.DictReader(io.StringIO(p.stdout)) if r.get("metric") == "step_s" and r.get("rel_error")]
    if not out:  # e.g. HW ARGS without --hw: say what gpusim said
        sys.exit("family_table: no row predicted with '%s':\n%s" % (hw, p.stderr.strip()[-600:]))
    return out


def cell(e):
    a = [abs(x) for x in e]
    return "%.1f %% / %.1f %% / %+.1f %%" % (100 * statistics.median(a), 100 * max(a), 100 * statistics.median(e))


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    table, hw_a, hw_b = sys.argv[1:4]
    gpusim = sys.argv[4] if len(sys.argv) > 4 else "build/gpusim"
    a, b = rows(gpusim, table, hw_a), rows(gpusim, table, hw_b)
    fams = {}
    by_label = {r["label"]: r for r in b}
    for ra in a:  # the rows both models predicted, paired by label
        rb = by_label.get(ra["label"])
        if rb:
            fams.setdefault(ra["family"], []).append((float(ra["rel_error"]), float(rb["rel_error"])))
    fams["**all**"] = [x for v in list(fams.values()) for x in v]
    print("| family | rows | %s | %s |" % (hw_a, hw_b))
    print("|---|---|---|---|")
    for k, v in fams.items():
        print("| %s | %d | %s | %s |" % (k, len(v), cell([x[0] for x in v]), cell([x[1] for x in v])))
    for name, rs in ((hw_a, a), (hw_b, b)):
        signed = [r for r in rs if r["speedup_sign_ok"] not in ("", None)]
        bad = [r["label"] for r in signed if r["speedup_sign_ok"] in ("0", "false", "no")]
        roles = {}
        for r in rs:
            roles.setdefault(r["role"], []).append(abs(float(r["rel_error"])))
        print("%s: speedup sign right %d of %d %s; %s" % (
            name, len(signed) - len(bad), len(signed), bad,
            ", ".join("%s %d rows median %.1f %%" % (k, len(v), 100 * statistics.median(v)) for k, v in roles.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
