#!/usr/bin/env bash
# tests/cli/validate.sh GPUSIM: `gpusim validate` end to end on checked-in data, and that the generated
# validation scenarios are current with their generators (validate/gen_*.py --check).
set -u
gpusim=$1
pass=0 fail=0
check() {  # check NAME EXPECTED_RC CMD...
	local name=$1 want=$2
	shift 2
	"$@" >/tmp/gpusim-validate-test.out 2>&1
	local rc=$?
	if [ "$rc" = "$want" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL $name: exit $rc, expected $want"
		tail -5 /tmp/gpusim-validate-test.out
	fi
}
# Megatron SC'21 rows on the a100-dgx preset: runs, scores every row, and the threshold flag decides the exit
check "megatron scores" 0 "$gpusim" validate validate/megatron-sc21.csv
cp /tmp/gpusim-validate-test.out /tmp/gpusim-validate-megatron.out
check "megatron rows" 0 grep -q "22 rows predicted" /tmp/gpusim-validate-megatron.out
check "threshold exceeded" 1 "$gpusim" validate validate/megatron-sc21.csv --max-median-error 1
check "json output" 0 sh -c "'$gpusim' validate validate/megatron-sc21.csv --format json | python3 -m json.tool"
# the host drift band: a fresh lease's table (1128q) with a calibration of another lease that measured its host's
# drift (1128p): 20 host-bound rows get a band, 18 measurements inside (docs/validation.md, stop 36)
check "host drift band" 0 sh -c "'$gpusim' validate validate/measured-h200x2-1128q.csv --hw hardware/h200x2-1128p-measured.yaml | grep -q 'host drift: 20 rows with a band (the host bounds them), the measurement inside it for 18'"
check "host decides the side of 1" 0 sh -c "'$gpusim' validate validate/measured-h200x2-1128q.csv --hw hardware/h200x2-1128p-measured.yaml | grep -q 'decided by the host.s drift (fast and slow host differ): 3 rows, 2 of them on the wrong side'"
check "host drift csv" 0 sh -c "'$gpusim' validate validate/measured-h200x2-1128q.csv --hw hardware/h200x2-1128p-measured.yaml --format csv | head -1 | grep -q ',band_lo,band_hi$'"
check "missing file" 3 "$gpusim" validate /nonexistent.csv
check "usage" 2 "$gpusim" validate
# the published runs (issue 13): every expressible row predicts (their errors are docs/validation.md's, not a gate)
check "published step rows" 0 "$gpusim" validate validate/published-step.csv
check "published TFLOP/s rows" 0 "$gpusim" validate validate/published-tflops.csv
# the H200 reference rows score with the measured hardware model they name
check "h200 rows" 0 "$gpusim" validate validate/measured-h200x2.csv
# every shipped scenario predicts, the 4- and 8-GPU validation rows (issue 6, not yet measured) included
bad=""
for f in scenarios/*.yaml scenarios/validate/*.yaml scenarios/megatron/*.yaml scenarios/published/*.yaml; do
	"$gpusim" predict "$f" --format csv >/dev/null 2>/tmp/gpusim-validate-test.err || bad="$bad $f"
done
check "every shipped scenario predicts:${bad:- all}" 0 test -z "$bad"
# validate/host_split.py: the two groups partition the table's 82 rows; with a threshold no row can pass (a step
# 1e9 times slower with its host than without) every row is GPU-bound
if command -v python3 >/dev/null; then
	check "host_split runs" 0 python3 validate/host_split.py validate/measured-h200x4.csv h200-sxm "$gpusim"
	cp /tmp/gpusim-validate-test.out /tmp/gpusim-validate-split.out
	check "host_split partitions" 0 python3 -c "import re,sys; t=open('/tmp/gpusim-validate-split.out').read(); \
n=[int(re.search(r'^'+g+r' +(\d+) rows', t, re.M).group(1)) for g in ('GPU-bound','host-sensitive','all')]; \
sys.exit(not (n[0] + n[1] == n[2] == 82 and n[1] > 0))"
	check "host_split threshold" 0 sh -c "python3 validate/host_split.py validate/measured-h200x4.csv h200-sxm \
'$gpusim' 1e9 | grep -Eq '^host-sensitive +0 rows'"
fi
# validate/op_classes.py: the classes partition the model's ops (they sum to the sum line) on a checked-in profile
if command -v python3 >/dev/null; then
	check "op_classes runs" 0 python3 validate/op_classes.py scenarios/validate/t07-single.yaml h200-sxm \
		validate/runs/2026-11-27-h200x4/kernels.csv t07-single "$gpusim"
	cp /tmp/gpusim-validate-test.out /tmp/gpusim-validate-classes.out
	check "op_classes partitions" 0 python3 -c "import sys; r={l.split()[0]: [float(x) for x in l.split()[1:]] \
for l in open('/tmp/gpusim-validate-classes.out').read().splitlines()[1:]}; \
sys.exit(not all(abs(sum(v[i] for k, v in r.items() if k != 'sum') - r['sum'][i]) < 0.35 for i in (0, 1)))"
fi
if command -v python3 >/dev/null && [ -e ../shared/reference/megatron-sc21.csv ]; then
	check "gen_scenarios current" 0 python3 validate/gen_scenarios.py --check
	check "gen_megatron current" 0 python3 validate/gen_megatron.py --check
fi
if command -v python3 >/dev/null && [ -e ../shared/reference/published-runs.csv ]; then
	check "gen_published current" 0 python3 validate/gen_published.py --ref ../shared/reference/published-runs.csv --check
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
