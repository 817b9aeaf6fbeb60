#!/usr/bin/env bash
# host_memory.sh GPUSIM: activations offloaded to the host (training.offload_layers) live in the node's host memory,
# shared by its GPUs. GPT-3 175B on 1,024 A100s with 2 layers of each chunk offloaded: predict's memory table shows
# the host bytes per node; a node with 20 GB of host memory (a based hardware file) cannot hold them, so the job does
# not fit (GPU memory still fits), the warning names host memory and offloading fewer layers, --require-fit exits 1.
# Run from the repository root.
set -uo pipefail

gpusim=${1:?usage: host_memory.sh GPUSIM}
. "$(dirname "$0")/../cli_lib.sh"

sed 's/^training:/training:\n  offload_layers: 2/' scenarios/gpt3_175b_1024gpu.yaml >"$tmp/off.yaml"
printf 'schema: gpusim-hw/1\nname: small-host\nbase: a100-dgx\nnode: {host_memory_bytes: 20e9}\n' >"$tmp/small.yaml"
if "$gpusim" predict "$tmp/off.yaml" >"$tmp/out" 2>"$tmp/err" && grep -q "offloaded, host per node .* fits" "$tmp/out" &&
	! grep -q "warning" "$tmp/err"; then
	ok
else
	fail "a100-dgx's 2 TB hold the offloaded activations: $(cat "$tmp/out" "$tmp/err" | grep -i 'host\|fit' | head -3)"
fi
if "$gpusim" predict "$tmp/off.yaml" --hw "$tmp/small.yaml" >"$tmp/out" 2>"$tmp/err" &&
	grep -q "offloaded, host per node .*DOES NOT FIT" "$tmp/out" && grep -q "total .*: fits" "$tmp/out" &&
	grep -q "of host memory per node, the node has 20.0 GB" "$tmp/err" && grep -q "offload fewer layers" "$tmp/err" &&
	"$gpusim" predict "$tmp/off.yaml" --hw "$tmp/small.yaml" --format json 2>/dev/null | grep -q '"fits_in_memory": false'; then
	ok
else
	fail "20 GB of host memory: $(cat "$tmp/out" "$tmp/err" | grep -i 'host\|fit' | head -4)"
fi
"$gpusim" predict "$tmp/off.yaml" --hw "$tmp/small.yaml" --require-fit >/dev/null 2>&1
rc=$?
[ "$rc" -eq 1 ] && ok || fail "--require-fit with host memory short: exit $rc, expected 1"
cli_done
