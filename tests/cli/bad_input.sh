#!/usr/bin/env bash
# bad_input.sh GPUSIM: every class of bad scenario input (docs/scenario.md) makes `gpusim predict` exit 1 with
# nothing on stdout and exactly the expected "gpusim: file:line:col: message" on stderr. Each case writes one
# bad.yaml into a temporary folder and runs predict there, so messages name "bad.yaml".
# Prints "N passed, N failed" and exits nonzero when a case fails.
set -uo pipefail

gpusim=${1:?usage: bad_input.sh GPUSIM}
case $gpusim in /*) ;; *) gpusim=$PWD/$gpusim ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

# A valid scenario; cases edit it. Line numbers in the expectations refer to this layout.
base() {
	cat <<'EOF'
name: tiny
model:
  type: transformer
  layers: 4
  hidden: 64
  heads: 8
  kv_heads: 4
  ffn: gelu
  seq: 128
  vocab: 1000
  dtype: bf16
training:
  global_batch: 16
  micro_batch: 1
parallel:
  gpus: 8
  tp: 2
  pp: 2
  schedule: 1f1b
hardware: h100-dgx
EOF
}

# check NAME EXPECTED_STDERR [PREDICT ARGS...]: bad.yaml must already be written.
check() {
	local name=$1 want=$2
	shift 2
	(cd "$tmp" && "$gpusim" predict bad.yaml "$@" >out 2>err)
	local rc=$?
	local got
	got=$(cat "$tmp/err")
	if [ "$rc" -eq 1 ] && [ ! -s "$tmp/out" ] && [ "$got" = "$want" ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: $name"
		echo "  exit $rc (want 1); stdout bytes: $(wc -c <"$tmp/out")"
		echo "  stderr: $got"
		echo "  want:   $want"
	fi
}

# edit SED_SCRIPT: bad.yaml = base edited by sed
edit() { base | sed -e "$1" >"$tmp/bad.yaml"; }

# the base scenario itself is accepted (otherwise every case below would prove nothing)
base >"$tmp/bad.yaml"
if (cd "$tmp" && "$gpusim" predict bad.yaml >out 2>err); then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
	echo "FAIL: the base scenario is rejected: $(cat "$tmp/err")"
fi

edit '5s/.*/  hidden: [64/'
check "syntax error" \
	"gpusim: bad.yaml:6:8: syntax error: did not find expected ',' or ']' while parsing a flow sequence (started at 5:11)"

edit 's/^  hidden: 64/  hiden: 64/'
check "near-miss key" \
"gpusim: bad.yaml:5:3: unknown key 'hiden' (did you mean 'hidden'?)
gpusim: bad.yaml:3:3: missing required key 'model.hidden'"

edit 's/^  vocab: 1000/  colour: red/'
check "unknown key" \
	"gpusim: bad.yaml:10:3: unknown key 'colour' in model (expected one of: name, type, layers, hidden, heads, kv_heads, ffn, ffn_hidden, seq, doc_tokens, vocab, dtype, flash_attention, causal, rope, norm, attention_kernel, widths, bias, activation, dropout, loss, moe, tie_embeddings)"

edit '/^  layers:/d'
check "missing model.layers" "gpusim: bad.yaml:3:3: missing required key 'model.layers'"

edit '/^  seq:/d'
check "missing model.seq" "gpusim: bad.yaml:3:3: missing required key 'model.seq'"

edit '/^  global_batch:/d'
check "missing training.global_batch" "gpusim: bad.yaml:13:3: missing required key 'training.global_batch'"

edit '/^hardware:/d'
check "missing hardware" "gpusim: bad.yaml:1:1: missing required key 'hardware'"

edit 's/^  layers: 4/  layers: four/'
check "wrong type (string)" "gpusim: bad.yaml:4:11: model.layers: expected an integer, got 'four'"

edit 's/^  heads: 8/  heads: {n: 8}/'
check "wrong type (mapping)" "gpusim: bad.yaml:6:10: model.heads: expected an integer, got a mapping"

edit 's/^  micro_batch: 1/  micro_batch: 0/'
check "non-positive size" "gpusim: bad.yaml:14:16: training.micro_batch: must be positive, got 0"

edit 's/^  dtype: bf16/  dtype: bf61/'
check "unknown enum value" "gpusim: bad.yaml:11:10: model.dtype: unknown value 'bf61' (did you mean 'bf16'?)"

edit 's/^  hidden: 64/  hidden: 64\n  hidden: 128/'
check "duplicate key" "gpusim: bad.yaml:6:3: duplicate key 'hidden' (first at line 5)"

edit 's/^  heads: 8/  heads: 6/; s/^  kv_heads: 4/  kv_heads: 3/; s/^  hidden: 64/  hidden: 66/; s/^  tp: 2/  tp: 4/; s/^  gpus: 8/  gpus: 16/'
check "tp does not divide heads, kv_heads, hidden, ffn_hidden" \
"gpusim: bad.yaml:17:7: parallel.tp (4) does not divide model.heads (6)
gpusim: bad.yaml:17:7: parallel.tp (4) does not divide model.kv_heads (3)
gpusim: bad.yaml:17:7: parallel.tp (4) does not divide model.hidden (66)"

edit 's/^  layers: 4/  layers: 5/'
check "layers not divisible by pp" "gpusim: bad.yaml:4:11: model.layers (5) is not divisible by parallel.pp (2)"

edit 's/^  schedule: 1f1b/  schedule: interleaved\n  virtual_stages: 4/'
check "layers not divisible by pp*virtual_stages" \
	"gpusim: bad.yaml:4:11: model.layers (4) is not divisible by pp*virtual_stages = 2*4 = 8"

edit 's/^  gpus: 8/  gpus: 8\n  dp: 4/'
check "gpus != dp*tp*pp" "gpusim: bad.yaml:16:9: parallel.gpus (8) must equal dp*tp*pp = 4*2*2 = 16"

edit 's/^  gpus: 8/  gpus: 6/'
check "gpus not a multiple of tp*pp" "gpusim: bad.yaml:16:9: parallel.gpus (6) is not a multiple of tp*pp = 2*2 = 4"

edit 's/^  global_batch: 16/  global_batch: 15/'
check "global batch not divisible by dp*micro_batch" \
	"gpusim: bad.yaml:13:17: training.global_batch (15) is not a multiple of dp*micro_batch = 2*1 = 2"

edit 's/^  pp: 2/  pp: 1/; s/^  gpus: 8/  gpus: 4/; s/^  schedule: 1f1b/  schedule: interleaved/'
check "interleaved with pp < 2" "gpusim: bad.yaml:19:13: parallel.schedule: interleaved needs pp >= 2 (pp is 1)"

edit 's/^  global_batch: 16/  global_batch: 6/; s/^  schedule: 1f1b/  schedule: interleaved/'
check "interleaved with micro-batches not a multiple of pp" \
	"gpusim: bad.yaml:19:13: parallel.schedule: interleaved needs the number of micro-batches (3 = global_batch/(dp*micro_batch)) to be a multiple of pp (2)"

edit 's/^  schedule: 1f1b/  schedule: 1f1b\n  virtual_stages: 2/'
check "virtual_stages without interleaved" \
	"gpusim: bad.yaml:20:19: parallel.virtual_stages: only with schedule: interleaved (schedule is 1f1b)"

base >"$tmp/bad.yaml"
check "--gpus not a multiple of tp*pp" "gpusim: --gpus 6 is not a multiple of tp*pp = 2*2 = 4; nearest valid counts: 4, 8" --gpus 6

edit 's/^hardware: h100-dgx/hardware: h100-dxg/'
check "unknown hardware preset" \
	"gpusim: bad.yaml:20:11: unknown hardware preset 'h100-dxg' (did you mean 'h100-dgx'? presets: a100-dgx, b200-hgx, gb200-nvl72, gb300-nvl72, h100-dgx, h100-sxm-94gb, h100-sxm-96gb, h200-sxm, rtx4070ti-super-pcie)"

edit 's/^  schedule: 1f1b/  schedule: zigzag/'
check "unknown schedule" \
	"gpusim: bad.yaml:19:13: parallel.schedule: unknown value 'zigzag' (expected one of: gpipe, 1f1b, interleaved)"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
