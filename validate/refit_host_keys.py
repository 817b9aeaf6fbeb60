#!/usr/bin/env python3
"""validate/refit_host_keys.py: some keys of a calibration's host modes as this gpusim's calibrate fits them from the
calibration's own raw folder, every other key and section as written.

For a key a new calibrate derives from rows the committed calibrations already hold (host.<mode>.drift_lo and
drift_hi, from the probe rounds' mixed-stream ratios: docs/calibration.md): each file is refitted into a temporary
file (validate/refit_compiled.py's refit) and only the named keys of its `eager:`, `cuda_graphs:` and `compiled:`
lines are taken from it, set where the line has them and added at the line's end where it has not (the keys'
file order: hardware/hwmodel.c). A file whose raw folder lacks the rows gets nothing.

usage: validate/refit_host_keys.py KEY[,KEY...] HW.yaml... [--write] [--gpusim build-rel/gpusim]
e.g.   validate/refit_host_keys.py drift_lo,drift_hi hardware/*-measured.yaml --write
Prints, per file, the keys' values before and after; --write puts them in the file. The --gpusim binary must be
built with calibrate (GPUSIM_CALIBRATE=ON).
"""
import argparse
import re
import sys

from refit_compiled import host_lines, refits

MODES = ("eager", "cuda_graphs", "compiled")


def get(line, key):
    m = re.search(r"[{ ]%s: ([^,}]+)" % key, line)
    return m.group(1) if m else None


def put(line, key, value):
    if get(line, key) is not None:
        return re.sub(r"([{ ]%s: )[^,}]+" % key, lambda m: m.group(1) + value, line, count=1)
    return line[:line.rindex("}")] + ", %s: %s}" % (key, value)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("keys")
    ap.add_argument("hw", nargs="+")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--gpusim", default="build-rel/gpusim")
    a = ap.parse_args()
    keys = a.keys.split(",")
    for hw, text, new in refits(a.hw, a.gpusim):
        old_at = {m: v[0] for m, v in host_lines(text).items()}
        new_at = {m: v[0] for m, v in host_lines(new).items()}
        changed = False
        for m in MODES:
            if m not in old_at or m not in new_at:
                continue
            line = text[old_at[m]]
            for k in keys:
                v = get(new[new_at[m]], k)
                if v is None or v == get(line, k):
                    continue
                print("%s: host.%s.%s %s -> %s" % (hw, m, k, get(line, k), v))
                line = put(line, k, v)
                changed = True
            text[old_at[m]] = line
        if not changed:
            print("%s: no change" % hw)
        elif a.write:
            with open(hw, "w") as f:
                f.write("\n".join(text))
    return 1 if refits.failed else 0


if __name__ == "__main__":
    sys.exit(main())
