#!/usr/bin/env bash
# calibrate/device-cal.sh: the lean calibration call for a lent machine of several GPUs, as a new user would run
# it (README: `gpusim calibrate --attention torch --kernels torch`), within one device call of 10 minutes:
# build gpusim and its CUDA module, then one full run on all GPUs with the raw data kept. No test suite and no
# reference loops (calibrate/device-run.sh has them, and takes longer).
#   calibrate/device-cal.sh           env: SUSTAIN (default 20: the power phase's warm-up, s; an H100 settles within
#                                     7 s), SCENARIO (default scenarios/validate/t07-single.yaml: its layer GEMMs join
#                                     the grid, as in hardware/h100x1-measured), NAME (default <gpu>x<N>, with
#                                     SUFFIX: <gpu>x<N>-SUFFIX, named after the GPUs the lease gave),
#                                     PROFILE_ROWS (rows of validate/runner/configs.py profiled kernel by kernel
#                                     after it: kprof.csv, kernels.csv, gaps.csv), QUICK=1 (a short call of
#                                     about 3 minutes: --quick with the power phase, its idle-gap bursts among it,
#                                     and --kernels torch; no --attention torch, no --scenario shapes)
# Files in $OUT: summary.txt, log.txt, NAME-measured.yaml, calibrate.txt (its log), raw.tar.gz (the raw CSVs:
# unpack into hardware/NAME-measured/ and refit there, as calibrate/device-run.sh's header says).
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
. calibrate/device-lib.sh
device_begin /tmp/gpusim-cal
step "machine"
{
	nvidia-smi --query-gpu=index,name,memory.total,clocks.max.sm,power.limit,driver_version --format=csv
	nvidia-smi topo -m
	echo "cpus $(nproc)"
} >>"$log" 2>&1
step "dependencies (.debs -> /opt/deps)"
device_deps
step "build"
build="build-dev"
cmake -S . -B $build -DCMAKE_BUILD_TYPE=Release "${cmake_extra[@]}" >>"$log" 2>&1
timeout 240 cmake --build $build -j "$(nproc)" --target gpusim gpusim-cuda >>"$log" 2>&1
say "build: exit $? ($(($(date +%s) - t0)) s)"
cal="$build/gpusim calibrate"  # the whole binary: --scenario needs its scenario reader
$build/gpusim --version | grep -q "compiled in (CUDA" || { tail -30 "$log"; exit 1; }
step "calibrate"
base=
case $gpu in
h100) base="--base hardware/h100-dgx.yaml" ;;
*) base="--base hardware/h200-sxm.yaml" ;;
esac
yaml=$OUT/$name-measured.yaml
# shellcheck disable=SC2086 # $base is an option and its value
what=(--attention torch --kernels torch --scenario "${SCENARIO:-scenarios/validate/t07-single.yaml}")
[ "${QUICK:-0}" = 1 ] && what=(--quick --kernels torch)
(time timeout 480 $cal -v -o "$yaml" --raw "$work/raw" $base --sustain "${SUSTAIN:-20}" "${what[@]}") \
	>"$OUT/calibrate.txt" 2>&1
say "calibrate: exit $? ($(($(date +%s) - t0)) s)"
grep -E "^calibrate: (phases|wrote|fit intra all_reduce|[a-z]+ attention (beside|in a layer)|power: (after|an idle gap))|^gpusim:|^real" "$OUT/calibrate.txt" | tee -a "$summary"
tar -C "$work" -czf "$OUT/raw.tar.gz" raw
say "raw: $(du -h "$OUT/raw.tar.gz" | cut -f1)"
if [ -n "${PROFILE_ROWS:-}" ]; then
	# where the step's GPU time goes on this lease, beside the calibration that predicts it (docs/validation.md)
	step "kernel profile of $PROFILE_ROWS"
	timeout 150 python3 validate/runner/kernel_profile.py --rows "$PROFILE_ROWS" --out "$OUT/kprof.csv" \
		--kernels "$OUT/kernels.csv" --gaps "$OUT/gaps.csv" >>"$log" 2>&1
	say "kernel_profile: exit $? ($(($(date +%s) - t0)) s)"
fi
