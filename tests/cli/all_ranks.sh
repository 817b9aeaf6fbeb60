#!/usr/bin/env bash
# all_ranks.sh GPUSIM: --all-ranks simulates every GPU, each collective waiting for all its members; the default
# one rank per stage stands for them (docs/simulation.md, Symmetry). So every shipped scenario, every golden and the
# published rows that mix collectives of one group on two streams at once (FP8 amax all-reduces and ZeRO gathers,
# MoE all-to-all and DP buckets) must run with --all-ranks and give the default's report, all but the figures of
# the simulator's own work (sim_wall_s, events, tasks, simulated_ranks). Both cases once crashed or deadlocked:
# the engine counted a group's arrivals across streams. Run from the repository root.
set -uo pipefail

gpusim=${1:?usage: all_ranks.sh GPUSIM}
. "$(dirname "$0")/../cli_lib.sh"

strip() { grep -v '"sim_wall_s"\|"events"\|"tasks"\|"simulated_ranks"' "$1"; }
for f in scenarios/*.yaml tests/golden/*.yaml scenarios/published/r725-llama2-13b.yaml \
	scenarios/published/r705-gpt3-175b.yaml; do
	if ! "$gpusim" predict "$f" --format json >"$tmp/a.json" 2>/dev/null; then
		fail "$f: predict failed"
	elif ! "$gpusim" predict "$f" --format json --all-ranks >"$tmp/b.json" 2>"$tmp/err"; then
		fail "$f: predict --all-ranks failed: $(tail -c 200 "$tmp/err")"
	elif cmp -s <(strip "$tmp/a.json") <(strip "$tmp/b.json"); then
		ok
	else
		fail "$f: the report differs with --all-ranks: $(diff <(strip "$tmp/a.json") <(strip "$tmp/b.json") | head -4)"
	fi
done
cli_done
