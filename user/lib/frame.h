/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A test frame from a few fields (xdpnet trace --src --dst ...), with
 * valid checksums. */
#ifndef XN_FRAME_H
#define XN_FRAME_H

#include <stddef.h>
#include <netinet/in.h>
#include <linux/types.h>

enum xn_frame_l3 { XN_L3_IPV4, XN_L3_IPV6, XN_L3_ARP, XN_L3_RAW };
enum xn_frame_l4 { XN_L4_UDP, XN_L4_TCP, XN_L4_ICMP };

struct xn_frame_spec {
	__u8 src[6], dst[6];
	int vlan;   /* VLAN of a tag after the addresses, -1: none */
	__u16 tpid; /* its protocol: ETH_P_8021Q or ETH_P_8021AD */
	enum xn_frame_l3 l3;
	__u16 ethertype; /* XN_L3_RAW: the EtherType */
	enum xn_frame_l4 l4;
	/* IPv4 (in the first 4 bytes) or IPv6 addresses; all zero: the
	 * documentation prefixes' .1 and .2 */
	struct in6_addr saddr, daddr;
	unsigned int len; /* the whole frame, Ethernet header included (no
			     FCS); 0: the least, 60 bytes as on the wire */
	int partial;	  /* TCP, UDP, ICMPv6: the checksum as a sender with
			     checksum offload leaves it (CHECKSUM_PARTIAL): the
			     pseudo-header's sum, not the whole segment's */
};

/* The bytes of the headers alone (the least --len there can be). */
size_t xn_frame_min_len(const struct xn_frame_spec *s);

/* Builds s into buf (cap bytes). Returns its length, 0 when s->len is
 * shorter than the headers or longer than cap. */
size_t xn_frame_build(const struct xn_frame_spec *s, __u8 *buf, size_t cap);

/* Run the datapath program fd (an XDP program when xdp, else TC) once on
 * len bytes of frame as if it arrived on ifindex (BPF_PROG_TEST_RUN),
 * repeat times over (at least once): 0 with *retval and the mean
 * *duration (ns; either may be NULL), or -errno. */
int xn_frame_run(int fd, int xdp, const __u8 *frame, size_t len, __u32 ifindex,
		 unsigned int repeat, __u32 *retval, __u32 *duration);

/* "IPv4/UDP", "802.1Q 10 IPv6/TCP", "ARP", "EtherType 0x88b5": what a
 * frame is, from its bytes (at most one tag looked behind). */
void xn_frame_describe(const __u8 *p, size_t len, char *buf, size_t n);

#endif
