#!/usr/bin/env bash
# validate/runner/host-ranks.sh: one device call (about 4 minutes, 2 GPUs) for the host gap that is left after the
# profiler's leftovers were found (docs/validation.md, "A profiler session left CUPTI attached"): the rows of several
# GPUs pay more host time than the one-process probe reads. validate/runner/host_context.py, twice:
#   1. one process on GPU 0: the one-GPU rows of the models below, the probe fresh, inside each row, at the end
#   2. torchrun, 2 ranks: the 2-GPU rows of the same models, the probe on both ranks at once and on rank 0 alone,
#      inside each row on both ranks (DDP reducer, process groups alive), at the end
# then: validate/what_if.py TABLE HW --host-rows FILE with each probe against the steps it sat beside.
# usage: validate/runner/host-ranks.sh     env: ROWS1 (default t04-single,t03-single,t05-single,m02-single), ROWS2
#        (default t04-dp2,t03-dp2,t05-tp2,t04-pp2-1f1b,m02-dp2). Files in $OUT: summary.txt, host.tar.gz
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=4
out=${OUT:-host-ranks-out}
mkdir -p "$out/one" "$out/two"
out=$(cd "$out" && pwd)
sum=$out/summary.txt
echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) x$(nvidia-smi -L | wc -l), $(getconf _NPROCESSORS_ONLN) CPUs" >"$sum"
CUDA_VISIBLE_DEVICES=0 timeout -k 10 200 python3 validate/runner/host_context.py --out "$out/one" \
	--rows "${ROWS1:-t04-single,t03-single,t05-single,m02-single}" >"$out/one/stdout.txt" 2>&1
echo "# 1. one process: exit $? ($SECONDS s)" >>"$sum"
cat "$out/one/host-context.log" >>"$sum" 2>/dev/null
timeout -k 10 300 python3 -m torch.distributed.run --standalone --nproc_per_node=2 validate/runner/host_context.py \
	--out "$out/two" --rows "${ROWS2:-t04-dp2,t03-dp2,t05-tp2,t04-pp2-1f1b,m02-dp2}" >"$out/two/stdout.txt" 2>&1
echo "# 2. two ranks: exit $? ($SECONDS s)" >>"$sum"
for f in "$out"/two/host-context-rank*.log; do
	echo "## $(basename "$f")" >>"$sum"
	cat "$f" >>"$sum"
done
tar -C "$out" -czf "$out/host.tar.gz" one two && rm -rf "$out/one" "$out/two"
cat "$sum"
