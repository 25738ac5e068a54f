// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdpnet exporter [BRIDGE] [--listen ADDR:PORT]: serves what "xdpnet stats
 * --prom" prints, fresh on every GET /metrics, with libmicrohttpd. Without
 * BRIDGE it exports every bridge of this network namespace that xdpnet
 * holds state for (attached, or with the latency probe). It listens on
 * 127.0.0.1:9435 unless told otherwise.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <microhttpd.h>
#include "xdpnet.h"
#include "lib/exit.h"
#include "lib/log.h"
#include "core/paths.h"
#include "core/system.h"
#include "core/bridge.h"
#include "lib/nl.h"
#include "lib/addr.h"
#include "core/stats_view.h"
#include "core/stats_collect.h"
#include "out/stats.h"
#include "cmd/cmd.h"

#define MAX_BRIDGES 64

struct exporter {
	const char *bridge; /* NULL: all of this namespace */
	unsigned long scrapes;
};

/* The bridges to export: names under the pin root that are bridges of
 * this namespace whose pins are ours. */
static int list_bridges(char names[][IF_NAMESIZE], int max)
{
	char(*dirs)[IF_NAMESIZE];
	int n = 0, nd, i;

	if (xn_pin_dirs(&dirs, &nd))
		return 0;
	for (i = 0; i < nd && n < max; i++) {
		struct xn_link l;

		if (xn_get_link(dirs[i], &l) || strcmp(l.kind, "bridge") ||
		    !xn_stats_pins_ours(dirs[i]))
			continue;
		memcpy(names[n++], dirs[i], IF_NAMESIZE);
	}
	free(dirs);
	return n;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* The exposition, malloc'ed, or NULL (then *code says why). */
static char *render(struct exporter *x, size_t *len, unsigned int *code)
{
	char(*names)[IF_NAMESIZE] = calloc(MAX_BRIDGES, IF_NAMESIZE);
	struct xn_stats_sample *s = calloc(MAX_BRIDGES, sizeof(*s));
	char *buf = NULL;
	int n = 0, ok = 0, i;
	FILE *f;

	*code = MHD_HTTP_INTERNAL_SERVER_ERROR;
	if (!names || !s)
		goto out;
	if (x->bridge) {
		snprintf(names[0], IF_NAMESIZE, "%s", x->bridge);
		n = 1;
	} else {
		n = list_bridges(names, MAX_BRIDGES);
		qsort(names, n, IF_NAMESIZE, cmp_name);
	}
	for (i = 0; i < n; i++)
		if (!xn_stats_collect(names[i], &s[ok]))
			ok++;
	if (x->bridge && !ok) {
		*code = MHD_HTTP_SERVICE_UNAVAILABLE;
		goto out;
	}
	f = open_memstream(&buf, len);
	if (!f)
		goto out;
	xn_stats_print_prom(f, s, ok);
	if (fclose(f)) {
		free(buf);
		buf = NULL;
		goto out;
	}
	*code = MHD_HTTP_OK;
out:
	for (i = 0; s && i < ok; i++)
		xn_stats_free(&s[i]);
	free(s);
	free(names);
	return buf;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int code,
			     const char *type, char *body, size_t len,
			     enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, body, mode);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *upload,
			      size_t *upload_len, void **state)
{
	static const char index[] = "xdpnet exporter: metrics at /metrics\n";
	static const char notfound[] = "not found; try /metrics\n";
	static const char badmethod[] = "only GET and HEAD\n";
	static const char failed[] = "cannot read xdpnet's counters\n";
	struct exporter *x = cls;
	unsigned int code;
	size_t len = 0;
	char *body;

	(void)version;
	(void)upload;
	(void)upload_len;
	(void)state;
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain",
			     (char *)badmethod, sizeof(badmethod) - 1,
			     MHD_RESPMEM_PERSISTENT);
	if (!strcmp(url, "/"))
		return reply(c, MHD_HTTP_OK, "text/plain", (char *)index,
			     sizeof(index) - 1, MHD_RESPMEM_PERSISTENT);
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND, "text/plain",
			     (char *)notfound, sizeof(notfound) - 1,
			     MHD_RESPMEM_PERSISTENT);
	x->scrapes++;
	body = render(x, &len, &code);
	if (!body)
		return reply(c, code, "text/plain", (char *)failed,
			     sizeof(failed) - 1, MHD_RESPMEM_PERSISTENT);
	return reply(c, code, "text/plain; version=0.0.4; charset=utf-8", body,
		     len, MHD_RESPMEM_MUST_FREE);
}

static volatile sig_atomic_t stop_exporter;

static void on_signal(int sig)
{
	(void)sig;
	stop_exporter = 1;
}

int xn_exporter(const struct xn_opts *o)
{
	const char *listen = o->listen ? o->listen : XN_EXPORTER_DEFAULT;
	struct exporter x = { .bridge = o->bridge };
	struct sockaddr_storage ss;
	struct MHD_Daemon *d;
	struct xn_link br;
	unsigned int flags;
	socklen_t sl;
	sigset_t set, old;
	int err;

	if (xn_parse_listen(listen, &ss, &sl)) {
		xn_err("--listen takes ADDR:PORT or [ADDR6]:PORT, not '%s'",
		       listen);
		return XN_EUSAGE;
	}
	err = xn_require_root(XN_CAPS_READ);
	if (err)
		return err;
	if (o->bridge) {
		err = xn_find_bridge(o->bridge, &br);
		if (err)
			return err;
	}
	err = xn_ensure_bpffs();
	if (err)
		return err;
	flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	/* Block the signals in the server's thread; this one waits for
	 * them. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	d = MHD_start_daemon(flags, 0, NULL, NULL, handle, &x,
			     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)10,
			     MHD_OPTION_END);
	if (!d) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		xn_err("cannot listen on %s (address in use, or not on this "
		       "host)",
		       listen);
		return XN_ERR;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	xn_info("xdpnet: exporter listening on http://%s/metrics (%s)", listen,
		o->bridge ? o->bridge : "every bridge xdpnet knows");
	fflush(stdout);
	while (!stop_exporter)
		sigsuspend(&old);
	MHD_stop_daemon(d);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	xn_debug("served %lu scrapes", x.scrapes);
	return XN_OK;
}
