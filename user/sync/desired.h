/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the datapath should hold for a bridge: the entry of each port, the
 * bridge settings, from the bridge model (netlink's view, lib/nl.h) and
 * what user space adds (struct xn_policy). Pure functions: no system
 * calls. Making the maps hold it is sync/reconcile.c's.
 */
#ifndef XN_DESIRED_H
#define XN_DESIRED_H

#include "xdpnet.h"
#include "lib/nl.h"

struct xn_filt_report;

/* What user space adds to the bridge's own view. */
struct xn_policy {
	/* Bypass nothing (enum xdpnet_bridge_hold: filters apply between
	 * ports, or could not be read, and attach was not given
	 * --bypass-filters). */
	int bridge_hold;
	/* Ports under per-port filters (nwfilter, ebtables, ...). */
	const __u32 *filtered;
	int nfiltered;
	/* Ports with tc filters or actions on their ingress. */
	const __u32 *tc_in;
	int ntc_in;
	/* Ports whose egress has tc of its own (a qdisc, filters): no XDP
	 * redirect into them. */
	const __u32 *no_xdp;
	int nno_xdp;
	/* br_netfilter's own checks that bridged frames get (enum
	 * xdpnet_nf), whatever the rules. */
	__u32 nf;
	/* The filter analysis behind it (user/policy.c's), or NULL. */
	struct xn_filt_report *report;
};

/*
 * The datapath entry a port of bridge br should have (pure: no system
 * calls; hook-related fields are left zero). Returns 1 when xdpnet carries
 * the port (a tap or veth of this bridge), 0 when it leaves it to the
 * bridge.
 */
int xn_port_want(const struct xn_link *br, const struct xn_link *l,
		 const struct xn_policy *pol, struct xdpnet_port *out);

/* The bridge settings for the datapath (port_gen, hz and lat_on kept
 * from cur, and nf without pol; hz must be set there). neigh_proxy: a port of
 * the bridge has it answer ARP or ND requests (xn_ports_neigh_proxy()). */
void xn_cfg_want(const struct xn_link *br, int neigh_proxy,
		 const struct xn_policy *pol, const struct xdpnet_cfg *cur,
		 struct xdpnet_cfg *out);

/* Why the bridge's own settings and neigh_proxy alone make it bypass
 * nothing (enum xdpnet_bridge_hold), whatever the filters:
 * XDPNET_BHOLD_NONE if they do not. */
__u32 xn_bridge_hold(const struct xn_link *br, int neigh_proxy);

/* 1 when one of the ports has the bridge answer ARP or ND requests itself
 * (proxy_arp, proxy_arp_wifi, neigh_suppress, neigh_vlan_suppress). */
int xn_ports_neigh_proxy(const struct xn_link *ports, int np);

#endif
