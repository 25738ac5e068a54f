/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * br_netfilter's own part (cfg.nf, set by user space). With the module
 * loaded and bridged IPv4 meeting the IP hooks (bridge-nf-call-iptables,
 * or the bridge's nf_call_iptables), the bridge checks every IPv4 packet
 * before any rule sees it (br_validate_ipv4()): it drops one whose header
 * is short, not version 4 or fails its checksum, or that claims more
 * bytes than the frame carries, and trims one that carries more. Where
 * conntrack is in use it also reassembles fragments (and fragments them
 * again on the way out). IPv6 likewise (br_validate_ipv6(): version,
 * payload length, the hop-by-hop header's lengths; nf_defrag_ipv6 behind
 * any extension header), and ARP with arptables (a frame too short for an
 * ARP header is dropped). VLAN-tagged frames get the same with
 * bridge-nf-filter-vlan-tagged, IP in PPPoE sessions with
 * bridge-nf-filter-pppoe-tagged.
 *
 * The bypass does none of that: a frame br_netfilter would drop, trim or
 * reassemble goes to the bridge (so does one this cannot tell about).
 * What is left passes br_netfilter unchanged. It is the frame's own
 * property, so it is checked on every frame, after the decision cache.
 */
#ifndef XDPNET_NF_H
#define XDPNET_NF_H

#include "xdpnet_parse.h"
#include "xdpnet_csum.h"
#include "xdpnet_state.h"
#include "xdpnet_trace.h"
#include "xdpnet_frame.h"

#define XDPNET_ARP_HLEN 8 /* struct arphdr, without the addresses */

/* Performance experiments only (scripts/bench --breakdown): a build that
 * checks no frame for br_netfilter. */
#ifndef XN_PERF_NONF
#define XN_PERF_NONF 0
#endif

/* An IPv6 extension header (ipv6_ext_hdr(): hop-by-hop, routing,
 * fragment, authentication, none, destination options): a fragment
 * header may follow it. */
static __always_inline int nf_ipv6_ext(__u8 nh)
{
	return nh == 0 || nh == 43 || nh == 44 || nh == 51 || nh == 59 ||
	       nh == 60;
}

/* An IPv4 packet of len bytes at f->l3 that br_netfilter passes as it
 * is: a header that checks out, its total length the packet's, not a
 * fragment. (A header with options is summed only where the frame holds
 * 60 bytes from it, the longest header: a shorter one goes to the
 * bridge.) */
static __always_inline int nf_ipv4_ok(const struct xdpnet_frame *f, __u32 len)
{
	const struct iphdr *ip = f->l3;
	const __u32 *w = f->l3;
	__u64 sum;
	__u32 ihl, i;

	if ((void *)(ip + 1) > f->data_end)
		return 0;
	ihl = ip->ihl;
	if (ihl < 5 || ip->version != 4 || len < ihl * 4 ||
	    bpf_ntohs(ip->tot_len) != len ||
	    (ip->frag_off & bpf_htons(0x3fff))) /* MF or an offset */
		return 0;
	sum = (__u64)w[0] + w[1] + w[2] + w[3] + w[4];
	if (ihl > 5) {
		if ((void *)(w + 15) > f->data_end)
			return 0;
#pragma unroll
		for (i = 5; i < 15; i++)
			if (i < ihl)
				sum += w[i];
	}
	return csum_fold64(sum) == 0xffff;
}

/* An IPv6 packet of len bytes that br_netfilter passes as it is: no
 * extension header, its payload length the packet's. */
static __always_inline int nf_ipv6_ok(const struct xdpnet_frame *f, __u32 len)
{
	const struct ipv6hdr *ip6 = f->l3;

	if ((void *)(ip6 + 1) > f->data_end)
		return 0;
	return ip6->version == 6 && !nf_ipv6_ext(ip6->nexthdr) &&
	       bpf_ntohs(ip6->payload_len) + sizeof(*ip6) == len;
}

/* 0: br_netfilter would pass f as it is (or does not see it), else
 * XDPNET_C_PASS_NF. */
static __always_inline __u32 decide_nf(const struct xdpnet_frame *f,
				       const enum xdpnet_stage stage,
				       struct xdpnet_trace_rec *t)
{
	__u32 nf = xdpnet_cfg.nf, len;
	int ok = 1;

	if (!nf || XN_PERF_NONF)
		return 0;
	XN_AT(t, XDPNET_CK_NF);
	if (f->tagged && !(nf & XDPNET_NF_VLAN))
		return 0;
	/* What follows the Ethernet header and tag. At TC ingress the
	 * stack has moved the tag out of the frame (a trace run's length
	 * leaves it out too). */
	len = stage == XDPNET_STAGE_TC ? f->len - ETH_HLEN
				       : f->len - (__u32)(f->l3 - f->data);
	switch (f->proto) {
	case ETH_P_IP:
		if (nf & XDPNET_NF_IP4)
			ok = nf_ipv4_ok(f, len);
		break;
	case ETH_P_IPV6:
		if (nf & XDPNET_NF_IP6)
			ok = nf_ipv6_ok(f, len);
		break;
	case ETH_P_ARP:
		if (nf & XDPNET_NF_ARP)
			ok = len >= XDPNET_ARP_HLEN;
		break;
	case ETH_P_PPP_SES:
		if (nf & XDPNET_NF_PPPOE)
			ok = 0;
		break;
	}
	return ok ? 0 : XDPNET_C_PASS_NF;
}

#endif /* XDPNET_NF_H */
