#!/usr/bin/env bash
# basics.sh GPUSIM: the command line's contract, run against the built binary from the repository root:
# help and version, exit codes (0 ok, 1 invalid input, 2 usage, 3 environment), nothing on stdout after an error,
# JSON that parses and has every documented key, CSV shape, -o and --gpus. Prints "N passed, N failed".
set -uo pipefail

gpusim=${1:?usage: basics.sh GPUSIM}
scen=scenarios/70b_64gpu.yaml
. "$(dirname "$0")/../cli_lib.sh"

# help and version
run --help
expect_rc 0 "--help"
for c in predict scale merge plot presets validate calibrate help; do expect_out "^  $c " "--help lists $c"; done
run -h
expect_rc 0 "-h"
run help predict
expect_rc 0 "help predict"
expect_out "--gpus" "help predict"
expect_out "exit status" "help predict"
run predict --help
expect_rc 0 "predict --help"
expect_out "--all-ranks" "predict --help"
run --version
expect_rc 0 "--version"
expect_out '^gpusim [0-9]+\.[0-9]+\.[0-9]+$' "--version"
expect_out '^calibrate: (compiled in \(CUDA[^)]*\)|not compiled in \(no CUDA toolkit at build time\))$' "--version"

# usage errors: exit 2, a message in the one format, nothing on stdout
run
expect_rc 2 "no arguments"
run predcit "$scen"
expect_rc 2 "unknown command"
expect_err "^gpusim: 'predcit' is not a gpusim command \(did you mean 'predict'\?\)$" "unknown command"
expect_no_out "unknown command"
run frobnicate
expect_rc 2 "unknown command, no near miss"
expect_err "^gpusim: 'frobnicate' is not a gpusim command" "unknown command, no near miss"
run --bogus
expect_rc 2 "unknown global option"
run predict
expect_rc 2 "predict with no arguments"
expect_no_out "predict with no arguments"
run predict "$scen" --format bogus
expect_rc 2 "--format bogus"
expect_err "^gpusim: unknown format 'bogus'" "--format bogus"
expect_no_out "--format bogus"
run predict "$scen" --gpuss 8
expect_rc 2 "unknown predict option"
expect_err "did you mean '--gpus'" "unknown predict option"
run predict "$scen" --gpus abc
expect_rc 2 "--gpus abc"
run predict "$scen" --format
expect_rc 2 "--format without a value"
run predict "$scen" "$scen"
expect_rc 2 "two scenario files"

# a job that does not fit: exit 0 with a warning and the single changes that would fit (each simulated;
# tests/data/unfit_8gpu.yaml derives 153.1 and 59.3 GB by hand); --require-fit makes it exit 1
run predict tests/data/unfit_8gpu.yaml
expect_rc 0 "unfit job"
expect_err "^gpusim: warning: does not fit: needs 153.1 GB per GPU, the GPU has 85.5 GB$" "unfit job"
expect_err "^gpusim:     parallel.zero: 1 +59.3 GB per GPU" "unfit job: ZeRO-1 fits"
run predict tests/data/unfit_8gpu.yaml --require-fit
expect_rc 1 "--require-fit"
expect_err "^gpusim: does not fit: needs 153.1 GB per GPU, the GPU has 85.5 GB \(--require-fit\)$" "--require-fit"

# two hardware models: predict refuses and names the command that compares them
run predict "$scen" --hw h100-dgx --hw a100-dgx
expect_rc 2 "predict --hw twice"
expect_err "^gpusim: predict takes one --hw \(got 'h100-dgx' and 'a100-dgx'\); to compare hardware models side by side use 'gpusim scale SCENARIO --gpus N --hw h100-dgx --hw a100-dgx'$" "predict --hw twice"
expect_no_out "predict --hw twice"

# another gpusim file kind where a scenario or a hardware model belongs: the message names the right use
run predict hardware/h100-dgx.yaml
expect_rc 1 "predict a hardware model"
expect_err "^gpusim: 'hardware/h100-dgx.yaml' is a hardware model \(gpusim-hw\), not a scenario \(a job description\): use it with '--hw hardware/h100-dgx.yaml'$" "predict a hardware model"
expect_no_out "predict a hardware model"
run predict "$scen" --hw "$scen"
expect_rc 1 "--hw a scenario"
expect_err "is a scenario \(a job description\), not a hardware model" "--hw a scenario"

# environment errors: exit 3
run predict does/not/exist.yaml
expect_rc 3 "missing scenario"
expect_err "^gpusim: cannot open 'does/not/exist.yaml'" "missing scenario"
expect_no_out "missing scenario"
run predict "$scen" -o "$tmp/no/such/dir/out.json"
expect_rc 3 "-o into a missing directory"
expect_err "^gpusim: cannot open '$tmp/no/such/dir/out.json' for writing" "-o into a missing directory"
if [ -e /dev/full ]; then
	"$gpusim" --help >/dev/full 2>"$tmp/err"
	rc=$?
	: >"$tmp/out"
	expect_rc 3 "--help into a full disk"
	expect_err "^gpusim: cannot write to standard output" "--help into a full disk"
	"$gpusim" predict "$scen" --format csv >/dev/full 2>"$tmp/err"
	rc=$?
	expect_rc 3 "predict into a full disk"
fi

# invalid input: exit 1, file:line:col, nothing on stdout
printf 'name: broken\nmodel: [1, 2\n' >"$tmp/broken.yaml"
run predict "$tmp/broken.yaml"
expect_rc 1 "YAML syntax error"
expect_err "^gpusim: $tmp/broken.yaml:[0-9]+:[0-9]+: " "YAML syntax error"
expect_no_out "YAML syntax error"
run predict "$scen" --hw no-such-preset
expect_rc 1 "unknown hardware preset"
expect_no_out "unknown hardware preset"
run predict "$scen" --gpus 63
expect_rc 1 "--gpus not a multiple of tp*pp"
expect_no_out "--gpus not a multiple of tp*pp"

# the default table
run predict "$scen"
expect_rc 0 "predict (table)"
expect_out "^step time +[0-9.]+ ms$" "predict (table)"

# JSON: parses, has every documented key
run predict "$scen" --format json
expect_rc 0 "predict --format json"
cp "$tmp/out" "$tmp/a.json"
if python3 - "$tmp/a.json" >"$tmp/py" 2>&1 <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
need = {
    "": ["step_time_s", "tokens_per_s", "mfu", "gpus", "parallel", "breakdown_s", "memory_per_gpu_bytes",
         "fits_in_memory", "memory_capacity_bytes", "events", "tasks", "simulated_ranks", "sim_wall_s",
         "scenario", "hardware", "model_flops", "critical_stage", "peak_inflight_microbatches"],
    "parallel": ["dp", "tp", "pp", "micro_batch", "num_microbatches", "schedule", "virtual_stages"],
    "breakdown_s": ["compute", "tp_comm_exposed", "pp_comm_exposed", "dp_comm_exposed", "pipeline_bubble",
                    "optimizer"],
    "memory_per_gpu_bytes": ["weights", "gradients", "optimizer", "activations", "total"],
}
missing = [(p + "." if p else "") + k for p, keys in need.items() for k in keys if k not in (r[p] if p else r)]
if missing:
    sys.exit("missing keys: " + ", ".join(missing))
b = r["breakdown_s"]
total = sum(b.values())
if abs(total - r["step_time_s"]) > 1e-6 * r["step_time_s"]:
    sys.exit("breakdown sums to %r, step_time_s is %r" % (total, r["step_time_s"]))
if r["gpus"] != r["parallel"]["dp"] * r["parallel"]["tp"] * r["parallel"]["pp"]:
    sys.exit("gpus != dp*tp*pp")
PY
then ok; else fail "JSON keys: $(cat "$tmp/py")"; fi

# --gpus re-derives dp
run predict "$scen" --format json --gpus 128
expect_rc 0 "--gpus 128"
if python3 - "$tmp/a.json" "$tmp/out" >"$tmp/py" 2>&1 <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert b["gpus"] == 128, b["gpus"]
assert b["parallel"]["dp"] * b["parallel"]["tp"] * b["parallel"]["pp"] == 128
assert b["parallel"]["tp"] == a["parallel"]["tp"] and b["parallel"]["pp"] == a["parallel"]["pp"]
PY
then ok; else fail "--gpus 128: $(cat "$tmp/py")"; fi

# -o writes the same report to a file and nothing to stdout
run predict "$scen" --format json -o "$tmp/o.json"
expect_rc 0 "-o FILE"
expect_no_out "-o FILE"
if [ -f "$tmp/o.json" ] && [ ! -e "$tmp/o.json.tmp" ] &&
	diff <(sed '/"sim_wall_s"/d' "$tmp/a.json") <(sed '/"sim_wall_s"/d' "$tmp/o.json") >/dev/null; then
	ok
else
	fail "-o FILE: file missing or different from stdout"
fi

# CSV: a header and one data line with the same number of fields
run predict "$scen" --format csv
expect_rc 0 "--format csv"
if [ "$(wc -l <"$tmp/out")" -eq 2 ] && head -1 "$tmp/out" | grep -q 'breakdown_s.compute' &&
	[ "$(head -1 "$tmp/out" | tr -cd , | wc -c)" -eq "$(tail -1 "$tmp/out" | tr -cd , | wc -c)" ]; then
	ok
else
	fail "--format csv: not a header and one matching data line"
fi

# presets
run presets
expect_rc 0 "presets"
expect_out "^h100-dgx " "presets"
run presets show h100-dgx
expect_rc 0 "presets show"
expect_out "^schema: gpusim-hw/1" "presets show"
run presets show h100-dgz
expect_rc 1 "presets show unknown"
expect_err "did you mean 'h100-dgx'" "presets show unknown"

cli_done
