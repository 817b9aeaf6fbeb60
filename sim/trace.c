/* trace: the Chrome trace-event writer (see trace.h). One event per line, so a timeline diffs and greps well.
 * pid = stage + 1, because Perfetto treats pid 0 as the Linux idle process; tid = track + 1 alike; the metadata
 * events' names and sort indices say what each one is. ts and dur are microseconds of simulated time, the
 * format's unit, printed to the picosecond (%.6f) so that a sum over a stage's hundreds of thousands of slices
 * stays within 1e-6 (relative) of the engine's own accounting, which tests/cli/trace.sh checks. */
#include "sim/trace.h"

#include <stdlib.h>
#include <string.h>
#include "util/jsonw.h"
#include "util/xalloc.h"

struct trace {
	struct trace_job job;
	FILE *f;
	long nevents;        /* written so far: the next one needs a separator */
	double bytes;        /* written so far, counted by event (the stream may be a pipe, without ftell) */
	bool over;           /* job.max_bytes passed */
	int critical;        /* TRACE_CRITICAL: the traced stage */
	uint16_t *named;     /* [GPU rank]: bit per track whose thread_name is written, NAMED_PROC its process's */
	uint8_t *want;       /* TRACE_LIST: [GPU rank] nonzero when traced */
	struct layer_slice *pend;  /* TRACE_OVERVIEW: per stage, the slice being gathered (nops 0: none) */
	double detail_bytes[2];    /* TRACE_OVERVIEW: written op by op, and layer by layer */
};

/* TRACE_OVERVIEW: the critical stage op by op and the others layer by layer while each level's budget lasts,
 * then layer by layer and then one slice per micro-batch's forward or backward on every stage, so a timeline of
 * any job stays a few MB, its first micro-batches the most detailed. A gathered slice holds consecutive
 * compute-stream ops (TP collectives among them) of one micro-batch (and layer), from the first's start to the
 * last's end. */
enum { OVERVIEW_OPS, OVERVIEW_LAYERS, OVERVIEW_UNITS };
#define OVERVIEW_LEVEL_BYTES 2e6
struct layer_slice {
	int mb, layer, nops, level;
	bool bwd;
	double t0, t1;
};
enum { NAMED_PROC = 1u << 15 };
_Static_assert(TRACK_N <= 15, "trace.named holds one bit per track and one for the process");

static const char *const cat_name[CAT_N] = { "compute", "tp", "pp", "dp", "optimizer" };
static const char *const track_name[TRACK_N] = {
	"compute", "dp collectives", "send fwd", "send bwd", "host copies", "tp/cp overlap", "link intra-node (out)",
	"link inter-node (out)",
};

struct trace *trace_new(FILE *f, const struct trace_job *job)
{
	struct trace *t = xcalloc(1, sizeof *t);
	t->f = f;
	t->job = *job;
	t->critical = -1;
	size_t n = (size_t)job->pp * job->dp * job->tp;
	t->named = xcalloc(n, sizeof *t->named);
	if (job->pick == TRACE_OVERVIEW)
		t->pend = xcalloc((size_t)job->pp, sizeof *t->pend);
	if (job->pick == TRACE_LIST) {
		t->want = xcalloc(n, 1);
		for (int i = 0; i < job->nranks; i++)
			if (job->ranks[i] >= 0 && (size_t)job->ranks[i] < n)
				t->want[job->ranks[i]] = 1;
	}
	return t;
}

void trace_set_critical(struct trace *t, int stage)
{
	t->critical = stage;
}

void trace_free(struct trace *t)
{
	if (!t)
		return;
	free(t->named);
	free(t->want);
	free(t->pend);
	free(t);
}

static void event_begin(struct trace *t)
{
	fputs(t->nevents++ ? ",\n" : "", t->f);
}

/* A metadata event: args {"name": str} when str, else {"sort_index": idx}. */
static void meta(struct trace *t, const char *what, int pid, int tid, const char *str, int idx)
{
	event_begin(t);
	fprintf(t->f, "{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{", what, pid, tid);
	if (str) {
		fputs("\"name\":", t->f);
		jsonw_put_string(t->f, str);
	} else {
		fprintf(t->f, "\"sort_index\":%d", idx);
	}
	fputs("}}", t->f);
}

/* Megatron placement (sim/build.c): rank d, t of stage s is GPU (s*dp + d)*tp + t. */
static int gpu_of(const struct trace_job *j, int s, int d, int tp)
{
	return (s * j->dp + d) * j->tp + tp;
}

/* A rank's process: pid stage+1 for a stage's rank dp 0, tp 0 (the ranks of a default timeline), pp+1+GPU for
 * the others, so pids stay unique and a default timeline reads as before. */
static int pid_of(const struct trace_job *j, int s, int d, int tp)
{
	return d == 0 && tp == 0 ? s + 1 : j->pp + 1 + gpu_of(j, s, d, tp);
}

static void name_process(struct trace *t, int s, int d, int tp)
{
	const struct trace_job *j = &t->job;
	int gpu = gpu_of(j, s, d, tp), pid = pid_of(j, s, d, tp);
	char name[128];
	snprintf(name, sizeof name, "stage %d: GPU %d (dp %d, tp %d, node %d)", s, gpu, d, tp,
		 j->gpus_per_node > 0 ? gpu / j->gpus_per_node : 0);
	meta(t, "process_name", pid, 0, name, 0);
	meta(t, "process_sort_index", pid, 0, NULL, j->pick == TRACE_STAGES || j->pick == TRACE_OVERVIEW ? s : gpu);
	t->named[gpu] |= NAMED_PROC;
}

void trace_begin(struct trace *t)
{
	fputs("{\"traceEvents\":[\n", t->f);
	if (t->job.pick == TRACE_STAGES || t->job.pick == TRACE_OVERVIEW)
		for (int s = 0; s < t->job.pp; s++)
			name_process(t, s, 0, 0);
}

static int traced(const struct trace *t, const struct trace_span *sp)
{
	const struct trace_job *j = &t->job;
	switch (j->pick) {
	case TRACE_OVERVIEW:
	case TRACE_STAGES:
		return sp->dp == 0 && sp->tp == 0;
	case TRACE_CRITICAL:
		return sp->dp == 0 && sp->tp == 0 && sp->stage == t->critical;
	case TRACE_LIST:
		return t->want[gpu_of(j, sp->stage, sp->dp, sp->tp)];
	case TRACE_ALL:
		return 1;
	}
	return 0;
}

/* ,"key":v with the shortest text that reads back as v (comma: what goes before the key) */
static void put_num(FILE *f, const char *comma, const char *key, double v)
{
	char buf[40];
	fprintf(f, "%s\"%s\":%s", comma, key, jsonw_format_double(v, buf, sizeof buf));
}

bool trace_over(const struct trace *t)
{
	return t->over;
}

/* Counts an event against the budget: false once it is spent (nothing more is written). */
static bool budget(struct trace *t)
{
	t->bytes += 160;  /* an event's line: 130-200 bytes */
	if (t->job.max_bytes > 0 && t->bytes > t->job.max_bytes)
		t->over = true;
	return !t->over;
}

/* Names the rank's process and the track before its first slice. */
static void name_track(struct trace *t, int stage, int dp, int tp, int track)
{
	int gpu = gpu_of(&t->job, stage, dp, tp), pid = pid_of(&t->job, stage, dp, tp);
	if (!(t->named[gpu] & NAMED_PROC))
		name_process(t, stage, dp, tp);
	if (!(t->named[gpu] & (1u << track))) {
		t->named[gpu] |= (uint16_t)(1u << track);
		meta(t, "thread_name", pid, track + 1, track_name[track], 0);
		meta(t, "thread_sort_index", pid, track + 1, NULL, track);
	}
}

bool trace_op_backward(const char *name)
{
	size_t n = strlen(name);
	static const char *const ends[] = { "_bwd", "_dgrad", "_wgrad", "_recompute" };
	for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
		size_t k = strlen(ends[i]);
		if (n >= k && strcmp(name + n - k, ends[i]) == 0)
			return true;
	}
	return strcmp(name, "grad_accumulate") == 0 || strcmp(name, "ddp_bucket_copy") == 0 ||
	       strcmp(name, "ddp_copy_back") == 0;
}

/* Writes stage's gathered layer slice (TRACE_OVERVIEW), if any. */
static void flush_layer(struct trace *t, int stage)
{
	struct layer_slice *l = &t->pend[stage];
	if (l->nops == 0 || !budget(t))
		return;
	event_begin(t);
	fprintf(t->f, "{\"name\":\"%s\",\"cat\":\"compute\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%.6f,"
		"\"dur\":%.6f,\"args\":{\"mb\":%d,", l->level == OVERVIEW_UNITS ? (l->bwd ? "unit_bwd" : "unit_fwd") :
		(l->bwd ? "layer_bwd" : "layer_fwd"), pid_of(&t->job, stage, 0, 0), STREAM_COMPUTE + 1, l->t0 * 1e6,
		(l->t1 - l->t0) * 1e6, l->mb);
	if (l->level == OVERVIEW_LAYERS)
		fprintf(t->f, "\"layer\":%d,", l->layer);
	fprintf(t->f, "\"ops\":%d}}", l->nops);
	t->detail_bytes[OVERVIEW_LAYERS] += l->level == OVERVIEW_LAYERS ? 160 : 0;
	l->nops = 0;
}

/* The detail a slice of stage gets now (TRACE_OVERVIEW). */
static int overview_level(const struct trace *t, int stage)
{
	if (stage == t->critical && t->detail_bytes[OVERVIEW_OPS] < OVERVIEW_LEVEL_BYTES)
		return OVERVIEW_OPS;
	return t->detail_bytes[OVERVIEW_LAYERS] < OVERVIEW_LEVEL_BYTES ? OVERVIEW_LAYERS : OVERVIEW_UNITS;
}

void trace_slice(struct trace *t, const struct trace_span *sp)
{
	/* by default dp 0, tp 0: the rank the default run simulates for its stage, so a timeline shows the same ranks
	 * with and without --all-ranks */
	if (!sp->op || sp->stage < 0 || sp->stage >= t->job.pp || sp->dp < 0 || sp->dp >= t->job.dp || sp->tp < 0 ||
	    sp->tp >= t->job.tp || !traced(t, sp) || t->over)
		return;
	const struct instr *in = sp->in;
	const struct op *op = sp->op;
	int level = t->pend ? overview_level(t, sp->stage) : OVERVIEW_OPS;
	if (level != OVERVIEW_OPS && sp->track >= TRACK_SIDE)
		return;  /* an overview's coarse part: the send stream's slice shows the transfer, the layer's slice the
		          * time its side-channel transfers kept the compute stream waiting */
	if (t->pend && sp->track == STREAM_COMPUTE && (level != OVERVIEW_OPS || t->pend[sp->stage].nops)) {
		struct layer_slice *l = &t->pend[sp->stage];
		if (l->nops && (l->mb != op->mb || l->level != level || (level == OVERVIEW_LAYERS && l->layer != op->layer)))
			flush_layer(t, sp->stage);
		if (op->mb >= 0 && (op->layer >= 0 || level == OVERVIEW_UNITS) && level != OVERVIEW_OPS && !t->over) {
			name_track(t, sp->stage, 0, 0, STREAM_COMPUTE);
			if (l->nops == 0)
				*l = (struct layer_slice){ op->mb, op->layer, 0, level, false, sp->t0_s, sp->t0_s };
			l->nops++;
			l->bwd = l->bwd || trace_op_backward(op->name);
			if (sp->t0_s + sp->dur_s > l->t1)
				l->t1 = sp->t0_s + sp->dur_s;
			return;
		}
	}
	if (!budget(t))
		return;
	if (t->pend && sp->stage == t->critical)
		t->detail_bytes[OVERVIEW_OPS] += 160;
	FILE *f = t->f;
	int pid = pid_of(&t->job, sp->stage, sp->dp, sp->tp), tid = sp->track + 1;
	name_track(t, sp->stage, sp->dp, sp->tp, sp->track);
	event_begin(t);
	fputs("{\"name\":", f);
	jsonw_put_string(f, op->name);
	fprintf(f, ",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%.6f,\"dur\":%.6f,\"args\":{",
		cat_name[in->cat < CAT_N ? in->cat : CAT_COMPUTE], pid, tid, sp->t0_s * 1e6, sp->dur_s * 1e6);
	/* DP buckets and the optimizer belong to no micro-batch; embedding, head and optimizer to no layer */
	const char *comma = "";
	if (op->mb >= 0) {
		fprintf(f, "\"mb\":%d", (int)op->mb);
		comma = ",";
	}
	if (op->layer >= 0) {
		fprintf(f, "%s\"layer\":%d", comma, (int)op->layer);
		comma = ",";
	}
	if (in->kind == INS_COLL) {
		put_num(f, comma, "bytes", op->bytes);
		fprintf(f, ",\"group\":\"%s group of %d\"", in->group == GROUP_TP ? "tp" : "dp",
			in->group == GROUP_TP ? t->job.tp : t->job.dp);
	} else if (in->kind == INS_SEND) {
		put_num(f, comma, "bytes", op->bytes);
		fprintf(f, ",\"to\":\"stage %d\",\"link\":\"%s\"", (int)in->dest,
			in->scope == LINK_INTRA ? "intra-node" : "inter-node");
	}
	fputs("}}", f);
}

void trace_end(struct trace *t, double step_time_s, int critical_stage)
{
	const struct trace_job *j = &t->job;
	FILE *f = t->f;
	for (int s = 0; t->pend && s < j->pp; s++)
		flush_layer(t, s);
	fputs("\n],\n\"displayTimeUnit\":\"ms\",\n", f);
	fputs("\"otherData\":{\"generator\":\"gpusim " GPUSIM_VERSION "\",\"scenario\":", f);
	jsonw_put_string(f, j->scenario);
	fputs(",\"hardware\":", f);
	jsonw_put_string(f, j->hardware);
	put_num(f, ",", "step_time_s", step_time_s);
	fprintf(f, ",\"critical_stage\":%d,\"gpus\":%d,\"dp\":%d,\"tp\":%d,\"pp\":%d,\"schedule\":", critical_stage,
		j->gpus, j->dp, j->tp, j->pp);
	jsonw_put_string(f, j->schedule);
	static const char *const picked[] = {
		[TRACE_OVERVIEW] = ("one per pipeline stage: dp 0, tp 0; op by op on the critical stage, a slice per layer "
				    "and micro-batch on the others"),
		[TRACE_STAGES] = "one per pipeline stage: dp 0, tp 0",
		[TRACE_CRITICAL] = "the critical stage's: dp 0, tp 0",
		[TRACE_LIST] = "listed",
		[TRACE_ALL] = "all",
	};
	fprintf(f, ",\"num_microbatches\":%d,\"virtual_stages\":%d,\"traced_ranks\":\"%s\",\"time_unit\":\"us\"}}\n",
		j->num_microbatches, j->virtual_stages, picked[j->pick]);
}
