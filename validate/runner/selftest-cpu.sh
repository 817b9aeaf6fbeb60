#!/usr/bin/env bash
# Self-test of validate/runner/torch_step.py without GPUs: runs every row on the CPU (gloo, fp32, toy sizes) with 1
# process and with 2, 4 and 8 processes on the loopback interface, and checks that data, tensor and pipeline
# parallel and their mixes (dp-tp, tp-pp, dp-pp, dp-tp-pp) give the same gradient checksum as one process; then
# runs the timing path once per world size (CSV and progress file). Needs PyTorch for the CPU (any version from
# 1.13: Debian's python3-torch does). Not part of CI.
# usage: validate/runner/selftest-cpu.sh [PYTHON]
# env:   RANKS  world sizes to check (default "2 4 8"; the rows of each size are those of configs.py)
set -euo pipefail
py=${1:-python3}
here=$(cd "$(dirname "$0")" && pwd)
ranks=${RANKS:-2 4 8}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1   # up to 8 processes share a few cores

launch() {  # launch N ARGS...: N ranks of torch_step.py with the given arguments (torchrun is not needed)
	local n=$1 port=$((29500 + RANDOM % 2000)) pids=() rc=0 r
	shift
	for ((r = 0; r < n; r++)); do
		MASTER_ADDR=127.0.0.1 MASTER_PORT=$port WORLD_SIZE=$n RANK=$r LOCAL_RANK=$r \
			"$py" "$here/torch_step.py" --cpu --tiny "$@" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p" || rc=$?; done
	return $rc
}

"$py" "$here/torch_step.py" --cpu --tiny --check >"$tmp/one.txt"
outs=()
for n in $ranks; do
	launch "$n" --check >"$tmp/w$n.txt"
	outs+=("$tmp/w$n.txt")
done
"$py" - "$tmp/one.txt" "${outs[@]}" <<'PY'
import sys
def read(p):
    return {l.split()[1]: float(l.split()[2]) for l in open(p) if l.startswith("CHECK ")}
one = read(sys.argv[1])
bad = n = 0
for path in sys.argv[2:]:
    for label, v in sorted(read(path).items()):
        base = one.get(label.split("-")[0] + "-single")
        n += 1
        if base is None or abs(v - base) > 1e-4 * abs(base):
            bad += 1
            print("MISMATCH %-22s %.9e vs single %s" % (label, v, base))
print("%d passed, %d failed" % (n - bad, bad))
sys.exit(1 if bad or n == 0 else 0)
PY
# every row of the checked world sizes gave a checksum (a row that failed on every rank prints none)
want=$(cd "$here" && "$py" -c 'import sys, configs; w = set(map(int, sys.argv[1:]))
print(sum(1 for r in configs.select("all") if r["gpus"] in w))' $ranks)
got=$(cat "${outs[@]}" | grep -c '^CHECK ' || true)
if [ "$got" != "$want" ]; then
	echo "checksums for $got rows of $ranks processes, expected $want"
	exit 1
fi

# timing path: a few steps per world size, one CSV and one progress file per phase
sel=t01,t05,m01,t07,m02
"$py" "$here/torch_step.py" --cpu --tiny --warmup 1 --iters 2 --rows $sel --out "$tmp/m.csv" \
	--progress "$tmp/p1" --probe >"$tmp/probe.txt"
# --probe runs its host probe (a torch.profiler session on a GPU) after the rows, never before them: a session
# leaves CUPTI attached and slows the host-bound rows timed after it (docs/validation.md, "A profiler session left
# CUPTI attached")
"$py" - "$tmp/probe.txt" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
probe = [i for i, l in enumerate(lines) if l.startswith("host probe")]
rows = [i for i, l in enumerate(lines) if " median " in l]
if len(probe) != 1 or not rows or probe[0] < max(rows):
    sys.exit("--probe: expected one host probe line after every row's, got probe at %s, rows at %s" % (probe, rows))
PY
for n in $ranks; do
	launch "$n" --warmup 1 --iters 2 --rows $sel --out "$tmp/m.csv" --progress "$tmp/p$n" >/dev/null
done
cat "$tmp/m.csv"
want=$(cd "$here" && "$py" -c 'import sys, configs; w = set(map(int, sys.argv[2:])) | {1}
print(1 + len([r for r in configs.select(sys.argv[1]) if r["gpus"] in w]))' $sel $ranks)
test "$(wc -l <"$tmp/m.csv")" -eq "$want"
