/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The ports' bridge state, read live from the kernel.
 *
 * Where the kernel lets a TC or XDP program reach the skb's (or xdp_buff's)
 * device and cast its rx_handler_data to the bridge's struct
 * net_bridge_port (kfuncs bpf_cast_to_kern_ctx and bpf_rdonly_cast, Linux
 * 6.3, and the bridge's types in vmlinux BTF, i.e. the bridge built in),
 * the datapath checks on every frame what the bridge itself would: that
 * the device is still a port of this bridge, its STP state, its locked,
 * isolated and learning flags; and of the bridge, whether it is
 * promiscuous (it then hands every frame to the host too: no bypass) and
 * whether a topology change makes it age entries after its forward delay
 * (the keep-alive then follows that delay). The egress port too, once a
 * frame has come in through it (its device's address is kept by slot, and
 * checked before use: the device still has that ifindex and is a port of
 * this bridge): its STP state, locked and isolated flags, vlan_tunnel
 * (which holds it), its device's MTU (where the map's is higher) and, at
 * the XDP stage, tc on its device's egress (which an XDP redirect skips);
 * until then, or when the check fails, the ports map says. (Other bridge-wide
 * settings, hub mode and VLAN filtering, come from xdpnet_cfg in both builds.)
 * Elsewhere (bpf/xdpnet.bpf.c built without XDPNET_LIVE) the same facts come
 * from the ports map and xdpnet_cfg, which user space keeps up to date (the
 * follower, within milliseconds of the bridge's netlink notification). The
 * loader tries the live build first.
 */
#ifndef XDPNET_LIVE_H
#define XDPNET_LIVE_H

#include "xdpnet_maps.h"

/* Reading the ingress port: */
enum xdpnet_live {
	XDPNET_LIVE_OK,	     /* in *flags: XDPNET_PORT_* as the bridge says */
	XDPNET_LIVE_GONE,    /* not a port of this bridge (any more) */
	XDPNET_LIVE_PROMISC, /* the bridge is promiscuous */
};

#ifdef XDPNET_LIVE

/* include/linux/if_bridge.h (kernel-internal, stable since they exist) */
#define BR_LEARNING_ (1UL << 5)
#define BR_VLAN_TUNNEL_ (1UL << 13)
#define BR_ISOLATED_ (1UL << 16)
#define BR_PORT_LOCKED_ (1UL << 21)
#define BR_STATE_FORWARDING_ 3
#define IFF_PROMISC_ 0x100 /* include/uapi/linux/if.h */

/* Performance experiments only (scripts/bench --breakdown): a build that
 * reads no egress port live, one whose XDP stage reads no tc on the
 * egress device. */
#ifndef XN_PERF_NOEGRESS
#define XN_PERF_NOEGRESS 0
#endif
#ifndef XN_PERF_NOTCOUT
#define XN_PERF_NOTCOUT 0
#endif

extern void *bpf_cast_to_kern_ctx(void *) __ksym;
extern void *bpf_rdonly_cast(void *obj, __u32 btf_id) __ksym;

/* The bridge's flags of port p as XDPNET_PORT_* (FWD: forwarding). */
static __always_inline __u32 live_flags(struct net_bridge_port *p)
{
	unsigned long pf = p->flags;
	__u32 f = 0;

	if (p->state == BR_STATE_FORWARDING_)
		f |= XDPNET_PORT_FWD;
	if (pf & BR_LEARNING_)
		f |= XDPNET_PORT_LEARNING;
	if (pf & BR_ISOLATED_)
		f |= XDPNET_PORT_ISOLATED;
	if (pf & BR_PORT_LOCKED_)
		f |= XDPNET_PORT_LOCKED;
	return f;
}

/* *refresh_j: the keep-alive interval, lowered to XDPNET_REFRESH_DIV'th of
 * the bridge's forward delay during a topology change; *kdev, *kport: the
 * device's and its bridge port's addresses. trace: remember nothing. */
static __always_inline int live_port(struct net_device *dev, __u32 *flags,
				     __u32 *refresh_j, __u64 *kdev,
				     __u64 *kport, const int trace)
{
	struct net_bridge_port *p;
	struct net_bridge *br;

	if (!dev)
		return XDPNET_LIVE_GONE;
	p = bpf_rdonly_cast(dev->rx_handler_data,
			    bpf_core_type_id_kernel(struct net_bridge_port));
	/* rx_handler_data belongs to whoever holds the device's rx_handler:
	 * it is our bridge's port only if it points back at the device and
	 * at this bridge. The bridge is checked by ifindex once, then by
	 * address (remembered in xdpnet_rt). */
	if (!p || p->dev != dev)
		return XDPNET_LIVE_GONE;
	br = p->br;
	if (!br || (__u64)br != xdpnet_rt.br) {
		if (!br || (__u32)br->dev->ifindex != xdpnet_cfg.bridge_ifindex)
			return XDPNET_LIVE_GONE;
		if (!trace)
			xdpnet_rt.br = (__u64)br;
	}
	if (br->dev->flags & IFF_PROMISC_)
		return XDPNET_LIVE_PROMISC;
	if (br->topology_change) {
		__u64 fd = br->forward_delay / XDPNET_REFRESH_DIV;

		if (fd < *refresh_j)
			*refresh_j = fd;
	}
	*flags = live_flags(p);
	*kdev = (__u64)dev;
	*kport = (__u64)p;
	return XDPNET_LIVE_OK;
}

/* The filters of a clsact (or ingress) qdisc on the side of a device
 * whose tcx entry is e (tcx_entry's mini_Qdisc, Linux 6.6 and later). */
static __always_inline int tcx_filters(struct bpf_mprog_entry *e)
{
	struct mini_Qdisc *mq;
	struct tcx_entry *tx;

	if (!e || !e->parent)
		return 0;
	tx = bpf_rdonly_cast(
		(void *)((__u64)e->parent -
			 bpf_core_field_offset(struct tcx_entry, bundle)),
		bpf_core_type_id_kernel(struct tcx_entry));
	mq = bpf_rdonly_cast(tx->miniq,
			     bpf_core_type_id_kernel(struct mini_Qdisc));
	return mq && mq->filter_list;
}

/* Does the device at kdev have filters of a clsact (or ingress) qdisc on
 * its ingress? The kernel runs them after its tcx programs, so a redirect
 * by the TC stage there, or by the XDP stage before it, would skip them:
 * the port is held, as user space holds it once it has read them. Asked
 * only where the TC stage is a tcx program (as a clsact filter itself, its
 * own filter is in that list, and filters placed before it run first). */
static __always_inline int live_tc_filters(__u64 kdev)
{
	struct net_device *dev;

	if (!bpf_core_field_exists(struct net_device, tcx_ingress) || !kdev)
		return 0;
	dev = bpf_rdonly_cast((void *)kdev,
			      bpf_core_type_id_kernel(struct net_device));
	/* Never a clsact or ingress qdisc on it, never a filter: the
	 * kernel makes the device's ingress queue with the first such
	 * qdisc (tc_modify_qdisc()) and keeps it. One line where the
	 * filters' chain is three. */
	if (bpf_core_field_exists(struct net_device, ingress_queue) &&
	    !dev->ingress_queue)
		return 0;
	return tcx_filters(bpf_rdonly_cast(
		dev->tcx_ingress,
		bpf_core_type_id_kernel(struct bpf_mprog_entry)));
}

/* Has the egress port's device tc of its own on its egress: a root qdisc
 * that a user made (the kernel's default ones have no handle), or tcx
 * programs or a clsact qdisc's filters there (Linux 6.6 and later)? A TC
 * redirect passes through them, an XDP redirect through none: the XDP
 * stage leaves such a port to the TC stage, as it does once user space
 * has read them (XDPNET_PORT_TC_EGRESS, which also covers a qdisc below a
 * default root and, before tcx, clsact's egress filters). */
static __always_inline int live_tc_egress(struct net_device *dev)
{
	struct bpf_mprog_entry *e;
	struct Qdisc *q;

	q = bpf_rdonly_cast(dev->qdisc, bpf_core_type_id_kernel(struct Qdisc));
	if (q && q->handle)
		return 1;
	if (!bpf_core_field_exists(struct net_device, tcx_egress))
		return 0;
	e = bpf_rdonly_cast(dev->tcx_egress,
			    bpf_core_type_id_kernel(struct bpf_mprog_entry));
	return e && (e->fp_items[0].prog || tcx_filters(e));
}

/* One load or store, as written (the compiler neither merges, splits nor
 * moves it across the barriers below). */
#define XN_ONCE(x) (*(volatile __typeof__(x) *)&(x))

/* Loads kept in program order by the CPU (x86): then the port record's
 * ifindex read on both sides of its addresses says whether they were
 * read whole. Elsewhere the egress read checks the device itself. */
#if defined(__TARGET_ARCH_x86)
#define XDPNET_KPORT_ORDERED 1
#else
#define XDPNET_KPORT_ORDERED 0
#endif

/* The ingress port in slot, kept for frames that leave through it: its
 * ifindex goes to 0 while its addresses are rewritten. */
static __always_inline void live_keep(__u32 slot, __u64 kdev, __u64 kport,
				      __u32 ifindex)
{
	struct xdpnet_kport *r;

	if (slot >= XDPNET_MAX_PORTS)
		return;
	r = &xdpnet_kports[slot];
	if (r->port == kport && r->dev == kdev && r->ifindex == ifindex)
		return;
	XN_ONCE(r->ifindex) = 0;
	asm volatile("" ::: "memory");
	XN_ONCE(r->dev) = kdev;
	XN_ONCE(r->port) = kport;
	asm volatile("" ::: "memory");
	XN_ONCE(r->ifindex) = ifindex;
}

/* The egress port in slot, device ifindex, read live: 1 with *flags
 * (XDPNET_PORT_FWD, _ISOLATED, _LOCKED; no FWD with vlan_tunnel on: the
 * bridge pops a tunnel VLAN's tag there; at the XDP stage, for a port
 * that takes XDP redirects, XDPNET_PORT_TC_EGRESS where its device has tc
 * on its egress) and *mtu lowered to the device's (both hold the map's on
 * entry); 0 when it cannot be read (no frame came in through it yet, or
 * the port kept is no longer that device's port of this bridge: a port
 * leaving the bridge has no bridge once freed, and is not forwarding
 * before): then the ports map says. */
static __always_inline int live_out(__u32 slot, __u32 ifindex, __u32 *flags,
				    __u32 *mtu, const enum xdpnet_stage stage)
{
	const int tc_out = stage == XDPNET_STAGE_XDP &&
			   (*flags & XDPNET_PORT_XDP_TARGET);
	struct net_bridge_port *p;
	struct xdpnet_kport *r;
	struct net_bridge *br;
	struct net_device *dev;
	__u64 k, kp;

	if (slot >= XDPNET_MAX_PORTS || XN_PERF_NOEGRESS)
		return 0;
	r = &xdpnet_kports[slot];
	if (XN_ONCE(r->ifindex) != ifindex)
		return 0;
	asm volatile("" ::: "memory");
	k = XN_ONCE(r->dev);
	kp = XN_ONCE(r->port);
	asm volatile("" ::: "memory");
	if (!k || !kp || XN_ONCE(r->ifindex) != ifindex)
		return 0;
	p = bpf_rdonly_cast((void *)kp,
			    bpf_core_type_id_kernel(struct net_bridge_port));
	if ((__u64)p->dev != k)
		return 0;
	dev = bpf_rdonly_cast((void *)k,
			      bpf_core_type_id_kernel(struct net_device));
	if (!XDPNET_KPORT_ORDERED && ((__u32)dev->ifindex != ifindex ||
				      (__u64)dev->rx_handler_data != kp))
		return 0;
	/* This bridge: by the address the ingress read checked, or (a trace
	 * run, or a bump cleared it) by ifindex. */
	br = p->br;
	if (!br || ((__u64)br != xdpnet_rt.br &&
		    (__u32)br->dev->ifindex != xdpnet_cfg.bridge_ifindex))
		return 0;
	*flags = live_flags(p);
	if (p->flags & BR_VLAN_TUNNEL_)
		*flags &= ~XDPNET_PORT_FWD;
	if (tc_out && !XN_PERF_NOTCOUT && live_tc_egress(dev))
		*flags |= XDPNET_PORT_TC_EGRESS;
	/* The lower of the device's and the map's: a frame over either
	 * goes to the bridge, which decides. (Its transmit reads this line
	 * anyway.) */
	if (dev->mtu < *mtu)
		*mtu = dev->mtu;
	return 1;
}

static __always_inline int live_port_skb(struct __sk_buff *ctx, __u32 *flags,
					 __u32 *refresh_j, __u64 *kdev,
					 __u64 *kport, const int trace)
{
	struct sk_buff *skb = bpf_cast_to_kern_ctx(ctx);

	return live_port(skb->dev, flags, refresh_j, kdev, kport, trace);
}

static __always_inline int live_port_xdp(struct xdp_md *ctx, __u32 *flags,
					 __u32 *refresh_j, __u64 *kdev,
					 __u64 *kport, const int trace)
{
	struct xdp_buff *xdp = bpf_cast_to_kern_ctx(ctx);

	return live_port(xdp->rxq->dev, flags, refresh_j, kdev, kport, trace);
}

#define XDPNET_HAVE_LIVE 1
#else
#define XDPNET_HAVE_LIVE 0
#endif /* XDPNET_LIVE */

#endif /* XDPNET_LIVE_H */
