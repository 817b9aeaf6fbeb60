#!/usr/bin/env bash
# replay.sh FUZZ_REPLAY: runs every fuzz target's function over its saved regression inputs
# (tests/fuzz/regressions/TARGET/: the inputs that once crashed, hung or printed nonsense) and its seed corpus
# (the repository's own scenarios, hardware models, tables and traces), in the normal build. A crash or a
# sanitizer report fails it. The same functions are what scripts/fuzz runs under libFuzzer.
set -uo pipefail
replay=${1:?usage: replay.sh FUZZ_REPLAY}
cd "$(dirname "$0")/../.."
R=tests/fuzz/regressions
S=tests/fuzz/seeds
status=0
run() {  # run TARGET FILE...
	local t=$1
	shift
	"$replay" "$t" "$@" 2>/dev/null || { echo "FAIL: fuzz_replay $t"; status=1; }
}
shopt -s nullglob
run scenario $R/scenario/* scenarios/*.yaml scenarios/*/*.yaml tests/golden/*.yaml
run hardware $R/hardware/* hardware/*.yaml
run json $R/json/* $S/json/* $S/merge/*.json
run csv $R/csv/* $S/merge/*.csv validate/*.csv
run merge $R/merge/* $S/merge/*
exit $status
