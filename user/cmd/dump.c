// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdpnet dump BRIDGE [--port PORT] [--path xdp|tc|bridge] [-c N]
 * [-s SNAPLEN] [-w FILE|-]: the frames xdpnet's datapath decides on
 * (observe/dump.c), as pcapng (render/pcapng.c): one interface per port; each
 * frame once, inbound on the port it arrived on, or outbound on the port
 * it was redirected to when --port names that one; a comment with its
 * path and verdict.
 */
#include <errno.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "xdpnet.h"
#include "lib/exit.h"
#include "lib/log.h"
#include "lib/nl.h"
#include "lib/util.h"
#include "state/system.h"
#include "datapath/names.h"
#include "observe/dump.h"
#include "render/pcapng.h"
#include "cmd/cmd.h"

#define MAX_IFS 1024

struct writer {
	FILE *f;
	const char *bridge;
	__u32 port; /* --port's ifindex, 0: all */
	__u32 snaplen;
	int count; /* stop after this many frames, 0: never */
	int flush; /* a pipe or a terminal: write each frame out */
	unsigned long frames, written;
	__u64 last_ns;
	int nifs;
	__u32 ifindex[MAX_IFS]; /* interface id -> ifindex */
	int failed;
};

static volatile sig_atomic_t stop_dump;

static void on_signal(int sig)
{
	(void)sig;
	stop_dump = 1;
}

/* The pcapng interface of a port: added when first seen. -1: none. */
static int ifid(struct writer *w, __u32 ifindex)
{
	char name[24] = "", descr[64];
	int i;

	for (i = 0; i < w->nifs; i++)
		if (w->ifindex[i] == ifindex)
			return i;
	if (w->nifs == MAX_IFS)
		return -1;
	if (!if_indextoname(ifindex, name))
		snprintf(name, sizeof(name), "ifindex%u", ifindex);
	snprintf(descr, sizeof(descr), "port of %s (ifindex %u)", w->bridge,
		 ifindex);
	if (xn_pcapng_interface(w->f, name, descr, w->snaplen))
		w->failed = 1;
	w->ifindex[w->nifs] = ifindex;
	return w->nifs++;
}

static const char *path_of(__u32 verdict)
{
	return verdict == XDPNET_C_XDP_REDIRECT	 ? "xdp"
	       : verdict == XDPNET_C_TC_REDIRECT ? "tc"
						 : "bridge";
}

static void put(struct writer *w, __u32 ifindex, __u32 peer,
		const struct xdpnet_dump_rec *r, __u64 ns, const void *data,
		enum xn_pcapng_dir dir)
{
	char comment[160], pn[24] = "";
	int id = ifid(w, ifindex);

	if (id < 0)
		return;
	if (peer && !if_indextoname(peer, pn))
		snprintf(pn, sizeof(pn), "ifindex%u", peer);
	snprintf(comment, sizeof(comment),
		 "xdpnet path=%s verdict=%s stage=%s%s%s", path_of(r->verdict),
		 xn_ctr_name(r->verdict),
		 r->stage == XDPNET_STAGE_XDP ? "xdp" : "tc",
		 peer ? (dir == XN_PCAPNG_IN ? " to=" : " from=") : "", pn);
	if (xn_pcapng_packet(w->f, (__u32)id, ns, data, r->caplen, r->len, dir,
			     comment))
		w->failed = 1;
	w->written++;
}

static int on_frame(const struct xdpnet_dump_rec *r, __u64 ns, const void *data,
		    void *arg)
{
	struct writer *w = arg;

	/* Once, as tcpdump on that port would see it: two copies of one
	 * frame would look like two frames to tcpdump, which ignores the
	 * pcapng direction. */
	if (w->port && r->target == w->port)
		put(w, r->target, r->ifindex, r, ns, data, XN_PCAPNG_OUT);
	else if (!w->port || w->port == r->ifindex)
		put(w, r->ifindex, r->target, r, ns, data, XN_PCAPNG_IN);
	w->frames++;
	w->last_ns = ns;
	if (w->flush)
		fflush(w->f);
	return w->failed || (w->count && w->frames >= (unsigned long)w->count);
}

int xn_dump(const struct xn_opts *o)
{
	struct xn_dump_opts d = { .paths = o->paths, .stop = &stop_dump };
	struct writer *w = calloc(1, sizeof(*w));
	struct xn_link port, *ports = NULL;
	struct xn_bridge br;
	int err, i, np = 0, to_stdout;
	__u64 lost = 0;

	if (!w)
		return XN_ERR;
	err = xn_cmd_bridge(&br, o->bridge, 1);
	if (!err)
		err = xn_prepare_for(XN_CAPS_READ, &br);
	if (err)
		goto out;
	if (o->port) {
		if (xn_get_link(o->port, &port) ||
		    port.master != br.link.ifindex) {
			xn_err("%s is not a port of %s", o->port, o->bridge);
			err = XN_EUSAGE;
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
		err = XN_EUSAGE;
		goto out;
	}
	w->f = to_stdout ? stdout : fopen(o->write, "w");
	if (!w->f) {
		xn_err("cannot write %s: %s", o->write, strerror(errno));
		err = XN_ERR;
		goto out;
	}
	w->bridge = o->bridge;
	w->snaplen = d.snaplen = o->snaplen ? o->snaplen : XDPNET_DUMP_MAX;
	w->count = o->count;
	w->flush = to_stdout;
	if (xn_pcapng_header(w->f, "xdpnet " XDPNET_VERSION_STR " dump"))
		w->failed = 1;
	/* Every port's interface up front; newcomers as they show up. */
	if (!xn_list_ports(br.link.ifindex, &ports, &np))
		for (i = 0; i < np; i++)
			if (!w->port || ports[i].ifindex == w->port)
				ifid(w, ports[i].ifindex);
	free(ports);
	fflush(w->f);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, on_signal);
	err = xn_dump_run(&br, &d, on_frame, w, &lost);
	if (w->nifs && xn_pcapng_stats(w->f, 0, xn_real_ns(), w->frames, lost))
		w->failed = 1;
	if ((fflush(w->f) || w->failed) && !err) {
		xn_err("cannot write %s: %s",
		       to_stdout ? "the output" : o->write,
		       strerror(errno ?: EIO));
		err = XN_ERR;
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
