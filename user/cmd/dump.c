// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdpnet dump BRIDGE [--port PORT] [--path xdp|tc|bridge] [-c N]
 * [-s SNAPLEN] [-w FILE|-]: the frames xdpnet's datapath decides on
 * (observe/dump.c), as pcapng (render/dump.c).
 */
#include <errno.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "xdpnet.h"
#include "lib/log.h"
#include "lib/nl.h"
#include "lib/util.h"
#include "state/system.h"
#include "observe/dump.h"
#include "render/dump.h"
#include "cmd/cmd.h"

static volatile sig_atomic_t stop_dump;

static void on_signal(int sig)
{
	(void)sig;
	stop_dump = 1;
}

#define D struct xn_dump_args

/* "xdp,tc,bridge" into an enum xdpnet_dump_path mask (no empty word). */
static int paths(const struct xn_opt *p, const char *arg, void *opts, char *err,
		 size_t len)
{
	static const struct {
		const char *name;
		unsigned int bit;
	} names[] = { { "xdp", XDPNET_DUMP_XDP },
		      { "tc", XDPNET_DUMP_TC },
		      { "bridge", XDPNET_DUMP_BRIDGE } };
	unsigned int *mask = &((D *)opts)->paths, k;
	const char *w = arg;

	(void)p;
	*mask = 0;
	for (;;) {
		size_t n = strcspn(w, ",");

		for (k = 0; k < ARRAY_SIZE(names); k++)
			if (n == strlen(names[k].name) &&
			    !strncmp(w, names[k].name, n))
				break;
		if (k == ARRAY_SIZE(names)) {
			xn_usage_err(err, len,
				     "--path takes xdp, tc, bridge or a "
				     "comma-separated list of them, not '%s'",
				     arg);
			return -1;
		}
		*mask |= names[k].bit;
		if (!w[n])
			return 0;
		w += n + 1;
	}
}

static const struct xn_opt opts[] = {
	XN_OPT("port", XN_OPT_IFNAME, D, port, .arg = "PORT",
	       .help = "only frames from or to this port of BRIDGE"),
	XN_OPT("path", XN_OPT_FUNC, D, paths, .arg = "LIST", .parse = paths,
	       .complete = "xdp tc bridge",
	       .help = "only frames of these paths, comma-separated: "
		       "xdp,tc,bridge"),
	XN_OPT("count", XN_OPT_UINT, D, count, .letter = 'c', .arg = "N",
	       .min = 1, .max = 1000000000, .must = "a positive number",
	       .help = "stop after N frames"),
	XN_OPT("snaplen", XN_OPT_UINT, D, snaplen, .letter = 's', .arg = "LEN",
	       .min = 1, .max = XDPNET_DUMP_MAX,
	       .help = "bytes of each frame to keep, 1 to 2048 (default "
		       "2048)"),
	XN_OPT("write", XN_OPT_STRING, D, write, .letter = 'w', .arg = "FILE",
	       .flags = XN_OF_FILE,
	       .help = "the pcapng file (- : standard output, the default)"),
	XN_OPT_END,
};

static int run(const void *opts)
{
	const D *o = opts;
	struct xn_dump_opts d = { .paths = o->paths, .stop = &stop_dump };
	struct xn_dump_writer *w = calloc(1, sizeof(*w));
	struct xn_link port, *ports = NULL;
	struct xn_bridge br;
	int err, i, np = 0, to_stdout;
	__u64 lost = 0;

	if (!w)
		return -XN_FAILED;
	err = xn_cmd_bridge(&br, o->c.bridge, 1);
	if (!err)
		err = xn_prepare_for(XN_CAPS_READ, &br);
	if (err)
		goto out;
	if (o->port) {
		if (xn_get_link(o->port, &port) ||
		    port.master != br.link.ifindex) {
			xn_err("%s is not a port of %s", o->port, br.name);
			err = -XN_BAD_INPUT;
			goto out;
		}
		d.ifindex = w->port = port.ifindex;
	}
	err = xn_dump_ready(&br);
	if (err)
		goto out;
	to_stdout = !o->write || !strcmp(o->write, "-");
	if (to_stdout && isatty(STDOUT_FILENO)) {
		xn_err("dump writes pcapng: give -w FILE, or pipe it (xdpnet "
		       "dump %s | tcpdump -r -)",
		       br.name);
		err = -XN_BAD_INPUT;
		goto out;
	}
	w->f = to_stdout ? stdout : fopen(o->write, "w");
	if (!w->f) {
		xn_err("cannot write %s: %s", o->write, strerror(errno));
		err = -XN_FAILED;
		goto out;
	}
	w->bridge = br.name;
	w->snaplen = d.snaplen = o->snaplen ? o->snaplen : XDPNET_DUMP_MAX;
	w->count = o->count;
	w->flush = to_stdout;
	xn_dump_start(w);
	/* Every port's interface up front; newcomers as they show up. */
	if (!xn_list_ports(br.link.ifindex, &ports, &np))
		for (i = 0; i < np; i++)
			if (!w->port || ports[i].ifindex == w->port)
				xn_dump_port(w, ports[i].ifindex);
	free(ports);
	fflush(w->f);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, on_signal);
	err = xn_dump_run(&br, &d, xn_dump_frame, w, &lost);
	xn_dump_end(w, lost);
	if ((fflush(w->f) || w->failed) && !err) {
		xn_err("cannot write %s: %s",
		       to_stdout ? "the output" : o->write,
		       strerror(errno ?: EIO));
		err = -XN_FAILED;
	}
	if (!err)
		fprintf(stderr,
			"xdpnet: dump of %s: %lu frames, %lu records written, "
			"%llu records lost to a full ring\n",
			br.name, w->frames, w->written,
			(unsigned long long)lost);
out:
	if (w->f && w->f != stdout)
		fclose(w->f);
	free(w);
	return err;
}

const struct xn_cmd_def xn_cmd_dump = {
	.name = "dump",
	.bridge = 1,
	.args = "BRIDGE",
	.help = "the frames the datapath decides on, as pcapng",
	.opts = opts,
	.size = sizeof(D),
	.run = run,
};
