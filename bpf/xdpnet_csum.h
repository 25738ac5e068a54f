/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * L4 checksum proof for the XDP stage.
 *
 * A guest with checksum offload sends TCP/UDP with a partial checksum
 * (virtio-net NEEDS_CSUM): the checksum field holds the folded
 * pseudo-header sum and the device is expected to finish the job. XDP
 * cannot see that flag, and an XDP redirect of an xdp_buff drops it (tun
 * writes a zeroed vnet header, a veth builds a CHECKSUM_NONE skb), so the
 * receiver would get a broken checksum. So the XDP stage redirects a frame
 * only when its L4 checksum is valid as it stands, or is a partial one
 * that it completes in place exactly as the kernel would
 * (skb_checksum_help), where the redirect drops the state
 * (xdpnet_native.h). Anything else goes to the TC stage, which keeps the
 * checksum state.
 *
 * It decides from the headers before it sums (O(1)): a field equal to the
 * pseudo-header sum looks partial, and on a buffer whose redirect keeps
 * the state (generic XDP, or a buffer it cannot tell) such a frame goes to
 * the TC stage without a sum; UDP without a checksum goes there too. A sum
 * is taken once, straight from packet memory, only where it decides: to
 * complete a partial checksum, or to prove a complete one (a complete-
 * looking field can hide a tunnel's partial inner checksum, whose outer
 * checksum was computed for the completed inner one: that sum fails).
 *
 * All sums are in native byte order (RFC 1071: one's complement sums are
 * byte-order independent as long as loads and stores agree).
 */
#ifndef XDPNET_CSUM_H
#define XDPNET_CSUM_H

#include "xdpnet_parse.h"
#include "xdpnet_native.h"
#include "xdpnet_frame.h"

/* bpf_csum_diff() takes at most 512 bytes before Linux 6.13. */
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

/* The sum of the eight bytes at p, as two 32-bit words. */
static __always_inline __u64 csum_u64(const void *p)
{
	__u64 w = *(const __u64 *)p;

	return (w & 0xffffffff) + (w >> 32);
}

/* n bytes (a power of 2, at least 64) at p through bpf_csum_diff(), which
 * is csum_partial(), where bit n of len is set. */
#define CSUM_HELPER(n)                                         \
	if (len & (n)) {                                       \
		if (p + (n) > data_end)                        \
			return XDPNET_CSUM_FAIL;               \
		s += (__u32)bpf_csum_diff(NULL, 0, p, (n), 0); \
		p += (n);                                      \
	}

#define XDPNET_CSUM_FAIL (~0ULL)

/*
 * One's complement sum (unfolded) of len bytes at offset off of the frame,
 * straight from packet memory: 512-byte chunks and the power-of-2 parts of
 * the rest from 64 up through bpf_csum_diff(), the last 0-63 bytes inline.
 * XDPNET_CSUM_FAIL when the region does not lie inside the frame.
 *
 * A global function: the verifier checks it once, on its own, rather
 * than every path through it at every path of its caller.
 */
__noinline __u64 xdpnet_csum_frame(struct xdp_md *ctx, __u32 off, __u32 len)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *p = (void *)(long)ctx->data;
	__u64 s = 0;
	__u32 i;

	if (len > XDPNET_XDP_MAX_FRAME || off > XDPNET_XDP_MAX_FRAME)
		return XDPNET_CSUM_FAIL;
	/* (Both under 4096: said so in a form the verifier keeps, which
	 * clang would otherwise drop as known.) */
	barrier_var(off);
	barrier_var(len);
	p += off & 0xfff;
	len &= 0xfff;
	for (i = 0; i < XDPNET_XDP_MAX_FRAME / XDPNET_CSUM_CHUNK; i++) {
		if (len < XDPNET_CSUM_CHUNK)
			break;
		if (p + XDPNET_CSUM_CHUNK > data_end)
			return XDPNET_CSUM_FAIL;
		s += (__u32)bpf_csum_diff(NULL, 0, p, XDPNET_CSUM_CHUNK, 0);
		p += XDPNET_CSUM_CHUNK;
		len -= XDPNET_CSUM_CHUNK;
	}
	if (len >= XDPNET_CSUM_CHUNK)
		return XDPNET_CSUM_FAIL;
	CSUM_HELPER(256)
	CSUM_HELPER(128)
	CSUM_HELPER(64)
	if (len & 32) {
		if (p + 32 > data_end)
			return XDPNET_CSUM_FAIL;
		s += csum_u64(p) + csum_u64(p + 8) + csum_u64(p + 16) +
		     csum_u64(p + 24);
		p += 32;
	}
	if (len & 16) {
		if (p + 16 > data_end)
			return XDPNET_CSUM_FAIL;
		s += csum_u64(p) + csum_u64(p + 8);
		p += 16;
	}
	if (len & 8) {
		if (p + 8 > data_end)
			return XDPNET_CSUM_FAIL;
		s += csum_u64(p);
		p += 8;
	}
	if (len & 4) {
		if (p + 4 > data_end)
			return XDPNET_CSUM_FAIL;
		s += *(__u32 *)p;
		p += 4;
	}
	if (len & 2) {
		if (p + 2 > data_end)
			return XDPNET_CSUM_FAIL;
		s += *(__u16 *)p;
		p += 2;
	}
	/* A last odd byte counts as zero-padded (little endian). */
	if (len & 1) {
		if (p + 1 > data_end)
			return XDPNET_CSUM_FAIL;
		s += *(__u8 *)p;
	}
	return s;
}

/*
 * l4: start of the L4 header, l4len its length with payload, proto the IP
 * protocol, pseudo the unfolded pseudo-header sum (0: none, ICMPv4).
 * Returns 0 when the frame is safe to redirect (after completing a
 * partial checksum in place: *fix says where), else the XDP_DEFER_*
 * counter.
 */
static __always_inline __u32 csum_prove_l4(struct xdp_md *ctx, void *data,
					   void *l4, __u32 l4len,
					   void *data_end, __u8 proto,
					   __u64 pseudo, int v4,
					   struct xdpnet_csum_fix *fix)
{
	__u32 off, hlen;
	__u16 *field, seed, fixed;
	int partial;
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
	/* UDP without a checksum proves nothing of its payload: a tunnel
	 * (VXLAN with noudpcsum; udp6zerocsumtx) may carry a partial inner
	 * checksum, whose offload state the redirect would drop. (Over
	 * IPv6, 0 is never a valid checksum otherwise.) */
	if (proto == IPPROTO_UDP && *field == 0)
		return v4 ? XDPNET_C_XDP_DEFER_UDP0 : XDPNET_C_XDP_DEFER_CSUM;
	seed = csum_fold64(pseudo);
	partial = proto != IPPROTO_ICMP && *field == seed;
	if (partial && !xdp_drops_csum_state(ctx))
		return XDPNET_C_XDP_DEFER_CSUM;
	sum = xdpnet_csum_frame(ctx, l4 - data, l4len);
	if (sum == XDPNET_CSUM_FAIL)
		return XDPNET_C_XDP_DEFER_PROTO;
	if (csum_fold64(sum + pseudo) == 0xffff)
		return 0; /* complete and valid as it stands */
	if (!partial)
		return XDPNET_C_XDP_DEFER_CSUM;
	/* Partial: the field holds the pseudo-header sum. */
	fixed = ~csum_fold64(sum);
	if (proto == IPPROTO_UDP && fixed == 0)
		fixed = 0xffff;
	*field = fixed;
	fix->off = (void *)field - data;
	fix->old = seed;
	return 0;
}

static __always_inline __u32 xdpnet_csum_ipv4(struct xdp_md *ctx, void *data,
					      void *l3, void *data_end,
					      struct xdpnet_csum_fix *fix)
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
			     ip->protocol, pseudo, 1, fix);
}

static __always_inline __u32 xdpnet_csum_ipv6(struct xdp_md *ctx, void *data,
					      void *l3, void *data_end,
					      struct xdpnet_csum_fix *fix)
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
			     ip6->nexthdr, pseudo, 0, fix);
}

#endif /* XDPNET_CSUM_H */
