// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdpnet forwarding-latency probe ("xdpnet latency BRIDGE on").
 *
 * For each frame that goes from port A to port B of one bridge, the time
 * from its arrival on A to its hand-off to B, in log2 nanosecond buckets,
 * per (A, B, path):
 *
 *  - bridge and TC bypass: arrival is tp_btf/netif_receive_skb on A,
 *    hand-off is tp_btf/net_dev_queue on B for the same skb. Both the
 *    bridge (br_handle_frame .. br_forward .. dev_queue_xmit) and the TC
 *    stage (tcx/clsact .. skb_do_redirect .. dev_queue_xmit) hand the skb
 *    on synchronously, on the CPU it arrived on, before that CPU receives
 *    another frame; so a per-CPU slot (lat_cpu: skb pointer, time, port)
 *    is all it takes, at a fraction of the cost of a hash keyed by the skb
 *    pointer. A hand-off that is not synchronous (NFQUEUE) is not
 *    measured. The path is TC when the skb was redirected by the TC
 *    stage: skb->redirected, which bpf_redirect() sets since Linux 6.4
 *    (commit 59e498a3289f), or, on older kernels, the TC stage's mark in
 *    lat_cpu. Otherwise the bridge forwarded it.
 *  - XDP bypass: there is no skb. Arrival is the XDP stage's entry (it
 *    writes the time into lat_cpu when lat_ctl says so), hand-off is
 *    tp_btf/xdp_redirect on A, i.e. the devmap enqueue, not the flush.
 *
 * Every tracepoint fires for the whole host: each program first checks the
 * network namespace of the device (ifindexes repeat across namespaces),
 * then whether the device is a port of this bridge (lat_ports).
 *
 * lat_ctl and lat_cpu are shared with the datapath (bpf/xdpnet.bpf.c);
 * whoever comes first creates and pins them, the other reuses them.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "xdpnet.h"

/* Set by the loader before load. */
const volatile __u64 cfg_netns_ino = 0;
/* Trust skb->redirected (Linux >= 6.4); tests turn it off to exercise the
 * datapath's mark. */
const volatile __u8 cfg_use_redirected = 1;

#include "xdpnet_lat_maps.h"

/* The bridge's ports (ifindex -> 1), all kinds, attached or not. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XDPNET_MAX_PORTS);
	__type(key, __u32);
	__type(value, __u32);
} lat_ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, XDPNET_LAT_MAX_PAIRS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct xdpnet_lat_key);
	__type(value, struct xdpnet_lat_hist);
} lat_hist SEC(".maps");

/* A port of this bridge, in its namespace? *ifindex is set either way. */
static __always_inline int our_port(const struct net_device *dev,
				    __u32 *ifindex)
{
	if (!dev || dev->nd_net.net->ns.inum != cfg_netns_ino)
		return 0;
	*ifindex = dev->ifindex;
	return bpf_map_lookup_elem(&lat_ports, ifindex) != NULL;
}

static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) {
		v >>= 32;
		r += 32;
	}
	if (v >> 16) {
		v >>= 16;
		r += 16;
	}
	if (v >> 8) {
		v >>= 8;
		r += 8;
	}
	if (v >> 4) {
		v >>= 4;
		r += 4;
	}
	if (v >> 2) {
		v >>= 2;
		r += 2;
	}
	if (v >> 1)
		r += 1;
	return r;
}

static __always_inline void record(__u32 in, __u32 out, __u32 path, __u64 ns)
{
	struct xdpnet_lat_key k = {
		.in_ifindex = in,
		.out_ifindex = out,
		.path = path,
	};
	struct xdpnet_lat_hist *h;
	__u32 b;

	h = bpf_map_lookup_elem(&lat_hist, &k);
	if (!h) {
		struct xdpnet_lat_hist zero = {};

		bpf_map_update_elem(&lat_hist, &k, &zero, BPF_NOEXIST);
		h = bpf_map_lookup_elem(&lat_hist, &k);
		if (!h)
			return;
	}
	b = log2_u64(ns);
	if (b >= XDPNET_LAT_BUCKETS)
		b = XDPNET_LAT_BUCKETS - 1;
	h->count++;
	h->sum_ns += ns;
	h->bucket[b]++;
}

SEC("tp_btf/netif_receive_skb")
int BPF_PROG(xdpnet_lat_rx, struct sk_buff *skb)
{
	struct xdpnet_lat_cpu *c;
	__u32 ifindex, zero = 0;

	if (!our_port(skb->dev, &ifindex))
		return 0;
	c = bpf_map_lookup_elem(&lat_cpu, &zero);
	if (!c)
		return 0;
	c->rx_ts = bpf_ktime_get_ns();
	c->rx_skb = (__u64)skb;
	c->rx_ifindex = ifindex;
	c->tc_skb = 0;
	return 0;
}

static __always_inline int
tc_redirected(struct sk_buff *skb, const struct xdpnet_lat_cpu *c, __u32 out)
{
	if (cfg_use_redirected && bpf_core_field_exists(skb->redirected) &&
	    BPF_CORE_READ_BITFIELD(skb, redirected))
		return 1;
	return c->tc_skb == (__u64)skb && c->tc_target == out;
}

SEC("tp_btf/net_dev_queue")
int BPF_PROG(xdpnet_lat_tx, struct sk_buff *skb)
{
	struct xdpnet_lat_cpu *c;
	__u32 out, in, zero = 0;
	__u64 now, ts;

	/* Cheapest test first: this fires for every frame the host sends. */
	c = bpf_map_lookup_elem(&lat_cpu, &zero);
	if (!c || c->rx_skb != (__u64)skb || !our_port(skb->dev, &out))
		return 0;
	now = bpf_ktime_get_ns();
	ts = c->rx_ts;
	in = c->rx_ifindex;
	c->rx_skb = 0; /* one hand-off per arrival */
	/* skb_iif: the skb really came in there (not a recycled one the host
	 * sends itself, which has 0 or the bridge's). */
	if (in == out || (__u32)skb->skb_iif != in || now < ts ||
	    now - ts > XDPNET_LAT_MAX_AGE_NS)
		return 0;
	record(in, out,
	       tc_redirected(skb, c, out) ? XDPNET_LAT_TC : XDPNET_LAT_BRIDGE,
	       now - ts);
	return 0;
}

SEC("tp_btf/xdp_redirect")
int BPF_PROG(xdpnet_lat_xdp, const struct net_device *dev,
	     const struct bpf_prog *xdp, const void *tgt, int err,
	     enum bpf_map_type map_type, __u32 map_id, __u32 index)
{
	struct xdpnet_lat_cpu *c;
	__u32 in, out, zero = 0;
	__u64 now, ts;

	/* Cheapest test first: this fires for every XDP redirect on the host;
	 * only our XDP stage fills the slot. */
	c = bpf_map_lookup_elem(&lat_cpu, &zero);
	if (err || !c || !c->xdp_ts || c->xdp_ifindex != (__u32)dev->ifindex ||
	    !our_port(dev, &in))
		return 0;
	ts = c->xdp_ts;
	c->xdp_ts = 0;
	/* A devmap redirect: index is the map's key (xdpnet's port slot);
	 * the target device is the entry's. */
	if ((map_type != BPF_MAP_TYPE_DEVMAP &&
	     map_type != BPF_MAP_TYPE_DEVMAP_HASH) ||
	    !tgt)
		return 0;
	out = BPF_CORE_READ((const struct bpf_dtab_netdev *)tgt, dev, ifindex);
	if (out == in || !bpf_map_lookup_elem(&lat_ports, &out))
		return 0;
	now = bpf_ktime_get_ns();
	if (now < ts || now - ts > XDPNET_LAT_MAX_AGE_NS)
		return 0;
	record(in, out, XDPNET_LAT_XDP, now - ts);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
