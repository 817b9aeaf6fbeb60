#!/usr/bin/env python3
"""validate/refit_compiled.py: a calibration's host.compiled as this gpusim's calibrate fits it from the calibration's
own raw folder, every other section as written.

`gpusim calibrate --refit` rebuilds a whole model from its raw folder; a committed calibration whose other sections
were fitted by an earlier calibrate would change in places this change has nothing to do with. This refits into a
temporary file and takes from it only the `compiled:` line of `host:` and the host section's `source:` line (whose
compiled part says what was fitted), so a model change to the compiled host fit reaches the committed calibrations
and nothing else moves (docs/validation.md says where it was used).

usage: validate/refit_compiled.py HW.yaml... [--write] [--source-only] [--gpusim build-rel/gpusim]
Prints, per file, the compiled line before and after; --write puts the new lines in the file; --source-only takes
only the host section's `source:` line (used 2026-11-28, stop 37, when host.source grew from 255 characters to 511
and the notes cut at 255 came back whole; the other host lines must then be as committed). The --gpusim binary
must be built with calibrate (GPUSIM_CALIBRATE=ON). HW's raw folder is HW without .yaml; its base preset is the
file's `base:`.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile


def host_lines(text):
    """{'eager' / 'cuda_graphs' / 'compiled': (index, line), 'source': (index, line)} of the host section of a
    model's lines"""
    out, inside = {}, False
    for i, line in enumerate(text):
        if re.match(r"^[A-Za-z_]", line):
            inside = line.startswith("host:")
            continue
        m = re.match(r"^  (eager|cuda_graphs|compiled): \{", line)
        if inside and m:
            out[m.group(1)] = (i, line)
        elif inside and line.startswith("  source: "):
            out["source"] = (i, line)
    return out


def refit(hw, gpusim):
    """(the committed file's lines, the lines of its refit by gpusim calibrate --refit of its raw folder over its base),
    or None after saying why"""
    text = open(hw).read().split("\n")
    base = next((re.sub(r'^base: "?([^"]*)"?$', r"\1", x) for x in text if x.startswith("base:")), None)
    raw = hw[:-5] if hw.endswith(".yaml") else hw
    if not base or not os.path.isdir(raw):
        print("%s: no base preset or no raw folder %s: skipped" % (hw, raw), file=sys.stderr)
        return None
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "refit.yaml")
        p = subprocess.run([gpusim, "calibrate", "--refit", raw, "-o", out, "--base", base],
                           capture_output=True, text=True)
        if p.returncode:
            print("%s: refit failed: %s" % (hw, p.stderr.strip()), file=sys.stderr)
            return None
        return text, open(out).read().split("\n")


def refits(paths, gpusim):
    """(path, the committed file's lines, its refit's lines) for each path that refits; sets refits.failed when one
    does not (the caller's exit status)"""
    refits.failed = False
    for hw in paths:
        got = refit(hw, gpusim)
        if got:
            yield hw, got[0], got[1]
        else:
            refits.failed = True


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("hw", nargs="+")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--gpusim", default="build-rel/gpusim")
    ap.add_argument("--source-only", action="store_true")
    a = ap.parse_args()
    for hw, text, lines in refits(a.hw, a.gpusim):
        old, new = host_lines(text), host_lines(lines)
        if a.source_only:
            same = all(old.get(k, (0, ""))[1] == new.get(k, (0, ""))[1] for k in ("eager", "cuda_graphs", "compiled"))
            if "source" not in old or "source" not in new or not same:
                print("%s: no source line, or its host lines refit otherwise: skipped" % hw, file=sys.stderr)
                refits.failed = True
                continue
            print("%s\n  before %s\n  after  %s" % (hw, old["source"][1].strip(), new["source"][1].strip()))
            if a.write:
                text[old["source"][0]] = new["source"][1]
                with open(hw, "w") as f:
                    f.write("\n".join(text))
            continue
        if "compiled" not in new or "compiled" not in old:
            print("%s: no host.compiled line" % hw, file=sys.stderr)
            continue
        print("%s\n  before %s\n  after  %s" % (hw, old["compiled"][1].strip(), new["compiled"][1].strip()))
        if a.write:
            for key in ("compiled", "source"):
                if key in old and key in new:
                    text[old[key][0]] = new[key][1]
            with open(hw, "w") as f:
                f.write("\n".join(text))
    return 1 if refits.failed else 0


if __name__ == "__main__":
    sys.exit(main())
