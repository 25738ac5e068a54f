// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdpnet trace BRIDGE --in PORT (--src MAC --dst MAC [...] | --pcap FILE)
 * [--json]: what the datapath would do with that frame arriving on PORT,
 * stage by stage, and why (observe/trace.c), printed by render/trace.c. Nothing
 * the datapath keeps changes.
 */
#include <stdio.h>
#include "lib/frame.h"
#include "lib/log.h"
#include "lib/nl.h"
#include "lib/pcap_read.h"
#include "state/system.h"
#include "observe/trace.h"
#include "render/trace.h"
#include "cmd/cmd.h"

int xn_trace(const struct xn_opts *o)
{
	static __u8 buf[XN_TRACE_MAX_FRAME];
	struct xn_pcap_frame pf = { .buf = buf, .cap = sizeof(buf) };
	struct xn_trace t = { .frame = buf };
	struct xn_bridge br;
	struct xn_link port;
	const char *in = o->in;
	int err;

	err = xn_cmd_bridge(&br, o->bridge, 1);
	if (!err)
		err = xn_prepare_for(XN_CAPS_ADMIN, &br);
	if (err)
		return err;
	if (o->pcap) {
		if (xn_pcap_read(o->pcap, o->frame_no, &pf))
			return -XN_BAD_INPUT;
		t.len = pf.len;
		/* A frame that left a port: where it came in, if the
		 * capture says (xdpnet dump's comment). */
		if (!in && pf.outbound && pf.from[0])
			in = pf.from;
		if (!in && (!pf.ifname[0] || pf.outbound)) {
			xn_err("%s: the capture does not say which port frame "
			       "%lu arrived on; give --in PORT",
			       o->pcap, o->frame_no);
			return -XN_BAD_INPUT;
		}
		if (!in)
			in = pf.ifname;
	} else {
		t.len = xn_frame_build(&o->frame, buf, sizeof(buf));
		if (!t.len) {
			xn_err("the frame does not fit in %zu bytes",
			       sizeof(buf));
			return -XN_BAD_INPUT;
		}
	}
	if (xn_get_link(in, &port) || port.master != br.link.ifindex) {
		xn_err("%s is not a port of %s", in, o->bridge);
		return -XN_BAD_INPUT;
	}
	t.ifindex = port.ifindex;
	err = xn_trace_run(&br, &t);
	if (err)
		return err;
	xn_trace_print(stdout, o->bridge, in, &t, o->json);
	return 0;
}
