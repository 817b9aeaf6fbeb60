#!/usr/bin/env bash
# plan.sh GPUSIM: gpusim plan and gpusim advise from the command line, run from the repository root: advise's
# verdict on the PCIe desktop preset (two GPUs slower than one, and why), plan's table, CSV and JSON over two
# hardware models and two GPU counts with the Pareto front, the report folder (with a hardware name made to
# break a gnuplot script: it must reach gnuplot only as data), and usage errors. Prints "N passed, N failed".
set -uo pipefail

gpusim=${1:?usage: plan.sh GPUSIM}
. "$(dirname "$0")/../cli_lib.sh"

# advise: a small MLP trained with DDP on two GeForce cards without P2P
run advise scenarios/mlp_dense_pcie_2gpu.yaml
expect_rc 0 "advise dense MLP on PCIe"
expect_out "trains fastest on one GPU" "advise: one GPU is fastest"
expect_out "Two GPUs are slower than one" "advise: says two GPUs are slower"
expect_out "data-parallel gradient communication" "advise: says why (gradient all-reduce)"
expect_out "stops paying at 2" "advise: where adding GPUs stops paying"
expect_out "^ +2 .*stops paying" "advise: the table marks the count"
# the block MLP: the best 2-GPU layout (a 2-stage pipeline) is barely faster; the verdict says what eats it
run advise scenarios/mlp_pcie_2gpu.yaml
expect_rc 0 "advise MLP on PCIe"
expect_out "Two GPUs are only [0-9.]+x as fast as one" "advise: barely faster, said plainly"
expect_out "barely pays" "advise: the conclusion"
# a small GPT on up to 64 H100s: faster at every count, but the step ends up waiting more than computing
run advise scenarios/gpt_small_2gpu.yaml --hw h100-dgx --max-gpus 64
expect_rc 0 "advise GPT on H100s"
expect_out "Adding GPUs stops paying at [0-9]+: going from [0-9]+ to [0-9]+ GPUs makes the step only" "advise: the waiting point"
expect_out "wait longer than they compute" "advise: says why"
run advise scenarios/mlp_dense_pcie_2gpu.yaml --format json
expect_rc 0 "advise json"
expect_out '"stops_paying_at_gpus": 2' "advise json: stops paying at 2"
expect_out '"best_gpus": 1' "advise json: best on 1"
if command -v python3 >/dev/null; then
	if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/out"; then ok; else fail "advise json parses"; fi
fi
run advise scenarios/mlp_dense_pcie_2gpu.yaml --format csv
expect_out "^gpus,fits,layout,step_time_s" "advise csv header"
expect_out "^2,1," "advise csv row for 2 GPUs"

# the host's drift: a host-bound MLP with a calibration that measured it (host.<mode>.drift_lo, drift_hi) gets the
# step on a host as fast and as slow as its probe rounds, in the verdict, the table, the JSON and plan's summary;
# a model without a range (the rtx4070ti-super-pcie preset: no drift_lo, drift_hi) gets none
run advise scenarios/validate/m01-dp2.yaml --hw hardware/h200x2-1128p-measured.yaml --max-gpus 2
expect_rc 0 "advise with a calibration"
expect_out "Steps the host bounds move with it: on a host as fast and as slow as the model's host range \(x0.70 to x1.55 on its costs\) one GPU takes" "advise: the host drift sentence"
expect_out "a speedup of [0-9.]+x on the fast host and [0-9.]+x on the slow one" "advise: the speedup at both ends"
expect_out "^ +1 .*\(host drift: [0-9.]+ ms to [0-9.]+ ms\)" "advise: the table's drift column"
run advise scenarios/validate/m01-dp2.yaml --hw hardware/h200x2-1128p-measured.yaml --max-gpus 2 --format json
expect_out '"step_lo_s": ' "advise json: step_lo_s"
run advise scenarios/mlp_dense_pcie_2gpu.yaml
if grep -q "host drift\|Steps the host bounds" "$tmp/out"; then fail "advise: no drift without a measured one"; else ok; fi
# one GPU the GPU bounds (no band), four the host bounds at its slow end: the one GPU's step is one figure
run advise scenarios/validate/t01-single.yaml --hw h100-dgx --max-gpus 4
expect_out "one GPU takes [0-9.]+ ms \(the host hardly moves it\), four [0-9.]+ ms to [0-9.]+ ms: a speedup" "advise: a step without a band"
run plan scenarios/validate/m01-dp2.yaml --hw hardware/h200x2-1128p-measured.yaml --gpus 2
expect_rc 0 "plan with a calibration"
expect_out "^  host drift: [0-9.]+ ms to [0-9.]+ ms a step on a host as fast and as slow" "plan: the best's drift"

# plan: two hardware models x two GPU counts, a trillion tokens
run plan scenarios/gpt_small_2gpu.yaml --gpus 2,4 --hw h100-dgx --hw a100-dgx --tokens 1e9 --top 3
expect_rc 0 "plan two models"
expect_out "on 4 GPUs of a100-dgx \(1.5 USD per GPU-hour\)" "plan: option header with the preset's price"
expect_out "best: tp" "plan: best against runner-up"
expect_out "where its step goes: compute" "plan: the best's breakdown"
expect_out "purchase options for 1e\+09 tokens" "plan: the summary of purchase options"
expect_out "^ +1 +\* " "plan: rank 1 is on the Pareto front"
run plan scenarios/gpt_small_2gpu.yaml --gpus 2,4 --hw h100-dgx --hw a100-dgx --tokens 1e9 --top 3 --format csv
expect_rc 0 "plan csv"
# header + 3 layouts for each of 4 options, every line with the header's field count
lines=$(wc -l <"$tmp/out")
if [ "$lines" -eq 13 ]; then ok; else fail "plan csv: $lines lines, expected 13"; fi
if awk -F, 'NR==1{n=NF} NF!=n{exit 1}' "$tmp/out"; then ok; else fail "plan csv: uneven field counts"; fi
run plan scenarios/gpt_small_2gpu.yaml --gpus 2 --format json --price 2 --steps 100 --by cost
expect_rc 0 "plan json"
expect_out '"usd_per_gpu_hour": 2' "plan json: --price"
if command -v python3 >/dev/null; then
	if python3 - "$tmp/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
o = d["options"][0]
t = o["top"][0]
# cost by hand: 100 steps of step_time_s on 2 GPUs at 2 USD per GPU-hour
assert abs(t["usd"] - 100 * t["step_time_s"] / 3600 * 2 * 2) <= 1e-9 * t["usd"], t
assert o["candidates"] == o["simulated"] + sum(v for k, v in o["rejected"].items() if k != "memory_simulated")
PY
	then ok; else fail "plan json: cost by hand and candidate accounting"; fi
fi

# the Pareto front and the ranks by hand from the JSON: an option is on the front when no other trains both
# sooner and for less; --by cost ranks by cost
run plan scenarios/gpt_small_2gpu.yaml --gpus 2,4,8 --hw h100-dgx --hw a100-dgx --tokens 1e9 --top 1 --by cost --format json
expect_rc 0 "plan json, six options"
if command -v python3 >/dev/null; then
	if python3 - "$tmp/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
opts = [o for o in d["options"] if o["top"]]
assert len(opts) == 6
pt = [(o["top"][0]["time_to_train_s"], o["top"][0]["usd"]) for o in opts]
for o, (t, c) in zip(opts, pt):
    dominated = any(t2 <= t and c2 <= c and (t2 < t or c2 < c) for t2, c2 in pt)
    assert o["pareto"] == (not dominated), (o["hardware"], o["gpus"])
by_cost = sorted(opts, key=lambda o: (o["top"][0]["usd"], o["top"][0]["time_to_train_s"]))
assert [o["rank"] for o in by_cost] == list(range(1, 7)), [o["rank"] for o in by_cost]
PY
	then ok; else fail "plan json: Pareto flags or ranks differ from the hand check"; fi
fi

# a calibrated GPU composed into the preset's node (--gpu): the option names the composed model
run plan scenarios/gpt_small_2gpu.yaml --gpus 8 --hw h100-dgx --gpu tests/data/h100x1-measured-v1.yaml --top 1
expect_rc 0 "plan --gpu"
expect_out "on 8 GPUs of h100x1-measured@h100-dgx" "plan --gpu: the composed model"

# nothing fits: a 175B model on 2 GPUs is an answer, not an error
run plan scenarios/gpt3_175b_1024gpu.yaml --gpus 2
expect_rc 0 "plan nothing fits"
expect_out "no layout fits" "plan: says nothing fits"
expect_out "need more memory than the GPU has" "plan: counts the memory drops"

# the report, with a hardware model whose name tries to end a gnuplot string and run a command, and a scenario
# whose name tries to end the script's comment line with a newline
sed "s/^name: .*/name: \"x'\\\\\"; system('touch PWNED') #\"/" hardware/a100-dgx.yaml >"$tmp/evil.yaml"
sed "s/^name: .*/name: \"s\\\\nsystem('touch PWNED')\\\\n#\"/" scenarios/gpt_small_2gpu.yaml >"$tmp/evil_scen.yaml"
if grep -q '^name: "s\\nsystem' "$tmp/evil_scen.yaml"; then ok; else fail "the test's scenario name has no newline escape"; fi
run plan "$tmp/evil_scen.yaml" --gpus 2,4 --hw h100-dgx --hw "$tmp/evil.yaml" --report "$tmp/rep"
expect_rc 0 "plan --report"
if [ -s "$tmp/rep/plan.md" ]; then ok; else fail "plan --report: no plan.md"; fi
if grep -q "Pareto front" "$tmp/rep/plan.md"; then ok; else fail "plan.md: no purchase table"; fi
if [ ! -e PWNED ] && [ ! -e "$tmp/rep/PWNED" ]; then ok; else fail "a hardware or scenario name ran a command"; rm -f PWNED; fi
if grep -q "^system" "$tmp"/rep/*.gp; then fail "a newline in a name started a script line"; else ok; fi
if grep -q "system" "$tmp/rep/cost_vs_time.png.gp"; then fail "a hardware name is in the script"; else ok; fi
if command -v gnuplot >/dev/null; then
	for p in cost_vs_time breakdown efficiency; do
		if [ -s "$tmp/rep/$p.png" ]; then ok; else fail "report: $p.png missing"; fi
	done
fi
run advise scenarios/mlp_dense_pcie_2gpu.yaml --report "$tmp/adv"
expect_rc 0 "advise --report"
if grep -q "Two GPUs are slower than one" "$tmp/adv/plan.md"; then ok; else fail "advise report: no verdict"; fi

# usage
run plan scenarios/gpt_small_2gpu.yaml
expect_rc 2 "plan without --gpus"
expect_err "needs --gpus" "plan: says --gpus is needed"
run plan scenarios/gpt_small_2gpu.yaml --gpus 2 --tokens 1e9 --steps 10
expect_rc 2 "plan --tokens and --steps"
run plan scenarios/gpt_small_2gpu.yaml --gpus 2 --by speed
expect_rc 2 "plan --by speed"
expect_err "rank by time or cost" "plan: --by values"
run plan scenarios/gpt_small_2gpu.yaml --gpus 2 --tokens -5
expect_rc 2 "plan --tokens -5"
run plan --help
expect_rc 0 "plan --help"
expect_out "examples:" "plan --help has examples"
run advise --help
expect_rc 0 "advise --help"

cli_done
