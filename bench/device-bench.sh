#!/usr/bin/env bash
# bench/device-bench.sh: bench/run on the idle CPU of a lent GPU machine (the GPU is not used), pinned to two
# cores (taskset) as on the CI-class VM, for timings without the development VM's neighbours. A benchmark, not a
# test. Run through the device tool with carry [".debs"]:
#   bash bench/device-bench.sh [RUNS]        files in $OUT: bench.txt (bench/run's report), log.txt
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
RUNS=${1:-21}
CORES=${CORES:-2,3}
. calibrate/device-lib.sh
device_begin /tmp/gpusim-bench
device_deps
step "Release builds (default with the calibrate module, and GPUSIM_CALIBRATE=OFF)"
for b in "build-bench:" "build-bench-nocal:-DGPUSIM_CALIBRATE=OFF"; do
	dir=${b%%:*}
	opt=${b#*:}
	cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DGPUSIM_WERROR=OFF "${cmake_extra[@]}" \
		$opt >>"$log" 2>&1 && cmake --build "$dir" -j "$(nproc)" >>"$log" 2>&1 || { tail -30 "$log"; exit 1; }
done
say "built in $(( $(date +%s) - t0 )) s; cores for the runs: $CORES of $(nproc); $(lscpu | grep 'Model name' | sed 's/  */ /g')"
step "bench/run $RUNS --quick, pinned to cores $CORES"
GPUSIM=$PWD/build-bench/gpusim GPUSIM_OFF=$PWD/build-bench-nocal/gpusim taskset -c "$CORES" \
	python3 bench/run "$RUNS" --quick >"$OUT/bench.txt" 2>>"$log"
say "bench/run: exit $? ($(( $(date +%s) - t0 )) s)"
cat "$OUT/bench.txt" >>"$summary"
