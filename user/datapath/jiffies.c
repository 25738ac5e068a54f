// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The datapath's clock: see jiffies.h. */
#include <errno.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "lib/log.h"
#include "lib/util.h"
#include "state/pins.h"
#include "datapath/jiffies.h"

int xn_jiffies(const struct xn_state *s, __u32 *j)
{
	DECLARE_LIBBPF_OPTS(bpf_test_run_opts, o);

	if (bpf_prog_test_run_opts(s->prog_jiffies, &o))
		return -errno;
	*j = o.retval;
	return 0;
}

/* The jiffies and the monotonic clock at one moment: the jiffies read
 * between two clock readings at most 2 ms apart (a process preempted in
 * between, on a loaded host, would skew the rate; tried up to 50 times). */
static int sample(const struct xn_state *s, __u32 *j, double *t)
{
	double a, b = 0;
	int i;

	for (i = 0; i < 50; i++) {
		a = xn_mono_s();
		if (xn_jiffies(s, j))
			return -1;
		b = xn_mono_s();
		if (b - a <= 0.002)
			break;
	}
	*t = (a + b) / 2;
	return 0;
}

__u32 xn_measure_hz(const struct xn_state *s)
{
	static const __u32 known[] = { 100, 250, 300, 1000 };
	struct timespec d = { 0, 100 * 1000 * 1000 };
	__u32 j0 = 0, j1 = 0, best = 0;
	double t0, t1, hz;
	unsigned int i;

	if (sample(s, &j0, &t0))
		return 0;
	nanosleep(&d, NULL);
	if (sample(s, &j1, &t1) || t1 <= t0)
		return 0;
	hz = (__u32)(j1 - j0) / (t1 - t0);
	/* Within a jiffy of 100 ms: the nearest value Linux allows. */
	for (i = 0; i < ARRAY_SIZE(known); i++)
		if (!best || (hz > known[i] ? hz - known[i] : known[i] - hz) <
				     (hz > best ? hz - best : best - hz))
			best = known[i];
	xn_debug("jiffies: %.0f per second measured, HZ=%u", hz, best);
	return best;
}
