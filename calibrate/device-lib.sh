# calibrate/device-lib.sh: what every script run on a lent GPU machine starts with (sourced, not run):
#   device_begin WORK   $OUT (default ./device-out) with log.txt and summary.txt emptied, WORK emptied, say and step,
#                       t0, NVLink multicast off (NCCL_NVLS_ENABLE=0), CUDA on the PATH, and the machine's name:
#                       ngpu, gpu (h100, h200, ...), name (${NAME:-GPUxN}: h200x2 on two H200s)
#   device_deps         the Debian packages in .debs/ (libyaml, GSL: absent from the lent image) unpacked into
#                       /opt/deps, cmake_extra for CMake (and NCCL from PyTorch's wheel when the system has none),
#                       LD_LIBRARY_PATH for the binaries built with them
device_begin() {
	OUT=${OUT:-$PWD/device-out}
	mkdir -p "$OUT"
	work=$1
	rm -rf "$work"
	mkdir -p "$work"
	log=$OUT/log.txt
	summary=$OUT/summary.txt
	: >"$log"
	: >"$summary"
	t0=$(date +%s)
	export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
	[ -d /usr/local/cuda/bin ] && export PATH=/usr/local/cuda/bin:$PATH
	ngpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | wc -l)
	gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | tr '[:upper:]' '[:lower:]' |
		sed 's/^nvidia //; s/[^a-z0-9].*//')
	# NAME, or the GPUs the lease gave (a kind asked for may come as another) and SUFFIX: SUFFIX=1128a on 4 H100s
	# names the calibration h100x4-1128a
	name=${NAME:-${gpu:-gpu}x${ngpu}${SUFFIX:+-$SUFFIX}}
}
say() { echo "$*" | tee -a "$summary"; }
step() { echo "=== $* ($(date -u +%H:%M:%S))" | tee -a "$log"; }

device_deps() {
	deps=/opt/deps
	for f in .debs/*.deb; do [ -f "$f" ] && dpkg -x "$f" $deps; done
	cmake_extra=(-DCMAKE_PREFIX_PATH=$deps/usr -DCMAKE_LIBRARY_PATH=$deps/usr/lib/x86_64-linux-gnu
		-DGSL_ROOT_DIR=$deps/usr)
	export LD_LIBRARY_PATH=$deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	if [ ! -e /usr/include/nccl.h ] && [ ! -e /usr/local/cuda/include/nccl.h ]; then
		ncclroot=$(python3 -c 'import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__))' 2>/dev/null)
		[ -n "$ncclroot" ] && cmake_extra+=(-DNCCL_ROOT="$ncclroot") &&
			export LD_LIBRARY_PATH=$ncclroot/lib:$LD_LIBRARY_PATH
	fi
	return 0
}
