/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Whose is what is pinned under a bridge's name (pins are global, bridges
 * are per network namespace), and opening it: an attached bridge's state
 * is opened only when it is this namespace's and of a layout this build
 * reads.
 */
#ifndef XN_OWNER_H
#define XN_OWNER_H

#include "lib/log.h"
#include "xdpnet.h"
#include "state/pins.h"

/* What is pinned under a bridge's name, as attach, detach, latency and
 * stats must know it before they touch anything. */
enum xn_pinned {
	XN_PINNED_NONE,	    /* nothing */
	XN_PINNED_HALF,	    /* an attach that died before it wrote meta */
	XN_PINNED_OURS,	    /* this build's layout, this namespace's bridge */
	XN_PINNED_OTHER_NS, /* a bridge of that name in another namespace */
	XN_PINNED_LAYOUT,   /* another xdpnet version's layout */
	XN_PINNED_FOREIGN,  /* pins xdpnet does not make */
};
enum xn_pinned xn_pinned(const struct xn_bridge *bridge);
/* The one-line error for OTHER_NS, LAYOUT and FOREIGN; returns -XN_FAILED. */
int xn_pinned_refuse(const struct xn_bridge *bridge, enum xn_pinned p);

/* The meta of a pinned state: 0, -ENOENT (none, or never written),
 * -EPROTO (another layout: *abi says which, 1 for xdpnet 0.1). */
int xn_meta_read(const struct xn_bridge *bridge, struct xdpnet_meta *m,
		 __u32 *abi);

/*
 * Open an attached bridge's state. Returns 0, -XN_NOT_ATTACHED (nothing, or
 * not this namespace's bridge of that name), or -XN_FAILED after a one-line
 * error when the state is of another layout (an older xdpnet): the error
 * says what to do.
 */
int xn_state_open(struct xn_state *s, const struct xn_bridge *bridge);

#endif
