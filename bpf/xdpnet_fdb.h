/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The FDB mirror: tracepoint programs on the bridge's own FDB events
 * (xdpnet.bpf.c's tp_btf entry points, each a call of the function here
 * of its name) keep the datapath's fdb map a copy of what the bridge
 * learned, with no user space process running.
 *
 *  - bridge:br_fdb_update fires when the bridge learns a source, moves it
 *    to another port (any port: a VXLAN uplink too) or sees it again after
 *    it went inactive: the entry is copied (or moved).
 *  - bridge:fdb_delete fires for every entry the bridge removes: ageing,
 *    flush, a port leaving, "bridge fdb del": the copy goes too.
 *  - bridge:br_fdb_add fires when user space asks to add or replace an
 *    entry (before the bridge acts): the copy is dropped, so frames to
 *    that MAC take the bridge until user space copies the result.
 *  - bridge:br_fdb_external_learn_add (switchdev): likewise.
 *
 * So the copy never holds an entry the bridge does not have; at worst it
 * misses one (map full, or added by user space), and frames to or from
 * that MAC take the bridge.
 */
#ifndef XDPNET_FDB_H
#define XDPNET_FDB_H

#include "xdpnet_state.h"

/* net/bridge/br_private.h: bit of BR_FDB_LOCKED in the flags argument
 * (Linux 6.0; the bit was unused before). */
#define BR_FDB_LOCKED_BIT 8

static __always_inline int our_bridge(const struct net_bridge *br)
{
	const struct net_device *dev = br->dev;

	return dev && (__u32)dev->ifindex == xdpnet_cfg.bridge_ifindex &&
	       dev->nd_net.net->ns.inum == xdpnet_cfg.netns_ino;
}

static __always_inline int fdb_key_from(struct xdpnet_fdb_key *k,
					const unsigned char *addr, __u16 vid)
{
	k->vid = vid;
	return bpf_probe_read_kernel(k->mac, ETH_ALEN, addr);
}

static __always_inline int fdb_update(struct net_bridge *br,
				      struct net_bridge_port *source,
				      const unsigned char *addr, __u16 vid,
				      unsigned long flags)
{
	struct xdpnet_fdb_val nv = {}, *sv;
	struct xdpnet_fdb_key k;

	if (!our_bridge(br) || !source || fdb_key_from(&k, addr, vid))
		return 0;
	nv.ifindex = source->dev->ifindex;
	fdb_resolve(&nv);
	/* The bridge moves a static entry that is not sticky, too: the copy
	 * follows it where it is kept. */
	sv = bpf_map_lookup_elem(&fdb_static, &k);
	if (sv) {
		sv->ifindex = nv.ifindex;
		sv->slot = nv.slot;
		sv->gen = nv.gen;
		xdpnet_fdb_event(XDPNET_FE_LEARN);
		return 0;
	}
	if (flags & (1UL << BR_FDB_LOCKED_BIT))
		nv.flags |= XDPNET_FDB_LOCKED;
	nv.bridge_j = bpf_jiffies64(); /* the bridge saw it now */
	if (bpf_map_update_elem(&fdb, &k, &nv, BPF_ANY)) {
		/* Full: a move of an entry we hold cannot fail (the kernel
		 * keeps spare elements for replacing), but be sure no stale
		 * copy survives. */
		bpf_map_delete_elem(&fdb, &k);
		xdpnet_fdb_event(XDPNET_FE_FULL);
		return 0;
	}
	xdpnet_fdb_event(XDPNET_FE_LEARN);
	return 0;
}

static __always_inline int fdb_delete(struct net_bridge *br,
				      struct net_bridge_fdb_entry *f)
{
	struct xdpnet_fdb_key k = {};

	if (!our_bridge(br))
		return 0;
	__builtin_memcpy(k.mac, f->key.addr.addr, ETH_ALEN);
	k.vid = f->key.vlan_id;
	if (!bpf_map_delete_elem(&fdb, &k))
		xdpnet_fdb_event(XDPNET_FE_DELETE);
	if (!bpf_map_delete_elem(&fdb_static, &k))
		xdpnet_gen_bump();
	return 0;
}

/* Network namespace of a device: bridge and ports share it. */
static __always_inline int our_netns(const struct net_device *dev)
{
	return dev && dev->nd_net.net->ns.inum == xdpnet_cfg.netns_ino;
}

static __always_inline void fdb_forget(const unsigned char *addr, __u16 vid)
{
	struct xdpnet_fdb_key k;

	if (fdb_key_from(&k, addr, vid))
		return;
	bpf_map_delete_elem(&fdb, &k);
	bpf_map_delete_elem(&fdb_static, &k);
	xdpnet_fdb_event(XDPNET_FE_USER);
}

/* dev is the bridge or one of its ports; which bridge is not cheap to
 * tell here, so any bridge of this namespace drops its copy (safe: the
 * frames take the bridge until the copy is back). */
static __always_inline int fdb_add(struct net_device *dev,
				   const unsigned char *addr, __u16 vid)
{
	if (our_netns(dev))
		fdb_forget(addr, vid);
	return 0;
}

static __always_inline int fdb_ext_learn(struct net_bridge *br,
					 const unsigned char *addr, __u16 vid)
{
	if (our_bridge(br))
		fdb_forget(addr, vid);
	return 0;
}

#endif /* XDPNET_FDB_H */
