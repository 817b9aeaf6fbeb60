/* hwload: reads a gpusim-hw/1 YAML tree (docs/hardware-model.md) into struct hwmodel, with the same error
 * quality as scenarios: unknown keys with did-you-mean, missing keys at their map, bad values at their place.
 *
 * Invariant: hwload_parse fills every field (a default where the schema has one) and gives every part a
 * provenance string, the nearest `source:` up the tree or the file's own; it returns 0 only when the document
 * raised no error, so a model that reaches the simulator has positive peaks, consistent tables with increasing
 * axes and efficiencies in (0, 1.5]. The gpu section is read in hwload_gpu.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hardware/hwmodel_internal.h"
#include "util/gserr.h"
#include "util/xalloc.h"
#include "util/ydoc.h"


/* The physical range of every number a hardware model holds (docs/hardware-model.md, "Ranges"; keys with a
 * narrower rule of their own, such as gemm max_eff or the power fractions, check it after this): a typo or a
 * hostile file (launch_us: 1e308) is an error at its place, not a 1e305 ms step. */
static const struct yrange ranges[] = {
	{ "gpu.sm_count", 1, 1e4 },
	{ "gpu.memory_bytes", 1e6, 1e14 },
	{ "gpu.hbm_gbps", 1e-3, 1e6 },
	{ "gpu.peak_tflops.*", 1e-3, 1e5 },
	{ "gpu.launch_us", 0, 1e5 },
	{ "gpu.workspace_bytes", 0, 1e12 },
	{ "gpu.memory_bound.eff", 1e-3, 1 },
	{ "gpu.memory_bound.half_bytes", 0, 1e12 },
	{ "gpu.gemm.model.max_eff", 0, 10 },
	{ "gpu.gemm.model.tile_m", 1, 1e5 },
	{ "gpu.gemm.model.tile_n", 1, 1e5 },
	{ "gpu.gemm.model.k_half", 0, 1e9 },
	{ "gpu.gemm.tables[].m[]", 1, 1e8 },
	{ "gpu.gemm.tables[].n[]", 1, 1e8 },
	{ "gpu.gemm.tables[].k[]", 1, 1e8 },
	{ "gpu.gemm.tables[].eff[]", 1e-6, 2 },
	{ "gpu.attention.fwd_eff", 1e-3, 2 },
	{ "gpu.attention.bwd_eff", 1e-3, 2 },
	{ "gpu.attention.*.fwd_eff", 1e-3, 2 },
	{ "gpu.attention.*.bwd_eff", 1e-3, 2 },
	{ "gpu.attention.*.rows[].seq", 1, 1e8 },
	{ "gpu.attention.*.rows[].head_dim", 1, 1e5 },
	{ "gpu.attention.*.rows[].bh", 1, 1e9 },
	{ "gpu.attention.*.rows[].fwd_tflops", 1e-3, 1e5 },
	{ "gpu.attention.*.rows[].bwd_tflops", 1e-3, 1e5 },
	{ "gpu.kernels.gap_us", 0, 1e4 },
	{ "gpu.kernels.gemm_extra.kernels", 0, 100 },
	{ "gpu.kernels.gemm_extra.us", 0, 1e4 },
	{ "gpu.kernels.*.gbps", 1e-3, 1e6 },
	{ "gpu.kernels.*.latency_us", 0, 1e5 },
	{ "gpu.kernels.*.bytes[]", 1, 1e13 },
	{ "gpu.kernels.*.us[]", 1e-3, 1e9 },
	{ "gpu.power.burst_speedup", 0, 10 },
	{ "gpu.power.exponent", 0, 10 },
	{ "gpu.power.window_ms", 0.01, 1e5 },
	{ "gpu.power.*", 0, 10 },
	{ "node.gpus", 1, 1e6 },
	{ "node.link_gbps", 1e-3, 1e7 },
	{ "node.host_gbps", 1e-3, 1e7 },
	{ "node.host_memory_bytes", 1e6, 1e16 },
	{ "network.nics", 0, 1e4 },
	{ "network.nic_gbps", 1e-3, 1e7 },
	{ "network.latency_us", 0, 1e7 },
	{ "network.oversubscription", 1e-3, 1e3 },
	{ "collectives.*.*.lines[].n", 0, 1e7 },
	{ "collectives.*.*.lines[].alpha_us", 0, 1e9 },
	{ "collectives.*.*.lines[].step_us", 0, 1e9 },
	{ "collectives.*.*.lines[].bus_gbps", 1e-3, 1e7 },
	{ "collectives.*.*.lines[].max_bytes", 0, 1e16 },
	{ "collectives.*.*.tables[].n", 0, 1e7 },
	{ "collectives.*.*.tables[].bytes[]", 0, 1e16 },
	{ "collectives.*.*.tables[].time_us[]", 0, 1e12 },
	{ "overlap.*", 0, 100 },
	{ "cost.usd_per_gpu_hour", 0, 1e4 },
	{ "host.*.*", 0, 1e7 },
	{ NULL, 0, 0 },
};

static const char *const top_keys[] = { "schema", "name", "description", "source", "meta", "base", "gpu", "node",
					"network", "collectives", "overlap", "cost", "host", NULL };
static const char *const node_keys[] = { "gpus", "fabric", "link_gbps", "host_gbps", "host_memory_bytes", "source",
					 NULL };
static const char *const net_keys[] = { "nics", "nic_gbps", "latency_us", "oversubscription", "source", NULL };
static const char *const scope_keys[] = { "all_reduce", "all_gather", "reduce_scatter", "broadcast", "send_recv",
					  "all_to_all", "source", NULL };
static const char *const op_keys[] = { "lines", "tables", "source", NULL };
static const char *const line_keys[] = { "algo", "n", "alpha_us", "step_us", "bus_gbps", "max_bytes", NULL };
static const char *const table_keys[] = { "n", "bytes", "time_us", NULL };
static const char *const overlap_keys[] = { "compute_slowdown", "comm_slowdown", "tp_compute_slowdown",
					     "tp_comm_slowdown", "source", NULL };
static const char *const cost_keys[] = { "usd_per_gpu_hour", "source", NULL };
static const char *const host_keys[] = { "eager", "cuda_graphs", "compiled", "source", NULL };
enum { HOST_COST_KEYS = 64 };  /* room for hw_host_keys (hardware/hwmodel.c); a key past it loads as unknown */
static const char *const fabric_names[] = { "nvswitch", "nvlink", "pcie", NULL };
static const char *const scope_names[] = { "intra", "inter", "source", NULL };

static void read_line(struct ydoc *d, const struct ynode *l, struct coll_line *cl)
{
	if (ynode_kind(l) != YNODE_MAP) {
		char got[32];
		ydoc_error(d, l, "%s: expected a mapping, got %s", ynode_path(l), ynode_describe(l, got, sizeof got));
		return;
	}
	ydoc_check_keys(d, l, line_keys);
	ydoc_string(d, l, "algo", YD_REQUIRED, cl->algo, sizeof cl->algo);
	if (ydoc_int(d, l, "n", YD_NONNEG, &cl->n) == 1 && cl->n == 1)
		ydoc_error(d, ynode_get(l, "n"), "%s.n: must be 0 (any group) or a group size >= 2", ynode_path(l));
	ydoc_double(d, l, "alpha_us", YD_REQUIRED | YD_NONNEG, &cl->alpha_us);
	ydoc_double(d, l, "step_us", YD_NONNEG, &cl->step_us);
	ydoc_double(d, l, "bus_gbps", YD_REQUIRED | YD_POSITIVE, &cl->bus_gbps);
	ydoc_double(d, l, "max_bytes", YD_NONNEG, &cl->max_bytes);
}

static void read_table(struct ydoc *d, const struct ynode *t, struct coll_model *cm, int index)
{
	struct coll_table *ct = &cm->tables[index];
	if (ynode_kind(t) != YNODE_MAP) {
		char got[32];
		ydoc_error(d, t, "%s: expected a mapping, got %s", ynode_path(t), ynode_describe(t, got, sizeof got));
		return;
	}
	ydoc_check_keys(d, t, table_keys);
	if (ydoc_int(d, t, "n", YD_REQUIRED | YD_POSITIVE, &ct->n) == 1) {
		if (ct->n < 2)
			ydoc_error(d, ynode_get(t, "n"), "%s.n: a group has at least 2 ranks", ynode_path(t));
		for (int i = 0; i < index; i++)
			if (cm->tables[i].n == ct->n)
				ydoc_error(d, ynode_get(t, "n"), "%s.n: a second table for groups of %d", ynode_path(t),
					   ct->n);
	}
	int nt = 0;
	if (hwload_axis(d, t, "bytes", &ct->bytes, &ct->npts) != 1 ||
	    ydoc_doubles(d, t, "time_us", YD_REQUIRED | YD_POSITIVE, &ct->time_us, &nt) != 1)
		return;
	const struct ynode *times = ynode_get(t, "time_us");
	if (nt != ct->npts)
		ydoc_error(d, times, "%s: has %d values, bytes has %d", ynode_path(times), nt, ct->npts);
	else if (ct->npts < 2)
		ydoc_error(d, ynode_get(t, "bytes"), "%s.bytes: a table needs at least 2 sizes", ynode_path(t));
}

static void read_op(struct ydoc *d, const struct ynode *op, struct coll_model *cm, const char *def_source)
{
	const struct ynode *lines = NULL, *tables = NULL;
	hwmodel_coll_clear(cm);  /* a base's lines and tables for this collective are replaced, not merged */
	ydoc_check_keys(d, op, op_keys);
	hwload_source(d, op, cm->source, sizeof cm->source, def_source);
	if (ydoc_seq(d, op, "lines", 0, &lines) == 1 && ynode_len(lines) > 0) {
		cm->nlines = ynode_len(lines);
		cm->lines = xcalloc((size_t)cm->nlines, sizeof *cm->lines);
		for (int i = 0; i < cm->nlines; i++)
			read_line(d, ynode_item(lines, i), &cm->lines[i]);
	}
	if (ydoc_seq(d, op, "tables", 0, &tables) == 1 && ynode_len(tables) > 0) {
		cm->ntables = ynode_len(tables);
		cm->tables = xcalloc((size_t)cm->ntables, sizeof *cm->tables);
		for (int i = 0; i < cm->ntables; i++)
			read_table(d, ynode_item(tables, i), cm, i);
	}
	if (!cm->nlines && !cm->ntables && op)
		ydoc_error(d, op, "%s: give at least one of lines or tables", ynode_path(op));
}

static void read_collectives(struct ydoc *d, const struct ynode *coll, struct hwmodel *hw, const char *def_source)
{
	char csrc[128];
	ydoc_check_keys(d, coll, scope_names);
	hwload_source(d, coll, csrc, sizeof csrc, def_source);
	for (int sc = 0; sc < SCOPE_N; sc++) {
		const struct ynode *scope = NULL;
		char ssrc[128];
		if (ydoc_map(d, coll, coll_scope_name((enum coll_scope)sc), 0, &scope) != 1)
			continue;
		ydoc_check_keys(d, scope, scope_keys);
		hwload_source(d, scope, ssrc, sizeof ssrc, csrc);
		for (int op = 0; op < COLL_NOPS; op++) {
			const struct ynode *opmap = NULL;
			if (ydoc_map(d, scope, coll_op_name((enum coll_op)op), 0, &opmap) == 1)
				read_op(d, opmap, &hw->coll[sc][op], ssrc);
		}
	}
}

/* host: per execution mode, each key a nonnegative time in us; a mode or key left out costs 0. A mode given here
 * is this file's alone (a base's keys for it are dropped, as a collective's lines are): a calibration's measured
 * host must not borrow a preset's op classes, rank spread or host range for keys it did not measure. One key is
 * kept from the base where the file leaves it out: group_us, a call's cost on a group of 2 or more ranks beyond
 * the 1-rank call a probe measures, which no one-GPU calibration can measure (and none before 2026-11-28 wrote). */
static void read_host(struct ydoc *d, const struct ynode *host, struct hw_host *h, const char *def_source)
{
	ydoc_check_keys(d, host, host_keys);
	hwload_source(d, host, h->source, sizeof h->source, def_source);
	for (int m = 0; m < EXEC_N; m++) {
		const struct ynode *mm = NULL;
		if (ydoc_map(d, host, exec_mode_names[m], 0, &mm) != 1)
			continue;
		double group = h->mode[m].group_us;
		memset(&h->mode[m], 0, sizeof h->mode[m]);
		h->mode[m].group_us = group;
		const char *keys[HOST_COST_KEYS + 1];
		int nk = 0;
		for (; hw_host_keys[nk].key && nk < HOST_COST_KEYS; nk++)
			keys[nk] = hw_host_keys[nk].key;
		keys[nk] = NULL;
		ydoc_check_keys(d, mm, keys);
		for (int i = 0; i < nk; i++)
			ydoc_double(d, mm, keys[i], YD_NONNEG, hw_host_field(&h->mode[m], i));
		if (h->mode[m].rank_spread >= 1)
			ydoc_error(d, ynode_get(mm, "rank_spread"), "%s.rank_spread: a fraction of the mean host speed "
				   "(0.07 for 7 %%), below 1; got %g", ynode_path(mm), h->mode[m].rank_spread);
		const struct hw_host_cost *c = &h->mode[m];
		if (c->drift_lo > 1 || (c->drift_hi > 0 && c->drift_hi < 1) || (c->drift_lo > 0) != (c->drift_hi > 0))
			ydoc_error(d, ynode_get(mm, c->drift_lo > 1 || !(c->drift_hi > 0) ? "drift_lo" : "drift_hi"),
				   "%s.drift_lo, drift_hi: factors on the host's costs, drift_lo at most 1 and drift_hi at "
				   "least 1, both or neither; got %g and %g", ynode_path(mm), c->drift_lo, c->drift_hi);
	}
}

/* The file's head: schema, name, the kinds of base/description/meta, the measuring host (meta.node), the
 * description and the file's own source (into src, the default of every section's). */
static void read_head(struct ydoc *d, const struct ynode *root, struct hwmodel *hw, bool based, char *src,
		      size_t size)
{
	char schema[32], def_src[128], got[64];
	if (ydoc_string(d, root, "schema", YD_REQUIRED, schema, sizeof schema) == 1 &&
	    strcmp(schema, "gpusim-hw/1") != 0)
		ydoc_error(d, ynode_get(root, "schema"), "schema: expected 'gpusim-hw/1', got '%s'", schema);
	ydoc_string(d, root, "name", YD_REQUIRED, hw->name, sizeof hw->name);
	const struct ynode *base = ynode_get(root, "base");
	if (base && (ynode_kind(base) != YNODE_SCALAR || ynode_is_null(base)))
		ydoc_error(d, base, "base: expected a preset name or a file path, got %s",
			   ynode_describe(base, got, sizeof got));
	const struct ynode *desc = ynode_get(root, "description"), *meta = ynode_get(root, "meta");
	if (desc && ynode_kind(desc) != YNODE_SCALAR)
		ydoc_error(d, desc, "description: expected a string, got %s", ynode_describe(desc, got, sizeof got));
	if (meta && ynode_kind(meta) != YNODE_MAP)
		ydoc_error(d, meta, "meta: expected a mapping, got %s", ynode_describe(meta, got, sizeof got));
	const struct ynode *hostnode = ynode_get(meta, "node");  /* calibrate's record of its host */
	if (ynode_kind(hostnode) == YNODE_MAP) {
		int f = FABRIC_NVSWITCH, g = 0;
		if (ydoc_int(d, hostnode, "gpus", YD_POSITIVE, &g) == 1 &&
		    ydoc_enum(d, hostnode, "fabric", YD_REQUIRED, fabric_names, &f) == 1) {
			hw->origin.host_gpus = g;
			hw->origin.host_fabric = (enum fabric)f;
		}
	}
	snprintf(def_src, sizeof def_src, "unspecified: %s gives no source", ydoc_file(d));
	hwload_source(d, root, src, size, def_src);
	if (!based || ynode_get(root, "source"))
		snprintf(hw->source, sizeof hw->source, "%s", src);
	if (desc && ynode_str(desc))  /* kept whole up to the field's size, like sources */
		snprintf(hw->description, sizeof hw->description, "%s", ynode_str(desc));
}

static void read_node(struct ydoc *d, const struct ynode *root, struct hw_node *nd, bool based, const char *src)
{
	unsigned req = based ? 0 : YD_REQUIRED;
	const struct ynode *node = NULL;
	int fabric = (int)nd->fabric;
	ydoc_map(d, root, "node", req, &node);
	ydoc_check_keys(d, node, node_keys);
	hwload_source_over(d, node, nd->source, sizeof nd->source, src, based);
	ydoc_int(d, node, "gpus", req | YD_POSITIVE, &nd->gpus);
	ydoc_enum(d, node, "fabric", req, fabric_names, &fabric);
	nd->fabric = (enum fabric)fabric;
	ydoc_double(d, node, "link_gbps", req | YD_POSITIVE, &nd->link_gbps);
	ydoc_double(d, node, "host_gbps", YD_POSITIVE, &nd->host_gbps);
	ydoc_double(d, node, "host_memory_bytes", YD_POSITIVE, &nd->host_memory_bytes);
}

static void read_network(struct ydoc *d, const struct ynode *root, struct hw_net *n, bool based, const char *src)
{
	unsigned req = based ? 0 : YD_REQUIRED;
	const struct ynode *net = NULL;
	ydoc_map(d, root, "network", req, &net);
	ydoc_check_keys(d, net, net_keys);
	hwload_source_over(d, net, n->source, sizeof n->source, src, based);
	ydoc_int(d, net, "nics", req | YD_POSITIVE, &n->nics);
	ydoc_double(d, net, "nic_gbps", req | YD_POSITIVE, &n->nic_gbps);
	ydoc_double(d, net, "latency_us", req | YD_NONNEG, &n->latency_us);
	if (!based)
		n->oversubscription = 1.0;
	if (ydoc_double(d, net, "oversubscription", YD_POSITIVE, &n->oversubscription) == 1 && n->oversubscription < 1.0)
		ydoc_error(d, ynode_get(net, "oversubscription"), "network.oversubscription: must be >= 1, got %g",
			   n->oversubscription);
}

/* overlap and cost: optional; a section given (or, without a base, left out) takes its source or the file's */
static void read_overlap_cost(struct ydoc *d, const struct ynode *root, struct hwmodel *hw, bool based,
			      const char *src)
{
	const struct ynode *overlap = NULL, *cost = NULL;
	bool have = ydoc_map(d, root, "overlap", 0, &overlap) == 1;
	if (have || !based)
		hwload_source(d, overlap, hw->overlap_source, sizeof hw->overlap_source, src);
	if (have) {
		ydoc_check_keys(d, overlap, overlap_keys);
		ydoc_double(d, overlap, "compute_slowdown", YD_NONNEG, &hw->overlap_compute_slowdown);
		ydoc_double(d, overlap, "comm_slowdown", YD_NONNEG, &hw->overlap_comm_slowdown);
		/* the TP overlap pair: both keys or neither (one alone is an error); a based file without them keeps
		 * the base's */
		bool tc = ynode_get(overlap, "tp_compute_slowdown") != NULL, tm = ynode_get(overlap, "tp_comm_slowdown") != NULL;
		if (tc != tm)
			ydoc_error(d, overlap, "overlap: tp_compute_slowdown and tp_comm_slowdown go together (give both, or "
				   "neither to use compute_slowdown and comm_slowdown for TP overlap too)");
		else if (tc) {
			hw->overlap_tp_set = true;
			ydoc_double(d, overlap, "tp_compute_slowdown", YD_NONNEG, &hw->overlap_tp_compute_slowdown);
			ydoc_double(d, overlap, "tp_comm_slowdown", YD_NONNEG, &hw->overlap_tp_comm_slowdown);
		}
	}
	have = ydoc_map(d, root, "cost", 0, &cost) == 1;
	if (have || !based)
		hwload_source(d, cost, hw->cost_source, sizeof hw->cost_source, src);
	if (have) {
		ydoc_check_keys(d, cost, cost_keys);
		ydoc_double(d, cost, "usd_per_gpu_hour", YD_NONNEG, &hw->usd_per_gpu_hour);
	}
}

int hwload_parse(struct ydoc *d, struct hwmodel *hw, bool based)
{
	const struct ynode *root = ydoc_root(d), *gpu = NULL, *coll = NULL, *host = NULL;
	char src[256], got[64];
	ydoc_set_ranges(d, ranges);
	if (ynode_kind(root) != YNODE_MAP)
		return ydoc_error(d, root, "expected a gpusim-hw/1 hardware model (a mapping), got %s",
				  ynode_describe(root, got, sizeof got));
	ydoc_check_keys(d, root, top_keys);
	read_head(d, root, hw, based, src, sizeof src);
	if (ydoc_map(d, root, "gpu", based ? 0 : YD_REQUIRED, &gpu) == 1)
		hwload_gpu(d, gpu, &hw->gpu, src, based);
	read_node(d, root, &hw->node, based, src);
	read_network(d, root, &hw->net, based, src);
	for (int sc = 0; sc < SCOPE_N && !based; sc++)
		for (int op = 0; op < COLL_NOPS; op++)
			snprintf(hw->coll[sc][op].source, sizeof hw->coll[sc][op].source,
				 "fallback: ring formula from %s", sc == SCOPE_INTRA ? "node.link_gbps" : "network");
	if (ydoc_map(d, root, "collectives", 0, &coll) == 1)
		read_collectives(d, coll, hw, src);
	read_overlap_cost(d, root, hw, based, src);
	if (!based)
		snprintf(hw->host.source, sizeof hw->host.source,
			 "none: no host section, the host keeps ahead of the GPU");
	if (ydoc_map(d, root, "host", 0, &host) == 1)
		read_host(d, host, &hw->host, src);
	return ydoc_errors(d) ? GS_EINVAL : 0;
}
