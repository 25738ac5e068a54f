// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xdpnet stats BRIDGE [-i SEC] [-c N] [--json|--prom] [--latency]
 * [--reset]: samples (observe/stats_collect.c), rendered (render/). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include "xdpnet.h"
#include "lib/exit.h"
#include "lib/log.h"
#include "state/system.h"
#include "state/paths.h"
#include "state/owner.h"
#include "state/bridge.h"
#include "observe/stats_view.h"
#include "observe/stats_collect.h"
#include "render/stats.h"
#include "cmd/cmd.h"

static volatile sig_atomic_t stop_stats;

static void on_signal(int sig)
{
	(void)sig;
	stop_stats = 1;
}

static void show(const struct xn_opts *o, const struct xn_stats_sample *prev,
		 const struct xn_stats_sample *cur, unsigned long seq, int live)
{
	struct xn_stats_view v;

	if (xn_stats_view(prev, cur, &v))
		return;
	if (o->json) {
		xn_stats_print_json(stdout, cur, &v, seq);
	} else {
		if (live)
			fputs("\033[H\033[2J", stdout);
		else if (seq > 1)
			fputc('\n', stdout);
		xn_stats_print_table(stdout, cur, &v, o->latency, o->verbose);
	}
	fflush(stdout);
	xn_stats_view_free(&v);
}

int xn_stats(const struct xn_opts *o)
{
	struct xn_stats_sample a, b, *prev = &a, *cur = &b, *t;
	struct timespec next;
	struct xn_bridge br;
	unsigned long seq = 0;
	int err, live;

	err = xn_cmd_bridge(&br, o->bridge, 1);
	if (!err)
		err = xn_require_root(XN_CAPS_READ);
	if (!err)
		err = xn_ensure_bpffs();
	if (err)
		return err;
	if (o->reset) {
		err = xn_bridge_check(&br);
		if (!err)
			err = xn_stats_reset(&br);
		if (err)
			return err;
		if (!o->interval && !o->json && !o->prom && !o->latency) {
			xn_info("xdpnet: counters and histograms of %s reset "
				"(device counters are the kernel's and keep "
				"counting)",
				o->bridge);
			return XN_OK;
		}
	}
	if (xn_pinned(&br) >= XN_PINNED_OTHER_NS)
		return xn_pinned_refuse(&br, xn_pinned(&br));
	if (!xn_stats_pins_ours(&br))
		return xn_stats_refuse_other_ns(&br);
	err = xn_stats_collect(&br, cur);
	if (err)
		return err;
	if (o->prom) {
		xn_stats_print_prom(stdout, cur, 1,
				    o->lat_pairs ? XN_PROM_LAT_PAIRS : 0);
		xn_stats_free(cur);
		return fflush(stdout) ? XN_ERR : XN_OK;
	}
	if (!o->interval) {
		show(o, NULL, cur, ++seq, 0);
		xn_stats_free(cur);
		return XN_OK;
	}
	live = !o->json && isatty(STDOUT_FILENO);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!stop_stats && (!o->count || seq < (unsigned long)o->count)) {
		__u64 ns = next.tv_nsec + (__u64)(o->interval * 1e9);

		next.tv_sec += ns / 1000000000ULL;
		next.tv_nsec = ns % 1000000000ULL;
		while (!stop_stats &&
		       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
				       NULL) == EINTR)
			;
		if (stop_stats)
			break;
		t = prev;
		prev = cur;
		cur = t;
		err = xn_stats_collect(&br, cur);
		if (err) {
			xn_stats_free(prev);
			return err;
		}
		show(o, prev, cur, ++seq, live);
		xn_stats_free(prev);
	}
	xn_stats_free(cur);
	return XN_OK;
}
