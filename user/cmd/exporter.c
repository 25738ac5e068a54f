// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdpnet exporter [BRIDGE] [--listen ADDR:PORT]: serves what "xdpnet stats
 * --prom" prints, fresh on every GET /metrics, with libmicrohttpd. Without
 * BRIDGE it exports every bridge of this network namespace, attached or
 * not (xdpnet_attached 0). It listens on 127.0.0.1:9435 unless told
 * otherwise.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "xdpnet.h"
#include "lib/log.h"
#include "state/system.h"
#include "state/bridge.h"
#include "lib/nl.h"
#include "lib/addr.h"
#include "lib/http.h"
#include "observe/stats_view.h"
#include "observe/stats_collect.h"
#include "render/stats.h"
#include "cmd/cmd.h"

#define MAX_BRIDGES 64

struct exporter {
	const struct xn_bridge *bridge; /* NULL: all of this namespace */
	unsigned int flags;		/* XN_PROM_* */
};

static int cmp_link(const void *a, const void *b)
{
	return strcmp(((const struct xn_link *)a)->name,
		      ((const struct xn_link *)b)->name);
}

/* The bridges to export: the one given, or every bridge of this
 * namespace (attached or not: xdpnet_attached says which), by name. */
static int bridges(const struct exporter *x, struct xn_bridge *br, int max)
{
	struct xn_link *l = NULL;
	int n = 0, nl = 0, i;

	if (x->bridge) {
		br[0] = *x->bridge;
		return 1;
	}
	if (xn_list_bridges(&l, &nl))
		return 0;
	qsort(l, nl, sizeof(*l), cmp_link);
	for (i = 0; i < nl && n < max; i++)
		if (!xn_bridge_of_link(&br[n], &l[i]))
			n++;
	free(l);
	return n;
}

/* A bridge of this namespace whose name another namespace's state uses:
 * exported as not attached, its pins left unread. */
static void other_ns_sample(const struct xn_bridge *br,
			    struct xn_stats_sample *s)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->bridge, sizeof(s->bridge), "%s", br->name);
}

/* The exposition, malloc'ed, or NULL (then *code says why): the page's
 * render function (lib/http.h). */
static char *render(void *arg, size_t *len, unsigned int *code)
{
	struct exporter *x = arg;
	struct xn_bridge *br = calloc(MAX_BRIDGES, sizeof(*br));
	struct xn_stats_sample *s = calloc(MAX_BRIDGES, sizeof(*s));
	char *buf = NULL;
	int n = 0, ok = 0, i;
	FILE *f;

	*code = 500;
	if (!br || !s)
		goto out;
	n = bridges(x, br, MAX_BRIDGES);
	for (i = 0; i < n; i++) {
		if (!xn_stats_pins_ours(&br[i]))
			other_ns_sample(&br[i], &s[ok++]);
		else if (!xn_stats_collect(&br[i], &s[ok]))
			ok++;
	}
	if (x->bridge && !ok) {
		*code = 503;
		goto out;
	}
	f = open_memstream(&buf, len);
	if (!f)
		goto out;
	xn_stats_print_prom(f, s, ok, x->flags);
	if (fclose(f)) {
		free(buf);
		buf = NULL;
		goto out;
	}
	*code = 200;
out:
	for (i = 0; s && i < ok; i++)
		xn_stats_free(&s[i]);
	free(s);
	free(br);
	return buf;
}

static volatile sig_atomic_t stop_exporter;

static void on_signal(int sig)
{
	(void)sig;
	stop_exporter = 1;
}

#define E struct xn_exporter_args

static const struct xn_opt opts[] = {
	XN_OPT("listen", XN_OPT_STRING, E, listen, .letter = 'L',
	       .arg = "ADDR:PORT",
	       .complete = XN_EXPORTER_DEFAULT " [::1]:9435",
	       .help = "ADDR:PORT or [ADDR6]:PORT (default " XN_EXPORTER_DEFAULT
		       ")"),
	XN_OPT("latency-pairs", XN_OPT_CONST, E, lat_pairs, .letter = 'P',
	       .val = 1, .help = "latency per port pair, not per port"),
	XN_OPT_END,
};

static int run(const void *opts)
{
	const E *o = opts;
	const char *listen = o->listen ? o->listen : XN_EXPORTER_DEFAULT;
	struct exporter x = {
		.flags = o->lat_pairs ? XN_PROM_LAT_PAIRS : 0,
	};
	const struct xn_http_page page = {
		.path = "/metrics",
		.type = "text/plain; version=0.0.4; charset=utf-8",
		.index = "xdpnet exporter: metrics at /metrics\n",
		.notfound = "not found; try /metrics\n",
		.fail = "cannot read xdpnet's counters\n",
		.render = render,
		.arg = &x,
	};
	struct sockaddr_storage ss;
	unsigned long scrapes;
	struct xn_http *h;
	struct xn_bridge br;
	socklen_t sl;
	sigset_t set, old;
	int err;

	if (xn_parse_listen(listen, &ss, &sl)) {
		xn_err("--listen takes ADDR:PORT or [ADDR6]:PORT, not '%s'",
		       listen);
		return -XN_BAD_INPUT;
	}
	if (o->c.bridge) {
		err = xn_cmd_bridge(&br, o->c.bridge, 1);
		if (err)
			return err;
		x.bridge = &br;
	}
	err = xn_prepare_for(XN_CAPS_READ, x.bridge);
	if (err)
		return err;
	/* Block the signals in the server's thread; this one waits for
	 * them. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	h = xn_http_start(&ss, &page, &err);
	if (!h) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		xn_err("cannot listen on %s: %s", listen,
		       err ? strerror(err)
			   : "the HTTP server did not start (-v says why)");
		return -XN_FAILED;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	xn_info("xdpnet: exporter listening on http://%s/metrics (%s)", listen,
		o->c.bridge ? o->c.bridge : "every bridge of this namespace");
	fflush(stdout);
	while (!stop_exporter)
		sigsuspend(&old);
	scrapes = xn_http_stop(h);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	xn_debug("served %lu scrapes", scrapes);
	return 0;
}

const struct xn_cmd_def xn_cmd_exporter = {
	.name = "exporter",
	.bridge = 2,
	.args = "[BRIDGE]",
	.help = "serve the counters to Prometheus",
	.opts = opts,
	.size = sizeof(E),
	.run = run,
	.linebuf = 1,
};
