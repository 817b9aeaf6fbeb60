/* cmd_calibrate: `gpusim calibrate`: options, help and exit status. The measuring itself is calibrate/run.c, built
 * only when the CUDA toolkit was found, into the CUDA module that calibrate_measure loads (calibrate/loader.c);
 * without it the command still parses its options, helps and refits, then says what is missing. */
#define _POSIX_C_SOURCE 200809L  /* isatty */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "calibrate/calibrate.h"
#include "calibrate/module.h"
#include "util/diag.h"
#include "util/gserr.h"

static const char help[] =
"usage: gpusim calibrate [-o FILE] [--quick] [--base PRESET|FILE] [--scenario FILE] [--gpus N] [--raw DIR] [-v]\n"
"                        [--sustain SECONDS] [--attention torch] [--kernels torch]\n"
"       gpusim calibrate --refit DIR [-o FILE] [--base PRESET|FILE] [--raw DIR]\n"
"\n"
"Measures this machine's NVIDIA GPUs and writes a hardware model (schema gpusim-hw/1, docs/hardware-model.md)\n"
"that 'gpusim predict --hw FILE' loads as it is, so predictions match your hardware:\n"
"  - GEMM efficiency tables (cuBLASLt, bf16, fp16, tf32, fp8 e4m3 TN) over m, n, k from 128 to 32768\n"
"  - copy-kernel bandwidth against size, kernel launch overhead, attention (cuBLASLt + softmax, unfused)\n"
"  - the GEMM rate a training job sustains: bf16 GEMMs held back to back until the GPU settles at its power\n"
"    cap, the peak (cool) and sustained rates of the reference and --scenario shapes with their SM clock and\n"
"    power, an idle and a memory-bound GPU's power, and GEMM + copy mixes: the model's gpu.power keys\n"
"  - NCCL all_reduce, all_gather, reduce_scatter, broadcast, send_recv and all_to_all from 8 B to 4 GiB for\n"
"    every group of 2 to N local GPUs, fitted as the lower envelope of latency/bandwidth lines (GSL)\n"
"  - how much a GEMM slows beside an all-reduce on the same GPUs, and the reverse\n"
"The network and inter-node collectives cannot be measured on one machine: they come from a base model and are\n"
"marked 'source: preset ...'. Under MPI (mpirun -np N gpusim calibrate, one process per GPU, when gpusim was\n"
"built with MPI) groups that span nodes are measured too.\n"
"\n"
"options:\n"
"  -o, --output FILE    where to write the model (default: ./<gpu>x<N>-measured.yaml, e.g. h200x2-measured.yaml;\n"
"                       written to a temporary beside it and renamed: a good FILE is never replaced by half of one)\n"
"  --quick              a short sweep (bf16 GEMMs on a coarse grid, fewer sizes and repeats): under 45 s on\n"
"                       two GPUs; the full run takes a few minutes\n"
"  --base PRESET|FILE   model to take unmeasured parts from (default: the built-in preset of the same GPU)\n"
"  --scenario FILE      also measure the exact GEMM shapes of this scenario (QKV, projection, MLP, head and\n"
"                       their backward products) and add them to the GEMM table's grid\n"
"  --gpus N             use the first N GPUs (default: all that CUDA sees)\n"
"  --raw DIR            also write the raw measurements as CSV files into DIR (identity, GEMMs, collectives,\n"
"                       memory, attention, clocks, overlap)\n"
"  --refit DIR          measure nothing: fit the raw CSVs a run wrote with --raw DIR again and write the\n"
"                       model (works on any machine, without a GPU or CUDA)\n"
"  --sustain SECONDS    the power phase's warm-up (default 60 in a full run: an H100 and an H200 settle within\n"
"                       it; off with --quick); 0 turns the phase off. The GEMM table is then measured on the\n"
"                       settled GPU (sustained rates) and gpu.power.burst_speedup = peak / sustained; on 2+\n"
"                       GPUs every GPU then holds the reference GEMM together (up to 30 s more): each one's\n"
"                       rate over GPU 0's alone -> gpu.power.gpu_rates (a job runs at its slowest GPU's)\n"
"  --attention torch    also measure fused attention through PyTorch's SDPA (python3 with torch on PATH): the\n"
"                       flash backend (FlashAttention-2) -> gpu.attention.fused, the cuDNN backend ->\n"
"                       gpu.attention.cudnn; head dim 64/128, causal and not, 512-32K tokens (--quick: to 4K),\n"
"                       at 16K tokens a call and at 4K, 8K, 32K (rows by batch x heads, `bh`; --quick: 4K);\n"
"                       then each backend held alone (clock: max if it keeps the maximum clock) and, if it\n"
"                       does, between bf16 GEMMs: its power and how it slows as they hold the clock down\n"
"                       (power, clock_exponent, clock_anchor)\n"
"  --kernels torch      also measure what eager PyTorch launches besides GEMMs and attention (python3 with torch):\n"
"                       its elementwise, cast, fill, norm, softmax and fused-Adam kernels by size -> gpu.kernels\n"
"                       (a rate and a fixed cost per family), the GPU's idle time between the kernels of a full\n"
"                       stream -> gpu.kernels.gap_us, a collective call's host cost beyond an eager op's ->\n"
"                       host.eager.coll_us and host.compiled.coll_us, eager PyTorch's host cost by op class ->\n"
"                       host.eager, and with 2+ GPUs a transformer block's host cost in one process per GPU at\n"
"                       once: how far a job's processes differ, which a step pays at its slowest ->\n"
"                       host.<mode>.rank_spread (about 1 minute; kernels 64 Ki to 256 Mi elements, --quick too)\n"
"  -v, --verbose        print each phase and series as a line (also when stderr is no terminal, and from\n"
"                       every MPI rank)\n"
"  -h, --help           show this help\n"
"\n"
"If a CUDA, cuBLASLt or NCCL call fails, the message names it, and what was measured so far is written to\n"
"FILE.partial (never over FILE). Set NCCL_* variables (NCCL_ALGO, NCCL_PROTO, ...) as for any NCCL program;\n"
"they are recorded in the model's meta.env.\n"
"\n"
"examples:\n"
"  gpusim calibrate --quick -o /tmp/quick.yaml\n"
"  gpusim calibrate --attention torch --kernels torch --scenario scenarios/validate/t07-single.yaml \\\n"
"      -o h100x1-measured.yaml\n"
"  gpusim calibrate -o hardware/h200x2-measured.yaml --raw hardware/h200x2-measured\n"
"  gpusim calibrate --refit hardware/h200x2-measured -o hardware/h200x2-measured.yaml\n"
"  gpusim predict scenarios/70b_64gpu.yaml --hw hardware/h200x2-measured.yaml\n"
"\n"
"exit status: 0 ok, 1 invalid input (scenario, base model), 2 usage error, 3 no GPU or driver, CUDA libraries\n"
"that cannot be loaded (the message names them), a failed CUDA, cuBLASLt or NCCL call, or a file that cannot be\n"
"written.\n";

static int exit_code(int rc)
{
	switch (rc) {
	case 0: return 0;
	case GS_EINVAL: return 1;
	case GS_EUSAGE: return 2;
	default: return 3;
	}
}

/* A usage error through the one diagnostics path: "gpusim: <fmt with arg> (see 'gpusim calibrate --help')". */
static int usage(const char *fmt, const char *arg)
{
	char msg[512];
	snprintf(msg, sizeof msg, fmt, arg);
	diag_errorf("%s (see 'gpusim calibrate --help')", msg);
	return 2;
}

int cmd_calibrate(int argc, char **argv)
{
	struct cal_opts o;
	memset(&o, 0, sizeof o);
	o.sustain_s = -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char **target = NULL;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(help, stdout);
			return 0;
		} else if (strcmp(a, "--quick") == 0) {
			o.quick = true;
			continue;
		} else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
			o.verbose = true;
			continue;
		} else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0)
			target = &o.out;
		else if (strcmp(a, "--base") == 0)
			target = &o.base;
		else if (strcmp(a, "--scenario") == 0)
			target = &o.scenario;
		else if (strcmp(a, "--raw") == 0)
			target = &o.raw_dir;
		else if (strcmp(a, "--refit") == 0)
			target = &o.refit_dir;
		else if (strcmp(a, "--gpus") == 0) {
			char *end;
			long v;
			if (i + 1 >= argc)
				return usage("option '%s' needs a number", a);
			v = strtol(argv[++i], &end, 10);
			if (*end || end == argv[i] || v < 1 || v > 1024)
				return usage("--gpus takes a GPU count of at least 1, not '%s'", argv[i]);
			o.gpus = (int)v;
			continue;
		} else if (strcmp(a, "--sustain") == 0) {
			char *end;
			double v;
			if (i + 1 >= argc)
				return usage("option '%s' needs a number of seconds", a);
			v = strtod(argv[++i], &end);
			if (*end || end == argv[i] || !(v >= 0 && v <= 3600))
				return usage("--sustain takes seconds from 0 to 3600, not '%s'", argv[i]);
			o.sustain_s = v;
			continue;
		} else if (strcmp(a, "--attention") == 0) {
			if (i + 1 >= argc || strcmp(argv[i + 1], "torch") != 0)
				return usage("--attention takes 'torch' (fused attention through PyTorch), not '%s'",
					     i + 1 < argc ? argv[i + 1] : "");
			o.attention = argv[++i];
			continue;
		} else if (strcmp(a, "--kernels") == 0) {
			if (i + 1 >= argc || strcmp(argv[i + 1], "torch") != 0)
				return usage("--kernels takes 'torch' (PyTorch's memory-bound kernels), not '%s'",
					     i + 1 < argc ? argv[i + 1] : "");
			o.kernels = argv[++i];
			continue;
		} else if (a[0] == '-')
			return usage("unknown option '%s'", a);
		else
			return usage("unexpected argument '%s'", a);
		if (i + 1 >= argc || !argv[i + 1][0])
			return usage("option '%s' needs a value", a);
		*target = argv[++i];
	}
	o.progress = isatty(2);
	if (o.refit_dir) {
		if (o.quick || o.scenario || o.gpus || o.sustain_s >= 0 || o.attention || o.kernels)
			return usage("%s: --refit measures nothing (no --quick, --scenario, --gpus, --sustain, "
				     "--attention or --kernels)", "--refit");
		return exit_code(calibrate_refit(&o));
	}
	return exit_code(calibrate_measure(&o));
}
