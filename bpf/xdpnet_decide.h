/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The forwarding decision, shared by the XDP and the TC entry points.
 *
 * A frame is bypassed only where the bridge would forward it to exactly
 * one port right now: known unicast, both ports carried and forwarding,
 * not an isolated pair, no locked port, the source known to the bridge on
 * the ingress port (or the port does not learn), the frame within the
 * egress MTU, VLAN membership and tagging equal on both sides. Everything
 * else goes on into the bridge unchanged (TC_ACT_UNSPEC / XDP_PASS), which
 * decides as it always did: slower, never wrong.
 *
 * The known-unicast path costs two FDB lookups (source, destination), two
 * array lookups (the ports, by the slots the FDB entries carry), a jiffies
 * read and the counters; the next frames of a flow take the bridge's part
 * from the decision cache (xdpnet_cache.h): one lookup of this CPU's
 * entry, the live reads and the counters.
 */
#ifndef XDPNET_DECIDE_H
#define XDPNET_DECIDE_H

#include "xdpnet_parse.h"
#include "xdpnet_state.h"
#include "xdpnet_live.h"
#include "xdpnet_csum.h"
#include "xdpnet_trace.h"
#include "xdpnet_dump.h"
#include "xdpnet_frame.h"
#include "xdpnet_nf.h"

/* The bridge accepts frames up to MTU + Ethernet header + one VLAN tag
 * (is_skb_forwardable()), but with br_netfilter on it drops an IP packet
 * longer than the MTU with DF set, and fragments it without (measured:
 * 1298-byte frames into MTU 1280 arrive without br_netfilter, not with
 * it). MTU + Ethernet header holds either way; the frames between go to
 * the bridge, which decides. (At TC ingress a VLAN tag is in the skb's
 * metadata, not in its length.) */
#define XDPNET_MTU_SLACK ETH_HLEN

/* Performance experiments only (scripts/bench --breakdown): a build
 * without the keep-alive clock, one without the TC stage's MTU check. */
#ifndef XN_PERF_NOCLOCK
#define XN_PERF_NOCLOCK 0
#endif
#ifndef XN_PERF_NOMTU
#define XN_PERF_NOMTU 0
#endif
/* ... and one whose XDP stage takes every checksum as valid (frames with
 * partial checksums then arrive broken: full checksums only). */
#ifndef XN_PERF_NOCSUM
#define XN_PERF_NOCSUM 0
#endif

#include "xdpnet_cache.h"

/*
 * XDP stage only: can this frame leave through an XDP redirect intact?
 * An XDP redirect of an xdp_buff drops the sender's checksum-offload
 * state, so the L4 checksum must be valid as it stands, or be a partial
 * checksum that we complete here (xdpnet_csum.h; f->csum_fix says where).
 * Returns 0 when safe, else the XDP_DEFER_* counter.
 */
static __always_inline __u32 xdpnet_xdp_safe(struct xdpnet_frame *f)
{
	if (f->len > XDPNET_XDP_MAX_FRAME)
		return XDPNET_C_XDP_DEFER_SIZE;
	if (f->proto == ETH_P_ARP)
		return 0;
	if (f->proto == ETH_P_IP)
		return xdpnet_csum_ipv4(f->ctx, f->data, f->l3, f->data_end,
					&f->csum_fix);
	if (f->proto == ETH_P_IPV6)
		return xdpnet_csum_ipv6(f->ctx, f->data, f->l3, f->data_end,
					&f->csum_fix);
	return XDPNET_C_XDP_DEFER_PROTO;
}

/* The ingress port's entry: the slot the source's FDB entry carries when
 * it is right (no hash lookup), else by ifindex. A trace mends no hint. */
static __always_inline struct xdpnet_port *
in_port(struct xdpnet_frame *f, struct xdpnet_fdb_val *src,
	const struct xdpnet_trace_rec *t)
{
	struct xdpnet_port *p;
	__u32 slot;

	if (src && src->ifindex == f->ifindex) {
		slot = src->slot;
		p = bpf_map_lookup_elem(&ports, &slot);
		if (p && p->ifindex == f->ifindex) {
			f->in_slot = slot;
			return p;
		}
	}
	p = port_by_ifindex(f->ifindex, &slot);
	if (!p)
		return NULL;
	f->in_slot = slot;
	if (src && src->ifindex == f->ifindex && !t) {
		src->slot = slot; /* a stale hint: mend it */
		src->gen = xdpnet_cfg.port_gen;
	}
	return p;
}

/* The egress port of an FDB entry, or NULL when it is not carried. A
 * trace resolves a stale hint in a copy. */
static __always_inline struct xdpnet_port *
out_port(struct xdpnet_fdb_val *dst, __u32 *slot,
	 const struct xdpnet_trace_rec *t)
{
	struct xdpnet_port *p;
	__u32 s = dst->slot;

	p = bpf_map_lookup_elem(&ports, &s);
	if (p && s && p->ifindex == dst->ifindex) {
		*slot = s;
		return p;
	}
	/* Not carried when last looked at, and no port has changed since. */
	if (!s && dst->gen == xdpnet_cfg.port_gen)
		return NULL;
	if (t) {
		struct xdpnet_fdb_val v = *dst;

		fdb_resolve(&v);
		s = v.slot;
	} else {
		fdb_resolve(dst);
		s = dst->slot;
	}
	p = bpf_map_lookup_elem(&ports, &s);
	if (!p || !s)
		return NULL;
	*slot = s;
	return p;
}

static __always_inline struct xdpnet_fdb_val *
fdb_find(const __u8 *mac, __u16 vid, int with_static)
{
	struct xdpnet_fdb_key key = { .vid = vid };
	struct xdpnet_fdb_val *v;

	mac_copy(key.mac, mac);
	v = bpf_map_lookup_elem(&fdb, &key);
	if (!v && with_static)
		v = bpf_map_lookup_elem(&fdb_static, &key);
	return v;
}

/* Is the source where the bridge has it, on this port? Then the bridge
 * would learn nothing from this frame. Returns 0, or the PASS_* reason. */
static __always_inline __u32 src_ok(struct xdpnet_frame *f,
				    struct xdpnet_fdb_val *src, __u8 *src_mac,
				    __u16 vid, struct xdpnet_trace_rec *t)
{
	if (src && src->ifindex == f->ifindex &&
	    !(src->flags & XDPNET_FDB_LOCKED))
		return 0;
	/* Not a learned entry here: maybe the operator's static one. */
	{
		struct xdpnet_fdb_key key = { .vid = vid };

		mac_copy(key.mac, src_mac);
		src = bpf_map_lookup_elem(&fdb_static, &key);
	}
	if (t && src) {
		t->src_ifindex = src->ifindex;
		t->src_flags = src->flags;
	}
	if (src && src->ifindex == f->ifindex &&
	    !(src->flags & (XDPNET_FDB_LOCAL | XDPNET_FDB_LOCKED)))
		return 0;
	return XDPNET_C_PASS_SRC;
}

/*
 * The bridge's part of the decision: would the bridge forward this frame
 * to exactly one port, and one we may redirect to? 0 with f->target,
 * f->out_slot, f->out_mtu and f->flow_flags set (and f->cacheable,
 * f->expire_j when the cache may keep it), else the PASS_* (or, XDP
 * stage, XDP_DEFER_REFRESH) reason. f->in_slot is set whenever the
 * ingress port is carried. The frame has a whole Ethernet header.
 */
static __always_inline __u32 decide_bridge(struct xdpnet_frame *f,
					   const enum xdpnet_stage stage,
					   struct xdpnet_trace_rec *t)
{
	struct xdpnet_fdb_val *src = NULL, *dst;
	struct xdpnet_port *in, *out;
	struct ethhdr *eth = f->data;
	__u8 vlan_filtering = xdpnet_cfg.vlan_filtering;
	__u32 in_flags, out_flags, out_mtu, slot = 0, why, now = 0;
	__u32 refresh_j = xdpnet_cfg.refresh_j;
	__u16 vid = 0;

	/* Without VLAN filtering the bridge keys its FDB by MAC alone, and
	 * the source's entry tells the ingress slot. */
	if (!vlan_filtering)
		src = fdb_find(eth->h_source, 0, 0);
	XN_AT(t, XDPNET_CK_IN_PORT);
	in = in_port(f, src, t);
	if (!in)
		return XDPNET_C_PASS_NOT_ATTACHED;
	in_flags = in->flags;
#if XDPNET_HAVE_LIVE
	{
		__u64 kdev = 0, kport = 0;
		int r;

		XN_AT(t, XDPNET_CK_IN_LIVE);
		r = stage == XDPNET_STAGE_TC
			    ? live_port_skb(f->ctx, &in_flags, &refresh_j,
					    &kdev, &kport, !!t)
			    : live_port_xdp(f->ctx, &in_flags, &refresh_j,
					    &kdev, &kport, !!t);

		if (r == XDPNET_LIVE_GONE)
			return XDPNET_C_PASS_STATE;
		if (r == XDPNET_LIVE_PROMISC)
			return XDPNET_C_PASS_HUB;
		if (!t)
			live_keep(f->in_slot, kdev, kport, f->ifindex);
		/* The map says what user space adds: filters, carrier. */
		in_flags &= in->flags | ~XDPNET_PORT_FWD;
		/* tc filters on its ingress, before user space holds it. */
		if (in->hook == XDPNET_HOOK_TCX && live_tc_filters(kdev))
			in_flags &= ~XDPNET_PORT_FWD;
	}
#endif
	XN_NOTE(t, in_flags, in_flags);
	XN_AT(t, XDPNET_CK_BYPASS);
	if (!xdpnet_cfg.bypass)
		return XDPNET_C_PASS_HUB;
	XN_AT(t, XDPNET_CK_UNICAST);
	if (mac_is_multicast(eth->h_dest))
		return XDPNET_C_PASS_MCAST;
	XN_AT(t, XDPNET_CK_IN_FWD);
	if (!(in_flags & XDPNET_PORT_FWD))
		return XDPNET_C_PASS_STATE;
	XN_AT(t, XDPNET_CK_IN_UNLOCKED);
	if (in_flags & XDPNET_PORT_LOCKED)
		return XDPNET_C_PASS_ISOLATED;

	if (vlan_filtering) {
		struct xdpnet_vlan_key vk = { .ifindex = f->ifindex };
		struct xdpnet_vlan_val *iv;

		XN_AT(t, XDPNET_CK_IN_VLAN);
		vid = f->tagged ? f->vid : in->pvid;
		XN_NOTE(t, vid, vid);
		vk.vid = vid;
		iv = vid ? bpf_map_lookup_elem(&vlans, &vk) : NULL;
		if (!iv)
			return XDPNET_C_PASS_VLAN;
		/* The port's own state in this VLAN (the bridge checks it
		 * on ingress and egress). */
		if (iv->flags & XDPNET_VLAN_HELD)
			return XDPNET_C_PASS_STATE;
		src = fdb_find(eth->h_source, vid, 0);
	}

	/* A port that learns: the bridge must already have the source
	 * here, else it would learn (or move) it from this frame. One frame
	 * per source and interval goes to the bridge all the same, so that
	 * its own entry stays alive. A port that does not learn: the bridge
	 * forwards by destination alone. */
	/* The bridge drops a frame from a group or zero source, learning
	 * or not; a static group entry ('bridge fdb add 01:..') would
	 * otherwise vouch for one. */
	XN_AT(t, XDPNET_CK_SRC_VALID);
	if (mac_is_bad_source(eth->h_source))
		return XDPNET_C_PASS_SRC;
	if (t && src) {
		t->src_ifindex = src->ifindex;
		t->src_flags = src->flags;
	}
	/* The cache keeps decisions for sources the bridge has on this
	 * port only: learned (until the keep-alive is due), or static (for
	 * one keep-alive interval). */
	if (in_flags & XDPNET_PORT_LEARNING) {
		XN_AT(t, XDPNET_CK_SRC_KNOWN);
		why = src_ok(f, src, eth->h_source, vid, t);
		if (why)
			return why;
		f->cacheable = 1;
		now = bpf_jiffies64();
		f->expire_j = now + refresh_j;
		if (src && src->ifindex == f->ifindex && !XN_PERF_NOCLOCK) {
			/* jiffies: the cheapest clock there is. */
			XN_AT(t, XDPNET_CK_KEEPALIVE);
			XN_NOTE(t, src_age_j, now - src->bridge_j);
			XN_NOTE(t, refresh_j, refresh_j);
			if ((__s32)(now - src->bridge_j) > (__s32)refresh_j) {
				/* A trace goes on to the flow's steady
				 * decision; its end makes this frame the
				 * keep-alive (trace_end). */
				if (t) {
					t->refresh_due = 1;
				} else {
					if (stage == XDPNET_STAGE_XDP)
						return XDPNET_C_XDP_DEFER_REFRESH;
					src->bridge_j = now;
					return XDPNET_C_PASS_REFRESH;
				}
			}
			f->expire_j = src->bridge_j + refresh_j;
		}
		f->flow_flags |= XDPNET_FLOW_LEARNING;
	} else if (src && src->ifindex == f->ifindex &&
		   !(src->flags & XDPNET_FDB_LOCKED)) {
		f->cacheable = 1;
		f->expire_j = (__u32)bpf_jiffies64() + refresh_j;
	}

	XN_AT(t, XDPNET_CK_DST_KNOWN);
	dst = fdb_find(eth->h_dest, vid, 1);
	if (!dst)
		return XDPNET_C_PASS_UNKNOWN;
	XN_NOTE(t, dst_ifindex, dst->ifindex);
	XN_NOTE(t, dst_flags, dst->flags);
	XN_AT(t, XDPNET_CK_DST_REMOTE);
	if (dst->flags & XDPNET_FDB_LOCAL)
		return XDPNET_C_PASS_LOCAL;
	XN_AT(t, XDPNET_CK_DST_UNLOCKED);
	if (dst->flags & XDPNET_FDB_LOCKED)
		return XDPNET_C_PASS_ISOLATED;
	XN_AT(t, XDPNET_CK_NOT_HAIRPIN);
	if (dst->ifindex == f->ifindex)
		return XDPNET_C_PASS_HAIRPIN;
	XN_AT(t, XDPNET_CK_OUT_PORT);
	out = out_port(dst, &slot, t);
	if (!out)
		return XDPNET_C_PASS_NOT_ATTACHED;
	XN_NOTE(t, out_slot, slot);
	out_flags = out->flags;
	out_mtu = out->mtu;
#if XDPNET_HAVE_LIVE
	/* The egress port as the bridge has it now; the map still says
	 * what user space adds (filters, carrier, holds). */
	if (live_out(slot, dst->ifindex, &out_flags, &out_mtu, stage))
		out_flags =
			(out_flags & (out->flags | ~XDPNET_PORT_FWD)) |
			(out->flags & ~(XDPNET_PORT_FWD | XDPNET_PORT_ISOLATED |
					XDPNET_PORT_LOCKED));
#endif
	XN_AT(t, XDPNET_CK_OUT_FWD);
	if (!(out_flags & XDPNET_PORT_FWD))
		return XDPNET_C_PASS_STATE;
	XN_AT(t, XDPNET_CK_ISOLATION);
	if ((out_flags & XDPNET_PORT_LOCKED) ||
	    (in_flags & out_flags & XDPNET_PORT_ISOLATED))
		return XDPNET_C_PASS_ISOLATED;

	if (vlan_filtering) {
		struct xdpnet_vlan_key vk = { .ifindex = dst->ifindex,
					      .vid = vid };
		struct xdpnet_vlan_val *vv;

		XN_AT(t, XDPNET_CK_OUT_VLAN);
		vv = bpf_map_lookup_elem(&vlans, &vk);
		/* Retagging is the bridge's job. */
		if (!vv || !!(vv->flags & XDPNET_VLAN_UNTAGGED) == f->tagged)
			return XDPNET_C_PASS_VLAN;
		if (vv->flags & XDPNET_VLAN_HELD)
			return XDPNET_C_PASS_STATE;
		/* The cache's key has no VLAN. */
		f->cacheable = 0;
	}

	f->target = dst->ifindex;
	f->out_slot = slot;
	f->out_mtu = out_mtu;
	if (out_flags & XDPNET_PORT_ISOLATED)
		f->flow_flags |= XDPNET_FLOW_OUT_ISOLATED;
	if ((out->flags & XDPNET_PORT_XDP_TARGET) &&
	    !(out_flags & XDPNET_PORT_TC_EGRESS))
		f->flow_flags |= XDPNET_FLOW_OUT_XDP;
	if (in->hook == XDPNET_HOOK_TCX)
		f->flow_flags |= XDPNET_FLOW_IN_TCX;
	/* A cached frame skips the latency probe's marks (cache_slot()), a
	 * trace decides in full. */
	if (t)
		f->cacheable = 0;
	return 0;
}

/* A GSO frame's segments: do they fit mtu (1), not (0), or cannot this
 * tell (-1)? The length of a segment's network packet, as the kernel
 * measures it (skb_gso_network_seglen()): IP header, TCP header and
 * gso_size. Read from the frame's own headers, TCP over IPv4 or over
 * IPv6 without extension headers; anything else asks the kernel. (The
 * bridge forwards a GSO frame whatever its segments, so a frame whose
 * headers mislead this arithmetic goes where the bridge would send it
 * anyway.) */
static __always_inline int gso_fits(const struct xdpnet_frame *f, __u32 mtu)
{
	__u32 nh, th;
	__u8 *l4;

	if (f->proto == ETH_P_IP) {
		struct iphdr *ip = f->l3;

		if ((void *)(ip + 1) > f->data_end ||
		    ip->protocol != IPPROTO_TCP)
			return -1;
		nh = ip->ihl * 4;
	} else if (f->proto == ETH_P_IPV6) {
		struct ipv6hdr *ip6 = f->l3;

		if ((void *)(ip6 + 1) > f->data_end ||
		    ip6->nexthdr != IPPROTO_TCP)
			return -1;
		nh = sizeof(*ip6);
	} else {
		return -1;
	}
	l4 = f->l3 + (nh & 0x7f);
	if ((void *)(l4 + 13) > f->data_end)
		return -1;
	th = (l4[12] >> 4) * 4;
	return nh + th + f->gso <= mtu;
}

/* The TC stage's part: the frame itself fits the egress port. */
static __always_inline __u32 decide_tc(struct xdpnet_frame *f,
				       struct xdpnet_trace_rec *t)
{
	XN_AT(t, XDPNET_CK_MTU);
	/* As the bridge: the whole frame within MTU + 14 bytes; a GSO frame
	 * by the size of the segments it will become (the bridge would
	 * forward it anyway; it decides). */
	if (f->gso && !XN_PERF_NOMTU) {
		int fits = gso_fits(f, f->out_mtu);
		__u32 mlen = 0;

		if (!fits ||
		    (fits < 0 && bpf_check_mtu(f->ctx, f->target, &mlen, 0,
					       BPF_MTU_CHK_SEGS)))
			return XDPNET_C_PASS_MTU;
	} else if (!XN_PERF_NOMTU && f->len > f->out_mtu + XDPNET_MTU_SLACK) {
		return XDPNET_C_PASS_MTU;
	}
	XN_AT(t, XDPNET_CK_N);
	return XDPNET_C_TC_REDIRECT;
}

/* The XDP stage's part: the frame can leave by an XDP redirect. */
static __always_inline __u32 decide_xdp(struct xdpnet_frame *f,
					struct xdpnet_trace_rec *t)
{
	__u32 why;

	/* The devmap entry is the redirect's own business: where it went
	 * after this, the redirect fails at once and the stage puts the
	 * frame back as it came (xdp_stage()). A trace looks it up. */
	XN_AT(t, XDPNET_CK_XDP_TARGET);
	if (!(f->flow_flags & XDPNET_FLOW_OUT_XDP))
		return XDPNET_C_XDP_DEFER_TARGET;
	if (t) {
		__u32 slot = f->out_slot;

		t->skb_backed = !xdp_drops_csum_state(f->ctx);
		if (!bpf_map_lookup_elem(&tx_ports, &slot))
			return XDPNET_C_XDP_DEFER_TARGET;
	}
	XN_AT(t, XDPNET_CK_MTU);
	/* As the devmap measures it (xdp_ok_fwd_dev(): MTU and the
	 * Ethernet header; a tag in the frame counts): the live build has
	 * the egress device's MTU now, the portable one asks the kernel. */
#if XDPNET_HAVE_LIVE
	if (f->len > f->out_mtu + ETH_HLEN)
		return XDPNET_C_XDP_DEFER_SIZE;
#else
	{
		__u32 mlen = 0;

		if (bpf_check_mtu(f->ctx, f->target, &mlen, 0, 0))
			return XDPNET_C_XDP_DEFER_SIZE;
	}
#endif
	/* Last: it may complete a partial checksum in place. */
	XN_AT(t, XDPNET_CK_XDP_CSUM);
	why = XN_PERF_NOCSUM ? 0 : xdpnet_xdp_safe(f);
	if (why)
		return why;
	XN_AT(t, XDPNET_CK_N);
	return XDPNET_C_XDP_REDIRECT;
}

/*
 * Decide what happens to a frame. Returns the counter that names the
 * verdict for the given stage (a constant at each call site, so each entry
 * point only carries its own branches): XDPNET_C_XDP_REDIRECT /
 * XDPNET_C_TC_REDIRECT with f->target and f->out_slot set, a PASS_* reason
 * (hand to the bridge), or an XDP_DEFER_* reason (XDP stage: hand to the
 * TC stage). f->in_slot is set whenever the ingress port is carried.
 * f->cached: the bridge's part came from the decision cache.
 */
static __always_inline __u32 xdpnet_decide(struct xdpnet_frame *f,
					   const enum xdpnet_stage stage,
					   struct xdpnet_trace_rec *t)
{
	__u32 why;

	XN_AT(t, XDPNET_CK_FRAME);
	if (f->data + sizeof(struct ethhdr) > f->data_end) {
		in_port(f, NULL, t);
		return XDPNET_C_PASS_MALFORMED;
	}
#ifdef XDPNET_TEST_VARIANT
	/* tests/integration/upgrade.sh: programs that differ, same verdicts
	 * (no frame is this short). */
	if (f->len == XDPNET_TEST_VARIANT)
		return XDPNET_C_PASS_MALFORMED;
#endif
	why = t ? XDPNET_CACHE_MISS : cache_hit(f, stage);
	if (why == XDPNET_CACHE_MISS) {
		f->gen = gen_now();
		why = decide_bridge(f, stage, t);
		if (why) {
			if (!t)
				cache_fill_pass(f, why);
			return why;
		}
		cache_fill(f);
	} else if (why != XDPNET_CACHE_BYPASS) {
		return why;
	}
	why = decide_nf(f, stage, t);
	if (why)
		return why;
	return stage == XDPNET_STAGE_TC ? decide_tc(f, t) : decide_xdp(f, t);
}

#endif /* XDPNET_DECIDE_H */
