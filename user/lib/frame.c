// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Test frames: see frame.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf.h>
#include "lib/frame.h"

#define IP4_HLEN 20
#define IP6_HLEN 40
#define ARP_LEN 28
#define UDP_HLEN 8
#define TCP_HLEN 20
#define ICMP_HLEN 8
#define MIN_FRAME 60

static size_t l2_len(const struct xn_frame_spec *s)
{
	return ETH_HLEN + (s->vlan >= 0 ? 4 : 0);
}

static size_t l4_hlen(const struct xn_frame_spec *s)
{
	return s->l4 == XN_L4_TCP   ? TCP_HLEN
	       : s->l4 == XN_L4_UDP ? UDP_HLEN
				    : ICMP_HLEN;
}

size_t xn_frame_min_len(const struct xn_frame_spec *s)
{
	size_t n = l2_len(s);

	switch (s->l3) {
	case XN_L3_IPV4:
		return n + IP4_HLEN + l4_hlen(s);
	case XN_L3_IPV6:
		return n + IP6_HLEN + l4_hlen(s);
	case XN_L3_ARP:
		return n + ARP_LEN;
	default:
		return n;
	}
}

static void put16(__u8 *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

/* RFC 1071: the sum of 16-bit words, in network order. */
static __u32 sum16(__u32 sum, const __u8 *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (__u32)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (__u32)p[len - 1] << 8;
	return sum;
}

static __u16 fold(__u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

static int is_zero(const struct in6_addr *a)
{
	static const struct in6_addr z;

	return !memcmp(a, &z, sizeof(z));
}

/* The addresses, defaults filled in: 192.0.2.1/.2, 2001:db8::1/::2. */
static void addrs(const struct xn_frame_spec *s, int v6, __u8 *sa, __u8 *da)
{
	size_t n = v6 ? 16 : 4;

	memcpy(sa, &s->saddr, n);
	memcpy(da, &s->daddr, n);
	if (is_zero(&s->saddr))
		inet_pton(v6 ? AF_INET6 : AF_INET,
			  v6 ? "2001:db8::1" : "192.0.2.1", sa);
	if (is_zero(&s->daddr))
		inet_pton(v6 ? AF_INET6 : AF_INET,
			  v6 ? "2001:db8::2" : "192.0.2.2", da);
}

/* The L4 header and its checksum over the pseudo-header. */
static void l4(const struct xn_frame_spec *s, __u8 *p, size_t l4len,
	       const __u8 *sa, const __u8 *da, size_t alen)
{
	__u8 proto = s->l4 == XN_L4_TCP	  ? IPPROTO_TCP
		     : s->l4 == XN_L4_UDP ? IPPROTO_UDP
		     : alen == 16	  ? IPPROTO_ICMPV6
					  : IPPROTO_ICMP;
	size_t off;
	__u32 sum;

	if (s->l4 == XN_L4_UDP) {
		put16(p, 40000);
		put16(p + 2, 5201);
		put16(p + 4, (__u16)l4len);
		off = 6;
	} else if (s->l4 == XN_L4_TCP) {
		put16(p, 40000);
		put16(p + 2, 5201);
		p[7] = 1;		     /* sequence number 1 */
		p[11] = 1;		     /* acknowledging 1 */
		p[12] = (TCP_HLEN / 4) << 4; /* data offset */
		p[13] = 0x10;		     /* ACK */
		put16(p + 14, 65535);	     /* window */
		off = 16;
	} else {
		p[0] = alen == 16 ? 128 : 8; /* echo request */
		put16(p + 4, 1);	     /* identifier */
		put16(p + 6, 1);	     /* sequence */
		off = 2;
	}
	sum = s->partial && proto != IPPROTO_ICMP ? 0 : sum16(0, p, l4len);
	if (proto != IPPROTO_ICMP) { /* ICMP has no pseudo-header */
		sum = sum16(sum, sa, alen);
		sum = sum16(sum, da, alen);
		sum += proto + (__u32)l4len;
	}
	/* Partial: the pseudo-header's sum, folded, not complemented, as
	 * the kernel leaves it for the device to finish. */
	put16(p + off, s->partial && proto != IPPROTO_ICMP ? (__u16)~fold(sum)
							   : fold(sum));
	if (s->l4 == XN_L4_UDP && !p[off] && !p[off + 1])
		put16(p + off, 0xffff); /* 0 means none */
}

size_t xn_frame_build(const struct xn_frame_spec *s, __u8 *buf, size_t cap)
{
	size_t len = s->len ? s->len : MIN_FRAME, hl = l2_len(s), min;
	__u8 sa[16], da[16];
	__u8 *p = buf + hl;

	min = xn_frame_min_len(s);
	if (!s->len && len < min)
		len = min;
	if (len < min || len > cap)
		return 0;
	memset(buf, 0, len);
	memcpy(buf, s->dst, 6);
	memcpy(buf + 6, s->src, 6);
	if (s->vlan >= 0) {
		put16(buf + 12, s->tpid);
		put16(buf + 14, (__u16)s->vlan);
	}
	switch (s->l3) {
	case XN_L3_IPV4: {
		size_t tot = len - hl;

		put16(p - 2, ETH_P_IP);
		addrs(s, 0, sa, da);
		p[0] = 0x45;
		put16(p + 2, (__u16)tot);
		put16(p + 6, 0x4000); /* DF */
		p[8] = 64;
		p[9] = s->l4 == XN_L4_TCP   ? IPPROTO_TCP
		       : s->l4 == XN_L4_UDP ? IPPROTO_UDP
					    : IPPROTO_ICMP;
		memcpy(p + 12, sa, 4);
		memcpy(p + 16, da, 4);
		put16(p + 10, fold(sum16(0, p, IP4_HLEN)));
		l4(s, p + IP4_HLEN, tot - IP4_HLEN, sa, da, 4);
		break;
	}
	case XN_L3_IPV6: {
		size_t plen = len - hl - IP6_HLEN;

		put16(p - 2, ETH_P_IPV6);
		addrs(s, 1, sa, da);
		p[0] = 0x60;
		put16(p + 4, (__u16)plen);
		p[6] = s->l4 == XN_L4_TCP   ? IPPROTO_TCP
		       : s->l4 == XN_L4_UDP ? IPPROTO_UDP
					    : IPPROTO_ICMPV6;
		p[7] = 64;
		memcpy(p + 8, sa, 16);
		memcpy(p + 24, da, 16);
		l4(s, p + IP6_HLEN, plen, sa, da, 16);
		break;
	}
	case XN_L3_ARP:
		put16(p - 2, ETH_P_ARP);
		addrs(s, 0, sa, da);
		put16(p, 1); /* Ethernet */
		put16(p + 2, ETH_P_IP);
		p[4] = 6;
		p[5] = 4;
		put16(p + 6, 2); /* a reply: unicast */
		memcpy(p + 8, s->src, 6);
		memcpy(p + 14, sa, 4);
		memcpy(p + 18, s->dst, 6);
		memcpy(p + 24, da, 4);
		break;
	default:
		put16(p - 2, s->ethertype);
		break;
	}
	return len;
}

static __u16 get16(const __u8 *p)
{
	return (__u16)(p[0] << 8 | p[1]);
}

void xn_frame_describe(const __u8 *p, size_t len, char *buf, size_t n)
{
	size_t off = 12, w = 0;
	__u16 et;
	__u8 proto = 0;

	buf[0] = 0;
	if (len < ETH_HLEN) {
		snprintf(buf, n, "runt");
		return;
	}
	et = get16(p + off);
	if ((et == ETH_P_8021Q || et == ETH_P_8021AD) && len >= off + 6) {
		w = (size_t)snprintf(buf, n, "%s %u ",
				     et == ETH_P_8021Q ? "802.1Q" : "802.1ad",
				     get16(p + off + 2) & 0xfff);
		off += 4;
		et = get16(p + off);
	}
	if (w >= n)
		return;
	off += 2;
	if (et == ETH_P_IP && len >= off + IP4_HLEN)
		proto = p[off + 9];
	else if (et == ETH_P_IPV6 && len >= off + IP6_HLEN)
		proto = p[off + 6];
	if (et == ETH_P_IP || et == ETH_P_IPV6)
		snprintf(buf + w, n - w, "%s/%s",
			 et == ETH_P_IP ? "IPv4" : "IPv6",
			 proto == IPPROTO_TCP	   ? "TCP"
			 : proto == IPPROTO_UDP	   ? "UDP"
			 : proto == IPPROTO_ICMP   ? "ICMP"
			 : proto == IPPROTO_ICMPV6 ? "ICMPv6"
						   : "other");
	else if (et == ETH_P_ARP)
		snprintf(buf + w, n - w, "ARP");
	else
		snprintf(buf + w, n - w, "EtherType 0x%04x", et);
}

int xn_frame_run(int fd, int xdp, const __u8 *frame, size_t len, __u32 ifindex,
		 unsigned int repeat, __u32 *retval, __u32 *duration)
{
	struct __sk_buff skb = { .ifindex = ifindex };
	struct xdp_md md = { .ingress_ifindex = ifindex,
			     .data_end = (__u32)len };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frame,
		    .data_size_in = (__u32)len, .repeat = repeat);

	if (xdp) {
		o.ctx_in = &md;
		o.ctx_size_in = sizeof(md);
	} else {
		o.ctx_in = &skb;
		o.ctx_size_in = sizeof(skb);
	}
	if (bpf_prog_test_run_opts(fd, &o))
		return -errno;
	if (retval)
		*retval = o.retval;
	if (duration)
		*duration = o.duration;
	return 0;
}
