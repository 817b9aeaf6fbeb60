/* scale: scaling studies. A sweep predicts one scenario at several GPU counts on one or more hardware models and
 * keeps the scenario's tp and pp, so only dp grows: strong scaling keeps the global batch, weak scaling keeps the
 * batch per DP replica. Rows are numbered hardware-major, GPU counts ascending; a shard i/N of a sweep holds the
 * rows whose number is i-1 modulo N, and shards of one sweep carry the same sweep id, so scale_table_merge can
 * check that they fit together. A layout that cannot be built at some GPU count (GPUs not a multiple of tp*pp,
 * a batch that does not split) is a row with the reason, not an error.
 *
 * Speedup and efficiency of a row are relative to the first feasible row of the same hardware (its base): speedup
 * = tokens/s over the base's tokens/s, ideal = gpus / base gpus, efficiency = speedup / ideal. In strong scaling
 * the speedup is also the ratio of step times; in weak scaling it is the throughput ratio. */
#ifndef SCALE_H
#define SCALE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "report/report.h"
#include "sim/predict.h"

enum scale_mode { SCALE_STRONG, SCALE_WEAK };

struct scale_row {
	int row;                  /* number in the whole sweep */
	char hardware[64];        /* the hardware model's name */
	int gpus, dp, tp, pp;
	int global_batch, micro_batch, num_microbatches;
	bool feasible;
	char reason[256];         /* infeasible: why ("96 GPUs is not a multiple of tp*pp = 8*16 = 128") */
	/* feasible rows only: */
	int base_gpus;            /* GPU count of the row the speedup is relative to */
	double step_time_s, tokens_per_s, speedup, efficiency, mfu;
	double exposed_comm_share; /* (exposed TP + PP + DP communication) / step time on the critical rank */
	double bubble_share;       /* pipeline bubble / step time */
	struct breakdown breakdown_s;
	double memory_per_gpu_bytes, memory_capacity_bytes;
	bool fits_in_memory;
	/* the host's drift (sim/hostband.h), 0 where it does not move the row: its step on a host as fast and as slow
	 * as the model's host range (a step the host bounds), and its speedup with it and its base row both
	 * on the fast host and both on the slow one (either of them bound by the host) */
	double step_lo_s, step_hi_s;
	double speedup_fast_host, speedup_slow_host;
};

/* Bounds on what a table read from a file may claim (a sweep of a million rows is already hours of work). */
#define SCALE_MAX_ROWS 1000000
#define SCALE_MAX_SHARDS 100000

struct scale_table {
	char scenario[128];
	char sweep[17];           /* 16 hex digits naming the sweep definition; shards of one sweep share it */
	enum scale_mode mode;
	int rows_total;           /* rows of the whole sweep */
	int shard, nshards;       /* the slice this table holds; 1/1 for a whole sweep */
	struct scale_row *rows;   /* n rows in ascending row number, owned */
	int n, cap;
};

/* What scale_run tells its caller as each row of its shard is done (a progress line, rows streamed). */
struct scale_progress {
	int done, total;           /* rows of this shard done so far, and in all */
	const char *hardware;      /* the row's hardware model name */
	int gpus;
	double step_time_s;        /* 0 when the layout is infeasible */
	const char *reason;        /* why it is infeasible, else NULL */
};

struct scale_spec {
	const char *scenario;        /* scenario YAML path */
	const int *gpus;             /* ngpus GPU counts, ascending and distinct (scale_parse_gpus gives that) */
	int ngpus;
	const char *const *hw;       /* nhw hardware presets or files; nhw 0: the scenario's own */
	int nhw;
	const char *gpu;             /* --gpu FILE: a calibrated GPU composed into every model (NULL: none) */
	const char *target_gpu;      /* --target-gpu PRESET with gpu (NULL: none) */
	const char *host;            /* --host FILE|PRESET: that model's host costs in every model (NULL: none) */
	enum scale_mode mode;
	int shard, nshards;          /* 1-based slice; 1/1 runs every row */
	bool all_ranks;              /* predict_opts.all_ranks for every row */
	double max_tasks;            /* predict_opts.max_tasks for every row (0: the default) */
	void (*progress)(void *ctx, const struct scale_progress *p);  /* NULL: none */
	void *progress_ctx;
};

void scale_table_init(struct scale_table *t);
void scale_table_release(struct scale_table *t);
/* scale_table_add: a new zeroed row at the end (rows must be added in ascending row number). */
struct scale_row *scale_table_add(struct scale_table *t);

/* scale_run: run the rows of spec's shard into out (initialised here; release it even on failure). 0, or a
 * negative GS_* code after printing the reason (an invalid scenario or hardware model, a simulation error). */
int scale_run(const struct scale_spec *spec, struct scale_table *out);

/* scale_parse_gpus: a GPU-count list such as "8,16,32", "8,16,...,1024" (the step of the first two repeats:
 * doubling when the second is a whole multiple of the first, else a constant difference; with three or more
 * numbers before "..." the progression must fit all of them) or "8..1024" (powers of two times the first).
 * The list is sorted and duplicates dropped. 0 and *out (caller frees) with *n counts, or GS_EUSAGE with the
 * reason in why. */
int scale_parse_gpus(const char *s, int **out, int *n, char *why, size_t whylen);

/* scale_mode_name: "strong" or "weak"; scale_mode_parse: 0 or GS_EUSAGE. */
const char *scale_mode_name(enum scale_mode m);
int scale_mode_parse(const char *s, enum scale_mode *out);

/* scale_table_write: the table as a people's table, CSV (one line per row; the sweep's fields repeated on each
 * so a row stands alone) or JSON (the sweep's fields, then "rows"). Numbers in shortest round-trip form, so
 * reading a CSV or JSON table back and writing it again gives the same bytes. 0, or GS_EENV on a write error. */
int scale_table_write(FILE *f, enum report_format fmt, const struct scale_table *t);
/* scale_table_read: a CSV or JSON table that scale_table_write wrote (told apart by the first character). 0, or
 * GS_EINVAL / GS_EENV after printing "gpusim: file:line:col: message". */
int scale_table_read(const char *path, struct scale_table *out);
/* scale_table_read_text: the same from len bytes of text; path names it in messages. */
int scale_table_read_text(const char *path, const char *text, size_t len, struct scale_table *out);
/* scale_table_merge: join the shards tables[0..n-1] (each read from names[i]) into out, rows in order. They must
 * come from one sweep (same sweep id and row count) and together hold every row exactly once; otherwise an
 * error naming the files and rows, GS_EINVAL. */
int scale_table_merge(const struct scale_table *tables, const char *const *names, int n, struct scale_table *out);

#endif
