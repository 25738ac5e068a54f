/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Protocol numbers and header parsing shared by every BPF program of
 * xdpnet (vmlinux.h has the structs but none of the #defines).
 */
#ifndef XDPNET_PARSE_H
#define XDPNET_PARSE_H

#define ETH_ALEN 6
#define ETH_HLEN 14
#define VLAN_HLEN 4
#define ETH_P_IP 0x0800
#define ETH_P_ARP 0x0806
#define ETH_P_8021Q 0x8100
#define ETH_P_8021AD 0x88A8
#define ETH_P_PPP_SES 0x8864

/* The tag the bridge filters VLANs by (cfg.vlan_filtering, not off). */
#define XDPNET_VF_TPID(vf) \
	((vf) == XDPNET_VF_8021AD ? ETH_P_8021AD : ETH_P_8021Q)
#define ETH_P_IPV6 0x86DD
#define VLAN_VID_MASK 0x0fff

#define IPPROTO_ICMP 1
#define IPPROTO_TCP 6
#define IPPROTO_UDP 17
#define IPPROTO_ICMPV6 58

static __always_inline int mac_is_multicast(const __u8 *mac)
{
	return mac[0] & 1;
}

/* Not a unicast station address (group or all-zero): the bridge drops a
 * frame from such a source before it looks at anything else. */
static __always_inline int mac_is_bad_source(const __u8 *mac)
{
	return (mac[0] & 1) ||
	       !(*(const __u16 *)mac | *(const __u32 *)(mac + 2));
}

static __always_inline void mac_copy(__u8 *dst, const __u8 *src)
{
	__builtin_memcpy(dst, src, ETH_ALEN);
}

#endif /* XDPNET_PARSE_H */
