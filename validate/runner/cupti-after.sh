#!/usr/bin/env bash
# validate/runner/cupti-after.sh: one device call (about 3 minutes, one GPU): does a torch.profiler session earlier
# in a process slow the host-bound steps timed after it? (validate/runner/cupti_after.py says why it might)
#   1. cupti_after.py: a host-bound micro-step before and after one profiler session: with no session (control),
#      with one (TEARDOWN_CUPTI unset, PyTorch's default), with one and TEARDOWN_CUPTI=1
#   2. the host-bound reference rows (validate/runner/torch_step.py, as device-run.sh's one-GPU phase runs them)
#      in a fresh process without --probe, with --probe (its host probe counts kernels with torch.profiler before
#      the rows: what device-run.sh has run), with --probe and TEARDOWN_CUPTI=1, and without --probe again
# usage: validate/runner/cupti-after.sh        env: ROWS (default t04-single,t03-single,t05-single,m01-single,
#        m02-single,t01-single). Files in $OUT: summary.txt, log.txt, runs.tar.gz (micro-*.csv, rows-*.csv, steps-*.csv)
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=4
out=${OUT:-cupti-out}
mkdir -p "$out"
sum=$out/summary.txt
log=$out/log.txt
rows=${ROWS:-t04-single,t03-single,t05-single,m01-single,m02-single,t01-single}
echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(nproc) CPUs" >"$sum"
micro() {  # name, env assignment (or X=1), cupti_after.py args
	local name=$1 envset=$2
	shift 2
	env "$envset" timeout -k 5 90 python3 validate/runner/cupti_after.py "$@" >"$out/micro-$name.csv" 2>>"$log"
	echo "micro $name: $(grep '^#' "$out/micro-$name.csv")" >>"$sum"
}
for i in 1 2; do
	micro control$i X=1 --no-profile
	micro default$i X=1
	micro teardown$i TEARDOWN_CUPTI=1
done
rowsrun() {  # name, env assignment (or X=1), torch_step args
	local name=$1 envset=$2
	shift 2
	env "$envset" timeout -k 5 150 python3 validate/runner/torch_step.py --gpus 1 --rows "$rows" \
		--out "$out/rows-$name.csv" --steps "$out/steps-$name.csv" "$@" >>"$log" 2>&1
	echo "rows $name (exit $?, $SECONDS s): $(grep -v '^#' "$out/rows-$name.csv" 2>/dev/null | tail -n +2 |
		awk -F, '{printf "%s %.2f ms  ", $3, $2 * 1000}')" >>"$sum"
}
rowsrun plain X=1
rowsrun probe X=1 --probe
rowsrun probe-teardown TEARDOWN_CUPTI=1 --probe
rowsrun plain2 X=1
cd "$out" && tar -czf runs.tar.gz micro-*.csv rows-*.csv steps-*.csv && rm -f micro-*.csv rows-*.csv steps-*.csv
cat summary.txt
