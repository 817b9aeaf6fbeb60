#!/usr/bin/env python3
"""validate/attn_mixes.py: the attention probe's hold and GEMM mixes (calibrate/torch_attention.py's `# hold`,
`# gemm_held` and `# mix` lines), as docs/calibration.md and docs/validation.md ("Attention beside GEMMs") quote
them: for each probe run in FILE (a calibration's raw attention_torch.csv, or several runs' lines one after
another), each mix's v (the GEMMs' held time over their time in the mix), u (the attention's time alone over its
time in the mix) and SM clock, then for each burst B the clock exponent as `gpusim calibrate` fits it
(the fallback of calibrate/torchattn.c torchattn_clock_law: ln u on ln(v/B) through the origin, mixes with v
under 0.99 B; each mix alone too), the slope between the first two mixes (no B), the line calibrate fits since
2026-11-27 evening (ln u = lambda (ln v - ln A), the anchor A kept where it is at least B), and the rate-per-clock exponents ln(rate ratio) /
ln(clock ratio): the GEMMs' against their held clock, the attention's against the maximum clock. Where the run has a
`# layermix` line (the call inside a transformer layer) and the table's flash row at its shape (causal, 2048
tokens, batch 8, 16 heads of 128: calibrate/torchattn.h TORCHATTN_LAYER_*), also the layer's point: v_L, u against
the call alone on the layer's layout and against the table's kernel time, the mixes' line at v_L, and the anchor
calibrate writes through that point (A = v_L u_L^(-1/lambda), lambda the mixes' line's; v_L where u_L >= 1).

usage: validate/attn_mixes.py FILE B [B ...]      (B: gpu.power.burst_speedup of the calibration(s))
e.g.   validate/attn_mixes.py validate/runs/2026-11-27-h100x1-pm3/mix-repeats.txt 1.164 1.178
       validate/attn_mixes.py hardware/h100x1-1127c-measured/attention_torch.csv 1.178
"""
import math
import sys


def runs(path):
    """[(hold, gemm_held, [mix, ...], layer, table_ms)]: one per `# gemm_held` line, with the flash hold line before
    it, its `# layermix` line (None without) and the flash table row's kernel ms at the layer's shape (None)"""
    out, hold, table = [], None, None
    for line in open(path):
        f = line.strip().split(",")
        if f[:7] == ["flash", "128", "1", "0", "2048", "8", "16"] and table is None:
            table = float(f[11]) + float(f[12])  # fwd_kernel_ms + bwd_kernel_ms, as calibrate reads the row
        if f[0] == "# hold" and f[1] == "flash":
            hold = dict(mhz=float(f[2]), watts=float(f[3]), limit=float(f[4]), fmax=float(f[5]))
        elif f[0] == "# gemm_held":
            out.append([hold, dict(mhz=float(f[1]), ms=float(f[3])), [], None, None])
        elif f[0] == "# mix" and out:
            out[-1][2].append(dict(gemms=int(f[2]), mhz=float(f[3]), gemm_ms=float(f[5]), att_ms=float(f[6]),
                                   att_max_ms=float(f[7])))
        elif f[0] == "# layermix" and f[1] == "flash" and out:
            out[-1][3] = dict(mhz=float(f[2]), held=float(f[4]), gemm_ms=float(f[5]), alone=float(f[6]),
                              att_ms=float(f[7]))
    for r in out:
        r[4] = table
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    bursts = [float(b) for b in sys.argv[2:]]
    for k, (hold, held, mixes, layer, table) in enumerate(runs(sys.argv[1])):
        pts = [(held["ms"] / m["gemm_ms"], m["att_max_ms"] / m["att_ms"], m) for m in mixes]
        print("run %d: hold %s; GEMMs held %.4f ms at %d MHz" % (
            k + 1, "%d MHz, power %.3f of the limit" % (hold["mhz"], hold["watts"] / hold["limit"]) if hold else "-",
            held["ms"], held["mhz"]))
        for v, u, m in pts:
            line = "  mix of %d GEMMs: v %.3f, u %.3f, %d MHz" % (m["gemms"], v, u, m["mhz"])
            if hold:
                line += "; GEMM rate ~ clock^%.2f, attention ~ clock^%.2f" % (
                    math.log(v) / math.log(m["mhz"] / held["mhz"]), math.log(u) / math.log(m["mhz"] / hold["fmax"]))
            print(line)
        if len(pts) >= 2:
            print("  slope between the first two mixes (no B): %.3f" % (
                math.log(pts[0][1] / pts[1][1]) / math.log(pts[0][0] / pts[1][0])))
            # the line `gpusim calibrate` fits (torchattn_clock_law): ln u = lambda (ln v - ln A), least squares
            xs, ys = [math.log(v) for v, _, _ in pts], [math.log(u) for _, u, _ in pts]
            mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
            sxx = sum((x - mx) ** 2 for x in xs)
            if sxx > 0:
                lam = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
                print("  the mixes' line: clock exponent %.3f, anchor A %.3f (u = 1 where the GEMMs run at A)" % (
                    lam, math.exp(mx - my / lam) if lam > 0 else float("nan")))
                if layer and table and lam > 0:
                    vl, ul = layer["held"] / layer["gemm_ms"], table / layer["att_ms"]
                    line_u = math.exp(lam * (math.log(vl) - (mx - my / lam)))
                    print("  the layer mix: v_L %.3f, u %.3f of its call alone, u_L %.3f of the table (%.4f ms), %d MHz;"
                          " the mixes' line there %.3f; anchor through it %.3f" % (
                              vl, layer["alone"] / layer["att_ms"], ul, table, layer["mhz"], line_u,
                              vl * ul ** (-1 / lam) if ul < 1 else vl))
        for B in bursts:
            xs = [(math.log(v / B), math.log(u)) for v, u, _ in pts]
            fit = [(x, y) for x, y in xs if x < -0.01]
            sxx = sum(x * x for x, _ in fit)
            lam = sum(x * y for x, y in fit) / sxx if sxx > 0 else float("nan")
            burst = " (GEMM rate ~ clock^%.2f from the held clock to the maximum)" % (
                math.log(B) / math.log(hold["fmax"] / held["mhz"])) if hold else ""
            print("  B %.3f%s: clock exponent %.3f (through the origin, mixes under 0.99 B; each mix alone %s)" % (
                B, burst, lam, ", ".join("%.2f" % (y / x) for x, y in xs if x < 0)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
