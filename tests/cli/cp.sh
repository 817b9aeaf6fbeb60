#!/usr/bin/env bash
# cp.sh GPUSIM: context parallelism and TP-communication overlap from the command line (issue 13 items 2 and 4):
# the report names cp in the layout, --gpus re-derives dp over tp*pp*cp, scale divides by it too, the rule
# errors land at their keys, --trace-ranks names the GPUs a CP job traces, and a trace has the side stream's track.
# Prints "N passed, N failed".
set -uo pipefail

gpusim=${1:?usage: cp.sh GPUSIM}
. "$(dirname "$0")/../cli_lib.sh"

cat >"$tmp/cp.yaml" <<YAML
name: cp-small
model: {layers: 2, hidden: 256, heads: 4, seq: 1024, vocab: 1000, flash_attention: true}
training: {global_batch: 8, micro_batch: 1}
parallel: {tp: 2, sp: true, tp_comm_overlap: true, cp: 2, gpus: 8}
hardware: h100-dgx
YAML
run predict "$tmp/cp.yaml"
expect_rc 0 "predict a CP + TP-overlap scenario"
expect_out "8 \(dp 2 x tp 2 x pp 1 x cp 2\)" "the layout line names cp"
run predict "$tmp/cp.yaml" --gpus 16
expect_out "16 \(dp 4 x tp 2 x pp 1 x cp 2\)" "--gpus re-derives dp over tp*pp*cp"
run predict "$tmp/cp.yaml" --gpus 6
expect_rc 1 "--gpus not a multiple of tp*pp*cp"
expect_err "--gpus 6 is not a multiple of tp\*pp\*cp = 2\*1\*2 = 4" "names tp*pp*cp"
run scale "$tmp/cp.yaml" --gpus 8,16
expect_rc 0 "scale a CP scenario"
expect_out "dp = GPUs / \(tp\*pp\*cp\)" "scale's header names cp"
expect_out " 8 +2 x 2 x 1 " "scale: dp 2 at 8 GPUs"
run predict "$tmp/cp.yaml" --trace "$tmp/t.json" --trace-ranks 5
expect_rc 2 "a traced GPU beyond the simulated ones"
expect_err "with context parallelism \(cp 2\) the timeline holds one CP rank of each replica, GPUs 0-3" \
	"--trace-ranks names the simulated GPUs"
run predict "$tmp/cp.yaml" --trace "$tmp/t.json"
expect_rc 0 "trace a CP scenario"
if grep -q '"tp/cp overlap"' "$tmp/t.json" && grep -q '"cp_kv_send"' "$tmp/t.json"; then ok; else
	fail "the trace lacks the side stream's track or the K/V ring"; fi

sed 's/seq: 1024/seq: 1002/' "$tmp/cp.yaml" >"$tmp/bad.yaml"
run predict "$tmp/bad.yaml"
expect_rc 1 "seq not a multiple of 2*cp"
expect_err "bad.yaml:4:[0-9]+: parallel.cp: model.seq \(1002\) must be a multiple of 2\*cp = 4" "the error at parallel.cp"
sed 's/sp: true, //' "$tmp/cp.yaml" >"$tmp/bad.yaml"
run predict "$tmp/bad.yaml"
expect_rc 1 "TP overlap without SP"
expect_err "parallel.tp_comm_overlap: .*it needs sp: true" "the error names sp"
cli_done
