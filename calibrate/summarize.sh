#!/usr/bin/env bash
# calibrate/summarize.sh RAWDIR: the tables of docs/calibration.md, in Markdown, from the raw CSVs a calibration
# wrote (gpusim calibrate --raw RAWDIR, or --refit, which also rewrites the fit columns). Numbers only; the prose
# around them lives in the document.
set -euo pipefail
dir=${1:?usage: calibrate/summarize.sh RAWDIR}
id() { awk -F, -v k="$1" '$1 == k { sub(/^[^,]*,/, ""); print; exit }' "$dir/identity.csv"; }

echo "### Machine"
echo
echo "| | |"
echo "|---|---|"
echo "| GPUs | $(id gpus) x $(id gpu_name), $(id sm_count) SMs, compute capability $(id cc), $(awk "BEGIN{printf \"%.0f\", $(id memory_bytes)/1e9}") GB, power limit $(id power_limit_w) W |"
echo "| link | $(id nvlinks) NVLinks per GPU$( [ "$(id nvswitch)" = 1 ] && echo ', through NVSwitch') |"
cuda=$(id cuda_runtime); lt=$(id cublaslt_version); nccl=$(id nccl_version)
echo "| software | driver $(id driver), CUDA runtime $((cuda / 1000)).$((cuda / 10 % 100)), cuBLASLt $((lt / 10000)).$((lt / 100 % 100)).$((lt % 100)), NCCL $((nccl / 10000)).$((nccl / 100 % 100)).$((nccl % 100)) |"
echo "| run | $(id mode) run on host '$(id host)', $(id date); environment: $(id env) |"
echo

echo "### GEMM (cuBLASLt, TN, random data; TFLOP/s and efficiency of the dense datasheet peak)"
echo
echo "| dtype | 8192^3 alone (before the sweep) | 8192^3 in the sweep | best in the sweep | m=2048 n=k=4096 | m=128 n=k=4096 | grid points |"
echo "|---|---|---|---|---|---|---|"
awk -F, 'NR > 1 {
	d = $1; key = $2 "x" $3 "x" $4
	if ($10 == 0 && key == "8192x8192x8192") alone[d] = sprintf("%.0f (%.3f)", $8, $9)
	if ($10 == 1) {
		n[d]++
		if (key == "8192x8192x8192") sweep[d] = sprintf("%.0f (%.3f)", $8, $9)
		if (key == "2048x4096x4096") mid[d] = sprintf("%.0f (%.3f)", $8, $9)
		if (key == "128x4096x4096") small[d] = sprintf("%.0f (%.3f)", $8, $9)
		if ($8 > best[d]) { best[d] = $8; bestk[d] = sprintf("%.0f (%.3f) at %s", $8, $9, key) }
	}
	if (!(d in seen)) { seen[d] = 1; order[++nd] = d }
} END {
	for (i = 1; i <= nd; i++) {
		d = order[i]
		printf "| %s | %s | %s | %s | %s | %s | %d |\n", d, (d in alone) ? alone[d] : "-", sweep[d], bestk[d], mid[d], small[d], n[d]
	}
}' "$dir/gemm.csv"
echo

echo "### Clocks (GPU 0, NVML, sampled after each phase)"
echo
echo "| after | SM MHz | memory MHz | throttle reasons | power W | temperature C |"
echo "|---|---|---|---|---|---|"
awk -F, 'NR > 1 { printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6 }' "$dir/clocks.csv"
echo

echo "### NCCL collectives, 2 GPUs, one process (time per operation in us; bus bandwidth in GB/s)"
echo
echo "| op | 8 B | 64 KiB | 1 MiB | 16 MiB | 256 MiB | 1 GiB | 4 GiB | busbw 1 GiB | busbw 4 GiB |"
echo "|---|---|---|---|---|---|---|---|---|---|"
awk -F, 'NR > 1 && $1 == "intra" {
	k = $2 "/" $3; if (!(k in seen)) { seen[k] = 1; order[++n] = k }
	t[k, $4] = $5; bw[k, $4] = $9
} function at(k, b) { return ((k, b) in t) ? sprintf("%.1f", t[k, b]) : "-" }
  function bb(k, b) { return ((k, b) in bw) ? sprintf("%.1f", bw[k, b]) : "-" }
END {
	for (i = 1; i <= n; i++) {
		k = order[i]; split(k, p, "/")
		printf "| %s n=%s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", p[1], p[2], at(k, "8"), at(k, "65536"),
			at(k, "1048576"), at(k, "16777216"), at(k, "268435456"), at(k, "1073741824"), at(k, "4294967296"),
			bb(k, "1073741824"), bb(k, "4294967296")
	}
}' "$dir/collectives.csv"
echo

echo "### Fit quality (|fit - measured| / measured)"
echo
echo "| op | median 8 B..1 GiB | max 8 B..1 GiB | median, all sizes | max, all sizes | worst size |"
echo "|---|---|---|---|---|---|"
awk -F, 'function med(a, n,    i, j, x) { for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
NR > 1 && $1 == "intra" {
	k = $2 " n=" $3; if (!(k in seen)) { seen[k] = 1; order[++n] = k }
	e = $11 < 0 ? -$11 : $11
	all[k, ++na[k]] = e
	if ($4 + 0 <= 1073741824) { g[k, ++ng[k]] = e; if (e > mg[k]) mg[k] = e }
	if (e > ma[k]) { ma[k] = e; wb[k] = $4 }
} END {
	for (i = 1; i <= n; i++) {
		k = order[i]
		delete a; for (j = 1; j <= ng[k]; j++) a[j] = g[k, j]; m1 = med(a, ng[k])
		delete a; for (j = 1; j <= na[k]; j++) a[j] = all[k, j]; m2 = med(a, na[k])
		printf "| %s | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.0f B |\n", k, 100 * m1, 100 * mg[k], 100 * m2, 100 * ma[k], wb[k]
	}
}' "$dir/collectives.csv"
echo

echo "### Memory-bound kernels (GB/s counting bytes read and written)"
echo
echo "| bytes moved | copy | add (c = a + b) |"
echo "|---|---|---|"
awk -F, 'NR > 1 { v[$1, $2] = $4; if (!($2 in s)) { s[$2] = 1; o[++n] = $2 } }
END { for (i = 1; i <= n; i++) printf "| %.0f | %.0f | %.0f |\n", o[i], v["copy", o[i]], v["add", o[i]] }' "$dir/memory.csv"
echo

echo "### Attention core (bf16, cuBLASLt batched GEMMs + softmax kernels, unfused, no mask)"
echo
echo "| batch x heads | seq | head dim | forward us | backward us | forward TFLOP/s | backward TFLOP/s |"
echo "|---|---|---|---|---|---|---|"
awk -F, 'NR > 1 { printf "| %s | %s | %s | %.0f | %.0f | %.0f | %.0f |\n", $1, $2, $3, $4, $5, $6, $7 }' "$dir/attention.csv"
echo

echo "### Launch and overlap"
echo
echo "| what | value |"
echo "|---|---|"
awk -F, 'NR > 1 { printf "| %s | %s %s |\n", $1, $2, $3 }' "$dir/misc.csv"
