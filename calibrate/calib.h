/* calib: everything one calibration run measured, as plain data with no CUDA in it. The measuring code
 * (calibrate/run.c) fills it, fitting (fit.c, gemmtab.c) reads it, and the model step (calmodel.c) turns it into a
 * gpusim-hw/1 file; unit tests build one by hand. A struct calib is valid at every moment of a run: counts say
 * how much of each part exists, so a run that stops early still writes what it has. */
#ifndef CALIB_H
#define CALIB_H

#include <stdbool.h>
#include <stdio.h>
#include "hardware/hwmodel.h"
#include "calibrate/fit.h"

#define CAL_MAX_GPUS 16
#define CAL_MAX_AXIS 32    /* values per GEMM grid axis */
#define CAL_MAX_PTS 48     /* sizes per collective series */
#define CAL_MAX_MEM 64
#define CAL_MAX_ATTN 8
#define CAL_MAX_CLOCKS 64
#define CAL_MAX_SHAPES 64
#define CAL_MAX_HOLD 512   /* samples of the sustained warm-up */
#define CAL_MAX_MIX 4
#define CAL_MAX_GAPS 8       /* idle gaps of the power phase's burst probe */
#define CAL_MAX_GAPS_TEXT "8"
#define CAL_MAX_GAP_BINS 64
#define CAL_MAX_FATTN 512  /* fused attention rows measured through PyTorch (both families) */
#define CAL_MAX_TKERN 512  /* rows of the PyTorch kernel probe (calibrate/torch_kernels.py): 181 + 54 compiled */

/* What was found about the machine. */
struct cal_identity {
	char host[64];
	char date[32];            /* UTC, ISO 8601 */
	char mode[16];            /* "full" or "quick" */
	int ngpus;                /* GPUs calibrated on this host (--gpus N, or all) */
	int host_gpus;            /* GPUs the host has (CUDA's count), the model's node size: a 2-GPU calibration
				   * of an 8-GPU NVSwitch host describes that host; 0 (old raw files): ngpus */
	int nodes;                /* hosts (MPI); 1 otherwise */
	char gpu_name[96];
	int sm_count, cc_major, cc_minor;
	double memory_bytes, l2_bytes;
	int sm_clock_max_mhz, mem_clock_max_mhz;
	double power_limit_w;
	char driver[32];
	int cuda_runtime, cuda_driver, cublaslt_version, nccl_version;
	int nvlinks;              /* active NVLinks of GPU 0 (NVML); -1 unknown */
	bool nvswitch;            /* an NVLink ends at an NVSwitch */
	signed char p2p[CAL_MAX_GPUS][CAL_MAX_GPUS];  /* peer access 1/0 */
	int topo_nv[CAL_MAX_GPUS][CAL_MAX_GPUS];      /* nvidia-smi topo -m: NVLinks between two GPUs, 0 none, -1 unknown */
	char topo_text[4096];     /* nvidia-smi topo -m as printed, "" if unavailable */
	char env[512];            /* NCCL_* and CUDA_VISIBLE_DEVICES settings, "K=V K=V" */
};

/* One GEMM grid per dtype: values of m (rows = tokens), n (output features) and k (reduction), ascending. */
struct cal_grid {
	int nm, nn, nk;
	long m[CAL_MAX_AXIS], n[CAL_MAX_AXIS], k[CAL_MAX_AXIS];
};

struct cal_gemm_pt {
	enum dtype dt;
	long m, n, k;
	double us, min_us, p90_us;
	bool grid;                /* a point of its dtype's grid (the bf16 reference product is not, in --quick) */
	char algo[48];
};

/* An exact GEMM of the --scenario file (measured too, and its m, n, k added to the grid axes). */
struct cal_shape {
	char name[32];            /* "qkv", "proj", "mlp_up", "mlp_down", "head"; with "_dgrad"/"_wgrad" */
	enum dtype dt;
	long m, n, k;
};

/* Measured times of one collective for one group size, sizes ascending, and the fit of them. */
struct cal_series {
	enum coll_scope scope;
	enum coll_op op;
	int n;                    /* ranks */
	int npts;
	double bytes[CAL_MAX_PTS], us[CAL_MAX_PTS];  /* median over trials of max over ranks */
	double min_us[CAL_MAX_PTS], max_us[CAL_MAX_PTS];
	bool fitted;
	struct fit_result fit;
};

enum cal_mem_kind { CAL_MEM_COPY, CAL_MEM_ADD };
struct cal_mem_pt {
	enum cal_mem_kind kind;
	double bytes, us;         /* bytes moved (read + written), time of one kernel */
};

struct cal_attn_pt {
	int bh, seq, head_dim;
	double fwd_us, bwd_us;
};

struct cal_clock {
	char phase[16];
	int sm_mhz, mem_mhz;
	unsigned long long reasons;
	double power_w, temp_c;
};

/* The power phase (--sustain): peak and sustained rates, the clocks and power they ran at, and the mixes of
 * GEMMs and copies that give the power model's exponent (calibrate/sustain.c derives the model's keys). */
struct cal_hold_pt {
	double t_s, us;           /* seconds since the hold began; time per cycle */
	int sm_mhz;
	double power_w, temp_c;
	unsigned long long reasons;
};
struct cal_rate {
	char name[32];            /* "ref" (the bf16 reference product) or a --scenario shape's name */
	enum dtype dt;
	long m, n, k;
	double peak_us, sus_us;   /* one GEMM: on a cool GPU (a short run), and held after the warm-up */
	int peak_mhz, sus_mhz;
	double peak_w, sus_w, sus_temp_c;
};
struct cal_mix {
	char name[16];            /* "coarse": 8192^3 GEMMs and 1 GiB copies, phases of milliseconds; "fine": a layer's
	                           * GEMM (8192x8192x2048) and 256 MiB copies, phases of a few hundred microseconds as
	                           * in a training step */
	long m, n, k;             /* the GEMM (bf16) */
	int ngemm, ncopy;         /* a cycle: ngemm GEMMs, then ncopy copies of copy_bytes */
	double copy_bytes, copy_us;  /* one copy's size and its time alone (the memory phase's, a cool GPU) */
	double cycle_us;          /* median of the held samples */
	int sm_mhz;
	double power_w;
};
struct cal_power {
	bool have;
	double hold_s;            /* the warm-up's length asked for */
	double idle_w;            /* an idle GPU after a pause, clocks up (P0) */
	int idle_mhz;
	int nramp;
	struct cal_hold_pt ramp[CAL_MAX_HOLD];  /* the warm-up: the reference GEMM held, one sample a period */
	int nrates;
	struct cal_rate rate[CAL_MAX_SHAPES + 1];
	double copy_bytes, copy_us, copy_w;     /* the copy kernel held: time of one, power */
	int copy_mhz;
	int nmix;
	struct cal_mix mix[CAL_MAX_MIX];
	int ngap;                 /* GEMM bursts after idle gaps (0: not measured): how long a GPU that idled runs
	                           * above its held rate, what a step's waits are worth to its clock */
	struct cal_gap {
		long m, n, k;             /* the GEMM (bf16), back to back for a block after each gap */
		double gap_us;            /* the idle asked for */
		double idle_us;           /* the idle measured (median, events across it) */
		int blocks;               /* blocks averaged */
		double bin_us;            /* us[b]: the mean GEMM that started b * bin_us into the block (0: none) */
		int nbins;
		double us[CAL_MAX_GAP_BINS];
	} gap[CAL_MAX_GAPS];
	int ngpu;                 /* every GPU of the host held together (0: not measured; one process of 2+ GPUs) */
	struct cal_gpu_held {     /* the reference GEMM held on GPU dev beside the others, its settled samples */
		int dev, sm_mhz;
		double us, power_w, temp_c;
	} gpu[CAL_MAX_GPUS];
};

/* A row of the PyTorch kernel probe (calibrate/torchkern.c, calibrate/torch_kernels.py): section kernel (an op's
 * kernels at `size` elements moving `bytes` as gpusim counts them, `us` of GPU time), gap (the idle time between
 * kernels of a full stream), host (host time per call of an eager op or a collective of `size` bytes) or memory
 * (DDP's own bytes). */
struct cal_tkern {
	char section[8];
	char name[40];
	double size, bytes, kernels, us;
};

/* A fused attention row measured through PyTorch (calibrate/torchattn.c): one backend, shape and mask. */
struct cal_fattn {
	char backend[16];         /* "flash", "cudnn" */
	int head_dim, seq, batch, heads;
	bool causal, gqa;
	double fwd_ms, bwd_ms, fwd_kernel_ms, bwd_kernel_ms;
};

struct cal_overlap {
	bool have;
	enum dtype dt;
	long m, n, k;
	double comm_bytes;
	int ranks;
	double gemm_us, gemm_busy_us, comm_us, comm_busy_us;
	int copy_blocks;          /* 0: beside all-reduces of `ranks` GPUs; else one GPU's stand-in: beside a copy kernel
	                           * of this many thread blocks (NCCL's channels), comm_bytes per copy */
};

struct calib {
	struct cal_identity id;
	double peak_tflops[DT_COUNT];
	char peak_source[128];
	double hbm_gbps;
	char hbm_source[128];

	struct cal_grid grid[DT_COUNT];   /* nm == 0: dtype not swept */
	int ngemm, gemm_cap;
	struct cal_gemm_pt *gemm;         /* owned, grown with calib_add_gemm */
	int nshapes;
	struct cal_shape shapes[CAL_MAX_SHAPES];

	int nmem;
	struct cal_mem_pt mem[CAL_MAX_MEM];
	bool have_launch;
	double launch_us, launch_roundtrip_us;
	int nattn;
	struct cal_attn_pt attn[CAL_MAX_ATTN];

	int nseries, series_cap;
	struct cal_series *series;        /* owned, grown with calib_add_series */
	struct cal_overlap overlap;
	struct cal_overlap overlap_ag;  /* GEMMs beside all-gathers (TP-communication overlap's pattern), meta only */
	struct cal_power power;
	int nfattn;
	struct cal_fattn fattn[CAL_MAX_FATTN];
	int nfhold;
	struct cal_fattn_hold {   /* a backend's forward + backward held (torch_attention.py --hold) */
		char backend[16];
		int sm_mhz, max_mhz;
		double power_w, limit_w, tflops;
	} fhold[4];
	int nfmix;
	struct cal_fattn_mix {    /* the held call interleaved with bf16 8192^3 GEMMs (torch_attention.py's mix) */
		char backend[16];
		int gemms, sm_mhz;        /* GEMMs per attention call; the median SM clock */
		double power_w, gemm_ms, att_ms, att_max_ms;  /* one GEMM, one call, the call held alone */
	} fmix[4];
	int gemm_held_mhz;                /* the same GEMMs held alone before the mixes (gemm_held_ms 0: not measured) */
	double gemm_held_w, gemm_held_ms;
	int nflayer;
	struct cal_fattn_layer {  /* the call inside a transformer layer's step (torch_attention.py's layer_mix), kernel
	                           * ms a layer step: the layer's GEMMs held alone and in it, the call alone and in it */
		char backend[16];
		int sm_mhz;
		double power_w, gemm_held_ms, gemm_ms, att_alone_ms, att_ms;
	} flayer[2];
	char fattn_source[160];           /* torch and cuDNN versions, device: the probe's first comment line */
	int ntkern;
	struct cal_tkern tkern[CAL_MAX_TKERN];
	char tkern_source[160];           /* torch version, device: the kernel probe's first comment line */
	int nclocks;
	struct cal_clock clocks[CAL_MAX_CLOCKS];

	char status[256];                 /* "" = complete; else why the run stopped early */
};

void calib_init(struct calib *c);
void calib_release(struct calib *c);
/* append; return the new element (zeroed) or NULL when out of memory */
struct cal_gemm_pt *calib_add_gemm(struct calib *c);
struct cal_series *calib_add_series(struct calib *c);
/* the measured point of a shape, or NULL */
const struct cal_gemm_pt *calib_find_gemm(const struct calib *c, enum dtype dt, long m, long n, long k);
/* A timed series whose median lies more than CAL_SERIES_SPREAD times above its fastest sample: most of its samples
 * were slowed by something else (on one 4 x H100 calibration, 35 of 3,711 GEMM series, 8192x1024x1024 at 39.7 us
 * for a minimum of 33.0, 32.0-34.6 us on six other H100s); a settled GPU repeats a product within 1-3 %. */
#define CAL_SERIES_SPREAD 1.1
bool cal_series_disturbed(double median_us, double min_us);
/* cal_series_better: whether a second timing of a series (median b) replaces the first (median a): the lower
 * median, the first kept on a tie; a failed timing (0) never replaces */
bool cal_series_better(double a_median_us, double b_median_us);
/* cal_gemm_dominating: the index of a grid point of point i's dtype that is at least as large on every axis (m, n
 * and k) and whose median is more than CAL_DOMINATED times faster than point i's (the fastest such), or -1. A
 * larger product cannot need less work, so such a point i was slowed in every sample (on the 2 x H100 calibration
 * of 2026-11-28, 4096x1024x1024 at 75.1 us with a fastest sample of 72.9, where 4096x1024x2048 took 38.3 and the
 * eight other H100s 16.9-19.0; the median-over-fastest test does not see it) or cuBLAS picked a worse kernel there (a
 * few us apart on small products: timing it again keeps that); calibrate times such points again. */
#define CAL_DOMINATED 1.25
int cal_gemm_dominating(const struct calib *c, int i);

/* calib_fit: fit every series (fit_envelope) and print one fit-quality line per series on f (may be NULL), and a
 * warning where the fit misses by a median over CAL_FIT_WARN and the times fall with size by more than that
 * (cal_series_drop): an envelope of lines cannot follow a larger message that is faster (seen on a 4 x H100 host,
 * all_reduce of 4 GPUs: 40 us at 8 B, 25 us at 16 KiB; median misfit 19.7 %). */
#define CAL_FIT_WARN 0.05
void calib_fit(struct calib *c, FILE *f);
/* cal_series_drop: the most a series' time falls with size, t(smaller) / t(larger) over every pair (1 when it
 * never falls), the pair's indices in *lo (the smaller message) and *hi */
double cal_series_drop(const struct cal_series *s, int *lo, int *hi);

/* Names used in files: "fp32", "tf32", "bf16", "fp16", "fp8"; "all_reduce", ...; "intra", "inter". */
const char *cal_dtype_name(enum dtype dt);
const char *cal_op_name(enum coll_op op);
const char *cal_scope_name(enum coll_scope sc);
/* Facts of a calibration that its model and its provenance both state. calib_node_gpus: the host's GPUs, also when
 * fewer were measured; calib_attn_flops: an attention point's forward FLOPs, 4 * bh * seq^2 * head_dim;
 * calib_nccl_version: "2.28.9" (NCCL >= 2.9 numbering), or "unknown". */
int calib_node_gpus(const struct calib *c);
double calib_attn_flops(const struct cal_attn_pt *a);
void calib_nccl_version(char *buf, size_t len, int v);
/* busfactor(op, n) of docs/hardware-model.md: bytes * busfactor / bus bandwidth is the transfer time */
double cal_busfactor(enum coll_op op, int n);
/* calib_set_str: dst = s, cut to dst's size as the model reader cuts what it reads (s may overlap dst) */
void calib_set_str(char *dst, size_t size, const char *s);

#endif
