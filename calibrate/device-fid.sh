#!/usr/bin/env bash
# calibrate/device-fid.sh: one call on a lent GPU machine for issue 11 (fidelity): build gpusim with CUDA, run the
# GPU tests, profile reference training steps kernel by kernel (validate/runner/kernel_profile.py), and run a full
# `gpusim calibrate` with the power phase (--sustain) and the PyTorch attention rows (--attention torch) for the
# GEMM shapes of one reference scenario. About 7 minutes on one H100 (build 20 s, profiles 1 min, calibrate 5 min).
#
#   SUSTAIN=150 ROWS=t07-single,t08-single,t12-single SCEN=scenarios/validate/t07-single.yaml calibrate/device-fid.sh
#   STAGES=build,ctest,calibrate QUICK=1 SUSTAIN=20 calibrate/device-fid.sh    # a check of the whole path
#   STAGES=kernels calibrate/device-fid.sh    # PyTorch's memory-bound kernels, gaps, host costs, DDP memory
#                                             # (calibrate/torch_kernels.py) and flash attention by batch; no build
#   STAGES=host HOST_TOKENS="16 1024" calibrate/device-fid.sh    # host cost by op class at two tensor sizes and
#                                             # where host-bound steps' time goes (validate/runner/host_breakdown.py)
#   ATTN_TOKENS=0 STAGES=kernels,profile,build,calibrate QUICK=1 SUSTAIN=0 CAL_TIMEOUT=240 calibrate/device-fid.sh
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

if has kernels; then
	step "PyTorch kernels (calibrate/torch_kernels.py) and flash attention by tokens per batch"
	timeout 240 python3 calibrate/torch_kernels.py >"$OUT/kernels_torch.csv" 2>>"$log"
	say "torch_kernels: exit $? ($(grep -c . "$OUT/kernels_torch.csv") lines)"
	grep -E "^(gap|host|memory)," "$OUT/kernels_torch.csv" | tee -a "$summary"
	if [ "${ATTN_TOKENS:-1}" = 1 ]; then
		timeout 200 python3 calibrate/torch_attention.py --backends flash --no-gqa --seqs 1024,2048,4096,8192 \
			--tokens 4096,8192,16384,32768 >"$OUT/attention_tokens.csv" 2>>"$log"
		say "torch_attention --tokens: exit $? ($(grep -c . "$OUT/attention_tokens.csv") lines)"
	fi
fi

if has host; then
	step "host cost by op class (torch_kernels.py --host-only) and host-bound steps (validate/runner/host_breakdown.py)"
	for tok in ${HOST_TOKENS:-16}; do
		timeout 120 python3 calibrate/torch_kernels.py --host-only --host-tokens "$tok" >"$OUT/host_classes_$tok.csv" 2>>"$log"
		say "torch_kernels --host-only --host-tokens $tok: exit $?"
		grep -E "^host," "$OUT/host_classes_$tok.csv" | grep -v backlog | tr '\n' ' ' | tee -a "$summary"
		echo | tee -a "$summary"
	done
	timeout ${HB_TIMEOUT:-300} python3 validate/runner/host_breakdown.py --rows "${HB_ROWS:-t04-single,t05-single,m01-single}" \
		>"$OUT/host_breakdown.csv" 2>>"$log"
	say "host_breakdown: exit $?"
	grep -E "^(step|prof|tokens|opsize)," "$OUT/host_breakdown.csv" | tee -a "$summary"
fi

build=build-dev
need_gpusim=false
{ has calibrate || has ctest; } && need_gpusim=true
if has build || { $need_gpusim && [ ! -x $build/gpusim ]; }; then
	step "dependencies (.debs -> /opt/deps) and build"
	device_deps
	cmake -S . -B $build -DCMAKE_BUILD_TYPE=Release "${cmake_extra[@]}" >>"$log" 2>&1
	cmake --build $build -j "$(nproc)" >>"$log" 2>&1
	say "build: exit $? ($(( $(date +%s) - t0 )) s)"
fi
has build || device_deps  # the libraries for a binary built by an earlier call
if $need_gpusim && [ ! -x $build/gpusim ]; then
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
		--kernels "$OUT/kernels.csv" --gaps "$OUT/gaps.csv" >>"$log" 2>&1
	say "kernel_profile: exit $?"
	tail -n +2 "$OUT/kprof.csv" 2>/dev/null | head -40 >>"$summary"
fi

if has calibrate; then
	step "calibrate --sustain $SUSTAIN --attention torch --kernels torch --scenario $SCEN"
	yaml=$work/$name-measured.yaml
	( time timeout ${CAL_TIMEOUT:-480} $build/gpusim calibrate -v ${QUICK:+--quick} --sustain "$SUSTAIN" --attention torch --kernels torch \
		--scenario "$SCEN" --base $base -o "$yaml" --raw "$work/raw" ) >"$OUT/calibrate.txt" 2>&1
	say "calibrate: exit $?"
	grep -E "^calibrate: (bf16|power|attention|copy|kernel|phases|wrote)|^gpusim:|^real" "$OUT/calibrate.txt" |
		tee -a "$summary"
	cp "$yaml" "$OUT/" 2>/dev/null || cp "$yaml.partial" "$OUT/" 2>/dev/null
	tar -C "$work" -czf "$OUT/raw.tar.gz" raw 2>>"$log"
fi
say "done in $(( $(date +%s) - t0 )) s; files: $(ls "$OUT" | tr '\n' ' ')"
