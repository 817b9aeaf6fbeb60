/* hostband: the step with every host cost at the calibration's fastest and slowest round (hostband.h). */
#include "sim/hostband.h"

#include <string.h>

int hostband_run(const struct scenario *s, const struct hwmodel *hw, const struct predict_opts *opts,
		 struct result *r)
{
	const struct hw_host_cost *h = &hw->host.mode[s->train.exec];
	memset(&r->host_band, 0, sizeof r->host_band);
	if (!(h->drift_lo > 0 && h->drift_hi > 0) || !(r->host_issue_s * h->drift_hi >= 0.5 * r->step_time_s))
		return 0;
	struct predict_opts o = opts ? *opts : (struct predict_opts){0};
	o.trace = NULL;
	double f[2] = { h->drift_lo, h->drift_hi }, t[2];
	for (int i = 0; i < 2; i++) {
		struct hwmodel *m = hwmodel_copy(hw);
		hwmodel_scale_host(m, f[i]);
		struct result x;
		int rc = predict_run(s, m, &o, &x);
		hwmodel_free(m);
		if (rc != 0)
			return rc;
		t[i] = x.step_time_s;
	}
	if (t[1] < HOSTBAND_MIN_WIDTH * t[0])  /* the host hardly moves the step: no band */
		return 0;
	r->host_band.f_lo = f[0];
	r->host_band.f_hi = f[1];
	r->host_band.lo_s = t[0];
	r->host_band.hi_s = t[1];
	return 0;
}
