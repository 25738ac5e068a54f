/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The pure part of xnb_vhost (scripts/bench_tools/xnb_vhost*.c), kept
 * apart so tests/unit/test_vring.c can drive it without a kernel, in
 * three headers: the driver's side of a split virtqueue (virtio 1.x,
 * little-endian), MRG_RXBUF reassembly and the 12-byte virtio-net header
 * here; Internet checksums and frames built and parsed in xnb_vframe.h;
 * the stamped records a payload carries in xnb_vrec.h.
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

#endif
