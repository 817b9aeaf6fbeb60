#!/usr/bin/env bash
# validate/runner/mp-run.sh: one device call on a host of 2 or more GPUs (issue 11's multi-GPU rows; the measurements
# of issues 6 and 18 that the reference runner can make), in this order, each within its own time limit:
#   1. validate/runner/mp_profile.py on 2 GPUs: per-rank wall, kernel and host profile of the TP rows predicted on
#      the wrong side of 1 (t01-tp2, t03-tp2, t06-tp2, t17-tp2) and a GPU-bound TP row (t12-tp2) beside them, as
#      Chrome traces, and the host and GPU cost of one all-reduce call by size (coll-<gpu>x2.csv)
#   2. the host-bound TP rows again with PyTorch's NCCL watchdog, flight recorder and async error handling off
#      (variants.csv): do c10d's per-call extras move these rows?
#   3. validate/runner/device-run.sh: every reference row of 1 GPU up to the GPUs present -> measured-<gpu>x<N>.csv
# usage: validate/runner/mp-run.sh [OUTDIR]      OUTDIR defaults to $OUT, else ./mp-out
# env:   MP_BUDGET_S (default 540): the whole call's wall-clock budget; PROFILE_ROWS: rows for step 1
# Files in OUTDIR (the device returns at most 8): mp-profile.log, coll-<gpu>x2.csv, prof-gpu.tar, prof-cpu.tar
# (gzipped Chrome traces: validate/runner/mp_trace.py reads them), variants.csv, measured-<gpu>x<N>.csv,
# validate-runner.log, env.txt.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
# NVLink multicast stays off on shared machines (see the device docs): NCCL, PyTorch and NVSHMEM.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=4
out=${1:-${OUT:-mp-out}}
mkdir -p "$out"
out=$(cd "$out" && pwd)
deadline=$((SECONDS + ${MP_BUDGET_S:-540}))
left() { echo $((deadline - SECONDS - ${1:-0})); }
py=${PYTHON:-python3}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | tr '[:upper:]' '[:lower:]' |
	sed 's/^nvidia //; s/[^a-z0-9].*//')
{
	date -u +%Y-%m-%dT%H:%M:%SZ
	nvidia-smi --query-gpu=index,name,memory.total,driver_version,clocks.max.sm,power.limit --format=csv 2>&1
	nvidia-smi topo -m 2>&1
	nproc
	grep -m1 'model name' /proc/cpuinfo
	"$py" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version())' 2>&1
} >"$out/env.txt"

prows=${PROFILE_ROWS:-t03-tp2,t01-tp2,t06-tp2,t17-tp2,t12-tp2}
prof=$(mktemp -d)
echo "# 1. mp_profile ($(left) s left)" | tee "$out/mp-profile.log"
timeout -k 10 "$(($(left 300) < 150 ? $(left 300) : 150))" "$py" -m torch.distributed.run --standalone \
	--nproc_per_node=2 validate/runner/mp_profile.py --rows "$prows" --dir "$prof" --coll "$out/coll-${gpu}x2.csv" \
	>>"$out/mp-profile.log" 2>&1
echo "# mp_profile exit $?" >>"$out/mp-profile.log"
# traces: GPU-only ones together, the CPU ones together; a tar over the device's 16 MiB a file is dropped, not sent
(cd "$prof" && tar -cf "$out/prof-gpu.tar" ./*-gpu-r*.json.gz 2>/dev/null; tar -cf "$out/prof-cpu.tar" ./*-cpu-r*.json.gz 2>/dev/null)
for t in "$out"/prof-*.tar; do
	s=$(stat -c %s "$t")
	echo "# $(basename "$t"): $s bytes" >>"$out/mp-profile.log"
	[ "$s" -gt 16000000 ] && rm -f "$t" && echo "# dropped (over 16 MB)" >>"$out/mp-profile.log"
done
rm -rf "$prof"

echo "# 2. variants ($(left) s left)" | tee -a "$out/mp-profile.log"
vrows=t03-tp2,t01-tp2,t06-tp2
for v in default "TORCH_NCCL_ENABLE_MONITORING=0 TORCH_NCCL_TRACE_BUFFER_SIZE=0 TORCH_NCCL_ASYNC_ERROR_HANDLING=0" \
	"CUDA_DEVICE_MAX_CONNECTIONS=1"; do
	[ "$(left 280)" -lt 30 ] && break
	csv=$(mktemp)
	# shellcheck disable=SC2046,SC2086 # the variant is a list of assignments, split on purpose
	env $([ "$v" = default ] || echo $v) timeout -k 10 60 "$py" -m torch.distributed.run --standalone \
		--nproc_per_node=2 validate/runner/torch_step.py --gpus 2 --rows "$vrows" --out "$csv" \
		>>"$out/mp-profile.log" 2>&1
	grep -v '^#\|^scenario' "$csv" | sed "s|^|$v,|" >>"$out/variants.csv"
	rm -f "$csv"
done

echo "# 3. device-run.sh ($(left) s left)" | tee -a "$out/mp-profile.log"
VALIDATE_BUDGET_S=$(left 15) validate/runner/device-run.sh "$out"
echo "# end ($(left) s left)" | tee -a "$out/mp-profile.log"
