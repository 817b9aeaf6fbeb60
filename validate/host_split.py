#!/usr/bin/env python3
"""validate/host_split.py: one measured table's errors split by whether the model's own prediction of the row
depends on the host (docs/validation.md): each row is predicted twice with the same hardware model, as it is and
with its eager host costs set to 0 (host.eager: every key 0), and a row is host-sensitive when the first is more
than THRESHOLD (default 5 %) slower than the second. The GPU-bound rows test the GPU, collective and schedule
model; the host-sensitive ones also the host section, which moves between leases of one machine type by 20 % and
more. Prints per group: rows, median |error|, max |error| (row), signed median, and the host-sensitive rows.

usage: validate/host_split.py TABLE.csv HW [GPUSIM] [THRESHOLD]      (from the repository root)
  HW: a hardware file or a preset name (hardware/NAME.yaml), as `gpusim validate --hw` takes it, or "HW --gpu
      FILE" (one argument) for a calibrated GPU composed into HW's node: then FILE's host costs are the ones zeroed
e.g.   validate/host_split.py validate/measured-h200x4.csv hardware/h200x4-measured.yaml build/gpusim
"""
import csv
import io
import os
import re
import statistics
import subprocess
import sys
import tempfile


def predict(gpusim, table, hw, gpu=None):
    extra = ["--gpu", gpu] if gpu else []
    p = subprocess.run([gpusim, "validate", table, "--format", "csv", "--hw", hw] + extra, capture_output=True,
                       text=True)
    if p.returncode not in (0, 1):
        sys.exit(p.stderr)
    return [r for r in csv.DictReader(io.StringIO(p.stdout)) if r.get("metric") == "step_s"]


def hostless(path, tmp):
    """A copy of hardware file `path` whose host.eager costs are all 0 (other modes and sections as they are)."""
    text = open(path).read()
    m = re.search(r"^host:\n(?:  .*\n)*", text, re.M)
    if not m:
        sys.exit("%s: no host section" % path)
    sect = re.sub(r"^(  eager:\s*)\{[^}]*\}", lambda e: e.group(1) + "{step_us: 0, op_us: 0, launch_us: 0, "
                  "coll_us: 0, bucket_us: 0}", m.group(0), flags=re.M)
    out = os.path.join(tmp, os.path.basename(path))
    with open(out, "w") as f:
        f.write(text[:m.start()] + sect + text[m.end():])
    return out


def summary(name, rows):
    if not rows:
        return "%-15s  0 rows" % name
    a = [abs(e) for e, _ in rows]
    worst = max(rows, key=lambda r: abs(r[0]))
    return "%-15s %2d rows: median |error| %5.1f %%, max %5.1f %% (%s), signed median %+5.1f %%" % (
        name, len(rows), 100 * statistics.median(a), 100 * max(a), worst[1], 100 * statistics.median(
            e for e, _ in rows))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    table, hw = sys.argv[1], sys.argv[2]
    gpusim = sys.argv[3] if len(sys.argv) > 3 else "build/gpusim"
    thr = float(sys.argv[4]) if len(sys.argv) > 4 else 0.05
    words = hw.split()
    gpu = words[words.index("--gpu") + 1] if "--gpu" in words[:-1] else None
    path = words[0] if os.path.exists(words[0]) else os.path.join("hardware", words[0] + ".yaml")
    with tempfile.TemporaryDirectory() as tmp:
        if gpu:  # composed: the host costs are the calibrated GPU file's (docs/cli.md, --gpu)
            base, free = predict(gpusim, table, path, gpu), predict(gpusim, table, path, hostless(gpu, tmp))
        else:
            base, free = predict(gpusim, table, path), predict(gpusim, table, hostless(path, tmp))
    gpu, host = [], []
    for r, f in zip(base, free):
        if r["label"] != f["label"] or not r["rel_error"]:
            continue
        (host if float(r["predicted"]) > (1 + thr) * float(f["predicted"]) else gpu).append(
            (float(r["rel_error"]), r["label"]))
    print("%s with %s (host-sensitive: more than %.0f %% slower with the host than without)" % (table, hw, 100 * thr))
    print(summary("GPU-bound", gpu))
    print(summary("host-sensitive", host))
    print(summary("all", gpu + host))
    print("host-sensitive rows: " + " ".join("%s %+.1f%%" % (lab, 100 * e) for e, lab in host))
    return 0


if __name__ == "__main__":
    sys.exit(main())
