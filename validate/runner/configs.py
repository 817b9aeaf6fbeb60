"""Reference configurations for `gpusim validate` on real GPUs (issue 4).

One entry per piece of work (a model and a global batch); each is run in several modes (single GPU, data,
tensor and pipeline parallel, and their mixes). A row is (config, mode) and is labelled "<id>-<mode>":
t07-pp2-1f1b, t14-dp2-tp2-pp2-1f1b. Ranks are laid out dp-major, then pp, then tp (tensor parallel fastest).
The 2-GPU rows are the issue-4 set measured in validate/measured-h200x2.csv; the 4- and 8-GPU rows (issue 6,
t07, t10, t12, t14 and m02, chosen GPU-bound: at least ~2 ms of GPU work per layer and micro-batch on each
rank, about twice the host's issue time) need a machine with that many GPUs (validate/runner/node-run.sh).
validate/runner/torch_step.py runs the rows; validate/gen_scenarios.py writes scenarios/validate/<label>.yaml that
describe exactly the same work. Both import this file, so they cannot drift apart.

What the runner does for every transformer row (and what each scenario says):
  * GPT-style pre-LN blocks: LayerNorm, fused QKV Linear, causal flash attention (SDPA), out Linear, residual,
    LayerNorm, MLP (GeLU 4h with the tanh approximation, or SwiGLU with ffn_hidden), residual; Linear layers
    have no biases (gpusim counts none); LayerNorms have weight and bias; no dropout.
  * vocab 0: no embedding, no final LayerNorm, no head: the step feeds random activations in and a random
    gradient out. vocab > 0: token embedding (no position embedding), final LayerNorm, an untied output head
    (gpusim counts 2*vocab*hidden), cross-entropy on fp32 logits (single GPU and DP only).
  * dtype bf16: parameters, activations and GEMMs in bf16; gradients accumulate in bf16 (grad_dtype bf16) and
    DP all-reduces bf16; Adam runs on an fp32 master copy of the parameters (master_weights fp32).
  * optimizer step: flat buffers, one fused Adam kernel over all fp32 master weights, one bf16->fp32 gradient
    copy before it and one fp32->bf16 parameter copy after it; the gradient buffer is zeroed at step start.
  * DP: torch DistributedDataParallel, bucket_cap_mb 25 (26214400 bytes), gradient all-reduce overlapped with
    the last micro-batch's backward (no_sync for the others).
  * TP: Megatron column/row split (QKV and fc1 column-parallel, out and fc2 row-parallel); one all-reduce of
    the block output in forward (g) and one of the block input gradient in backward (f), per block.
  * PP: layers split evenly; GPipe (all forwards, then all backwards) or 1F1B (PipeDream-Flush); activations
    and gradients move by NCCL send/recv and the compute stream waits for each transfer.
MLP rows: per layer Linear(hidden, ffn_hidden) -> GeLU -> Linear(ffn_hidden, hidden), no biases, no norm, no
residual; a sample is one token (seq 1).
A mode ending in "-compiled" (single-compiled, dp2-compiled) runs the same work under torch.compile (default
mode: Inductor fuses the elementwise ops, GEMMs stay cuBLAS and attention the flash kernel; the DDP module is
compiled whole); its scenario says `execution: compiled`, and its baseline is the config's single-compiled row.
Issue 11 asks for such rows; not yet measured (2026-11-27).
"""

DP_BUCKET_BYTES = 25 * 1024 * 1024   # torch DDP bucket_cap_mb=25 is MiB
WARMUP_STEPS = 3
TIMED_STEPS = 10

# Transformer configs. mb = micro-batch (sequences per micro-batch per DP replica), gb = global batch.
# Pipeline micro-batches per step m = gb / (dp * mb).
TRANSFORMERS = [
    # id    layers hidden heads kv  ffn      ffn_hidden seq   mb gb vocab modes
    dict(id="t01", layers=8,  hidden=1024, heads=16, seq=1024, mb=8, gb=32,
         modes=["single", "dp2", "tp2", "pp2-gpipe", "pp2-1f1b", "single-compiled"]),
    dict(id="t02", layers=8,  hidden=1024, heads=16, seq=2048, mb=4, gb=16,
         modes=["single", "dp2", "pp2-1f1b"]),
    dict(id="t03", layers=12, hidden=1024, heads=16, seq=4096, mb=1, gb=8,
         modes=["single", "dp2", "tp2", "pp2-1f1b"]),
    dict(id="t04", layers=8,  hidden=1024, heads=16, seq=1024, mb=1, gb=16,
         modes=["single", "dp2", "pp2-gpipe", "pp2-1f1b"]),
    dict(id="t05", layers=4,  hidden=1024, heads=16, seq=1024, mb=1, gb=1,
         modes=["single", "tp2", "pp2-1f1b", "single-compiled"]),
    dict(id="t06", layers=12, hidden=1536, heads=12, seq=2048, mb=2, gb=16,
         modes=["single", "dp2", "tp2"]),
    dict(id="t07", layers=8,  hidden=2048, heads=16, seq=2048, mb=4, gb=16,
         modes=["single", "dp2", "tp2", "pp2-gpipe", "pp2-1f1b",
                "dp4", "pp4-gpipe", "pp4-1f1b", "dp2-tp2", "tp2-pp2-1f1b",
                "dp8", "dp4-tp2", "dp2-tp2-pp2-1f1b", "single-compiled", "dp2-compiled"],
         mb_by_mode={"dp8": 2}),
    dict(id="t08", layers=8,  hidden=2048, heads=16, seq=1024, mb=8, gb=32,
         modes=["single", "dp2", "pp2-1f1b"]),
    dict(id="t09", layers=8,  hidden=2048, heads=16, seq=4096, mb=2, gb=8,
         modes=["single", "tp2", "pp2-1f1b"]),
    dict(id="t10", layers=8,  hidden=2560, heads=20, seq=2048, mb=2, gb=16,
         modes=["single", "dp2", "pp2-gpipe", "pp2-1f1b",
                "dp4", "pp4-1f1b", "dp2-pp2-1f1b",
                "dp8", "pp8-gpipe", "pp8-1f1b", "dp2-pp4-1f1b"]),
    dict(id="t11", layers=6,  hidden=3072, heads=24, seq=2048, mb=2, gb=8,
         modes=["single", "dp2", "tp2"]),
    dict(id="t12", layers=4,  hidden=4096, heads=32, seq=2048, mb=1, gb=8,
         modes=["single", "dp2", "tp2", "pp2-gpipe", "pp2-1f1b",
                "pp4-1f1b"]),
    dict(id="t13", layers=4,  hidden=4096, heads=32, seq=4096, mb=1, gb=4,
         modes=["single", "tp2", "pp2-1f1b"]),
    dict(id="t14", layers=4,  hidden=5120, heads=40, seq=2048, mb=2, gb=8,
         modes=["single", "tp2", "pp2-1f1b",
                "dp4", "tp4", "dp2-tp2",
                "tp8", "dp2-tp4", "tp4-pp2-1f1b", "dp2-tp2-pp2-1f1b"]),
    dict(id="t15", layers=2,  hidden=6144, heads=48, seq=2048, mb=1, gb=4,
         modes=["single", "dp2", "tp2"]),
    dict(id="t16", layers=8,  hidden=1024, heads=16, seq=2048, mb=8, gb=16,
         modes=["single", "dp2", "tp2"]),
    # grouped-query attention with SwiGLU (Llama-style block, still LayerNorm and biases)
    dict(id="t17", layers=8,  hidden=2048, heads=16, kv_heads=4, ffn="swiglu", ffn_hidden=5632, seq=2048,
         mb=2, gb=8, modes=["single", "dp2", "tp2", "single-compiled"]),
    # embedding, tied head and cross-entropy over a 32768-token vocabulary
    dict(id="t18", layers=8,  hidden=2048, heads=16, seq=2048, mb=2, gb=8, vocab=32768,
         modes=["single", "dp2"]),
    # one micro-batch per step, GPU-bound (issue 11: such pipelines were predicted 12-19 % slow; each GPU waits
    # half the step, so it runs cooler and clocks higher than a busy one): not yet measured
    dict(id="t19", layers=8,  hidden=2048, heads=16, seq=2048, mb=8, gb=8,
         modes=["single", "pp2-gpipe", "pp2-1f1b"]),
]

# Small MLPs (well under 10M parameters), where a second GPU often makes the step slower.
# mb_by_mode keeps the global batch and gives each replica its share of it (also used by t07-dp8 above).
MLPS = [
    dict(id="m01", layers=4, hidden=512,  ffn_hidden=512,  gb=256,  mb=256,
         modes=["single", "dp2"], mb_by_mode={"dp2": 128}),
    dict(id="m02", layers=4, hidden=1024, ffn_hidden=1024, gb=1024, mb=1024,
         modes=["single", "dp2", "dp4", "dp8", "single-compiled", "dp2-compiled"],
         mb_by_mode={"dp2": 512, "dp4": 256, "dp8": 128, "dp2-compiled": 512}),
]


def parse_mode(mode):
    """'single', 'dp2', 'tp2', 'pp2-gpipe', 'dp2-tp2-pp2-1f1b', 'dp2-compiled' -> dict(dp, tp, pp, schedule,
    execution)."""
    out = dict(dp=1, tp=1, pp=1, schedule="1f1b", execution="eager")
    for tok in mode.split("-"):
        if tok == "single":
            continue
        if tok == "compiled":
            out["execution"] = "compiled"
        elif tok in ("gpipe", "1f1b"):
            out["schedule"] = tok
        elif tok[:2] in ("dp", "tp", "pp") and tok[2:].isdigit() and int(tok[2:]) >= 1:
            out[tok[:2]] = int(tok[2:])
        else:
            raise ValueError("bad mode %r (token %r)" % (mode, tok))
    return out


def _row(cfg, mode, kind):
    par = parse_mode(mode)
    r = dict(cfg)
    r.pop("modes", None)
    r.pop("mb_by_mode", None)
    r["kind"] = kind
    r["mode"] = mode
    r["label"] = "%s-%s" % (cfg["id"], mode)
    compiled = par["execution"] == "compiled"
    single = mode in ("single", "single-compiled")
    r["baseline"] = "" if single else "%s-single%s" % (cfg["id"], "-compiled" if compiled else "")
    r.update(par)
    r["gpus"] = par["dp"] * par["tp"] * par["pp"]
    r["mb"] = cfg.get("mb_by_mode", {}).get(mode, cfg["mb"])
    if kind == "transformer":
        r.setdefault("kv_heads", cfg["heads"])
        r.setdefault("ffn", "gelu")
        r.setdefault("ffn_hidden", 4 * cfg["hidden"])
        r.setdefault("vocab", 0)
    else:
        r["seq"] = 1
        r["vocab"] = 0
    if r["gb"] % (r["dp"] * r["mb"]):
        raise ValueError("%s: global batch %d is not a multiple of dp*micro_batch" % (r["label"], r["gb"]))
    r["m"] = r["gb"] // (r["dp"] * r["mb"])
    if kind == "transformer":
        if r["heads"] % r["tp"] or r["kv_heads"] % r["tp"] or r["hidden"] % r["heads"]:
            raise ValueError("%s: heads/kv_heads/hidden do not split over tp" % r["label"])
        if r["layers"] % r["pp"]:
            raise ValueError("%s: layers do not split over pp" % r["label"])
        if r["vocab"] and (r["tp"] > 1 or r["pp"] > 1):
            raise ValueError("%s: vocab > 0 is implemented for single GPU and DP only" % r["label"])
    elif r["tp"] > 1 or r["pp"] > 1:
        raise ValueError("%s: MLP rows run single GPU or DP only" % r["label"])
    if r["execution"] == "compiled" and (r["tp"] > 1 or r["pp"] > 1):
        raise ValueError("%s: compiled rows run single GPU or DP only" % r["label"])
    return r


def rows():
    """Every (config, mode) row, in run order: per config, the single-GPU baseline first."""
    out = []
    for c in TRANSFORMERS:
        out += [_row(c, m, "transformer") for m in c["modes"]]
    for c in MLPS:
        out += [_row(c, m, "mlp") for m in c["modes"]]
    return out


def scenario_relpath(label):
    """Scenario path as the measured CSV (in validate/) names it."""
    return "../scenarios/validate/%s.yaml" % label


def params_per_layer(r):
    h, f = r["hidden"], r["ffn_hidden"]
    if r["kind"] == "mlp":
        return 2 * h * f
    kvd = r["kv_heads"] * (h // r["heads"])
    attn = h * (h + 2 * kvd) + h * h
    mlp = (3 if r["ffn"] == "swiglu" else 2) * h * f
    return attn + mlp + 4 * h


def flops_per_step(r):
    """Model FLOPs of one step (forward + backward, no recompute): for sizing the run, not for scoring."""
    tokens = r["gb"] * r["seq"]
    f = 6.0 * params_per_layer(r) * r["layers"] * tokens
    if r["kind"] == "transformer":
        # causal attention core: QK^T and PV, 2*2*s*s*h per sequence forward, half of it masked; x3 for bwd
        f += 3 * 2 * r["seq"] * r["seq"] * r["hidden"] * r["gb"] * r["layers"]
        if r["vocab"]:
            f += 6.0 * r["vocab"] * r["hidden"] * tokens  # the head (the embedding lookup does no multiply)
    return f


def select(spec="all", rows_=None):
    """Rows named by spec, in run order: "all" (the eager rows: torch.compile's rows take minutes to compile, so
    a lease runs them on purpose), "compiled" (the compiled rows), "everything", or a comma list of labels and
    config ids (t07-dp4, t07: a config id names its eager rows)."""
    rs = rows() if rows_ is None else rows_
    if spec == "everything":
        return rs
    if spec in ("all", "compiled"):
        return [r for r in rs if (r["execution"] == "compiled") == (spec == "compiled")]
    want = set(spec.split(","))
    return [r for r in rs if r["label"] in want or (r["id"] in want and r["execution"] == "eager")]


def multi_gpu_labels(lo, hi, spec="all"):
    """Labels of the selected rows of lo..hi GPUs (lo >= 2) and of the 1-GPU baselines they name, in run order."""
    sel = [r for r in select(spec) if lo <= r["gpus"] <= hi]
    want = set(r["label"] for r in sel) | set(r["baseline"] for r in sel)
    return [r["label"] for r in rows() if r["label"] in want]


def config_ids(lo, hi):
    """Ids of the configs with rows of lo..hi GPUs, in file order."""
    out = []
    for r in rows():
        if lo <= r["gpus"] <= hi and r["id"] not in out:
            out.append(r["id"])
    return out


def _estimate(rs):
    by = {}
    for r in rs:
        t = flops_per_step(r) / (450e12 * r["gpus"])
        n, tot = by.get(r["gpus"], (0, 0.0))
        by[r["gpus"]] = (n + 1, tot + (WARMUP_STEPS + TIMED_STEPS) * t)
        print("%-22s gpus %d m %2d  params %7.1fM  est step %7.1f ms" % (
            r["label"], r["gpus"], r["m"], params_per_layer(r) * r["layers"] / 1e6, t * 1e3))
    for g in sorted(by):
        print("gpus %d: %d rows, estimated GPU time %.0f s" % (g, by[g][0], by[g][1]))
    print("rows %d, estimated GPU time %.0f s (450 TFLOP/s, before setup)" % (
        len(rs), sum(v[1] for v in by.values())))


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description="List the reference rows with a rough step-time estimate (default), "
                                 "or print what validate/runner/device-run.sh and validate/runner/node-run.sh need.")
    ap.add_argument("--rows", default="all", help="comma list of labels or config ids (default all)")
    ap.add_argument("--gpu-counts", action="store_true", help="print the GPU counts the selected rows use")
    ap.add_argument("--labels", metavar="LO-HI", help="print, comma separated, the labels of the selected rows of "
                    "LO..HI GPUs and of their 1-GPU baselines (e.g. 3-8)")
    ap.add_argument("--ids", metavar="LO-HI", help="print, comma separated, the ids of the configs with rows of "
                    "LO..HI GPUs")
    a = ap.parse_args()

    def span(v):
        lo, _, hi = v.partition("-")
        return int(lo), int(hi or lo)

    if a.gpu_counts:
        print(" ".join(str(g) for g in sorted(set(r["gpus"] for r in select(a.rows)))))
    elif a.labels:
        print(",".join(multi_gpu_labels(*span(a.labels), spec=a.rows)))
    elif a.ids:
        print(",".join(config_ids(*span(a.ids))))
    else:
        _estimate(select(a.rows))
