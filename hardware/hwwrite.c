/* hwwrite: the file, its header and its small sections (node, network, overlap, cost, host); see hwwrite.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hardware/hwwrite_internal.h"
#include "util/gserr.h"
#include "util/outfile.h"

static void write_header(FILE *f, const struct hwmodel *hw)
{
	fputs("# gpusim-hw/1, written by gpusim from the loaded model", f);
	if (hw->base[0])
		fprintf(f, " (%s, base: %s, merged)", hw->path, hw->base);
	fputc('\n', f);
	/* where the parts came from (docs/hardware-model.md, "Origin"): comments, so the text loads the same */
	fprintf(f, "# origin: gpu %s\n# origin: intra-node collectives %s\n# origin: node and network %s\n",
		hw->origin.gpu[0] ? hw->origin.gpu : "?", hw->origin.intra[0] ? hw->origin.intra : "?",
		hw->origin.node[0] ? hw->origin.node : "?");
	if (hw->origin.note[0])
		fprintf(f, "# assumed: %s\n", hw->origin.note);
}

static void write_node_network(FILE *f, const struct hwmodel *hw, unsigned parts)
{
	if (parts & HWW_NODE) {
		fputs("node:\n", f);
		fprintf(f, "  gpus: %d\n  fabric: %s\n", hw->node.gpus, hwmodel_fabric_name(hw->node.fabric));
		hww_kv_num(f, 2, "link_gbps", hw->node.link_gbps);
		if (hw->node.host_gbps > 0)
			hww_kv_num(f, 2, "host_gbps", hw->node.host_gbps);
		if (hw->node.host_memory_bytes > 0)
			hww_kv_num(f, 2, "host_memory_bytes", hw->node.host_memory_bytes);
		hww_kv_str(f, 2, "source", hw->node.source);
	}
	if (parts & HWW_NETWORK) {
		fputs("network:\n", f);
		fprintf(f, "  nics: %d\n", hw->net.nics);
		hww_kv_num(f, 2, "nic_gbps", hw->net.nic_gbps);
		hww_kv_num(f, 2, "latency_us", hw->net.latency_us);
		hww_kv_num(f, 2, "oversubscription", hw->net.oversubscription);
		hww_kv_str(f, 2, "source", hw->net.source);
	}
}

static void write_host(FILE *f, const struct hw_host *h)
{
	fputs("host:\n", f);
	for (int m = 0; m < EXEC_N; m++) {
		const struct hw_host_cost *c = &h->mode[m];
		fprintf(f, "  %s: {", exec_mode_names[m]);
		/* the first five always; the op classes where measured (a file without them reads as before) */
		for (int i = 0; hw_host_keys[i].key; i++) {
			if (i >= 5 && hw_host_value(c, i) == 0)
				continue;
			fprintf(f, "%s%s: ", i ? ", " : "", hw_host_keys[i].key);
			hww_num(f, hw_host_value(c, i));
		}
		fputs("}\n", f);
	}
	hww_kv_str(f, 2, "source", h->source);
}

int hwwrite(FILE *f, const struct hwmodel *hw, const struct hwwrite_opts *o)
{
	unsigned parts = o->parts;
	if (o->origin)
		write_header(f, hw);
	fputs("schema: gpusim-hw/1\n", f);
	hww_kv_str(f, 0, "name", hw->name);
	if (o->base && o->base[0])
		hww_kv_str(f, 0, "base", o->base);
	if (hw->description[0])
		hww_kv_str(f, 0, "description", hw->description);
	if (hw->source[0])
		hww_kv_str(f, 0, "source", hw->source);
	if (hwwrite_meta(f, hw, o->meta))
		return GS_EENV;
	hwwrite_gpu(f, &hw->gpu, parts);
	write_node_network(f, hw, parts);
	hwwrite_collectives(f, hw, parts);
	if (parts & HWW_OVERLAP) {
		fputs("overlap:\n", f);
		hww_kv_num(f, 2, "compute_slowdown", hw->overlap_compute_slowdown);
		hww_kv_num(f, 2, "comm_slowdown", hw->overlap_comm_slowdown);
		if (hw->overlap_tp_set) {
			hww_kv_num(f, 2, "tp_compute_slowdown", hw->overlap_tp_compute_slowdown);
			hww_kv_num(f, 2, "tp_comm_slowdown", hw->overlap_tp_comm_slowdown);
		}
		hww_kv_own_source(f, 2, hw->overlap_source, hw->source);
	}
	if (parts & HWW_COST) {
		fputs("cost:\n", f);
		hww_kv_num(f, 2, "usd_per_gpu_hour", hw->usd_per_gpu_hour);
		hww_kv_own_source(f, 2, hw->cost_source, hw->source);
	}
	if (parts & HWW_HOST)
		write_host(f, &hw->host);
	return ferror(f) ? GS_EENV : 0;
}

void hwmodel_write(FILE *f, const struct hwmodel *hw)
{
	struct hwwrite_opts o = { .parts = HWW_ALL, .origin = true };
	(void)hwwrite(f, hw, &o);  /* a write error shows in ferror(f), which the caller's outfile_commit reports */
}

int hwwrite_file(const char *path, const struct hwmodel *hw, const struct hwwrite_opts *o)
{
	struct outfile out;  /* a temporary beside path, renamed into place only when the whole model was written */
	int rc = outfile_open(&out, path);
	if (rc)
		return rc;
	if ((rc = hwwrite(out.f, hw, o)) != 0) {
		outfile_discard(&out);
		return rc;
	}
	return outfile_commit(&out);
}
