#!/usr/bin/env bash
# validate/runner/node-run.sh: issue 6 on one host of N GPUs (4 or 8; 2 is the dry run), in stages that fit 10-minute
# device calls:
#   build  gpusim with CUDA, as calibrate/device-run.sh builds it (libyaml and GSL unpacked from .debs/ into
#          /opt/deps, NCCL from the system or PyTorch's wheel), into build-dev/; skipped when it is up to date
#   cal2   gpusim calibrate --gpus 2 -> <gpu>x<N>-from2.yaml (+ raw CSVs): the model of this host from 2 of its
#          GPUs (calibrate writes node.gpus = the host's N, meta.gpus = 2; docs/calibration.md)
#   caln   gpusim calibrate on all N GPUs -> <gpu>x<N>-measured.yaml (+ raw CSVs); with N = 2 the two
#          calibrations coincide, and this refits cal2's raw CSVs (gpusim calibrate --refit) instead of measuring
#   run    validate/runner/device-run.sh for the rows of 3..N GPUs and their 1-GPU baselines (N <= 2: the 2-GPU rows
#          of the same configs) -> measured-<gpu>x<N>.csv and validate-runner.log
#   score  gpusim validate of that CSV with --hw of each model, the full one and the 2-GPU one:
#          score-<model>.{txt,csv,json}, and the median and max |error| per model in summary.txt, for the rows of
#          more than 2 GPUs (issue 6's targets: full model median <= 5 %, 2-GPU model <= 10 %), per GPU count
#          and over all rows. The 2-GPU model prices groups of 4 and 8 with the collective lines fitted on 2 GPUs
#          that apply to any group size (fit*_any_n); that is the extrapolation being scored.
#
# usage: validate/runner/node-run.sh [OUTDIR]     OUTDIR defaults to $OUT, else ./node-out
# env:   STAGES      comma list of build, cal2, caln, calibrate (= cal2,caln), run, score, all (default all)
#        GPUS        GPUs to use (default: all that nvidia-smi lists)
#        NODE_BUDGET_S  wall-clock budget of this call in seconds (default 560); each stage gets what is left,
#                    the run stage keeps 40 s back for score when both are asked for
#        NODE_STATE  folder that keeps everything between calls (default build-node/ in the repository, git-
#                    ignored; the CSV must sit one level below the repository root for its scenario paths)
#        ROWS        rows for the run stage instead of the default above (labels or config ids)
#        CAL_QUICK=1 both calibrations with --quick (seconds; a dry run of the pipeline, not a model to commit)
#        CAL_BOTH=1  with N = 2, measure the second calibration too instead of refitting the first
#        GPUSIM      the gpusim binary for score instead of building build-dev/gpusim (to score on a machine
#                    without GPUs: STAGES=score GPUSIM=build/gpusim TAG=h200x8 validate/runner/node-run.sh DIR)
#        TAG         the file names' <gpu>x<N> (default from nvidia-smi, else from the one *-measured.yaml
#                    in the state folder)
# Files in OUTDIR (the device returns at most 8): summary.txt, log.txt, <gpu>x<N>-measured.yaml,
# <gpu>x<N>-from2.yaml, measured-<gpu>x<N>.csv, score.txt and results.tar.gz (the whole state folder: raw CSVs,
# logs, score CSV/JSON; unpack it into build-node/ to go on from another machine).
# NVLink multicast stays off on shared machines: NCCL_NVLS_ENABLE=0 is forced below.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
root=$PWD
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1
[ -d /usr/local/cuda/bin ] && export PATH=/usr/local/cuda/bin:$PATH

out=${1:-${OUT:-$root/node-out}}
state=${NODE_STATE:-$root/build-node}
mkdir -p "$out" "$state"
out=$(cd "$out" && pwd)
state=$(cd "$state" && pwd)
log=$state/log.txt
summary=$state/summary.txt
deadline=$((SECONDS + ${NODE_BUDGET_S:-560}))
stages=,${STAGES:-all},
stages=${stages//,all,/,build,cal2,caln,run,score,}
stages=${stages//,calibrate,/,cal2,caln,}
want() { [[ $stages == *",$1,"* ]]; }
say() { echo "$*" | tee -a "$summary"; }
step() { echo "=== $* ($(date -u +%H:%M:%S), $((deadline - SECONDS)) s left)" | tee -a "$log"; }
left() { echo $((deadline - SECONDS - ${1:-0})); }

ngpu=${GPUS:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | tr '[:upper:]' '[:lower:]' |
	sed 's/^nvidia //; s/[^a-z0-9].*//')
tag=${TAG:-}
if [ -z "$tag" ] && [ -n "$gpu" ]; then
	tag=${gpu}x$ngpu
elif [ -z "$tag" ]; then  # no GPU here (scoring elsewhere): the state folder's model says which host it was
	tag=$(cd "$state" && ls ./*-measured.yaml 2>/dev/null | sed 's|^\./||; s/-measured\.yaml$//' | head -1)
	tag=${tag:-cpux0}
fi
from2=$state/$tag-from2.yaml
full=$state/$tag-measured.yaml
csvname=measured-$tag.csv
echo "# validate/runner/node-run.sh $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname): stages ${stages:1:-1}, $ngpu GPU(s)," \
	"files $tag-*" | tee -a "$summary" >>"$log"
{
	nvidia-smi --query-gpu=index,name,memory.total,clocks.max.sm,power.limit,driver_version --format=csv
	nvidia-smi topo -m
} >>"$log" 2>&1
deps=/opt/deps   # libyaml and GSL from .debs/, as calibrate/device-run.sh unpacks them
[ -d $deps/usr/lib/x86_64-linux-gnu ] &&
	export LD_LIBRARY_PATH=$deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# ---- build (also on demand for the stages that need gpusim)
gpusim=${GPUSIM:-$root/build-dev/gpusim}
cal=()   # the calibrate command: gpusim calibrate, or the calibrate-only binary
built=0
build() {
	[ "$built" = 1 ] && return 0
	built=1
	step "build"
	local build=$root/build-dev jobs rc
	jobs=$(nproc)
	if [ -d .debs ] && [ ! -e $deps/.from-debs ]; then
		for f in .debs/*.deb; do dpkg -x "$f" $deps; done
		touch $deps/.from-debs
		export LD_LIBRARY_PATH=$deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	fi
	local extra=("-DCMAKE_PREFIX_PATH=$deps/usr" "-DCMAKE_LIBRARY_PATH=$deps/usr/lib/x86_64-linux-gnu"
		"-DGSL_ROOT_DIR=$deps/usr")
	if [ ! -e /usr/include/nccl.h ] && [ ! -e /usr/local/cuda/include/nccl.h ]; then
		local ncclroot
		ncclroot=$(python3 -c 'import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__))' 2>/dev/null)
		[ -n "$ncclroot" ] && extra+=(-DNCCL_ROOT="$ncclroot") && export LD_LIBRARY_PATH=$ncclroot/lib:$LD_LIBRARY_PATH
	fi
	[ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release "${extra[@]}" >>"$log" 2>&1
	cmake --build "$build" -j "$jobs" >>"$log" 2>&1
	rc=$?
	if [ -x "$build/gpusim" ] && "$build/gpusim" --version | grep -q "compiled in (CUDA)"; then
		cal=("$build/gpusim" calibrate)
	else
		cmake --build "$build" -j "$jobs" --target gpusim-calibrate >>"$log" 2>&1
		[ -x "$build/calibrate/gpusim-calibrate" ] && cal=("$build/calibrate/gpusim-calibrate")
	fi
	say "build: exit $rc, calibrate: ${cal[*]:-none}, gpusim: $([ -x "$gpusim" ] && echo "$gpusim" || echo none)"
}
want build && build

# ---- calibrations
base=()
[ -f hardware/h200-sxm.yaml ] && base=(--base hardware/h200-sxm.yaml)
quick=()
[ "${CAL_QUICK:-0}" = 1 ] && quick=(--quick)
calibrate() {  # calibrate NAME TIMEOUT ARGS...: one gpusim calibrate run, its log and the lines that matter
	local name=$1 t=$2 rc
	shift 2
	if [ "$t" -lt 30 ]; then
		say "calibrate $name: out of time budget ($t s left), not run"
		return 1
	fi
	( time timeout -k 10 "$t" "${cal[@]}" "${quick[@]}" -v "$@" "${base[@]}" ) >"$state/calibrate-$name.txt" 2>&1
	rc=$?
	say "calibrate $name ($*): exit $rc"
	grep -E "^calibrate: (fit [a-z]+ all_reduce|intra|overlap|phases|wrote)|^gpusim:|^real" \
		"$state/calibrate-$name.txt" | grep -v " B$" | tee -a "$summary"
	return $rc
}
if want cal2 || want caln; then
	build
	if [ ${#cal[@]} -eq 0 ]; then
		say "no gpusim with calibrate compiled in: calibrations not run"
	elif [ "$ngpu" -lt 2 ]; then
		say "$ngpu GPU(s): calibrations of 2 and more GPUs not run"
	else
		if want cal2; then
			step "calibrate --gpus 2"
			calibrate from2 "$(left 20)" --gpus 2 -o "$from2" --raw "$state/raw-from2"
		fi
		if want caln; then
			step "calibrate on all $ngpu GPUs"
			if [ "$ngpu" -eq 2 ] && [ "${CAL_BOTH:-0}" != 1 ] && [ -d "$state/raw-from2" ]; then
				# one host of 2: the same measurement; refit its raw CSVs under the full model's name
				"${cal[@]}" --refit "$state/raw-from2" -o "$full" "${base[@]}" >"$state/calibrate-measured.txt" 2>&1
				say "calibrate measured: 2 GPUs, the same as from2: refit of raw-from2, exit $?"
				rm -rf "$state/raw-measured"
				cp -r "$state/raw-from2" "$state/raw-measured"
			else
				calibrate measured "$(left 20)" -o "$full" --raw "$state/raw-measured"
			fi
		fi
	fi
fi

# ---- reference runner
if want run; then
	step "reference runner"
	rows=${ROWS:-}
	if [ -z "$rows" ]; then
		if [ "$ngpu" -gt 2 ]; then
			rows=$(python3 validate/runner/configs.py --labels "3-$ngpu")
		else  # the dry run: the 2-GPU rows of the configs that have 4- and 8-GPU rows
			rows=$(python3 validate/runner/configs.py --labels 2 --rows "$(python3 validate/runner/configs.py --ids 3-8)")
		fi
	fi
	keep=0
	want score && keep=40
	say "runner: $(echo "$rows" | tr ',' '\n' | grep -c .) rows on up to $ngpu GPUs, budget $(left $keep) s"
	VALIDATE_BUDGET_S=$(left $keep) CSV_NAME=$csvname GPUS=$ngpu ROWS=$rows bash validate/runner/device-run.sh "$state" \
		2>&1 | tee -a "$log"
	grep -E "^# (only|[a-z0-9]+: (out of|fail|exited))" "$state/validate-runner.log" | tee -a "$summary"
	say "runner: $(grep -c '^\.\./' "$state/$csvname" 2>/dev/null || echo 0) rows measured -> $csvname"
fi

# ---- scores
if want score; then
	step "score"
	[ -n "${GPUSIM:-}" ] || build   # also sets what gpusim needs to load when the build is already there
	csv=$state/$csvname
	if [ ! -x "$gpusim" ]; then
		say "score: no gpusim binary ($gpusim): set GPUSIM, or score on another machine with STAGES=score"
	elif [ ! -s "$csv" ]; then
		say "score: no measured CSV ($csv)"
	else
		: >"$state/score.txt"
		for m in measured from2; do
			hw=$state/$tag-$m.yaml
			if [ ! -f "$hw" ]; then
				say "score $m: no model $(basename "$hw")"
				continue
			fi
			{
				echo "## $tag-$m.yaml"
				"$gpusim" validate "$csv" --hw "$hw"
				echo "(exit $?)"
				echo
			} >>"$state/score.txt" 2>&1
			"$gpusim" validate "$csv" --hw "$hw" --format csv >"$state/score-$m.csv" 2>>"$log"
			"$gpusim" validate "$csv" --hw "$hw" --format json >"$state/score-$m.json" 2>>"$log"
			python3 - "$csv" "$state/score-$m.csv" "$m" <<'PY' | tee -a "$summary"
import csv, statistics, sys
def rows(path):
    return list(csv.DictReader(l for l in open(path) if not l.startswith("#")))
gpus = {r["label"]: int(r["gpus"]) for r in rows(sys.argv[1])}
err = {r["label"]: abs(float(r["rel_error"])) for r in rows(sys.argv[2]) if r["rel_error"]}
target = {"measured": 5.0, "from2": 10.0}.get(sys.argv[3])
def line(name, labels, goal=None):
    e = sorted((err[l], l) for l in labels if l in err)
    if not e:
        return "  %s: no row predicted" % name
    med = 100 * statistics.median(v for v, _ in e)
    s = "  %s: %d of %d rows predicted, median |error| %.1f%%, max %.1f%% (%s)" % (
        name, len(e), len(labels), med, 100 * e[-1][0], e[-1][1])
    if goal is not None:
        s += "; target median <= %.0f%%: %s" % (goal, "met" if med <= goal else "NOT met")
    return s
multi = [l for l, g in gpus.items() if g > 2] or [l for l, g in gpus.items() if g > 1]
print("score %s:" % sys.argv[3])
print(line("rows of %s GPUs" % "/".join(map(str, sorted(set(gpus[l] for l in multi)))), multi, target))
for g in sorted(set(gpus.values())):
    if sorted(l for l in gpus if gpus[l] == g) == sorted(multi):
        continue  # the line above
    print(line("rows of %d GPU%s" % (g, "" if g == 1 else "s"), [l for l in gpus if gpus[l] == g]))
print(line("all rows", list(gpus)))
PY
		done
	fi
fi

# ---- what goes back: at most 8 files
step "pack"
for f in "$summary" "$log" "$full" "$from2" "$state/$csvname" "$state/score.txt"; do
	[ -f "$f" ] && cp "$f" "$out/"
done
tar -C "$state" -czf "$out/results.tar.gz" . 2>>"$log"
say "done in ${SECONDS} s; in $out: $(ls "$out" | tr '\n' ' ')"
cp "$summary" "$out/"
