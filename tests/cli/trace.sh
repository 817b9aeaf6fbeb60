#!/usr/bin/env bash
# trace.sh GPUSIM: predict --trace writes a timeline that Perfetto and chrome://tracing load (docs/output.md,
# Timelines), and that agrees with the report of the same run: valid JSON in the Object Format, the trace-event
# fields with their types, a name for every process and track used, streams and links that never run two slices at
# once, nothing after the step time, the critical stage's compute and optimizer slices summing to breakdown_s, and
# sizes on collectives and transfers. Run from the repository root. Prints "N passed, N failed".
set -uo pipefail

gpusim=${1:?usage: trace.sh GPUSIM}
. "$(dirname "$0")/../cli_lib.sh"

# check NAME ARGS...: predict ARGS with --trace and --format json, then the checks below on the pair. With
# queued=1 some transfer must have waited for its link (its send-stream slice starts before its link slice).
queued=0
check() {
	local name=$1
	shift
	if ! "$gpusim" predict "$@" --format json --trace "$tmp/t.json" --trace-ranks stages >"$tmp/r.json" 2>"$tmp/err"; then
		fail "$name: predict exited $?: $(head -c 600 "$tmp/err")"
		return
	fi
	python3 - "$tmp/t.json" "$tmp/r.json" "$queued" >"$tmp/py" 2>&1 <<'PY' && ok || fail "$name: $(cat "$tmp/py")"
import json, sys
from collections import defaultdict

trace = json.load(open(sys.argv[1]))
report = json.load(open(sys.argv[2]))
errors = []
def bad(msg):
    errors.append(msg)

def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)
def is_num(v):
    return (isinstance(v, (int, float))) and not isinstance(v, bool)

# the JSON Object Format
if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
    sys.exit("not an object with a traceEvents array")
if trace.get("displayTimeUnit") not in ("ms", "ns"):
    bad("displayTimeUnit is %r" % trace.get("displayTimeUnit"))
other = trace.get("otherData", {})
for k in ("scenario", "hardware", "step_time_s"):
    if k not in other:
        bad("otherData lacks %s" % k)
step_us = report["step_time_s"] * 1e6
if other.get("step_time_s") != report["step_time_s"]:
    bad("otherData.step_time_s %r != report %r" % (other.get("step_time_s"), report["step_time_s"]))
if other.get("scenario") != report["scenario"] or other.get("hardware") != report["hardware"]:
    bad("otherData names another run")

# every event: the fields of its phase, with their types
slices, procs, threads = [], {}, {}
for i, e in enumerate(trace["traceEvents"]):
    where = "event %d %s" % (i, json.dumps(e)[:160])
    if not isinstance(e, dict) or not isinstance(e.get("name"), str) or not e["name"]:
        bad(where + ": no name")
        continue
    if not is_int(e.get("pid")) or not is_int(e.get("tid")):
        bad(where + ": pid and tid must be integers")
        continue
    if e.get("pid") <= 0:
        bad(where + ": pid 0 is the idle process in Perfetto")
    ph = e.get("ph")
    if ph == "X":
        if not (is_num(e.get("ts")) and is_num(e.get("dur")) and e["ts"] >= 0 and e["dur"] >= 0):
            bad(where + ": X needs numbers ts, dur >= 0")
            continue
        if e.get("cat") not in ("compute", "tp", "pp", "dp", "optimizer"):
            bad(where + ": cat %r" % e.get("cat"))
        if not isinstance(e.get("args"), dict):
            bad(where + ": args must be an object")
            continue
        slices.append(e)
    elif ph == "M":
        a = e.get("args")
        if e["name"] in ("process_name", "thread_name"):
            if not isinstance(a, dict) or not isinstance(a.get("name"), str):
                bad(where + ": metadata without args.name")
                continue
            if e["name"] == "process_name":
                procs[e["pid"]] = a["name"]
            else:
                threads[(e["pid"], e["tid"])] = a["name"]
        elif e["name"] in ("process_sort_index", "thread_sort_index"):
            if not isinstance(a, dict) or not is_int(a.get("sort_index")):
                bad(where + ": sort index not an integer")
        else:
            bad(where + ": unknown metadata")
    else:
        bad(where + ": phase %r" % ph)

if not slices:
    sys.exit("no slices")

# one process per pipeline stage, each named, and every track used named
pp = report["parallel"]["pp"]
if sorted(procs) != list(range(1, pp + 1)):
    bad("processes %r, expected pids 1..%d" % (sorted(procs), pp))
for pid, name in procs.items():
    if not name.startswith("stage %d:" % (pid - 1)) or "GPU" not in name:
        bad("process %d is named %r" % (pid, name))
used = {(e["pid"], e["tid"]) for e in slices}
for key in sorted(used - set(threads)):
    bad("track (pid %d, tid %d) has slices but no thread_name" % key)

# streams and links are in-order: the slices of one track never overlap; nothing ends after the step
eps = 1e-5  # us; ts and dur are printed to 1e-6 us
tracks = defaultdict(list)
for e in slices:
    tracks[(e["pid"], e["tid"])].append(e)
for key, evs in tracks.items():
    evs.sort(key=lambda e: e["ts"])
    for a, b in zip(evs, evs[1:]):
        if a["ts"] + a["dur"] > b["ts"] + eps:
            bad("%s overlap on %s: %s [%r +%r] and %s [%r]" % (key, threads.get(key), a["name"], a["ts"], a["dur"],
                                                             b["name"], b["ts"]))
            break
end = max(e["ts"] + e["dur"] for e in slices)
if end > step_us + eps:
    bad("a slice ends at %r us, after the step (%r us)" % (end, step_us))
# the traced ranks stand for all: the last of them ends the step
if abs(end - step_us) > 1e-9 * step_us + eps:
    bad("the timeline ends at %r us, the step at %r us" % (end, step_us))

# the critical stage's compute track sums to the report's breakdown
cs = report["critical_stage"]
compute = [e for e in slices if e["pid"] == cs + 1 and threads.get((e["pid"], e["tid"])) == "compute"]
for cat, key in (("compute", "compute"), ("optimizer", "optimizer")):
    got = sum(e["dur"] for e in compute if e["cat"] == cat) / 1e6
    want = report["breakdown_s"][key]
    if abs(got - want) > 1e-6 * max(want, 1e-12):
        bad("stage %d: %s slices sum to %.12g s, breakdown_s.%s is %.12g s" % (cs, cat, got, key, want))

# micro-batch and layer on the layer ops
m = report["parallel"]["num_microbatches"]
for e in slices:
    mb, layer = e["args"].get("mb"), e["args"].get("layer")
    if mb is not None and not (is_int(mb) and 0 <= mb < m):
        bad("%s has mb %r, not in 0..%d" % (e["name"], mb, m - 1))
        break
    if e["name"] == "qkv" and not (is_int(mb) and is_int(layer) and layer >= 0):
        bad("qkv slice without mb and layer: %r" % e["args"])
        break

# sizes and peers on collectives and transfers
colls = [e for e in slices if "group" in e["args"]]
sends = [e for e in slices if "to" in e["args"]]
for e in colls + sends:
    b = e["args"].get("bytes")
    if not is_num(b) or b <= 0:
        bad("%s on %s has bytes %r" % (e["name"], threads.get((e["pid"], e["tid"])), b))
        break
if (report["parallel"]["tp"] > 1 or report["parallel"]["dp"] > 1) and not colls:
    bad("no collective slice with a group")
for e in slices:
    if e["cat"] == "compute" and any(k in e["args"] for k in ("bytes", "group", "to")):
        bad("compute slice %s carries communication args" % e["name"])
        break
# a transfer is on its sending stream and on a link track, ending together; the stream is held at least as long
links = [e for e in slices if threads.get((e["pid"], e["tid"]), "").startswith("link")]
if pp > 1 and not (sends and links):
    bad("pipeline of %d stages without send and link slices" % pp)
waited = 0
on_stream = {(e["pid"], e["name"], e["args"].get("mb"), round(e["ts"] + e["dur"], 3)): e for e in sends
             if not threads.get((e["pid"], e["tid"]), "").startswith("link")}
for e in links:
    s = on_stream.get((e["pid"], e["name"], e["args"].get("mb"), round(e["ts"] + e["dur"], 3)))
    if s is None or s["ts"] > e["ts"] + eps:
        bad("link slice %s mb %r at %r has no matching send-stream slice" % (e["name"], e["args"].get("mb"), e["ts"]))
        break
    waited += s["ts"] < e["ts"] - eps
    if not e["args"]["link"] in threads[(e["pid"], e["tid"])]:
        bad("%s slice on track %r" % (e["args"]["link"], threads[(e["pid"], e["tid"])]))
        break

if sys.argv[3] == "1" and not waited:
    bad("no transfer waited for its link")

if errors:
    sys.exit("\n  ".join(errors[:10]))
PY
}

# TP 4 x PP 2 x DP 2 over two nodes, interleaved: every kind of track, inter-node pipeline links
check "tp4_pp2_dp2_interleaved" tests/golden/tp4_pp2_dp2_interleaved.yaml
# the same with every rank simulated: only dp 0, tp 0 of each stage is traced
check "tp4_pp2_dp2_interleaved --all-ranks" tests/golden/tp4_pp2_dp2_interleaved.yaml --all-ranks
# ... and the traced GPUs' timelines are the same event for event, in some order (op by op, and the overview)
for r in stages overview; do
	"$gpusim" predict tests/golden/tp4_pp2_dp2_interleaved.yaml --trace "$tmp/a.json" --trace-ranks $r >/dev/null 2>&1
	"$gpusim" predict tests/golden/tp4_pp2_dp2_interleaved.yaml --all-ranks --trace "$tmp/b.json" --trace-ranks $r \
		>/dev/null 2>&1
	if [ -s "$tmp/a.json" ] && cmp -s <(sort "$tmp/a.json") <(sort "$tmp/b.json"); then
		ok
	else
		fail "--all-ranks changes the timeline of the traced GPUs (--trace-ranks $r)"
	fi
done
# DP only, one stage
check "gpt_small_2gpu" scenarios/gpt_small_2gpu.yaml
# with measured compute/communication interference: segments are lengthened after they start
check "gpt_small_2gpu, interference" scenarios/gpt_small_2gpu.yaml --hw hardware/h200x2-measured.yaml
# GPipe over 4 stages, TP 2, DP 8, full recompute (A100)
check "a100_gpipe_fullrecompute" tests/golden/a100_gpipe_fullrecompute.yaml
# 1F1B over 2 GPUs of one node with blocking sends: both send streams share the intra-node link
check "t01-pp2-1f1b" scenarios/validate/t01-pp2-1f1b.yaml
# a link slower than compute: the stage's forward and backward sends queue for its one inter-node link
sed 's/^  nic_gbps: 50 /  nic_gbps: 5 /' hardware/h100-dgx.yaml >"$tmp/slow-nic.yaml"
cat >"$tmp/link-bound.yaml" <<'EOF'
name: link-bound-pipeline
model: {type: transformer, layers: 3, hidden: 8192, heads: 64, ffn: swiglu, ffn_hidden: 28672, seq: 4096, vocab: 0}
training: {global_batch: 12, micro_batch: 1, optimizer: adam}
parallel: {tp: 8, pp: 3, dp: 1, schedule: 1f1b, pp_overlap: true}
hardware: slow-nic.yaml
EOF
if grep -q '^  nic_gbps: 5 ' "$tmp/slow-nic.yaml"; then
	queued=1
	check "link-bound pipeline" "$tmp/link-bound.yaml"
	queued=0
else
	fail "hardware/h100-dgx.yaml has no 'nic_gbps: 50' line to slow down"
fi
# ZeRO-3: per-layer all-gathers and reduce-scatters on the DP stream
sed 's/^  dp_overlap: true/  dp_overlap: true\n  zero: 3/' scenarios/gpt_small_2gpu.yaml >"$tmp/zero3.yaml"
check "gpt_small_2gpu, zero 3" "$tmp/zero3.yaml"

# names go through JSON escaping: the scenario's name, in otherData
sed 's/^name: .*/name: "quote \\" backslash \\\\ tab \\t end"/' scenarios/gpt_small_2gpu.yaml >"$tmp/esc.yaml"
if "$gpusim" predict "$tmp/esc.yaml" --trace "$tmp/esc.json" >/dev/null 2>"$tmp/err" &&
	python3 - "$tmp/esc.json" <<'PY'; then
import json, sys
name = json.load(open(sys.argv[1]))["otherData"]["scenario"]
sys.exit(name != "quote \" backslash \\ tab \t end")
PY
	ok
else
	fail "a scenario name with a quote, a backslash and a tab does not round-trip: $(head -c 300 "$tmp/err")"
fi

# a trace that cannot be written: exit 3, no file left behind
"$gpusim" predict scenarios/gpt_small_2gpu.yaml --trace "$tmp/no/such/dir/t.json" >/dev/null 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 3 ] && [ ! -e "$tmp/no/such/dir/t.json" ]; then
	ok
else
	fail "--trace into a missing directory: exit $rc"
fi

# --trace-ranks. tp4_pp2_dp2_interleaved has 16 GPUs: GPU (stage*2 + d)*4 + t. critical: the critical stage's
# rank dp 0, tp 0 alone, slice for slice that process of the default timeline; all: 16 processes, the default's
# two among them with the same slices, and GPU 5 (stage 0, dp 1, tp 1) as many slices as GPU 0 (the ranks of a
# stage are symmetric); 0,5-6: GPUs 0, 5 and 6.
g=tests/golden/tp4_pp2_dp2_interleaved.yaml
if "$gpusim" predict "$g" --trace "$tmp/r-def.json" --trace-ranks stages >/dev/null 2>"$tmp/err" &&
	"$gpusim" predict "$g" --trace "$tmp/r-crit.json" --trace-ranks critical >/dev/null 2>>"$tmp/err" &&
	"$gpusim" predict "$g" --trace "$tmp/r-all.json" --trace-ranks all >/dev/null 2>>"$tmp/err" &&
	"$gpusim" predict "$g" --trace "$tmp/r-list.json" --trace-ranks 0,5-6 >/dev/null 2>>"$tmp/err" &&
	python3 - "$tmp" <<'PY' 2>>"$tmp/err"; then
import json, sys
d = sys.argv[1]
def load(n):
    t = json.load(open(f"{d}/r-{n}.json"))
    procs = {e["pid"]: e["args"]["name"] for e in t["traceEvents"] if e["name"] == "process_name"}
    sl = {}
    for e in t["traceEvents"]:
        if e["ph"] == "X":
            sl.setdefault(e["pid"], []).append((e["tid"], e["ts"], e["dur"], e["name"]))
    return t["otherData"], procs, {p: sorted(v) for p, v in sl.items()}
od, dp, ds = load("def")
oc, cp, cs = load("crit")
oa, ap, as_ = load("all")
ol, lp, ls = load("list")
crit = od["critical_stage"] + 1
assert list(cp) == [crit] and cs[crit] == ds[crit], "critical"
assert len(ap) == 16 and all(as_[p] == ds[p] for p in dp), "all: default ranks"
gpu = {int(n.split("GPU ")[1].split(" ")[0]): p for p, n in ap.items()}
assert len(as_[gpu[5]]) == len(as_[gpu[0]]), "all: symmetric ranks"
assert sorted(int(n.split("GPU ")[1].split(" ")[0]) for n in lp.values()) == [0, 5, 6], "list"
assert oc["traced_ranks"].startswith("the critical") and oa["traced_ranks"] == "all", "otherData"
PY
	ok
else
	fail "--trace-ranks critical|all|0,5-6: $(tail -c 300 "$tmp/err")"
fi
# the default, overview: the stages' GPUs; the critical stage op by op as with stages, every other stage one slice
# per layer's forward or backward and micro-batch, from the first of its ops' start to the last's end (the same
# ops as in the stages timeline, TP collectives among them), and no link track there
if "$gpusim" predict "$g" --trace "$tmp/r-ov.json" >/dev/null 2>"$tmp/err" &&
	"$gpusim" predict "$g" --trace "$tmp/r-st.json" --trace-ranks stages >/dev/null 2>>"$tmp/err" &&
	python3 - "$tmp" <<'PY' 2>>"$tmp/err"; then
import json, sys
d = sys.argv[1]
ov, st = (json.load(open(f"{d}/r-{n}.json")) for n in ("ov", "st"))
crit = ov["otherData"]["critical_stage"] + 1
assert ov["otherData"]["traced_ranks"].startswith("one per pipeline stage: dp 0, tp 0; op by op"), "otherData"
x = lambda t, pid: sorted((e["tid"], e["ts"], e["dur"], e["name"]) for e in t["traceEvents"]
                          if e["ph"] == "X" and e["pid"] == pid)
assert x(ov, crit) == x(st, crit), "critical stage op by op"
pids = {e["pid"] for e in st["traceEvents"] if e["ph"] == "X"}
assert len(pids) == 2, pids
for pid in pids - {crit}:
    layers = [e for e in ov["traceEvents"] if e["ph"] == "X" and e["pid"] == pid and e["name"] in ("layer_fwd", "layer_bwd")]
    assert layers and all(e["tid"] == 1 for e in layers), "layer slices on the compute track"
    assert not any(e["tid"] >= 6 for e in ov["traceEvents"] if e["ph"] == "X" and e["pid"] == pid), "no link track"
    ops = {}
    for e in st["traceEvents"]:
        if e["ph"] == "X" and e["pid"] == pid and e["tid"] == 1 and "layer" in e["args"]:
            ops.setdefault((e["args"]["mb"], e["args"]["layer"]), []).append(e)
    n = 0
    for e in layers:
        k = (e["args"]["mb"], e["args"]["layer"])
        grp = sorted(ops[k], key=lambda o: o["ts"])
        # one layer's forward, or its backward: the run of its ops that starts where this slice starts
        run = [o for o in grp if e["ts"] - 1e-3 <= o["ts"] <= e["ts"] + e["dur"] + 1e-3][:e["args"]["ops"]]
        assert len(run) == e["args"]["ops"], (k, len(run))
        assert abs(run[0]["ts"] - e["ts"]) < 1e-3, ("start", k)
        assert abs(max(o["ts"] + o["dur"] for o in run) - (e["ts"] + e["dur"])) < 1e-3, ("end", k)
        assert (e["name"] == "layer_bwd") == any(o["name"].endswith("_bwd") for o in run), ("direction", k)
        n += e["args"]["ops"]
    assert n == sum(len(v) for v in ops.values()), ("every op in a slice", n)
PY
	ok
else
	fail "--trace-ranks overview (the default): $(tail -c 300 "$tmp/err")"
fi
# side-channel transfers (CP ring hops here) in the overview: op by op on the critical stage only, as its compute;
# the other stages' layer slices already hold the time they made the compute stream wait
cpscen=scenarios/llama3_405b_16k_cp_1152gpu.yaml
if "$gpusim" predict "$cpscen" --trace "$tmp/cp.json" >/dev/null 2>"$tmp/err" &&
	python3 - "$tmp/cp.json" <<'PY' 2>>"$tmp/err"
import json, sys
d = json.load(open(sys.argv[1]))
crit = d["otherData"]["critical_stage"] + 1
side = [e for e in d["traceEvents"] if e.get("ph") == "X" and e["tid"] == 6]
assert side and all(e["pid"] == crit for e in side), "side-channel slices on the critical stage only"
PY
then ok; else fail "overview: side-channel slices: $(tail -c 300 "$tmp/err")"; fi
for bad in "--trace-ranks 16" "--trace-ranks x" "--trace-ranks 3-1"; do
	# shellcheck disable=SC2086
	"$gpusim" predict "$g" --trace "$tmp/bad.json" $bad >/dev/null 2>"$tmp/err"
	rc=$?
	if [ "$rc" -eq 2 ] && grep -q -- "--trace-ranks" "$tmp/err"; then ok; else fail "$bad: exit $rc"; fi
done
"$gpusim" predict "$g" --trace-ranks all >/dev/null 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 2 ]; then ok; else fail "--trace-ranks without --trace: exit $rc"; fi

cli_done
