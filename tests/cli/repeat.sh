#!/usr/bin/env bash
# repeat.sh GPUSIM: a stage's repeated op lists are stored once and replayed (sim/program.c, program_repeat_*),
# except with --trace, which stores every instruction with its ops. So every shipped scenario and golden must give
# the same report with and without --trace, all but the simulator's own figures (sim_wall_s, events). A builder
# change that replays the wrong instructions (e.g. an op list on the stack, whose address other lists reuse,
# given to program_repeat_*) shows here as a different step time. Run from the repository root.
set -uo pipefail

gpusim=${1:?usage: repeat.sh GPUSIM}
. "$(dirname "$0")/../cli_lib.sh"

strip() { grep -v '"sim_wall_s"\|"events"' "$1"; }
for f in scenarios/*.yaml tests/golden/*.yaml; do
	if ! "$gpusim" predict "$f" --format json >"$tmp/a.json" 2>/dev/null ||
		! "$gpusim" predict "$f" --format json --trace "$tmp/t.json" >"$tmp/b.json" 2>/dev/null; then
		fail "$f: predict failed"
	elif cmp -s <(strip "$tmp/a.json") <(strip "$tmp/b.json"); then
		ok
	else
		fail "$f: the report differs with --trace: $(diff <(strip "$tmp/a.json") <(strip "$tmp/b.json") | head -4)"
	fi
done

cli_done
