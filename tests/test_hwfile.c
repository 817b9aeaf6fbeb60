/* test_hwfile: the gpusim-hw reader and writer as a pair (hardware/hwload.c, hardware/hwwrite.h). For every file in
 * hardware/ (the built-in presets and the committed calibrations), for a file that is only `base: PRESET` for every
 * preset, for files over a calibration (`base:` a measured file) and for a preset's file with overrides:
 *   load -> save -> load gives an equal model (hwmodel_equal: every field, exactly), and
 *   save(load(save(x))) is byte-identical to save(x);
 * `presets show` (hwmodel_write) is save(x) after its comment lines. A file the writer writes is complete (no
 * `base:`), so the second load composes nothing: the merged model of a based file comes back whole.
 * The packed presets (hardware/gen/presetgen.c): `--hw NAME` (a copy of the model packed at build time) is the
 * preset's YAML loaded, field for field, and hwmodel_pack/unpack give back any model whole. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hardware/hwmodel.h"
#include "hardware/hwmodel_internal.h"
#include "hardware/hwwrite.h"
#include "tests/check.h"

/* save(hw): the whole model, no comment lines; caller frees. */
static char *save(const struct hwmodel *hw)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct hwwrite_opts o = { .parts = HWW_ALL };
	CHECK_INT(hwwrite(f, hw, &o), 0);
	fclose(f);
	return buf;
}

/* hwmodel_write's text without its leading comment lines */
static char *shown(const struct hwmodel *hw)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	hwmodel_write(f, hw);
	fclose(f);
	char *body = buf;
	while (*body == '#')
		body = strchr(body, '\n') + 1;
	memmove(buf, body, strlen(body) + 1);
	return buf;
}

static void round_trip(const char *what, const struct hwmodel *x)
{
	char why[400];
	int err = 0;
	char *s1 = save(x);
	struct hwmodel *y = hwmodel_load_string(what, s1, &err);
	CHECK(y != NULL);
	if (y) {
		bool same = hwmodel_equal(x, y, why, sizeof why);
		if (!same)
			fprintf(stderr, "%s: load(save(x)) differs from x: %s\n", what, why);
		CHECK(same);
		char *s2 = save(y);
		if (strcmp(s1, s2) != 0)
			fprintf(stderr, "%s: save(load(save(x))) differs from save(x)\n", what);
		CHECK(strcmp(s1, s2) == 0);
		free(s2);
		hwmodel_free(y);
	}
	char *s3 = shown(x);
	CHECK_STR(s3, s1);
	free(s3);
	free(s1);
}

static int load_and_round_trip(const char *path)
{
	int err = 0;
	struct hwmodel *x = hwmodel_load(path, &err);
	CHECK(x != NULL);
	if (!x)
		return 0;
	round_trip(path, x);
	hwmodel_free(x);
	return 1;
}

/* every file in hardware/: the presets and the committed calibrations */
static void test_hardware_files(void)
{
	DIR *d = opendir("hardware");
	struct dirent *e;
	char path[512];
	int n = 0, presets = 0;
	CHECK(d != NULL);
	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".yaml") != 0)
			continue;
		snprintf(path, sizeof path, "hardware/%s", e->d_name);
		n += load_and_round_trip(path);
	}
	closedir(d);
	for (const char *const *p = hwmodel_preset_names(); *p; p++)
		presets++;
	CHECK(n >= presets + 2);  /* every preset and at least the two committed calibrations */
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* files with `base:`: each preset as a base, a preset with overrides, and files over each committed calibration
 * (one of them a calibration with a based file of its own: a measured GPU in a preset's node, composed) */
static void test_based_files(void)
{
	char dir[] = "/tmp/gpusim-hwfile-XXXXXX", path[600], text[1200], cwd[512];
	CHECK(mkdtemp(dir) != NULL);
	CHECK(getcwd(cwd, sizeof cwd) != NULL);
	snprintf(path, sizeof path, "%s/p.yaml", dir);
	for (const char *const *p = hwmodel_preset_names(); *p; p++) {
		snprintf(text, sizeof text, "schema: gpusim-hw/1\nname: %s-based\nbase: %s\n", *p, *p);
		put(path, text);
		load_and_round_trip(path);
	}
	put(path, "schema: gpusim-hw/1\nname: over\nbase: h100-dgx\nnode: {gpus: 4}\nnetwork: {nic_gbps: 25}\n"
		  "gpu:\n  peak_tflops: {bf16: 500}\n  memory_bound: {eff: 0.7, source: \"estimate: a guess\"}\n"
		  "collectives:\n  intra:\n    all_reduce:\n      lines:\n"
		  "        - {algo: ring, alpha_us: 10, step_us: 0, bus_gbps: 100, max_bytes: 1e6}\n"
		  "        - {algo: ring2, n: 4, alpha_us: 12.5, bus_gbps: 120}\n"
		  "cost: {usd_per_gpu_hour: 1.75, source: \"estimate: our price\"}\n");
	load_and_round_trip(path);
	const char *measured[] = { "h100x1-measured", "h200x2-measured" };
	for (int i = 0; i < 2; i++) {
		snprintf(text, sizeof text, "schema: gpusim-hw/1\nname: m%d\nbase: %s/hardware/%s.yaml\nnode:\n  gpus: 4\n",
			 i, cwd, measured[i]);
		put(path, text);
		load_and_round_trip(path);
	}
	/* a calibration that names a preset as its base (as `gpusim calibrate` writes one): the H200 measured GPU
	 * and collectives composed into the h200-sxm node of 8 */
	snprintf(text, sizeof text, "schema: gpusim-hw/1\nname: comp\nbase: %s/hardware/h200x2-measured.yaml\n"
		 "meta:\n  node: {gpus: 2, fabric: nvswitch}\n", cwd);
	put(path, text);
	load_and_round_trip(path);
	remove(path);
	rmdir(dir);
}

/* a composed model (predict --gpu: a measured GPU in a cluster's node) and a retargeted one are models too */
static void test_composed(void)
{
	int err = 0;
	struct hwmodel *cl = hwmodel_load("h100-dgx", &err);
	struct hwmodel *m = hwmodel_load("hardware/h200x2-measured.yaml", &err);
	struct hwmodel *t = hwmodel_load("h100-sxm-94gb", &err);
	CHECK(cl && m && t);
	if (cl && m && t) {
		struct hwmodel *c = hwmodel_compose(cl, m);
		round_trip("composed", c);
		hwmodel_retarget(c, t);
		round_trip("retargeted", c);
		hwmodel_free(c);
	}
	hwmodel_free(cl);
	hwmodel_free(m);
	hwmodel_free(t);
}

/* hwmodel_equal says where two models differ */
static void test_equal(void)
{
	int err = 0;
	char why[200];
	struct hwmodel *a = hwmodel_load("h100-dgx", &err), *b = hwmodel_load("h100-dgx", &err);
	CHECK(a && b);
	if (!a || !b)
		return;
	CHECK(hwmodel_equal(a, b, why, sizeof why));
	CHECK_STR(why, "");
	b->gpu.hbm_gbps = 4000;
	CHECK(!hwmodel_equal(a, b, why, sizeof why));
	CHECK_STR(why, "gpu.hbm_gbps: 3350 != 4000");
	b->gpu.hbm_gbps = a->gpu.hbm_gbps;
	b->coll[SCOPE_INTER][COLL_ALL_REDUCE].lines[1].bus_gbps += 1;
	CHECK(!hwmodel_equal(a, b, why, sizeof why));
	CHECK_STR(why, "collectives.inter.all_reduce.lines[1]: 48 != 49");
	hwmodel_free(a);
	hwmodel_free(b);
}

/* a and b the same model, also where hwmodel_equal does not look: path, base, origin */
static void check_same(const char *what, const struct hwmodel *a, const struct hwmodel *b)
{
	char why[256] = "";
	if (!a || !b) {
		CHECK(a && b);
		return;
	}
	bool eq = hwmodel_equal(a, b, why, sizeof why);
	if (!eq)
		fprintf(stderr, "%s: %s\n", what, why);
	CHECK(eq);
	char *sa = save(a), *sb = save(b);
	CHECK_STR(sa, sb);
	free(sa);
	free(sb);
	CHECK_STR(a->path, b->path);
	CHECK_STR(a->base, b->base);
	CHECK_STR(a->origin.gpu, b->origin.gpu);
	CHECK_STR(a->origin.intra, b->origin.intra);
	CHECK_STR(a->origin.node, b->origin.node);
	CHECK_STR(a->origin.note, b->origin.note);
	CHECK_INT(a->origin.measured_group, b->origin.measured_group);
	CHECK_INT(a->origin.calibrated, b->origin.calibrated);
	CHECK_INT(a->origin.composed, b->origin.composed);
}

static void test_packed(void)
{
	int npacked = 0;
	for (const char *const *n = hwmodel_preset_names(); *n; n++) {
		char file[160];
		int e1 = -1, e2 = -1;
		snprintf(file, sizeof file, "hardware/%s.yaml", *n);
		struct hwmodel *a = hwmodel_load(*n, &e1), *b = hwmodel_load_string(file, hwmodel_preset_text(*n), &e2);
		CHECK_INT(e1, 0);
		CHECK_INT(e2, 0);
		check_same(*n, a, b);
		hwmodel_free(a);
		hwmodel_free(b);
	}
	for (const struct hw_preset_model *m = hw_preset_models; m->name; m++)
		npacked++;
	/* every preset is packed (an empty table only where cross-compiling, which this build is not) */
	int npresets = 0;
	for (const char *const *n = hwmodel_preset_names(); *n; n++)
		npresets++;
	CHECK_INT(npacked, npresets);
	/* a measured file with GEMM and collective tables: pack then unpack gives it back whole */
	int err = -1;
	struct hwmodel *x = hwmodel_load("hardware/h200x2-measured.yaml", &err);
	CHECK_INT(err, 0);
	CHECK(x && x->coll[SCOPE_INTRA][COLL_ALL_REDUCE].ntables > 0);
	if (!x)
		return;
	unsigned char *buf = NULL;
	size_t len = hwmodel_pack(x, &buf);
	struct hwmodel *y = hwmodel_unpack(buf, len);
	check_same("h200x2-measured packed", x, y);
	hwmodel_free(y);
	/* a block one byte short, one byte long, or of another struct size is refused */
	CHECK(hwmodel_unpack(buf, len - 1) == NULL);
	unsigned char *longer = malloc(len + 1);
	memcpy(longer, buf, len);
	longer[len] = 0;
	CHECK(hwmodel_unpack(longer, len + 1) == NULL);
	uint64_t size = 0;
	memcpy(&size, buf + 8, 8);
	size++;
	memcpy(buf + 8, &size, 8);
	CHECK(hwmodel_unpack(buf, len) == NULL);
	free(longer);
	free(buf);
	hwmodel_free(x);
}

int main(void)
{
	test_packed();
	test_equal();
	test_hardware_files();
	test_based_files();
	test_composed();
	return check_result();
}
