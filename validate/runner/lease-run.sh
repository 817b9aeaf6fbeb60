#!/usr/bin/env bash
# validate/runner/lease-run.sh: one device call on a host of 2 or more GPUs that measures the host this lease runs on
# and the reference rows on the same lease, so that host-bound rows are predicted with the host that ran them
# (issue 11, item 3: a lease's CPU moves eager rows by 20 % and more between leases, docs/validation.md):
#   1. calibrate/torch_kernels.py --host-only --no-compiled (torch.compile's rows take minutes; the calibration has
#      them) (what `gpusim calibrate --kernels torch` runs for the host rows: op
#      classes, mixed-stream ratios, a collective's tight-loop cost on a 1-rank group, a TP all-reduce in a mixed
#      stream) -> host-<gpu>.csv; `gpusim calibrate --refit` of a calibration's raw folder with these rows appended
#      to its kernels_torch.csv gives that calibration the lease's host (docs/validation.md says how); with GPUS >= 2
#      its rank rows too (the block's host in one process per GPU at once: host.<mode>.rank_spread)
#   2. (GPUS >= 2) validate/runner/mp_profile.py on 2 ranks: one all-reduce call's host and GPU cost by size, and the TP
#      all-reduce in a mixed stream on the 2-rank group -> coll-<gpu>x2.csv, tp-block-<gpu>x2.csv
#   3. validate/runner/device-run.sh for the rows of 1 to GPUS GPUs -> measured-<gpu>x<GPUS>.csv, validate-runner.log,
#      steps.csv (every rank's timed steps: validate/rank_steps.py)
#   4. the host rows of step 1 again -> host-<gpu>-after.csv: how far this lease's host drifted over the call
# Eight files in all, the most a device call brings back; with YARDSTICK=1 (every rank's host yardstick before and
# after each row: yardstick.csv, validate/host_speed.py) a ninth, and with GPUS >= 4 step 2 again on every GPU
# (coll-<gpu>x<GPUS>.csv, tp-block-<gpu>x<GPUS>.csv: what a group of 4 costs), so step 2's CSVs travel in
# bundle.tar (tar -xf it where the run folder is kept).
# usage: validate/runner/lease-run.sh [OUTDIR]     OUTDIR defaults to $OUT, else ./lease-out
# env:   LEASE_BUDGET_S (default 540): the call's wall-clock budget; GPUS (default 2): the largest rows of step 3;
#        ROWS: rows for step 3 (default all of 1 to GPUS GPUs)
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
# NVLink multicast stays off on shared machines (see the device docs): NCCL, PyTorch and NVSHMEM.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1
out=${1:-${OUT:-lease-out}}
mkdir -p "$out"
out=$(cd "$out" && pwd)
deadline=$((SECONDS + ${LEASE_BUDGET_S:-540}))
left() { echo $((deadline - SECONDS - ${1:-0})); }
py=${PYTHON:-python3}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | tr '[:upper:]' '[:lower:]' |
	sed 's/^nvidia //; s/[^a-z0-9].*//')
log=$out/lease.log
{
	date -u +%Y-%m-%dT%H:%M:%SZ
	nvidia-smi --query-gpu=index,name,driver_version,power.limit --format=csv 2>&1
	echo "cpus $(getconf _NPROCESSORS_ONLN) $(grep -m1 'model name' /proc/cpuinfo)"
} >"$log"

gpus=${GPUS:-2}
# the probe on GPU 0, with the first $gpus GPUs visible: with 2 or more its rank rows (one process per GPU at once)
visible=$(seq -s, 0 $((gpus > 1 ? gpus - 1 : 0)))
echo "# 1. host rows ($(left) s left)" | tee -a "$log"
CUDA_VISIBLE_DEVICES=$visible MASTER_PORT=29561 timeout -k 10 150 "$py" calibrate/torch_kernels.py --host-only \
	--no-compiled >"$out/host-$gpu.csv" 2>>"$log"
echo "# exit $?" >>"$log"
if [ "$gpus" -ge 2 ]; then
	echo "# 2. collectives and TP block on 2 ranks ($(left) s left)" | tee -a "$log"
	prof=$(mktemp -d)
	OMP_NUM_THREADS=4 timeout -k 10 120 "$py" -m torch.distributed.run --standalone --nproc_per_node=2 \
		validate/runner/mp_profile.py --rows none --dir "$prof" --coll "$out/coll-${gpu}x2.csv" \
		--tp-block "$out/tp-block-${gpu}x2.csv" >>"$log" 2>&1
	echo "# exit $?" >>"$log"
	rm -rf "$prof"
fi
if [ "$gpus" -ge 4 ]; then
	# the same on every GPU: does a call on a group of 4 cost the host more than on 2 (host.<mode>.group_us)?
	echo "# 2b. collectives and TP block on $gpus ranks ($(left) s left)" | tee -a "$log"
	prof=$(mktemp -d)
	OMP_NUM_THREADS=4 timeout -k 10 120 "$py" -m torch.distributed.run --standalone --nproc_per_node="$gpus" \
		validate/runner/mp_profile.py --rows none --dir "$prof" --coll "$out/coll-${gpu}x$gpus.csv" \
		--tp-block "$out/tp-block-${gpu}x$gpus.csv" >>"$log" 2>&1
	echo "# exit $?" >>"$log"
	rm -rf "$prof"
fi
echo "# 3. rows of 1 to $gpus GPUs ($(left) s left)" | tee -a "$log"
GPUS=$gpus VALIDATE_BUDGET_S=$(left 70) validate/runner/device-run.sh "$out"
echo "# 4. host rows again ($(left) s left)" | tee -a "$log"
CUDA_VISIBLE_DEVICES=$visible MASTER_PORT=29562 timeout -k 10 "$(($(left 5) < 120 ? $(left 5) : 120))" "$py" \
	calibrate/torch_kernels.py --host-only --no-compiled >"$out/host-$gpu-after.csv" 2>>"$log"
echo "# exit $?" >>"$log"
if [ -f "$out/yardstick.csv" ] || [ "$gpus" -ge 4 ]; then  # over eight files: the probes' CSVs in one
	(cd "$out" && tar -cf bundle.tar coll-*.csv tp-block-*.csv 2>>"$log" && rm -f coll-*.csv tp-block-*.csv)
fi
echo "# end ($(left) s left)" | tee -a "$log"
