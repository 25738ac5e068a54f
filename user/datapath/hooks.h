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
#include "state/pins.h"

/* TC stage present and running the state's current program? Hooks it
 * (or moves it to the current program) otherwise. Fills port->hook and
 * XDPNET_PORT_OWN_CLSACT. 0 or -errno. */
int xn_hook_tc(struct xn_state *s, struct xdpnet_port *port);

/* Which TC hook a new port gets: XDPNET_HOOK_TCX, or XDPNET_HOOK_CLSACT
 * when env (XDPNET_TC_HOOK: tests) says "clsact" (xn_hook_tc falls back to
 * clsact where the kernel has no tcx). */
int xn_tc_hook_kind(const char *env);

/* Native XDP on a tap (never on veths: it would strip the peer's GSO):
 * in libxdp's dispatcher where the kernel runs it (datapath/multiprog.h),
 * else a direct XDP link. Sets XDPNET_PORT_XDP (and XDPNET_PORT_XDP_MULTI),
 * or port->tc_reason saying why not. */
void xn_hook_xdp(struct xn_state *s, const struct xn_link *l,
		 struct xdpnet_port *port);

/* What xn_hook_xdp sees on a port. */
struct xn_xdp_seen {
	__u32 flags;  /* the port's (XDPNET_PORT_VETH) */
	__u32 xdp_id; /* the program XDP runs there (a dispatcher's), 0 */
	int link;     /* our direct link: 1 runs the current program, 0 none,
			 -errno unknown */
	int tcx;      /* other programs on the port's tcx ingress */
	int mp;	      /* enum xn_mp_seen: what libxdp sees there */
	int mp_ok;    /* the kernel runs libxdp's dispatcher */
};
enum xn_xdp_choice {
	XN_XDP_VETH,	/* none on a veth (ours goes) */
	XN_XDP_OURS,	/* our direct link is in place */
	XN_XDP_FOREIGN, /* another program holds XDP: leave it the port */
	XN_XDP_TCX,	/* tcx programs an XDP redirect would skip: ours goes */
	XN_XDP_NEW,	/* hook ours with a direct link */
	XN_XDP_FAILED,	/* ours could not be checked: the TC stage only */
	XN_XDP_MP_OURS, /* ours runs in the port's dispatcher */
	XN_XDP_MP_JOIN, /* join the port's dispatcher, or create one */
};
enum xn_xdp_choice xn_xdp_choose(const struct xn_xdp_seen *w);

/* One unhook per hook kind. tcx and XDP: the pinned link tc_IFINDEX or
 * xdp_IFINDEX goes (detached even if somebody holds it); XDP: xdpnet's
 * programs leave the port's dispatcher too. clsact: xdpnet's
 * filter (of any version: its handle and priority never changed), and
 * with destroy the clsact qdisc too (when xdpnet created it). */
void xn_unhook_tcx(struct xn_state *s, __u32 ifindex);
void xn_unhook_xdp(struct xn_state *s, __u32 ifindex);
void xn_unhook_clsact(__u32 ifindex, int destroy);
/* The TC stage of a port, whichever kind port->hook says. */
void xn_unhook_tc(struct xn_state *s, const struct xdpnet_port *port);
/* xdpnet's clsact filter on every port of a bridge (detach: also where
 * another version's state left them). */
void xn_unhook_clsact_ports(__u32 bridge_ifindex);

/* Program id behind a pinned link (tc_IFINDEX, xdp_IFINDEX), 0 if none. */
__u32 xn_link_prog_id(const struct xn_bridge *bridge, const char *leaf);
__u32 xn_prog_id(int prog_fd);

/* The tcx chains (both sides) of every port, hashed: tcx raises no
 * notification, so the follower polls this (a few syscalls a port) and
 * resyncs when it changes. */
__u64 xn_tcx_fingerprint(struct xn_state *s);

/* Detach every hook a pinned state has (XDP first, then TC). */
void xn_unhook_all(struct xn_state *s);

#endif
