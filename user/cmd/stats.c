// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xdpnet stats BRIDGE [-i SEC] [-c N] [--json|--prom] [--latency]
 * [--reset]: samples (observe/stats_collect.c), rendered (render/). */
#include <stdio.h>
#include <unistd.h>
#include "xdpnet.h"
#include "lib/log.h"
#include "state/system.h"
#include "state/bridge.h"
#include "observe/stats_view.h"
#include "observe/stats_collect.h"
#include "render/stats.h"
#include "cmd/cmd.h"

struct shown {
	const struct xn_opts *o;
	int live; /* a terminal: each sample over the one before */
};

static void show(const struct xn_stats_sample *prev,
		 const struct xn_stats_sample *cur, unsigned long seq,
		 void *arg)
{
	const struct shown *sh = arg;
	const struct xn_opts *o = sh->o;
	struct xn_stats_view v;

	if (xn_stats_view(prev, cur, &v))
		return;
	if (o->json) {
		xn_stats_print_json(stdout, cur, &v, seq);
	} else {
		if (sh->live)
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
	struct shown sh = { .o = o };
	struct xn_stats_watch w = { .interval = o->interval,
				    .count = o->count,
				    .show = show,
				    .arg = &sh };
	struct xn_stats_sample s;
	struct xn_bridge br;
	int err;

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
				br.name);
			return 0;
		}
	}
	err = xn_stats_ready(&br);
	if (err)
		return err;
	if (o->prom) {
		err = xn_stats_collect(&br, &s);
		if (err)
			return err;
		xn_stats_print_prom(stdout, &s, 1,
				    o->lat_pairs ? XN_PROM_LAT_PAIRS : 0);
		xn_stats_free(&s);
		return fflush(stdout) ? -XN_FAILED : 0;
	}
	sh.live = o->interval && !o->json && isatty(STDOUT_FILENO);
	return xn_stats_watch(&br, &w);
}
