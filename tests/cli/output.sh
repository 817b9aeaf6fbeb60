#!/usr/bin/env bash
# output.sh GPUSIM: where -o writes (issue 16): "-" is standard output; a regular file is replaced only by a
# complete one, through a temporary beside it with a unique name; a FIFO or a device is written in place, never
# replaced (as root, a rename over /dev/full would have replaced the device node); a failed or interrupted run
# (SIGTERM, SIGINT) leaves no temporary behind. Prints "N passed, N failed".
set -uo pipefail

gpusim=${1:?usage: output.sh GPUSIM}
. "$(dirname "$0")/../cli_lib.sh"
scen=scenarios/gpt_small_2gpu.yaml
check() {  # check DESCRIPTION COMMAND...: passes when the command succeeds
	local what=$1
	shift
	if "$@" >"$tmp/check" 2>&1; then ok; else fail "$what: $(head -c 400 "$tmp/check")"; fi
}
no_temps() {  # no_temps DIR: no .NAME.XXXXXX temporary left in DIR
	[ -z "$(find "$1" -maxdepth 1 -name '.*.??????' -print -quit)" ]
}

# "-": standard output, for every command with -o
run predict "$scen" --format json -o -
expect_rc 0 "predict -o -"
expect_out '"step_time_s"' "predict -o - writes to standard output"
check "no file named '-'" test ! -e ./-
run scale "$scen" --gpus 1,2 --format csv -o -
expect_rc 0 "scale -o -"
expect_out '^sweep,scenario,mode' "scale -o - writes to standard output"

# the host drift band: a host-bound step with a calibration that measured its host's drift (x0.704 to x1.553)
run predict scenarios/validate/t04-single.yaml --hw hardware/h200x2-1128p-measured.yaml
expect_rc 0 "predict a host-bound step"
expect_out '^host drift       [0-9.]+ to [0-9.]+ ms on a host as fast and as slow as the model.s host range \(host costs x0.70 to x1.55\)$' "predict: the host drift line"
run predict scenarios/validate/t04-single.yaml --hw hardware/h200x2-1128p-measured.yaml --format json
expect_out '"factor_hi": 1.553' "predict json: host_band"
# a preset's range is the lent hosts' spread (validate/preset_host.py); a model without drift_lo/hi gets no band
run predict scenarios/validate/t04-single.yaml --hw h200-sxm
expect_out '^host drift       [0-9.]+ to [0-9.]+ ms on a host as fast and as slow as the model.s host range \(host costs x0\.[0-9]+ to x[12]\.[0-9]+\)$' "predict: a preset's host drift line"
run predict scenarios/validate/t04-single.yaml --hw hardware/h200x2-1128t-measured.yaml --format json
if grep -q host_band "$tmp/out"; then fail "predict: no band without a range"; else ok; fi

# a regular file: replaced whole; the temporary is gone afterwards
mkdir "$tmp/d"
echo old >"$tmp/d/r.json"
run predict "$scen" --format json -o "$tmp/d/r.json"
expect_rc 0 "predict -o FILE"
check "the file was replaced" grep -q '"step_time_s"' "$tmp/d/r.json"
check "no temporary left" no_temps "$tmp/d"
# a failed run leaves the old file alone and no temporary
run predict does-not-exist.yaml -o "$tmp/d/r.json"
check "a failed run keeps the old file" grep -q '"step_time_s"' "$tmp/d/r.json"
check "no temporary after a failure" no_temps "$tmp/d"

# a trace over its budget: an error naming the option, and neither the trace nor the report is kept
run predict scenarios/70b_64gpu.yaml --trace "$tmp/d/t.json" --max-trace-mb 1 -o "$tmp/d/p.json"
expect_rc 1 "a trace over its budget"
expect_err "the trace would pass its budget of 1 MB: trace fewer ranks \(--trace-ranks critical\) or raise it with --max-trace-mb" "a trace over its budget"
check "no trace, no report kept" bash -c '[ ! -e "$1/t.json" ] && [ ! -e "$1/p.json" ]' _ "$tmp/d"
check "no temporary after the budget error" no_temps "$tmp/d"

# a FIFO is written in place (a rename would have replaced it with a regular file)
mkfifo "$tmp/d/fifo"
cat "$tmp/d/fifo" >"$tmp/fifo.out" &
reader=$!
run predict "$scen" --format json -o "$tmp/d/fifo"
wait $reader
expect_rc 0 "predict -o FIFO"
check "the FIFO is still a FIFO" test -p "$tmp/d/fifo"
check "the report came through the FIFO" grep -q '"step_time_s"' "$tmp/fifo.out"

# a device: /dev/full fails to write (exit 3) and stays a character device
if [ -c /dev/full ]; then
	run predict "$scen" -o /dev/full
	expect_rc 3 "predict -o /dev/full"
	expect_err "cannot write '/dev/full'" "predict -o /dev/full"
	check "/dev/full is still a device" test -c /dev/full
fi

# interrupted: SIGTERM while a long prediction writes -o: the temporary is removed and the target never appears.
# The temporary exists from the start of the run; the test waits for it, then sends the signal (a machine fast
# enough to finish first skips this part).
mkdir "$tmp/i"
"$gpusim" predict bench/405b_16k.yaml --all-ranks --format json -o "$tmp/i/p.json" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do
	[ -n "$(find "$tmp/i" -name '.p.json.*' -print -quit)" ] && break
	sleep 0.02
done
if kill -TERM $pid 2>/dev/null; then
	wait $pid
	rc=$?
	check "SIGTERM ends the run by the signal (status $rc)" test $rc -eq 143
	check "no file and no temporary after SIGTERM" bash -c '[ -z "$(ls -A "$1")" ]' _ "$tmp/i"
else
	wait $pid
	echo "note: the prediction finished before the signal; interruption not exercised"
fi
cli_done
