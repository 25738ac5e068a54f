/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The forwarding decision, shared by the XDP and the TC entry points.
 *
 * Entry points only adapt their context into a struct xdpnet_frame (packet
 * pointers, ingress port, VLAN as the stage sees it) and carry out the
 * verdict. Everything about what may bypass the bridge is decided here.
 */
#ifndef XDPNET_DECIDE_H
#define XDPNET_DECIDE_H

#include "xdpnet_csum.h"

#define ETH_P_IP 0x0800
#define ETH_P_IPV6 0x86DD
#define ETH_P_ARP 0x0806
#define ETH_P_8021Q 0x8100
#define ETH_P_8021AD 0x88A8
#define VLAN_VID_MASK 0x0fff
#define NS_PER_SEC 1000000000ULL

enum xdpnet_stage {
	XDPNET_STAGE_XDP,
	XDPNET_STAGE_TC,
};

/* Set by the loader before load. */
const volatile __u64 cfg_refresh_ns = 0; /* 0: never hand frames back */
const volatile __u8 cfg_vlan_filtering = 0;
const volatile __u8 cfg_learning = 1;
/* Only bypass frames whose source MAC the bridge itself has on the ingress
 * port (it learned it after its own filters, e.g. ebtables/nwfilter). */
const volatile __u8 cfg_strict_src = 0;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xdpnet_meta);
} meta SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, XDPNET_MAX_FDB);
	__type(key, struct xdpnet_fdb_key);
	__type(value, struct xdpnet_fdb_val);
} fdb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XDPNET_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct xdpnet_port);
} ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XDPNET_MAX_VLANS);
	__type(key, struct xdpnet_vlan_key);
	__type(value, struct xdpnet_vlan_val);
} vlans SEC(".maps");

/*
 * Every attached port. The kernel removes a device from a devmap when it
 * goes away, so this is also the datapath's view of which ports are alive:
 * a tap that vanished with its VM is never a redirect target.
 */
struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
	__uint(max_entries, XDPNET_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct bpf_devmap_val);
} tx_ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, XDPNET_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct xdpnet_stats);
} stats SEC(".maps");

/* The frame as an entry point sees it. */
struct xdpnet_frame {
	void *ctx;  /* struct xdp_md or struct __sk_buff */
	void *data; /* Ethernet header */
	void *data_end;
	void *l3;      /* after the Ethernet header and any in-band VLAN tag */
	__u32 ifindex; /* ingress port */
	__u32 len;     /* whole frame, bytes */
	__u16 proto;   /* EtherType after the VLAN tag, host order */
	__u16 vid;     /* VLAN of a tagged frame */
	__u8 tagged; /* frame carries a VLAN tag (in-band or in skb metadata) */
	__u8 skb_backed; /* XDP: generic (skb-backed) XDP, see xdpnet_xdp() */
};

static __always_inline void xdpnet_count(__u32 ifindex, __u32 ctr, __u32 len)
{
	struct xdpnet_stats *s = bpf_map_lookup_elem(&stats, &ifindex);

	if (!s || ctr >= XDPNET_C_MAX)
		return;
	s->c[ctr].packets++;
	s->c[ctr].bytes += len;
}

static __always_inline int mac_is_multicast(const __u8 *mac)
{
	return mac[0] & 1;
}

static __always_inline int mac_is_zero(const __u8 *mac)
{
	return !(mac[0] | mac[1] | mac[2] | mac[3] | mac[4] | mac[5]);
}

static __always_inline void mac_copy(__u8 *dst, const __u8 *src)
{
	__builtin_memcpy(dst, src, 6);
}

/* Learn the source MAC on the ingress port, as the bridge would. Returns
 * the source's entry (NULL when not learnable). */
static __always_inline struct xdpnet_fdb_val *
xdpnet_learn(const struct ethhdr *eth, __u32 ifindex, __u16 vid,
	     const struct xdpnet_port *in, __u64 now)
{
	struct xdpnet_fdb_key key = { .vid = vid };
	struct xdpnet_fdb_val *v, nv = {};

	mac_copy(key.mac, eth->h_source);
	if (mac_is_multicast(key.mac) || mac_is_zero(key.mac))
		return NULL;
	v = bpf_map_lookup_elem(&fdb, &key);
	if (v) {
		if (v->ifindex == ifindex) {
			if (now - v->seen_ns > NS_PER_SEC)
				v->seen_ns = now;
			return v;
		}
		/* Host addresses and static entries never move. */
		if (v->flags & (XDPNET_FDB_LOCAL | XDPNET_FDB_STATIC))
			return NULL;
	}
	if (!cfg_learning || !(in->flags & XDPNET_PORT_LEARNING))
		return NULL;
	nv.ifindex = ifindex;
	nv.flags = XDPNET_FDB_LEARNED;
	nv.seen_ns = now;
	bpf_map_update_elem(&fdb, &key, &nv, BPF_ANY);
	return bpf_map_lookup_elem(&fdb, &key);
}

/*
 * XDP stage only: can this frame leave through an XDP redirect intact?
 * An XDP redirect drops the sender's checksum-offload state, so the L4
 * checksum must be valid as it stands, or be a partial checksum that we
 * complete here. Returns 0 when safe, else the XDP_DEFER_* counter.
 */
static __always_inline __u32 xdpnet_xdp_safe(struct xdpnet_frame *f,
					     const struct xdpnet_port *in)
{
	/* A veth redirects an xdp_buff even for skbs: the state is dropped. */
	int may_complete = !f->skb_backed || (in->flags & XDPNET_PORT_VETH);

	if (f->len > XDPNET_XDP_MAX_FRAME)
		return XDPNET_C_XDP_DEFER_SIZE;
	if (f->proto == ETH_P_ARP)
		return 0;
	if (f->proto == ETH_P_IP)
		return xdpnet_csum_ipv4(f->ctx, f->data, f->l3, f->data_end,
					may_complete);
	if (f->proto == ETH_P_IPV6)
		return xdpnet_csum_ipv6(f->ctx, f->data, f->l3, f->data_end,
					may_complete);
	return XDPNET_C_XDP_DEFER_PROTO;
}

/*
 * Decide what happens to a frame. Returns the counter that names the
 * verdict for the given stage (a constant at each call site, so each entry
 * point only carries its own branches): XDPNET_C_XDP_REDIRECT /
 * XDPNET_C_TC_REDIRECT with *target set, a PASS_* reason (hand to the bridge),
 * or an XDP_DEFER_* reason (XDP stage: hand to the TC stage).
 */
static __always_inline __u32 xdpnet_decide(struct xdpnet_frame *f,
					   __u32 *target,
					   const enum xdpnet_stage stage)
{
	const struct xdpnet_port *in, *out;
	struct xdpnet_fdb_val *src, *dst;
	struct xdpnet_fdb_key key = {};
	struct ethhdr *eth = f->data;
	__u16 vid = 0;
	__u32 safe, mtu;
	__u64 now;

	if (f->data + sizeof(*eth) > f->data_end)
		return XDPNET_C_PASS_MALFORMED;
	in = bpf_map_lookup_elem(&ports, &f->ifindex);
	if (!in)
		return XDPNET_C_PASS_NOT_ATTACHED;
	if (in->flags & XDPNET_PORT_LOCKED)
		return XDPNET_C_PASS_ISOLATED;

	if (cfg_vlan_filtering) {
		struct xdpnet_vlan_key vk = { .ifindex = f->ifindex };

		vid = f->tagged ? f->vid : in->pvid;
		vk.vid = vid;
		if (!vid || !bpf_map_lookup_elem(&vlans, &vk))
			return XDPNET_C_PASS_VLAN;
	}

	now = bpf_ktime_get_ns();
	src = xdpnet_learn(eth, f->ifindex, vid, in, now);

	if (mac_is_multicast(eth->h_dest))
		return XDPNET_C_PASS_MCAST;
	if (cfg_strict_src &&
	    !(src && (src->flags & (XDPNET_FDB_SEEDED | XDPNET_FDB_STATIC))))
		return XDPNET_C_PASS_SRC;
	mac_copy(key.mac, eth->h_dest);
	key.vid = vid;
	dst = bpf_map_lookup_elem(&fdb, &key);
	if (!dst)
		return XDPNET_C_PASS_UNKNOWN;
	if (dst->flags & XDPNET_FDB_LOCAL)
		return XDPNET_C_PASS_LOCAL;
	if (dst->ifindex == f->ifindex)
		return XDPNET_C_PASS_HAIRPIN;
	out = bpf_map_lookup_elem(&ports, &dst->ifindex);
	if (!out || !bpf_map_lookup_elem(&tx_ports, &dst->ifindex))
		return XDPNET_C_PASS_NOT_ATTACHED;
	if ((in->flags & out->flags & XDPNET_PORT_ISOLATED) ||
	    (out->flags & XDPNET_PORT_LOCKED))
		return XDPNET_C_PASS_ISOLATED;

	if (cfg_vlan_filtering) {
		struct xdpnet_vlan_key vk = { .ifindex = dst->ifindex,
					      .vid = vid };
		struct xdpnet_vlan_val *vv = bpf_map_lookup_elem(&vlans, &vk);
		__u8 out_tagged;

		if (!vv)
			return XDPNET_C_PASS_VLAN;
		out_tagged = !(vv->flags & XDPNET_VLAN_UNTAGGED);
		/* Retagging is the bridge's job. */
		if (out_tagged != f->tagged)
			return XDPNET_C_PASS_VLAN;
	}

	/* Let one frame per source and interval through the bridge, so that
	 * the bridge keeps its own FDB entry for it. The TC stage does it,
	 * the XDP stage leaves it to the TC stage. */
	if (cfg_refresh_ns && src &&
	    (!src->bridge_ns || now - src->bridge_ns > cfg_refresh_ns)) {
		if (stage == XDPNET_STAGE_XDP)
			return XDPNET_C_XDP_DEFER_REFRESH;
		src->bridge_ns = now;
		return XDPNET_C_PASS_REFRESH;
	}

	*target = dst->ifindex;
	if (stage == XDPNET_STAGE_TC)
		return XDPNET_C_TC_REDIRECT;

	if (!(out->flags & XDPNET_PORT_XDP_TARGET))
		return XDPNET_C_XDP_DEFER_TARGET;
	mtu = 0;
	if (bpf_check_mtu(f->ctx, dst->ifindex, &mtu, 0, 0))
		return XDPNET_C_XDP_DEFER_SIZE;
	/* Last: it may complete a partial checksum in place. */
	safe = xdpnet_xdp_safe(f, in);
	if (safe)
		return safe;
	return XDPNET_C_XDP_REDIRECT;
}

#endif /* XDPNET_DECIDE_H */
