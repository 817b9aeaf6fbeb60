/* engine: the discrete-event simulation of one training step. It runs the stage programs of sim/program.h on
 * simulated ranks, each with NSTREAMS in-order streams and one outgoing link per scope. Every busy interval
 * (a compute segment, a collective, a transfer) ends in an event popped from sim/eventq in (time, sequence)
 * order; waits, records and receives cost no time and need no event.
 * Ranks: with dp_sim = tp_sim = 1 one rank stands for every symmetric peer of its stage; with dp_sim = dp and
 * tp_sim = tp every GPU is simulated and collectives wait for all members of their group. */
#ifndef ENGINE_H
#define ENGINE_H

#include "sim/program.h"

struct sim;
struct trace;

struct sim_config {
	const struct program *progs;  /* pp programs, not owned; must outlive the sim */
	int pp, dp_sim, tp_sim;
	/* interference (sim/engine.c, coll_interference): while a DP collective and a compute run overlap, the run
	 * is slowed by compute_slowdown and the collective by comm_slowdown, over the overlap times the fraction of
	 * the run its GPU computes (not the host waits inside it) */
	double compute_slowdown;
	double comm_slowdown;
	const double *stage_speed;    /* per stage: compute segments run this many times faster (NULL: 1) */
	const double *stage_vu;       /* per stage: the GEMMs' and the attention's speeds behind stage_speed (2 a
	                               * stage; attention 0: no law), which the timeline splits a segment by; NULL:
	                               * every op of a segment stretched alike */
	struct trace *trace;          /* optional timeline writer (sim/trace.h), not owned; needs programs built
	                               * with keep_ops */
	int every_pass;               /* simulate every pass, none applied as a translation of the one before
	                               * (sim/steady.h): a check's reference */
	double power_window_s;        /* > 0: the power limiter's time constant tau (gpu.power.window_ms): each wait g
	                               * of a compute stream earns its clock tau (1 - e^(-g/tau)) of idle, the rest is
	                               * counted in ACC_WAIT_LOST (the step's last wait and its first are one wait,
	                               * as steps repeat); 0: none */
};

/* Breakdown of one rank's compute-stream timeline; the parts (ACC_COMPUTE .. ACC_HOST, ACC_PARTS of them) sum to
 * the step time. ACC_WAIT_LOST is not a part: of the waits (TP, PP, DP, bubble), the time a windowed power limiter
 * does not credit (sim_config.power_window_s; 0 without one). */
enum { ACC_COMPUTE, ACC_TP, ACC_PP, ACC_DP, ACC_OPTIMIZER, ACC_BUBBLE, ACC_HOST, ACC_WAIT_LOST, ACC_N };
#define ACC_PARTS ACC_WAIT_LOST

struct sim *sim_new(const struct sim_config *cfg);
void sim_free(struct sim *s);
/* Make s ready to run the step again from its start, at the stage speeds cfg.stage_speed points to now (the
 * stage clocks' next iteration): the programs and everything derived from them alone are kept. */
void sim_reset(struct sim *s);
/* sim_run: 0, or GS_EINVAL (printed) when the programs deadlock, which is a builder bug. */
int sim_run(struct sim *s);
double sim_step_time(const struct sim *s);
long long sim_events(const struct sim *s);
/* The passes of the steady state applied as translations in time instead of simulated (sim/steady.h). */
long sim_translated_passes(const struct sim *s);
int sim_nranks(const struct sim *s);
int sim_rank_stage(const struct sim *s, int rank);
/* The rank whose compute stream finishes last (lowest rank on ties). */
int sim_critical_rank(const struct sim *s);
/* acc[ACC_N] for a rank, in seconds. */
void sim_rank_breakdown(const struct sim *s, int rank, double acc[ACC_N]);

#endif
