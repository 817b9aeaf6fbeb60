#!/usr/bin/env bash
# validate/runner/layout-power.sh: does a multi-GPU layout run its GEMMs slower than the one-GPU step of the same work,
# and is it the clock (power: NCCL's kernels draw beside the compute they overlap) or the kernels themselves (SMs and
# memory shared with NCCL)? On a 2 x H200 lease of 2026-11-27 the model's multi-GPU rows of one table came out 2-4 %
# faster than their one-GPU rows relative to measurement (docs/validation.md, "A step's clock"). One device call on
# a host of 2+ GPUs:
#   1. nvidia-smi samples every GPU every 50 ms (SM clock, power, temperature) while validate/runner/torch_step.py
#      runs each row of ROWS1 alone on each GPU of ROWS1_GPUS in turn (a chip's own step: are the GPUs alike?),
#      then each of ROWS2 under torchrun on the row's GPUs, one process a row (marks.txt: when each began and
#      ended; ranks.csv: every rank's timed steps and their host part, torch_step.py --steps);
#   2. validate/runner/mp_profile.py profiles PROF_ROWS on 2 ranks: GPU time by kernel class per rank (summary lines),
#      traces in prof/;
#   3. validate/runner/kernel_profile.py profiles ROWS1 on GPU 0 (kernels.csv: the one-GPU step's classes, same lease).
# usage: validate/runner/layout-power.sh     env: ROWS1 (default t07-single,t12-single), ROWS1_GPUS (default 0:
#        the GPUs each ROWS1 row runs alone on, e.g. "0 1 2 3"), ROWS2 (default t07-dp2,t07-tp2,t07-pp2-1f1b,
#        t12-dp2; rows of 2 or more GPUs), PROF_ROWS (2-GPU rows, default t07-dp2,t07-tp2,t07-pp2-1f1b), ITERS (20).
#        Files in $OUT: summary.txt and layout-power.tgz (samples.csv, marks.txt, steps.csv, ranks.csv, rows.log,
#        prof/, kernels.csv, kprof.csv, gaps.csv, kprof.log). A ROWS1 row on GPU g is marked ROW@g.
#        Read with validate/layout_power.py (the clock and power of each row's timed steps).
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
out=${OUT:-layout-power-out}
mkdir -p "$out/prof"
out=$(cd "$out" && pwd)
sum=$out/summary.txt
echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) x $(nvidia-smi -L | wc -l)" >"$sum"
nvidia-smi --query-gpu=timestamp,index,clocks.sm,power.draw,temperature.gpu \
	--format=csv,nounits -lms 50 >"$out/samples.csv" 2>&1 &
smi=$!
mark() { echo "$(date -u +%Y/%m/%d\ %H:%M:%S.%N | cut -c1-23) $*" >>"$out/marks.txt"; }
sleep 1
# one process per row, so that marks.txt brackets each row's samples
for r in $(echo "${ROWS1:-t07-single,t12-single}" | tr , ' '); do
	for g in ${ROWS1_GPUS:-0}; do
		tag=$r
		[ "${ROWS1_GPUS:-0}" = 0 ] || tag=$r@$g
		mark "begin $tag 1"
		CUDA_VISIBLE_DEVICES=$g timeout 100 python3 validate/runner/torch_step.py --gpus 1 --rows "$r" \
			--iters "${ITERS:-20}" --out "$out/steps.csv" --steps "$out/ranks.csv" 2>&1 |
			sed "s/^$r /$tag /" >>"$out/rows.log"
		mark "end $tag 1"
		sleep 2
	done
done
for r in $(echo "${ROWS2:-t07-dp2,t07-tp2,t07-pp2-1f1b,t12-dp2}" | tr , ' '); do
	n=$(python3 validate/runner/configs.py --rows "$r" --gpu-counts)
	mark "begin $r $n"
	OMP_NUM_THREADS=4 timeout 100 python3 -m torch.distributed.run --standalone --nproc_per_node="$n" \
		validate/runner/torch_step.py --gpus "$n" --rows "$r" --iters "${ITERS:-20}" --out "$out/steps.csv" \
		--steps "$out/ranks.csv" >>"$out/rows.log" 2>&1
	mark "end $r $n"
	sleep 2
done
kill $smi 2>/dev/null
wait 2>/dev/null
echo "# 1. rows: $SECONDS s" >>"$sum"
grep -E "median" "$out/rows.log" >>"$sum"
OMP_NUM_THREADS=4 timeout -k 10 240 python3 -m torch.distributed.run --standalone --nproc_per_node=2 \
	validate/runner/mp_profile.py --rows "${PROF_ROWS:-t07-dp2,t07-tp2,t07-pp2-1f1b}" --dir "$out/prof" \
	>"$out/prof/log.txt" 2>&1
echo "# 2. mp_profile: exit $? ($SECONDS s)" >>"$sum"
grep -E "rank [0-9]+:" "$out/prof/log.txt" >>"$sum"
CUDA_VISIBLE_DEVICES=0 timeout 120 python3 validate/runner/kernel_profile.py --rows "${ROWS1:-t07-single,t12-single}" \
	--out "$out/kprof.csv" --kernels "$out/kernels.csv" --gaps "$out/gaps.csv" >"$out/kprof.log" 2>&1
echo "# 3. kernel_profile of ${ROWS1:-t07-single,t12-single}: exit $? ($SECONDS s)" >>"$sum"
# few files come back from a lent machine: everything but the summary in one archive
(cd "$out" && tar czf layout-power.tgz prof samples.csv marks.txt steps.csv ranks.csv rows.log kernels.csv kprof.csv \
	gaps.csv kprof.log 2>/dev/null && rm -rf prof samples.csv marks.txt steps.csv ranks.csv rows.log kernels.csv kprof.csv \
	gaps.csv kprof.log)
cat "$sum"
