/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xnb_vhost's frames (see xnb_vring.h): Internet checksums (RFC 1071), the
 * flow a frame belongs to, frames built (records, ACKs) and parsed, their
 * checksums verified as the virtio-net header says, and answered.
 */
#ifndef XNB_VFRAME_H
#define XNB_VFRAME_H

#include "xnb_vring.h"

/* ---- Internet checksum (RFC 1071) ---------------------------------------- */

static inline uint16_t xv_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline void xv_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline uint16_t xv_fold(uint64_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/*
 * Adds n bytes (big-endian words; an odd last byte is padded with zero, so
 * only the last range of a sum may be odd) to the folded sum s.
 */
static inline uint16_t xv_sum(uint16_t s, const void *data, size_t n)
{
	const uint8_t *p = data;
	uint64_t acc = s;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		acc += xv_get16(p + i);
	if (n & 1)
		acc += (uint64_t)p[n - 1] << 8;
	return xv_fold(acc);
}

/* The value of a checksum field over n bytes (field zeroed). */
static inline uint16_t xv_csum(const void *data, size_t n)
{
	return (uint16_t)~xv_sum(0, data, n);
}

/* The folded sum of the IPv4 / IPv6 pseudo-header. */
static inline uint16_t xv_pseudo4(const uint8_t *saddr, const uint8_t *daddr,
				  uint8_t proto, uint32_t l4len)
{
	uint64_t s = proto + (l4len >> 16) + (l4len & 0xffff);

	return xv_sum(xv_sum(xv_fold(s), saddr, 4), daddr, 4);
}

static inline uint16_t xv_pseudo6(const uint8_t *saddr, const uint8_t *daddr,
				  uint8_t proto, uint32_t l4len)
{
	uint64_t s = proto + (l4len >> 16) + (l4len & 0xffff);

	return xv_sum(xv_sum(xv_fold(s), saddr, 16), daddr, 16);
}

/*
 * What a device does with NEEDS_CSUM: sums from csum_start to the end
 * (the field holds the pseudo-header sum) and stores the checksum at
 * csum_start + csum_offset, 0 sent as 0xffff. 0 or -1.
 */
static inline int xv_csum_complete(uint8_t *f, size_t len, uint16_t start,
				   uint16_t off)
{
	uint16_t c;

	if ((size_t)start + off + 2 > len)
		return -1;
	c = (uint16_t)~xv_sum(0, f + start, len - start);
	xv_put16(f + start + off, c ? c : 0xffff);
	return 0;
}

/* ---- frames ------------------------------------------------------------ */

#define XV_ETH_LEN 14
#define XV_PROTO_TCP 6
#define XV_PROTO_UDP 17

struct xv_flow {
	uint8_t dmac[6], smac[6];
	int v6;
	uint8_t saddr[16], daddr[16]; /* IPv4: the first 4 bytes */
	uint8_t proto;		      /* XV_PROTO_TCP or XV_PROTO_UDP */
	uint16_t sport, dport;
	uint32_t tcp_seq; /* advanced by every frame xv_build makes */
	uint16_t ip_id;
};

/* Ethernet + IP + L4 header bytes before a frame's payload. */
static inline size_t xv_hdrs_len(const struct xv_flow *f)
{
	return XV_ETH_LEN + (f->v6 ? 40 : 20) +
	       (f->proto == XV_PROTO_TCP ? 20 : 8);
}

/*
 * Writes the headers of a frame whose plen payload bytes are already at
 * frame + xv_hdrs_len(f), and its vnet header into h. partial: NEEDS_CSUM
 * (the L4 field holds the pseudo-header sum) instead of a full checksum;
 * mss: TCP only, needs partial, a GSO frame when the payload exceeds it.
 * The frame's length, or -1 (too long, or a combination that is not).
 */
static inline long xv_build(uint8_t *frame, struct xv_flow *f, size_t plen,
			    int partial, uint16_t mss, struct xv_hdr *h)
{
	size_t l3 = XV_ETH_LEN, l4 = l3 + (f->v6 ? 40 : 20);
	size_t l4hl = f->proto == XV_PROTO_TCP ? 20 : 8;
	size_t l4len = l4hl + plen, len = l4 + l4len;
	uint8_t *ip = frame + l3, *th = frame + l4;
	uint16_t ps, coff = f->proto == XV_PROTO_TCP ? 16 : 6;

	if ((f->proto != XV_PROTO_TCP && f->proto != XV_PROTO_UDP) ||
	    (mss && (f->proto != XV_PROTO_TCP || !partial)) ||
	    (f->v6 ? l4len : l4len + 20) > 0xffff)
		return -1;
	memset(h, 0, sizeof(*h));
	memcpy(frame, f->dmac, 6);
	memcpy(frame + 6, f->smac, 6);
	if (f->v6) {
		xv_put16(frame + 12, 0x86dd);
		memset(ip, 0, 40);
		ip[0] = 0x60;
		xv_put16(ip + 4, (uint16_t)l4len);
		ip[6] = f->proto;
		ip[7] = 64;
		memcpy(ip + 8, f->saddr, 16);
		memcpy(ip + 24, f->daddr, 16);
		ps = xv_pseudo6(f->saddr, f->daddr, f->proto, (uint32_t)l4len);
	} else {
		xv_put16(frame + 12, 0x0800);
		memset(ip, 0, 20);
		ip[0] = 0x45;
		xv_put16(ip + 2, (uint16_t)(l4len + 20));
		xv_put16(ip + 4, f->ip_id++);
		if (f->proto == XV_PROTO_TCP)
			xv_put16(ip + 6, 0x4000); /* DF */
		ip[8] = 64;
		ip[9] = f->proto;
		memcpy(ip + 12, f->saddr, 4);
		memcpy(ip + 16, f->daddr, 4);
		xv_put16(ip + 10, xv_csum(ip, 20));
		ps = xv_pseudo4(f->saddr, f->daddr, f->proto, (uint32_t)l4len);
	}
	memset(th, 0, l4hl);
	xv_put16(th, f->sport);
	xv_put16(th + 2, f->dport);
	if (f->proto == XV_PROTO_TCP) {
		th[4] = (uint8_t)(f->tcp_seq >> 24);
		th[5] = (uint8_t)(f->tcp_seq >> 16);
		th[6] = (uint8_t)(f->tcp_seq >> 8);
		th[7] = (uint8_t)f->tcp_seq;
		f->tcp_seq += (uint32_t)plen;
		th[12] = 5 << 4;
		th[13] = 0x18; /* PSH, ACK */
		xv_put16(th + 14, 0xffff);
	} else {
		xv_put16(th + 4, (uint16_t)l4len);
	}
	if (partial) {
		xv_put16(th + coff, ps);
		h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		h->csum_start = (uint16_t)l4;
		h->csum_offset = coff;
	} else {
		uint16_t c = (uint16_t)~xv_sum(ps, th, l4len);

		if (!c && f->proto == XV_PROTO_UDP)
			c = 0xffff;
		xv_put16(th + coff, c);
	}
	if (mss && plen > mss) {
		h->gso_type = f->v6 ? VIRTIO_NET_HDR_GSO_TCPV6
				    : VIRTIO_NET_HDR_GSO_TCPV4;
		h->gso_size = mss;
		h->hdr_len = (uint16_t)(l4 + l4hl);
	}
	return (long)len;
}

/*
 * A TCP ACK of the headers alone (54 B over IPv4, 74 B over IPv6,
 * unpadded, as virtio-net sends it) from flow f, acknowledging ack_seq;
 * its checksum partial or full as xv_build() makes it. The frame's
 * length, or -1.
 */
static inline long xv_build_ack(uint8_t *frame, struct xv_flow *f,
				uint32_t ack_seq, int partial, struct xv_hdr *h)
{
	size_t l4 = XV_ETH_LEN + (f->v6 ? 40 : 20);
	uint8_t *th = frame + l4;
	long len;

	if (f->proto != XV_PROTO_TCP)
		return -1;
	len = xv_build(frame, f, 0, partial, 0, h);
	if (len < 0)
		return -1;
	th[8] = (uint8_t)(ack_seq >> 24);
	th[9] = (uint8_t)(ack_seq >> 16);
	th[10] = (uint8_t)(ack_seq >> 8);
	th[11] = (uint8_t)ack_seq;
	th[13] = 0x10; /* ACK */
	if (!partial) {
		/* Full: summed again over the header as it is now. */
		uint16_t ps =
			f->v6 ? xv_pseudo6(f->saddr, f->daddr, f->proto, 20)
			      : xv_pseudo4(f->saddr, f->daddr, f->proto, 20);

		xv_put16(th + 16, 0);
		xv_put16(th + 16, (uint16_t)~xv_sum(ps, th, 20));
	}
	return len;
}

/* A parsed frame: offsets from its start. */
struct xv_pkt {
	size_t l3, l4, payload, plen, l4len;
	int v6;
	uint8_t proto;
	uint16_t sport, dport;
};

/*
 * Ethernet (one 802.1Q tag at most), IPv4 without fragments or IPv6
 * without extension headers, then UDP or TCP. 0, or -1 for anything else
 * or a truncated frame.
 */
static inline int xv_parse(const uint8_t *f, size_t len, struct xv_pkt *p)
{
	size_t l3 = XV_ETH_LEN, l4, iplen, l4hl;
	uint16_t et;

	memset(p, 0, sizeof(*p));
	if (len < l3)
		return -1;
	et = xv_get16(f + 12);
	if (et == 0x8100) {
		if (len < l3 + 4)
			return -1;
		et = xv_get16(f + 16);
		l3 += 4;
	}
	if (et == 0x0800) {
		size_t ihl;

		if (len < l3 + 20 || f[l3] >> 4 != 4)
			return -1;
		ihl = (size_t)(f[l3] & 15) * 4;
		iplen = xv_get16(f + l3 + 2);
		if (ihl < 20 || iplen < ihl || l3 + iplen > len ||
		    (xv_get16(f + l3 + 6) & 0x3fff))
			return -1;
		p->proto = f[l3 + 9];
		l4 = l3 + ihl;
		p->l4len = iplen - ihl;
	} else if (et == 0x86dd) {
		if (len < l3 + 40 || f[l3] >> 4 != 6)
			return -1;
		iplen = 40 + (size_t)xv_get16(f + l3 + 4);
		if (l3 + iplen > len)
			return -1;
		p->v6 = 1;
		p->proto = f[l3 + 6];
		l4 = l3 + 40;
		p->l4len = iplen - 40;
	} else {
		return -1;
	}
	if (p->proto == XV_PROTO_TCP) {
		if (p->l4len < 20)
			return -1;
		l4hl = (size_t)(f[l4 + 12] >> 4) * 4;
		if (l4hl < 20 || l4hl > p->l4len)
			return -1;
	} else if (p->proto == XV_PROTO_UDP) {
		l4hl = 8;
		if (p->l4len < 8 || xv_get16(f + l4 + 4) != p->l4len)
			return -1;
	} else {
		return -1;
	}
	p->l3 = l3;
	p->l4 = l4;
	p->payload = l4 + l4hl;
	p->plen = p->l4len - l4hl;
	p->sport = xv_get16(f + l4);
	p->dport = xv_get16(f + l4 + 2);
	return 0;
}

enum xv_ck {
	XV_CK_FULL,	   /* both checksums verified */
	XV_CK_PARTIAL,	   /* NEEDS_CSUM: the pseudo-header sum verified */
	XV_CK_VALID,	   /* DATA_VALID: trusted */
	XV_CK_NONE,	   /* IPv4 UDP without a checksum */
	XV_CK_BAD_L3,	   /* IPv4 header checksum */
	XV_CK_BAD_L4,	   /* full L4 checksum */
	XV_CK_BAD_PARTIAL, /* NEEDS_CSUM: offsets or pseudo-header sum */
};

static inline int xv_ck_bad(enum xv_ck c)
{
	return c >= XV_CK_BAD_L3;
}

static inline uint16_t xv_pkt_pseudo(const uint8_t *f, const struct xv_pkt *p)
{
	const uint8_t *ip = f + p->l3;

	return p->v6 ? xv_pseudo6(ip + 8, ip + 24, p->proto, (uint32_t)p->l4len)
		     : xv_pseudo4(ip + 12, ip + 16, p->proto,
				  (uint32_t)p->l4len);
}

/* Checks a parsed frame's checksums as its vnet header says to. */
static inline enum xv_ck xv_verify(const uint8_t *f, const struct xv_hdr *h,
				   const struct xv_pkt *p)
{
	uint16_t coff = p->proto == XV_PROTO_TCP ? 16 : 6, ps, field;

	if (!p->v6 &&
	    xv_sum(0, f + p->l3, (size_t)(f[p->l3] & 15) * 4) != 0xffff)
		return XV_CK_BAD_L3;
	ps = xv_pkt_pseudo(f, p);
	field = xv_get16(f + p->l4 + coff);
	if (h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
		if (h->csum_start != p->l4 || h->csum_offset != coff)
			return XV_CK_BAD_PARTIAL;
		/* 0 and 0xffff are the same sum. */
		if (field != ps && xv_fold((uint32_t)field + 0xffff) !=
					   xv_fold((uint32_t)ps + 0xffff))
			return XV_CK_BAD_PARTIAL;
		return XV_CK_PARTIAL;
	}
	if (h->flags & VIRTIO_NET_HDR_F_DATA_VALID)
		return XV_CK_VALID;
	if (p->proto == XV_PROTO_UDP && !field)
		return p->v6 ? XV_CK_BAD_L4 : XV_CK_NONE;
	return xv_sum(ps, f + p->l4, p->l4len) == 0xffff ? XV_CK_FULL
							 : XV_CK_BAD_L4;
}

/* Rewrites a parsed frame's full checksums (IPv4 header and L4). */
static inline void xv_fix_csums(uint8_t *f, const struct xv_pkt *p)
{
	uint16_t coff = p->proto == XV_PROTO_TCP ? 16 : 6, c;

	if (!p->v6) {
		size_t ihl = (size_t)(f[p->l3] & 15) * 4;

		xv_put16(f + p->l3 + 10, 0);
		xv_put16(f + p->l3 + 10, xv_csum(f + p->l3, ihl));
	}
	xv_put16(f + p->l4 + coff, 0);
	c = (uint16_t)~xv_sum(xv_pkt_pseudo(f, p), f + p->l4, p->l4len);
	if (!c && p->proto == XV_PROTO_UDP)
		c = 0xffff;
	xv_put16(f + p->l4 + coff, c);
}

/*
 * Swaps a parsed frame's MACs, addresses and ports in place. Every sum is
 * unchanged by it (addition commutes), so are its checksums, full or
 * partial.
 */
static inline void xv_swap(uint8_t *f, const struct xv_pkt *p)
{
	uint8_t t[16];
	size_t a = p->v6 ? 8 : 12, n = p->v6 ? 16 : 4;

	memcpy(t, f, 6);
	memcpy(f, f + 6, 6);
	memcpy(f + 6, t, 6);
	memcpy(t, f + p->l3 + a, n);
	memcpy(f + p->l3 + a, f + p->l3 + a + n, n);
	memcpy(f + p->l3 + a + n, t, n);
	memcpy(t, f + p->l4, 2);
	memcpy(f + p->l4, f + p->l4 + 2, 2);
	memcpy(f + p->l4 + 2, t, 2);
}

#endif
