#!/usr/bin/env bash
# validate/runner/contend.sh: one device call (about 3 minutes, 2 GPUs) that asks why the host-bound rows of two
# GPUs pay more host time a micro-batch than the one-GPU rows of the same model (docs/validation.md, "Two processes
# on one host"): is it the second process on the host, or the job (NCCL, its groups, its collectives)?
# validate/runner/torch_step.py, the same rows, in rounds:
#   alone   one process on GPU 0: the one-GPU rows ROWS1
#   pair    two independent processes at once, one on GPU 0 and one on GPU 1, each the same one-GPU rows (no
#           torchrun, no process group): what a second busy process costs the first's host
#   job     torchrun on 2 GPUs: the two-GPU rows ROWS2 of the same models
#   pinned  (PINNED=1, where the host has at least 8 CPUs) the pair again, each process on its own half of the CPUs
# in the order alone, pair, job, alone, pair, pinned: the host drifts over minutes, so each kind runs twice apart.
# usage: validate/runner/contend.sh      env: ROWS1 (default t04-single,t05-single,m02-single,t03-single),
#        ROWS2 (default t04-dp2,t04-pp2-gpipe,t05-tp2,m02-dp2,t03-dp2), ITERS (default 20), PINNED (default 1)
# Files in $OUT: summary.txt (one line a round), contend.tar.gz (each round's steps CSV (label,rank,step,step_s,
# host_s), rows CSV and log; lscpu -e). Read with validate/contend.py DIR.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=4
out=${OUT:-contend-out}
mkdir -p "$out/contend"
out=$(cd "$out" && pwd)
dir=$out/contend
sum=$out/summary.txt
rows1=${ROWS1:-t04-single,t05-single,m02-single,t03-single}
rows2=${ROWS2:-t04-dp2,t04-pp2-gpipe,t05-tp2,m02-dp2,t03-dp2}
iters=${ITERS:-20}
ncpu=$(getconf _NPROCESSORS_ONLN)
{
	echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) x$(nvidia-smi -L | wc -l), $ncpu CPUs"
	grep -m1 'model name' /proc/cpuinfo
	lscpu | grep -E '^(Thread|Core|Socket|NUMA node)'
} >"$sum"
lscpu -e >"$dir/lscpu.txt" 2>&1

# one_gpu NAME GPU [CPUS]: the one-GPU rows in one process on GPU (on CPUS with taskset), in the background
one_gpu() {
	local pin=()
	[ -n "${3:-}" ] && pin=(taskset -c "$3")
	CUDA_VISIBLE_DEVICES=$2 timeout -k 10 120 "${pin[@]}" python3 validate/runner/torch_step.py --gpus 1 \
		--rows "$rows1" --iters "$iters" --out "$dir/$1-gpu$2.csv" --steps "$dir/$1-gpu$2-steps.csv" \
		>"$dir/$1-gpu$2.log" 2>&1 &
}
# core_half lo|hi: the CPUs (comma list) of the lower or upper half of the physical cores
core_half() {
	lscpu -p=CPU,CORE | awk -F, -v half="$1" '!/^#/ { c[$1] = $2; if ($2 > m) m = $2 }
		END { for (i in c) if ((half == "lo") == (c[i] <= m / 2)) printf "%s%s", n++ ? "," : "", i }'
}
round() {
	local t=$SECONDS
	case $1 in
	alone*) one_gpu "$1" 0; wait ;;
	pair*) one_gpu "$1" 0; one_gpu "$1" 1; wait ;;
	pinned*)  # each process on the CPUs of its own half of the physical cores (hyperthread siblings together)
		local a b
		a=$(core_half lo)
		b=$(core_half hi)
		echo "# pinned: GPU 0 process on CPUs $a; GPU 1 process on CPUs $b" >>"$sum"
		one_gpu "$1" 0 "$a"; one_gpu "$1" 1 "$b"; wait ;;
	job*)
		timeout -k 10 150 python3 -m torch.distributed.run --standalone --nproc_per_node=2 \
			validate/runner/torch_step.py --gpus 2 --rows "$rows2" --iters "$iters" --out "$dir/$1.csv" \
			--steps "$dir/$1-steps.csv" >"$dir/$1.log" 2>&1 ;;
	esac
	echo "# $1: $((SECONDS - t)) s" >>"$sum"
}
round alone1
round pair1
round job1
round alone2
round pair2
if [ "${PINNED:-1}" = 1 ] && [ "$ncpu" -ge 8 ]; then
	round pinned1
fi
tar -C "$out" -czf "$out/contend.tar.gz" contend && rm -rf "$dir"
cat "$sum"
