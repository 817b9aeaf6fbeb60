/* hwmodel: the hardware model the simulator times work with (docs/hardware-model.md), loaded from the
 * gpusim-hw/1 YAML schema that `gpusim calibrate` writes and the built-in presets use.
 * A loaded model is plain data and always complete: every field has a value and a provenance string.
 * Units: time us in files and s in code where a name ends in _s; bandwidth GB/s = 1e9 B/s; sizes bytes. */
#ifndef HWMODEL_H
#define HWMODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "util/dtype.h"

enum coll_op {
	COLL_ALL_REDUCE,
	COLL_ALL_GATHER,      /* bytes = whole gathered array (n * per-rank part), as nccl-tests */
	COLL_REDUCE_SCATTER,  /* bytes = whole input array (n * per-rank part) */
	COLL_BROADCAST,
	COLL_SEND_RECV,       /* point to point, bytes sent */
	COLL_ALL_TO_ALL,      /* bytes = whole per-rank send buffer */
	COLL_NOPS
};
enum coll_scope { SCOPE_INTRA, SCOPE_INTER, SCOPE_N };  /* inside a node / across nodes (one GPU per node) */
enum fabric { FABRIC_NVSWITCH, FABRIC_NVLINK, FABRIC_PCIE };
/* How the framework issues the step's work: eager (PyTorch op by op from Python), cuda_graphs (the step replayed
 * from a captured CUDA graph), compiled (torch.compile: generated code calls the kernels). */
enum exec_mode { EXEC_EAGER, EXEC_CUDA_GRAPHS, EXEC_COMPILED, EXEC_N };

const char *coll_op_name(enum coll_op op);        /* "all_reduce", ... (the YAML keys) */
const char *coll_scope_name(enum coll_scope sc);  /* "intra", "inter" */
const char *hwmodel_fabric_name(enum fabric f);    /* "nvswitch", "nvlink", "pcie" (node.fabric's values) */
/* exec_mode_names: "eager", "cuda_graphs", "compiled", NULL, in enum order (the YAML keys and values). */
extern const char *const exec_mode_names[];

/* One latency/bandwidth line: t_us = alpha_us + step_us*steps(op,n) + bytes*busfactor(op,n)/(bus_gbps*1e3).
 * n == 0: valid for every group size; otherwise only for groups of exactly n. The model is the lower envelope
 * (minimum) of the lines that apply, as NCCL picks the fastest algorithm/protocol. */
struct coll_line {
	char algo[32];
	int n;
	double alpha_us, step_us, bus_gbps;
	double max_bytes;     /* 0 = no limit; else the line applies only up to this size */
};

/* Measured times for one group size, interpolated log-log in bytes inside [bytes[0], bytes[npts-1]]. */
struct coll_table {
	int n;
	int npts;
	double *bytes, *time_us;
};

struct coll_model {
	int nlines, ntables;
	struct coll_line *lines;
	struct coll_table *tables;
	char source[256];
};

/* GEMM efficiency (achieved / peak) on a log2 grid of m (rows = tokens), n (output features),
 * k (reduction); eff[(im*nn + in)*nk + ik]. */
struct gemm_table {
	bool present;
	int nm, nn, nk;
	double *m, *n, *k, *eff;
	char source[256];
};

/* An attention kernel family (docs/hardware-model.md, gpu.attention): measured rates by shape where rows are
 * given, else the fractions of the dtype peak. FLOPs count 4*b*heads*s^2*hd forward (halved when causal) and
 * 2.5 times that backward, the FlashAttention benchmarks' convention. */
enum attn_path { ATTN_FUSED, ATTN_UNFUSED, ATTN_CUDNN, ATTN_PATHS };  /* ATTN_CUDNN: a second fused family, cuDNN's
                                                                       * fused SDPA (gpu.attention.cudnn) */
#define HW_ATTN_ROWS 160
struct attn_row {
	int head_dim;
	bool causal;
	double seq;
	double bh;                    /* batch x query heads of the measured call (0: not given): the kernel's thread
	                               * blocks scale with it, and a small batch leaves SMs idle */
	double fwd_tflops, bwd_tflops;
};
struct hw_attn {
	bool present;
	char impl[32];                /* fused: "flash" (FlashAttention-2, SDPA's flash backend), "cudnn", "fa3",
	                               * ...; unfused: "cublas_unfused" */
	double fwd_eff, bwd_eff;      /* fraction of the dtype peak, for shapes no row covers */
	bool burst;                   /* the rates are a short run's (a published benchmark): divided by
	                               * gpu.power.burst_speedup to give the sustained rates the model holds */
	bool max_clock;               /* clock: max: held alone, the kernel stays under the power cap at the maximum
	                               * SM clock (measured), so its rates hold in any step and the power model
	                               * neither slows nor speeds it: its time is fixed, like a memory-bound
	                               * kernel's (burst is then ignored) */
	double power;                 /* with clock: max, > 0 when measured: the kernel's draw held alone at the maximum
	                               * clock, a fraction of the power limit (calibrate's hold); it then counts in the
	                               * power balance (sim/predict.c) and follows clock_exponent; 0: fixed time */
	double clock_exponent;        /* with power (measured: calibrate's attention + GEMM mixes): in a step whose
	                               * GEMMs run at v times their sustained rate (gpu.power), the kernel runs at
	                               * (v / A)^clock_exponent of its rows' rate (0: at its rows' rate) */
	double clock_anchor;          /* with clock_exponent: A, the GEMMs' speed v at which the kernel runs at its
	                               * rows' (maximum-clock) rate, fitted with the exponent to the mixes; 0 (or under
	                               * gpu.power.burst_speedup): A = burst_speedup */
	int nrows;
	struct attn_row row[HW_ATTN_ROWS];
	char source[160];
};

/* What an eager framework launches besides GEMMs and attention (docs/hardware-model.md, gpu.kernels; measured by
 * `gpusim calibrate --kernels torch`): each family of memory-bound kernels takes latency_us + bytes/gbps (the
 * bytes sim/ops.c counts for its op), and the GPU idles gap_us between two kernels of a full stream. A family
 * with gbps 0 (not given) is priced by memory_bound and launch_us, as without the section. */
enum kern_family {
	KF_ELEMENTWISE, KF_UPCAST, KF_DOWNCAST, KF_FILL, KF_LAYERNORM, KF_LAYERNORM_BWD, KF_RMSNORM, KF_RMSNORM_BWD,
	KF_SOFTMAX, KF_SOFTMAX_BWD, KF_ADAM, KF_N, KF_COPY = KF_N  /* KF_COPY: the memory_bound copy rate */
};
extern const char *const hw_kern_family_names[KF_N];
#define HW_KERN_POINTS 16
#define HW_MAX_GPU_RATES 16   /* gpu.power.gpu_rates: the GPUs of one host */
struct hw_kern {
	double gbps;         /* asymptotic rate over the bytes the op model counts (0: not measured) */
	double latency_us;   /* the kernel's time at the smallest size: its fixed cost */
	int npoints;         /* measured times at sizes beyond the L2 cache (bytes ascending), 0: none; between two
	                      * the time is interpolated, below the first it runs from latency_us to it, beyond the
	                      * last it grows at gbps */
	double bytes[HW_KERN_POINTS], us[HW_KERN_POINTS];
};
struct hw_kernels {
	bool present;
	double gap_us;       /* GPU idle between two back-to-back kernels of a stream the host keeps full */
	double gemm_extra_kernels;  /* kernels eager PyTorch launches beside each GEMM at a layer's shapes (cuBLAS's
	                             * workspace memsets), per GEMM; 0: none measured */
	double gemm_extra_us;       /* the GPU time of one of them */
	struct hw_kern fam[KF_N];
	char source[200];
};

struct hw_gpu {
	char name[96];
	int sm_count;
	double memory_bytes;
	double hbm_gbps;
	double peak_tflops[DT_COUNT];
	double peak_fp4_tflops;     /* peak_tflops.fp4: dense 4-bit (NVFP4) tensor rate, 0 = none (pre-Blackwell) */
	double launch_us;           /* per kernel, added to every op */
	double workspace_bytes;     /* allocated once per GPU by the framework (cuBLAS/cuBLASLt workspaces) */
	double mem_eff;             /* fraction of hbm_gbps a memory-bound kernel reaches (large sizes) */
	double mem_half_bytes;      /* size at which a memory-bound kernel reaches half of mem_eff (0 = none) */
	char mem_source[256];       /* memory_bound.source (default: the gpu's) */
	/* analytic GEMM model, used where no table exists for a dtype:
	 * eff = gemm_max_eff * wave_quantization(m, n; tile, sm_count) * k/(k + gemm_k_half) */
	double gemm_max_eff;
	int gemm_tile_m, gemm_tile_n;
	double gemm_k_half;
	char gemm_model_source[160];        /* gemm.model.source (default: the gpu's) */
	double gemm_dtype_eff[DT_COUNT];    /* gemm.model.dtype_eff.<dtype>: the ceiling for that dtype in place of
	                                     * gemm_max_eff (FP8 reaches a smaller share of its peak), 0 = max_eff */
	double gemm_fp4_eff;                /* gemm.model.dtype_eff.fp4, 0 = max_eff */
	struct gemm_table gemm[DT_COUNT];
	bool gemm_burst;                    /* gemm.rates: burst, the model and tables are a short run's rates,
	                                     * divided by burst_speedup to give sustained ones */
	struct hw_attn attn[ATTN_PATHS];    /* fused (flash), unfused and cuDNN fused attention cores */
	struct hw_kernels kern;             /* gpu.kernels: the framework's memory-bound kernels by family */
	/* power cap: the rates above are sustained (GPU busy all the time at its power limit); a GPU busy a fraction
	 * u of the step runs its compute min(burst_speedup, u^(-1/power_exponent)) times faster. 1 = not modelled */
	double burst_speedup;
	double power_exponent;              /* power ~ SM clock^exponent (> 1) */
	double power_mem_frac;              /* power a memory-bound kernel draws, as a fraction of the cap */
	double power_comm_frac;             /* ... a GPU waiting in communication (NCCL kernels spinning) */
	double power_idle_frac;             /* ... an idle GPU (static power) */
	double power_window_ms;             /* power.window_ms: the limiter's time constant tau: a wait of g ms earns the
	                                     * compute around it tau (1 - e^(-g/tau)) ms of idle, not g (measured by the
	                                     * power phase's gap bursts); 0 = every wait in full */
	/* power.gpu_rates: each GPU of the measured host held at its cap together with the others, its sustained
	 * rate over the calibrated GPU's held alone (chips differ at the cap: a leakier one draws more at a clock);
	 * a synchronous job runs at its slowest GPU's (sim/predict.c). 0 of them = not measured */
	int ngpu_rates;
	double gpu_rates[HW_MAX_GPU_RATES];
	char power_source[160];             /* power.source (default: the gpu's) */
	char source[256];
};

struct hw_node {
	int gpus;                 /* GPUs per node */
	enum fabric fabric;
	double link_gbps;         /* per GPU per direction (NVLink aggregate, or PCIe) */
	double host_gbps;         /* GPU <-> host memory per GPU per direction (PCIe, or NVLink-C2C on Grace
	                           * superchips); 0: not given (activation offload then cannot be predicted) */
	double host_memory_bytes; /* the node's host memory (all its CPUs); 0: not given (not checked) */
	char source[256];
};

struct hw_net {
	int nics;                 /* per node */
	double nic_gbps;          /* per NIC per direction */
	double latency_us;
	double oversubscription;  /* >= 1 */
	char source[128];
};

/* CPU time the host spends issuing work in one execution mode, in us (host.<mode> in the YAML; 0 where not
 * given). The host runs ahead of the GPU; a GPU op cannot start before the host has issued it. */
struct hw_host_cost {
	double step_us;           /* once per step: the training loop's own work (zero_grad, loop, graph launch) */
	double op_us;             /* per op: framework dispatch (Python, ATen, autograd bookkeeping) */
	double launch_us;         /* per kernel: the driver's launch call (cudaLaunchKernel) */
	double coll_us;           /* per collective or p2p call: the process group's enqueue (events, ncclXxx) */
	double bucket_us;         /* per DDP gradient bucket: the reducer's hook work around the bucket's all-reduce */
	double group_us;          /* per collective or p2p call (and DDP bucket), on top of coll_us: what a call on a
				   * group of 2 or more ranks costs the host beyond the 1-rank group's call the probe
				   * measures (no one-GPU calibration can measure it: a based file that leaves it out
				   * keeps its base's, hwload.c) */
	/* By op class (eager PyTorch, measured by `calibrate --kernels torch`, docs/hardware-model.md "host"): each the
	 * whole host time of one op of the class, its kernel's launch included; 0 (not given): op_us + launch_us. */
	double gemm_us;           /* a forward GEMM (F.linear on (batch, tokens, hidden) activations) */
	double gemm2d_us;         /* a forward GEMM on (rows, width) activations (an MLP or dense layer list) */
	double attn_us;           /* a forward attention core (scaled_dot_product_attention) */
	double norm_us;           /* a forward LayerNorm / RMSNorm */
	double bwd_op_us;         /* a backward kernel other than a GEMM or attention (its autograd node's share) */
	double bwd_gemm_us;       /* a backward GEMM (dgrad or wgrad; 3-D activations), its node's share */
	double bwd_gemm2d_us;     /* the same on 2-D activations */
	double bwd_attn_us;       /* the attention core's backward */
	double accum_us;          /* per parameter tensor per micro-batch: AccumulateGrad into its .grad */
	double backward_us;       /* per micro-batch: the backward() call (the autograd engine's start, hand-back) */
	double opt_us;            /* per optimizer step: the optimizer's call (fused AdamW over the tensors) */
	/* A compiled step (torch.compile, measured by the probe's compiled rows, docs/hardware-model.md "host"); 0: not
	 * given. With a kernel key given, every op of the op lists costs its kernel's share of the graph call instead
	 * of its class (accum_us still added per parameter tensor: the AccumulateGrad run eagerly outside the graph) */
	double graph_us;          /* per micro-batch: the forward graph's call (guards, runtime wrappers), with
				   * backward_us at the backward's start */
	double kernel_us;         /* per kernel a compiled forward launches (inductor's code: a Triton launch or an
				   * extern GEMM's, attention's call), 3-D activations */
	double kernel2d_us;       /* the same on (rows, width) activations (an MLP or dense layer list) */
	double bwd_kernel_us;     /* per kernel of the compiled backward graph, 3-D activations */
	double bwd_kernel2d_us;   /* the same on 2-D activations */
	double subgraph_us;       /* per micro-batch and subgraph beyond the first of a compiled DDP module (dynamo's
				   * DDPOptimizer, sim/ddpsplit.h): its forward call; 0: graph_us */
	double bwd_subgraph_us;   /* the same in the backward; 0: backward_us */
	double graph2d_us;        /* graph_us of an MLP or dense layer list (2-D activations); 0: graph_us */
	double backward2d_us;     /* backward_us of the same; 0: backward_us */
	/* Kernels a compiled layer launches (the probe's 1-, 2- and 4-layer stacks, slopes over the layers), not a
	 * cost: its forward graph's, its backward graph's (the parameters' AccumulateGrad not counted), for a
	 * transformer block and for a dense layer. Inductor fuses and splits differently from gpusim's op list (a
	 * pre-LN block's backward: 18 kernels against 13 ops), so a layer's graph costs kernel_us x layer_kernels,
	 * spread over its ops (sim/ops_host.c, ops_price_layer_host); 0: one kernel per op */
	double layer_kernels, bwd_layer_kernels, layer2d_kernels, bwd_layer2d_kernels;
	/* Not a cost: how far the host speed of a job's processes differs among them at one time, as a fraction of
	 * its mean (their standard deviation over the mean; calibrate measures it with the host probe run on every
	 * GPU at once). A synchronous step waits at every collective for its slowest process, so a job of N
	 * processes pays every host cost above x (1 + rank_spread * E[max of N standard normals]) (sim/ops_host.c,
	 * ops_host_rank_factor); 0: not measured, no such factor. */
	double rank_spread;
	/* Not a cost: how fast and how slow the host ran over the calibration's probe rounds, as factors on every
	 * host cost of the model (the mixed-stream ratio's smallest and largest round over the median kept, forward
	 * and backward: drift_lo <= 1 <= drift_hi). A lent or shared host drifts by tens of percent in minutes, and a
	 * host-bound step moves with it: `predict` reports the step on a host this fast and this slow beside the
	 * prediction (sim/hostband.h). 0: not measured, no band. */
	double drift_lo, drift_hi;
};

/* The host.<mode> keys in file order and their fields (hwload, hwwrite and hwequal walk it). */
struct hw_host_key {
	const char *key;
	size_t offset;            /* of the double in struct hw_host_cost */
};
extern const struct hw_host_key hw_host_keys[];
static inline double *hw_host_field(struct hw_host_cost *c, int i)
{
	return (double *)((char *)c + hw_host_keys[i].offset);
}
static inline double hw_host_value(const struct hw_host_cost *c, int i)
{
	return *(const double *)((const char *)c + hw_host_keys[i].offset);
}

struct hw_host {
	struct hw_host_cost mode[EXEC_N];
	char source[512];  /* a calibration's note of its probe rows runs to about 460 characters */
};

/* Where the parts of a model came from (docs/hardware-model.md, "Origin"): each a short phrase beginning with
 * "measured", "preset" or "file" (a hand-written model), shown by predict's table, the JSON report's `origin`
 * object and `presets show`. */
struct hw_origin {
	char gpu[200];           /* the gpu section (rates, attention, launch, power) and host costs */
	char intra[240];         /* collectives inside a node */
	char node[200];          /* node and network (inter-node collectives) */
	char note[480];          /* assumptions made composing or retargeting; "" when none */
	int measured_group;      /* largest intra-node group measured (tables or lines with that n); 0 none */
	bool calibrated;         /* the file was written by gpusim calibrate (source "measured: gpusim calibrate") */
	int host_gpus;           /* meta.node.gpus: the measuring host's node, which a based calibration records as a
				  * fact, not as the model's node (0: not recorded; then node is the host's) */
	enum fabric host_fabric; /* meta.node.fabric, with host_gpus */
	bool composed;           /* made by hwmodel_compose (--gpu) */
};

struct hwmodel {
	char name[64];
	char path[512];
	char base[160];                   /* the file's `base:` value ("" when none): the model it overrides */
	char description[512];            /* the file's description ("" when none; cut to fit) */
	char source[256];                 /* the file's own source, the default of every section's */
	struct hw_gpu gpu;
	struct hw_node node;
	struct hw_net net;
	struct coll_model coll[SCOPE_N][COLL_NOPS];
	double overlap_compute_slowdown;  /* compute time *= 1+x while a collective runs beside it */
	double overlap_comm_slowdown;     /* collective time *= 1+x while compute runs beside it */
	/* the same for TP communication overlap's transfers (Transformer Engine's userbuffers, sim/overlap.c): their
	 * own pair where the file gives one (overlap.tp_compute_slowdown, tp_comm_slowdown), else the pair above */
	bool overlap_tp_set;
	double overlap_tp_compute_slowdown, overlap_tp_comm_slowdown;
	char overlap_source[200];
	double usd_per_gpu_hour;          /* 0 = unknown */
	char cost_source[128];
	struct hw_host host;              /* all 0 when the file has no host section */
	struct hw_origin origin;
};

/* hwmodel_load: name is a preset name ("h100-dgx", see hwmodel_preset_names) or a YAML path. A file may say
 * `base: PRESET|PATH` (a path relative to the file) and give only what it overrides: the base is loaded first (its
 * own base too), maps merge key by key, a given list replaces the base's; a cycle or an unknown base is an error
 * at the `base:` value (docs/hardware-model.md, "Bases").
 * Returns a new model (caller frees with hwmodel_free) or NULL after printing file:line:col errors;
 * *err gets GS_EINVAL (bad file or unknown preset) or GS_EENV (cannot read). */
struct hwmodel *hwmodel_load(const char *name_or_path, int *err);
struct hwmodel *hwmodel_load_string(const char *name, const char *text, int *err);
void hwmodel_free(struct hwmodel *hw);
/* hwmodel_gemm_clear: frees and empties g's GEMM tables; hwmodel_coll_clear: frees and empties a collective's lines
 * and tables (its source kept). For code that replaces them (a file over a base, a calibration over its base). */
void hwmodel_gemm_clear(struct hw_gpu *g);
void hwmodel_coll_clear(struct coll_model *cm);
/* hwmodel_copy: a deep copy (tables included), freed with hwmodel_free. */
struct hwmodel *hwmodel_copy(const struct hwmodel *hw);
/* hwmodel_scale_host: every host cost of every execution mode (the host.<mode> keys in us) times f, in place; the
 * kernel counts, rank_spread and the drift range stay (sim/hostband.c: the step on a faster or slower host). */
void hwmodel_scale_host(struct hwmodel *hw, double f);
/* hwmodel_compose: a measured GPU inside a cluster's node (issue 12; docs/hardware-model.md, "Compose"): a new
 * model with measured's gpu section (GEMM rates and tables, memory-bound rates, attention, launch, power) and host
 * costs, and cluster's node, network, inter-node collectives and cost. Intra-node collectives: when the measured
 * node is the same kind as the cluster's (same GPU name and fabric), the measured curves for groups of up to the
 * measured group size, and for larger groups on an NVSwitch node the measured curves grown by NCCL's ring
 * (docs/hardware-model.md, "Growing a node"); otherwise the cluster's. origin says which part came from where,
 * origin.note the assumptions. Returns a new model (hwmodel_free). */
struct hwmodel *hwmodel_compose(const struct hwmodel *cluster, const struct hwmodel *measured);
/* hwmodel_retarget: measured's GPU efficiencies (achieved/peak) carried to the GPU of preset target (--target-gpu):
 * the GPU's name, SM count, memory, HBM bandwidth and peaks become target's; GEMM tables, attention and memory
 * efficiencies stay fractions of the (new) peaks; measured attention rates (TFLOP/s rows) scale by the peak ratio.
 * Modifies hw in place and writes the assumption into hw->origin.note. */
void hwmodel_retarget(struct hwmodel *hw, const struct hwmodel *target);

/* hwmodel_write: hw as one complete gpusim-hw/1 file (no `base:`; every section with its source; numbers with 17
 * significant digits, so loading the text gives the same model). */
void hwmodel_write(FILE *f, const struct hwmodel *hw);
/* hwmodel_equal: a and b hold the same model, every field compared exactly (numbers, strings, tables, lines, host
 * costs, the measuring host of meta.node); not compared: where each was loaded from (path, base) and how its parts
 * were composed (origin's descriptions, which a merged file written by hwmodel_write no longer has). false with the
 * first difference in why ("gpu.hbm_gbps: 4800 != 4000") when why is not NULL. hardware/hwequal.c. */
bool hwmodel_equal(const struct hwmodel *a, const struct hwmodel *b, char *why, size_t len);
/* NULL-terminated list of built-in preset names, sorted; owned by the library (do not free). */
const char *const *hwmodel_preset_names(void);
/* The YAML text of a preset, or NULL. */
const char *hwmodel_preset_text(const char *name);
/* hwmodel_is_preset_name: s names a built-in preset rather than a file (no '/', no .yaml/.yml ending);
 * it says nothing about whether that preset exists. */
bool hwmodel_is_preset_name(const char *s);
/* hwmodel_unknown_preset: prints "gpusim: [file:line:col: ]unknown hardware preset 'x' (did you mean 'y'?
 * presets: a, b, c)" and returns GS_EINVAL; file NULL prints no position. */
int hwmodel_unknown_preset(const char *file, int line, int col, const char *name);

/* GEMM efficiency (achieved/peak, > 0; at most 1.5 as the loader allows) for an m x n x k product in dtype dt:
 * the dtype's table (log2-trilinear, clamped at the edges) or the analytic model. */
double hwmodel_gemm_eff(const struct hwmodel *hw, enum dtype dt, double m, double n, double k);
/* Seconds of an m x n x k GEMM whose operands are NVFP4 (4-bit with 16-element block scales, Blackwell):
 * 2mnk / (peak_tflops.fp4 * the analytic model with the fp4 ceiling). Requires peak_fp4_tflops > 0. */
double hwmodel_gemm_fp4_s(const struct hwmodel *hw, double m, double n, double k);
/* Achieved TFLOP/s of an attention core on path p for sequence seq and head dimension hd (dtype dt's peak
 * scales the eff fallback): the rows of the nearest head dimension, same mask preferred, interpolated in
 * log2(seq) and clamped at their ends; with no rows, eff * peak. 0 when the path has no entry. */
/* hwmodel_attn_tflops_bh: the same for a call of bh = batch x query heads (rows that give bh: log2-interpolated
 * between the bh measured at each seq, clamped; bh <= 0 or rows without it: the largest bh measured at each seq). */
double hwmodel_attn_tflops_bh(const struct hwmodel *hw, enum attn_path p, enum dtype dt, double seq, int hd,
			      bool causal, bool backward, double bh);
double hwmodel_attn_tflops(const struct hwmodel *hw, enum attn_path p, enum dtype dt, double seq, int hd, bool causal,
			   bool backward);
/* Memory-bound kernel bandwidth in GB/s for a kernel that moves bytes. */
double hwmodel_mem_gbps(const struct hwmodel *hw, double bytes);
/* hwmodel_gpu_rate: the sustained rate of the slowest of a job's GPUs over the calibrated GPU's (gpu.power.
 * gpu_rates; 1 where not measured, for one GPU, and never above 1): sim/predict.c runs the power cap at it. */
/* The interference pair of TP communication overlap's transfers beside their GEMM chunks: overlap.tp_* where
 * the model gives them, else the collective pair. */
void hwmodel_tp_overlap(const struct hwmodel *hw, double *compute_slowdown, double *comm_slowdown);
double hwmodel_gpu_rate(const struct hwmodel *hw, int gpus);
/* hwmodel_kern_us: the time in us of a kernel of a measured family (gpu.kernels, gbps > 0) moving `bytes`, without
 * the gap after it. */
double hwmodel_kern_us(const struct hw_kern *k, double bytes);
/* Time in us of one collective inside one scope, for a group of n ranks (0 for n < 2): the table for exactly n
 * when bytes lies in its range, else the fastest line that applies, else a ring formula from node.link_gbps
 * (intra) or the network (inter); rules in docs/hardware-model.md. */
double hwmodel_coll_us(const struct hwmodel *hw, enum coll_scope sc, enum coll_op op, int n, double bytes);
/* busfactor(op, n) and steps(op, n) of the line formula. */
double coll_busfactor(enum coll_op op, int n);
double coll_steps(enum coll_op op, int n);

#endif
