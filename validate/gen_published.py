#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Express every row of shared/reference/published-runs.csv that gpusim can as a scenario, and write
  validate/published-step.csv    rows that give a step time (iteration_time, or tokens/s/GPU: step =
                                 global_batch*seq/(GPUs*tokens/s/GPU)), for `gpusim validate`
  validate/published-tflops.csv  rows that give TFLOP/s per GPU (achieved, model, hardware TFLOP/s; MFU % and % of
                                 peak times the GPU's dense bf16 peak; aggregate PFLOP/s / GPUs)
  validate/published-other.csv   every other row, with why it is not scored (the missing feature)
Scenarios: scenarios/published/<key>.yaml, one per distinct configuration; Megatron SC'21 Table 1/2 rows use
gen_megatron.py's scenarios/megatron/ files. family = "<source_key>/<precision>", so `gpusim validate` prints the
medians per source and precision. usage: validate/gen_published.py [--ref PATH] [--check]

One rule for all rows (docs/validation.md repeats them); nothing is chosen per row or per source to fit:
  * hardware: A100 rows a100-dgx, H100 rows h100-dgx; V100 rows: no preset. Where the row's inter_node column
    names a compute network other than the preset's (N NICs of a link whose rate is in LINK_GBPS), the scenario
    names a hardware file scenarios/published/hw/<preset>-<N>x<link>.yaml written here: `base:` the preset, its
    `network.nics` and `network.nic_gbps` the row's (BLOOM's Jean Zay nodes: "4x Omni-Path per node", 100 Gb/s
    each, against DGX A100's 8x HDR 200 Gb/s; every other row names the preset's own network or none).
  * precision: FP8 -> bf16 model with training.fp8 {recipe: delayed} (NeMo 24.07's default FP8 recipe);
    "mixed fp16", "float16", "mixed (16-bit)" -> fp16; else bf16. fp32 master weights; fp32 gradients for 2022+
    frameworks (Megatron-Core, NeMo, Megatron-DeepSpeed), fp16 for the 2020-21 Megatron-LM.
  * attention: fused (flash) for Megatron-Core and NeMo; unfused (2020-22 Megatron, BLOOM, MT-NLG).
  * parallel.sp: on when tp > 1 for Megatron-Core, NeMo and Korthikanti's selective + SP rows.
  * parallel.cp as given (ring p2p, Megatron's default cp_comm_type); dp = GPUs/(tp*pp*cp).
  * parallel.tp_comm_overlap (with SP): on for the Megatron-Core README rows (its benchmark configuration lists
    "TP (--tp-comm-overlap)") and for the NeMo models whose NeMo-Framework-Launcher training config sets
    ub_tp_comm_overlap: true (TP_OVERLAP below: llama3_70b.yaml); off for the other NeMo rows (llama2_70b.yaml and
    gpt3/175b.yaml say false; the other configs were not read, so the launcher's default, false, stands).
  * distributed optimizer / ZeRO-1 (Megatron-Core, NeMo, BLOOM): parallel.zero 1; DP overlap on for 2022+;
    overlap_param_gather for Megatron-Core and NeMo (the README's and NeMo's overlap flags).
  * micro-batch 1 where not stated; schedule interleaved with virtual_stages = vp where vp > 1.
  * recompute as stated (full, selective); not stated: none for Megatron-Core/NeMo, full for 2020-21 Megatron-LM
    and MT-NLG (their papers checkpoint every layer).
  * model shapes not in the table (NeMo rows): the released configs (CONFIGS below). Nemotron's squared-ReLU MLP
    is two matrices, run as the gelu kind (same GEMMs). Missing vocab: 51200 (GPT-2 BPE).
  * Megatron-LM Jan 2021 README: only TP*PP is given; tp = min(8, TP*PP), pp = TP*PP/tp (one node of TP, the
    rule gen_megatron.py uses for SC'21 Table 2).
  * embeddings: GPT models tied (model.tie_embeddings: Megatron-LM's and Megatron-DeepSpeed's default,
    share_embeddings_and_output_weights in NeMo's GPT-3 configs; BLOOM ties too); Llama and Nemotron untied (their
    released configs).
  * BLOOM (Megatron-DeepSpeed, the tr11-176B-ml README): --pp-partition-method 'type:transformer|embedding', the
    tied embedding counted as a layer on the first and the last stage: first_stage_layers = last_stage_layers =
    (layers + 2)/pp - 1 (70 layers over 12 stages: 5, then 6 on each of the 10 others, 5).
"""
import argparse
import csv
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# shared/ beside the checkout (../shared), or beside the folder of worktrees (../../shared)
REF = next((p for p in (os.path.join(ROOT, "..", "shared", "reference", "published-runs.csv"),
                        os.path.join(ROOT, "..", "..", "shared", "reference", "published-runs.csv"))
            if os.path.exists(p)), os.path.join(ROOT, "..", "shared", "reference", "published-runs.csv"))
OUT_DIR = os.path.join(ROOT, "scenarios", "published")
PEAK_BF16 = {"a100-dgx": 312.0, "h100-dgx": 989.4}

# layers, hidden, heads, kv_heads, ffn kind, ffn_hidden, vocab (released configs / NeMo 24.07 recipes)
CONFIGS = {
    "GPT3-5B": (24, 4096, 32, 32, "gelu", 16384, 50304),
    "GPT3-20B": (44, 6144, 48, 48, "gelu", 24576, 50304),
    "GPT3-175B": (96, 12288, 96, 96, "gelu", 49152, 50304),
    "LLAMA2-7B": (32, 4096, 32, 32, "swiglu", 11008, 32000),
    "LLAMA2-13B": (40, 5120, 40, 40, "swiglu", 13824, 32000),
    "LLAMA2-70B": (80, 8192, 64, 8, "swiglu", 28672, 32000),
    "LLAMA3-8B": (32, 4096, 32, 8, "swiglu", 14336, 128256),
    "LLAMA3-70B": (80, 8192, 64, 8, "swiglu", 28672, 128256),
    "Nemotron-8B": (32, 4096, 32, 32, "gelu", 16384, 256000),
    "Nemotron-22B": (40, 6144, 48, 48, "gelu", 24576, 256000),
    "Nemotron-340B": (96, 18432, 96, 8, "gelu", 73728, 256000),
}
# NeMo models whose launcher config (NVIDIA/NeMo-Framework-Launcher, launcher_scripts/conf/training/) enables TE
# userbuffers TP overlap: llama/llama3_70b.yaml "ub_tp_comm_overlap: true" (TP 4, CP 2, the 24.07 layout)
TP_OVERLAP = {"LLAMA3-70B"}
STEP_METRICS = {"iteration_time", "tokens_per_sec_per_gpu"}
TFLOPS_METRICS = {"achieved_tflops_per_gpu", "model_tflops_per_gpu", "hardware_tflops_per_gpu", "mfu", "pct_of_peak",
                  "aggregate_pflops"}
MODERN = ("Megatron-Core", "NeMo")


def preset(gpu):
    if gpu.startswith("A100"):
        return "a100-dgx"
    if gpu.startswith("H100-SXM5"):
        return "h100-dgx"
    return None


# Line rate per direction in GB/s of the compute-network links a row may name (datasheets: Omni-Path 100 Gb/s,
# InfiniBand HDR 200 Gb/s, NDR 400 Gb/s), and the NICs and rate of each preset's own network (hardware/*.yaml).
LINK_GBPS = {"Omni-Path": 12.5, "HDR": 25.0, "NDR": 50.0}
PRESET_NET = {"a100-dgx": (8, 25.0), "h100-dgx": (8, 50.0)}


def network(r):
    """(nics, nic_gbps, link) of the compute network the row names, or None where it names none or an unknown
    link: "4x Omni-Path per node" -> (4, 12.5, "Omni-Path")."""
    m = re.match(r"\s*(\d+)x (?:Mellanox )?(Omni-Path|HDR|NDR)\b", r["inter_node"])
    if not m:
        return None
    return int(m.group(1)), LINK_GBPS[m.group(2)], m.group(2)


def hardware_of(r):
    """(name the scenario gives as hardware, (file name, text) of the hardware file to write or None)."""
    hw = preset(r["gpu"])
    net = network(r)
    if net is None or (net[0], net[1]) == PRESET_NET[hw]:
        return hw, None
    nics, gbps, link = net
    name = "%s-%dx%s" % (hw, nics, link.lower().replace("-", ""))
    text = "\n".join([
        "# Generated by validate/gen_published.py: %s nodes with the compute network a published row names (%s)," %
        (hw, r["inter_node"]),
        "# %d x %s at %g GB/s per direction each (datasheet line rate); everything else is the preset's. Do not edit."
        % (nics, link, gbps),
        "schema: gpusim-hw/1",
        "name: %s" % name,
        "base: %s" % hw,
        "description: \"%s with %d x %s NICs per node\"" % (hw, nics, link),
        "network:",
        "  nics: %d" % nics,
        "  nic_gbps: %g" % gbps,
        "  source: \"datasheet: %s %g Gb/s per link; the NIC count from the published row (%s)\"" %
        (link, gbps * 8, r["inter_node"]),
    ]) + "\n"
    return "hw/%s.yaml" % name, (name + ".yaml", text)


def ival(s, default=None):
    return int(float(s)) if s.strip() else default


def sc21_file(r):
    """The gen_megatron.py scenario of a Megatron SC'21 Table 1/2 row."""
    p = r["params_b"]
    if r["source_key"] == "MEG21_T1":
        return "T1-%sB.yaml" % p
    zero = "-zero3" if r["sharding"].startswith("ZeRO-3") else ""
    return "T2-%sB-%sgpu%s.yaml" % (p, r["n_gpus"], zero)


def why_not(r):
    """The missing feature or information that keeps a row out, or None."""
    if r["category"] not in ("training_throughput", "training_step_time"):
        return "not a training step (%s): gpusim validate scores steps; a GEMM/collective microbenchmark row type " \
               "is missing" % r["category"]
    if r["metric"] == "est_days_300B_tokens":
        return "time-to-train estimate (excluded by the issue)"
    if r["metric"] not in STEP_METRICS | TFLOPS_METRICS:
        return "metric %s not scored" % r["metric"]
    if preset(r["gpu"]) is None:
        return "no hardware preset for %s" % r["gpu"]
    if r["source_key"] == "MEG21_TXT":
        return "configuration not given in the text"
    if "LoRA" in r["model"]:
        return "LoRA (frozen base weights, adapter-only gradients and optimizer) not modelled"
    if not r["tp"] and r["source_key"] not in ("MEG_README_2021JAN", "MEG21_T1", "MEG21_T2"):
        return "TP/PP split not stated"
    if r["source_key"] == "NEMO_2407" and r["model"].split()[0] not in CONFIGS:
        return "model shape unknown"
    if r["source_key"] not in ("MEG21_T1", "MEG21_T2", "MEG_README_2021JAN") and r["layers"] and r["pp"]:
        if ival(r["layers"]) % ival(r["pp"]) != 0 and embedding_split(r) is None:
            return "uneven pipeline split (%s layers over %s stages) not expressible" % (r["layers"], r["pp"])
    return None


def embedding_split(r):
    """BLOOM's partition with the embedding counted as a layer on the first and last stage: the layers of the
    first (and last) stage, or None where the rule does not apply or does not split evenly."""
    L, pp = ival(r["layers"], 0), ival(r["pp"], 1)
    if r["source_key"] != "BLOOM" or pp < 3 or (L + 2) % pp != 0:
        return None
    return (L + 2) // pp - 1


def tied(r):
    """Tied input and output embeddings: GPT models (Megatron's default; BLOOM), not Llama or Nemotron."""
    name = r["model"].split()[0]
    return not (name.startswith("LLAMA") or name.startswith("Nemotron"))


def layout(r):
    n = ival(r["n_gpus"])
    if r["source_key"] == "MEG_README_2021JAN":
        mp = n // ival(r["dp"])
        tp = min(8, mp)
        pp = mp // tp
    else:
        tp, pp = ival(r["tp"], 1), ival(r["pp"], 1)
    cp = ival(r["cp"], 1)
    return tp, pp, n // (tp * pp * cp), n


def model_of(r):
    name = r["model"].split()[0]
    if r["source_key"] == "NEMO_2407":
        L, h, a, kv, ffn, f, v = CONFIGS[name]
    else:
        L, h, a = ival(r["layers"]), ival(r["hidden"]), ival(r["heads"])
        kv, ffn, f, v = a, "gelu", 4 * h, ival(r["vocab"], 51200)
    return L, h, a, kv, ffn, f, v


def scenario_text(r, key):
    fw = r["framework"]
    modern = fw.startswith(MODERN) or "2022" in fw or "DeepSpeed (PyTorch" in fw or r["source_key"] == "KORTH23_T5"
    new = fw.startswith(MODERN)
    L, h, a, kv, ffn, f, v = model_of(r)
    tp, pp, dp, n = layout(r)
    seq = ival(r["seq_len"])
    mbs = ival(r["mbs"], 1)
    gbs = ival(r["gbs"])
    prec = r["precision"]
    dtype = "fp16" if ("fp16" in prec or "16-bit" in prec or prec == "float16") else "bf16"
    rec = r["recompute"]
    if rec.startswith("selective"):
        recompute = "selective"
    elif rec.startswith("full") or rec.startswith("yes"):
        recompute = "full"
    else:
        recompute = "none" if new else "full"
    sp = tp > 1 and (new or "sequence parallel" in rec)
    zero = 1 if (new or "ZeRO-1" in r["sharding"] or "distributed optimizer" in r["sharding"]) else 0
    vp = ival(r["vp"], 1)
    if r["schedule"].startswith("1F1B interleaved x3"):
        vp = 3
    sched = "interleaved" if vp > 1 and pp > 1 else "1f1b"
    lines = [
        "# %s row(s) of shared/reference/published-runs.csv: %s, %s on %d %s (%s). Generated by"
        % (r["source_key"], r["model"], prec or "precision not stated", n, r["gpu"], fw),
        "# validate/gen_published.py from the table and one rule set (the script's docstring); do not edit.",
        "name: pub-%s" % key,
        "model:",
        "  type: transformer",
        "  layers: %d" % L, "  hidden: %d" % h, "  heads: %d" % a, "  kv_heads: %d" % kv,
        "  ffn: %s" % ffn, "  ffn_hidden: %d" % f, "  seq: %d" % seq, "  vocab: %d" % v,
        "  dtype: %s" % dtype,
        "  flash_attention: %s" % ("true" if new else "false"),
    ]
    if tied(r):
        lines.append("  tie_embeddings: true")
    if ffn == "swiglu":
        lines += ["  norm: rmsnorm", "  rope: fused"]
    lines += [
        "training:",
        "  global_batch: %d" % gbs, "  micro_batch: %d" % mbs,
        "  optimizer: adam", "  master_weights: fp32",
        "  grad_dtype: %s" % ("fp32" if modern or new else dtype),
        "  recompute: %s" % recompute,
    ]
    if prec == "FP8":
        lines.append("  fp8: {recipe: delayed}")
    lines += ["parallel:", "  gpus: %d" % n, "  tp: %d" % tp, "  pp: %d" % pp, "  dp: %d" % dp]
    edge = embedding_split(r)
    if edge is not None:
        lines += ["  first_stage_layers: %d" % edge, "  last_stage_layers: %d" % edge]
    if sched == "interleaved":
        lines += ["  schedule: interleaved", "  virtual_stages: %d" % vp]
    if sp:
        lines.append("  sp: true")
        if r["source_key"] == "MCORE_README" or (r["source_key"] == "NEMO_2407" and
                                                 r["model"].split()[0] in TP_OVERLAP):
            lines.append("  tp_comm_overlap: true")
    if ival(r["cp"], 1) > 1:
        lines.append("  cp: %d" % ival(r["cp"]))
    if zero:
        lines.append("  zero: %d" % zero)
        if new:  # Megatron-Core / NeMo: --overlap-grad-reduce --overlap-param-gather
            lines.append("  overlap_param_gather: true")
    lines.append("  dp_overlap: %s" % ("true" if modern or new else "false"))
    lines.append("hardware: %s" % hardware_of(r)[0])
    return "\n".join(lines) + "\n", (gbs, seq, n)


def measured(r, gbs, seq, n, hw):
    m, val = r["metric"], float(r["value"])
    if m == "iteration_time":
        return val / 1000 if r["unit"] == "ms" else val
    if m == "tokens_per_sec_per_gpu":
        return gbs * seq / (n * val)
    if m in ("mfu", "pct_of_peak"):
        return val / 100 * PEAK_BF16[hw]
    if m == "aggregate_pflops":
        return val * 1000 / n
    return val


def precision_class(r):
    p = r["precision"]
    return "fp8" if p == "FP8" else "fp16" if ("fp16" in p or "16-bit" in p or p == "float16") else "bf16"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ref", default=os.path.normpath(REF))
    ap.add_argument("--check", action="store_true", help="exit 1 when a generated file differs")
    args = ap.parse_args()
    rows = list(csv.DictReader(open(args.ref)))
    files, hwfiles, step, tflops, other = {}, {}, [], [], []
    for r in rows:
        why = why_not(r)
        if why:
            other.append((r["row_id"], r["source_key"], r["model"], r["metric"], r["value"], why))
            continue
        hw = preset(r["gpu"])
        if r["source_key"] in ("MEG21_T1", "MEG21_T2"):
            scen = "../scenarios/megatron/" + sc21_file(r)
            gbs, seq, n = ival(r["gbs"]), ival(r["seq_len"]), ival(r["n_gpus"])
        else:
            text, (gbs, seq, n) = scenario_text(r, "KEY")
            body = text.split("\n", 2)[2]  # the configuration without the comment lines
            key = files.get(body, (None, None))[0]
            if key is None:
                key = "r%s-%s" % (r["row_id"], r["model"].split()[0].lower().replace(".", "_"))
                files[body] = (key, text.replace("pub-KEY", "pub-" + key))
            scen = "../scenarios/published/%s.yaml" % key
            hwfile = hardware_of(r)[1]
            if hwfile:
                hwfiles[hwfile[0]] = hwfile[1]
        val = measured(r, gbs, seq, n, hw)
        fam = "%s/%s" % (r["source_key"], precision_class(r))
        label = "r%s-%s-%s" % (r["row_id"], r["source_key"], r["metric"])
        if r["metric"] in STEP_METRICS:
            step.append((scen, "%.6g" % val, label, fam, r["gpu"]))
        else:
            formula = "megatron" if (r["source_key"].startswith("MEG") or r["metric"] == "hardware_tflops_per_gpu"
                                     or r["source_key"] == "MTNLG") else "model"
            tflops.append((scen, "%.6g" % val, formula, label, fam, r["gpu"]))
    out = {}
    for key, text in files.values():
        out[os.path.join(OUT_DIR, key + ".yaml")] = text
    for name, text in hwfiles.items():
        out[os.path.join(OUT_DIR, "hw", name)] = text
    head = "# Generated by validate/gen_published.py from shared/reference/published-runs.csv; do not edit.\n"
    out[os.path.join(ROOT, "validate", "published-step.csv")] = head + \
        "scenario,measured_step_s,label,family,device\n" + "".join(",".join(x) + "\n" for x in step)
    out[os.path.join(ROOT, "validate", "published-tflops.csv")] = head + \
        "scenario,measured_tflops_per_gpu,flops_formula,label,family,device\n" + \
        "".join(",".join(x) + "\n" for x in tflops)
    out[os.path.join(ROOT, "validate", "published-other.csv")] = head + "row_id,source_key,model,metric,value,why\n" + \
        "".join(",".join('"%s"' % c.replace('"', "'") for c in x) + "\n" for x in other)
    bad = 0
    for path, text in sorted(out.items()):
        old = open(path).read() if os.path.exists(path) else None
        if args.check:
            bad += old != text
        elif old != text:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "w").write(text)
    print("%d step rows, %d TFLOP/s rows, %d other rows, %d scenarios" % (len(step), len(tflops), len(other),
                                                                         len(files)), file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
