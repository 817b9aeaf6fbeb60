#!/usr/bin/env bash
# plots/examples.sh [GPUSIM]: regenerates the example plots in docs/img/ from the shipped scenarios: the scaling
# sweeps of docs/scaling.md (docs/img/scale/) and the timeline of docs/output.md. Each image comes with the .gp
# script and .dat numbers gpusim plot writes next to it, and each sweep with its CSV. Run from anywhere; GPUSIM
# defaults to build/gpusim.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
gpusim=${1:-build/gpusim}
out=docs/img/scale
mkdir -p "$out"

# Llama-2-70B at 64 to 2048 GPUs (tp 8 x pp 4 kept, global batch 1024 kept) on three hardware presets
"$gpusim" scale scenarios/70b_64gpu.yaml --gpus 64..2048 --hw h100-dgx --hw h200-sxm --hw a100-dgx \
	--format csv -o "$out/70b.csv"
"$gpusim" plot efficiency "$out/70b.csv" -o "$out/70b-efficiency.png"
"$gpusim" plot throughput "$out/70b.csv" -o "$out/70b-throughput.png"
"$gpusim" scale scenarios/70b_64gpu.yaml --gpus 64..2048 --hw h100-dgx --format csv -o "$out/70b-h100.csv"
"$gpusim" plot breakdown "$out/70b-h100.csv" -o "$out/70b-breakdown.png"

# GPT-small data parallel on 1 to 8 GPUs: NVLink/NVSwitch (h100-dgx) against PCIe through the host bridge
"$gpusim" scale scenarios/gpt_small_2gpu.yaml --gpus 1..8 --hw h100-dgx --hw rtx4070ti-super-pcie \
	--format csv -o "$out/gpt-small.csv"
"$gpusim" plot compare "$out/gpt-small.csv" -o "$out/gpt-small-compare.png"
"$gpusim" plot breakdown "$out/gpt-small.csv" -o "$out/gpt-small-breakdown.png"
# one step of the interleaved 1F1B golden scenario (dp 2 x tp 4 x pp 2, v = 2) as a timeline (docs/output.md)
"$gpusim" predict tests/golden/tp4_pp2_dp2_interleaved.yaml --trace "$out/timeline-tp4_pp2_dp2_interleaved.json" \
	>/dev/null
"$gpusim" plot timeline "$out/timeline-tp4_pp2_dp2_interleaved.json" -o docs/img/timeline-tp4_pp2_dp2_interleaved.png \
	--ranks all
rm "$out/timeline-tp4_pp2_dp2_interleaved.json"
# the 70B step of 512 micro-batches: by default the critical stage over the whole step
"$gpusim" predict scenarios/70b_64gpu.yaml --trace "$out/timeline-70b.json" >/dev/null
"$gpusim" plot timeline "$out/timeline-70b.json" -o docs/img/timeline-70b.png
rm "$out/timeline-70b.json"
echo "examples: wrote $(ls "$out"/*.png | wc -l) plots in $out"
