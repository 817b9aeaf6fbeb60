#!/usr/bin/env bash
# scale.sh GPUSIM: gpusim scale, merge and plot from the command line, run from the repository root: the table,
# CSV and JSON content, infeasible rows, shards that merge into the bytes of the whole sweep, the merge's
# refusals, and real gnuplot runs for every plot kind and terminal (CI installs gnuplot-nox; elsewhere the
# gnuplot part is skipped when gnuplot is missing). Prints "N passed, N failed".
set -uo pipefail

gpusim=${1:?usage: scale.sh GPUSIM}
. "$(dirname "$0")/../cli_lib.sh"
check() {  # check DESCRIPTION COMMAND...: passes when the command succeeds
	local what=$1
	shift
	if "$@" >"$tmp/check" 2>&1; then ok; else fail "$what: $(head -c 400 "$tmp/check")"; fi
}

scen=scenarios/70b_64gpu.yaml   # tp 8 x pp 4: 32 GPUs per replica
small=scenarios/gpt_small_2gpu.yaml

# usage
run scale --help
expect_rc 0 "scale --help"
expect_out "--shard I/N" "scale --help"
run scale "$scen"
expect_rc 2 "scale without --gpus"
expect_err "scale needs --gpus" "scale without --gpus"
run scale "$scen" --gpus 64,128,...,1000
expect_rc 2 "unreachable end"
expect_err "1000 is not reached by multiplying 128 by 2" "unreachable end"
run scale "$scen" --gpus 64 --shard 3/2
expect_rc 2 "shard out of range"
run scale "$scen" --gpus 64 --shard 1/2 --format table
expect_rc 2 "a sharded table"
run scale "$scen" --gpus 64 --mdoe weak
expect_err "did you mean '--mode'" "misspelt option"
run scale "$scen" --gpus 64 --hw no-such-preset
expect_rc 1 "unknown preset"

# --progress: each row on stderr as it finishes (3 GPUs: dp 3 does not split the batch of 64 into 8s)
run scale "$small" --gpus 1,2,3 --progress
expect_rc 0 "--progress"
expect_err "^gpusim: scale: row 1 of 3: h100-dgx, 1 GPUs: step [0-9.]+ ms \([0-9.]+ s so far\)$" "--progress row 1"
expect_err "^gpusim: scale: row 3 of 3: h100-dgx, 3 GPUs: infeasible \(training.global_batch \(64\) is not a multiple of dp\*micro_batch = 3\*8 = 24\)$" "--progress infeasible row"

# the table: 48 and 96 are not multiples of tp*pp = 32, and 1024 over dp 32 leaves 1024/32 = 32 sequences
run scale "$scen" --gpus 32,48,64,96,128
expect_rc 0 "scale table"
expect_out "^h100-dgx +48 infeasible: 48 GPUs is not a multiple of tp\*pp = 8\*4 = 32$" "infeasible row"
expect_out "^h100-dgx +32 +1 x 8 x 4 +1024 .* 1\.00 +100\.0 %" "base row"
expect_out "strong scaling \(global batch kept\)" "mode line"

# CSV: header, one line per row, speedup = step-time ratio in strong scaling
run scale "$scen" --gpus 32,48,64 --hw h100-dgx --hw a100-dgx --format csv
expect_rc 0 "scale csv"
cp "$tmp/out" "$tmp/whole.csv"
check "csv: 7 lines" test "$(wc -l <"$tmp/whole.csv")" -eq 7
check "csv header" grep -q '^sweep,scenario,mode,rows_total,row,hardware,gpus,dp,tp,pp,global_batch,micro_batch,feasible,reason,' "$tmp/whole.csv"
check "csv rows" python3 - "$tmp/whole.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["row"] for r in rows] == ["0", "1", "2", "3", "4", "5"], rows
assert [r["hardware"] for r in rows] == ["h100-dgx"] * 3 + ["a100-dgx"] * 3
assert rows[1]["feasible"] == "false" and rows[1]["step_time_s"] == "" and "not a multiple" in rows[1]["reason"]
for base, r in ((rows[0], rows[2]), (rows[3], rows[5])):
    sp = float(base["step_time_s"]) / float(r["step_time_s"])
    assert abs(float(r["speedup"]) - sp) < 1e-12 * sp, (r["speedup"], sp)
    assert abs(float(r["scaling_efficiency"]) - sp / 2) < 1e-12, r["scaling_efficiency"]
    assert r["global_batch"] == base["global_batch"] == "1024"
parts = ["compute", "tp_comm_exposed", "pp_comm_exposed", "dp_comm_exposed", "pipeline_bubble", "optimizer", "host_wait"]
for r in rows:
    if r["feasible"] == "true":
        total = sum(float(r["breakdown_s." + p]) for p in parts)
        assert abs(total - float(r["step_time_s"])) < 1e-9 * total, (total, r["step_time_s"])
PY

# JSON: parses, has the sweep's fields and every row; weak scaling grows the global batch with dp
run scale "$scen" --gpus 32,64,128 --mode weak --format json
expect_rc 0 "scale json"
check "json content" python3 - "$tmp/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["mode"] == "weak" and d["rows_total"] == 3 and d["shard"] == 1 and d["shards"] == 1, d
assert [r["global_batch"] for r in d["rows"]] == [512, 1024, 2048], d["rows"]   # 1024 / dp 2 = 512 per replica
assert all(r["feasible"] and "reason" not in r for r in d["rows"])
assert set(d["rows"][0]["breakdown_s"]) == {"compute", "tp_comm_exposed", "pp_comm_exposed", "dp_comm_exposed",
                                             "pipeline_bubble", "optimizer", "host_wait"}
PY

# shards: three slices, merged in any order and format mix, give the whole sweep's bytes
for i in 1 2 3; do
	run scale "$scen" --gpus 32,48,64 --hw h100-dgx --hw a100-dgx --shard $i/3 -o "$tmp/part$i.csv"
	expect_rc 0 "shard $i/3"
done
run scale "$scen" --gpus 32,48,64 --hw h100-dgx --hw a100-dgx --shard 2/3 --format json -o "$tmp/part2.json"
expect_rc 0 "shard 2/3 json"
check "shard 2 has rows 1 and 4" test "$(cut -d, -f5 "$tmp/part2.csv" | tr '\n' ' ')" = "row 1 4 "
run merge "$tmp/part3.csv" "$tmp/part1.csv" "$tmp/part2.json" --format csv -o "$tmp/merged.csv"
expect_rc 0 "merge"
check "merged csv == whole csv" cmp "$tmp/merged.csv" "$tmp/whole.csv"
run scale "$scen" --gpus 32,48,64 --hw h100-dgx --hw a100-dgx --format json -o "$tmp/whole.json"
run merge "$tmp/part1.csv" "$tmp/part2.csv" "$tmp/part3.csv" --format json -o "$tmp/merged.json"
check "merged json == whole json" cmp "$tmp/merged.json" "$tmp/whole.json"
run merge "$tmp/part1.csv" "$tmp/part3.csv"
expect_rc 1 "merge with a shard missing"
expect_err "2 of the sweep's 6 rows are in none of the files: rows 1, 4" "merge with a shard missing"
run merge "$tmp/part1.csv" "$tmp/part1.csv" "$tmp/part2.csv" "$tmp/part3.csv"
expect_rc 1 "merge with a shard twice"
run scale "$scen" --gpus 32,48,64 --shard 1/3 -o "$tmp/other.csv"
run merge "$tmp/other.csv" "$tmp/part2.csv"
expect_rc 1 "merge of two sweeps"
expect_err "come from different sweeps" "merge of two sweeps"
printf 'row,hardware\n0,x\n' >"$tmp/bad.csv"
run merge "$tmp/bad.csv"
expect_rc 1 "merge of a foreign csv"
expect_err "bad.csv:1: no column 'sweep'" "merge of a foreign csv"
run merge "$tmp/nonexistent.csv"
expect_rc 3 "merge of a missing file"

# plots
run scale "$small" --gpus 1,2,4 --hw h100-dgx --hw rtx4070ti-super-pcie --format csv -o "$tmp/small.csv"
expect_rc 0 "small sweep"
run plot scatter "$tmp/small.csv" -o "$tmp/x.png"
expect_rc 2 "unknown plot kind"
run plot efficiency "$tmp/small.csv" -o "$tmp/x.jpg"
expect_rc 2 "unknown image type"
run plot efficiency "$tmp/small.csv"
expect_rc 2 "plot without -o"
run scale "$small" --gpus 1,2 --format csv -o "$tmp/one.csv"
run plot compare "$tmp/one.csv" -o "$tmp/c.png"
expect_rc 1 "compare of one model"
expect_err "compare needs a sweep of exactly two hardware models" "compare of one model"

# without gnuplot: script and data are written, exit 3 with the way out
mkdir -p "$tmp/nognu"
GPUSIM_GNUPLOT=/nonexistent/gnuplot "$gpusim" plot efficiency "$tmp/small.csv" -o "$tmp/nognu/e.png" \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
expect_rc 3 "plot without gnuplot"
expect_err "gnuplot is not installed .*gnuplot-nox.*run 'gnuplot e.png.gp' in $tmp/nognu" "plot without gnuplot"
check "script written without gnuplot" grep -q "set output 'e.png'" "$tmp/nognu/e.png.gp"
check "data written without gnuplot" grep -q '^# hardware rtx4070ti-super-pcie' "$tmp/nognu/e.png.dat"
check "no image without gnuplot" test ! -e "$tmp/nognu/e.png"
GPUSIM_GNUPLOT=false "$gpusim" plot efficiency "$tmp/small.csv" -o "$tmp/nognu/f.png" >"$tmp/out" 2>"$tmp/err"
rc=$?
expect_rc 1 "gnuplot that fails"
expect_err "gnuplot failed on '$tmp/nognu/f.png.gp' \(exit status 1" "gnuplot that fails"
run plot efficiency "$tmp/small.csv" -o "$tmp/nognu/g.png" --no-render
expect_rc 0 "--no-render"
check "--no-render writes the script" test -s "$tmp/nognu/g.png.gp"
run plot efficiency "$tmp/small.csv" -o "$tmp/nognu/g.svg" --no-render
check "the svg gets a script of its own" grep -q "set output 'g.svg'" "$tmp/nognu/g.svg.gp"
check "the png's script stays" grep -q "set output 'g.png'" "$tmp/nognu/g.png.gp"

if command -v gnuplot >/dev/null 2>&1; then
	magic() {  # magic FILE PREFIX: the file starts with PREFIX
		[ "$(head -c ${#2} "$1")" = "$2" ]
	}
	for kind in efficiency throughput breakdown compare; do
		run plot $kind "$tmp/small.csv" -o "$tmp/$kind.png"
		expect_rc 0 "plot $kind (png)"
		check "$kind.png is a PNG" magic "$tmp/$kind.png" $'\x89PNG'
		check "$kind.png.gp next to it" test -s "$tmp/$kind.png.gp"
		check "$kind.png.dat next to it" test -s "$tmp/$kind.png.dat"
		# the script runs as is, from its folder, as its header says
		check "$kind.png.gp reruns" bash -c "cd '$tmp' && rm -f '$kind.png' && gnuplot '$kind.png.gp' && test -s '$kind.png'"
	done
	# a step's timeline from its trace
	run predict tests/golden/tp4_pp2_dp2_interleaved.yaml --trace "$tmp/step.json"
	expect_rc 0 "predict --trace"
	run plot timeline "$tmp/step.json" -o "$tmp/step.png" --ranks all
	expect_rc 0 "plot timeline"
	check "step.png is a PNG" magic "$tmp/step.png" $'\x89PNG'
	check "timeline rows" grep -q '^5.5 "stage 1  compute"$' "$tmp/step.png.dat"
	run plot timeline "$tmp/step.json" -o "$tmp/crit.png" --window 10:
	expect_rc 0 "plot timeline, default stage, a window"
	check "one stage by default" bash -c "! grep -q 'stage 1  compute' '$tmp/crit.png.dat'"
	check "the window in the title" grep -q ", 10 ms to " "$tmp/crit.png.gp"
	run plot timeline "$tmp/step.json" -o "$tmp/w.png" --window 5:2
	expect_rc 2 "an empty window"
	expect_err "--window needs FROM:TO in ms with 0 <= FROM < TO" "an empty window"
	run plot efficiency "$tmp/small.csv" -o "$tmp/w.png" --ranks all
	expect_rc 2 "--ranks on a sweep plot"
	run plot timeline "$tmp/small.csv" -o "$tmp/nt.png"
	expect_rc 1 "plot timeline of a sweep"
	expect_err "small.csv' is a sweep table \(gpusim scale or merge\), not a timeline trace \(gpusim predict --trace\): plot it with 'gpusim plot efficiency\|throughput\|breakdown\|compare .*small.csv -o FILE.png'$" "plot timeline of a sweep"
	run plot efficiency "$tmp/step.json" -o "$tmp/ne.png"
	expect_rc 1 "plot efficiency of a trace"
	expect_err "step.json' is a timeline trace \(gpusim predict --trace\), not a sweep table \(gpusim scale or merge\): plot it with 'gpusim plot timeline .*step.json -o FILE.png', or open it in Perfetto$" "plot efficiency of a trace"
	"$gpusim" predict scenarios/gpt_small_2gpu.yaml -o "$tmp/report.txt" 2>/dev/null
	run plot timeline "$tmp/report.txt" -o "$tmp/nr.png"
	expect_rc 1 "plot timeline of a predict report"
	expect_err "report.txt' is one prediction \(gpusim predict\), not a timeline trace" "plot timeline of a predict report"
	run merge "$tmp/step.json"
	expect_rc 1 "merge a trace"
	expect_err "is a timeline trace" "merge a trace"
	run plot breakdown "$tmp/small.csv" -o "$tmp/b.svg"
	expect_rc 0 "plot svg"
	check "b.svg is SVG" grep -q '<svg' "$tmp/b.svg"
	run plot compare "$tmp/small.csv" -o "$tmp/c.pdf" --title "NVLink vs PCIe"
	expect_rc 0 "plot pdf"
	check "c.pdf is a PDF" magic "$tmp/c.pdf" '%PDF'
	check "--title reaches the script" grep -q "set title 'NVLink vs PCIe'" "$tmp/c.pdf.gp"
elif [ "${CI:-}" = "true" ]; then
	fail "gnuplot is not installed, but CI must run it (scripts/deps installs gnuplot-nox)"
else
	echo "gnuplot not installed: skipping the real plot runs"
fi

cli_done
