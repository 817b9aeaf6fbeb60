/* ops_kernels: what one kernel costs on the GPU's timeline beside its work (ops.h): memory-bound kernels by the copy
 * rate or by their measured family (gpu.kernels), and the fixed cost added to a GEMM or an attention kernel. */
#include "hardware/hwmodel.h"
#include "sim/ops.h"

double ops_mem_s(const struct hwmodel *hw, double bytes)
{
	return bytes / (hwmodel_mem_gbps(hw, bytes) * 1e9) + hw->gpu.launch_us * 1e-6;
}

double ops_kern_s(const struct hwmodel *hw, enum kern_family f, double bytes)
{
	const struct hw_kernels *k = &hw->gpu.kern;
	if (f >= KF_N || !k->present || !(k->fam[f].gbps > 0))
		return ops_mem_s(hw, bytes);
	return (hwmodel_kern_us(&k->fam[f], bytes) + k->gap_us) * 1e-6;
}

/* launch_us; with measured kernel families (gpu.kernels) nothing for the GEMM itself, whose table times
 * back-to-back products (each holds one gap already), but the kernels eager PyTorch launches beside it
 * (gemm_extra: cuBLAS's workspace memsets, each its time and a gap), and the gap for a kernel timed alone (the
 * attention rows: the profiled kernels' time). */
double ops_gemm_overhead_s(const struct hwmodel *hw)
{
	const struct hw_kernels *k = &hw->gpu.kern;
	if (!k->present)
		return hw->gpu.launch_us * 1e-6;
	return k->gemm_extra_kernels * (k->gemm_extra_us + k->gap_us) * 1e-6;
}

double ops_kernel_overhead_s(const struct hwmodel *hw)
{
	return (hw->gpu.kern.present ? hw->gpu.kern.gap_us : hw->gpu.launch_us) * 1e-6;
}
