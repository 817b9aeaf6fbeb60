#!/usr/bin/env bash
# plots/examples.sh [GPUSIM]: regenerates the example scaling plots in docs/img/ from the shipped scenarios
# (docs/cli.md shows them). Each image comes with the .gp script and .dat numbers gpusim plot writes next to it,
# and the sweep's CSV. Run from anywhere; GPUSIM defaults to build/gpusim.
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
echo "examples: wrote $(ls "$out"/*.png | wc -l) plots in $out"
