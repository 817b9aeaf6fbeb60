#!/usr/bin/env bash
# Self-test of validate/torch_step.py without GPUs: runs every row on the CPU (gloo, fp32, toy sizes) with 1
# and 2 processes on the loopback interface and checks that data, tensor and pipeline parallel give the same
# gradient checksum as one process, then runs the timing path once. Needs PyTorch for the CPU (any version
# from 1.13: Debian's python3-torch does). Not part of CI.
# usage: validate/selftest-cpu.sh [PYTHON]
set -euo pipefail
py=${1:-python3}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

launch2() {  # two ranks of torch_step.py with the given arguments (torchrun is not needed)
	local port=$((29500 + RANDOM % 2000)) pids=() rc=0
	for r in 0 1; do
		MASTER_ADDR=127.0.0.1 MASTER_PORT=$port WORLD_SIZE=2 RANK=$r LOCAL_RANK=$r \
			"$py" "$here/torch_step.py" --cpu --tiny "$@" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p" || rc=$?; done
	return $rc
}

"$py" "$here/torch_step.py" --cpu --tiny --check >"$tmp/one.txt"
launch2 --check >"$tmp/two.txt"
"$py" - "$tmp/one.txt" "$tmp/two.txt" <<'PY'
import sys
def read(p):
    return {l.split()[1]: float(l.split()[2]) for l in open(p) if l.startswith("CHECK ")}
one, two = read(sys.argv[1]), read(sys.argv[2])
bad = n = 0
for label, v in sorted(two.items()):
    base = one.get(label.split("-")[0] + "-single")
    n += 1
    if base is None or abs(v - base) > 1e-4 * abs(base):
        bad += 1
        print("MISMATCH %-16s %.9e vs single %s" % (label, v, base))
print("%d passed, %d failed" % (n - bad, bad))
sys.exit(1 if bad or n == 0 else 0)
PY
# timing path: a few steps, CSV and progress file
"$py" "$here/torch_step.py" --cpu --tiny --warmup 1 --iters 2 --rows t01,t05,m01 --out "$tmp/m.csv" \
	--progress "$tmp/p1" >/dev/null
launch2 --warmup 1 --iters 2 --rows t01,t05,m01 --out "$tmp/m.csv" --progress "$tmp/p2" >/dev/null
cat "$tmp/m.csv"
test "$(wc -l <"$tmp/m.csv")" -eq 9
