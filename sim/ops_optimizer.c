/* ops_optimizer: the optimizer step's cost (ops.h): the bytes it moves per parameter, by optimizer, master copy
 * and dtypes, and its time as one memory-bound pass. */
#include "hardware/hwmodel.h"
#include "sim/memory.h"
#include "sim/ops.h"

/* With a master copy (m bytes, fp32): the gradients are upcast into fp32 master gradients when narrower
 * (read g, write m), the optimizer reads master, master gradients and state and writes master and state, and the
 * master is cast back into the weights (read m, write w). Without one (fp32 or bf16 training, AMP): it reads
 * weights, gradients and state and writes weights and state. State s = 2 (Adam) or 1 (SGD) x its dtype. */
double ops_optimizer_bytes_per_param(const struct scenario *sc)
{
	double w = mem_weight_bytes_per_param(sc), g = dtype_bytes(sc->train.grad_dtype);
	double s = (sc->train.optimizer == OPT_ADAM ? 2 : 1) * dtype_bytes(sc->train.state_dtype);
	if (!mem_has_master(sc))
		return (w + g + s) + (w + s);
	double m = dtype_bytes(sc->train.master_dtype);
	double upcast = g < m ? g + m : 0;
	return upcast + (m + m + s) + (m + s) + (m + w);
}

/* One memory-bound pass over the bytes above; with measured kernel families (gpu.kernels, eager PyTorch) and
 * Adam, its parts at their own rates: the gradients' upcast, the fused Adam kernel over master, gradients and
 * state, and the master's cast back into the weights (each a kernel of its family). */
double ops_optimizer_s(const struct opctx *c, double params)
{
	const struct scenario *sc = c->sc;
	const struct hw_kernels *k = &c->hw->gpu.kern;
	double bytes = params * ops_optimizer_bytes_per_param(sc);
	if (!k->present || !(k->fam[KF_ADAM].gbps > 0) || sc->train.optimizer != OPT_ADAM ||
	    sc->train.exec == EXEC_COMPILED)
		return bytes / (hwmodel_mem_gbps(c->hw, bytes) * 1e9) + c->hw->gpu.launch_us * 1e-6;
	double w = mem_weight_bytes_per_param(sc), g = dtype_bytes(sc->train.grad_dtype);
	double s = 2 * dtype_bytes(sc->train.state_dtype);
	if (!mem_has_master(sc))
		return ops_kern_s(c->hw, KF_ADAM, params * ((w + g + s) + (w + s)));
	double m = dtype_bytes(sc->train.master_dtype), t = 0;
	if (g < m)
		t += ops_kern_s(c->hw, KF_UPCAST, params * (g + m));
	t += ops_kern_s(c->hw, KF_ADAM, params * ((m + m + s) + (m + s)));
	if (w < m)
		t += ops_kern_s(c->hw, KF_DOWNCAST, params * (m + w));
	else
		t += ops_kern_s(c->hw, KF_COPY, params * (m + w));
	return t;
}
