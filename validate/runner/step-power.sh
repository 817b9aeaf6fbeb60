#!/usr/bin/env bash
# validate/runner/step-power.sh: what SM clock, power and temperature a GPU-bound training step runs at, beside the
# held GEMM the calibration's power phase measures (`gpu.power`, docs/calibration.md): nvidia-smi samples GPU 0
# every 50 ms while (1) validate/runner/torch_step.py runs ROWS on one GPU with ITERS timed steps, then (2) a bf16
# 8192^3 GEMM is held back to back for HOLD_S seconds. The question it answers: does a step's GEMM run at the held
# clock (the power model's v = 1 at the cap), or above it, and at what average power?
# usage: validate/runner/step-power.sh        env: ROWS (default t07-single,t12-single,t19-single), ITERS (30),
#        HOLD_S (20). Files in $OUT: samples.csv (nvidia-smi: time, clock, power, temperature), marks.txt (when
#        each part began and ended), steps.csv (the rows' step times).
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
out=${OUT:-step-power-out}
mkdir -p "$out"
nvidia-smi -i 0 --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active \
	--format=csv,nounits -lms 50 >"$out/samples.csv" 2>&1 &
smi=$!
mark() { echo "$(date -u +%Y/%m/%d\ %H:%M:%S.%N | cut -c1-23) $*" >>"$out/marks.txt"; }
sleep 1
mark rows-begin
CUDA_VISIBLE_DEVICES=0 timeout 150 python3 validate/runner/torch_step.py --gpus 1 \
	--rows "${ROWS:-t07-single,t12-single,t19-single}" --iters "${ITERS:-30}" --out "$out/steps.csv" \
	>"$out/rows.log" 2>&1
mark rows-end
sleep 2
mark hold-begin
CUDA_VISIBLE_DEVICES=0 timeout 60 python3 - "${HOLD_S:-20}" <<'PY' >>"$out/rows.log" 2>&1
import sys, time, torch
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
end, n = time.time() + float(sys.argv[1]), 0
e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
while time.time() < end:
    e0.record()
    for _ in range(20):
        c = a @ b
    e1.record()
    e1.synchronize()
    n += 1
    if n % 10 == 0:
        print("hold %.1f s: %.1f TFLOP/s" % (time.time() - end + float(sys.argv[1]), 20 * 2 * 8192**3 / (e0.elapsed_time(e1) * 1e-3) / 1e12), flush=True)
PY
mark hold-end
sleep 1
kill $smi 2>/dev/null
wait 2>/dev/null
tail -3 "$out/rows.log"
