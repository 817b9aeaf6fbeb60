#!/usr/bin/env bash
# golden.sh GPUSIM SCENARIO.yaml [PREDICT OPTIONS...]: runs `GPUSIM predict SCENARIO --format json`, drops the one
# nondeterministic key (sim_wall_s, on a line of its own) and compares with the expected JSON of the same stem
# beside the scenario (tests/golden/NAME.yaml -> tests/golden/NAME.json).
# GPUSIM_UPDATE_GOLDEN=1 rewrites the expected file instead; review the diff before committing it. All at once:
#   for f in tests/golden/*.yaml; do GPUSIM_UPDATE_GOLDEN=1 tests/golden.sh build/gpusim "$f"; done
set -euo pipefail

if [ $# -lt 2 ]; then
	echo "usage: golden.sh GPUSIM SCENARIO.yaml [PREDICT OPTIONS...]" >&2
	exit 2
fi
gpusim=$1
scenario=$2
shift 2
expected="${scenario%.yaml}.json"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! "$gpusim" predict "$scenario" --format json "$@" >"$tmp/raw.json" 2>"$tmp/stderr"; then
	echo "golden: gpusim predict $scenario failed:" >&2
	cat "$tmp/stderr" >&2
	exit 1
fi
sed '/^  "sim_wall_s": /d' "$tmp/raw.json" >"$tmp/actual.json"

if [ "${GPUSIM_UPDATE_GOLDEN:-}" = "1" ]; then
	cp "$tmp/actual.json" "$expected"
	echo "golden: wrote $expected"
	exit 0
fi
if [ ! -f "$expected" ]; then
	echo "golden: no expected file $expected (create it with GPUSIM_UPDATE_GOLDEN=1)" >&2
	exit 1
fi
if ! diff -u "$expected" "$tmp/actual.json"; then
	echo "golden: $scenario differs from $expected (GPUSIM_UPDATE_GOLDEN=1 rewrites it after review)" >&2
	exit 1
fi
echo "golden: $scenario matches $expected"
