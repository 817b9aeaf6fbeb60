#!/usr/bin/env bash
# validate/host_probes.sh: the host-sensitive rows of every lease that kept its host rows, scored with each host
# probe that lease has: the calibration's own (gpusim calibrate's torch probe; after the GPU work and its profiler
# sessions from stop 25 until 2026-11-28 03:33, before them since: docs/validation.md, "CUPTI") and the fresh-process
# probes validate/runner/lease-run.sh takes right before and after the rows (refitted in
# place of the calibration's host rows with validate/what_if.py --host-rows). Rows: those validate/host_split.py
# calls host-sensitive with the lease's own calibration. Prints, per lease and probe, the rows' median |error|, max
# and signed median, of all of them, of the one-GPU rows and of the rest (docs/validation.md, "CUPTI"). The 2 x H100
# lease of 2026-11-28 03:15 has no calibration of its own: h100x2-1128e (another lease's) stands in; nor has the
# 2 x H200 lease of 05:20 (its one-GPU rows only): h200x4-1128a does. Then the run of validate/runner/host-ranks.sh
# (2026-11-28 05:04, 2 x H100, the lease calibrated as h100x2-1128h right after): each probe host_context.py took,
# fresh, inside each row (one process, then on both ranks), at the end, against the steps of every row beside it.
# usage: validate/host_probes.sh [GPUSIM [GPUSIM_REFIT]]   (defaults build/gpusim, build-rel/gpusim: the refit needs
#        a gpusim built with calibrate); run from the repository root; about a minute
set -eu
gpusim=${1:-build/gpusim}
refit=${2:-build-rel/gpusim}
tmp=$(mktemp -d)
tmphw=hardware/.host-probes-$$.yaml   # beside the calibrations: their relative paths resolve as theirs
trap 'rm -rf "$tmp" "$tmphw"' EXIT
score() {  # HW TABLE LABELS...
	local hw=$1 table=$2
	shift 2
	"$gpusim" validate "$table" --hw "$hw" --format csv | python3 -c '
import csv, statistics, sys
want = set(sys.argv[1:])
rows = [r for r in csv.DictReader(sys.stdin) if r["label"] in want and r["rel_error"]]
def stat(sel):
    e = [100 * float(r["rel_error"]) for r in rows if sel(r)]
    a = [abs(x) for x in e]
    return ("%2d rows %5.1f %% / %5.1f %% / %+6.1f %%" % (len(e), statistics.median(a), max(a), statistics.median(e))
            if e else "no rows" + " " * 30)
one = lambda r: r["label"].split("-")[1].startswith("single")
print("%s | one GPU: %s | several: %s" % (stat(lambda r: True), stat(one), stat(lambda r: not one(r))))' "$@"
}
lease() {  # RUN_DIR TABLE CALIBRATION BASE [HOST_DIR: where the host-*.csv are, default RUN_DIR]
	local dir=validate/runs/${5:-$1} table=validate/$2 name=$3 hw=hardware/$3-measured base=$4
	# shellcheck disable=SC2046 # the labels, one word each
	set -- $(python3 validate/host_split.py "$table" "$hw.yaml" "$gpusim" |
		sed -n 's/^host-sensitive rows: //p' | awk '{for (i = 1; i <= NF; i += 2) print $i}')
	printf '%-14s %-28s ' "$name" "own (the calibration's)"
	score "$hw.yaml" "$table" "$@"
	for probe in "$dir"/host-h*0.csv "$dir"/host-h*0-after.csv; do
		python3 validate/what_if.py "$table" "$hw.yaml" --host-rows "$probe" --base "$base" --gpusim "$refit" \
			--keep "$tmp/m.yaml" >/dev/null
		cp "$tmp/m.yaml" "$tmphw"
		printf '%-14s %-28s ' "" "fresh: $(basename "$probe")"
		score "$tmphw" "$table" "$@"
	done
}
context() {  # RUN_DIR CALIBRATION BASE: a host-ranks.sh run, its steps before the probe inside each row
	local dir=validate/runs/$1 name=$2 hw=hardware/$2-measured base=$3 table
	table=$(python3 validate/context_steps.py "$dir" --phase before)
	# shellcheck disable=SC2046 # the labels, one word each
	set -- $(sed -n 's/^[^#][^,]*,[^,]*,\([^,]*\),.*/\1/p' "$table" | grep -v '^label$')
	printf '%-14s %-28s ' "$name" "own (the calibration's)"
	score "$hw.yaml" "$table" "$@"
	for probe in "$dir"/one/host-*.csv "$dir"/two/host-*.csv; do
		python3 validate/what_if.py "$table" "$hw.yaml" --host-rows "$probe" --base "$base" --gpusim "$refit" \
			--keep "$tmp/m.yaml" >/dev/null
		cp "$tmp/m.yaml" "$tmphw"
		printf '%-14s %-28s ' "" "$(basename "$(dirname "$probe")")/$(basename "$probe" .csv)"
		score "$tmphw" "$table" "$@"
	done
}
echo "calibration    host probe                   rows: median |error| / max / signed median: all, then the one-GPU"
echo "                                            rows (run after a profiler session in their process on every lease"
echo "                                            before 2026-11-28 03:33: docs/validation.md, \"CUPTI\") and the rest"
lease 2026-11-27-h100x1 measured-h100x1-1127.csv h100x1-1127 h100-dgx
lease 2026-11-27-h200x2b measured-h200x2-1127b.csv h200x2-1127b h200-sxm
lease 2026-11-27-h200x4-pm measured-h200x4-1127e.csv h200x4-1127e h200-sxm
lease 2026-11-27-h200x2-pm measured-h200x2-1127f.csv h200x2-1127f h200-sxm
lease 2026-11-27-h200x2-eve measured-h200x2-1127g.csv h200x2-1127g h200-sxm
lease 2026-11-27-h200x4-night measured-h200x4-1127i.csv h200x4-1127i h200-sxm
lease 2026-11-27-h100x4-night measured-h100x4-1127j.csv h100x4-1127j h100-dgx
lease 2026-11-27-h200x4-late measured-h200x4-1128a.csv h200x4-1128a h200-sxm
lease 2026-11-27-h200x2-late measured-h200x2-1128b.csv h200x2-1128b h200-sxm
lease 2026-11-28-h100x4 measured-h100x4-1128c.csv h100x4-1128c h100-dgx
lease 2026-11-28-h100x2-pm measured-h100x2-1128f.csv h100x2-1128e h100-dgx
lease 2026-11-28-h100x1-1128g measured-h100x1-1128g.csv h100x1-1128g h100-dgx 2026-11-28-h100x1-1128g/rows
lease 2026-11-28-h200x1-1128i measured-h200x1-1128i.csv h200x1-1128i h200-sxm 2026-11-28-h200x1-1128i/rows
lease 2026-11-28-h200x2-lease measured-h200x2-1128j.csv h200x4-1128a h200-sxm
lease 2026-11-28-h200x4-1128k measured-h200x4-1128k.csv h200x4-1128k h200-sxm 2026-11-28-h200x4-1128k/rows
lease 2026-11-28-h200x2-1128l measured-h200x2-1128l.csv h200x2-1128l h200-sxm 2026-11-28-h200x2-1128l/rows
lease 2026-11-28-h200x2-1128m measured-h200x2-1128m.csv h200x2-1128m h200-sxm 2026-11-28-h200x2-1128m/rows
echo
echo "the probes of validate/runner/host-ranks.sh (host_context.py: fresh, inside each row, at the end; one process,"
echo "then two ranks) against the steps beside them (validate/context_steps.py), the lease's own calibration 1128h"
context 2026-11-28-h100x2-hostranks h100x2-1128h h100-dgx
