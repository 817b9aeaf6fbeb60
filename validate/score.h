/* score: the arithmetic of `gpusim validate`. A measured-runs CSV is read into a table; once each row has a
 * prediction (validate/score_predict.c runs the simulator, tests set numbers by hand), the table gets relative
 * errors, their median and maximum, and for rows that name a 1-GPU baseline whether the predicted speedup is on
 * the same side of 1 as the measured one.
 *
 * CSV (docs/validation.md): a header line, then one row per line; '#' lines and blank lines are skipped; fields
 * are separated by ',' and never quoted. Columns by name, others ignored:
 *   scenario                 path of the scenario YAML, relative to the CSV's folder (required)
 *   measured_step_s          measured seconds per training step, or
 *   measured_tflops_per_gpu  measured TFLOP/s per GPU (published runs); exactly one of the two per file
 *   label                    row name (default: the scenario's file name without .yaml); unique
 *   baseline                 label of the 1-GPU row of the same work (measured_step_s files only)
 *   flops_formula            with measured_tflops_per_gpu: model (default, 6*N*tokens plus attention, no
 *                            recompute) or megatron (Narayanan et al. SC'21 Eq. 3, recompute forward included)
 *   role                     fit or score (validate/tag_roles.py), empty for untagged
 *   family, mode             the layout family; without a family column, the mode without group sizes
 *   device                   the GPU type the row ran on
 *   peak_mem_bytes           measured peak memory, scored against the prediction's mem.total
 * A loaded table is consistent: every row has a scenario and a measured value > 0, labels are unique and every
 * baseline names another row (baseline holds its index). */
#ifndef SCORE_H
#define SCORE_H

#include <stdbool.h>
#include <stddef.h>

enum score_metric { SCORE_STEP_S, SCORE_TFLOPS };
enum score_flops { SCORE_FLOPS_MODEL, SCORE_FLOPS_MEGATRON };

struct score_row {
	int line;                 /* line in the CSV, for messages */
	char label[128];
	char scenario[1024];      /* as written in the CSV */
	char path[2048];          /* scenario resolved against the CSV's folder */
	double measured;          /* step seconds or TFLOP/s per GPU, as the table's metric says */
	enum score_flops flops;
	int baseline;             /* index of the baseline row, -1 for none */
	char role[8];             /* "fit" (the model was tuned on it), "score" (held out) or "" (not tagged) */
	char family[32];          /* the family column, else the mode column without group sizes (dp2 -> dp) */
	char device[64];          /* the GPU it ran on (device column), "" when not given */
	double measured_mem;      /* peak_mem_bytes (torch.cuda.max_memory_allocated, the largest rank); 0: none */

	/* set by score_predict (or a test), read by score_summarize */
	bool predicted_ok;
	double predicted;         /* in the measured value's unit */
	double predicted_step_s;
	char error[160];          /* why the prediction failed, when !predicted_ok */
	double predicted_mem;     /* bytes per GPU of the worst stage */
	double band_lo, band_hi;  /* the prediction on a host as fast and as slow as the model's host range
	                           * (sim/hostband.h), in the metric's unit, band_lo <= band_hi; 0: no band */

	/* set by score_summarize */
	double rel_err;           /* (predicted - measured) / measured; NAN without a prediction */
	double mem_rel_err;       /* the same for peak memory; NAN without both */
	bool has_speedup;         /* a baseline and both predictions exist */
	double measured_speedup;  /* baseline step time / this row's step time */
	double predicted_speedup;
	bool speedup_sign_ok;     /* both > 1 or both <= 1 */
	bool speedup_host_side;   /* the predicted speedup's side of 1 differs on the fast and the slow host (both
	                           * steps at their band's end, or their prediction without a band: one host runs
	                           * both); the host's drift decides it */
};

struct score_table {
	char path[1024];          /* CSV name, for messages */
	enum score_metric metric;
	int n, cap;
	struct score_row *rows;
	int nerrors;              /* errors printed while loading */
	char err[256];            /* the first of them, without the "gpusim: file:line: " part */
};

struct score_summary {
	int rows, predicted, failed;
	double median_abs_err;    /* median of |rel_err| over predicted rows; NAN when none */
	double max_abs_err;
	int worst;                /* row of max_abs_err, -1 when none */
	int speedup_rows;         /* rows with a speedup to check */
	int speedup_sign_wrong;
	int speedup_host_side;    /* rows whose side of 1 the host's drift decides (score_row.speedup_host_side) */
	int speedup_host_side_wrong;  /* of them, on the wrong side */
	int band_rows;            /* predicted rows with a host drift band (host-bound steps) */
	int band_inside;          /* of them, the measurement inside the band */
	int mem_rows;             /* rows with a measured and a predicted peak memory */
	double mem_median_abs_err, mem_max_abs_err;
	int mem_worst;
};

/* The step-time errors of the predicted rows whose family (SCORE_BY_FAMILY), device, role or bound is key; the
 * bound is "host" for a row with a host drift band (its host bounds it: score_set_band), else "gpu". */
enum score_by { SCORE_BY_FAMILY, SCORE_BY_DEVICE, SCORE_BY_ROLE, SCORE_BY_BOUND };
struct score_group {
	char key[64];
	int rows;
	double median_abs_err, max_abs_err;
	int worst;
};
/* score_groups: one group per distinct key of the summarized table, in order of first appearance (rows with an
 * empty key form the group ""); at most max groups. Returns the count. */
int score_groups(const struct score_table *t, enum score_by by, struct score_group *out, int max);
/* score_family_of_mode: the mode column without its group sizes: "dp2" -> "dp", "tp2-pp2-1f1b" -> "tp-pp-1f1b". */
void score_family_of_mode(const char *mode, char *out, size_t size);

/* score_table_init / score_table_release: an empty table; release frees the rows (the struct stays). */
void score_table_init(struct score_table *t);
void score_table_release(struct score_table *t);

/* score_load: read the CSV at path into t (initialised). 0; GS_EINVAL after printing every problem as
 * "gpusim: file:line: message" (the first also in t->err); GS_EENV when the file cannot be read. */
int score_load(struct score_table *t, const char *path);
/* score_load_string: the same from text; name is used in messages, and relative scenario paths are resolved
 * against dir ("" or NULL: left as written). */
int score_load_string(struct score_table *t, const char *name, const char *dir, const char *text);

/* score_rel_err: (predicted - measured) / measured. */
double score_rel_err(double predicted, double measured);
/* score_median: the median of n values (mean of the middle two for even n), NAN for n == 0; v is not changed. */
double score_median(const double *v, int n);
/* score_megatron_flops: paper Eq. 3, F = 96*B*s*l*h^2*(1 + s/(6h) + V/(16*l*h)), FLOPs per step. */
double score_megatron_flops(double batch, double seq, double layers, double hidden, double vocab);
/* score_tflops_per_gpu: flops / (step_s * gpus) / 1e12. */
double score_tflops_per_gpu(double flops, double step_s, int gpus);

/* score_set_prediction: row i predicted value (the metric's unit) and step time. */
void score_set_prediction(struct score_table *t, int i, double predicted, double step_s);
/* score_set_memory: row i's predicted peak memory in bytes per GPU. */
void score_set_memory(struct score_table *t, int i, double bytes);
/* score_set_band: row i's prediction on the calibration's fastest and slowest host, in the metric's unit (either
 * order). */
void score_set_band(struct score_table *t, int i, double a, double b);
/* score_set_failure: row i has no prediction; why is kept for the report. */
void score_set_failure(struct score_table *t, int i, const char *why);

/* score_summarize: relative errors and speedups of every row, and their summary. */
void score_summarize(struct score_table *t, struct score_summary *sum);

/* score_predict (validate/score_predict.c): for every row load its scenario (hardware hw, a preset name or YAML
 * path, instead of the scenario's when not NULL; gpu, a calibrated GPU composed into it when not NULL, carried
 * to preset target_gpu's GPU when that is not NULL; the host costs of model host when not NULL), run the
 * simulator and set the prediction; a row that fails gets score_set_failure after the loader's or simulator's
 * own message. Returns the number of failed rows. */
int score_predict(struct score_table *t, const char *hw, const char *gpu, const char *target_gpu, const char *host);

#endif
