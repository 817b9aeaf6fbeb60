#!/usr/bin/env bash
# Runs the reference rows of validate/runner/configs.py on this machine's GPUs (validate/runner/torch_step.py): one phase per
# GPU count that the selected rows use, smallest first (1, then 2, 4, 8 under torchrun), up to the GPUs present.
# Writes OUTDIR/measured-<gpu>x<N>.csv, named after the machine (measured-h200x2.csv on two H200s,
# measured-h200x8.csv on eight; scenario paths relative to validate/, where the file belongs) and
# OUTDIR/validate-runner.log (environment, per-row times, failures, the rows not run) and OUTDIR/steps.csv (every
# rank's timed steps and their host part: what the slowest rank's median is taken from).
# A phase that crashes or hangs is started again and goes on after the row it died in (progress file).
# usage: validate/runner/device-run.sh [OUTDIR]        OUTDIR defaults to $OUT, else ./validate-out
# env:   VALIDATE_BUDGET_S (default 300): wall-clock budget for all phases; ROWS: comma list of labels or config
#        ids (default all); CSV_NAME: the CSV's file name instead of the machine's; GPUS: the number of GPUs to
#        use (default all that torch sees); EXTRA_ARGS: more runner options ("--cpu --tiny" with GPUS=4 is a
#        dry run of the 4-process phases without GPUs); PROBE=1: the host probe after the one-GPU rows;
#        YARDSTICK=1: every rank's host yardstick before and after each row -> OUTDIR/yardstick.csv
#        (torch_step.py --yardstick; validate/host_speed.py reads it)
set -u
# NVLink multicast stays off on shared machines (see the device docs): NCCL, PyTorch and NVSHMEM.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=4
here=$(cd "$(dirname "$0")" && pwd)
outdir=${1:-${OUT:-validate-out}}
mkdir -p "$outdir"
log=$outdir/validate-runner.log
work=$(mktemp -d)
py=${PYTHON:-python3}
rows=${ROWS:-all}
# PROBE=1: torch_step.py's host probe after the one-GPU rows (a torch.profiler session). Off by default: on the
# H200 leases of 2026-11-28 the process that ran it did not end until its phase's timeout, which took the whole
# budget of the rows of several GPUs (validate/runs/2026-11-28-h200x4-1128k, docs/validation.md)
probe=
[ "${PROBE:-0}" = 1 ] && probe=--probe
yard=()
if [ "${YARDSTICK:-0}" = 1 ]; then
	rm -f "$outdir/yardstick.csv"
	yard=(--yardstick "$outdir/yardstick.csv")
fi
extra=${EXTRA_ARGS:-}   # e.g. "--cpu --tiny" for a dry run without GPUs
deadline=$((SECONDS + ${VALIDATE_BUDGET_S:-300}))

ngpu=${GPUS:-$("$py" -c 'import torch; print(torch.cuda.device_count())' 2>/dev/null || echo 0)}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | tr '[:upper:]' '[:lower:]' |
	sed 's/^nvidia //; s/[^a-z0-9].*//')
csv=$outdir/${CSV_NAME:-measured-${gpu:-cpu}x$ngpu.csv}
steps=$outdir/steps.csv   # every rank's timed steps (torch_step.py --steps)
rm -f "$steps"
rm -f "$csv"

{
	echo "# validate/runner/device-run.sh $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname): rows $rows, $ngpu GPU(s), -> $csv"
	nvidia-smi --query-gpu=index,name,memory.total,driver_version,clocks.max.sm --format=csv 2>&1
	nvidia-smi topo -m 2>&1
	"$py" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version(), "gpus", torch.cuda.device_count())' 2>&1
} >"$log"
# provenance, as comment lines `gpusim validate` skips
{
	echo "# measured by validate/runner/device-run.sh (validate/runner/torch_step.py, rows of validate/runner/configs.py), $(date -u +%Y-%m-%dT%H:%MZ)"
	echo "# $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c | sed 's/^ *//' | tr '\n' ' ')link $(nvidia-smi topo -m 2>/dev/null | awk '$1=="GPU0"{print $3}'), $("$py" -c 'import torch; print("torch", torch.__version__, "nccl", ".".join(map(str, torch.cuda.nccl.version())))' 2>/dev/null)"
	echo "# measured_step_s: median of the timed steps (repeats), slowest rank; scenario paths are relative to validate/"
} >"$csv"

# run_phase NAME NGPU: run the rows of NGPU GPUs, again (resuming) after a crash or hang, up to 3 times
run_phase() {
	local name=$1 n=$2 prog=$work/progress-$1 attempt left rc
	for attempt in 1 2 3; do
		left=$((deadline - SECONDS))
		if [ "$left" -lt 20 ]; then
			echo "# $name: out of time budget, rows not run stay out of the CSV" >>"$log"
			return
		fi
		echo "# $name: attempt $attempt, ${left}s left" >>"$log"
		if [ "$n" -eq 1 ]; then
			timeout -k 10 "$left" "$py" "$here/torch_step.py" --gpus 1 --rows "$rows" --out "$csv" \
				--progress "$prog" $probe --steps "$steps" "${yard[@]}" $extra >>"$log" 2>&1
		else
			timeout -k 10 "$left" "$py" -m torch.distributed.run --standalone --nproc_per_node="$n" \
				"$here/torch_step.py" --gpus "$n" --rows "$rows" --out "$csv" --progress "$prog" \
				--steps "$steps" "${yard[@]}" $extra >>"$log" 2>&1
		fi
		rc=$?
		if grep -q '^finished' "$prog" 2>/dev/null; then
			break
		fi
		echo "# $name: exited $rc before the end; resuming" >>"$log"
	done
	grep '^fail' "$prog" 2>/dev/null | sed "s/^/# $name: /" >>"$log"
}

t0=$SECONDS
counts=$(cd "$here" && "$py" configs.py --gpu-counts --rows "$rows")
for n in $counts; do
	name=gpus$n
	[ "$n" -eq 1 ] && name=single
	[ "$n" -eq 2 ] && name=two   # the names the 2-GPU logs have always had
	if [ "$n" -eq 1 ] || [ "$n" -le "$ngpu" ]; then
		run_phase "$name" "$n"
	else
		echo "# only $ngpu GPU(s): the rows of $n GPUs not run" >>"$log"
	fi
done
n=$(grep -c '^\.\./' "$csv" 2>/dev/null || echo 0)
echo "# done: $n rows in $((SECONDS - t0)) s -> $csv" | tee -a "$log"
rm -rf "$work"
