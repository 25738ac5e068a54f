/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The XDP stage through libxdp's dispatcher (xdp-tools' multi-program
 * XDP), where the kernel runs it: xdpnet's XDP program joins the
 * dispatcher on a port, or creates one, at run priority
 * XDPNET_XDP_RUN_PRIO (after the others), and whatever else is in it
 * keeps running. The program in a dispatcher is an extension
 * (freplace) of it, loaded once per bridge and build from the bridge's
 * pinned maps, pinned as XN_PIN_XDP_MULTI (datapath/load.c removes that pin
 * with every load: the next xn_mp_attach loads the new build's, and takes
 * the old one out of each dispatcher after it). Where the kernel has no BPF
 * trampolines, datapath/hooks.c keeps its direct XDP link.
 */
#ifndef XN_MULTIPROG_H
#define XN_MULTIPROG_H

#include <linux/types.h>
#include "state/pins.h"

/* 1 when this kernel runs libxdp's dispatcher; 0, with why saying why
 * not (a probe, once per process). */
int xn_mp_available(const char **why);

/* The id of the bridge's pinned dispatcher program, 0 when none. */
__u32 xn_mp_prog_id(const struct xn_bridge *bridge);

/* What holds XDP on a port, seen by libxdp. */
enum xn_mp_seen {
	XN_MP_NONE,   /* nothing, or what libxdp cannot read */
	XN_MP_LEGACY, /* one program without a dispatcher */
	XN_MP_OURS,   /* a dispatcher running this build's program */
	XN_MP_OTHERS, /* a dispatcher without it */
};
enum xn_mp_seen xn_mp_seen(struct xn_state *s, __u32 ifindex);

/* Our program into the port's dispatcher (created if there is none),
 * then any other xdpnet program out of it (an upgrade: the new one runs
 * before the old goes). 0 or -errno. */
int xn_mp_attach(struct xn_state *s, __u32 ifindex);

/* Every xdpnet program out of the port's dispatcher (the others stay;
 * the dispatcher goes with the last one). */
void xn_mp_detach(__u32 ifindex);

/*
 * Remove libxdp's pins of dispatchers whose device is gone but that hold
 * the bridge's program: a tap deleted in a dispatcher (a VM stopped)
 * leaves XN_LIBXDP_DIR/dispatch-IFINDEX-ID behind, and the dispatcher, our
 * program and every map it uses loaded with it, for good. Only those
 * holding our program: it runs only on this namespace's ports, so a
 * directory of another namespace's device (libxdp names them by ifindex
 * alone) is never touched. Under libxdp's lock.
 */
void xn_mp_sweep(const struct xn_bridge *bridge);

#endif
