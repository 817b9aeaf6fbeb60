/* cmd_presets: `gpusim presets` lists the hardware models built into the binary (hardware/NAME.yaml, embedded at
 * build time) with a one-line summary each; `gpusim presets show NAME` prints a preset's YAML, a starting point
 * for a model of one's own (`gpusim presets show h100-dgx > my.yaml`, edit, then `--hw my.yaml`). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "util/diag.h"
#include "util/strsim.h"
#include "util/xalloc.h"
#include "cli/commands.h"
#include "hardware/hwmodel.h"
#include "util/gserr.h"

static void help(void)
{
	fputs("usage: gpusim presets\n"
	      "       gpusim presets show NAME|FILE.yaml\n"
	      "\n"
	      "Lists the hardware models built into gpusim: name, GPU, memory per GPU, the node (GPUs per node and\n"
	      "the fabric between them, bandwidth per GPU per direction) and the network (NICs per node and the\n"
	      "bandwidth of each). 'show NAME' prints the preset as gpusim-hw/1 YAML (docs/hardware-model.md), with\n"
	      "the source of every number in its comments. 'show FILE.yaml' prints a hardware file as loaded: a file\n"
	      "with 'base: PRESET|PATH' comes out merged with its bases, one complete model, every section's source\n"
	      "saying where it came from. A preset name works wherever a hardware model is asked\n"
	      "for: 'hardware: NAME' in a scenario, or --hw NAME on the command line.\n"
	      "\n"
	      "examples:\n"
	      "  gpusim presets\n"
	      "  gpusim presets show h100-dgx > my-cluster.yaml\n"
	      "  gpusim predict scenarios/70b_64gpu.yaml --hw my-cluster.yaml\n"
	      "  gpusim presets show my-h100-override.yaml    # base: h100-dgx + overrides, merged\n"
	      "\n"
	      "exit status: 0 ok, 1 unknown preset, 2 usage error\n", stdout);
}

static const char *fabric_name(enum fabric f)
{
	switch (f) {
	case FABRIC_NVSWITCH: return "nvswitch";
	case FABRIC_NVLINK: return "nvlink";
	case FABRIC_PCIE: return "pcie";
	}
	return "?";
}

struct row {
	const char *name;
	char gpu[96], memory[32], node[96], net[64];
};

static void summarize(const char *name, const struct hwmodel *hw, struct row *r)
{
	r->name = name;
	snprintf(r->gpu, sizeof r->gpu, "%s", hw->gpu.name);
	snprintf(r->memory, sizeof r->memory, "%.0f GB", hw->gpu.memory_bytes / 1e9);
	snprintf(r->node, sizeof r->node, "%d GPUs, %s %.3g GB/s", hw->node.gpus, fabric_name(hw->node.fabric),
		 hw->node.link_gbps);
	if (hw->net.nics > 0 && hw->net.nic_gbps > 0)
		snprintf(r->net, sizeof r->net, "%d x %.3g GB/s NICs", hw->net.nics, hw->net.nic_gbps);
	else
		snprintf(r->net, sizeof r->net, "none (one node)");
}

static int width(int w, const char *s)
{
	int n = (int)strlen(s);
	return n > w ? n : w;
}

/* Loads every preset first, so the columns fit the longest entry. */
static int list(void)
{
	const char *const *names = hwmodel_preset_names();
	int n = 0, status = 0;
	while (names[n])
		n++;
	struct row *rows = xcalloc((size_t)n + 1, sizeof *rows);
	struct row head = {.name = "name", .gpu = "gpu", .memory = "memory", .node = "node", .net = "network"};
	int wn = width(0, head.name), wg = width(0, head.gpu), wm = width(0, head.memory), wo = width(0, head.node);
	int m = 0;
	for (int i = 0; i < n; i++) {
		int err = 0;
		struct hwmodel *hw = hwmodel_load(names[i], &err);
		if (!hw) {
			status = 1;  /* the loader said why */
			continue;
		}
		summarize(names[i], hw, &rows[m]);
		hwmodel_free(hw);
		wn = width(wn, rows[m].name);
		wg = width(wg, rows[m].gpu);
		wm = width(wm, rows[m].memory);
		wo = width(wo, rows[m].node);
		m++;
	}
	printf("%-*s  %-*s  %*s  %-*s  %s\n", wn, head.name, wg, head.gpu, wm, head.memory, wo, head.node, head.net);
	for (int i = 0; i < m; i++)
		printf("%-*s  %-*s  %*s  %-*s  %s\n", wn, rows[i].name, wg, rows[i].gpu, wm, rows[i].memory, wo,
		       rows[i].node, rows[i].net);
	free(rows);
	return status;
}

/* A hardware file (not a preset name): the loaded model, bases merged, as one complete file. */
static int show_file(const char *path)
{
	int err = 0;
	struct hwmodel *hw = hwmodel_load(path, &err);
	if (!hw)
		return 1;
	hwmodel_write(stdout, hw);
	hwmodel_free(hw);
	return 0;
}

static int show(const char *name)
{
	if (!hwmodel_is_preset_name(name))
		return show_file(name);
	const char *text = hwmodel_preset_text(name);
	if (!text) {
		const char *s = strsim_suggest(name, hwmodel_preset_names());
		if (s)
			diag_errorf("unknown preset '%s' (did you mean '%s'?)", name, s);
		else
			diag_errorf("unknown preset '%s' (see 'gpusim presets')", name);
		return 1;
	}
	fputs(text, stdout);
	if (text[0] && text[strlen(text) - 1] != '\n')
		fputc('\n', stdout);
	return 0;
}

int cmd_presets(int argc, char **argv)
{
	if (argc >= 2 && cli_is_help(argv[1])) {
		help();
		return 0;
	}
	if (argc == 1)
		return list();
	if (strcmp(argv[1], "show") == 0) {
		if (argc == 3 && cli_is_help(argv[2])) {
			help();
			return 0;
		}
		if (argc != 3) {
			diag_errorf("presets show takes one preset name (see 'gpusim presets')");
			return 2;
		}
		return show(argv[2]);
	}
	if (strcmp(argv[1], "list") == 0 && argc == 2)
		return list();
	diag_errorf("presets: unknown argument '%s' (see 'gpusim presets --help')", argv[1]);
	return 2;
}
