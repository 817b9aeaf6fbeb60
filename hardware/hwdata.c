/* hwdata: a model as plain data: the names of its enums (the YAML keys), a deep copy, clearing and freeing its
 * tables (hwmodel.h), and its packed form (the built-in presets as loaded, made at build time). Below the
 * reader, the writer, composing and loading, which all use it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hardware/hwmodel_internal.h"
#include "util/xalloc.h"

static const char *const fabric_names[] = { "nvswitch", "nvlink", "pcie" };

const char *hwmodel_fabric_name(enum fabric f)
{
	return f >= FABRIC_NVSWITCH && f <= FABRIC_PCIE ? fabric_names[f] : "?";
}

static const char *const op_names[COLL_NOPS] = { "all_reduce", "all_gather", "reduce_scatter", "broadcast",
						 "send_recv", "all_to_all" };

const char *const exec_mode_names[] = { "eager", "cuda_graphs", "compiled", NULL };

const char *coll_op_name(enum coll_op op)
{
	return op >= 0 && op < COLL_NOPS ? op_names[op] : "?";
}

const char *coll_scope_name(enum coll_scope sc)
{
	return sc == SCOPE_INTRA ? "intra" : sc == SCOPE_INTER ? "inter" : "?";
}

static double *dup_doubles(const double *a, int n)
{
	if (!a || n <= 0)
		return NULL;
	double *c = xcalloc((size_t)n, sizeof *c);
	memcpy(c, a, (size_t)n * sizeof *c);
	return c;
}

struct hwmodel *hwmodel_copy(const struct hwmodel *src)
{
	struct hwmodel *hw = xcalloc(1, sizeof *hw);
	*hw = *src;
	for (int dt = 0; dt < DT_COUNT; dt++) {
		struct gemm_table *t = &hw->gpu.gemm[dt];
		long long cells = (long long)t->nm * t->nn * t->nk;
		t->m = dup_doubles(t->m, t->nm);
		t->n = dup_doubles(t->n, t->nn);
		t->k = dup_doubles(t->k, t->nk);
		t->eff = dup_doubles(t->eff, (int)cells);
	}
	for (int sc = 0; sc < SCOPE_N; sc++)
		for (int op = 0; op < COLL_NOPS; op++) {
			struct coll_model *cm = &hw->coll[sc][op];
			const struct coll_model *o = &src->coll[sc][op];
			cm->lines = NULL;
			cm->tables = NULL;
			if (o->nlines) {
				cm->lines = xcalloc((size_t)o->nlines, sizeof *cm->lines);
				memcpy(cm->lines, o->lines, (size_t)o->nlines * sizeof *cm->lines);
			}
			if (o->ntables) {
				cm->tables = xcalloc((size_t)o->ntables, sizeof *cm->tables);
				for (int i = 0; i < o->ntables; i++) {
					cm->tables[i] = o->tables[i];
					cm->tables[i].bytes = dup_doubles(o->tables[i].bytes, o->tables[i].npts);
					cm->tables[i].time_us = dup_doubles(o->tables[i].time_us, o->tables[i].npts);
				}
			}
		}
	return hw;
}

void hwmodel_scale_host(struct hwmodel *hw, double f)
{
	for (int m = 0; m < EXEC_N; m++)
		for (int i = 0; hw_host_keys[i].key; i++) {
			size_t n = strlen(hw_host_keys[i].key);
			if (n > 3 && strcmp(hw_host_keys[i].key + n - 3, "_us") == 0)  /* a cost; counts and factors stay */
				*hw_host_field(&hw->host.mode[m], i) *= f;
		}
}

void hwmodel_gemm_clear(struct hw_gpu *g)
{
	for (int dt = 0; dt < DT_COUNT; dt++) {
		struct gemm_table *t = &g->gemm[dt];
		free(t->m);
		free(t->n);
		free(t->k);
		free(t->eff);
		memset(t, 0, sizeof *t);
	}
}

void hwmodel_coll_clear(struct coll_model *cm)
{
	for (int i = 0; i < cm->ntables; i++) {
		free(cm->tables[i].bytes);
		free(cm->tables[i].time_us);
	}
	free(cm->tables);
	free(cm->lines);
	cm->tables = NULL;
	cm->lines = NULL;
	cm->ntables = cm->nlines = 0;
}

void hwmodel_free(struct hwmodel *hw)
{
	if (!hw)
		return;
	hwmodel_gemm_clear(&hw->gpu);
	for (int sc = 0; sc < SCOPE_N; sc++)
		for (int op = 0; op < COLL_NOPS; op++)
			hwmodel_coll_clear(&hw->coll[sc][op]);
	free(hw);
}

/* The packed form (hwmodel_pack): the struct's bytes with its table pointers cleared, then every table in the
 * order hwmodel_copy copies them (GEMM axes and cells by dtype; per scope and collective its lines, its tables'
 * structs, each table's sizes and times). A header of two words (a magic and the struct's size) rejects a form
 * written by another build of the struct. */
#define HW_PACK_MAGIC 0x6873696d6d6f646cull  /* "hsimmodl" */

struct packer {
	unsigned char *buf;
	size_t len, cap;
};

static void put(struct packer *pk, const void *p, size_t n)
{
	if (pk->len + n > pk->cap) {
		pk->cap = 2 * (pk->len + n);
		pk->buf = xrealloc(pk->buf, pk->cap);
	}
	if (n)
		memcpy(pk->buf + pk->len, p, n);
	pk->len += n;
}

size_t hwmodel_pack(const struct hwmodel *hw, unsigned char **out)
{
	struct packer pk = { NULL, 0, 0 };
	struct hwmodel img = *hw;
	uint64_t head[2] = { HW_PACK_MAGIC, sizeof img };
	for (int dt = 0; dt < DT_COUNT; dt++) {
		struct gemm_table *t = &img.gpu.gemm[dt];
		t->m = t->n = t->k = t->eff = NULL;
	}
	for (int sc = 0; sc < SCOPE_N; sc++)
		for (int op = 0; op < COLL_NOPS; op++) {
			img.coll[sc][op].lines = NULL;
			img.coll[sc][op].tables = NULL;
		}
	put(&pk, head, sizeof head);
	put(&pk, &img, sizeof img);
	for (int dt = 0; dt < DT_COUNT; dt++) {
		const struct gemm_table *t = &hw->gpu.gemm[dt];
		put(&pk, t->m, (size_t)t->nm * sizeof *t->m);
		put(&pk, t->n, (size_t)t->nn * sizeof *t->n);
		put(&pk, t->k, (size_t)t->nk * sizeof *t->k);
		put(&pk, t->eff, (size_t)t->nm * t->nn * t->nk * sizeof *t->eff);
	}
	for (int sc = 0; sc < SCOPE_N; sc++)
		for (int op = 0; op < COLL_NOPS; op++) {
			const struct coll_model *cm = &hw->coll[sc][op];
			put(&pk, cm->lines, (size_t)cm->nlines * sizeof *cm->lines);
			for (int i = 0; i < cm->ntables; i++) {
				struct coll_table ct = cm->tables[i];
				ct.bytes = ct.time_us = NULL;
				put(&pk, &ct, sizeof ct);
				put(&pk, cm->tables[i].bytes, (size_t)ct.npts * sizeof *ct.bytes);
				put(&pk, cm->tables[i].time_us, (size_t)ct.npts * sizeof *ct.time_us);
			}
		}
	*out = pk.buf;
	return pk.len;
}

struct unpacker {
	const unsigned char *p, *end;
	int bad;
};

/* n bytes of the form into dst (allocated when dst is NULL and n > 0); NULL for n == 0 or past the end */
static void *take(struct unpacker *u, void *dst, size_t n)
{
	if (u->bad || n == 0)
		return dst;
	if ((size_t)(u->end - u->p) < n) {
		u->bad = 1;
		return dst;
	}
	if (!dst)
		dst = xmalloc(n);
	memcpy(dst, u->p, n);
	u->p += n;
	return dst;
}

struct hwmodel *hwmodel_unpack(const void *data, size_t len)
{
	struct unpacker u = { data, (const unsigned char *)data + len, 0 };
	uint64_t head[2] = { 0, 0 };
	take(&u, head, sizeof head);
	if (u.bad || head[0] != HW_PACK_MAGIC || head[1] != sizeof(struct hwmodel))
		return NULL;
	struct hwmodel *hw = xcalloc(1, sizeof *hw);
	take(&u, hw, sizeof *hw);
	for (int dt = 0; dt < DT_COUNT; dt++) {
		struct gemm_table *t = &hw->gpu.gemm[dt];
		t->m = take(&u, NULL, (size_t)t->nm * sizeof *t->m);
		t->n = take(&u, NULL, (size_t)t->nn * sizeof *t->n);
		t->k = take(&u, NULL, (size_t)t->nk * sizeof *t->k);
		t->eff = take(&u, NULL, (size_t)t->nm * t->nn * t->nk * sizeof *t->eff);
	}
	for (int sc = 0; sc < SCOPE_N; sc++)
		for (int op = 0; op < COLL_NOPS; op++) {
			struct coll_model *cm = &hw->coll[sc][op];
			cm->lines = take(&u, NULL, (size_t)cm->nlines * sizeof *cm->lines);
			cm->tables = cm->ntables ? xcalloc((size_t)cm->ntables, sizeof *cm->tables) : NULL;
			for (int i = 0; i < cm->ntables; i++) {
				struct coll_table *ct = &cm->tables[i];
				take(&u, ct, sizeof *ct);
				ct->bytes = take(&u, NULL, (size_t)ct->npts * sizeof *ct->bytes);
				ct->time_us = take(&u, NULL, (size_t)ct->npts * sizeof *ct->time_us);
			}
		}
	if (u.bad || u.p != u.end) {
		hwmodel_free(hw);
		return NULL;
	}
	return hw;
}
