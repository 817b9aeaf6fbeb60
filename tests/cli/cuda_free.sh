#!/usr/bin/env bash
# cuda_free.sh GPUSIM: gpusim names no CUDA library (issue 14): its ELF dynamic section and the libraries the
# loader maps for it (ldd) hold no CUDA runtime, driver, cuBLAS(Lt), NCCL, NVML or MPI; predict and --version load
# none at run time either (LD_DEBUG=libs); and calibrate, when its CUDA module cannot be loaded, names the missing
# library and exits 3 (a stand-in module that needs a library which is not there, built here with cc).
# No GPU, no timing. Prints "N passed, N failed".
set -uo pipefail

gpusim=${1:?usage: cuda_free.sh GPUSIM}
. "$(dirname "$0")/../cli_lib.sh"
cuda='lib(cuda|cudart|cublas|cublasLt|nccl|nvidia-ml|nvrtc|mpi)[^ ]*\.so'

if command -v readelf >/dev/null; then
	readelf -d "$gpusim" >"$tmp/dyn" 2>&1
	if grep -q NEEDED "$tmp/dyn"; then ok; else fail "readelf -d $gpusim lists no NEEDED entry"; fi
	if grep NEEDED "$tmp/dyn" | grep -Eq "$cuda"; then
		fail "gpusim's dynamic section names a CUDA library: $(grep NEEDED "$tmp/dyn" | grep -E "$cuda")"
	else ok; fi
fi
if command -v ldd >/dev/null; then
	ldd "$gpusim" >"$tmp/ldd" 2>&1
	if grep -Eq "$cuda" "$tmp/ldd"; then fail "ldd $gpusim maps a CUDA library: $(grep -E "$cuda" "$tmp/ldd")"; else ok; fi
fi

# nothing loaded at run time: the loader's own log of every library it maps
LD_DEBUG=libs "$gpusim" --version >/dev/null 2>"$tmp/ld1"
LD_DEBUG=libs "$gpusim" predict scenarios/gpt_small_2gpu.yaml >/dev/null 2>"$tmp/ld2"
if grep -q "calling init" "$tmp/ld1"; then
	if grep -Eq "$cuda|gpusim-cuda" "$tmp/ld1" "$tmp/ld2"; then
		fail "--version or predict loaded a CUDA library: $(grep -Eh "$cuda|gpusim-cuda" "$tmp/ld1" "$tmp/ld2" | head -3)"
	else ok; fi
fi

# calibrate where the CUDA part cannot be loaded: exit 3, the missing file named
"$gpusim" --version >"$tmp/ver"
if command -v cc >/dev/null && grep -q "compiled in (CUDA" "$tmp/ver"; then
	echo 'int gs_missing_fn(void) { return 1; }' >"$tmp/m.c"
	echo 'int gs_missing_fn(void); int gs_user(void) { return gs_missing_fn(); }' >"$tmp/u.c"
	if cc -shared -fPIC -o "$tmp/libgsmissing.so" "$tmp/m.c" &&
		cc -shared -fPIC -o "$tmp/mod.so" "$tmp/u.c" -L"$tmp" -lgsmissing; then
		rm "$tmp/libgsmissing.so"
		GPUSIM_CUDA_MODULE=$tmp/mod.so run calibrate --quick -o "$tmp/q.yaml"
		expect_rc 3 "calibrate without its libraries"
		expect_err "libgsmissing\.so" "calibrate names the missing library"
		expect_no_out "calibrate without its libraries"
	fi
	GPUSIM_CUDA_MODULE=$tmp/none.so run calibrate --quick -o "$tmp/q.yaml"
	expect_rc 3 "calibrate without its module"
	expect_err "none\.so" "calibrate names the missing module"
elif grep -q "not compiled in" "$tmp/ver"; then
	run calibrate --quick -o "$tmp/q.yaml"
	expect_rc 3 "calibrate not compiled in"
	expect_err "^gpusim: calibrate was not compiled in" "calibrate not compiled in"
fi
cli_done
