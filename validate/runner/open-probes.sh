#!/usr/bin/env bash
# validate/runner/open-probes.sh: one device call for the questions issue 11 left open on 2026-11-27
# (docs/validation.md, "Two H200 leases with the mixes and the compiled probe"), each part as far as the machine
# allows:
#   1. (any GPU) validate/runner/step-power.sh: the SM clock, power and temperature of GPU-bound steps beside a held
#      GEMM - do an H200 step's GEMMs run above the held clock (profile: 1.16-1.17x the held rate, model 1.06)?
#   2. (2+ GPUs) validate/runner/mp_profile.py on 2 ranks: m02-dp2-compiled (2 ms a step above the compiled one-GPU
#      step), m02-dp2, t06-tp2 (128.7 vs 255.8 ms on two leases): traces of one step per rank, and dynamo's graphs
#   3. (4+ GPUs) validate/runner/device-run.sh ROWS=t14-dp2-tp2,m02-dp4: m02-dp4's peak memory with the runner's fix
#      (0.28 GB expected, 1.54 GB before)
# usage: validate/runner/open-probes.sh        Files in $OUT: power/ (step-power.sh's), prof/ (traces, summary),
#        mem/ (measured CSV, log), summary.txt.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
out=${OUT:-open-probes-out}
mkdir -p "$out/power" "$out/prof" "$out/mem"
out=$(cd "$out" && pwd)
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
sum=$out/summary.txt
echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) x $ngpu" >"$sum"
OUT=$out/power bash validate/runner/step-power.sh >>"$sum" 2>&1
echo "# 1. step-power: exit $? ($SECONDS s)" >>"$sum"
if [ "$ngpu" -ge 2 ]; then
	OMP_NUM_THREADS=4 timeout -k 10 240 python3 -m torch.distributed.run --standalone --nproc_per_node=2 \
		validate/runner/mp_profile.py --rows m02-dp2-compiled,m02-dp2,t06-tp2 --dir "$out/prof" \
		>"$out/prof/log.txt" 2>&1
	echo "# 2. mp_profile: exit $? ($SECONDS s)" >>"$sum"
	grep -E "rank [01]:" "$out/prof/log.txt" >>"$sum"
fi
if [ "$ngpu" -ge 4 ]; then
	ROWS=t14-dp2-tp2,m02-dp4 GPUS=4 VALIDATE_BUDGET_S=150 bash validate/runner/device-run.sh "$out/mem" >/dev/null 2>&1
	echo "# 3. m02-dp4 re-measure: exit $? ($SECONDS s)" >>"$sum"
	grep -E "^(t14-dp2-tp2|m02-dp4) " "$out/mem/validate-runner.log" >>"$sum"
fi
cat "$sum"
