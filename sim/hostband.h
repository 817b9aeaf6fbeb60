/* hostband: the step on a host as fast and as slow as the calibration saw it. A lent or shared host drifts by tens
 * of percent within minutes (docs/validation.md), and a step bound by its host moves with it; the calibration's
 * probe rounds say how far (hardware/hwmodel.h, host.<mode>.drift_lo and drift_hi). The band is the same
 * simulation twice more, every host cost times each factor: not a formula on the step time, so a step the GPU
 * bounds keeps a narrow band and a host-bound one a wide one. */
#ifndef HOSTBAND_H
#define HOSTBAND_H

#include "hardware/hwmodel.h"
#include "scenario/scenario.h"
#include "sim/predict.h"

/* A band is reported where the slow host's step is at least this much over the fast host's: narrower, the host's
 * drift moves the step less than the GPU model's own error (a few percent, docs/validation.md) and the band would
 * say nothing. */
#define HOSTBAND_MIN_WIDTH 1.05

/* hostband_run: r is s's prediction on hw (predict_run). Where hw has a drift range for s's execution mode and the
 * host's work at the slowest factor would be at least half the step (r->host_issue_s * drift_hi >= step / 2;
 * below that the GPU's work hides the host: no two more runs for a GPU-bound step), sets r->host_band to the
 * step times with every host cost times drift_lo and drift_hi where they are at least HOSTBAND_MIN_WIDTH apart;
 * else leaves it zero. opts as for predict_run (its trace is not written again). 0, or a negative GS_* code when a
 * run fails (predict_run printed why). */
int hostband_run(const struct scenario *s, const struct hwmodel *hw, const struct predict_opts *opts,
		 struct result *r);

#endif
