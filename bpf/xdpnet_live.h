/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The ingress port's bridge state, read live from the kernel.
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
 * (the keep-alive then follows that delay). (Other bridge-wide settings,
 * hub mode and VLAN filtering, come from xdpnet_cfg in both builds.) Elsewhere
 * (bpf/xdpnet.bpf.c built without XDPNET_LIVE) the same facts come from the
 * ports map and xdpnet_cfg, which user space keeps up to date (the follower,
 * within milliseconds of the bridge's netlink notification). The loader tries
 * the live build first.
 */
#ifndef XDPNET_LIVE_H
#define XDPNET_LIVE_H

/* Reading the ingress port: */
enum xdpnet_live {
	XDPNET_LIVE_OK,	     /* in *flags: XDPNET_PORT_* as the bridge says */
	XDPNET_LIVE_GONE,    /* not a port of this bridge (any more) */
	XDPNET_LIVE_PROMISC, /* the bridge is promiscuous */
};

#ifdef XDPNET_LIVE

/* include/linux/if_bridge.h (kernel-internal, stable since they exist) */
#define BR_LEARNING_ (1UL << 5)
#define BR_ISOLATED_ (1UL << 16)
#define BR_PORT_LOCKED_ (1UL << 21)
#define BR_STATE_FORWARDING_ 3
#define IFF_PROMISC_ 0x100 /* include/uapi/linux/if.h */

extern void *bpf_cast_to_kern_ctx(void *) __ksym;
extern void *bpf_rdonly_cast(void *obj, __u32 btf_id) __ksym;

/* *refresh_j: the keep-alive interval, lowered to XDPNET_REFRESH_DIV'th of
 * the bridge's forward delay during a topology change. trace: remember
 * nothing. */
static __always_inline int live_port(struct net_device *dev, __u32 *flags,
				     __u32 *refresh_j, const int trace)
{
	struct net_bridge_port *p;
	struct net_bridge *br;
	unsigned long pf;
	__u32 f = 0;

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
	pf = p->flags;
	if (p->state == BR_STATE_FORWARDING_)
		f |= XDPNET_PORT_FWD;
	if (pf & BR_LEARNING_)
		f |= XDPNET_PORT_LEARNING;
	if (pf & BR_ISOLATED_)
		f |= XDPNET_PORT_ISOLATED;
	if (pf & BR_PORT_LOCKED_)
		f |= XDPNET_PORT_LOCKED;
	*flags = f;
	return XDPNET_LIVE_OK;
}

static __always_inline int live_port_skb(struct __sk_buff *ctx, __u32 *flags,
					 __u32 *refresh_j, const int trace)
{
	struct sk_buff *skb = bpf_cast_to_kern_ctx(ctx);

	return live_port(skb->dev, flags, refresh_j, trace);
}

static __always_inline int live_port_xdp(struct xdp_md *ctx, __u32 *flags,
					 __u32 *refresh_j, const int trace)
{
	struct xdp_buff *xdp = bpf_cast_to_kern_ctx(ctx);

	return live_port(xdp->rxq->dev, flags, refresh_j, trace);
}

#define XDPNET_HAVE_LIVE 1
#else
#define XDPNET_HAVE_LIVE 0
#endif /* XDPNET_LIVE */

#endif /* XDPNET_LIVE_H */
