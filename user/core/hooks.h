/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Hooking the datapath onto a port: the TC stage (a pinned tcx link, or a
 * clsact filter where the kernel has no tcx) and the XDP stage (a pinned
 * XDP link, native mode, never over somebody else's program). Every
 * function is idempotent and converges: it checks what is there and does
 * only what is missing, so a run killed half-way is finished by the next.
 */
#ifndef XN_HOOKS_H
#define XN_HOOKS_H

#include "xdpnet.h"
#include "lib/nl.h"
#include "core/pins.h"

/* TC stage present and running the state's current program? Hooks it
 * (or moves it to the current program) otherwise. Fills port->hook and
 * XDPNET_PORT_OWN_CLSACT. 0 or -errno. */
int xn_hook_tc(struct xn_state *s, struct xdpnet_port *port);
void xn_unhook_tc(struct xn_state *s, const struct xdpnet_port *port);

/* Native XDP on a tap (never on veths: it would strip the peer's GSO).
 * Sets XDPNET_PORT_XDP, or port->tc_reason saying why not. */
void xn_hook_xdp(struct xn_state *s, const struct xn_link *l,
		 struct xdpnet_port *port);
void xn_unhook_xdp(struct xn_state *s, __u32 ifindex);

/* Program id behind a pinned link (tc_IFINDEX, xdp_IFINDEX), 0 if none. */
__u32 xn_link_prog_id(const char *bridge, const char *leaf);
__u32 xn_prog_id(int prog_fd);

/* Detach every hook a pinned state has (XDP first, then TC). */
void xn_unhook_all(struct xn_state *s);

#endif
