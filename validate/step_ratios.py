#!/usr/bin/env python3
"""validate/step_ratios.py: what the probe's step rows say, per probe CSV (a calibration's raw kernels_torch.csv or
the host rows of validate/runner/step-excess.sh): the eager and the compiled stacks' forward and backward inside a
step over alone, summed over the stacks as calibrate sums them (torchkern_step_pieces) and per family (mlp, block);
the optimizer's call inside a step and repeated alone (median over the stacks, lowest-highest); the fused AdamW call
of the class rows (`optimizer_step`, calibrate's opt_us without the step rows); and the MLP stacks' 4-layer forward
inside a step. docs/calibration.md and docs/validation.md ("A step's pieces where they run") quote these.

usage: validate/step_ratios.py PROBE.csv...
e.g.   validate/step_ratios.py validate/runs/2026-11-28-h200x1-steps/call2/host-a.csv \\
           validate/runs/2026-11-28-h200x1-steps/call2/host-b.csv hardware/h200x1-1128s-measured/kernels_torch.csv \\
           hardware/h200x2-1128t-measured/kernels_torch.csv
"""
import statistics
import sys

FAMS = ("mlp", "block")


def load(path):
    """{(name, size): us} of the file's host rows"""
    rows = {}
    for line in open(path):
        p = line.strip().split(",")
        if len(p) == 6 and p[0] == "host":
            try:
                rows[(p[1], float(p[2]))] = float(p[5])
            except ValueError:
                pass
    return rows


def stacks(rows, mode, fams):
    """(forward alone, backward alone, forward in a step, backward in a step, [optimizer in a step], [alone]) over
    the stacks of mode and fams with every row"""
    f = b = sf = sb = 0.0
    so, oa = [], []
    for fam in fams:
        for (name, size) in sorted(k for k in rows if k[0] == "%s_%s_fwd" % (mode, fam)):
            v = [rows.get(("%s_%s_%s" % (mode, fam, part), size))
                 for part in ("fwd", "bwd", "step_fwd", "step_bwd", "step_opt", "opt")]
            if any(x is None or x <= 0 for x in v[:5]):
                continue
            f, b, sf, sb = f + v[0], b + v[1], sf + v[2], sb + v[3]
            so.append(v[4])
            if v[5]:
                oa.append(v[5])
    return f, b, sf, sb, so, oa


def span(v):
    return "%.0f (%.0f-%.0f)" % (statistics.median(v), min(v), max(v)) if v else "-"


def main(paths):
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    for path in paths:
        rows = load(path)
        print(path)
        for mode in ("eager", "compiled"):
            f, b, sf, sb, so, oa = stacks(rows, mode, FAMS)
            if len(so) < 2:
                print("  %-8s no step rows" % mode)
                continue
            fam = []
            for k in FAMS:
                g = stacks(rows, mode, (k,))
                if g[0] > 0:
                    fam.append("%s x%.2f/x%.2f" % (k, g[2] / g[0], g[3] / g[1]))
            print("  %-8s forward x%.3f, backward x%.3f in a step over alone (%d stacks; %s); optimizer in a step %s us,"
                  " alone %s" % (mode, sf / f, sb / b, len(so), ", ".join(fam), span(so), span(oa)))
        opt = [v for (name, _), v in rows.items() if name == "optimizer_step"]
        mlp4 = rows.get(("eager_mlp_step_fwd", 4.0))
        print("  optimizer_step (fused AdamW, the class rows) %s us; eager 4-layer MLP stack's forward in a step %s us"
              % (span(opt), "%.0f" % mlp4 if mlp4 else "-"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
