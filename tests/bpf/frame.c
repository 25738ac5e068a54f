// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Frames for the tests, and our own L4 checksum code (RFC 1071). */
#include <string.h>
#include <netinet/in.h>

#include "harness.h"

__u32 xt_csum_add(__u32 sum, const __u8 *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (__u32)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (__u32)p[len - 1] << 8;
	return sum;
}

__u16 xt_csum_fold(__u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

static const __u8 ip4_src[4] = { 10, 17, 201, 3 };
static const __u8 ip4_dst[4] = { 10, 17, 77, 254 };
static const __u8 ip6_src[16] = {
	0xfd, 0x00, 0x12, 0x34, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xa1, 0x01,
};
static const __u8 ip6_dst[16] = {
	0xfd, 0x00, 0x12, 0x34, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xb2, 0xfe,
};

static __u8 l4_proto(const struct xt_frame *f)
{
	switch (f->l4) {
	case L4_TCP:
		return IPPROTO_TCP;
	case L4_ICMP:
		return f->l3 == L3_IPV6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
	default:
		return IPPROTO_UDP;
	}
}

static size_t l4_hlen(__u8 proto)
{
	return proto == IPPROTO_TCP ? 20 : 8;
}

static size_t csum_field(__u8 proto)
{
	switch (proto) {
	case IPPROTO_TCP:
		return 16;
	case IPPROTO_UDP:
		return 6;
	default:
		return 2;
	}
}

static void fill_payload(__u8 *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (__u8)(i * 73 + 41);
}

/* The L4 header and payload, and its checksum field as f->csum says. */
static void put_l4(const struct xt_frame *f, __u8 *l4, size_t l4len,
		   __u32 pseudo)
{
	__u8 proto = l4_proto(f);
	size_t hlen = l4_hlen(proto), off = csum_field(proto);
	__u16 valid, partial, bad;

	if (l4len < hlen)
		l4len = hlen; /* rows never ask for less */
	memset(l4, 0, hlen);
	fill_payload(l4 + hlen, l4len - hlen);
	switch (proto) {
	case IPPROTO_UDP:
		xt_put16(l4, 40000);
		xt_put16(l4 + 2, 5201);
		xt_put16(l4 + 4, l4len);
		break;
	case IPPROTO_TCP:
		xt_put16(l4, 40000);
		xt_put16(l4 + 2, 5201);
		memcpy(l4 + 4, "\x8a\x31\x07\x42\x11\x2f\x9c\x03", 8);
		l4[12] = 5 << 4; /* data offset */
		l4[13] = 0x18;	 /* PSH, ACK */
		xt_put16(l4 + 14, 64240);
		break;
	default: /* ICMP / ICMPv6 echo request */
		l4[0] = proto == IPPROTO_ICMP ? 8 : 128;
		xt_put16(l4 + 4, 0x1234);
		xt_put16(l4 + 6, 7);
		break;
	}

	valid = ~xt_csum_fold(xt_csum_add(pseudo, l4, l4len));
	if (proto == IPPROTO_UDP && !valid)
		valid = 0xffff;
	partial = xt_csum_fold(pseudo);
	bad = valid + 0x1111;
	if (bad == partial)
		bad += 0x1111;
	switch (f->csum) {
	case CS_VALID:
		xt_put16(l4 + off, valid);
		break;
	case CS_PARTIAL:
		xt_put16(l4 + off, partial);
		break;
	case CS_BAD:
		xt_put16(l4 + off, bad);
		break;
	case CS_ZERO:
		xt_put16(l4 + off, 0);
		break;
	}
}

static size_t frame_l4len(const struct xt_frame *f)
{
	return f->l4len ? f->l4len : 64;
}

static size_t put_ipv4(const struct xt_frame *f, __u8 *p)
{
	size_t ihl = f->ip_opts ? 24 : 20, l4len = frame_l4len(f);
	__u8 proto = l4_proto(f);
	__u32 pseudo = 0;

	memset(p, 0, ihl);
	p[0] = 0x40 | ihl / 4;
	xt_put16(p + 2, ihl + l4len);
	xt_put16(p + 4, 0x1c46);
	xt_put16(p + 6, f->frag_off);
	p[8] = 64;
	p[9] = proto;
	memcpy(p + 12, ip4_src, 4);
	memcpy(p + 16, ip4_dst, 4);
	if (f->ip_opts)
		memcpy(p + 20, "\x01\x01\x01\x00", 4); /* NOP NOP NOP EOL */
	xt_put16(p + 10, ~xt_csum_fold(xt_csum_add(0, p, ihl)) ^
				 (f->ip_bad_csum ? 0x0100 : 0));

	if (proto != IPPROTO_ICMP) {
		pseudo = xt_csum_add(0, p + 12, 8);
		pseudo += proto + l4len;
	}
	put_l4(f, p + ihl, l4len, pseudo);
	return ihl + l4len;
}

static size_t put_ipv6(const struct xt_frame *f, __u8 *p)
{
	size_t ext = f->hop_by_hop ? 8 : 0, l4len = frame_l4len(f);
	__u8 proto = l4_proto(f);
	__u32 pseudo;

	memset(p, 0, 40 + ext);
	p[0] = 0x60;
	xt_put16(p + 4, ext + l4len);
	p[6] = f->hop_by_hop ? IPPROTO_HOPOPTS : proto;
	p[7] = 64;
	memcpy(p + 8, ip6_src, 16);
	memcpy(p + 24, ip6_dst, 16);
	if (f->hop_by_hop) {
		p[40] = proto;
		p[41] = 0; /* 8 bytes */
		p[42] = 1; /* PadN, 4 bytes */
		p[43] = 4;
	}

	pseudo = xt_csum_add(0, p + 8, 32);
	pseudo += proto + l4len;
	put_l4(f, p + 40 + ext, l4len, pseudo);
	return 40 + ext + l4len;
}

static size_t put_arp(const struct xt_frame *f, __u8 *p)
{
	xt_put16(p, 1); /* Ethernet */
	xt_put16(p + 2, ETH_P_IP);
	p[4] = ETH_ALEN;
	p[5] = 4;
	xt_put16(p + 6, 2); /* reply */
	memcpy(p + 8, xt_macs[f->src], ETH_ALEN);
	memcpy(p + 14, ip4_src, 4);
	memcpy(p + 18, xt_macs[f->dst], ETH_ALEN);
	memcpy(p + 24, ip4_dst, 4);
	return 28;
}

size_t xt_build_frame(const struct xt_frame *f, __u8 *buf)
{
	size_t len = 2 * ETH_ALEN;
	__u16 type;

	memset(buf, 0, XT_MAX_FRAME);
	memcpy(buf, xt_macs[f->dst], ETH_ALEN);
	memcpy(buf + ETH_ALEN, xt_macs[f->src], ETH_ALEN);
	if (f->tpid) {
		xt_put16(buf + len, f->tpid);
		xt_put16(buf + len + 2, f->vid);
		len += 4;
	}
	if (f->tpid2) {
		xt_put16(buf + len, f->tpid2);
		xt_put16(buf + len + 2, f->vid + 1);
		len += 4;
	}
	switch (f->l3) {
	case L3_IPV4:
		type = ETH_P_IP;
		len += 2 + put_ipv4(f, buf + len + 2);
		break;
	case L3_IPV6:
		type = ETH_P_IPV6;
		len += 2 + put_ipv6(f, buf + len + 2);
		break;
	case L3_ARP:
		type = ETH_P_ARP;
		len += 2 + put_arp(f, buf + len + 2);
		break;
	default:
		type = f->ethertype ? f->ethertype : ETH_P_EXPERIMENTAL;
		fill_payload(buf + len + 2, f->l4len);
		len += 2 + f->l4len;
		break;
	}
	xt_put16(buf + 12 + (f->tpid ? 4 : 0) + (f->tpid2 ? 4 : 0), type);
	if (f->pad && len < 60)
		len = 60;
	if (f->len && (size_t)(f->len - 1) <= len)
		len = f->len - 1;
	return len;
}

/* Where the L4 header of an IPv4/IPv6 TCP, UDP or ICMP frame starts, its
 * length and pseudo-header sum; 0 when the frame is not such a frame. */
static size_t l4_find(const __u8 *p, size_t len, size_t *l4len, __u32 *pseudo,
		      __u8 *proto, bool *v4)
{
	size_t off = 2 * ETH_ALEN, ihl;
	__u16 type;

	if (len < off + 2)
		return 0;
	type = xt_get16(p + off);
	if (type == ETH_P_8021Q || type == ETH_P_8021AD) {
		off += 4;
		if (len < off + 2)
			return 0;
		type = xt_get16(p + off);
	}
	off += 2;
	*pseudo = 0;
	if (type == ETH_P_IP) {
		if (len < off + 20)
			return 0;
		ihl = (p[off] & 0xf) * 4;
		*proto = p[off + 9];
		if ((xt_get16(p + off + 6) & 0x3fff) || ihl < 20 ||
		    xt_get16(p + off + 2) < ihl)
			return 0;
		*l4len = xt_get16(p + off + 2) - ihl;
		if (*proto != IPPROTO_ICMP)
			*pseudo = xt_csum_add(0, p + off + 12, 8) + *proto +
				  *l4len;
		off += ihl;
		*v4 = true;
	} else if (type == ETH_P_IPV6) {
		if (len < off + 40)
			return 0;
		*proto = p[off + 6];
		*l4len = xt_get16(p + off + 4);
		*pseudo = xt_csum_add(0, p + off + 8, 32) + *proto + *l4len;
		off += 40;
		*v4 = false;
	} else {
		return 0;
	}
	if (*proto != IPPROTO_TCP && *proto != IPPROTO_UDP &&
	    *proto != IPPROTO_ICMP && *proto != IPPROTO_ICMPV6)
		return 0;
	if (off + *l4len > len || *l4len < csum_field(*proto) + 2)
		return 0;
	return off;
}

size_t xt_l4_csum_off(const __u8 *p, size_t len)
{
	size_t l4len, off;
	__u32 pseudo;
	__u8 proto;
	bool v4;

	off = l4_find(p, len, &l4len, &pseudo, &proto, &v4);
	return off ? off + csum_field(proto) : 0;
}

int xt_l4_csum_ok(const __u8 *p, size_t len)
{
	size_t l4len, off;
	__u32 pseudo;
	__u8 proto;
	bool v4;

	off = l4_find(p, len, &l4len, &pseudo, &proto, &v4);
	if (!off)
		return -1;
	if (v4 && proto == IPPROTO_UDP && !xt_get16(p + off + 6))
		return 1; /* IPv4 UDP without a checksum */
	return xt_csum_fold(xt_csum_add(pseudo, p + off, l4len)) == 0xffff;
}
