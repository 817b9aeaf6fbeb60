/* test_sustain: calibrate's power phase turned into gpu.power (calibrate/sustain.c) and the PyTorch attention rows
 * (calibrate/torchattn.c), on hand-made measurements whose results are derived in the comments; the raw CSVs of
 * both written and read back (--refit); the written model loaded by the simulator (clock: max, the cudnn entry). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/check.h"
#include "tests/calib_model.h"
#include "calibrate/calib.h"
#include "calibrate/calmodel.h"
#include "calibrate/rawio.h"
#include "calibrate/sustain.h"
#include "calibrate/torchattn.h"
#include "hardware/hwmodel.h"
#include "util/gserr.h"

static void test_settle(void)
{
	/* last quarter of 8 samples = the last 2 (8.0, 8.0): final 8.0; within 2 % = [7.84, 8.16]. From index 2 on
	 * every sample is inside (8.0, 8.1, 7.9, 8.0, ...), index 1 (9.0) is not: settled at t[2] = 1.5 s. */
	struct cal_hold_pt p[8];
	const double us[8] = {10, 9, 8, 8.1, 7.9, 8, 8, 8};
	double final;
	for (int i = 0; i < 8; i++)
		p[i] = (struct cal_hold_pt){0.5 * (i + 1), us[i], 0, 0, 0, 0};
	CHECK_NEAR(sustain_settle(p, 8, 0.02, &final), 1.5, 1e-12);
	CHECK_NEAR(final, 8.0, 1e-12);
	/* the last sample off by 5 %: the median of the last two (8.0, 8.4) is 8.2; 8.0 is 2.4 % below, so only the
	 * last sample (8.4, 2.4 % above) ... neither is within 2 %: never settled */
	p[7].us = 8.4;
	CHECK_NEAR(sustain_settle(p, 8, 0.02, &final), -1, 1e-12);
	CHECK_NEAR(final, 8.2, 1e-12);
}

static void test_exponent(void)
{
	/* v^(x-1) - 1/v = R: with x = 2.5 and v = 1.1, R = 1.1^1.5 - 1/1.1 = 1.153690 - 0.909091 = 0.244599 */
	double R = pow(1.1, 1.5) - 1 / 1.1;
	CHECK_NEAR(sustain_exponent(1.1, R), 2.5, 1e-12);
	CHECK_NEAR(sustain_exponent(1.0, 0.3), 0, 0);  /* no room: v = 1 says nothing */
	CHECK_NEAR(sustain_exponent(1.1, 0.0), 0, 0);  /* R + 1/v < 1: no exponent above 1 */
}

/* A power phase by hand: a 700 W card, idle 126 W (0.18), copy kernel 504 W (0.72); the reference product 1000 us
 * cool and 1200 us held (burst 1.2); the fine GEMM 400 us cool, 460 us held; one fine mix of 1 GEMM and 2 copies
 * of 100 us each in a 618.1818 us cycle, and one coarse mix that reached its GEMM's burst ceiling. */
static void make_power(struct calib *c)
{
	struct cal_power *p = &c->power;
	c->id.power_limit_w = 700;
	p->have = true;
	p->hold_s = 60;
	p->idle_w = 126;
	p->copy_w = 504;
	p->copy_us = 380;
	p->copy_bytes = 1073741824;
	p->nrates = 2;
	p->rate[0] = (struct cal_rate){"ref", DT_BF16, 8192, 8192, 8192, 1000, 1200, 1980, 1350, 140, 698, 70};
	p->rate[1] = (struct cal_rate){"fine", DT_BF16, 8192, 8192, 2048, 400, 460, 1980, 1380, 140, 697, 70};
	p->nmix = 2;
	/* v = 1.1: the GEMM took 460 / 1.1 = 418.1818 us, the cycle 418.1818 + 2 * 100 */
	p->mix[0] = (struct cal_mix){"fine", 8192, 8192, 2048, 1, 2, 268435456, 100, 460 / 1.1 + 200, 1600, 699};
	/* 2 GEMMs of 1000 us (the peak: v = 1.2, its ceiling) and 4 copies of 380 us */
	p->mix[1] = (struct cal_mix){"coarse", 8192, 8192, 8192, 2, 4, 1073741824, 380, 2000 + 1520, 1900, 690};
	p->nramp = 4;
	for (int i = 0; i < 4; i++)
		p->ramp[i] = (struct cal_hold_pt){0.5 * (i + 1), i ? 1200 : 1100, 1350, 698, 60 + i, 4};
}

static void test_derive(void)
{
	struct calib c;
	struct sustain_model m;
	calib_init(&c);
	make_power(&c);
	sustain_derive(&c, &m);
	CHECK(m.ok);
	/* 2 * 8192^3 / 1000 us = 1099.5 TFLOP/s; / 1200 us = 916.3 */
	CHECK_NEAR(m.peak_tflops, 2.0 * 8192 * 8192 * 8192 / 1e-3 / 1e12, 1e-12);
	CHECK_NEAR(m.burst_speedup, 1.2, 1e-12);
	CHECK_NEAR(m.idle_frac, 0.18, 1e-12);
	CHECK_NEAR(m.mem_frac, 0.72, 1e-12);
	/* fine mix: v = 460 / (618.1818 - 200) = 1.1; R = (1 - 0.72) * 200 / ((1 - 0.18) * 460) = 56 / 377.2
	 * = 0.148462; x = 1 + ln(R + 1/1.1) / ln 1.1 = 1 + ln(1.057553) / 0.0953102 = 1.587115 */
	CHECK_NEAR(m.mix_v[0], 1.1, 1e-12);
	CHECK_NEAR(m.mix_x[0], 1.5871145973, 1e-9);
	/* coarse mix: v = 2400 / (3520 - 1520) = 1.2 = its GEMM's ceiling: no exponent from it */
	CHECK_NEAR(m.mix_v[1], 1.2, 1e-12);
	CHECK_NEAR(m.mix_x[1], 0, 0);
	CHECK(m.exponent_fine);
	CHECK_INT(m.nexp, 1);
	CHECK_NEAR(m.exponent, 1.5871145973, 1e-9);
	/* the ramp: final = median of the last quarter (1 sample, 1200); from index 1 on all at 1200: 1.0 s */
	CHECK_NEAR(m.settle_s, 1.0, 1e-12);
	/* with NVML's clocks the exponent fit's bound is the clock ratio, 1980 / 1350 = 1.466667 (the reference held
	 * at 1350 MHz), and the coarse mix at v = 1.2 now says something: R = 0.28 * 1520 / (0.82 * 2400) = 0.216260,
	 * x = 1 + ln(0.216260 + 1/1.2) / ln 1.2 = 1.265481; the exponent stays the fine mix's. The model's ceiling
	 * stays the fastest rate measured: the short run and the coarse mix, 1.2 */
	c.id.sm_clock_max_mhz = 1980;
	sustain_derive(&c, &m);
	CHECK_NEAR(m.peak_speedup, 1.2, 1e-12);
	CHECK_NEAR(m.clock_speedup, 1980.0 / 1350, 1e-12);
	CHECK_NEAR(m.burst_speedup, 1.2, 1e-12);
	CHECK_NEAR(m.mix_x[1], 1.2654811824, 1e-9);
	CHECK_NEAR(m.exponent, 1.5871145973, 1e-9);
	/* a fine mix whose GEMM gained more than the balance allows with the held copy power: v = 460 / (560 - 200)
	 * = 1.277778, x = 1 + ln(0.148462 + 1/1.277778) / ln 1.277778 = 1 + ln(0.931071) / 0.245122 = 0.709: not
	 * an exponent above 1, and the coarse mix's 1.265 is outside [1.5, 4]: the base model's is kept */
	c.power.mix[0].cycle_us = 560;
	sustain_derive(&c, &m);
	CHECK_NEAR(m.burst_speedup, 460.0 / 360, 1e-12);  /* that mix's GEMM is now the fastest measured */
	CHECK_NEAR(m.mix_x[0], 0, 0);
	CHECK(!m.exponent_fine);
	CHECK_NEAR(m.exponent_fit, 1.2654811824, 1e-9);
	CHECK_NEAR(m.exponent, 0, 0);
	calib_release(&c);
}

static const char probe_csv[] =
"# torch 2.11.0+cu130, cuda 13.0, cudnn 91900, NVIDIA H100 80GB HBM3\n"
"backend,head_dim,causal,gqa,seq,batch,heads,fwd_ms,bwd_ms,fwd_tflops,bwd_tflops,fwd_kernel_ms,bwd_kernel_ms\n"
"flash,128,1,0,2048,8,16,0.5,1.5,274.9,229.1,0.47,1.45\n"
"flash,128,1,1,2048,8,16,0.6,1.8,229.1,190.9,0.55,1.7\n"
"cudnn,128,1,0,2048,8,16,0.3,0.8,458.1,429.5,0.28,0.78\n"
"# hold,flash,1980,633.0,700.0,1980,209.7\n"
"# hold,cudnn,1815,691.0,700.0,1980,361.2\n"
"# gemm_held,1395,699.0,2.0000\n"
"# mix,flash,1,1560,698.0,1.8000,1.0392,1.0000\n"
"# mix,flash,3,1480,699.0,1.9000,1.0677,1.0000\n"
"# layermix,flash,1620,695.0,1.6000,1.5000,2.0000,2.1500\n";

static void test_torchattn(void)
{
	struct calib c;
	calib_init(&c);
	FILE *f = fmemopen((void *)probe_csv, sizeof probe_csv - 1, "r");
	CHECK_INT(torchattn_parse(f, "probe.csv", &c), 0);
	fclose(f);
	CHECK_INT(c.nfattn, 3);
	CHECK_INT(c.nfhold, 2);
	CHECK_STR(c.fattn_source, "torch 2.11.0+cu130, cuda 13.0, cudnn 91900, NVIDIA H100 80GB HBM3");
	CHECK(c.fattn[1].gqa && c.fattn[1].causal);
	CHECK_NEAR(c.fattn[2].bwd_kernel_ms, 0.78, 1e-12);
	/* flash held at 1980 of 1980 MHz and 633 of 700 W: max clock; cudnn at 1815 (0.917 of max): not */
	CHECK(torchattn_max_clock(&c, "flash"));
	CHECK(!torchattn_max_clock(&c, "cudnn"));
	/* beside GEMMs (burst 1.2): the GEMMs held alone take 2.0 ms, in the mixes 1.8 and 1.9, so v/B = 2/1.8/1.2 =
	 * 0.92593 and 2/1.9/1.2 = 0.87719; the attention at u = 1/1.0392 = 0.96228 and 1/1.0677 = 0.93659 of its time
	 * alone, i.e. ln u / ln(v/B) = -0.03846/-0.07696 = 0.4998 and -0.06551/-0.13103 = 0.49999: clock_exponent 0.5
	 * (least squares through the origin, rounded to 3 decimals); power 633/700 = 0.904. The line through the two
	 * mixes has slope 0.02705/0.05407 = 0.5004 and meets u = 1 at v = 1.19985, under the burst: no anchor. */
	CHECK_INT(c.nfmix, 2);
	/* the call inside a layer's step: GEMMs at 1.6/1.5 = 1.067 of held, attention at 2.0/2.15 = 0.930 alone */
	CHECK_INT(c.nflayer, 1);
	CHECK_STR(c.flayer[0].backend, "flash");
	CHECK_INT(c.flayer[0].sm_mhz, 1620);
	CHECK_NEAR(c.flayer[0].gemm_held_ms / c.flayer[0].gemm_ms, 1.6 / 1.5, 1e-12);
	CHECK_NEAR(c.flayer[0].att_alone_ms / c.flayer[0].att_ms, 2.0 / 2.15, 1e-12);
	/* written back as read (the raw CSV --refit reads) */
	char wbuf[4096] = "";
	FILE *w = fmemopen(wbuf, sizeof wbuf, "w");
	torchattn_write(w, &c);
	fclose(w);
	CHECK(strstr(wbuf, "# layermix,flash,1620,695.0,1.6000,1.5000,2.0000,2.1500\n") != NULL);
	static const char bad_layer[] =
		"backend,head_dim,causal,gqa,seq,batch,heads,fwd_ms,bwd_ms,fwd_tflops,bwd_tflops,fwd_kernel_ms,bwd_kernel_ms\n"
		"# layermix,flash,1620,695.0,0,1.5,2.0,2.15\n"
		"flash,128,1,0,2048,8,16,0.5,1.5,274.9,229.1,0.47,1.45\n";
	struct calib bl;
	calib_init(&bl);
	FILE *bf = fmemopen((void *)bad_layer, sizeof bad_layer - 1, "r");
	CHECK_INT(torchattn_parse(bf, "bad_layer.csv", &bl), GS_EINVAL);  /* a time that is not positive */
	fclose(bf);
	calib_release(&bl);
	struct hw_attn a = { 0 };
	double fit[2 * TORCHATTN_MIXES];
	CHECK(torchattn_fill(&c, "flash", &a));
	CHECK_INT(torchattn_clock_law(&c, "flash", 1.2, &a, fit), 2);
	CHECK_NEAR(a.clock_exponent, 0.5, 1e-12);
	CHECK_NEAR(a.power, 0.904, 1e-12);
	CHECK_NEAR(fit[0], 2 / 1.8, 1e-12);
	CHECK_NEAR(fit[3], 1 / 1.0677, 1e-12);
	/* the mixes alone put no anchor (above); the layer mix does: its call in 2.15 ms against the table's 0.47 +
	 * 1.45 = 1.92 kernel ms at its shape (flash, 128, causal, 2048 x 8 x 16), u_L = 0.893023, at v_L = 1.066667:
	 * A = 1.066667 / 0.893023^2 = 1.337530 -> 1.338 (lambda 0.5 kept) */
	double vl, ul;
	CHECK(torchattn_layer_point(&c, "flash", &vl, &ul));
	CHECK_NEAR(ul, 1.92 / 2.15, 1e-12);
	CHECK_NEAR(a.clock_anchor, 1.338, 1e-12);
	/* at burst 1.34 the mixes' line (anchor 1.19985) is under it: lambda through the burst, ln(v/1.34) = -0.187312
	 * and -0.241377 against ln u = -0.038442 and -0.065515: 0.0230145/0.0933487 = 0.24654 -> 0.247; the layer's
	 * anchor with it: 1.066667 * exp(0.113179/0.24654) = 1.688 */
	struct hw_attn hi = { 0 };
	CHECK(torchattn_fill(&c, "flash", &hi));
	CHECK_INT(torchattn_clock_law(&c, "flash", 1.34, &hi, fit), 2);
	CHECK_NEAR(hi.clock_exponent, 0.247, 1e-12);
	CHECK_NEAR(hi.clock_anchor, 1.688, 1e-12);
	CHECK(!torchattn_layer_point(&c, "cudnn", &vl, &ul));  /* no layer mix of that backend */
	/* mixes on u = (v/1.25)^1.2, off the line through the burst: GEMMs in 1.7391 and 1.8519 ms, v = 1.150020 and
	 * 1.079972 (ln 0.139779, 0.076935), the attention in 1.1052 and 1.1917 ms, u = 0.904814 and 0.839137 (ln
	 * -0.100026, -0.175381): slope 0.075355/0.062844 = 1.19907, ln A = 0.139779 + 0.100026/1.19907 = 0.223197,
	 * A = 1.25007 >= 1.2: clock_exponent 1.199, clock_anchor 1.25. At burst 1.26 that anchor lies under it: the
	 * line through the burst, ln(v/1.26) = -0.091332 and -0.154177, lambda = (0.009136 + 0.027040)/(0.008342 +
	 * 0.023770) = 1.12653 -> 1.127 */
	static const char off_csv[] =
		"backend,head_dim,causal,gqa,seq,batch,heads,fwd_ms,bwd_ms,fwd_tflops,bwd_tflops,fwd_kernel_ms,bwd_kernel_ms\n"
		"flash,128,1,0,2048,8,16,0.5,1.5,274.9,229.1,0.47,1.45\n"
		"# hold,flash,1980,633.0,700.0,1980,209.7\n"
		"# gemm_held,1395,699.0,2.0000\n"
		"# mix,flash,1,1700,698.0,1.7391,1.1052,1.0000\n"
		"# mix,flash,3,1560,699.0,1.8519,1.1917,1.0000\n";
	struct calib o;
	calib_init(&o);
	f = fmemopen((void *)off_csv, sizeof off_csv - 1, "r");
	CHECK_INT(torchattn_parse(f, "off.csv", &o), 0);
	fclose(f);
	struct hw_attn oa = { 0 }, ob = { 0 };
	CHECK(torchattn_fill(&o, "flash", &oa) && torchattn_fill(&o, "flash", &ob));
	CHECK_INT(torchattn_clock_law(&o, "flash", 1.2, &oa, fit), 2);
	CHECK_NEAR(oa.clock_exponent, 1.199, 1e-12);
	CHECK_NEAR(oa.clock_anchor, 1.25, 1e-12);
	CHECK_INT(torchattn_clock_law(&o, "flash", 1.26, &ob, fit), 2);
	CHECK_NEAR(ob.clock_exponent, 1.127, 1e-12);
	CHECK(ob.clock_anchor == 0);
	/* a layer mix whose call runs almost at the table's rate (1.92/1.9394 = 0.98999 at v_L = 1.6/1.3913 = 1.15):
	 * its anchor 1.15 * 0.98999^(-1/1.199) = 1.1597 -> 1.16, under the burst 1.2: kept (the attention at its full
	 * rate from there, the GEMMs on to the burst) */
	o.flayer[o.nflayer++] = (struct cal_fattn_layer){ "flash", 1650, 697, 1.6, 1.3913, 1.9, 1.9394 };
	struct hw_attn oc = { 0 };
	CHECK(torchattn_fill(&o, "flash", &oc));
	CHECK_INT(torchattn_clock_law(&o, "flash", 1.2, &oc, fit), 2);
	CHECK_NEAR(oc.clock_exponent, 1.199, 1e-12);
	CHECK_NEAR(oc.clock_anchor, 1.16, 1e-12);
	calib_release(&o);
	/* cudnn is not at the maximum clock: no law; nor flash where the GEMMs ran at their maximum-clock rate */
	struct hw_attn cu = { 0 };
	CHECK(torchattn_fill(&c, "cudnn", &cu));
	CHECK_INT(torchattn_clock_law(&c, "cudnn", 1.2, &cu, fit), 0);
	CHECK(cu.power == 0 && cu.clock_exponent == 0);
	struct hw_attn b = { 0 };
	CHECK(torchattn_fill(&c, "flash", &b));
	CHECK_INT(torchattn_clock_law(&c, "flash", 1.0, &b, fit), 0);
	CHECK(b.power == 0);
	/* a row with a time that is not positive, and a header that is not the probe's */
	static const char bad[] = "backend,head_dim,causal,gqa,seq,batch,heads,fwd_ms,bwd_ms,fwd_tflops,bwd_tflops\n"
				  "flash,128,1,0,2048,8,16,0,1.5,0,0\n";
	f = fmemopen((void *)bad, sizeof bad - 1, "r");
	CHECK_INT(torchattn_parse(f, "bad.csv", &c), GS_EINVAL);
	fclose(f);
	f = fmemopen((void *)"a,b\n1,2\n", 8, "r");
	CHECK_INT(torchattn_parse(f, "bad.csv", &c), GS_EINVAL);
	fclose(f);
	calib_release(&c);
}

/* write a calibration with a power phase and probe rows as raw CSVs, read them back (what --refit does), write the
 * model and load it in the simulator */
static void test_roundtrip(void)
{
	struct calib c, back;
	char dir[] = "/tmp/test_sustain_XXXXXX";
	calib_init(&c);
	calib_init(&back);
	make_power(&c);
	FILE *f = fmemopen((void *)probe_csv, sizeof probe_csv - 1, "r");
	CHECK_INT(torchattn_parse(f, "probe.csv", &c), 0);
	fclose(f);
	calib_model_h100(&c);
	/* three GPUs held together: the reference GEMM (1200 us held alone on GPU 0) settled at 1212, 1200 and 1250 us */
	c.power.ngpu = 3;
	c.power.gpu[0] = (struct cal_gpu_held){0, 1350, 1212, 698, 62};
	c.power.gpu[1] = (struct cal_gpu_held){1, 1340, 1200, 697, 61};
	c.power.gpu[2] = (struct cal_gpu_held){2, 1320, 1250, 699, 65};
	/* GEMM bursts after idle gaps: after 1 ms (1.1 measured) the fine GEMM (460 us held) ran 400 us in the first bin,
	 * 420 in the second, none in the third; after 100 ms 380 and 410 */
	c.power.ngap = 2;
	c.power.gap[0] = (struct cal_gap){8192, 8192, 2048, 1000, 1100, 4, 2000, 3, {400, 420, 0}};
	c.power.gap[1] = (struct cal_gap){8192, 8192, 2048, 100000, 100200, 4, 2000, 2, {380, 410}};
	/* one GPU's overlap stand-in: GEMM 1000 -> 1100 us beside a 16-block copy, the copy 800 -> 1000 us */
	c.overlap = (struct cal_overlap){true, DT_BF16, 8192, 8192, 8192, 268435456.0, 1, 1000, 1100, 800, 1000, 16};
	CHECK(mkdtemp(dir) != NULL);
	CHECK_INT(rawio_write(&c, dir), 0);
	CHECK_INT(rawio_read(&back, dir), 0);
	CHECK(back.power.have);
	CHECK_INT(back.power.nrates, 2);
	CHECK_STR(back.power.rate[1].name, "fine");
	CHECK_NEAR(back.power.rate[0].peak_us, 1000, 1e-12);
	CHECK_NEAR(back.power.rate[0].sus_us, 1200, 1e-12);
	CHECK_INT(back.power.nmix, 2);
	CHECK_STR(back.power.mix[0].name, "fine");
	CHECK_INT(back.power.mix[0].ncopy, 2);
	CHECK_INT(back.power.mix[1].ngemm, 2);
	CHECK_NEAR(back.power.mix[0].cycle_us, 460 / 1.1 + 200, 1e-5);
	CHECK_NEAR(back.power.idle_w, 126, 1e-12);
	CHECK_NEAR(back.power.copy_w, 504, 1e-12);
	CHECK_INT(back.power.nramp, 4);
	CHECK_INT(back.nfattn, 3);
	CHECK_INT(back.nfhold, 2);
	CHECK_INT(back.nfmix, 2);
	CHECK_NEAR(back.gemm_held_ms, 2.0, 1e-12);
	CHECK_NEAR(back.fmix[1].att_ms, 1.0677, 1e-12);
	CHECK_INT(back.overlap.copy_blocks, 16);
	CHECK_INT(back.power.ngpu, 3);
	CHECK_INT(back.power.gpu[2].dev, 2);
	CHECK_NEAR(back.power.gpu[2].us, 1250, 1e-12);
	CHECK_INT(back.power.gpu[1].sm_mhz, 1340);
	CHECK_INT(back.power.ngap, 2);
	CHECK_INT(back.power.gap[0].nbins, 3);  /* the empty bin comes back as one */
	CHECK_NEAR(back.power.gap[0].us[1], 420, 1e-12);
	CHECK_NEAR(back.power.gap[0].us[2], 0, 0);
	CHECK_NEAR(back.power.gap[1].gap_us, 100000, 1e-9);
	CHECK_NEAR(back.power.gap[1].idle_us, 100200, 1e-9);
	CHECK_NEAR(back.power.gap[1].bin_us, 2000, 1e-12);
	CHECK_INT(back.power.gap[1].blocks, 4);
	CHECK_INT(back.power.gap[1].nbins, 2);
	CHECK_NEAR(back.power.gap[1].us[0], 380, 1e-12);
	struct sustain_model m;
	sustain_derive(&back, &m);
	CHECK_NEAR(m.exponent, 1.5871145973, 1e-4);  /* the cycle went through 6 significant digits (618.182) */

	/* the model: gpu.power from the phase, the flash rows as attention.fused with clock: max, cudnn's as
	 * attention.cudnn (scaled with the clock) */
	struct hwmodel *hw = calib_model_load(&back, dir, "test-sustain");
	if (hw) {
		CHECK_NEAR(hw->gpu.burst_speedup, 1.2, 1e-12);
		CHECK_NEAR(hw->gpu.power_exponent, 1.59, 1e-12);  /* written with 2 decimals */
		CHECK_NEAR(hw->gpu.power_mem_frac, 0.72, 1e-12);
		CHECK_NEAR(hw->gpu.power_idle_frac, 0.18, 1e-12);
		CHECK_NEAR(hw->gpu.power_comm_frac, 0.5, 1e-12);  /* no base: the default */
		/* gpu_rates: 1200 / 1212 = 0.990099 (4 decimals: 0.9901), 1200 / 1200 = 1, 1200 / 1250 = 0.96; a job runs
		 * at its slowest GPU's: one GPU alone 1, GPUs 0-1 0.9901, three or more 0.96 */
		CHECK_INT(hw->gpu.ngpu_rates, 3);
		CHECK_NEAR(hw->gpu.gpu_rates[0], 0.9901, 1e-12);
		CHECK_NEAR(hw->gpu.gpu_rates[1], 1, 1e-12);
		CHECK_NEAR(hw->gpu.gpu_rates[2], 0.96, 1e-12);
		CHECK_NEAR(hwmodel_gpu_rate(hw, 1), 1, 0);
		CHECK_NEAR(hwmodel_gpu_rate(hw, 2), 0.9901, 1e-12);
		CHECK_NEAR(hwmodel_gpu_rate(hw, 3), 0.96, 1e-12);
		CHECK_NEAR(hwmodel_gpu_rate(hw, 64), 0.96, 1e-12);
		CHECK(hw->gpu.attn[ATTN_FUSED].present && hw->gpu.attn[ATTN_FUSED].max_clock);
		/* the mixes at burst 1.2, as test_torchattn derives: clock_exponent 0.5, power 0.904 */
		CHECK_NEAR(hw->gpu.attn[ATTN_FUSED].clock_exponent, 0.5, 1e-12);
		CHECK_NEAR(hw->gpu.attn[ATTN_FUSED].power, 0.904, 1e-12);
		CHECK(hw->gpu.attn[ATTN_CUDNN].power == 0);
		CHECK(hw->gpu.attn[ATTN_CUDNN].present && !hw->gpu.attn[ATTN_CUDNN].max_clock);
		CHECK_STR(hw->gpu.attn[ATTN_CUDNN].impl, "cudnn");
		/* the one-GPU stand-in is kept in meta only: the model's overlap keys stay at their default 0 */
		CHECK_NEAR(hw->overlap_compute_slowdown, 0, 0);
		CHECK_NEAR(hw->overlap_comm_slowdown, 0, 0);
		CHECK_INT(hw->gpu.attn[ATTN_FUSED].nrows, 1);  /* the MHA row; the GQA row stays in the raw CSV */
		/* flash 2048 causal hd128: 4*8*16*2048^2*128*0.5 = 137.44 GFLOP in the profiled kernels' 0.47 ms (not
		 * the events' 0.5) = 292.4 TFLOP/s, burst but clock: max, so not divided by burst_speedup */
		CHECK_NEAR(hwmodel_attn_tflops(hw, ATTN_FUSED, DT_BF16, 2048, 128, true, false), 292.4, 1e-12);
		/* the row's bh = 8 x 16 = 128: any bh gives it (one row per seq) */
		CHECK_NEAR(hwmodel_attn_tflops_bh(hw, ATTN_FUSED, DT_BF16, 2048, 128, true, false, 16), 292.4, 1e-12);
		/* cudnn: 0.28 ms -> 490.9 TFLOP/s, burst: / 1.2 = 409.083 */
		CHECK_NEAR(hwmodel_attn_tflops(hw, ATTN_CUDNN, DT_BF16, 2048, 128, true, false), 490.9 / 1.2, 1e-12);
		hwmodel_free(hw);
	}
	/* meta.sustained.gaps: each bin's rate over the fine GEMM's held 460 us: 460/400 = 1.15, 460/420 = 1.095,
	 * none 0; 460/380 = 1.211, 460/410 = 1.122 */
	char path[300], text[1 << 16];
	snprintf(path, sizeof path, "%s/model.yaml", dir);
	FILE *y = fopen(path, "r");
	CHECK(y != NULL);
	if (y) {
		size_t len = fread(text, 1, sizeof text - 1, y);
		text[len] = 0;
		fclose(y);
		CHECK(strstr(text, "{gap_ms: 1, idle_ms: 1.1, bin_ms: 2, speed: [1.15, 1.095, 0]}") != NULL);
		CHECK(strstr(text, "{gap_ms: 100, idle_ms: 100.2, bin_ms: 2, speed: [1.211, 1.122]}") != NULL);
	}
	calib_model_done(&c, &back, dir);
}

/* An idle gap's worth by construction: held 400 us, tau 8 ms, e_max 3 ms; after a gap of g ms (measured) the
 * first 2 ms bin runs 1 + E(g)/2 times faster than held and the rest at the held rate, E(g) = 3 (1 - e^(-g/8)), so
 * the bins' extra work is E(g) exactly and the fit gives 8 and 3 back. Two gaps are too few; no extra, no fit. */
static void test_gap_fit(void)
{
	struct cal_power p;
	const double g[] = {0.1, 1, 3, 10, 30, 100};
	memset(&p, 0, sizeof p);
	for (int i = 0; i < 6; i++) {
		struct cal_gap *x = &p.gap[p.ngap++];
		double e = 3 * (1 - exp(-g[i] / 8));
		*x = (struct cal_gap){8192, 8192, 2048, g[i] * 1e3, g[i] * 1e3, 4, 2000, 3, {400 / (1 + e / 2), 400, 400}};
	}
	/* one gap's bins by hand: after 10 ms, E = 3 (1 - e^(-10/8)) = 2.1405 ms, the first bin 1 + E/2 = x2.0702 the
	 * held rate and the fastest, starting 0 ms in; bins of 0 (no GEMM started there) count nothing */
	double peak = 0, at = -1;
	CHECK_NEAR(sustain_gap_extra_ms(&p.gap[3], 400, &peak, &at), 3 * (1 - exp(-10.0 / 8)), 1e-9);
	CHECK_NEAR(peak, 1 + 1.5 * (1 - exp(-10.0 / 8)), 1e-12);
	CHECK_NEAR(at, 0, 0);
	{
		struct cal_gap late = {8192, 8192, 2048, 1e4, 1e4, 4, 2000, 4, {500, 400, 320, 0}};
		/* (400/500 - 1) 2 + 0 + (400/320 - 1) 2 = -0.4 + 0.5 = 0.1 ms; fastest x1.25, 4 ms in */
		CHECK_NEAR(sustain_gap_extra_ms(&late, 400, &peak, &at), 0.1, 1e-12);
		CHECK_NEAR(peak, 1.25, 1e-12);
		CHECK_NEAR(at, 4, 1e-12);
		CHECK_NEAR(sustain_gap_extra_ms(&late, 400, NULL, NULL), 0.1, 1e-12);
	}
	double tau = 0, emax = 0;
	CHECK(sustain_gap_fit(&p, 400, &tau, &emax));
	CHECK_NEAR(tau, 8, 1e-6);
	CHECK_NEAR(emax, 3, 1e-6);
	/* a whole power phase with these gaps (its fine GEMM held at 460 us: the bins scaled to it) writes the limiter's
	 * time constant into gpu.power.window_ms */
	{
		struct calib c;
		struct hw_gpu hg;
		calib_init(&c);
		make_power(&c);
		CHECK_NEAR(c.power.rate[1].sus_us, 460, 0);
		c.power.ngap = p.ngap;
		for (int i = 0; i < p.ngap; i++) {
			c.power.gap[i] = p.gap[i];
			for (int b = 0; b < 3; b++)
				c.power.gap[i].us[b] *= 460.0 / 400;
		}
		memset(&hg, 0, sizeof hg);
		CHECK(sustain_power(&c, NULL, &hg));
		CHECK_NEAR(hg.power_window_ms, 8, 1e-12);
		calib_release(&c);
	}
	p.ngap = 2;
	CHECK(!sustain_gap_fit(&p, 400, &tau, &emax));
	p.ngap = 6;
	for (int i = 0; i < 6; i++)
		p.gap[i].us[0] = 400;
	CHECK(!sustain_gap_fit(&p, 400, &tau, &emax));
}

int main(void)
{
	test_gap_fit();
	test_settle();
	test_exponent();
	test_derive();
	test_torchattn();
	test_roundtrip();
	return check_result();
}
