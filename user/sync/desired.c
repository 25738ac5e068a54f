// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What the datapath should hold for a bridge: see desired.h. Pure. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <linux/if_ether.h>
#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP (1 << 16) /* linux/if.h, which clashes with net/if.h */
#endif
#include "xdpnet.h"
#include "lib/util.h"
#include "state/netns.h"
#include "sync/desired.h"

#define BR_STATE_FORWARDING_ 3

static int port_kind_ok(const struct xn_link *l)
{
	return !strcmp(l->kind, "tun") || !strcmp(l->kind, "veth");
}

static int listed(const __u32 *list, int n, __u32 ifindex)
{
	int i;

	for (i = 0; i < n; i++)
		if (list[i] == ifindex)
			return 1;
	return 0;
}

int xn_port_want(const struct xn_link *br, const struct xn_link *l,
		 const struct xn_policy *pol, struct xdpnet_port *out)
{
	memset(out, 0, sizeof(*out));
	if (!l->is_port || l->master != br->ifindex || !port_kind_ok(l))
		return 0;
	out->ifindex = l->ifindex;
	out->mtu = l->mtu;
	if (!strcmp(l->kind, "veth"))
		out->flags |= XDPNET_PORT_VETH;
	if (l->learning)
		out->flags |= XDPNET_PORT_LEARNING;
	if (l->isolated)
		out->flags |= XDPNET_PORT_ISOLATED;
	if (l->locked)
		out->flags |= XDPNET_PORT_LOCKED;
	if (!(l->flags & IFF_UP) || !(l->flags & IFF_LOWER_UP))
		out->hold = XDPNET_HOLD_DOWN;
	else if (l->stp_state != BR_STATE_FORWARDING_)
		out->hold = XDPNET_HOLD_STATE;
	else if (l->locked)
		out->hold = XDPNET_HOLD_LOCKED;
	else if (pol && listed(pol->filtered, pol->nfiltered, l->ifindex))
		out->hold = XDPNET_HOLD_FILTER;
	else if (pol && listed(pol->tc_in, pol->ntc_in, l->ifindex))
		out->hold = XDPNET_HOLD_TC;
	/* A backup port: the moment the carrier drops, the bridge sends
	 * the frames for this port's static entries to the backup instead
	 * (learned ones it flushes), before any notification. */
	else if (l->backup_port)
		out->hold = XDPNET_HOLD_BACKUP;
	/* __netif_receive_skb_core() hands a VLAN device its frames after
	 * tc ingress and before the bridge: redirected, they would reach
	 * another port instead. */
	else if (l->vlan_upper)
		out->hold = XDPNET_HOLD_VLAN_DEV;
	else if (l->vlan_tunnel)
		out->hold = XDPNET_HOLD_VLAN_TUNNEL;
	if (!out->hold)
		out->flags |= XDPNET_PORT_FWD;
	/* tc on its egress: a TC redirect passes through it, an XDP one
	 * would not. */
	if (pol && listed(pol->no_xdp, pol->nno_xdp, l->ifindex))
		out->flags |= XDPNET_PORT_TC_EGRESS;
	/* A tap takes XDP redirects (tun_xdp_xmit); a veth only with NAPI
	 * on its peer, which xdpnet cannot know. */
	if (!(out->flags & (XDPNET_PORT_VETH | XDPNET_PORT_TC_EGRESS)) &&
	    !out->hold)
		out->flags |= XDPNET_PORT_XDP_TARGET;
	return 1;
}

/* Bridge FDB keep-alive (include/xdpnet.h): XDPNET_REFRESH_DIV frames per
 * ageing period, so that a lost frame or a busy CPU never lets an entry
 * expire and a source that falls silent is forgotten at most one interval
 * early; at most 1 s, never below 100 ms. With STP on, a topology change
 * (which any port's TCN BPDU starts, and which the kernel announces
 * nowhere) makes the bridge age its entries after forward_delay instead:
 * the shorter of the two, always. (The live datapath also reads the
 * topology change and the delay in use.) */
static __u64 keepalive_age_cs(const struct xn_link *br)
{
	__u64 age = br->ageing_time_cs;

	if (br->br_stp && br->forward_delay_cs < age)
		age = br->forward_delay_cs;
	return age;
}

/* Too short for the keep-alive: XDPNET_REFRESH_DIV intervals of at least
 * XDPNET_REFRESH_MIN_MS do not fit in it, and an active source's entry
 * could expire between two keep-alive frames (at 0.1 s and below, it
 * does: frames flood where the bridge would not flood them). */
static int ageing_too_short(const struct xn_link *br)
{
	return keepalive_age_cs(br) * 10 <
	       (__u64)XDPNET_REFRESH_MIN_MS * XDPNET_REFRESH_DIV;
}

static __u32 refresh_j_for(const struct xn_link *br, __u32 hz)
{
	__u64 age = keepalive_age_cs(br), j, lo, hi;

	j = age * hz / (100 * XDPNET_REFRESH_DIV);
	lo = (__u64)hz * XDPNET_REFRESH_MIN_MS / 1000;
	hi = (__u64)hz * XDPNET_REFRESH_MAX_MS / 1000;
	return j < lo ? lo : j > hi ? hi : j;
}

void xn_cfg_want(const struct xn_link *br, int neigh_proxy,
		 const struct xn_policy *pol, const struct xdpnet_cfg *cur,
		 struct xdpnet_cfg *out)
{
	*out = *cur;
	out->bridge_ifindex = br->ifindex;
	out->netns_ino = xn_netns_self()->ino;
	out->vlan_filtering = !br->vlan_filtering ? XDPNET_VF_OFF
			      : br->vlan_protocol == ETH_P_8021AD
				      ? XDPNET_VF_8021AD
				      : XDPNET_VF_8021Q;
	out->refresh_j = refresh_j_for(br, cur->hz);
	/* ... nor do filters that apply between ports. */
	out->hold = xn_bridge_hold(br, neigh_proxy);
	if (out->hold == XDPNET_BHOLD_NONE && pol)
		out->hold = (__u32)pol->bridge_hold;
	out->bypass = out->hold == XDPNET_BHOLD_NONE;
	if (pol)
		out->nf = pol->nf;
}

/* Hub mode (ageing_time 0: the bridge floods everything), an ageing too
 * short for the keep-alive and MST (per-VLAN port states) bypass nothing,
 * nor does a promiscuous bridge (it hands every frame it forwards to the
 * host as well), nor one with a port that has the bridge answer ARP or ND
 * requests (proxy_arp and kin): the bridge replies to a unicast request
 * too, besides forwarding it, and may keep a request from a port. */
__u32 xn_bridge_hold(const struct xn_link *br, int neigh_proxy)
{
	return !br->ageing_time_cs    ? XDPNET_BHOLD_HUB
	       : ageing_too_short(br) ? XDPNET_BHOLD_AGEING
	       : br->mst	      ? XDPNET_BHOLD_MST
	       : br->promiscuity      ? XDPNET_BHOLD_PROMISC
	       : neigh_proxy	      ? XDPNET_BHOLD_NEIGH
				      : XDPNET_BHOLD_NONE;
}

int xn_ports_neigh_proxy(const struct xn_link *ports, int np)
{
	int i;

	for (i = 0; i < np; i++)
		if (ports[i].neigh_proxy)
			return 1;
	return 0;
}
