/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xdpnet trace's core: one frame through a bridge's stages as a real frame
 * arriving on a port would go, by BPF_PROG_TEST_RUN of the stages' trace
 * variants (bpf/xdpnet_trace.h) on the live pinned maps: the XDP stage
 * where the port runs it, then, unless it redirected, the TC stage.
 * Nothing the datapath keeps changes. Output is the caller's (render/trace.c).
 */
#ifndef XN_TRACE_H
#define XN_TRACE_H

#include <stddef.h>
#include <linux/types.h>
#include "xdpnet.h"
#include "state/bridge.h"

/* BPF_PROG_TEST_RUN takes frames up to a page less the room around it. */
#define XN_TRACE_MAX_FRAME 3500

struct xn_trace_stage {
	int ran;
	int multi; /* XDP: the program of libxdp's dispatcher */
	__u32 retval;
	struct xdpnet_trace_rec rec;
};

struct xn_trace {
	/* in */
	__u32 ifindex; /* the port the frame arrives on */
	const __u8 *frame;
	size_t len;
	/* out */
	int live; /* the live datapath (reads port state from the kernel) */
	struct xdpnet_cfg cfg;
	struct xdpnet_port in;	/* its entry; .ifindex 0: not carried */
	struct xdpnet_port dst; /* the destination's port's, when carried */
	struct xn_trace_stage xdp, tc;
};

/* Trace t's frame on bridge. 0 or -errno (lib/log.h), after a one-line error.
 */
int xn_trace_run(const struct xn_bridge *bridge, struct xn_trace *t);

#endif
