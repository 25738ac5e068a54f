/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * L4 checksum proof for the XDP stage.
 *
 * A guest with checksum offload sends TCP/UDP with a partial checksum
 * (virtio-net NEEDS_CSUM): the checksum field holds the folded
 * pseudo-header sum and the device is expected to finish the job. XDP
 * cannot see that flag, and an XDP redirect into another tap writes a vnet
 * header without it, so the receiver would get a broken checksum. Here we
 * compute the checksum over the whole segment and either find it valid as
 * it stands, or find the field equal to the pseudo-header sum and complete
 * it exactly as the kernel would (skb_checksum_help), or give up (the
 * frame goes to the TC stage, which keeps the checksum state).
 *
 * Completing is only right where the redirect really drops the offload
 * state: an xdp_buff redirect. Generic (skb-backed) XDP redirects the skb
 * and keeps CHECKSUM_PARTIAL, and a completed field would then be summed a
 * second time by whoever finishes the checksum (a guest that forwards the
 * packet, for one). The caller says which via may_complete.
 *
 * All sums are in native byte order (RFC 1071: one's complement sums are
 * byte-order independent as long as loads and stores agree).
 */
#ifndef XDPNET_CSUM_H
#define XDPNET_CSUM_H

#include "xdpnet_parse.h"

#define XDPNET_CSUM_CHUNK 512

static __always_inline __u16 csum_fold64(__u64 s)
{
	s = (s & 0xffffffff) + (s >> 32);
	s = (s & 0xffffffff) + (s >> 32);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (__u16)s;
}

struct xdpnet_scratch {
	__u8 buf[XDPNET_CSUM_CHUNK];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xdpnet_scratch);
} csum_scratch SEC(".maps");

/*
 * One's complement sum (unfolded) of len bytes at offset off of the frame.
 * Copies through a per-CPU scratch buffer: offsets stay scalars, which
 * keeps the verifier's work linear. Returns -1 when the region does not
 * lie inside the frame.
 */
static __always_inline int csum_region(struct xdp_md *ctx, __u32 off, __u32 len,
				       __u64 *sum)
{
	struct xdpnet_scratch *sc;
	__u32 zero = 0, n, i;
	__u64 s = 0;

	sc = bpf_map_lookup_elem(&csum_scratch, &zero);
	if (!sc || len > XDPNET_XDP_MAX_FRAME)
		return -1;
	for (i = 0; i < XDPNET_XDP_MAX_FRAME / XDPNET_CSUM_CHUNK; i++) {
		if (len < XDPNET_CSUM_CHUNK)
			break;
		if (bpf_xdp_load_bytes(ctx, off, sc->buf, XDPNET_CSUM_CHUNK))
			return -1;
		s += (__u32)bpf_csum_diff(NULL, 0, (__be32 *)sc->buf,
					  XDPNET_CSUM_CHUNK, 0);
		off += XDPNET_CSUM_CHUNK;
		len -= XDPNET_CSUM_CHUNK;
	}
	if (len >= XDPNET_CSUM_CHUNK)
		return -1;
	if (len) {
		/* len is in [1, 511]; say so in a form the verifier keeps. */
		len = ((len - 1) & (XDPNET_CSUM_CHUNK - 1)) + 1;
		if (bpf_xdp_load_bytes(ctx, off, sc->buf, len))
			return -1;
		n = len & (XDPNET_CSUM_CHUNK - 4);
		if (n)
			s += (__u32)bpf_csum_diff(NULL, 0, (__be32 *)sc->buf, n,
						  0);
		if (len & 2) {
			s += *(__u16 *)(sc->buf + n);
			n += 2;
		}
		/* A last odd byte counts as zero-padded (little endian). */
		if (len & 1)
			s += sc->buf[n & (XDPNET_CSUM_CHUNK - 1)];
	}
	*sum = s;
	return 0;
}

/*
 * l4: start of the L4 header, l4len its length with payload, proto the IP
 * protocol, pseudo the unfolded pseudo-header sum (0: none, ICMPv4).
 * may_complete: a partial checksum may be completed in place. Returns 0
 * when the frame is safe to redirect (possibly after completing its
 * checksum), else the XDP_DEFER_* counter.
 */
static __always_inline __u32 csum_prove_l4(struct xdp_md *ctx, void *data,
					   void *l4, __u32 l4len,
					   void *data_end, __u8 proto,
					   __u64 pseudo, int v4,
					   int may_complete)
{
	__u32 off, hlen;
	__u16 *field, fixed;
	__u64 sum;

	switch (proto) {
	case IPPROTO_TCP:
		off = 16;
		hlen = 20;
		break;
	case IPPROTO_UDP:
		off = 6;
		hlen = 8;
		break;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		off = 2;
		hlen = 4;
		break;
	default:
		return XDPNET_C_XDP_DEFER_PROTO;
	}
	if (l4len < hlen || l4 + hlen > data_end)
		return XDPNET_C_XDP_DEFER_PROTO;
	field = l4 + off;
	if ((void *)(field + 1) > data_end)
		return XDPNET_C_XDP_DEFER_PROTO;
	/* IPv4 UDP without a checksum proves nothing of its payload: a
	 * tunnel (VXLAN with noudpcsum) may carry a partial inner checksum,
	 * whose offload state the redirect would drop. */
	if (proto == IPPROTO_UDP && v4 && *field == 0)
		return XDPNET_C_XDP_DEFER_UDP0;
	if (csum_region(ctx, l4 - data, l4len, &sum))
		return XDPNET_C_XDP_DEFER_PROTO;
	if (csum_fold64(sum + pseudo) == 0xffff)
		return 0; /* complete and valid as it stands */
	if (!may_complete || proto == IPPROTO_ICMP ||
	    *field != csum_fold64(pseudo))
		return XDPNET_C_XDP_DEFER_CSUM;
	/* Partial checksum: the field holds the pseudo-header sum. */
	fixed = ~csum_fold64(sum);
	if (proto == IPPROTO_UDP && fixed == 0)
		fixed = 0xffff;
	*field = fixed;
	return 0;
}

static __always_inline __u32 xdpnet_csum_ipv4(struct xdp_md *ctx, void *data,
					      void *l3, void *data_end,
					      int may_complete)
{
	struct iphdr *ip = l3;
	__u32 ihl, tot;
	__u64 pseudo;

	if ((void *)(ip + 1) > data_end)
		return XDPNET_C_XDP_DEFER_PROTO;
	ihl = ip->ihl * 4;
	if (ihl < sizeof(*ip) || ip->version != 4)
		return XDPNET_C_XDP_DEFER_PROTO;
	if (ip->frag_off & bpf_htons(0x3fff)) /* MF or an offset */
		return XDPNET_C_XDP_DEFER_PROTO;
	tot = bpf_ntohs(ip->tot_len);
	if (tot < ihl || tot - ihl > XDPNET_XDP_MAX_FRAME)
		return XDPNET_C_XDP_DEFER_PROTO;
	pseudo = 0;
	if (ip->protocol != IPPROTO_ICMP)
		pseudo = (__u64)ip->saddr + ip->daddr +
			 bpf_htons((__u16)ip->protocol) +
			 bpf_htons((__u16)(tot - ihl));
	return csum_prove_l4(ctx, data, l3 + ihl, tot - ihl, data_end,
			     ip->protocol, pseudo, 1, may_complete);
}

static __always_inline __u32 xdpnet_csum_ipv6(struct xdp_md *ctx, void *data,
					      void *l3, void *data_end,
					      int may_complete)
{
	struct ipv6hdr *ip6 = l3;
	__u32 *a, plen, i;
	__u64 pseudo = 0;

	if ((void *)(ip6 + 1) > data_end)
		return XDPNET_C_XDP_DEFER_PROTO;
	if (ip6->nexthdr != IPPROTO_TCP && ip6->nexthdr != IPPROTO_UDP &&
	    ip6->nexthdr != IPPROTO_ICMPV6)
		return XDPNET_C_XDP_DEFER_PROTO; /* extension headers too */
	plen = bpf_ntohs(ip6->payload_len);
	if (plen > XDPNET_XDP_MAX_FRAME)
		return XDPNET_C_XDP_DEFER_PROTO;
	a = (__u32 *)&ip6->saddr; /* saddr and daddr: 8 words */
	for (i = 0; i < 8; i++)
		pseudo += a[i];
	pseudo += bpf_htons((__u16)plen) + bpf_htons((__u16)ip6->nexthdr);
	return csum_prove_l4(ctx, data, l3 + sizeof(*ip6), plen, data_end,
			     ip6->nexthdr, pseudo, 0, may_complete);
}

#endif /* XDPNET_CSUM_H */
