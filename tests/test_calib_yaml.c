/* test_calib_yaml: the hardware-model writer of gpusim calibrate: a synthetic calibration written with libyaml's
 * emitter, read back with libyaml's parser and checked key by key; sections copied from a base model; the
 * tmp-then-rename write; the raw CSVs written and read back; plus the small parsers calibrate relies on
 * (nvidia-smi topo, scenario shapes, plan). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>
#include "tests/capture.h"
#include "tests/check.h"
#include "util/gserr.h"
#include "hardware/hwmodel.h"
#include "calibrate/base.h"
#include "calibrate/calib.h"
#include "calibrate/gemmtab.h"
#include "calibrate/calmodel.h"
#include "calibrate/plan.h"
#include "calibrate/rawio.h"
#include "calibrate/scenshapes.h"
#include "calibrate/topo.h"

/* a base model that is not a built-in preset (so the calibration copies its sections rather than naming it) */
static const char base_text[] =
"schema: gpusim-hw/1\n"
"name: test-base\n"
"base: h200-sxm\n"
"network: {nics: 8, nic_gbps: 50, latency_us: 5, oversubscription: 1.0, source: \"published: NDR\"}\n"
"collectives:\n"
"  inter:\n"
"    all_reduce:\n"
"      lines:\n"
"        - {algo: ring, alpha_us: 20, step_us: 5, bus_gbps: 47}\n"
"cost: {usd_per_gpu_hour: 3.5}\n";

/* ---- a tiny path lookup over a loaded document: "a.b[2].c" */
static yaml_node_t *get(yaml_document_t *d, const char *path)
{
	yaml_node_t *n = yaml_document_get_root_node(d);
	char key[64];
	while (n && *path) {
		if (*path == '[') {
			int i = atoi(path + 1);
			path = strchr(path, ']') + 1;
			if (*path == '.')
				path++;
			if (n->type != YAML_SEQUENCE_NODE || i >= n->data.sequence.items.top - n->data.sequence.items.start)
				return NULL;
			n = yaml_document_get_node(d, n->data.sequence.items.start[i]);
			continue;
		}
		size_t len = strcspn(path, ".[");
		snprintf(key, sizeof key, "%.*s", (int)len, path);
		path += len;
		if (*path == '.')
			path++;
		yaml_node_t *found = NULL;
		if (n->type != YAML_MAPPING_NODE)
			return NULL;
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(d, p->key);
			if (strcmp((char *)k->data.scalar.value, key) == 0)
				found = yaml_document_get_node(d, p->value);
		}
		n = found;
	}
	return n;
}

static const char *str(yaml_document_t *d, const char *path)
{
	yaml_node_t *n = get(d, path);
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static double num(yaml_document_t *d, const char *path)
{
	const char *s = str(d, path);
	return s ? strtod(s, NULL) : NAN;
}

static int len(yaml_document_t *d, const char *path)
{
	yaml_node_t *n = get(d, path);
	if (!n)
		return -1;
	if (n->type == YAML_SEQUENCE_NODE)
		return (int)(n->data.sequence.items.top - n->data.sequence.items.start);
	if (n->type == YAML_MAPPING_NODE)
		return (int)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	return 0;
}

static int load(const char *path, yaml_document_t *d)
{
	FILE *f = fopen(path, "rb");
	yaml_parser_t p;
	int ok;
	if (!f)
		return 0;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_file(&p, f);
	ok = yaml_parser_load(&p, d);
	yaml_parser_delete(&p);
	fclose(f);
	return ok && yaml_document_get_root_node(d);
}

static void synthetic(struct calib *c)
{
	calib_init(c);
	snprintf(c->id.host, sizeof c->id.host, "testhost");
	snprintf(c->id.date, sizeof c->id.date, "2026-01-02T03:04:05Z");
	snprintf(c->id.mode, sizeof c->id.mode, "full");
	snprintf(c->id.gpu_name, sizeof c->id.gpu_name, "NVIDIA H200");
	snprintf(c->id.driver, sizeof c->id.driver, "580.159.04");
	snprintf(c->id.topo_text, sizeof c->id.topo_text, "\tGPU0\tGPU1\nGPU0\t X \tNV18\nGPU1\tNV18\t X \n");
	c->id.ngpus = 2;
	c->id.sm_count = 132;
	c->id.cc_major = 9;
	c->id.memory_bytes = 150e9;
	c->id.nvlinks = 18;
	c->id.cuda_runtime = 13000;
	c->id.nccl_version = 22809;
	c->id.p2p[0][1] = c->id.p2p[1][0] = c->id.p2p[0][0] = c->id.p2p[1][1] = 1;
	gemmtab_set_peaks(c);
	/* bf16 grid 2x2x2 at eff 0.5 (time = 2mnk / (0.5 * 989.4e12)) */
	struct cal_grid *g = &c->grid[DT_BF16];
	g->nm = g->nn = g->nk = 2;
	long v[] = {1024, 8192};
	for (int i = 0; i < 2; i++)
		g->m[i] = g->n[i] = g->k[i] = v[i];
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 2; b++)
			for (int k = 0; k < 2; k++) {
				struct cal_gemm_pt *p = calib_add_gemm(c);
				p->dt = DT_BF16;
				p->m = v[a];
				p->n = v[b];
				p->k = v[k];
				p->us = 2.0 * p->m * p->n * p->k / (0.5 * 989.4e12) * 1e6;
				p->grid = true;
				snprintf(p->algo, sizeof p->algo, "algo 66");
			}
	/* copy kernel: 2 us + bytes / 4320 GB/s -> eff 0.9 of 4800, half_bytes = 2 us * 4.32e6 B/us */
	for (double b = 65536; b <= 4294967296.0; b *= 8) {
		c->mem[c->nmem].kind = CAL_MEM_COPY;
		c->mem[c->nmem].bytes = b;
		c->mem[c->nmem++].us = 2 + b / 4.32e6;
	}
	c->have_launch = true;
	c->launch_us = 2.5;
	c->launch_roundtrip_us = 9;
	/* attention at eff 0.4 forward, 0.3 backward */
	c->attn[0] = (struct cal_attn_pt){32, 4096, 128, 0, 0};
	double f = 4.0 * 32 * 4096.0 * 4096 * 128;
	c->attn[0].fwd_us = f / (0.4 * 989.4e12) * 1e6;
	c->attn[0].bwd_us = 2 * f / (0.3 * 989.4e12) * 1e6;
	c->nattn = 1;
	/* all-reduce n=2: 9 us flat to 64 KiB, then 20 us + 330 GB/s */
	struct cal_series *s = calib_add_series(c);
	s->scope = SCOPE_INTRA;
	s->op = COLL_ALL_REDUCE;
	s->n = 2;
	for (double b = 8; b <= 1073741824.0; b *= 2) {
		double t = fmin(b <= 65536 ? 9 + b / 1e5 : INFINITY, 20 + b / 330e3);
		s->bytes[s->npts] = b;
		s->us[s->npts] = s->min_us[s->npts] = s->max_us[s->npts] = t;
		s->npts++;
	}
	c->overlap = (struct cal_overlap){true, DT_BF16, 8192, 8192, 8192, 268435456.0, 2, 1000, 1150, 800, 1000, 0};
}

static void test_writer(void)
{
	struct calib c;
	struct cal_base b;
	struct calmodel_opts o = {"h200x2-measured", &b};
	char dir[] = "/tmp/gpusim_test_calib_XXXXXX", path[128], tmp[160];
	yaml_document_t d;
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof path, "%s/out.yaml", dir);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	synthetic(&c);
	calib_fit(&c, NULL);
	CHECK(c.series[0].fitted);
	CHECK_INT(base_load_text(&b, "test-base", base_text), 0);
	CHECK_INT(calmodel_write(&c, &o, path), 0);
	CHECK(access(tmp, F_OK) != 0);  /* renamed, not left behind */
	CHECK(load(path, &d));

	CHECK_STR(str(&d, "schema"), "gpusim-hw/1");
	CHECK_STR(str(&d, "name"), "h200x2-measured");
	CHECK_STR(str(&d, "gpu.name"), "NVIDIA H200");
	CHECK_NEAR(num(&d, "gpu.sm_count"), 132, 0);
	CHECK_NEAR(num(&d, "gpu.hbm_gbps"), 4800, 0);
	CHECK_NEAR(num(&d, "gpu.peak_tflops.bf16"), 989.4, 1e-12);
	CHECK_NEAR(num(&d, "gpu.peak_tflops.fp8"), 1978.9, 1e-12);
	CHECK_NEAR(num(&d, "gpu.launch_us"), 2.5, 1e-12);
	CHECK_NEAR(num(&d, "gpu.memory_bound.eff"), 0.9, 1e-9);
	CHECK_NEAR(num(&d, "gpu.memory_bound.half_bytes"), 2 * 4.32e6, 1e-6);
	CHECK_STR(str(&d, "gpu.gemm.tables[0].dtype"), "bf16");
	CHECK_INT(len(&d, "gpu.gemm.tables[0].m"), 2);
	CHECK_INT(len(&d, "gpu.gemm.tables[0].eff"), 8);
	CHECK_NEAR(num(&d, "gpu.gemm.tables[0].eff[7]"), 0.5, 1e-9);
	CHECK_NEAR(num(&d, "gpu.gemm.tables[0].k[1]"), 8192, 0);
	CHECK_NEAR(num(&d, "gpu.gemm.model.max_eff"), 0.5, 1e-9);
	CHECK_NEAR(num(&d, "gpu.attention.unfused.fwd_eff"), 0.4, 1e-3);
	CHECK_NEAR(num(&d, "gpu.attention.unfused.bwd_eff"), 0.3, 1e-3);
	CHECK_STR(str(&d, "gpu.attention.unfused.impl"), "cublas_unfused");
	CHECK(get(&d, "gpu.attention.fused") == NULL);  /* not measured: the loader takes the preset's */
	CHECK_NEAR(num(&d, "node.gpus"), 2, 0);
	CHECK_NEAR(num(&d, "meta.host_gpus"), 2, 0);  /* host_gpus 0 (an old raw file): the measured count */
	CHECK_STR(str(&d, "node.fabric"), "nvlink");
	CHECK_NEAR(num(&d, "node.link_gbps"), 450, 0);
	/* measured collectives: per-n lines, extrapolating lines, the table */
	CHECK_STR(str(&d, "collectives.intra.all_reduce.lines[0].algo"), "fit1");
	CHECK_NEAR(num(&d, "collectives.intra.all_reduce.lines[0].n"), 2, 0);
	CHECK_NEAR(num(&d, "collectives.intra.all_reduce.lines[0].alpha_us"), 9, 1e-5);
	CHECK_NEAR(num(&d, "collectives.intra.all_reduce.lines[1].bus_gbps"), 330, 1e-5);
	CHECK_NEAR(num(&d, "collectives.intra.all_reduce.lines[1].alpha_us"), 20, 1e-5);
	CHECK_NEAR(num(&d, "collectives.intra.all_reduce.lines[1].max_bytes"), 0, 0);  /* no limit */
	CHECK_STR(str(&d, "collectives.intra.all_reduce.lines[2].algo"), "fit1_any_n");
	CHECK_NEAR(num(&d, "collectives.intra.all_reduce.lines[2].n"), 0, 0);  /* any group size */
	CHECK_INT(len(&d, "collectives.intra.all_reduce.tables[0].bytes"), 28);
	CHECK_NEAR(num(&d, "collectives.intra.all_reduce.tables[0].bytes[27]"), 1073741824.0, 0);
	CHECK_CONTAINS(str(&d, "collectives.intra.all_reduce.source"), "measured: NCCL 2.28.9");
	/* unmeasured: from the base, marked */
	CHECK_NEAR(num(&d, "network.nic_gbps"), 50, 0);
	CHECK_STR(str(&d, "network.source"), "preset: test-base (published: NDR)");
	CHECK_NEAR(num(&d, "collectives.inter.all_reduce.lines[0].bus_gbps"), 47, 0);
	CHECK_CONTAINS(str(&d, "collectives.inter.all_reduce.source"), "preset: test-base");
	CHECK_NEAR(num(&d, "cost.usd_per_gpu_hour"), 3.5, 0);
	CHECK_NEAR(num(&d, "overlap.compute_slowdown"), 0.15, 1e-9);
	CHECK_NEAR(num(&d, "overlap.comm_slowdown"), 0.25, 1e-9);
	/* meta: identity, fit quality, residuals */
	CHECK_STR(str(&d, "meta.status"), "complete");
	CHECK_STR(str(&d, "meta.versions.nccl"), "2.28.9");
	CHECK_STR(str(&d, "meta.versions.driver"), "580.159.04");
	CHECK_STR(str(&d, "meta.fit[0].op"), "all_reduce");
	CHECK(num(&d, "meta.fit[0].max_rel_err") < 0.01);
	CHECK_INT(len(&d, "meta.fit[0].rel_err"), 28);
	CHECK_CONTAINS(str(&d, "meta.topology.nvidia_smi_topo"), "NV18");
	CHECK_NEAR(num(&d, "meta.gemm_reference.tflops"), 0.5 * 989.4, 1e-5);
	yaml_document_delete(&d);

	/* the simulator's own loader takes it as it is, and answers from the measured table and fitted lines */
	int err = 0;
	struct hwmodel *hw = hwmodel_load(path, &err);
	CHECK(hw != NULL);
	if (hw) {
		CHECK_STR(hw->name, "h200x2-measured");
		CHECK_NEAR(hw->gpu.peak_tflops[DT_BF16], 989.4, 1e-12);
		/* the measured attention is the unfused path; the fused entry comes from the H200 preset */
		CHECK_STR(hw->gpu.attn[ATTN_UNFUSED].impl, "cublas_unfused");
		CHECK(hw->gpu.attn[ATTN_FUSED].present);
		CHECK_CONTAINS(hw->gpu.attn[ATTN_FUSED].source, "preset h200-sxm");
		CHECK_INT(hw->node.gpus, 2);
		CHECK_NEAR(hwmodel_gemm_eff(hw, DT_BF16, 8192, 8192, 8192), 0.5, 1e-3);
		/* inside the table: its measured time; 1 GiB at 20 us + 1 GiB / 330 GB/s */
		CHECK_NEAR(hwmodel_coll_us(hw, SCOPE_INTRA, COLL_ALL_REDUCE, 2, 1073741824.0),
			   20 + 1073741824.0 / 330e3, 1e-4);
		/* past the table (8 GiB): the last fitted line */
		CHECK_NEAR(hwmodel_coll_us(hw, SCOPE_INTRA, COLL_ALL_REDUCE, 2, 8589934592.0),
			   20 + 8589934592.0 / 330e3, 1e-4);
		CHECK_NEAR(hw->overlap_comm_slowdown, 0.25, 1e-9);
		CHECK_NEAR(hw->net.nic_gbps, 50, 0);
		hwmodel_free(hw);
	}

	/* without a base, what the loader requires is estimated and marked so, the optional rest left out; a stopped
	 * run says so */
	struct calmodel_opts o2 = {"partial", NULL};
	snprintf(c.status, sizeof c.status, "stopped after collectives: ncclAllReduce failed");
	CHECK_INT(calmodel_write(&c, &o2, path), 0);
	CHECK(load(path, &d));
	CHECK_CONTAINS(str(&d, "network.source"), "estimate:");
	CHECK_NEAR(num(&d, "network.nic_gbps"), 50, 0);
	CHECK(get(&d, "cost") == NULL);
	CHECK(get(&d, "collectives.inter") == NULL);
	CHECK_CONTAINS(str(&d, "meta.status"), "ncclAllReduce");
	yaml_document_delete(&d);

	/* two GPUs measured on an 8-GPU host (calibrate --gpus 2): the model is of the host, a node of 8, whose groups
	 * of 4 and 8 take the fitted lines that carry over to any group size */
	c.status[0] = 0;
	c.id.host_gpus = 8;
	CHECK_INT(calmodel_write(&c, &o, path), 0);
	CHECK(load(path, &d));
	CHECK_NEAR(num(&d, "node.gpus"), 8, 0);
	CHECK_NEAR(num(&d, "meta.gpus"), 2, 0);
	CHECK_NEAR(num(&d, "meta.host_gpus"), 8, 0);
	CHECK_CONTAINS(str(&d, "node.source"), "gpus: the host's 8, collectives measured on groups of up to 2");
	yaml_document_delete(&d);
	hw = hwmodel_load(path, &err);
	CHECK(hw != NULL);
	if (hw) {
		CHECK_INT(hw->node.gpus, 8);
		CHECK(hwmodel_coll_us(hw, SCOPE_INTRA, COLL_ALL_REDUCE, 8, 1073741824.0) > 0);
		hwmodel_free(hw);
	}
	c.id.host_gpus = 0;

	/* a base that is a built-in preset: the file claims only what it measured. It names the preset as its base,
	 * writes the host's node under meta.node (a fact) and no node, network, inter-node collectives or cost; loaded,
	 * it is the measured GPU in the preset's node of 8, the measured collectives for groups of 2 (same GPU name,
	 * NVSwitch as the preset) and grown for 4 and 8, and says so in its origin */
	struct cal_base pb;
	CHECK_INT(base_load(&pb, "h200-sxm"), 0);
	struct calmodel_opts o3 = {"h200x2-based", &pb};
	c.id.nvswitch = true;
	c.id.host_gpus = 2;
	CHECK_INT(calmodel_write(&c, &o3, path), 0);
	CHECK(load(path, &d));
	CHECK_STR(str(&d, "base"), "h200-sxm");
	CHECK(get(&d, "node") == NULL);
	CHECK(get(&d, "network") == NULL);
	CHECK(get(&d, "cost") == NULL);
	CHECK(get(&d, "collectives.inter") == NULL);
	CHECK_NEAR(num(&d, "meta.node.gpus"), 2, 0);
	CHECK_STR(str(&d, "meta.node.fabric"), "nvswitch");
	CHECK_CONTAINS(str(&d, "source"), "node, network, inter-node collectives and cost not measured: base h200-sxm");
	CHECK_CONTAINS(str(&d, "collectives.intra.all_reduce.source"), "measured:");
	yaml_document_delete(&d);
	hw = hwmodel_load(path, &err);
	CHECK(hw != NULL);
	if (hw) {
		CHECK_STR(hw->name, "h200x2-based");
		CHECK_INT(hw->node.gpus, 8);
		CHECK(hw->origin.composed);
		CHECK_CONTAINS(hw->origin.gpu, "measured (");
		CHECK_CONTAINS(hw->origin.intra, "for groups of 2 to 2; groups of 3 to 8 grown");
		CHECK_STR(hw->origin.node, "preset h200-sxm (node of 8, network)");
		/* groups of 2: the measured 1 GiB time, 20 us + 1 GiB / 330 GB/s; of 4: t4(B / 1.5) = t2(B) + 4 x 1.9 */
		CHECK_NEAR(hwmodel_coll_us(hw, SCOPE_INTRA, COLL_ALL_REDUCE, 2, 1073741824.0),
			   20 + 1073741824.0 / 330e3, 1e-4);
		CHECK_NEAR(hwmodel_coll_us(hw, SCOPE_INTRA, COLL_ALL_REDUCE, 4, 1073741824.0 / 1.5),
			   20 + 1073741824.0 / 330e3 + 4 * 1.9, 1e-4);
		/* the composed model written whole by the same writer (presets show) loads back equal */
		char *text = NULL, why[300];
		size_t tlen = 0;
		FILE *mf = open_memstream(&text, &tlen);
		hwmodel_write(mf, hw);
		fclose(mf);
		struct hwmodel *back = hwmodel_load_string("back.yaml", text, &err);
		CHECK(back != NULL);
		if (back) {
			bool same = hwmodel_equal(hw, back, why, sizeof why);
			if (!same)
				fprintf(stderr, "calibration written whole and loaded back differs: %s\n", why);
			CHECK(same);
			hwmodel_free(back);
		}
		free(text);
		hwmodel_free(hw);
	}
	base_release(&pb);
	c.id.nvswitch = false;
	c.id.host_gpus = 0;

	/* an unwritable place: an error, and no file */
	char bad[200];
	snprintf(bad, sizeof bad, "%s/no/such/dir/x.yaml", dir);
	CHECK_INT(calmodel_write(&c, &o, bad), -3);
	CHECK(access(bad, F_OK) != 0);

	/* raw CSVs, and a calibration read back from them: the same numbers, the same fit, the same model */
	char raw[160], csv[200], line[256];
	snprintf(raw, sizeof raw, "%s/raw", dir);
	c.status[0] = 0;
	/* the all-gather beside a GEMM too (meta.overlap_all_gather), which raw folders before 2026-11-28 dropped */
	c.overlap_ag = (struct cal_overlap){true, DT_BF16, 8192, 8192, 8192, 268435456.0, 2, 1600, 1605, 613, 1281, 0};
	/* free text with a comma and quotes is written as one quoted cell and read back whole (util/csvr.h) */
	snprintf(c.id.env, sizeof c.id.env, "NCCL_ALGO=Ring,Tree NCCL_DEBUG=\"WARN\"");
	CHECK_INT(rawio_write(&c, raw), 0);
	snprintf(csv, sizeof csv, "%s/collectives.csv", raw);
	FILE *f = fopen(csv, "r");
	CHECK(f != NULL);
	if (f) {
		CHECK(fgets(line, sizeof line, f) != NULL);
		CHECK_CONTAINS(line, "scope,op,n,bytes,time_us");
		CHECK(fgets(line, sizeof line, f) != NULL);
		CHECK_CONTAINS(line, "intra,all_reduce,2,8,");
		fclose(f);
	}
	struct calib back;
	calib_init(&back);
	CHECK_INT(rawio_read(&back, raw), 0);
	CHECK_STR(back.id.gpu_name, "NVIDIA H200");
	CHECK_STR(back.id.host, "testhost");
	CHECK_STR(back.id.env, "NCCL_ALGO=Ring,Tree NCCL_DEBUG=\"WARN\"");
	CHECK_INT(back.id.ngpus, 2);
	CHECK_INT(back.id.cc_major, 9);
	CHECK_INT(back.id.nccl_version, 22809);
	CHECK_INT(back.id.p2p[1][0], 1);
	CHECK_CONTAINS(back.id.topo_text, "NV18");
	CHECK_INT(back.ngemm, c.ngemm);
	CHECK_INT(back.grid[DT_BF16].nm, 2);
	CHECK_INT(back.grid[DT_BF16].k[1], 8192);
	CHECK_NEAR(back.gemm[7].us, c.gemm[7].us, 1e-5);
	CHECK_INT(back.nseries, 1);
	CHECK_INT(back.series[0].npts, 28);
	CHECK_NEAR(back.series[0].us[27], c.series[0].us[27], 1e-5);
	CHECK_INT(back.nmem, c.nmem);
	CHECK_NEAR(back.launch_us, 2.5, 1e-9);
	CHECK_INT(back.nattn, 1);
	CHECK(back.overlap.have);
	CHECK_NEAR(back.overlap.gemm_busy_us, 1150, 1e-9);
	CHECK_INT((int)back.overlap.m, 8192);
	CHECK(back.overlap_ag.have);
	CHECK_NEAR(back.overlap_ag.comm_us, 613, 1e-9);
	CHECK_NEAR(back.overlap_ag.comm_busy_us, 1281, 1e-9);
	CHECK_NEAR(back.overlap_ag.comm_bytes, 268435456.0, 1e-3);
	CHECK_NEAR(back.overlap.comm_us, 800, 1e-9);  /* each its own */
	CHECK_INT(back.overlap_ag.ranks, 2);
	gemmtab_set_peaks(&back);
	calib_fit(&back, NULL);
	CHECK_NEAR(fit_bus_gbps(&back.series[0].fit.line[1]), fit_bus_gbps(&c.series[0].fit.line[1]), 1e-5);
	calib_release(&back);
	/* a malformed file is reported with its line */
	snprintf(csv, sizeof csv, "%s/gemm.csv", raw);
	f = fopen(csv, "a");
	if (f) {
		fputs("bf16,1,2\n", f);
		fclose(f);
	}
	calib_init(&back);
	CHECK_INT(rawio_read(&back, raw), -1);
	calib_release(&back);
	/* a GPU count no machine has (a refit would write a model of "-5 x NVIDIA H200"): an error */
	c.id.ngpus = -5;
	CHECK_INT(rawio_write(&c, raw), 0);
	c.id.ngpus = 2;
	calib_init(&back);
	cap_begin();
	CHECK_INT(rawio_read(&back, raw), GS_EINVAL);
	CHECK_CONTAINS(cap_end(), "identity.csv: gpus -5, nodes");
	calib_release(&back);
	const char *names[] = {"identity.csv", "topology.txt", "gemm.csv", "collectives.csv", "memory.csv",
			       "attention.csv", "clocks.csv", "misc.csv"};
	for (int i = 0; i < 8; i++) {
		snprintf(csv, sizeof csv, "%s/%s", raw, names[i]);
		remove(csv);
	}
	rmdir(raw);
	remove(path);
	rmdir(dir);
	base_release(&b);
	calib_release(&c);
}

static void test_topo(void)
{
	static const char text[] =
		"\tGPU0\tGPU1\tGPU2\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
		"GPU0\t X \tNV18\tSYS\tSYS\t0-31\t0\t\tN/A\n"
		"GPU1\tNV18\t X \tPIX\tSYS\t0-31\t0\t\tN/A\n"
		"GPU2\tSYS\tPIX\t X \tSYS\t0-31\t0\t\tN/A\n"
		"NIC0\tSYS\tSYS\tSYS\t X \n\nLegend:\n\n  X    = Self\n  NV#  = Connection traversing a bonded set\n";
	int nv[CAL_MAX_GPUS][CAL_MAX_GPUS];
	CHECK_INT(topo_parse(text, 3, nv), 3);
	CHECK_INT(nv[0][1], 18);
	CHECK_INT(nv[1][0], 18);
	CHECK_INT(nv[0][2], 0);
	CHECK_INT(nv[1][2], 0);
	CHECK_INT(nv[2][2], 0);
	/* as nvidia-smi prints it on the H200 pair, header underlined with escape codes even into a pipe */
	static const char h200[] =
		"\t\033[4mGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\033[0m\n"
		"GPU0\t X \tNV18\t0-31\t0\t\tN/A\nGPU1\tNV18\t X \t0-31\t0\t\tN/A\n\nLegend:\n";
	CHECK_INT(topo_parse(h200, 2, nv), 2);
	CHECK_INT(nv[0][1], 18);
	CHECK_INT(nv[1][0], 18);
	CHECK_INT(topo_parse("", 2, nv), 0);
	CHECK_INT(nv[0][1], -1);
}

static void test_scenario_shapes(void)
{
	struct scenario s;
	struct cal_shape sh[CAL_MAX_SHAPES];
	memset(&s, 0, sizeof s);
	s.model.type = MODEL_TRANSFORMER;
	s.model.hidden = 8192;
	s.model.heads = 64;
	s.model.kv_heads = 8;
	s.model.ffn_hidden = 28672;
	s.model.ffn = FFN_SWIGLU;
	s.model.seq = 4096;
	s.model.vocab = 32000;
	s.model.dtype = DT_BF16;
	s.train.micro_batch = 1;
	s.par.tp = 8;
	int n = scenshapes_from(&s, sh, CAL_MAX_SHAPES);
	CHECK_INT(n, 15);
	/* qkv: (64 + 2*8) * 128 / 8 = 1280 outputs per GPU from 8192 inputs, 4096 tokens */
	CHECK_STR(sh[0].name, "qkv");
	CHECK_INT(sh[0].m, 4096);
	CHECK_INT(sh[0].n, 1280);
	CHECK_INT(sh[0].k, 8192);
	CHECK_STR(sh[1].name, "qkv_dgrad");
	CHECK_INT(sh[1].n, 8192);
	CHECK_INT(sh[1].k, 1280);
	CHECK_STR(sh[2].name, "qkv_wgrad");
	CHECK_INT(sh[2].m, 1280);
	CHECK_INT(sh[2].k, 4096);
	/* SwiGLU up projection: gate and up fused, 2 * 28672 / 8 = 7168 */
	CHECK_STR(sh[6].name, "mlp_up");
	CHECK_INT(sh[6].n, 7168);
	CHECK_STR(sh[12].name, "head");
	CHECK_INT(sh[12].n, 4000);

	struct cal_plan p;
	plan_init(&p, true, 9, 0);
	CHECK_INT(plan_gemm_count(&p), 36);
	CHECK_INT(plan_add_shapes(&p, sh, 3), 0);
	/* m gains 1280 (4096 was there), n 1280 and 8192, k 1280 and 8192 */
	CHECK_INT(p.grid[DT_BF16].nm, 5);
	CHECK_INT(p.grid[DT_BF16].m[1], 1024);
	CHECK_INT(p.grid[DT_BF16].m[2], 1280);
	CHECK_INT(p.grid[DT_BF16].nn, 5);
	CHECK_INT(p.grid[DT_BF16].nk, 5);
	CHECK_INT(p.grid[DT_BF16].k[3], 8192);
	/* full: 8 x 7 x 7 powers of two per dtype; bf16 also at the 1.5x points: 15 x 13 x 13 */
	plan_init(&p, false, 9, 0);
	CHECK_INT(plan_gemm_count(&p), 3 * 392 + 15 * 13 * 13);
	CHECK_INT(p.grid[DT_BF16].m[1], 192);
	CHECK_INT(p.grid[DT_BF16].k[12], 32768);
	plan_init(&p, false, 8, 0);  /* Ampere: no fp8 */
	CHECK_INT(plan_gemm_count(&p), 2 * 392 + 15 * 13 * 13);
	CHECK_INT(p.ncoll, 30);
}

int main(void)
{
	test_writer();
	test_topo();
	test_scenario_shapes();
	return check_result();
}
