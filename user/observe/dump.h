/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The frame dump's core: switches the datapath's copy of the frames it
 * decides on (bpf/xdpnet_dump.h) on for one reader at a time, hands each
 * record to a callback, and switches it off again. Output is the caller's
 * (render/pcapng.c).
 */
#ifndef XN_DUMP_H
#define XN_DUMP_H

#include <signal.h>
#include <linux/types.h>
#include "lib/log.h"
#include "xdpnet.h"
#include "state/bridge.h"

struct xn_dump_opts {
	__u32 ifindex; /* only frames from or to this port; 0: all */
	__u32 paths;   /* enum xdpnet_dump_path mask; 0: all */
	__u32 snaplen; /* 1 .. XDPNET_DUMP_MAX */
	const volatile sig_atomic_t *stop; /* set by a signal: stop */
};

/* A record: its wall-clock time (ns since the epoch) and the frame's first
 * r->caplen bytes. A non-zero return stops the dump. */
typedef int (*xn_dump_cb)(const struct xdpnet_dump_rec *r, __u64 wall_ns,
			  const void *data, void *arg);

/* Can bridge be dumped (attached, by a build with the dump)? 0, or
 * -errno (lib/log.h) after a one-line error. */
int xn_dump_ready(const struct xn_bridge *bridge);

/* Dump bridge's frames until cb or o->stop says stop. *lost: records the
 * ring had no room for meanwhile. 0 or -errno (lib/log.h), after a
 * one-line error. */
int xn_dump_run(const struct xn_bridge *bridge, const struct xn_dump_opts *o,
		xn_dump_cb cb, void *arg, __u64 *lost);

/* The follower's safeguard: a dump's switch left on by a reader that died
 * (kill -9) is turned off. fd: the pinned "dump" map (-1: none). */
void xn_dump_orphan_off(const struct xn_bridge *bridge, int fd);

#endif
