/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The decision cache: the bridge's part of a decision (where a flow's
 * frames go, and that they may go there), kept per CPU so that the next
 * frame of the flow costs one line of memory where the full decision
 * costs two FDB hash lookups and the port entries (docs/performance.md).
 *
 * An entry (struct xdpnet_flow, include/xdpnet.h) is used only while all
 * of these still hold, and the full decision runs otherwise:
 *  - xdpnet_rt.gen is what it was when the decision began: every change to
 *    the FDB copy, the ports, cfg or the dump switch bumps it once made
 *    (trace programs, user space);
 *  - the source's keep-alive is not due (expire_j): then the full
 *    decision hands the bridge its frame;
 *  - live datapath: the ingress port, read from the kernel as on every
 *    frame, is still a forwarding, unlocked port of the bridge, learning
 *    as it did, not isolated where the egress port is, the bridge not
 *    promiscuous and not in a topology change; the egress port, where it
 *    can be read, still forwarding, unlocked and isolated as it was (its
 *    MTU is read afresh).
 * What depends on the frame itself (its length, checksums, the XDP
 * target's devmap entry) is checked on every frame by the stage's tail.
 *
 * Only decisions to bypass are cached, and only for sources the bridge
 * has on the ingress port, without VLAN filtering, while no dump and no
 * latency probe runs (a cached frame skips both). A trace run never uses
 * the cache. Each CPU writes only its own entries, and a CPU never runs
 * two stages at once: no entry is read while it is written.
 *
 * Reading the generation before everything the decision reads, and the
 * writers bumping it after their change, keeps a decision from being
 * cached as newer than what it read. That needs loads kept in order,
 * which x86 does; elsewhere nothing is cached.
 */
#ifndef XDPNET_CACHE_H
#define XDPNET_CACHE_H

#if defined(__TARGET_ARCH_x86)
#define XDPNET_CACHE 1
#else
#define XDPNET_CACHE 0
#endif

/* Performance experiments only (scripts/bench --breakdown): a build that
 * decides every frame in full. */
#ifdef XN_PERF_NOCACHE
#undef XDPNET_CACHE
#define XDPNET_CACHE 0
#endif

/* The six bytes of a MAC address at p, loaded as one word. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define XN_MAC_WORD 0x0000ffffffffffffULL
#else
#define XN_MAC_WORD 0xffffffffffff0000ULL
#endif

static __always_inline __u64 mac_word(const void *p)
{
	return *(const __u64 *)p & XN_MAC_WORD;
}

/* This CPU's entry for a flow. */
static __always_inline struct xdpnet_flow *flow_entry(__u32 ifindex, __u64 src,
						      __u64 dst)
{
	__u64 h = (src * 0x9e3779b97f4a7c15ULL) ^ dst ^ ifindex;
	__u32 i;

	h *= 0xff51afd7ed558ccdULL;
	i = bpf_get_smp_processor_id() * XDPNET_FLOW_ENTRIES +
	    (__u32)(h >> (64 - XDPNET_FLOW_BITS));
	return bpf_map_lookup_elem(&flows, &i);
}

/* The generation, read before anything a decision rests on. */
static __always_inline __u32 gen_now(void)
{
	__u32 g = *(volatile __u32 *)&xdpnet_rt.gen;

	asm volatile("" ::: "memory");
	return g;
}

/* What cache_hit() found. */
#define XDPNET_CACHE_MISS XDPNET_C_MAX
#define XDPNET_CACHE_BYPASS 0

/* The entry of f's flow on this CPU, if it holds for this frame now: the
 * key, the generation and the time (a bypass's keep-alive, or a
 * hand-over's interval). */
static __always_inline struct xdpnet_flow *
cache_entry(const struct xdpnet_frame *f, __u64 src, __u64 dst)
{
	struct xdpnet_flow *e = flow_entry(f->ifindex, src, dst);

	if (!e || e->ifindex != f->ifindex || e->gen != gen_now() ||
	    mac_word(e->src) != src || mac_word(e->dst) != dst)
		return NULL;
	if (!XN_PERF_NOCLOCK &&
	    (__s32)((__u32)bpf_jiffies64() - e->expire_j) > 0)
		return NULL;
	return e;
}

/*
 * f's frame has a cached decision that still holds: XDPNET_CACHE_BYPASS,
 * with f's out fields set as the full decision would set them, or a
 * PASS_* reason (a hand-over to the bridge, f->in_slot set); else
 * XDPNET_CACHE_MISS. A hand-over needs no more: handing a frame to the
 * bridge is never wrong, and whatever could turn it into a bypass (the
 * FDB, the ports, the settings) moves the generation.
 */
static __always_inline __u32 cache_hit(struct xdpnet_frame *f,
				       const enum xdpnet_stage stage)
{
	struct xdpnet_flow *e;
	__u64 src, dst;

	if (!XDPNET_CACHE || f->data + ETH_HLEN > f->data_end)
		return XDPNET_CACHE_MISS;
	src = mac_word(f->data + ETH_ALEN);
	dst = mac_word(f->data);
	e = cache_entry(f, src, dst);
	if (!e)
		return XDPNET_CACHE_MISS;
	if (e->flags & XDPNET_FLOW_PASS) {
		f->in_slot = e->in_slot;
		f->cached = 1;
		return e->pass;
	}
	f->out_mtu = e->mtu;
#if XDPNET_HAVE_LIVE
	{
		__u32 lf, of, r = ~0U;
		__u64 kdev, kport;
		int live = stage == XDPNET_STAGE_TC
				   ? live_port_skb(f->ctx, &lf, &r, &kdev,
						   &kport, 0)
				   : live_port_xdp(f->ctx, &lf, &r, &kdev,
						   &kport, 0);

		/* r lowered: a topology change (keep-alive by forward
		 * delay). */
		if (live != XDPNET_LIVE_OK || r != ~0U ||
		    ((e->flags & XDPNET_FLOW_IN_TCX) &&
		     live_tc_filters(kdev)) ||
		    !(lf & XDPNET_PORT_FWD) || (lf & XDPNET_PORT_LOCKED) ||
		    !(lf & XDPNET_PORT_LEARNING) !=
			    !(e->flags & XDPNET_FLOW_LEARNING) ||
		    ((lf & XDPNET_PORT_ISOLATED) &&
		     (e->flags & XDPNET_FLOW_OUT_ISOLATED)))
			return XDPNET_CACHE_MISS;
		/* The egress port, as the full decision reads it: still
		 * forwarding, unlocked, isolated as it was, without tc on
		 * its egress for an XDP redirect; its MTU now. */
		of = e->flags & XDPNET_FLOW_OUT_XDP ? XDPNET_PORT_XDP_TARGET
						    : 0;
		if (live_out(e->out_slot, e->target, &of, &f->out_mtu, stage) &&
		    (!(of & XDPNET_PORT_FWD) || (of & XDPNET_PORT_LOCKED) ||
		     !(of & XDPNET_PORT_ISOLATED) !=
			     !(e->flags & XDPNET_FLOW_OUT_ISOLATED) ||
		     ((of & XDPNET_PORT_TC_EGRESS) &&
		      (e->flags & XDPNET_FLOW_OUT_XDP))))
			return XDPNET_CACHE_MISS;
	}
#endif
	f->in_slot = e->in_slot;
	f->out_slot = e->out_slot;
	f->target = e->target;
	f->flow_flags = e->flags;
	f->cached = 1;
	return XDPNET_CACHE_BYPASS;
}

/* This CPU's entry for f's flow, its key written, to fill in; NULL where
 * nothing may be cached now. */
static __always_inline struct xdpnet_flow *
cache_slot(const struct xdpnet_frame *f)
{
	struct xdpnet_flow *e;

	if (!XDPNET_CACHE || xdpnet_dump.on || xdpnet_cfg.lat_on ||
	    xdpnet_cfg.vlan_filtering || f->data + ETH_HLEN > f->data_end)
		return NULL;
	e = flow_entry(f->ifindex, mac_word(f->data + ETH_ALEN),
		       mac_word(f->data));
	if (!e)
		return NULL;
	__builtin_memcpy(e->src, f->data + ETH_ALEN, ETH_ALEN);
	__builtin_memcpy(e->dst, f->data, ETH_ALEN);
	e->ifindex = f->ifindex;
	e->in_slot = f->in_slot;
	return e;
}

/* Keep the bridge's part of f's decision (a bypass to f->target). */
static __always_inline void cache_fill(const struct xdpnet_frame *f)
{
	struct xdpnet_flow *e;

	if (!f->cacheable)
		return;
	e = cache_slot(f);
	if (!e)
		return;
	e->out_slot = f->out_slot;
	e->target = f->target;
	e->expire_j = f->expire_j;
	e->mtu = f->out_mtu;
	e->flags = f->flow_flags;
	e->gen = f->gen;
}

/* Keep a hand-over to the bridge for why, where it does not depend on
 * the frame itself (its length, tags, contents) or on its moment (the
 * keep-alive), for one keep-alive interval. */
static __always_inline void cache_fill_pass(const struct xdpnet_frame *f,
					    __u32 why)
{
	struct xdpnet_flow *e;

	switch (why) {
	case XDPNET_C_PASS_MCAST:
	case XDPNET_C_PASS_UNKNOWN:
	case XDPNET_C_PASS_LOCAL:
	case XDPNET_C_PASS_HAIRPIN:
	case XDPNET_C_PASS_NOT_ATTACHED:
	case XDPNET_C_PASS_ISOLATED:
	case XDPNET_C_PASS_SRC:
	case XDPNET_C_PASS_STATE:
	case XDPNET_C_PASS_HUB:
		break;
	default:
		return;
	}
	e = cache_slot(f);
	if (!e)
		return;
	e->expire_j = (__u32)bpf_jiffies64() + xdpnet_cfg.refresh_j;
	e->flags = XDPNET_FLOW_PASS;
	e->pass = why;
	e->gen = f->gen;
}

#endif /* XDPNET_CACHE_H */
