/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xdpnet dump's output: the frames of observe/dump.c as pcapng
 * (render/pcapng.c): one interface per port; each frame once, inbound on
 * the port it arrived on, or outbound on the port it was redirected to
 * when the dump is of that port; a comment with its path and verdict.
 */
#ifndef XN_RENDER_DUMP_H
#define XN_RENDER_DUMP_H

#include <stdio.h>
#include <linux/types.h>
#include "xdpnet.h"

#define XN_DUMP_MAX_IFS 1024

struct xn_dump_writer {
	/* in */
	FILE *f;
	const char *bridge;
	__u32 port; /* the port dumped (its ifindex), 0: all */
	__u32 snaplen;
	int count; /* stop after this many frames, 0: never */
	int flush; /* a pipe or a terminal: write each frame out */
	/* out */
	unsigned long frames, written;
	__u64 last_ns;
	int failed; /* a write failed */
	int nifs;
	__u32 ifindex[XN_DUMP_MAX_IFS]; /* interface id -> ifindex */
};

/* The section header. */
void xn_dump_start(struct xn_dump_writer *w);
/* The interface of a port, added when first seen: its id, or -1. */
int xn_dump_port(struct xn_dump_writer *w, __u32 ifindex);
/* A record (observe/dump.h's callback): 1 when the dump is to stop. */
int xn_dump_frame(const struct xdpnet_dump_rec *r, __u64 ns, const void *data,
		  void *arg);
/* The statistics block (lost: records the ring had no room for). */
void xn_dump_end(struct xn_dump_writer *w, __u64 lost);

#endif
