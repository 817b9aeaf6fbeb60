/* trace: the Chrome trace-event writer (see trace.h). One event per line, so a timeline diffs and greps well.
 * pid = stage + 1, because Perfetto treats pid 0 as the Linux idle process; tid = track + 1 alike; the metadata
 * events' names and sort indices say what each one is. ts and dur are microseconds of simulated time, the
 * format's unit, printed to the picosecond (%.6f) so that a sum over a stage's hundreds of thousands of slices
 * stays within 1e-6 (relative) of the engine's own accounting, which tests/cli/trace.sh checks. */
#include "sim/trace.h"

#include <stdlib.h>
#include "util/jsonw.h"
#include "util/xalloc.h"

struct trace {
	struct trace_job job;
	FILE *f;
	long nevents;        /* written so far: the next one needs a separator */
	uint8_t *named;      /* [stage]: bit per track whose thread_name is written */
};
_Static_assert(TRACK_N <= 8, "trace.named holds one bit per track");

static const char *const cat_name[CAT_N] = { "compute", "tp", "pp", "dp", "optimizer" };
static const char *const track_name[TRACK_N] = {
	"compute", "dp collectives", "send fwd", "send bwd", "link intra-node (out)", "link inter-node (out)",
};

struct trace *trace_new(FILE *f, const struct trace_job *job)
{
	struct trace *t = xcalloc(1, sizeof *t);
	t->f = f;
	t->job = *job;
	t->named = xcalloc((size_t)job->pp, 1);
	return t;
}

void trace_free(struct trace *t)
{
	if (!t)
		return;
	free(t->named);
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

void trace_begin(struct trace *t)
{
	const struct trace_job *j = &t->job;
	fputs("{\"traceEvents\":[\n", t->f);
	for (int s = 0; s < j->pp; s++) {
		/* Megatron placement (sim/build.c): the rank of dp 0, tp 0 of stage s is s*tp*dp */
		int rank = s * j->tp * j->dp;
		char name[96];
		snprintf(name, sizeof name, "stage %d: GPU %d (dp 0, tp 0, node %d)", s, rank,
			 j->gpus_per_node > 0 ? rank / j->gpus_per_node : 0);
		meta(t, "process_name", s + 1, 0, name, 0);
		meta(t, "process_sort_index", s + 1, 0, NULL, s);
	}
}

/* ,"key":v with the shortest text that reads back as v (comma: what goes before the key) */
static void put_num(FILE *f, const char *comma, const char *key, double v)
{
	char buf[40];
	fprintf(f, "%s\"%s\":%s", comma, key, jsonw_format_double(v, buf, sizeof buf));
}

void trace_slice(struct trace *t, const struct trace_span *sp)
{
	/* dp 0, tp 0: the rank the default run simulates for its stage, so a timeline shows the same ranks with and
	 * without --all-ranks */
	if (sp->dp != 0 || sp->tp != 0 || !sp->op || sp->stage < 0 || sp->stage >= t->job.pp)
		return;
	FILE *f = t->f;
	int pid = sp->stage + 1, tid = sp->track + 1;
	if (!(t->named[sp->stage] & (1u << sp->track))) {
		t->named[sp->stage] |= (uint8_t)(1u << sp->track);
		meta(t, "thread_name", pid, tid, track_name[sp->track], 0);
		meta(t, "thread_sort_index", pid, tid, NULL, sp->track);
	}
	const struct instr *in = sp->in;
	const struct op *op = sp->op;
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
	fputs("\n],\n\"displayTimeUnit\":\"ms\",\n", f);
	fputs("\"otherData\":{\"generator\":\"gpusim " GPUSIM_VERSION "\",\"scenario\":", f);
	jsonw_put_string(f, j->scenario);
	fputs(",\"hardware\":", f);
	jsonw_put_string(f, j->hardware);
	put_num(f, ",", "step_time_s", step_time_s);
	fprintf(f, ",\"critical_stage\":%d,\"gpus\":%d,\"dp\":%d,\"tp\":%d,\"pp\":%d,\"schedule\":", critical_stage,
		j->gpus, j->dp, j->tp, j->pp);
	jsonw_put_string(f, j->schedule);
	fprintf(f, ",\"num_microbatches\":%d,\"virtual_stages\":%d,"
		"\"traced_ranks\":\"one per pipeline stage: dp 0, tp 0\",\"time_unit\":\"us\"}}\n",
		j->num_microbatches, j->virtual_stages);
}
