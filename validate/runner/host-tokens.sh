#!/usr/bin/env bash
# validate/runner/host-tokens.sh: one device call that asks whether eager PyTorch's host cost per op depends on the
# size of the tensors it works on. `gpusim calibrate --kernels torch` times its host classes on tensors of 16
# tokens x 256 (calibrate/torch_kernels.py host_class_rows: 8 KB, PyTorch's small allocation pool, kernels far
# shorter than their issue); the reference rows' activations are 0.25-8 MB. The host rows at 16 tokens and at
# HOST_TOKENS (default 4096: 2 MB activations, the large pool), the one-GPU reference rows between them, and both
# probes again after the rows (the host drifts; docs/validation.md):
#   host-t16-a.csv, host-tN-a.csv, rows (measured-<gpu>x1.csv, validate-runner.log, steps.csv), host-tN-b.csv,
#   host-t16-b.csv, and host-tokens.log: eight files.
# Read with: validate/what_if.py TABLE HW --host-rows host-tN-a.csv (the rows' prediction with either reading)
# and validate/host_speed.py (measured host part against predicted host work).
# usage: validate/runner/host-tokens.sh [OUTDIR]     OUTDIR defaults to $OUT, else ./host-tokens-out
# env:   HOST_TOKENS (default 4096), ROWS (default all one-GPU rows), BUDGET_S (default 540)
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
out=${1:-${OUT:-host-tokens-out}}
mkdir -p "$out"
out=$(cd "$out" && pwd)
deadline=$((SECONDS + ${BUDGET_S:-540}))
left() { echo $((deadline - SECONDS - ${1:-0})); }
py=${PYTHON:-python3}
tok=${HOST_TOKENS:-4096}
log=$out/host-tokens.log
{
	date -u +%Y-%m-%dT%H:%M:%SZ
	nvidia-smi --query-gpu=index,name,driver_version,power.limit --format=csv 2>&1
	echo "cpus $(getconf _NPROCESSORS_ONLN) $(grep -m1 'model name' /proc/cpuinfo)"
} >"$log"

# probe NAME TOKENS: the host rows (no compiled rows: they take minutes) on GPU 0
probe() {
	local t0=$SECONDS
	CUDA_VISIBLE_DEVICES=0 MASTER_PORT=$((29570 + RANDOM % 100)) timeout -k 10 "$(($(left 5) < 150 ? $(left 5) : 150))" \
		"$py" calibrate/torch_kernels.py --host-only --no-compiled --no-memory --host-tokens "$2" \
		>"$out/host-$1.csv" 2>>"$log"
	echo "# $1 ($2 tokens): exit $?, $((SECONDS - t0)) s, $(left) s left" >>"$log"
}
probe t16-a 16
probe "t$tok-a" "$tok"
echo "# rows ($(left) s left)" >>"$log"
GPUS=1 ROWS=${ROWS:-all} VALIDATE_BUDGET_S=$(left 100) validate/runner/device-run.sh "$out" >>"$log" 2>&1
probe "t$tok-b" "$tok"
probe t16-b 16
echo "# end ($(left) s left)" >>"$log"
