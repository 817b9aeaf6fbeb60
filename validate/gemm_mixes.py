#!/usr/bin/env python3
"""validate/gemm_mixes.py: two readings of a calibration's power phase, as docs/validation.md ("Two more H200
leases") quotes them, for each calibration given.

1. The GEMM + copy mixes by period (meta.sustained.mixes): fine (a layer's GEMM and 256 MiB copies, cycles under a
   millisecond) and coarse (8192^3 GEMMs and 1 GiB copies, cycles of ~5 ms) at the same share of copy time; the
   coarse mix's gain over the held rate (speedup - 1) over the fine one's at each share. 1 where the limiter
   averages both alike; below 1 where a lower-power phase of milliseconds earns less than one of a fraction of one.
2. --tau: the limiter time constant each coarse mix implies. The balance calibrate fits the exponent x with
   (calibrate/sustain.c: GEMMs sped up v over their held time Wc, copies Wm at the memory-bound power share mf,
   idle share s: v^(x-1) - 1/v = R, R = (1 - mf) Wm / ((1 - s) Wc)) holds the fine mixes; a coarse mix's copy phase
   of Wm ms (contiguous: the cycle is its GEMMs, then its copies) earning only tau (1 - e^(-Wm/tau)) of it, as
   gpusim credits a wait (gpu.power.window_ms), fits it with R times that fraction: the tau that does, with x the
   fine mixes' mean exponent ("inf" where the coarse mix gains as much as the fine ones or more).
3. --layer: the layer mix's twelve GEMMs (calibrate/torch_attention.py's `# layermix` line: torch's kernels held at
   the cap, 16384 tokens of width 2048, ffn 8192) against the model's time for the same GEMMs held: gpusim's
   timeline of one such layer (a scenario written to a temporary file) times its GEMM speed over the held rate.

usage: validate/gemm_mixes.py HW.yaml ... [--tau] [--layer] [--gpusim build/gpusim]
e.g.   validate/gemm_mixes.py hardware/*-measured.yaml --layer
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile

MIXFULL = re.compile(r"\{name: (coarse|fine),\s+m: (\d+),\s+n: (\d+),\s+k: (\d+),\s+gemms: (\d+),\s+copies: (\d+),"
                     r"\s+copy_bytes: \d+,\s+copy_us: ([\d.]+),\s+cycle_us: ([\d.]+),\s+sm_mhz: \d+,\s+"
                     r"power_w: \d+,\s+speedup: ([\d.]+)(?:,\s+exponent: ([\d.]+))?")
RATE = re.compile(r"\{name: \w+,\s+dtype: bf16,\s+m: (\d+),\s+n: (\d+),\s+k: (\d+),\s+peak_tflops: [\d.]+,\s+"
                  r"peak_sm_mhz: \d+,\s+peak_w: \d+,\s+sustained_tflops: ([\d.]+)")
LAYER = """name: layer-mix
model: {type: transformer, layers: 1, hidden: 2048, heads: 16, kv_heads: 16, ffn: gelu, ffn_hidden: 8192, seq: 2048,
        vocab: 0, dtype: bf16, flash_attention: true, causal: true}
training: {global_batch: 8, micro_batch: 8, optimizer: adam, master_weights: fp32, grad_dtype: bf16, recompute: none}
parallel: {gpus: 1, tp: 1, pp: 1, dp: 1}
"""
GEMMS = ("qkv", "proj", "fc1", "fc2")


def mixes(text):
    """[(kind, copy share, speedup - 1)]"""
    return [(kind, int(c) * float(cu) / float(cyc), float(sp) - 1)
            for kind, _m, _n, _k, _g, c, cu, cyc, sp, _e in MIXFULL.findall(text)]


def credit(g, tau):
    """the share of a low-power phase of g a first-order limiter of time constant tau credits"""
    return (tau / g) * (1 - math.exp(-g / tau))


def implied_tau(text):
    """[(copy phase ms, the coarse mix's v, implied tau ms or inf)] and the fine exponent used"""
    power = text[text.find("\n  power:"):] if "\n  power:" in text else ""
    s, mf = (re.search(r"\n    %s: ([\d.]+)" % key, power) for key in ("idle", "memory_bound"))
    if not (s and mf):
        return [], 0
    s, mf = float(s.group(1)), float(mf.group(1))
    held = {(int(m), int(n), int(k)): 2 * int(m) * int(n) * int(k) / (float(tf) * 1e12) * 1e6
            for m, n, k, tf in RATE.findall(text)}
    mx = MIXFULL.findall(text)
    xs = [float(e) for kind, *_, e in mx if kind == "fine" and e and 1 < float(e) <= 10]  # as calibrate averages
    if not xs:
        return [], 0
    x = sum(xs) / len(xs)
    out = []
    for kind, m, n, k, g, c, cu, cyc, _sp, _e in mx:
        wc = int(g) * held.get((int(m), int(n), int(k)), 0)
        wm = int(c) * float(cu)
        t = float(cyc) - wm
        if kind != "coarse" or not (wc > 0 and t > 0):
            continue
        v = wc / t
        need = (v ** (x - 1) - 1 / v) / ((1 - mf) * wm / ((1 - s) * wc))
        if need >= 1:
            out.append((wm / 1e3, v, math.inf))
            continue
        lo, hi = 1e-6 * wm, 1e6 * wm  # credit(wm, tau) rises with tau
        for _ in range(200):
            mid = math.sqrt(lo * hi)
            lo, hi = (mid, hi) if credit(wm, mid) < need else (lo, mid)
        out.append((wm / 1e3, v, math.sqrt(lo * hi) / 1e3))
    return out, x


def layer(gpusim, hw, tmp):
    raw = hw[:-5] if hw.endswith(".yaml") else hw
    lm = [line for line in open(os.path.join(raw, "attention_torch.csv")) if line.startswith("# layermix")] \
        if os.path.exists(os.path.join(raw, "attention_torch.csv")) else []
    if not lm:
        return None
    torch_ms = float(lm[-1].split(",")[4])
    sc, tr = os.path.join(tmp, "layer.yaml"), os.path.join(tmp, "layer.json")
    open(sc, "w").write(LAYER)
    p = subprocess.run([gpusim, "predict", sc, "--hw", hw, "--trace", tr, "--trace-ranks", "critical",
                        "--format", "json"], capture_output=True, text=True)
    if p.returncode:
        return None
    v = json.loads(p.stdout).get("clock", {}).get("gemm_speed", 1)
    d = json.load(open(tr))
    ev = d["traceEvents"] if isinstance(d, dict) else d
    ms = sum(e["dur"] for e in ev if e.get("ph") == "X" and e.get("cat") == "compute" and
             re.sub(r"_(dgrad|wgrad)$", "", e["name"].split("(")[0].split(" ")[0]) in GEMMS) / 1e3
    return ms * v, torch_ms


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("hw", nargs="+")
    ap.add_argument("--tau", action="store_true", help="the time constant each coarse mix implies")
    ap.add_argument("--layer", action="store_true")
    ap.add_argument("--gpusim", default="build/gpusim")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for hw in a.hw:
            m = mixes(open(hw).read())
            fine = [x for x in m if x[0] == "fine"]
            coarse = [x for x in m if x[0] == "coarse"]
            line = os.path.basename(hw)
            if fine and coarse:
                pairs = ", ".join(f"share {c[1]:.2f}: {c[2]:.3f} / {f[2]:.3f} = {c[2] / f[2]:.2f}"
                                  for c, f in zip(coarse, fine) if f[2] > 0)
                line += f"  coarse/fine gain: {pairs}"
            else:
                line += "  (no mixes)"
            if a.tau:
                taus, x = implied_tau(open(hw).read())
                line += ("  tau (fine x %.2f): " % x + ", ".join(
                    "copies %.1f ms, v %.3f: %s" % (wm, v, "inf" if t == math.inf else "%.1f ms" % t)
                    for wm, v, t in taus)) if taus else "  (no fine exponent)"
            if a.layer:
                r = layer(os.path.abspath(a.gpusim), hw, tmp)
                line += (f"  layer GEMMs held: model {r[0]:.3f} ms, torch {r[1]:.3f} ms, ratio {r[0] / r[1]:.3f}"
                         if r else "  (no layer mix)")
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
