#!/usr/bin/env python3
"""validate/score_tables.py: every validation table scored by one or more gpusim binaries, side by side.

For each CSV under validate/ that `gpusim validate` reads (all but published-other.csv, the list of rows that
cannot be expressed), each binary predicts every row with the hardware each scenario names (and, for the measured
tables, also with the datasheet preset of that GPU: --hw), and this prints per table and binary: rows predicted,
rows that failed, the median |error|, the max |error| and the signed median (negative: predicted faster than
measured). Errors follow `gpusim validate`: (predicted - measured) / measured for step times, measured/predicted - 1
for TFLOP/s rows.

usage: validate/score_tables.py NAME=GPUSIM[@TREE] ...    (run from the repository root)
TREE (default: this one) is the checkout whose validate/ tables, scenarios and hardware files that binary scores, so
an older commit is scored on its own tables and models:
e.g.   validate/score_tables.py before=/tmp/base/build/gpusim@/tmp/base after=build/gpusim
A binary that cannot read a table (a scenario key or hardware file it does not know) scores none of its rows; the
statistics are over the rows predicted, so compare the "rows" column before comparing errors.
"""
import csv
import glob
import io
import os
import statistics
import subprocess
import sys

# the hardware models each measured table is scored with (docs/validation.md): its calibration(s), then the
# datasheet preset of its GPU; other tables: the hardware each scenario names
MODELS = {
    "measured-h100x1.csv": [["--hw", "hardware/h100x1-measured.yaml"],
                            ["--hw", "h100-dgx", "--gpu", "hardware/h100x1-1127c-measured.yaml"],
                            ["--hw", "hardware/h100x4-1128c-measured.yaml"],
                            ["--hw", "h100-dgx"]],
    # 4 x H100 (NV18 between every pair) of 2026-11-27: no calibration of that host; the one-H100 calibration
    # composed into the DGX H100 node (its NVLink and collectives), then the preset alone
    "measured-h100x4.csv": [["--hw", "h100-dgx", "--gpu", "hardware/h100x1-measured.yaml"],
                            ["--hw", "h100-dgx", "--gpu", "hardware/h100x1-1127c-measured.yaml"],
                            ["--hw", "hardware/h100x4-1127j-measured.yaml"],
                            ["--hw", "hardware/h100x4-1128c-measured.yaml"],
                            ["--hw", "hardware/h100x2-1128e-measured.yaml"],
                                  ["--hw", "hardware/h100x2-1128h-measured.yaml"], ["--hw", "h100-dgx"]],
    # 2 x H100 (NV18) of 2026-11-27: the one-H100 calibration, whose host rows come from that same lease
    "measured-h100x2.csv": [["--hw", "h100-dgx", "--gpu", "hardware/h100x1-measured.yaml"],
                            ["--hw", "h100-dgx", "--gpu", "hardware/h100x1-1127c-measured.yaml"],
                            ["--hw", "hardware/h100x4-1127j-measured.yaml"],
                            ["--hw", "hardware/h100x4-1128c-measured.yaml"],
                            ["--hw", "hardware/h100x2-1128e-measured.yaml"],
                                  ["--hw", "hardware/h100x2-1128h-measured.yaml"], ["--hw", "h100-dgx"]],
    # 2 x H200 of 2026-11-27, measured on the same lease as hardware/h200x2-1127-measured.yaml (calibrate/
    # device-cal.sh: the full calibration of that lease, host classes and the TP collective included)
    "measured-h200x2-1127.csv": [["--hw", "hardware/h200x2-1127-measured.yaml"],
                                 ["--hw", "hardware/h200x2-measured.yaml"],
                                 ["--hw", "hardware/h200x2-measured.yaml", "--gpu", "hardware/h200x1-measured.yaml"],
                                 ["--hw", "h200-sxm"]],
    # 4 x H200 (NV18) of 2026-11-27 (asked as 4 x H100), measured on the same lease as hardware/h200x4-measured.yaml
    # (calibrate/device-cal.sh, then validate/runner/lease-run.sh GPUS=4); then the 2 x H200 lease's calibration
    "measured-h200x4.csv": [["--hw", "hardware/h200x4-measured.yaml"],
                            ["--hw", "hardware/h200x2-1127-measured.yaml"],
                            ["--hw", "h200-sxm"]],
    # 1 x H100 of 2026-11-27, measured on the same lease as hardware/h100x1-1127-measured.yaml; then the
    # 2026-11-25 calibration of another H100 and the preset
    "measured-h100x1-1127.csv": [["--hw", "hardware/h100x1-1127-measured.yaml"],
                                 ["--hw", "hardware/h100x1-measured.yaml"],
                                 ["--hw", "hardware/h100x4-1128c-measured.yaml"],
                                 ["--hw", "h100-dgx"]],
    # a second 2 x H200 lease of 2026-11-27 (53 of the 69 rows: the call's budget ran out), measured on the same
    # lease as hardware/h200x2-1127b-measured.yaml; then the first lease's calibration and the preset
    "measured-h200x2-1127b.csv": [["--hw", "hardware/h200x2-1127b-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1127-measured.yaml"], ["--hw", "h200-sxm"]],
    # 1 x H100 of 2026-11-27 afternoon (check-run, device-cal, lease-run on one lease): the first calibration with
    # the host rows after the GPU work and five rounds; then the morning H100's calibration and the preset
    "measured-h100x1-1127pm.csv": [["--hw", "hardware/h100x1-1127pm-measured.yaml"],
                                   ["--hw", "hardware/h100x1-1127-measured.yaml"],
                                   ["--hw", "hardware/h100x4-1128c-measured.yaml"],
                                   ["--hw", "h100-dgx"]],
    # two more calls on one H100 lease of 2026-11-27 (validate/runner/cal-and-rows.sh: calibration with the attention
    # + GEMM mixes, then the rows, twice): each table's own calibration, the other's, the afternoon's first
    # calibration (no mixes: attention at a fixed time) and the preset
    "measured-h100x1-1127c.csv": [["--hw", "hardware/h100x1-1127c-measured.yaml"],
                                  ["--hw", "hardware/h100x1-1127d-measured.yaml"],
                                  ["--hw", "hardware/h100x1-1127pm-measured.yaml"],
                                  ["--hw", "hardware/h100x4-1128c-measured.yaml"],
                                  ["--hw", "h100-dgx"]],
    "measured-h100x1-1127d.csv": [["--hw", "hardware/h100x1-1127d-measured.yaml"],
                                  ["--hw", "hardware/h100x1-1127c-measured.yaml"],
                                  ["--hw", "hardware/h100x1-1127pm-measured.yaml"],
                                  ["--hw", "hardware/h100x4-1128c-measured.yaml"],
                                  ["--hw", "h100-dgx"]],
    # the torch.compile rows of one H100 (check-run, the 1127pm lease): its calibration, 1127c's, the preset
    "measured-h100x1-1127pm-compiled.csv": [["--hw", "hardware/h100x1-1127pm-measured.yaml"],
                                            ["--hw", "hardware/h100x1-1127c-measured.yaml"],
                                            ["--hw", "hardware/h100x4-1128c-measured.yaml"],
                                            ["--hw", "h100-dgx"]],
    # 4 x H200 (NV18) of 2026-11-27 16:13 (calibrate/device-cal.sh, then lease-run.sh ROWS=everything GPUS=4 on one
    # lease): the first H200 calibration with the attention + GEMM mixes and the torch.compile host rows, its 82
    # eager and 7 compiled rows; then the morning 4 x H200 lease's calibration (no mixes), the 2 x H200's, the preset
    "measured-h200x4-1127e.csv": [["--hw", "hardware/h200x4-1127e-measured.yaml"],
                                  ["--hw", "hardware/h200x4-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1127-measured.yaml"],
                                  ["--hw", "hardware/h200x4-1127i-measured.yaml"], ["--hw", "h200-sxm"]],
    # 2 x H200 (NV18) of 2026-11-27 16:28 (asked as 2 x H100; device-cal.sh, then lease-run.sh ROWS=everything GPUS=2
    # on one lease): its calibration (mixes, compiled host rows), its 69 eager + 7 compiled rows; then the 4 x H200
    # lease's of the same hour, the morning 2 x H200's (no mixes), the preset
    "measured-h200x2-1127f.csv": [["--hw", "hardware/h200x2-1127f-measured.yaml"],
                                  ["--hw", "hardware/h200x4-1127e-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1127-measured.yaml"], ["--hw", "h200-sxm"]],
    # 2 x H200 (NV18) of 2026-11-27 18:45 (device-cal.sh with the layer mix, open-probes.sh, then lease-run.sh
    # ROWS=everything GPUS=2 on one lease): its calibration, its 69 eager + 7 compiled rows; then the 2 x H200 and
    # 4 x H200 calibrations of the afternoon, the preset
    "measured-h200x2-1127g.csv": [["--hw", "hardware/h200x2-1127g-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1127f-measured.yaml"],
                                  ["--hw", "hardware/h200x4-1127e-measured.yaml"], ["--hw", "h200-sxm"]],
    # 1 x H200 of 2026-11-27 19:40 (device-run.sh GPUS=1: the 21 eager one-GPU rows, no calibration of that lease):
    # the evening's 2 x H200 calibration (with the layer mix), the afternoon's two, the preset
    "measured-h200x1-1127h.csv": [["--hw", "hardware/h200x2-1127g-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1127f-measured.yaml"],
                                  ["--hw", "hardware/h200x4-1127e-measured.yaml"], ["--hw", "h200-sxm"]],
    # 4 x H200 (NV18) of 2026-11-27 20:55 (asked as 4 x H100; device-cal.sh with the layer mix and the compiled-DDP
    # host rows, then lease-run.sh ROWS=everything GPUS=4 on one lease): its calibration, its 82 eager + 7 compiled
    # rows; then the evening's 2 x H200 calibration (held out: it never saw a group of 3 or 4), the afternoon's
    # 4 x H200 one, the preset
    "measured-h200x4-1127i.csv": [["--hw", "hardware/h200x4-1127i-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1127g-measured.yaml"],
                                  ["--hw", "hardware/h200x4-1127e-measured.yaml"], ["--hw", "h200-sxm"]],
    # 4 x H100 (NV18) of 2026-11-27 21:11 (device-cal.sh, then lease-run.sh ROWS=everything GPUS=4 on one lease): the
    # first calibration of an H100 host of several GPUs (its collectives: groups of 2 to 4), its 82 eager + 7
    # compiled rows; then the 4 x H100 one of 2026-11-28 00:58 (held out, another lease), the 1127c one-GPU
    # calibration composed into the DGX H100 preset (held out), the preset
    "measured-h100x4-1127j.csv": [["--hw", "hardware/h100x4-1127j-measured.yaml"],
                                  ["--hw", "hardware/h100x4-1128c-measured.yaml"],
                                  ["--hw", "h100-dgx", "--gpu", "hardware/h100x1-1127c-measured.yaml"],
                                  ["--hw", "hardware/h100x2-1128e-measured.yaml"],
                                  ["--hw", "hardware/h100x2-1128h-measured.yaml"], ["--hw", "h100-dgx"]],
    # 4 x H200 (NV18) of 2026-11-27 22:49 (asked as 4 x H100; device-cal.sh with the every-GPU hold: the first
    # calibration with gpu.power.gpu_rates, then lease-run.sh ROWS=everything GPUS=4 on one lease): its calibration,
    # the 4 x H200 one of 20:55 (held out, another lease), the 2 x H200 one of 23:05 (held out: groups of 2 only),
    # the preset
    "measured-h200x4-1128a.csv": [["--hw", "hardware/h200x4-1128a-measured.yaml"],
                                  ["--hw", "hardware/h200x4-1127i-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1128b-measured.yaml"], ["--hw", "h200-sxm"]],
    # 2 x H200 (NV18) of 2026-11-27 23:05 (asked as 2 x H100; device-cal.sh with the every-GPU hold, then
    # lease-run.sh ROWS=everything GPUS=2 on one lease): its calibration, the 4 x H200 one of 22:49 (held out), the
    # evening's 2 x H200 one (held out), the preset
    "measured-h200x2-1128b.csv": [["--hw", "hardware/h200x2-1128b-measured.yaml"],
                                  ["--hw", "hardware/h200x4-1128a-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1127g-measured.yaml"], ["--hw", "h200-sxm"]],
    # 4 x H100 (NV18) of 2026-11-28 00:58 (device-cal.sh with the every-GPU hold and the idle-gap bursts, then
    # lease-run.sh ROWS=everything GPUS=4 on one lease; a second run of the rows in validate/runs/2026-11-28-h100x4/
    # repeat): its calibration, the 4 x H100 one of 2026-11-27 21:11 (held out, another lease), the 1127c one-GPU
    # calibration composed into the DGX H100 preset (held out), the preset
    "measured-h100x4-1128c.csv": [["--hw", "hardware/h100x4-1128c-measured.yaml"],
                                  ["--hw", "hardware/h100x4-1127j-measured.yaml"],
                                  ["--hw", "h100-dgx", "--gpu", "hardware/h100x1-1127c-measured.yaml"],
                                  ["--hw", "hardware/h100x2-1128e-measured.yaml"],
                                  ["--hw", "hardware/h100x2-1128h-measured.yaml"], ["--hw", "h100-dgx"]],
    # 2 x H100 (NV18) of 2026-11-28 03:15 (asked as 2 x H200; lease-run.sh GPUS=2, no calibration of that lease):
    # the 2 x H100 calibration of 02:54 (held out: another lease), the 4 x H100 one of 00:58, 1127j, the preset
    "measured-h100x2-1128f.csv": [["--hw", "hardware/h100x2-1128e-measured.yaml"],
                                  ["--hw", "hardware/h100x2-1128h-measured.yaml"],
                                  ["--hw", "hardware/h100x4-1128c-measured.yaml"],
                                  ["--hw", "hardware/h100x4-1127j-measured.yaml"], ["--hw", "h100-dgx"]],
    # 1 x H100 of 2026-11-28 03:33 (cal-and-rows.sh QUICK=1 GPUS=1): the first one-GPU rows and calibration host
    # rows timed with no profiler session before them in their process (docs/validation.md, "CUPTI"): its quick
    # calibration, then 1128c, 1128e and 1127c (held out), the preset
    "measured-h100x1-1128g.csv": [["--hw", "hardware/h100x1-1128g-measured.yaml"],
                                  ["--hw", "hardware/h100x4-1128c-measured.yaml"],
                                  ["--hw", "hardware/h100x2-1128e-measured.yaml"],
                                  ["--hw", "hardware/h100x2-1128h-measured.yaml"],
                                  ["--hw", "hardware/h100x1-1127c-measured.yaml"], ["--hw", "h100-dgx"]],
    # 2 x H200 (NV18) of 2026-11-28 05:20 (lease-run.sh GPUS=2; its budget ran the 21 one-GPU rows only, no
    # calibration of that lease; no profiler before the rows): 1128a and 1128b (held out), 1128i (a quick one-GPU
    # calibration of another lease, 05:37), 1127g, the preset
    "measured-h200x2-1128j.csv": [["--hw", "hardware/h200x4-1128a-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1128b-measured.yaml"],
                                  ["--hw", "hardware/h200x1-1128i-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1127g-measured.yaml"], ["--hw", "h200-sxm"]],
    # 1 x H200 of 2026-11-28 05:37 (cal-and-rows.sh QUICK=1 GPUS=1, seven rows): its quick calibration, then 1128a
    # and 1128b (held out), the preset
    # 1 x H200 of 2026-11-28 09:46 (validate/runner/host-tokens.sh: the 21 one-GPU rows between host probes at 16
    # and 4096 tokens; no calibration on that lease): held-out calibrations of other H200 leases, the preset
    # 1 x H200 of 2026-11-28 11:42 (device-run.sh ROWS=compiled GPUS=1: the five one-GPU compiled rows, after stop
    # 35's compiled change; no calibration on that lease): held-out calibrations, the preset
    "measured-h200x1-1128o-compiled.csv": [["--hw", "hardware/h200x4-1128a-measured.yaml"],
                                           ["--hw", "hardware/h200x2-1128m-measured.yaml"], ["--hw", "h200-sxm"]],
    "measured-h200x1-1128n.csv": [["--hw", "hardware/h200x4-1128a-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1128m-measured.yaml"], ["--hw", "h200-sxm"]],
    "measured-h200x1-1128i.csv": [["--hw", "hardware/h200x1-1128i-measured.yaml"],
                                  ["--hw", "hardware/h200x4-1128a-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1128b-measured.yaml"], ["--hw", "h200-sxm"]],
    # 2 x H200 (NV18) of 2026-11-28 07:45 (asked as 2 x H100; cal-and-rows.sh QUICK=1 GPUS=2: a quick calibration
    # with the rank rows, then lease-run.sh, every row of 1 and 2 GPUs, no profiler before them): its calibration,
    # then 1128k (4 x H200, quick, another lease), 1128a and 1128b (held out), the preset
    "measured-h200x2-1128l.csv": [["--hw", "hardware/h200x2-1128l-measured.yaml"],
                                  ["--hw", "hardware/h200x4-1128k-measured.yaml"],
                                  ["--hw", "hardware/h200x4-1128a-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1128b-measured.yaml"], ["--hw", "h200-sxm"]],
    # 2 x H200 (NV18) of 2026-11-28 08:17 (asked as 2 x H100; cal-and-rows.sh QUICK=1 GPUS=2 with --quick's kernels to
    # 256 Mi elements and its GEMMs timed as the full run's, 22 rows): its quick calibration, then 1128a (held out),
    # 1128l (the quick one before the change, another lease), the preset
    "measured-h200x2-1128m.csv": [["--hw", "hardware/h200x2-1128m-measured.yaml"],
                                  ["--hw", "hardware/h200x4-1128a-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1128l-measured.yaml"], ["--hw", "h200-sxm"]],
    # 2 x H200 (NV18) of 2026-11-28 11:06 (stop 36), measured on the lease of hardware/h200x2-1128p-measured.yaml
    # (its full calibration, the call before): its own, then 1128a and 1128m held out, the preset
    "measured-h200x2-1128p.csv": [["--hw", "hardware/h200x2-1128p-measured.yaml"],
                                  ["--hw", "hardware/h200x4-1128a-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1128m-measured.yaml"], ["--hw", "h200-sxm"]],
    # 2 x H200 (NV18) of 2026-11-28 11:16, a fresh machine calibrated by none: 1128p, 1128t (stop 37), 1128a, 1128m
    # held out, preset
    "measured-h200x2-1128q.csv": [["--hw", "hardware/h200x2-1128p-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1128t-measured.yaml"],
                                  ["--hw", "hardware/h200x4-1128a-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1128m-measured.yaml"], ["--hw", "h200-sxm"]],
    # 2 x H200 (NV18) of 2026-11-28 11:35 (stop 36; cal-and-rows.sh QUICK=1: 61 of the 76 rows in the budget): its
    # quick calibration, then 1128p, 1128t (stop 37), 1128a, 1128m held out, the preset
    "measured-h200x2-1128r.csv": [["--hw", "hardware/h200x2-1128r-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1128p-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1128t-measured.yaml"],
                                  ["--hw", "hardware/h200x4-1128a-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1128m-measured.yaml"], ["--hw", "h200-sxm"]],
    # 1 x H200 of 2026-11-28 13:00 (stop 37), measured on the lease of hardware/h200x1-1128s-measured.yaml (its full
    # calibration with the step rows, the call before): its own, then 1128t (2 x H200, quick, with the step rows)
    # and 1128p (without them) held out, the preset
    "measured-h200x1-1128s.csv": [["--hw", "hardware/h200x1-1128s-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1128t-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1128p-measured.yaml"], ["--hw", "h200-sxm"]],
    # 2 x H200 (NV18) of 2026-11-28 13:07 (stop 37; cal-and-rows.sh QUICK=1: 63 of the 76 rows in the budget): its
    # quick calibration with the step rows, then 1128s (1 x H200 in the preset's node) and 1128p held out, preset
    "measured-h200x2-1128t.csv": [["--hw", "hardware/h200x2-1128t-measured.yaml"],
                                  ["--hw", "h200-sxm", "--gpu", "hardware/h200x1-1128s-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1128p-measured.yaml"], ["--hw", "h200-sxm"]],
    # 1 x H200 of 2026-11-28 13:13 (stop 37), a fresh machine calibrated by none: 1128s, 1128t, 1128p, 1128y (stop 38)
    # held out, preset
    "measured-h200x1-1128u.csv": [["--hw", "hardware/h200x1-1128s-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1128t-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1128p-measured.yaml"],
                                  ["--hw", "hardware/h200x1-1128y-measured.yaml"],
                                  ["--hw", "h200-sxm"]],
    # 2 x H200 (NV18) of 2026-11-28 15:16 (stop 38), a fresh machine calibrated by none, the 69 eager rows: 1128p,
    # 1128t, 1128s, 1128y held out, the preset
    "measured-h200x2-1128v.csv": [["--hw", "hardware/h200x2-1128p-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1128t-measured.yaml"],
                                  ["--hw", "h200-sxm", "--gpu", "hardware/h200x1-1128s-measured.yaml"],
                                  ["--hw", "hardware/h200x1-1128y-measured.yaml"],
                                  ["--hw", "h200-sxm"]],
    # 2 x H200 (NV18) of 2026-11-28 14:57 (stop 38), a fresh machine calibrated by none, the 76 rows (the compiled
    # ones in a second call on the same machine): 1128p, 1128t, 1128s, 1128y held out, the preset (its host the lent
    # hosts' median of 27 calibrations made before: validate/preset_host.py)
    "measured-h200x2-1128w.csv": [["--hw", "hardware/h200x2-1128p-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1128t-measured.yaml"],
                                  ["--hw", "h200-sxm", "--gpu", "hardware/h200x1-1128s-measured.yaml"],
                                  ["--hw", "hardware/h200x1-1128y-measured.yaml"],
                                  ["--hw", "h200-sxm"]],
    # 1 x H200 of 2026-11-28 15:06 (stop 38), a fresh machine calibrated by none: 1128s, 1128t, 1128p, 1128y held
    # out, preset
    "measured-h200x1-1128x.csv": [["--hw", "hardware/h200x1-1128s-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1128t-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1128p-measured.yaml"],
                                  ["--hw", "hardware/h200x1-1128y-measured.yaml"],
                                  ["--hw", "h200-sxm"]],
    # 1 x H200 of 2026-11-28 22:20 (stop 41), a fresh machine calibrated by none: 1128ze, 1128y, 1128p held out,
    # preset
    # 1 x H200 of 2026-11-29 00:18-00:27 (stop 42): its own full calibration (calibrate/device-cal.sh), then the rows
    # on the same lease (validate/runner/lease-run.sh GPUS=1); then 1128zf's neighbours held out, the preset
    # 1 x H200 of 2026-11-29 01:15 (stop 42), no calibration of its own: measured after the presets' compute medians
    # were written (blind), then scored: the calibrations of 1129a (a lease of the same day), 1128y, the preset
    # 1 x H200 of 2026-11-29 02:20 (stop 43), no calibration of its own, blind to every model (measured after
    # 7facc7f, the last change to the presets, and scored after): 1129a, 1128y, the preset
    "measured-h200x1-1129c.csv": [["--hw", "hardware/h200x1-1129a-measured.yaml"],
                                  ["--hw", "hardware/h200x1-1128y-measured.yaml"], ["--hw", "h200-sxm"]],
    "measured-h200x1-1129b.csv": [["--hw", "hardware/h200x1-1129a-measured.yaml"],
                                  ["--hw", "hardware/h200x1-1128y-measured.yaml"], ["--hw", "h200-sxm"]],
    "measured-h200x1-1129a.csv": [["--hw", "hardware/h200x1-1129a-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1128ze-measured.yaml"],
                                  ["--hw", "hardware/h200x1-1128y-measured.yaml"], ["--hw", "h200-sxm"]],
    "measured-h200x1-1128zf.csv": [["--hw", "hardware/h200x2-1128ze-measured.yaml"],
                                   ["--hw", "hardware/h200x1-1128y-measured.yaml"],
                                   ["--hw", "hardware/h200x2-1128p-measured.yaml"], ["--hw", "h200-sxm"]],
    # 1 x H200 of 2026-11-28 15:13 (stop 38), measured on the lease of hardware/h200x1-1128y-measured.yaml (its full
    # calibration with the step rows, the same call before): its own, then 1128s, 1128t and 1128p held out, preset
    "measured-h200x1-1128y.csv": [["--hw", "hardware/h200x1-1128y-measured.yaml"],
                                  ["--hw", "hardware/h200x1-1128s-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1128t-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1128p-measured.yaml"], ["--hw", "h200-sxm"]],
    # 4 x H200 (NV18) of 2026-11-28 07:25 (asked as 4 x H100; cal-and-rows.sh QUICK=1 GPUS=4: five one-GPU rows, the
    # runner's host probe took the rest of the budget): its quick calibration, 1128l (another lease), 1128a, preset
    # 2 x H200 of 2026-11-28 17:06-17:20 (stop 39): its own full calibration (the new rank spread, the presets'
    # group_us), then 1128p, 1128t, 1128y held out, preset
    "measured-h200x2-1128za.csv": [["--hw", "hardware/h200x2-1128za-measured.yaml"],
                                   ["--hw", "hardware/h200x2-1128p-measured.yaml"],
                                   ["--hw", "hardware/h200x2-1128t-measured.yaml"],
                                   ["--hw", "hardware/h200x1-1128y-measured.yaml"], ["--hw", "h200-sxm"]],
    # 2 x H200 of 2026-11-28 17:47 (stop 39), a fresh lease calibrated by none: 1128za, 1128p, 1128t, 1128y held
    # out, preset
    "measured-h200x2-1128zb.csv": [["--hw", "hardware/h200x2-1128za-measured.yaml"],
                                   ["--hw", "hardware/h200x2-1128p-measured.yaml"],
                                   ["--hw", "hardware/h200x2-1128t-measured.yaml"],
                                   ["--hw", "hardware/h200x1-1128y-measured.yaml"], ["--hw", "h200-sxm"]],
    # 2 x H200 of 2026-11-28 18:48-18:59 (stop 40): its own full calibration (made with the split-K GEMM model's
    # code; its tables decide), then 1128za, 1128p, 1128y held out, preset
    "measured-h200x2-1128zc.csv": [["--hw", "hardware/h200x2-1128zc-measured.yaml"],
                                   ["--hw", "hardware/h200x2-1128za-measured.yaml"],
                                   ["--hw", "hardware/h200x2-1128p-measured.yaml"],
                                   ["--hw", "hardware/h200x1-1128y-measured.yaml"], ["--hw", "h200-sxm"]],
    # 2 x H200 of 2026-11-28 21:41-21:53 (stop 41): its own full calibration, then 1128zc, 1128p, 1128y held out,
    # preset (the presets' overlap pair, host and attention are computed without it)
    "measured-h200x2-1128ze.csv": [["--hw", "hardware/h200x2-1128ze-measured.yaml"],
                                   ["--hw", "hardware/h200x2-1128zc-measured.yaml"],
                                   ["--hw", "hardware/h200x2-1128p-measured.yaml"],
                                   ["--hw", "hardware/h200x1-1128y-measured.yaml"], ["--hw", "h200-sxm"]],
    # 4 x H200 of 2026-11-28 19:00 (stop 40), a fresh machine calibrated by none: the 4-GPU calibrations 1128k and
    # 1128a, 1128zc and 1128y held out, preset
    "measured-h200x4-1128zd.csv": [["--hw", "hardware/h200x4-1128k-measured.yaml"],
                                   ["--hw", "hardware/h200x4-1128a-measured.yaml"],
                                   ["--hw", "hardware/h200x2-1128zc-measured.yaml"],
                                   ["--hw", "hardware/h200x1-1128y-measured.yaml"], ["--hw", "h200-sxm"]],
    # 4 x H200 of 2026-11-28 16:38 (stop 39), a fresh machine calibrated by none: the 4-GPU calibrations 1128k and
    # 1128a, 1128p and 1128y held out, preset
    "measured-h200x4-1128z.csv": [["--hw", "hardware/h200x4-1128k-measured.yaml"],
                                  ["--hw", "hardware/h200x4-1128a-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1128p-measured.yaml"],
                                  ["--hw", "hardware/h200x1-1128y-measured.yaml"], ["--hw", "h200-sxm"]],
    "measured-h200x4-1128k.csv": [["--hw", "hardware/h200x4-1128k-measured.yaml"],
                                  ["--hw", "hardware/h200x2-1128l-measured.yaml"],
                                  ["--hw", "hardware/h200x4-1128a-measured.yaml"], ["--hw", "h200-sxm"]],
    "measured-h200x2.csv": [["--hw", "hardware/h200x2-1127-measured.yaml"],
                            ["--hw", "hardware/h200x2-measured.yaml"],
                            ["--hw", "hardware/h200x2-measured.yaml", "--gpu", "hardware/h200x1-measured.yaml"],
                            ["--hw", "h200-sxm"]],
}


def score(gpusim, tree, table, hw):
    cmd = [gpusim, "validate", table, "--format", "csv"] + hw
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=tree)
    rows = [r for r in csv.DictReader(io.StringIO(p.stdout)) if r.get("rel_error") not in (None, "")]
    errs = []
    for r in rows:
        try:
            errs.append(float(r["rel_error"]))
        except ValueError:
            pass
    return errs


def main():
    bins = []
    for a in sys.argv[1:]:
        name, _, rest = a.partition("=")
        gpusim, _, tree = rest.partition("@")
        if not name or not gpusim:
            sys.exit(__doc__)
        bins.append((name, os.path.abspath(gpusim), os.path.abspath(tree or ".")))
    if not bins:
        sys.exit(__doc__)
    print("| table | hardware | binary | rows | median abs | max abs | signed median |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: |")
    for table in sorted(glob.glob("validate/*.csv")):
        name = table.split("/")[-1]
        if name == "published-other.csv":
            continue
        for hw in MODELS.get(name, [[]]):
            for label, gpusim, tree in bins:
                path = os.path.join(tree, table)
                if not os.path.exists(path):
                    continue
                with open(path) as f:
                    total = sum(1 for line in f if line.strip() and not line.startswith("#")) - 1
                e = score(gpusim, tree, table, hw)
                what = " ".join(x.replace("hardware/", "") for x in hw if not x.startswith("--")) or "scenario's"
                if not e:
                    print(f"| {name} | {what} | {label} | 0 of {total} | | | |")
                    continue
                a = [abs(x) for x in e]
                print(f"| {name} | {what} | {label} | {len(e)} of {total} | "
                      f"{100 * statistics.median(a):.1f} % | {100 * max(a):.1f} % | "
                      f"{100 * statistics.median(e):+.1f} % |")


if __name__ == "__main__":
    main()
