#!/usr/bin/env bash
# injection.sh GPUSIM: text from files and the command line never runs as gnuplot script (issue 16). A scenario
# name, a hardware name, a --title and an image name that each try to start a gnuplot `system(...)` command (a line
# break, a backquote, a quote) go through predict --trace + plot timeline, and scale + plot of every kind; the test
# asserts that no marker file appears (with a real gnuplot, which CI installs) and that no script line starts a
# command of its own. Prints "N passed, N failed".
set -uo pipefail

gpusim=${1:?usage: injection.sh GPUSIM}
. "$(dirname "$0")/../cli_lib.sh"
check() {  # check DESCRIPTION COMMAND...: passes when the command succeeds
	local what=$1
	shift
	if "$@" >"$tmp/check" 2>&1; then ok; else fail "$what: $(head -c 400 "$tmp/check")"; fi
}

# gnuplot runs in the image's folder ($tmp): a marker touched there by a relative name means a command ran
mark=pw
# the name holds a line break, then a gnuplot command; the hardware model's name a quote and a backquote
cat >"$tmp/evil.yaml" <<YAML
name: "x\nsystem('touch $mark-name')\n# "
model: {layers: 4, hidden: 256, heads: 4, seq: 128, vocab: 1000}
training: {global_batch: 8, micro_batch: 1}
parallel: {tp: 1, pp: 2, gpus: 2}
hardware: $tmp/evil-hw.yaml
YAML
"$gpusim" presets show h100-dgx >"$tmp/evil-hw.yaml"
sed -i "s|^name: .*|name: \"h'\`touch $mark-bq\`'\\\\nsystem('touch $mark-hw')\"|" "$tmp/evil-hw.yaml"

run predict "$tmp/evil.yaml" --trace "$tmp/t.json"
expect_rc 0 "predict a scenario with a hostile name"
run scale "$tmp/evil.yaml" --gpus 2,4 --hw "$tmp/evil-hw.yaml" --hw h100-dgx --format json -o "$tmp/s.json"
expect_rc 0 "scale with hostile names"

title="t
system('touch $mark-title')"
gp=(--no-render)
command -v gnuplot >/dev/null 2>&1 && gp=()
run plot timeline "$tmp/t.json" -o "$tmp/tl.png" --ranks all --title "$title" "${gp[@]}"
expect_rc 0 "plot timeline"
for kind in efficiency throughput breakdown compare; do
	run plot $kind "$tmp/s.json" -o "$tmp/$kind.png" "${gp[@]}"
	expect_rc 0 "plot $kind"
done
run plot efficiency "$tmp/s.json" -o "$tmp/e.png" --title "$title" "${gp[@]}"
expect_rc 0 "plot with a hostile --title"
# the image's name is written into the script: one with a quote, a backquote or a line break is refused
for odd in "a'b'')system('touch $mark-file')#.png" "a\`touch $mark-file\`.png" "a
system('touch $mark-file').png"; do
	run plot breakdown "$tmp/s.json" -o "$tmp/$odd"
	expect_rc 2 "plot to a file name that could escape: $odd"
	expect_err "its name hold no quote, backquote or line break" "plot to $odd"
done
# a folder with a quote is fine: only the file's name reaches the script
mkdir -p "$tmp/it's"
run plot breakdown "$tmp/s.json" -o "$tmp/it's/b.png" "${gp[@]}"
expect_rc 0 "plot into a folder with a quote"

for f in "$mark-name" "$mark-bq" "$mark-hw" "$mark-title" "$mark-file"; do
	check "no command ran ($f)" test ! -e "$tmp/$f"
done
# structurally: no script line is a command of gpusim's text (every line starts with a known keyword, a comment,
# or continues a plot command)
for s in "$tmp"/*.gp; do
	check "$(basename "$s"): no line runs system()" bash -c '! grep -nE "^[[:space:]]*system" "$1"' _ "$s"
done
# the name still reaches the title, as text: the line break made a space, the quotes doubled
check "the name reaches the title as text" grep -qF "set title 'Scaling efficiency: x system(''touch pw-name'') # , " \
	"$tmp/efficiency.png.gp"
check "the --title too" grep -qF "set title 't system(''touch pw-title'')'" "$tmp/tl.png.gp"
cli_done
