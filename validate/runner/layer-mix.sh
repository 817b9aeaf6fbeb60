#!/usr/bin/env bash
# validate/runner/layer-mix.sh: one device call on one GPU for the in-step attention question (docs/validation.md,
# "A step's clock, the layer mix, and DDP under torch.compile"): (1) calibrate/torch_attention.py on one small shape
# with --hold: the flash attention held alone, beside GEMMs (the two mixes) and inside a transformer layer (the
# layer mix), the lines calibrate fits its attention law from; (2) validate/runner/kernel_profile.py of ROWS (default
# t07-single: a stack of the layer mix's layers) on the same GPU; (3) calibrate/torch_kernels.py --compiled-only
# (the compiled and compiled DDP host rows).
# usage: validate/runner/layer-mix.sh      env: HOLD (default 8 s, as calibrate holds), ROWS. Files in $OUT: attention.csv, kprof.csv,
#        kernels.csv, gaps.csv, compiled.csv, log.txt
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
out=${OUT:-layer-mix-out}
mkdir -p "$out"
log=$out/log.txt
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader >"$log"
timeout 300 python3 calibrate/torch_attention.py --seqs 2048 --head-dims 128 --backends flash --no-gqa \
	--hold "${HOLD:-8}" >"$out/attention.csv" 2>>"$log"
echo "# 1. attention: exit $? ($SECONDS s)" >>"$log"
timeout 120 python3 validate/runner/kernel_profile.py --rows "${ROWS:-t07-single}" --out "$out/kprof.csv" \
	--kernels "$out/kernels.csv" --gaps "$out/gaps.csv" >>"$log" 2>&1
echo "# 2. kernel_profile: exit $? ($SECONDS s)" >>"$log"
timeout 150 python3 calibrate/torch_kernels.py --compiled-only >"$out/compiled.csv" 2>>"$log"
echo "# 3. compiled: exit $? ($SECONDS s)" >>"$log"
grep "^#" "$out/attention.csv" | tail -6
grep "compiled_ddp" "$out/compiled.csv"
grep "^# [0-9]" "$log"
