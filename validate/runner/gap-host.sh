#!/usr/bin/env bash
# validate/runner/gap-host.sh: one device call (about 5 minutes, any one GPU) for the two measurements the
# 2026-11-28 lease left open (docs/validation.md, "A 4 x H100 lease with the gap bursts"):
#   1. QUICK=1 calibrate/device-cal.sh: the power phase's idle-gap GEMM bursts (gpu.power.window_ms: a few ms on
#      an H200, as its coarse mixes imply, where the H100's were 17.7 and 31.0?) and gemm_extra, in a quick run
#   2. validate/runner/host_context.py: the host-class probe fresh, inside each host-bound row's own process with
#      its model alive, and at the end, beside those rows' steps (does the host cost depend on the process?)
# usage: validate/runner/gap-host.sh      env: SUFFIX (the calibration's name suffix, default gap), HOST_ROWS
#        (host_context.py --rows). Files in $OUT: summary.txt, cal.tar.gz (device-cal.sh's files and raw data),
#        host.tar.gz (host_context.py's CSVs and log).
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
export PYTHONUNBUFFERED=1
out=${OUT:-gap-host-out}
mkdir -p "$out/cal" "$out/host"
out=$(cd "$out" && pwd)
sum=$out/summary.txt
echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >"$sum"
OUT=$out/cal QUICK=1 SUFFIX=${SUFFIX:-gap} bash calibrate/device-cal.sh >"$out/cal/stdout.txt" 2>&1
echo "# 1. quick calibration: exit $? ($SECONDS s)" >>"$sum"
cat "$out/cal/summary.txt" >>"$sum" 2>/dev/null
timeout -k 10 240 python3 validate/runner/host_context.py --out "$out/host" \
	${HOST_ROWS:+--rows "$HOST_ROWS"} >"$out/host/stdout.txt" 2>&1
echo "# 2. host_context: exit $? ($SECONDS s)" >>"$sum"
cat "$out/host/host-context.log" >>"$sum" 2>/dev/null
tar -C "$out" -czf "$out/cal.tar.gz" cal && rm -rf "$out/cal"
tar -C "$out" -czf "$out/host.tar.gz" host && rm -rf "$out/host"
cat "$sum"
