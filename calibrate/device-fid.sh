#!/usr/bin/env bash
# calibrate/device-fid.sh: one call on a lent GPU machine for issue 11 (fidelity): build gpusim with CUDA, run the
# GPU tests, profile reference training steps kernel by kernel (validate/runner/kernel_profile.py), and run a full
# `gpusim calibrate` with the power phase (--sustain) and the PyTorch attention rows (--attention torch) for the
# GEMM shapes of one reference scenario. About 7 minutes on one H100 (build 20 s, profiles 1 min, calibrate 5 min).
#
#   SUSTAIN=150 ROWS=t07-single,t08-single,t12-single SCEN=scenarios/validate/t07-single.yaml calibrate/device-fid.sh
#   STAGES=build,ctest,calibrate QUICK=1 SUSTAIN=20 calibrate/device-fid.sh    # a check of the whole path
#
# Files in $OUT: summary.txt, log.txt, NAME-measured.yaml (NAME: h100x1 on one H100, h200x1 on one H200),
# kernels.csv and kprof.csv (the profiles), calibrate.txt, raw.tar.gz (the raw CSVs, for --refit).
# To commit: unpack raw/ into hardware/NAME-measured/, then
#   gpusim calibrate --refit hardware/NAME-measured -o hardware/NAME-measured.yaml --base PRESET
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
SUSTAIN=${SUSTAIN:-150}
ROWS=${ROWS:-t07-single,t08-single,t12-single}
SCEN=${SCEN:-scenarios/validate/t07-single.yaml}
STAGES=${STAGES:-build,profile,calibrate}
. calibrate/device-lib.sh
device_begin /tmp/gpusim-fid
export PYTHONUNBUFFERED=1
has() { case ",$STAGES," in *",$1,"*) return 0 ;; esac; return 1; }
case $gpu in h100) base=h100-dgx ;; *) base=h200-sxm ;; esac
step "machine"
{
	date -u
	nvidia-smi --query-gpu=index,name,memory.total,clocks.max.sm,clocks.sm,power.limit,power.draw,temperature.gpu,driver_version --format=csv
	python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())'
} >>"$log" 2>&1
say "$(date -u +%Y-%m-%dT%H:%MZ) $name: $(nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader | head -1)"

build=build-dev
if has build || [ ! -x $build/gpusim ]; then
	step "dependencies (.debs -> /opt/deps) and build"
	device_deps
	cmake -S . -B $build -DCMAKE_BUILD_TYPE=Release "${cmake_extra[@]}" >>"$log" 2>&1
	cmake --build $build -j "$(nproc)" >>"$log" 2>&1
	say "build: exit $? ($(( $(date +%s) - t0 )) s)"
fi
has build || device_deps  # the libraries for a binary built by an earlier call
if [ ! -x $build/gpusim ]; then
	tail -30 "$log"
	exit 1
fi
if has build; then
	timeout 120 $build/calibrate/test_gpubench >"$work/test_gpubench.txt" 2>&1
	say "test_gpubench: exit $? ($(grep -c . "$work/test_gpubench.txt") lines)"
	grep -E "checks|failed" "$work/test_gpubench.txt" | tee -a "$summary"
fi

if has ctest; then
	step "ctest on the GPU machine"
	( cd $build && timeout 300 ctest -j "$(nproc)" ) >"$work/ctest.txt" 2>&1
	say "ctest: exit $?"
	grep -E "tests passed|tests failed|\(Failed\)|Skipped" "$work/ctest.txt" | tee -a "$summary"
fi

if has profile; then
	step "kernel profiles of $ROWS"
	timeout 200 python3 validate/runner/kernel_profile.py --rows "$ROWS" --out "$OUT/kprof.csv" \
		--kernels "$OUT/kernels.csv" >>"$log" 2>&1
	say "kernel_profile: exit $?"
	tail -n +2 "$OUT/kprof.csv" 2>/dev/null | head -40 >>"$summary"
fi

if has calibrate; then
	step "calibrate --sustain $SUSTAIN --attention torch --scenario $SCEN"
	yaml=$work/$name-measured.yaml
	( time timeout 480 $build/gpusim calibrate -v ${QUICK:+--quick} --sustain "$SUSTAIN" --attention torch \
		--scenario "$SCEN" --base $base -o "$yaml" --raw "$work/raw" ) >"$OUT/calibrate.txt" 2>&1
	say "calibrate: exit $?"
	grep -E "^calibrate: (bf16|power|attention|copy|kernel|phases|wrote)|^gpusim:|^real" "$OUT/calibrate.txt" |
		tee -a "$summary"
	cp "$yaml" "$OUT/" 2>/dev/null || cp "$yaml.partial" "$OUT/" 2>/dev/null
	tar -C "$work" -czf "$OUT/raw.tar.gz" raw 2>>"$log"
fi
say "done in $(( $(date +%s) - t0 )) s; files: $(ls "$OUT" | tr '\n' ' ')"
