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

#define S struct xn_stats_args

struct shown {
	const S *o;
	int live; /* a terminal: each sample over the one before */
};

static void show(const struct xn_stats_sample *prev,
		 const struct xn_stats_sample *cur, unsigned long seq,
		 void *arg)
{
	const struct shown *sh = arg;
	const S *o = sh->o;
	struct xn_stats_view v;

	if (xn_stats_view(prev, cur, &v))
		return;
	if (o->c.json) {
		xn_stats_print_json(stdout, cur, &v, seq);
	} else {
		if (sh->live)
			fputs("\033[H\033[2J", stdout);
		else if (seq > 1)
			fputc('\n', stdout);
		xn_stats_print_table(stdout, cur, &v, o->latency, o->c.verbose);
	}
	fflush(stdout);
	xn_stats_view_free(&v);
}

static const struct xn_opt opts[] = {
	XN_OPT("interval", XN_OPT_SECONDS, S, interval, .letter = 'i',
	       .arg = "SEC", .dmin = 0.1, .dmax = 86400,
	       .must = "0.1 to 86400 seconds",
	       .help = "sample every SEC seconds (0.1 to 86400), show rates"),
	XN_OPT("count", XN_OPT_UINT, S, count, .letter = 'c', .arg = "N",
	       .min = 1, .max = 1000000000, .must = "a positive number",
	       .help = "stop after N intervals (alone: every second)"),
	XN_JSON_OPTS,
	XN_OPT("prom", XN_OPT_CONST, S, prom, .val = 1,
	       .help = "Prometheus text format (node_exporter textfile)"),
	XN_OPT("latency-pairs", XN_OPT_CONST, S, lat_pairs, .letter = 'P',
	       .val = 1, .help = "--prom: latency per port pair, not per port"),
	XN_OPT("latency", XN_OPT_CONST, S, latency, .letter = 'l', .val = 1,
	       .help = "forwarding-latency histograms per port pair and path"),
	XN_OPT("reset", XN_OPT_CONST, S, reset, .letter = 'r', .val = 1,
	       .help = "zero xdpnet's counters and histograms first"),
	XN_OPT_END,
};

static int check(void *opts, unsigned long long given, char *err, size_t len)
{
	S *o = opts;

	(void)given;
	if (o->c.json && o->prom)
		return xn_usage_err(err, len, "%s",
				    o->c.pretty ? "--pretty and --prom exclude "
						  "each other"
						: "--json and --prom exclude "
						  "each other");
	if (o->prom && (o->interval || o->count))
		return xn_usage_err(err, len, "%s",
				    "--prom writes one snapshot; it takes no "
				    "--interval or --count");
	if (o->lat_pairs && !o->prom)
		return xn_usage_err(err, len, "%s",
				    "--latency-pairs shapes --prom's output; "
				    "give --prom too");
	if (o->count && !o->interval)
		o->interval = 1;
	o->c.linebuf = o->interval > 0;
	return 0;
}

static int run(const void *opts)
{
	const S *o = opts;
	struct shown sh = { .o = o };
	struct xn_stats_watch w = { .interval = o->interval,
				    .count = o->count,
				    .show = show,
				    .arg = &sh };
	struct xn_stats_sample s;
	struct xn_bridge br;
	int err;

	err = xn_cmd_bridge(&br, o->c.bridge, 1);
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
		if (!o->interval && !o->c.json && !o->prom && !o->latency) {
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
	sh.live = o->interval && !o->c.json && isatty(STDOUT_FILENO);
	return xn_stats_watch(&br, &w);
}

const struct xn_cmd_def xn_cmd_stats = {
	.name = "stats",
	.bridge = 1,
	.args = "BRIDGE",
	.help = "rates and counters by port and path, latency",
	.opts = opts,
	.size = sizeof(S),
	.check = check,
	.run = run,
};
