#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Tag the rows of a measured-runs CSV `fit` or `score` (the `role` column of `gpusim validate`).

A row is `fit` when every GEMM of its step (forward, input and weight gradient of QKV, projection, fc1, fc2 and the
output head, at its TP split) lies on a point of the calibrated model's bf16 GEMM table: gpusim then times its
GEMMs with the calibration's own measurements, so the row tests the simulator and the memory-bound and
communication models, not how the GEMM model carries to shapes it never saw. Every other row is `score`: at least
one GEMM is interpolated (or clamped) between measured points. No row was used to set any number of the model
(docs/validation.md); the split says which rows the calibration's measurements cover.

usage: validate/tag_roles.py MEASURED.csv HW.yaml   (rewrites the CSV's role column in place; keeps '#' lines)
"""
import csv
import io
import os
import sys

import yaml


def grid(hw_path):
    hw = yaml.safe_load(open(hw_path))
    for t in hw["gpu"]["gemm"].get("tables", []):
        if t["dtype"] == "bf16":
            return set(t["m"]), set(t["n"]), set(t["k"])
    return set(), set(), set()


def gemms(sc):
    m, p = sc["model"], sc.get("parallel", {})
    tp = p.get("tp", 1)
    T = sc["training"]["micro_batch"] * m.get("seq", 1)
    h = m["hidden"]
    f = m.get("ffn_hidden", 4 * h)
    f_in = 2 * f if m.get("ffn") == "swiglu" else f
    fwd = [(T, f_in // tp, h), (T, h, f // tp)]
    if m.get("type", "transformer") == "transformer":
        hd = h // m["heads"]
        kv = m.get("kv_heads", m["heads"])
        fwd += [(T, (h + 2 * kv * hd) // tp, h), (T, h, h // tp)]
        if m.get("vocab", 0):
            fwd.append((T, m["vocab"] // tp, h))
    out = []
    for (mm, n, k) in fwd:
        out += [(mm, n, k), (mm, k, n), (n, k, mm)]  # forward, input gradient, weight gradient
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    path, hw_path = sys.argv[1], sys.argv[2]
    gm, gn, gk = grid(hw_path)
    lines = open(path).read().splitlines()
    comments = [l for l in lines if l.startswith("#")]
    rows = list(csv.DictReader([l for l in lines if l and not l.startswith("#")]))
    fields = list(rows[0].keys())
    if "role" not in fields:
        fields.append("role")
    base = os.path.dirname(path)
    for r in rows:
        sc = yaml.safe_load(open(os.path.join(base, r["scenario"])))
        on = all(m in gm and n in gn and k in gk for (m, n, k) in gemms(sc))
        r["role"] = "fit" if on else "score"
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    open(path, "w").write("".join(c + "\n" for c in comments) + buf.getvalue())


if __name__ == "__main__":
    main()
