#!/usr/bin/env bash
# validate/runner/step-excess.sh: one device call (about 5 minutes, one GPU used) for what a whole training step
# costs the host beyond its parts (docs/validation.md, "A step beyond its parts"): calibrate/torch_kernels.py's host
# rows with the eager and compiled stacks' `step`, `step2` and parts (eager_step_rows, compiled_rows), then
# validate/runner/step_pieces.py on the runner's own host-bound rows (each piece timed inside real steps), then the
# host rows again without the compiled stacks (the host's drift over the call).
# usage: validate/runner/step-excess.sh     env: ROWS (default t05-single,m02-single,m01-single,t05-single-compiled,
#        m02-single-compiled). Files in $OUT: summary.txt, host-a.csv, pieces.csv, pieces.txt, host-b.csv
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=4
out=${OUT:-step-excess-out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
sum=$out/summary.txt
echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) x$(nvidia-smi -L | wc -l), $(getconf _NPROCESSORS_ONLN) CPUs" >"$sum"
CUDA_VISIBLE_DEVICES=0 timeout -k 10 240 python3 calibrate/torch_kernels.py --host-only >"$out/host-a.csv" 2>"$out/host-a.err"
echo "# 1. host rows with the stacks: exit $? ($SECONDS s)" >>"$sum"
CUDA_VISIBLE_DEVICES=0 timeout -k 10 150 python3 validate/runner/step_pieces.py \
	--rows "${ROWS:-t05-single,m02-single,m01-single,t05-single-compiled,m02-single-compiled}" \
	--out "$out/pieces.csv" >"$out/pieces.txt" 2>&1
echo "# 2. step_pieces: exit $? ($SECONDS s)" >>"$sum"
CUDA_VISIBLE_DEVICES=0 timeout -k 10 120 python3 calibrate/torch_kernels.py --host-only --no-compiled >"$out/host-b.csv" 2>"$out/host-b.err"
echo "# 3. host rows again, no compiled stacks: exit $? ($SECONDS s)" >>"$sum"
grep "^#" "$out/pieces.txt" >>"$sum"
grep -h "^host,\(eager\|compiled\)_\(mlp\|block\)_\(fwd\|bwd\|opt\|step\|step2\|step_fwd\|step_bwd\|step_opt\)," \
	"$out/host-a.csv" "$out/host-b.csv" >>"$sum"
tail -3 "$out/host-a.err" "$out/host-b.err" >>"$sum" 2>/dev/null
cat "$sum"
