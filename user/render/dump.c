// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xdpnet dump's output: see dump.h. */
#include <net/if.h>
#include <stdio.h>
#include "xdpnet.h"
#include "lib/util.h"
#include "datapath/names.h"
#include "render/pcapng.h"
#include "render/dump.h"

void xn_dump_start(struct xn_dump_writer *w)
{
	if (xn_pcapng_header(w->f, "xdpnet " XDPNET_VERSION_STR " dump"))
		w->failed = 1;
}

int xn_dump_port(struct xn_dump_writer *w, __u32 ifindex)
{
	char name[24] = "", descr[64];
	int i;

	for (i = 0; i < w->nifs; i++)
		if (w->ifindex[i] == ifindex)
			return i;
	if (w->nifs == XN_DUMP_MAX_IFS)
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

static void put(struct xn_dump_writer *w, __u32 ifindex, __u32 peer,
		const struct xdpnet_dump_rec *r, __u64 ns, const void *data,
		enum xn_pcapng_dir dir)
{
	char comment[160], pn[24] = "";
	int id = xn_dump_port(w, ifindex);

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

int xn_dump_frame(const struct xdpnet_dump_rec *r, __u64 ns, const void *data,
		  void *arg)
{
	struct xn_dump_writer *w = arg;

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

void xn_dump_end(struct xn_dump_writer *w, __u64 lost)
{
	if (w->nifs && xn_pcapng_stats(w->f, 0, xn_real_ns(), w->frames, lost))
		w->failed = 1;
}
