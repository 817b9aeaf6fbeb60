#!/usr/bin/env python3
"""validate/host_effect.py: the figures of docs/validation.md's "The host's part of a step, measured against the
model's; compiled steps" that are not a whole table's score (those: validate/score_tables.py, validate/host_speed.py).

  probe HW            the probe's own compiled stacks (HW's raw kernels_torch.csv: `host,compiled_FAM_*` of 1, 2, 4
                      layers) against gpusim's host work (`predict` JSON host_issue_s) for a scenario of the same
                      layers (16 tokens x 256, compiled, flat parameters): measured forward + backward + optimizer
                      and the step, predicted
  rows OLD NEW TABLE...  each compiled row (label containing "compiled") of each TABLE (of this checkout: the same
                      measurements for both), its signed error with each of --hw's calibrations under two binaries,
                      each NAME=GPUSIM@TREE (TREE: the checkout whose hardware/ files that binary reads)
  pieces RUN_DIR HW   a validate/runner/step_pieces.py run (RUN_DIR/pieces.csv): each row's median host part with the
                      GPU busy against gpusim's host work with HW; --host-rows FILE refits HW with a lease's host rows
                      first (validate/what_if.py --host-rows; --gpusim built with calibrate)

usage: validate/host_effect.py probe HW.yaml [--gpusim build/gpusim]
       validate/host_effect.py rows before=GPUSIM@TREE after=GPUSIM@TREE TABLE.csv... --hw HW.yaml [--hw ...]
       validate/host_effect.py pieces RUN_DIR HW.yaml [--host-rows FILE --base PRESET] [--gpusim build-rel/gpusim]
e.g.   validate/host_effect.py probe hardware/h200x4-1128a-measured.yaml
       validate/host_effect.py pieces validate/runs/2026-11-28-h200x1-pieces hardware/h200x4-1128a-measured.yaml \\
           --host-rows validate/runs/2026-11-28-h200x1-pieces/host-a.csv --gpusim build-rel/gpusim
"""
import argparse
import csv
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import what_if  # noqa: E402

PROBE = {  # the probe's layers (calibrate/torch_kernels.py compiled_rows: _CBlock, _CMlp on 16 tokens x 256)
    "block": "model: {type: transformer, layers: %d, hidden: 256, heads: 4, kv_heads: 4, ffn: gelu, ffn_hidden: 1024, "
             "seq: 16, vocab: 0, dtype: bf16, flash_attention: true, causal: true}\n"
             "training: {global_batch: 1, micro_batch: 1, ",
    "mlp": "model: {type: mlp, layers: %d, hidden: 256, ffn_hidden: 256, dtype: bf16}\n"
           "training: {global_batch: 16, micro_batch: 16, ",
}
TRAIN = ("optimizer: adam, master_weights: fp32, grad_dtype: bf16, recompute: none, grad_accumulation: add, "
         "inputs: staged, execution: compiled, param_storage: flat}\nparallel: {gpus: 1}\n")


def host_work(gpusim, scenario, hw):
    p = subprocess.run([gpusim, "predict", scenario, "--hw", hw, "--format", "json"], capture_output=True, text=True)
    if p.returncode:
        sys.exit("host_effect: %s: %s" % (scenario, p.stderr.strip()))
    return json.loads(p.stdout)["host_issue_s"]


def probe(a):
    raw = os.path.join(a.hw[:-5] if a.hw.endswith(".yaml") else a.hw, "kernels_torch.csv")
    rows = defaultdict(dict)
    with open(raw) as f:
        for line in f:
            p = line.strip().split(",")
            if len(p) >= 6 and p[0] == "host" and p[1].startswith("compiled_") and p[1].count("_") == 2:
                _, fam, part = p[1].split("_")
                rows[(fam, int(float(p[2])))][part] = float(p[5])
    print("family layers  measured fwd+bwd+opt   step   predicted host work (us)")
    with tempfile.TemporaryDirectory() as tmp:
        for (fam, n), r in sorted(rows.items()):
            if fam not in PROBE or not all(k in r for k in ("fwd", "bwd", "opt", "step")):
                continue
            path = os.path.join(tmp, "%s%d.yaml" % (fam, n))
            with open(path, "w") as f:
                f.write("name: probe-%s-%d\n" % (fam, n) + PROBE[fam] % n + TRAIN)
            pred = host_work(a.gpusim, path, a.hw) * 1e6
            print("%-6s %6d  %20.0f %7.0f   %10.0f" % (fam, n, r["fwd"] + r["bwd"] + r["opt"], r["step"], pred))


def validate_rows(gpusim, tree, table, hw):
    out = subprocess.run([gpusim, "validate", table, "--hw", os.path.join(tree, hw),
                          "--format", "csv"], capture_output=True, text=True).stdout
    body = "\n".join(line for line in out.splitlines() if not line.startswith("#"))
    return {r["label"]: 100 * float(r["rel_error"]) for r in csv.DictReader(io.StringIO(body)) if r.get("rel_error")}


def rows(a):
    bins = []
    for spec in (a.old, a.new):
        name, _, rest = spec.partition("=")
        g, _, tree = rest.partition("@")
        bins.append((name, os.path.abspath(g), os.path.abspath(tree or ".")))
    for table in a.tables:
        for hw in a.hw:
            got = [validate_rows(g, tree, table, hw) for _, g, tree in bins]
            labels = [k for k in got[0] if "compiled" in k and k in got[1]]
            if labels:
                print("%s with %s (%s -> %s): %s" % (os.path.basename(table), os.path.basename(hw), bins[0][0],
                      bins[1][0], "  ".join("%s %+.1f -> %+.1f" % (k, got[0][k], got[1][k]) for k in labels)))


def pieces(a):
    host = defaultdict(list)
    with open(os.path.join(a.run_dir, "pieces.csv")) as f:
        for r in csv.DictReader(f):
            if r["way"] == "busy" and r["piece"] == "host":
                host[r["label"]].append(float(r["ms"]))
    hw = a.hw
    with tempfile.TemporaryDirectory() as tmp:
        if a.host_rows:
            hw = os.path.join(tmp, "refit.yaml")
            what_if.refit(os.path.abspath(a.gpusim), os.path.abspath(a.hw), a.base, hw,
                          what_if.host_rows_edit(a.host_rows))
        print("row                    host part ms  predicted host work ms  measured / predicted")
        for label, v in host.items():
            pred = host_work(a.gpusim, os.path.join("scenarios", "validate", label + ".yaml"), hw) * 1e3
            print("%-22s %12.2f %23.2f %21.2f" % (label, statistics.median(v), pred, statistics.median(v) / pred))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("probe")
    p.add_argument("hw")
    p.add_argument("--gpusim", default="build/gpusim")
    r = sub.add_parser("rows")
    r.add_argument("old")
    r.add_argument("new")
    r.add_argument("tables", nargs="+")
    r.add_argument("--hw", action="append", required=True)
    q = sub.add_parser("pieces")
    q.add_argument("run_dir")
    q.add_argument("hw")
    q.add_argument("--host-rows")
    q.add_argument("--base", default="h200-sxm")
    q.add_argument("--gpusim", default="build/gpusim")
    a = ap.parse_args()
    {"probe": probe, "rows": rows, "pieces": pieces}[a.cmd](a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
