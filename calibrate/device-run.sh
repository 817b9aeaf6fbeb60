#!/usr/bin/env bash
# calibrate/device-run.sh: build gpusim on a GPU machine and calibrate it, in one go (under 8 minutes on two
# H200s; the full calibration itself takes about one). Written for the lent Ubuntu machines, which have
# CUDA, cuBLAS, NCCL and CMake but no libyaml or GSL: their Debian packages travel in .debs/ and are unpacked into
# /opt/deps. Results go to $OUT (or ./device-out), at most 8 files, everything bulky in one tarball.
#
#   calibrate/device-run.sh [full|smoke|all]
#     full  (default): build; GPU tests; `gpusim calibrate` full run -> h200x2-measured.yaml + raw CSVs;
#           nccl-tests-style reference loop for all_reduce at 1 GiB and 4 GiB; the measured model loaded by
#           `gpusim predict`; results.tar.gz + summary.txt (about 1.5 minutes on two H200s, plus the machine's start)
#     smoke: the same with `gpusim calibrate --quick`, an 8 B..1 GiB reference sweep, and the MPI path
#           (mpirun -np 2) when MPI was found
#     all:   smoke and full together
# Files in $OUT: summary.txt, log.txt, NAME-measured.yaml (or -quick; NAME is the GPU and count, h200x2 on two
# H200s, h100x1 on one H100, or $NAME), collectives.csv, results.tar.gz (the raw CSVs under raw/, every log).
# To commit a run: unpack raw/ into hardware/h200x2-measured/, then
#   gpusim calibrate --refit hardware/h200x2-measured -o hardware/h200x2-measured.yaml
#   gnuplot plots/allreduce_fit.gp            # docs/img/allreduce_fit.png
#   calibrate/summarize.sh hardware/h200x2-measured   # the tables of docs/calibration.md
#
# Keep NVLink multicast off on shared machines: NCCL_NVLS_ENABLE=0 is forced below.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

mode=${1:-full}
. calibrate/device-lib.sh
device_begin /tmp/gpusim-run
mkdir -p "$work/raw"

# the model is named after the machine (device_begin): h200x2-measured on two H200s, h100x1-measured on one H100
step "machine"
{
	nvidia-smi --query-gpu=index,name,memory.total,clocks.max.sm,clocks.sm,power.limit,driver_version --format=csv
	nvidia-smi topo -m
	nvcc --version | tail -2
	cmake --version | head -1
	gcc --version | head -1
	ldconfig -p | grep -E 'libnccl|libcublasLt|libnvidia-ml' | head
	command -v mpirun && mpirun --version 2>&1 | head -1
} >>"$log" 2>&1

step "dependencies (.debs -> /opt/deps)"
device_deps

step "build"
build=build-dev
jobs=$(nproc)
cmake -S . -B $build -DCMAKE_BUILD_TYPE=Release "${cmake_extra[@]}" >>"$log" 2>&1
cmake --build $build -j "$jobs" >>"$log" 2>&1
built=$?
cal=
if [ -x $build/gpusim ] && $build/gpusim --version | grep -q "compiled in (CUDA"; then
	cal="$build/gpusim calibrate"
else
	# the simulator part may not build while it is being written: the calibrate-only binary still does
	cmake --build $build -j "$jobs" --target gpusim-calibrate test_gpubench gpusim-ncclref >>"$log" 2>&1
	[ -x $build/calibrate/gpusim-calibrate ] && cal=$build/calibrate/gpusim-calibrate
fi
say "build: exit $built, calibrate command: ${cal:-none} ($(( $(date +%s) - t0 )) s)"
if [ -z "$cal" ]; then
	tail -40 "$log"
	exit 1
fi

step "GPU tests"
timeout 120 $build/calibrate/test_gpubench >"$work/test_gpubench.txt" 2>&1
say "test_gpubench: exit $?"
# the whole suite on a GPU machine: the GPU tests run instead of skipping, and the CUDA-free checks hold here too
( cd $build && timeout 300 ctest -j "$jobs" --output-on-failure ) >"$work/ctest.txt" 2>&1
say "ctest: exit $?"
grep -E "tests passed|tests failed|Skipped|\(Failed\)|Not Run" "$work/ctest.txt" | tee -a "$summary"
grep -E "check|TFLOP|GB/s|launch|events|failed" "$work/test_gpubench.txt" | tee -a "$summary"

step "calibrate ($mode)"
# unmeasurable parts (network, inter-node collectives, cost) from the preset of this GPU, as a file so the
# calibrate-only binary (no built-in presets) takes it too
base=
case $gpu in
h100) [ -f hardware/h100-dgx.yaml ] && base="--base hardware/h100-dgx.yaml" ;;
*) [ -f hardware/h200-sxm.yaml ] && base="--base hardware/h200-sxm.yaml" ;;
esac
if [ "$mode" = smoke ] || [ "$mode" = all ]; then
	yaml=$work/$name-quick.yaml
	( time timeout 150 $cal --quick -o "$yaml" --raw "$work/raw-quick" $base ) >"$work/calibrate-quick.txt" 2>&1
	say "calibrate --quick: exit $?"
	grep -E "^calibrate:|^gpusim:|^real" "$work/calibrate-quick.txt" | tee -a "$summary"
fi
if [ "$mode" != smoke ]; then
	yaml=$work/$name-measured.yaml
	( time timeout 330 $cal -v -o "$yaml" --raw "$work/raw" $base ) >"$work/calibrate.txt" 2>&1
	say "calibrate: exit $?"
	grep -E "^calibrate: (fit|[0-9]|bf16|copy|kernel|attention|intra|inter|overlap|phases|wrote)|^gpusim:|^real" \
		"$work/calibrate.txt" | grep -v " B$" | tee -a "$summary"
fi

step "nccl-tests-style reference (all_reduce, host clock)"
timeout 90 $build/calibrate/gpusim-ncclref -b 1073741824 -e 4294967296 -f 4 -n 20 -w 5 >"$work/ncclref.txt" 2>&1
say "ncclref: exit $?"
tee -a "$summary" <"$work/ncclref.txt"
if [ "$mode" != full ]; then
	timeout 60 $build/calibrate/gpusim-ncclref -b 8 -e 1073741824 -f 8 -n 20 -w 5 >"$work/ncclref_sweep.txt" 2>&1
	tee -a "$summary" <"$work/ncclref_sweep.txt"
fi

step "the model loads in gpusim predict"
if [ -x $build/gpusim ] && [ -f "$yaml" ]; then
	for s in scenarios/gpt_small_2gpu.yaml scenarios/70b_64gpu.yaml; do
		[ -f "$s" ] || continue
		timeout 60 $build/gpusim predict "$s" --hw "$yaml" >"$work/predict_$(basename "$s" .yaml).txt" 2>&1
		say "predict $s --hw measured: exit $?"
		head -20 "$work/predict_$(basename "$s" .yaml).txt" >>"$summary"
	done
else
	say "predict: skipped (no gpusim binary, or no model written)"
fi

if [ "$mode" != full ] && command -v mpirun >/dev/null && grep -q "GPUSIM_HAVE_MPI" $build/calibrate/CMakeFiles/gpusim_measure.dir/flags.make 2>/dev/null; then
	step "MPI path: mpirun -np 2"
	# first the launcher alone, then calibrate with every rank saying where it is (a run hung here once, silently)
	# one node in a VM: shared memory between the ranks and the loopback for Open MPI's own wiring
	mpi=(mpirun -np 2 --allow-run-as-root --oversubscribe --mca btl self,vader --mca oob_tcp_if_include lo)
	timeout 30 "${mpi[@]}" hostname >"$work/mpi.txt" 2>&1
	say "mpirun hostname: exit $?"
	timeout 100 "${mpi[@]}" -x NCCL_NVLS_ENABLE -x LD_LIBRARY_PATH -x PATH \
		-x NCCL_DEBUG=WARN $cal --quick -v -o "$work/$name-mpi.yaml" $base >>"$work/mpi.txt" 2>&1
	say "mpi calibrate: exit $?"
	tail -25 "$work/mpi.txt" | tee -a "$summary"
fi

step "pack"
cp "$yaml" "$OUT/" 2>/dev/null
cp "$work/raw/collectives.csv" "$OUT/" 2>/dev/null
# the plot of measured against fitted all-reduce time, when gnuplot is there (it is not on the lent machines)
command -v gnuplot >/dev/null && [ -f "$work/raw/collectives.csv" ] &&
	gnuplot -e "csv='$work/raw/collectives.csv'; out='$OUT/allreduce_fit.png'" plots/allreduce_fit.gp 2>>"$log"
cp $build/CMakeCache.txt "$work/" 2>/dev/null
tar -C "$work" -czf "$OUT/results.tar.gz" . 2>>"$log"
say "done in $(( $(date +%s) - t0 )) s; files in $OUT: $(ls "$OUT" | tr '\n' ' ')"
