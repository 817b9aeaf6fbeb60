#!/usr/bin/env bash
# calibrate/device-probe.sh: what the lent GPU machine offers for a fused attention kernel callable from C (cuDNN
# headers and libraries, system or PyTorch's wheel), and the torch SDPA reference rows (calibrate/torch_attention.py).
# Files in $OUT: probe.txt, attention.csv.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT=${OUT:-$PWD/device-out}; mkdir -p "$OUT"
{
	date -u; nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv
	ls /usr/include/cudnn* /usr/local/cuda/include/cudnn* 2>&1 | head
	ldconfig -p | grep -i cudnn | head
	python3 -c 'import torch, os; print(torch.__version__, torch.version.cuda, torch.backends.cudnn.version())'
	python3 -c 'import nvidia.cudnn, os; p=os.path.dirname(nvidia.cudnn.__file__); print(p); print(os.listdir(p)); print(os.listdir(p+"/include")[:20]); print(os.listdir(p+"/lib"))' 2>&1
} >"$OUT/probe.txt" 2>&1
timeout 400 python3 calibrate/torch_attention.py >"$OUT/attention.csv" 2>"$OUT/attention.err"
echo "exit $?" >>"$OUT/probe.txt"
