#!/usr/bin/env bash
# setup.sh: from a fresh Debian 12 machine to a first prediction: installs the Debian packages gpusim needs
# (skipped when present), builds into build/, and predicts a Llama-2-70B-like job on 64 H100 GPUs.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

scripts/deps
scripts/build
echo
echo "+ build/gpusim predict scenarios/70b_64gpu.yaml"
build/gpusim predict scenarios/70b_64gpu.yaml
