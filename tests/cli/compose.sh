#!/usr/bin/env bash
# compose.sh GPUSIM: "calibrate here, predict the cluster" (issue 12) with the calibrations kept in the repository:
# --gpu puts a measured GPU into a preset's node and network, the report says what came from where, a calibrated
# model asked for more GPUs than its node holds warns with the fix, and a based file round-trips through
# `presets show`. Prints "N passed, N failed".
set -uo pipefail

gpusim=${1:?usage: compose.sh GPUSIM}
scen=scenarios/70b_64gpu.yaml
. "$(dirname "$0")/../cli_lib.sh"

num() {  # num KEY FILE: the first JSON number of KEY in FILE
	sed -n "s/^ *\"$1\": \\([-0-9.eE+]*\\),\$/\\1/p" "$2" | head -1
}

# The 1x H100 calibration inside the h100-dgx preset's node and network (70b_64gpu: dp 2 x tp 8 x pp 4).
# Derivation of the expected step: composing changes only the GPU's own terms (GEMM, attention, memory-bound
# kernels, launch: the "compute" of the breakdown), which are the measured GPU's, i.e. exactly the compute that
# the calibration alone predicts (C_m; its network is wrong, its GPU is not); communication, bubble and node are
# the preset's. So the step should be the preset's step S_p with its compute C_p scaled by the measured/preset
# rate ratio C_m/C_p: E = S_p - C_p + C_m. With today's models S_p = 66.916 s, C_p = 53.586 s, C_m = 56.072 s:
# E = 69.402 s; composed 69.265 s (-0.2 %, the bubble and exposed DP traffic move a little with the compute).
run predict "$scen" --hw h100-dgx --format json
expect_rc 0 "preset"
cp "$tmp/out" "$tmp/preset.json"
run predict "$scen" --hw tests/data/h100x1-measured-v1.yaml --format json
expect_rc 0 "calibration alone"
expect_err "^gpusim: warning: 'h100x1-measured' is a calibration of 1 GPU; 64 GPUs become 64 such nodes .*--hw PRESET --gpu tests/data/h100x1-measured-v1.yaml" "guard rail warning"
[ "$(grep -c . "$tmp/err")" = 1 ] && ok || fail "the guard rail is one line"
expect_out '"node_network": "the measuring host \(tests/data/h100x1-measured-v1.yaml\): nodes of 1"' "origin: the host"
# One GPU measures no interference between a GEMM and a collective (its file keeps 0); composed, the job gets
# the node's pair, the preset's (0 today: validate/preset_overlap.py). C_m is therefore the calibration's compute
# with that pair: equal to the composed compute but for the interference, which follows the collectives beside the
# compute (the DGX's NVSwitch and network against nodes of 1): within 0.1 %.
run presets show h100-dgx
cs=$(sed -n 's/^  compute_slowdown: \([0-9.]*\).*/\1/p' "$tmp/out")
ms=$(sed -n 's/^  comm_slowdown: \([0-9.]*\).*/\1/p' "$tmp/out")
[ -n "$cs" ] && [ -n "$ms" ] && ok || fail "presets show h100-dgx: an overlap pair"
sed -e "s/^  compute_slowdown: 0\$/  compute_slowdown: $cs/" -e "s/^  comm_slowdown: 0\$/  comm_slowdown: $ms/" \
	tests/data/h100x1-measured-v1.yaml >"$tmp/alone-pair.yaml"
run predict "$scen" --hw "$tmp/alone-pair.yaml" --format json
expect_rc 0 "calibration alone with the preset's overlap pair"
cp "$tmp/out" "$tmp/alone.json"
run predict "$scen" --hw h100-dgx --gpu tests/data/h100x1-measured-v1.yaml --format json
expect_rc 0 "composed"
[ -s "$tmp/err" ] && fail "composed: no warning expected: $(cat "$tmp/err")" || ok
expect_out '"hardware": "h100x1-measured@h100-dgx"' "composed name"
expect_out '"gpu": "measured \(tests/data/h100x1-measured-v1.yaml\)"' "origin gpu"
expect_out '"node_network": "preset h100-dgx \(node of 8, network\)"' "origin node"
expect_out '"intra_node_collectives": "preset h100-dgx \(none measured\)"' "origin collectives"
cp "$tmp/out" "$tmp/composed.json"
verdict=$(awk -v sp="$(num step_time_s "$tmp/preset.json")" -v cp="$(num compute "$tmp/preset.json")" \
	-v cm="$(num compute "$tmp/alone.json")" -v s="$(num step_time_s "$tmp/composed.json")" \
	-v c="$(num compute "$tmp/composed.json")" 'BEGIN {
	e = sp - cp + cm; d = (s - e) / e; if (d < 0) d = -d
	dc = (c - cm) / cm; if (dc < 0) dc = -dc
	printf "%s %s expected %.3f got %.3f", (d < 0.05 ? "ok" : "bad"), (dc < 1e-3 ? "ok" : "bad"), e, s }')
case $verdict in
"ok ok "*) ok ;;
*) fail "composed step within 5 % of S_p - C_p + C_m and compute within 0.1 % of the calibration's: $verdict" ;;
esac
run predict "$scen" --hw h100-dgx --gpu tests/data/h100x1-measured-v1.yaml
expect_out "^  gpu from       measured \(tests/data/h100x1-measured-v1.yaml\)" "table: origin"
run predict "$scen" --hw h100-dgx --gpu tests/data/h100x1-measured-v1.yaml --target-gpu h200-sxm
expect_rc 0 "--target-gpu"
expect_out "^  assumed        GPU rates carried from NVIDIA H100 80GB HBM3 to" "--target-gpu: the assumption"
run predict "$scen" --target-gpu h200-sxm
expect_rc 2 "--target-gpu without --gpu"
run predict "$scen" --hw h100-dgx --gpu tests/data/h100x1-measured-v1.yaml --target-gpu h200-sxn
expect_rc 1 "--target-gpu unknown"
expect_err "unknown hardware preset 'h200-sxn' \(did you mean 'h200-sxm'" "--target-gpu unknown"

# presets show names the origin of each part in comments
run presets show tests/data/h100x1-measured-v1.yaml
expect_out "^# origin: gpu measured \(tests/data/h100x1-measured-v1.yaml\)$" "presets show: origin of the gpu"
expect_out "^# origin: node and network the measuring host" "presets show: origin of the node"

# scale and validate take --gpu too
run scale "$scen" --gpus 64,128 --hw h100-dgx --gpu tests/data/h100x1-measured-v1.yaml --format csv
expect_rc 0 "scale --gpu"
expect_out "h100x1-measured@h100-dgx" "scale --gpu"

# base: a file that overrides a preset, shown merged, and the shown text loads to the same prediction
cat >"$tmp/four.yaml" <<'YAML'
schema: gpusim-hw/1
name: h200-node4
base: h200-sxm
node:
  gpus: 4
YAML
run presets show "$tmp/four.yaml"
expect_rc 0 "presets show FILE"
expect_out "^  gpus: 4$" "presets show: merged node"
expect_out "^    bf16: 989" "presets show: the base's peaks"
cp "$tmp/out" "$tmp/shown.yaml"
# (origin's lines name the file each part came from, so they differ: not compared)
run predict "$scen" --hw "$tmp/four.yaml" --format json
grep -Ev 'sim_wall_s|"(gpu|intra_node_collectives|node_network)": ' "$tmp/out" >"$tmp/a.json"
run predict "$scen" --hw "$tmp/shown.yaml" --format json
grep -Ev 'sim_wall_s|"(gpu|intra_node_collectives|node_network)": ' "$tmp/out" >"$tmp/b.json"
cmp -s "$tmp/a.json" "$tmp/b.json" && ok || fail "a based file and its presets show predict the same"
# a hand-written file based on a calibration is a plain merge (the hand-edited node of 4), not a composition
cat >"$tmp/hand4.yaml" <<YAML
schema: gpusim-hw/1
name: h200x2-node4
base: $PWD/hardware/h200x2-measured.yaml
node:
  gpus: 4
YAML
run presets show "$tmp/hand4.yaml"
expect_rc 0 "based on a calibration"
expect_out "^  gpus: 4$" "based on a calibration: its own node"
expect_out "^  fabric: nvswitch$" "based on a calibration: the calibration's fabric"

# gpu.power.gpu_rates (the every-GPU hold of a calibration on 2+ GPUs): a job runs at its slowest GPU's pace. A copy
# of the 4 x H100 calibration with GPU 1 at 0.95: one GPU (the calibrated one) predicts as without the key, two and
# four GPUs slower but by at most 1/0.95 (pure compute at the cap: exactly 1/0.95; slack moves both towards the
# maximum clock, where the chips are alike), rates of 1 change nothing, and a composed cluster keeps them.
cal=hardware/h100x4-1127j-measured.yaml
sed 's/^    idle: 0.169$/&\n    gpu_rates: [1, 0.95, 1, 1]/' "$cal" >"$tmp/slow.yaml"
sed 's/^    idle: 0.169$/&\n    gpu_rates: [1, 1, 1, 1]/' "$cal" >"$tmp/same.yaml"
grep -q "gpu_rates: \[1, 0.95" "$tmp/slow.yaml" && ok || fail "gpu_rates: the test's copy has the key"
step() {  # step SCENARIO HW: the predicted step time (s)
	"$gpusim" predict "$1" --hw "$2" --format json 2>/dev/null | sed -n 's/^ *"step_time_s": \([-0-9.eE+]*\),$/\1/p'
}
for r in t07-single t07-dp2 t07-dp4 t14-tp4; do
	sc=scenarios/validate/$r.yaml
	a=$(step "$sc" "$cal") b=$(step "$sc" "$tmp/slow.yaml") c=$(step "$sc" "$tmp/same.yaml")
	[ -n "$a" ] && [ "$a" = "$c" ] && ok || fail "$r: rates of 1 change nothing ($a, $c)"
	if [ "$r" = t07-single ]; then
		[ "$a" = "$b" ] && ok || fail "$r: one GPU runs on the calibrated one ($a, $b)"
	else
		awk -v a="$a" -v b="$b" 'BEGIN { exit !(b > a && b <= a / 0.95 * (1 + 1e-9)) }' && ok ||
			fail "$r: the slowest GPU slows the step by at most 1/0.95 ($a -> $b)"
	fi
done
run predict scenarios/validate/t07-dp2.yaml --hw "$tmp/slow.yaml"
expect_out "^slowest gpu +its sustained rate x0.950 of the calibrated GPU's \(gpu.power.gpu_rates\)$" "slowest gpu line"
run predict scenarios/validate/t07-single.yaml --hw "$tmp/slow.yaml"
expect_no_out_re() { grep -qE "$1" "$tmp/out" && fail "$2" || ok; }
expect_no_out_re "^slowest gpu" "no slowest gpu line for one GPU"
run predict "$scen" --hw h100-dgx --gpu "$tmp/slow.yaml"
expect_out "^slowest gpu +its sustained rate x0.950" "a composed cluster keeps the rates"

# every preset: a file with only 'base: PRESET' shows merged, the shown text shows again the same (after the
# comment lines), and predicts the preset's step
for p in $("$gpusim" presets | awk 'NR > 1 {print $1}'); do
	printf 'schema: gpusim-hw/1\nname: %s\nbase: %s\n' "$p" "$p" >"$tmp/p.yaml"
	"$gpusim" presets show "$tmp/p.yaml" >"$tmp/s1.yaml" && "$gpusim" presets show "$tmp/s1.yaml" >"$tmp/s2.yaml"
	cmp -s <(sed -n "/^schema:/,\$p" "$tmp/s1.yaml") <(sed -n "/^schema:/,\$p" "$tmp/s2.yaml") && ok || fail "$p: presets show round trip"
	# (not the lines that name where the parts came from: the preset, or the shown file)
	a=$("$gpusim" predict "$scen" --hw "$p" --format json 2>/dev/null | grep -Ev 'sim_wall_s|"hardware"|"(gpu|intra_node_collectives|node_network)": ')
	b=$("$gpusim" predict "$scen" --hw "$tmp/s1.yaml" --format json 2>/dev/null | grep -Ev 'sim_wall_s|"hardware"|"(gpu|intra_node_collectives|node_network)": ')
	[ "$a" = "$b" ] && ok || fail "$p: the shown model predicts as the preset"
done

# host.<mode>.rank_spread (hardware/h100x2-1128h-measured.yaml: 0.0697): a job of 2 GPUs pays its host at the
# slowest of 2 processes, 1 + 0.0697 / sqrt(pi) = 1.039; one GPU has none; --gpu carries it into a preset's node
run predict scenarios/validate/t04-dp2.yaml --hw hardware/h100x2-1128h-measured.yaml --format json
expect_rc 0 "rank spread: 2 GPUs"
expect_out '"host": "x1.039: the slowest of 2 processes \(rank_spread 7.0 % of host speed\)"' "origin.host, 2 GPUs"
run predict scenarios/validate/t04-single.yaml --hw hardware/h100x2-1128h-measured.yaml --format json
expect_out '"host": ""' "origin.host, one GPU"
run predict "$scen" --hw h100-dgx --gpu hardware/h100x2-1128h-measured.yaml
expect_out "^  host           x1.163: the slowest of 64 processes" "table: origin host, composed, 64 GPUs"

# --host MODEL: a calibration's GPU with another model's host costs. One GPU, so the host's work is the sum of
# the host model's costs over the op list alone: with the preset's host it is the preset's own host work, to
# the last digit, whatever GPU runs the step; the range is the host model's (the preset's x0.66 to x1.69 band)
t05=scenarios/validate/t05-single.yaml
run predict "$t05" --hw h200-sxm --format json
host_preset=$(num host_issue_s "$tmp/out")
run predict "$t05" --hw hardware/h200x2-1128p-measured.yaml --host h200-sxm --format json
expect_rc 0 "predict --host PRESET"
[ -n "$host_preset" ] && [ "$(num host_issue_s "$tmp/out")" = "$host_preset" ] && ok ||
	fail "--host h200-sxm: the preset's host work ($host_preset), got $(num host_issue_s "$tmp/out")"
expect_out '"assumptions": "host costs from h200-sxm"' "--host: origin says where the host came from"
expect_out '"factor_hi": 1.688' "--host: the host model's range"
run predict "$t05" --hw hardware/h200x2-1128p-measured.yaml --format json
[ "$(num host_issue_s "$tmp/out")" != "$host_preset" ] && ok || fail "without --host: the calibration's own host"
run predict "$t05" --host tests/data/h100x1-measured-v1.yaml
expect_rc 1 "--host of a model without a host section"
expect_err "^gpusim: --host tests/data/h100x1-measured-v1.yaml: 'h100x1-measured' has no host section" "--host: says why"
run predict "$t05" --host "$t05"
expect_rc 1 "--host of a scenario"
run predict "$t05" --hw hardware/h200x2-1128p-measured.yaml --host h200-sxm --format json
step=$(num step_time_s "$tmp/out")
run validate validate/measured-h200x1-1128x.csv --hw hardware/h200x2-1128p-measured.yaml --host h200-sxm --format csv
expect_rc 0 "validate --host"
got=$(grep '^t05-single,' "$tmp/out" | cut -d, -f5)
awk -v a="$step" -v b="$got" 'BEGIN { d = a - b; exit !(a > 0 && d < 1e-9 && d > -1e-9) }' && ok ||
	fail "validate --host: t05-single as predict --host gives it ($step), got $got"
# a sweep's id names its --host (a shard of one sweep never merges with a shard of another)
run scale "$t05" --gpus 1 --format csv
id1=$(sed -n 2p "$tmp/out" | cut -d, -f1)
run scale "$t05" --gpus 1 --host h200-sxm --format csv
id2=$(sed -n 2p "$tmp/out" | cut -d, -f1)
[ -n "$id1" ] && [ "$id1" != "$id2" ] && ok || fail "scale --host: another sweep id ($id1, $id2)"
run plan "$t05" --gpus 1 --hw hardware/h200x2-1128p-measured.yaml --host h200-sxm --format json
expect_rc 0 "plan --host"
cli_done
