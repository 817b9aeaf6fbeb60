/* sustain: from the power phase of a calibration (struct cal_power, measured with --sustain) to the hardware
 * model's gpu.power keys (docs/hardware-model.md): the burst speedup of a cool GPU over one held at its power cap,
 * the power an idle GPU and a memory-bound kernel draw, and the exponent of power in clock, found from mixes of
 * GEMMs and copies through the same power balance the simulator solves (sim/predict.c, stage_target). Plain C,
 * no CUDA: refit and the tests use it on raw numbers. */
#ifndef SUSTAIN_H
#define SUSTAIN_H

#include <stdbool.h>
#include "calibrate/calib.h"
#include "calibrate/base.h"
#include "hardware/hwmodel.h"
#include "util/ybuild.h"

#define SUSTAIN_SETTLE_TOL 0.02   /* the warm-up has settled once every later sample is within 2 % of the end */
/* The exponent the mixes give is used only inside this range: below it the power would stay flat in the clock over
 * the 1400-1980 MHz the GPU ran at, which DVFS (voltage rising with the clock) rules out; such a fit means the
 * mixes' copies drew less than they draw held alone at the maximum clock (the model's memory_bound assumption
 * failing: seen on an H200, copy 613 W held, fit 1.05), and the base model's exponent is kept. */
#define SUSTAIN_EXP_MIN 1.5
#define SUSTAIN_EXP_MAX 4.0

struct sustain_model {
	bool ok;                   /* a reference product with peak and sustained times, and a power limit */
	double peak_tflops, sus_tflops;
	double peak_speedup;       /* the reference product's short-run (cool) rate over its held rate */
	double clock_speedup;      /* the maximum SM clock over the held clock: where a GEMM's rate would go if it
	                            * followed the clock alone (the mixes' exponent fit keeps below it) */
	double burst_speedup;      /* the most a GEMM can run above its held rate: the most any measurement saw it run
	                            * (the short cool run, the GEMM in each GEMM + copy mix), not the clock ratio: the
	                            * limiter clips a GEMM phase within milliseconds, and a pipeline stage idle half
	                            * its step measured 1.08x where the clock ratio predicted 1.19x (docs/validation.md) */
	double settle_s;           /* the warm-up's settling time (SUSTAIN_SETTLE_TOL); -1 = never settled */
	double ramp_final_us;      /* median of the warm-up's last quarter */
	double idle_frac, mem_frac;  /* of the power limit; 0 = not measured */
	double exponent;           /* mean over the mixes that determine it (the fine ones if any), when inside
	                            * [SUSTAIN_EXP_MIN, SUSTAIN_EXP_MAX]; 0 = none (the base model's is used) */
	double exponent_fit;       /* that mean before the range check; 0 = no mix determined one */
	bool exponent_fine;        /* it came from the fine mixes */
	int nexp;
	double mix_v[CAL_MAX_MIX], mix_x[CAL_MAX_MIX];  /* per mix: compute speed over sustained, exponent (0 = none) */
};

/* sustain_settle: the time of the first sample after which every sample's time is within tol of the median of
 * the last quarter (*final_us); -1 when even the last sample is not. */
double sustain_settle(const struct cal_hold_pt *p, int n, double tol, double *final_us);
/* sustain_exponent: x from the power balance v^(x-1) - 1/v = R (sim/predict.c); 0 when v <= 1 (no room) */
double sustain_exponent(double v, double R);
/* sustain_derive: everything above from c->power and c->id.power_limit_w; m->ok false when not measured */
void sustain_derive(const struct calib *c, struct sustain_model *m);

/* sustain_power: g's gpu.power keys from the phase (comm from the base model b, which one GPU cannot measure; b may
 * be NULL), gpu_rates as sustain_gpu_rates; false when not measured (g untouched) */
bool sustain_power(const struct calib *c, const struct cal_base *b, struct hw_gpu *g);
/* sustain_gpu_rates: gpu.power.gpu_rates from the power phase's every-GPU hold (each GPU's settled reference GEMM
 * beside the others over the calibrated GPU's held alone), or none where it did not run on devices 0..n-1. */
void sustain_gpu_rates(const struct calib *c, struct hw_gpu *g);
/* sustain_gap_fit: what an idle gap is worth to the GEMMs after it (the power phase's gap bursts, held_us the same
 * GEMM's held time): each gap's extra work E(g), the sum over its bins of (held_us / the bin's GEMM time - 1) times
 * the bin's width (ms of GEMM work at the held rate done beyond it), fitted by E(g) = e_max (1 - exp(-g / tau)) over
 * the idle each gap measured (a first-order power limiter's credit: short gaps count in full, long ones up to
 * e_max); least squares, tau on a log grid from 0.01 ms to 10 s refined by golden section, e_max in closed form.
 * false with fewer than 3 gaps or no positive extra work (outputs untouched). */
bool sustain_gap_fit(const struct cal_power *p, double held_us, double *tau_ms, double *emax_ms);
/* sustain_gap_extra_ms: one gap's extra GEMM work over the held rate (held_us), summed over its block's bins, ms;
 * *peak the fastest bin's speed over the held rate and *at_ms where that bin starts (either may be NULL) */
double sustain_gap_extra_ms(const struct cal_gap *x, double held_us, double *peak, double *at_ms);
/* sustain_gap_held_us: the held time of the gap bursts' GEMM (the rate row of its shape), 0 when none */
double sustain_gap_held_us(const struct cal_power *p);
/* sustain_meta: meta.sustained: the warm-up, the per-shape peak and sustained rates with their clocks and power,
 * the mixes */
void sustain_meta(struct ybuild *e, const struct calib *c);

#endif
