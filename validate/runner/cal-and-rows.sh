#!/usr/bin/env bash
# validate/runner/cal-and-rows.sh: one device call that calibrates a lease and measures the reference rows on it,
# so the rows are held out from a calibration of the very GPUs (and host) that ran them:
#   1. calibrate/device-cal.sh (build, full `gpusim calibrate --attention torch --kernels torch`, PROFILE_ROWS
#      profiled kernel by kernel) -> cal.tar.gz
#   2. validate/runner/lease-run.sh with GPUS (default: all) -> rows.tar.gz (host rows before and after, the rows)
# usage: validate/runner/cal-and-rows.sh        env: GPUS, ROWS, PROFILE_ROWS (default t07-single,t12-single; set
#        and empty: none), QUICK, SUFFIX, CAL_BUDGET_S (default 600: the whole call), as the two scripts take them
# Files in $OUT: summary.txt (both steps' summaries), cal.tar.gz, rows.tar.gz.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
out=${OUT:-cal-and-rows-out}
mkdir -p "$out/cal" "$out/rows"
out=$(cd "$out" && pwd)
start=$SECONDS
ngpu=${GPUS:-$(nvidia-smi -L 2>/dev/null | wc -l)}
OUT=$out/cal PROFILE_ROWS=${PROFILE_ROWS-t07-single,t12-single} bash calibrate/device-cal.sh >"$out/cal/stdout.txt" 2>&1
echo "# calibrate: exit $? after $((SECONDS - start)) s" >>"$out/summary.txt"
cat "$out/cal/summary.txt" >>"$out/summary.txt" 2>/dev/null
left=$(( ${CAL_BUDGET_S:-600} - (SECONDS - start) - 15 ))
GPUS=$ngpu LEASE_BUDGET_S=$left bash validate/runner/lease-run.sh "$out/rows" >"$out/rows/stdout.txt" 2>&1
echo "# rows: exit $? after $((SECONDS - start)) s" >>"$out/summary.txt"
tail -5 "$out/rows/stdout.txt" >>"$out/summary.txt"
tar -C "$out" -czf "$out/cal.tar.gz" cal && rm -rf "$out/cal"
tar -C "$out" -czf "$out/rows.tar.gz" rows && rm -rf "$out/rows"
cat "$out/summary.txt"
