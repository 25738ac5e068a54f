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

int xn_dump(const struct xn_opts *o)
{
	struct xn_dump_opts d = { .paths = o->paths, .stop = &stop_dump };
	struct xn_dump_writer *w = calloc(1, sizeof(*w));
	struct xn_link port, *ports = NULL;
	struct xn_bridge br;
	int err, i, np = 0, to_stdout;
	__u64 lost = 0;

	if (!w)
		return -XN_FAILED;
	err = xn_cmd_bridge(&br, o->bridge, 1);
	if (!err)
		err = xn_prepare_for(XN_CAPS_READ, &br);
	if (err)
		goto out;
	if (o->port) {
		if (xn_get_link(o->port, &port) ||
		    port.master != br.link.ifindex) {
			xn_err("%s is not a port of %s", o->port, o->bridge);
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
		       o->bridge);
		err = -XN_BAD_INPUT;
		goto out;
	}
	w->f = to_stdout ? stdout : fopen(o->write, "w");
	if (!w->f) {
		xn_err("cannot write %s: %s", o->write, strerror(errno));
		err = -XN_FAILED;
		goto out;
	}
	w->bridge = o->bridge;
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
			o->bridge, w->frames, w->written,
			(unsigned long long)lost);
out:
	if (w->f && w->f != stdout)
		fclose(w->f);
	free(w);
	return err;
}
