/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The pure part of xnb_vhost (scripts/bench_tools/xnb_vhost.c), kept apart
 * so tests/unit/test_vring.c can drive it without a kernel: the driver's
 * side of a split virtqueue (virtio 1.x, little-endian), MRG_RXBUF
 * reassembly, the 12-byte virtio-net header, Internet checksums, frames
 * built and parsed, and the stamped records a payload carries (magic,
 * sequence, stream tag, length, FNV-1a digest) with a sequence tracker.
 */
#ifndef XNB_VRING_H
#define XNB_VRING_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/virtio_net.h>
#include <linux/virtio_ring.h>

/* ---- split virtqueue ---------------------------------------------------- */

#define XV_MAX_NUM 32768

struct xv_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};

struct xv_avail {
	uint16_t flags;
	uint16_t idx;
	uint16_t ring[]; /* num entries, then used_event */
};

struct xv_used_elem {
	uint32_t id;
	uint32_t len;
};

struct xv_used {
	uint16_t flags;
	uint16_t idx;
	struct xv_used_elem ring[]; /* num entries, then avail_event */
};

/* Offsets of the three parts of one ring from its start, and its size. */
struct xv_layout {
	size_t desc, avail, used, size;
};

static inline size_t xv_align(size_t x, size_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/*
 * num: a power of two up to 32768; used_align: where the used ring starts
 * (4 is what virtio 1.x requires, 4096 the legacy layout). 0 or -1.
 */
static inline int xv_layout(unsigned int num, size_t used_align,
			    struct xv_layout *l)
{
	if (!num || num > XV_MAX_NUM || (num & (num - 1)) || used_align < 4 ||
	    (used_align & (used_align - 1)))
		return -1;
	l->desc = 0;
	l->avail = sizeof(struct xv_desc) * num;
	l->used = xv_align(l->avail + 4 + 2 * num + 2, used_align);
	l->size = l->used + 4 + sizeof(struct xv_used_elem) * num + 2;
	return 0;
}

/* The driver's state of one ring: the free descriptors form a list. */
struct xv_ring {
	unsigned int num;
	struct xv_desc *desc;
	struct xv_avail *avail;
	struct xv_used *used;
	unsigned int num_free;
	uint16_t free_head;
	uint16_t avail_idx; /* the next avail entry (not yet published) */
	uint16_t last_used; /* the next used entry to harvest */
};

/* Zeroes the ring at mem (xv_layout's size) and frees every descriptor. */
static inline int xv_init(struct xv_ring *r, void *mem, unsigned int num,
			  size_t used_align)
{
	struct xv_layout l;
	unsigned int i;

	if (xv_layout(num, used_align, &l) || ((uintptr_t)mem & 15))
		return -1;
	memset(mem, 0, l.size);
	r->num = num;
	r->desc = (struct xv_desc *)((char *)mem + l.desc);
	r->avail = (struct xv_avail *)((char *)mem + l.avail);
	r->used = (struct xv_used *)((char *)mem + l.used);
	for (i = 0; i < num; i++)
		r->desc[i].next = htole16((uint16_t)((i + 1) % num));
	r->num_free = num;
	r->free_head = 0;
	r->avail_idx = 0;
	r->last_used = 0;
	return 0;
}

/*
 * Both indices start at idx (what VHOST_SET_VRING_BASE must be told) on
 * an empty ring: the tests start near 65535 to cross the wrap.
 */
static inline void xv_set_base(struct xv_ring *r, uint16_t idx)
{
	r->avail_idx = idx;
	r->last_used = idx;
	r->avail->idx = htole16(idx);
	r->used->idx = htole16(idx);
}

/* The descriptor the next xv_add's chain starts with. */
static inline uint16_t xv_next_head(const struct xv_ring *r)
{
	return r->free_head;
}

struct xv_buf {
	uint64_t addr;
	uint32_t len;
};

/*
 * Chains out device-readable then in device-writable buffers and queues
 * the chain in the avail ring (unpublished). Its head, or -1: too few
 * free descriptors, or none asked for.
 */
static inline int xv_add(struct xv_ring *r, const struct xv_buf *b,
			 unsigned int out, unsigned int in)
{
	unsigned int n = out + in, i;
	uint16_t head = r->free_head, d = head;

	if (!n || n > r->num_free)
		return -1;
	for (i = 0; i < n; i++) {
		struct xv_desc *x = &r->desc[d];
		uint16_t fl = 0;

		if (i >= out)
			fl |= VRING_DESC_F_WRITE;
		if (i + 1 < n)
			fl |= VRING_DESC_F_NEXT;
		x->addr = htole64(b[i].addr);
		x->len = htole32(b[i].len);
		x->flags = htole16(fl);
		/* The free list's link is the chain's: d's next stays. */
		d = le16toh(x->next);
	}
	r->free_head = d;
	r->num_free -= n;
	r->avail->ring[r->avail_idx & (r->num - 1)] = htole16(head);
	r->avail_idx++;
	return head;
}

/* Makes the added chains visible to the device. */
static inline void xv_publish(struct xv_ring *r)
{
	__atomic_store_n(&r->avail->idx, htole16(r->avail_idx),
			 __ATOMIC_RELEASE);
}

/* After xv_publish: does the device want a kick? */
static inline int xv_need_kick(const struct xv_ring *r)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return !(le16toh(__atomic_load_n(&r->used->flags, __ATOMIC_RELAXED)) &
		 VRING_USED_F_NO_NOTIFY);
}

/* Used entries the device has written and we have not harvested. */
static inline unsigned int xv_pending(const struct xv_ring *r)
{
	uint16_t u = le16toh(__atomic_load_n(&r->used->idx, __ATOMIC_ACQUIRE));

	return (uint16_t)(u - r->last_used);
}

/* Returns the chain at head to the free list: its length, or -1. */
static inline int xv_free_chain(struct xv_ring *r, uint16_t head)
{
	unsigned int n = 1;
	uint16_t d = head;

	if (head >= r->num)
		return -1;
	while (le16toh(r->desc[d].flags) & VRING_DESC_F_NEXT) {
		d = le16toh(r->desc[d].next);
		if (d >= r->num || ++n > r->num - r->num_free)
			return -1;
	}
	r->desc[d].next = htole16(r->free_head);
	r->desc[d].flags = 0;
	r->free_head = head;
	r->num_free += n;
	return (int)n;
}

/*
 * Takes the next used entry: 1 with its chain's head and the bytes the
 * device wrote, 0 when there is none, -1 when the device broke the ring
 * (an id out of range, more entries than buffers).
 */
static inline int xv_harvest(struct xv_ring *r, uint32_t *id, uint32_t *len)
{
	const struct xv_used_elem *e;
	unsigned int p = xv_pending(r);

	if (!p)
		return 0;
	if (p > r->num - r->num_free)
		return -1;
	e = &r->used->ring[r->last_used & (r->num - 1)];
	*id = le32toh(e->id);
	*len = le32toh(e->len);
	if (*id >= r->num || xv_free_chain(r, (uint16_t)*id) < 0)
		return -1;
	r->last_used++;
	return 1;
}

/* ---- virtio-net header -------------------------------------------------- */

#define XV_HDR_LEN 12 /* struct virtio_net_hdr_mrg_rxbuf */

struct xv_hdr {
	uint8_t flags, gso_type;
	uint16_t hdr_len, gso_size, csum_start, csum_offset, num_buffers;
};

static inline void xv_put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline uint16_t xv_get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline void xv_hdr_put(uint8_t *p, const struct xv_hdr *h)
{
	p[0] = h->flags;
	p[1] = h->gso_type;
	xv_put_le16(p + 2, h->hdr_len);
	xv_put_le16(p + 4, h->gso_size);
	xv_put_le16(p + 6, h->csum_start);
	xv_put_le16(p + 8, h->csum_offset);
	xv_put_le16(p + 10, h->num_buffers);
}

static inline void xv_hdr_get(const uint8_t *p, struct xv_hdr *h)
{
	h->flags = p[0];
	h->gso_type = p[1];
	h->hdr_len = xv_get_le16(p + 2);
	h->gso_size = xv_get_le16(p + 4);
	h->csum_start = xv_get_le16(p + 6);
	h->csum_offset = xv_get_le16(p + 8);
	h->num_buffers = xv_get_le16(p + 10);
}

/* A header that makes sense for a frame of len bytes: 0 or -1. */
static inline int xv_hdr_check(const struct xv_hdr *h, size_t len)
{
	unsigned int gso = h->gso_type & ~VIRTIO_NET_HDR_GSO_ECN;

	if (h->flags &
	    ~(VIRTIO_NET_HDR_F_NEEDS_CSUM | VIRTIO_NET_HDR_F_DATA_VALID))
		return -1;
	if ((h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) &&
	    (size_t)h->csum_start + h->csum_offset + 2 > len)
		return -1;
	if (gso == VIRTIO_NET_HDR_GSO_NONE)
		return h->gso_type ? -1 : 0;
	if (gso != VIRTIO_NET_HDR_GSO_TCPV4 &&
	    gso != VIRTIO_NET_HDR_GSO_TCPV6 && gso != VIRTIO_NET_HDR_GSO_UDP)
		return -1;
	return (h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) && h->gso_size ? 0 : -1;
}

/* ---- MRG_RXBUF: one frame over num_buffers used buffers ------------------ */

struct xv_mrg {
	uint8_t *buf; /* the frame's vnet header and frame, assembled */
	size_t cap, len;
	unsigned int want, got;
	int bad;
};

/*
 * Feeds the next used rx buffer. 1: buf holds a whole frame (len bytes,
 * num_buffers as the device wrote it); 0: more buffers to come; -1: the
 * frame is malformed (no header, num_buffers 0, larger than cap) and is
 * dropped, reported once its last buffer has gone by when that is known.
 */
static inline int xv_mrg_feed(struct xv_mrg *m, const uint8_t *data, size_t len)
{
	if (!m->got) {
		m->len = 0;
		m->bad = 0;
		if (len < XV_HDR_LEN)
			return -1;
		m->want = xv_get_le16(data + 10);
		if (!m->want)
			return -1;
	}
	if (!m->bad && m->len + len <= m->cap) {
		memcpy(m->buf + m->len, data, len);
		m->len += len;
	} else {
		m->bad = 1;
	}
	if (++m->got < m->want)
		return 0;
	m->got = 0;
	return m->bad ? -1 : 1;
}

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

/* ---- stamped records --------------------------------------------------- */

/*
 * A payload is a run of records: magic, seq, tag, len (the record's,
 * header included), digest (FNV-1a of seq, tag, len and the body), body.
 * Big-endian. A GSO frame's records are gso_size long, so each segment
 * the kernel cuts from it still holds whole records.
 */
#define XV_MAGIC 0x584e4256u /* "XNBV" */
#define XV_REC_HDR 16

struct xv_rec {
	uint32_t seq;
	uint16_t tag, len;
};

enum xv_rec_err { XV_REC_OK = 0, XV_REC_FORMAT = -1, XV_REC_DIGEST = -2 };

static inline uint32_t xv_fnv1a(uint32_t h, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

#define XV_FNV_BASIS 2166136261u

static inline void xv_put32(uint8_t *p, uint32_t v)
{
	xv_put16(p, (uint16_t)(v >> 16));
	xv_put16(p + 2, (uint16_t)v);
}

static inline uint32_t xv_get32(const uint8_t *p)
{
	return (uint32_t)xv_get16(p) << 16 | xv_get16(p + 2);
}

static inline uint32_t xv_rec_digest(const uint8_t *p, size_t len)
{
	return xv_fnv1a(xv_fnv1a(XV_FNV_BASIS, p + 4, 8), p + XV_REC_HDR,
			len - XV_REC_HDR);
}

/* One record of len bytes (XV_REC_HDR at least) at p; its body varies. */
static inline void xv_rec_put(uint8_t *p, uint32_t seq, uint16_t tag,
			      uint16_t len)
{
	size_t i;

	xv_put32(p, XV_MAGIC);
	xv_put32(p + 4, seq);
	xv_put16(p + 8, tag);
	xv_put16(p + 10, len);
	for (i = XV_REC_HDR; i < len; i++)
		p[i] = (uint8_t)(seq * 131 + i * 7);
	xv_put32(p + 12, xv_rec_digest(p, len));
}

/* The record at p (avail bytes left): XV_REC_OK with r, or the error. */
static inline int xv_rec_get(const uint8_t *p, size_t avail, struct xv_rec *r)
{
	if (avail < XV_REC_HDR || xv_get32(p) != XV_MAGIC)
		return XV_REC_FORMAT;
	r->seq = xv_get32(p + 4);
	r->tag = xv_get16(p + 8);
	r->len = xv_get16(p + 10);
	if (r->len < XV_REC_HDR || r->len > avail)
		return XV_REC_FORMAT;
	if (xv_get32(p + 12) != xv_rec_digest(p, r->len))
		return XV_REC_DIGEST;
	return XV_REC_OK;
}

/*
 * Fills plen bytes with records of unit bytes (the last may be shorter),
 * numbered from *seq on. The records written, or -1 when plen or unit
 * would leave a record shorter than its header.
 */
static inline int xv_rec_fill(uint8_t *p, size_t plen, size_t unit,
			      uint32_t *seq, uint16_t tag)
{
	size_t off = 0, n;
	int recs = 0;

	if (unit < XV_REC_HDR || unit > 0xffff || plen < XV_REC_HDR ||
	    (plen % unit && plen % unit < XV_REC_HDR))
		return -1;
	while (off < plen) {
		n = plen - off < unit ? plen - off : unit;
		xv_rec_put(p + off, (*seq)++, tag, (uint16_t)n);
		off += n;
		recs++;
	}
	return recs;
}

/* ---- sequence tracking ------------------------------------------------- */

#define XV_SEQ_WIN 4096 /* how far back a late record is told from a dup */

enum xv_seq_kind {
	XV_SEQ_NEW,  /* the next expected */
	XV_SEQ_GAP,  /* ahead: the ones between are missing (for now) */
	XV_SEQ_LATE, /* fills a gap: reordered */
	XV_SEQ_DUP,  /* seen before */
	XV_SEQ_OLD,  /* too far back to tell */
};

/* One stream's: expects 0, 1, 2, ... */
struct xv_seq {
	uint32_t next; /* one past the highest seen */
	uint64_t uniq, missing, dups, late, old;
	uint64_t bits[XV_SEQ_WIN / 64]; /* seen, for [next - WIN, next) */
};

static inline void xv_seq_bit(struct xv_seq *t, uint32_t s, int set)
{
	uint64_t m = 1ull << (s % 64);
	uint64_t *w = &t->bits[(s % XV_SEQ_WIN) / 64];

	*w = set ? *w | m : *w & ~m;
}

static inline int xv_seq_note(struct xv_seq *t, uint32_t s)
{
	int32_t d = (int32_t)(s - t->next);
	uint32_t i;

	if (d >= 0) {
		if (d >= XV_SEQ_WIN)
			memset(t->bits, 0, sizeof(t->bits));
		else
			for (i = t->next; i != s; i++)
				xv_seq_bit(t, i, 0);
		xv_seq_bit(t, s, 1);
		t->missing += (uint32_t)d;
		t->next = s + 1;
		t->uniq++;
		return d ? XV_SEQ_GAP : XV_SEQ_NEW;
	}
	if (-(int64_t)d > XV_SEQ_WIN) {
		t->old++;
		return XV_SEQ_OLD;
	}
	if (t->bits[(s % XV_SEQ_WIN) / 64] & (1ull << (s % 64))) {
		t->dups++;
		return XV_SEQ_DUP;
	}
	xv_seq_bit(t, s, 1);
	t->missing--;
	t->late++;
	t->uniq++;
	return XV_SEQ_LATE;
}

#endif
