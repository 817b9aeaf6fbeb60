#!/usr/bin/env bash
# validate/runner/check-run.sh: one device call on one GPU (H100 or H200) that measures what the changes of
# 2026-11-27 (afternoon) left unmeasured, each step within its own time limit, in this order:
#   1. validate/runner/kernel_profile.py on t07- and t12-single: the profiled step is now the third of three back to
#      back (torch.profiler's schedule), with its own wall time (`profiled_wall` in gaps.csv): is the 3-4 % by which
#      a lone profiled step ran faster than the timed steps the GPU cooling in the profiler's start-up pause?
#   2. calibrate/torch_attention.py at the reference rows' shapes (seq 2048 and 4096, head dim 128, causal, 4096
#      to 16384 tokens): the forward now on packed q/k/v views; within 5 % of the in-step flash forward of step 1?
#   3. calibrate/torch_kernels.py --host-only and the full probe, twice each, alternated: until 2026-11-28 the full
#      probe timed its host rows after its profiled kernel rows (the "order effect": the profiler's leftovers,
#      docs/validation.md "A profiler session left CUPTI attached"); since, it times them first, so the two should
#      read alike: a check of that fix
#   4. validate/runner/device-run.sh ROWS=compiled on this GPU: the torch.compile rows of one GPU
#      -> measured-<gpu>x1-compiled.csv (their scenarios say execution: compiled)
# usage: validate/runner/check-run.sh [OUTDIR]      OUTDIR defaults to $OUT, else ./check-out
# env:   CHECK_BUDGET_S (default 560): the whole call's wall-clock budget
# Files in OUTDIR (at most 8): kprof.csv, gaps.csv, attention.csv, host.tar.gz, measured-*-compiled.csv,
# validate-runner.log, check.log.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
out=${1:-${OUT:-check-out}}
mkdir -p "$out"
out=$(cd "$out" && pwd)
deadline=$((SECONDS + ${CHECK_BUDGET_S:-560}))
left() { echo $((deadline - SECONDS - ${1:-0})); }
cap() { local l; l=$(left "$2"); echo $((l < $1 ? l : $1)); }  # cap MAX RESERVE: the smaller of MAX and what is left
py=${PYTHON:-python3}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | tr '[:upper:]' '[:lower:]' |
	sed 's/^nvidia //; s/[^a-z0-9].*//')
log=$out/check.log
{
	date -u +%Y-%m-%dT%H:%M:%SZ
	nvidia-smi --query-gpu=index,name,driver_version,power.limit,clocks.max.sm --format=csv 2>&1
	echo "cpus $(getconf _NPROCESSORS_ONLN) $(grep -m1 'model name' /proc/cpuinfo)"
} >"$log"

echo "# 1. kernel profile, three steps back to back ($(left) s left)" | tee -a "$log"
CUDA_VISIBLE_DEVICES=0 timeout -k 10 "$(cap 120 420)" "$py" validate/runner/kernel_profile.py \
	--rows t07-single,t12-single --out "$out/kprof.csv" --gaps "$out/gaps.csv" >>"$log" 2>&1
echo "# exit $?" >>"$log"

echo "# 2. fused attention, packed forward ($(left) s left)" | tee -a "$log"
CUDA_VISIBLE_DEVICES=0 timeout -k 10 "$(cap 90 330)" "$py" calibrate/torch_attention.py --seqs 2048,4096 \
	--head-dims 128 --no-gqa --backends flash --tokens 4096,8192,16384 >"$out/attention.csv" 2>>"$log"
echo "# exit $?" >>"$log"

echo "# 3. host probe: host-only, full, host-only, full ($(left) s left)" | tee -a "$log"
hd=$(mktemp -d)
for i in 1 2; do
	CUDA_VISIBLE_DEVICES=0 MASTER_PORT=2958$i timeout -k 10 "$(cap 50 240)" "$py" calibrate/torch_kernels.py \
		--host-only >"$hd/fresh-$i.csv" 2>>"$log"
	echo "# fresh $i exit $?" >>"$log"
	CUDA_VISIBLE_DEVICES=0 MASTER_PORT=2959$i timeout -k 10 "$(cap 70 200)" "$py" calibrate/torch_kernels.py \
		--no-memory >"$hd/after-$i.csv" 2>>"$log"
	echo "# after $i exit $?" >>"$log"
done
tar -C "$hd" -czf "$out/host.tar.gz" .
rm -rf "$hd"

echo "# 4. the compiled rows of one GPU ($(left) s left)" | tee -a "$log"
ROWS=compiled GPUS=1 CSV_NAME="measured-${gpu:-gpu}x1-compiled.csv" VALIDATE_BUDGET_S=$(left 5) \
	validate/runner/device-run.sh "$out"
echo "# end ($(left) s left)" | tee -a "$log"
