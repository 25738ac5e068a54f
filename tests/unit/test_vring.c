// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests for scripts/bench_tools/xnb_vring.h (with xnb_vframe.h and
 * xnb_vrec.h), the pure part of
 * xnb_vhost: split-ring layout, add/publish/harvest with a simulated
 * device writing the used ring as vhost would, 16-bit index wrap,
 * chains, MRG_RXBUF reassembly, the vnet header, checksums (known
 * vectors, the UDP zero rule, partial completion), TCP ACKs, records
 * and the sequence tracker.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "../../scripts/bench_tools/xnb_vring.h"
#include "../../scripts/bench_tools/xnb_vframe.h"
#include "../../scripts/bench_tools/xnb_vrec.h"

/* ---- a device's side of the ring ---- */

struct dev {
	struct xv_ring *r;
	uint16_t last_avail;
};

/* Pops the next chain: its head and descriptors (n), 0 if none. */
static int dev_pop(struct dev *d, uint16_t *head, struct xv_desc **chain,
		   unsigned int *n)
{
	struct xv_ring *r = d->r;
	uint16_t ai =
		le16toh(__atomic_load_n(&r->avail->idx, __ATOMIC_ACQUIRE));
	uint16_t i;

	if (ai == d->last_avail)
		return 0;
	*head = le16toh(r->avail->ring[d->last_avail & (r->num - 1)]);
	d->last_avail++;
	assert_true(*head < r->num);
	i = *head;
	*n = 0;
	for (;;) {
		chain[(*n)++] = &r->desc[i];
		assert_true(*n <= r->num);
		if (!(le16toh(r->desc[i].flags) & VRING_DESC_F_NEXT))
			break;
		i = le16toh(r->desc[i].next);
		assert_true(i < r->num);
	}
	return 1;
}

static void dev_push(struct dev *d, uint16_t head, uint32_t len)
{
	struct xv_ring *r = d->r;
	uint16_t ui = le16toh(r->used->idx);

	r->used->ring[ui & (r->num - 1)].id = htole32(head);
	r->used->ring[ui & (r->num - 1)].len = htole32(len);
	__atomic_store_n(&r->used->idx, htole16((uint16_t)(ui + 1)),
			 __ATOMIC_RELEASE);
}

static void *ring_mem(unsigned int num, size_t align)
{
	struct xv_layout l = { 0 };
	void *p = NULL;

	assert_int_equal(xv_layout(num, align, &l), 0);
	assert_int_equal(posix_memalign(&p, 4096, xv_align(l.size, 4096)), 0);
	return p;
}

/* xv_init on a ring of num (abort(): the compiler then knows it worked). */
static void ring_init(struct xv_ring *r, void *m, unsigned int num)
{
	if (xv_init(r, m, num, 4)) {
		print_error("xv_init(%u) failed\n", num);
		abort();
	}
}

/* ---- layout ---- */

static void test_layout(void **state)
{
	static const unsigned int nums[] = { 1, 2, 8, 64, 256, 1024, 32768 };
	static const size_t aligns[] = { 4, 64, 4096 };
	struct xv_layout l = { 0 };
	struct vring vr;
	size_t i, j;

	(void)state;
	assert_int_equal(sizeof(struct xv_desc), 16);
	assert_int_equal(sizeof(struct xv_used_elem), 8);
	assert_int_equal(sizeof(struct xv_avail), 4);
	assert_int_equal(sizeof(struct xv_used), 4);
	for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		for (j = 0; j < sizeof(aligns) / sizeof(aligns[0]); j++) {
			assert_int_equal(xv_layout(nums[i], aligns[j], &l), 0);
			/* The uapi header's legacy computation agrees. */
			assert_int_equal(l.size,
					 vring_size(nums[i], aligns[j]));
			vring_init(&vr, nums[i], (void *)4096, aligns[j]);
			assert_int_equal(l.avail, (uintptr_t)vr.avail - 4096);
			assert_int_equal(l.used, (uintptr_t)vr.used - 4096);
			assert_int_equal(l.desc % 16, 0);
			assert_int_equal(l.avail % 2, 0);
			assert_int_equal(l.used % aligns[j], 0);
			assert_true(l.used >= l.avail + 6 + 2 * nums[i]);
		}
	}
	/* 256 entries, legacy layout: 4096 + 518 -> 8192, + 2054. */
	assert_int_equal(xv_layout(256, 4096, &l), 0);
	assert_int_equal(l.avail, 4096);
	assert_int_equal(l.used, 8192);
	assert_int_equal(l.size, 10246);
	assert_int_equal(xv_layout(0, 4, &l), -1);
	assert_int_equal(xv_layout(3, 4, &l), -1);
	assert_int_equal(xv_layout(65536, 4, &l), -1);
	assert_int_equal(xv_layout(8, 2, &l), -1);
	assert_int_equal(xv_layout(8, 12, &l), -1);
}

/* ---- add, publish, harvest ---- */

static void test_add_publish_harvest(void **state)
{
	void *m = ring_mem(8, 4);
	struct xv_ring r = { 0 };
	struct dev d = { .r = &r };
	struct xv_desc *ch[8];
	struct xv_buf b;
	uint16_t heads[3], h;
	uint32_t id, len;
	unsigned int n, i;

	(void)state;
	ring_init(&r, m, 8);
	assert_int_equal(r.num_free, 8);
	for (i = 0; i < 3; i++) {
		b = (struct xv_buf){ .addr = 0x1000 * (i + 1), .len = 100 + i };
		assert_int_equal(xv_next_head(&r), i);
		heads[i] = (uint16_t)xv_add(&r, &b, i == 0, i != 0);
		assert_int_equal(heads[i], i);
	}
	assert_int_equal(r.num_free, 5);
	/* Not visible before xv_publish. */
	assert_int_equal(dev_pop(&d, &h, ch, &n), 0);
	xv_publish(&r);
	assert_int_equal(le16toh(r.avail->idx), 3);
	assert_true(xv_need_kick(&r));
	r.used->flags = htole16(VRING_USED_F_NO_NOTIFY);
	assert_false(xv_need_kick(&r));
	r.used->flags = 0;
	for (i = 0; i < 3; i++) {
		assert_int_equal(dev_pop(&d, &h, ch, &n), 1);
		assert_int_equal(h, heads[i]);
		assert_int_equal(n, 1);
		assert_int_equal(le64toh(ch[0]->addr), 0x1000 * (i + 1));
		assert_int_equal(le32toh(ch[0]->len), 100 + i);
		assert_int_equal(le16toh(ch[0]->flags),
				 i ? VRING_DESC_F_WRITE : 0);
	}
	assert_int_equal(dev_pop(&d, &h, ch, &n), 0);
	/* The device completes out of order. */
	assert_int_equal(xv_harvest(&r, &id, &len), 0);
	dev_push(&d, 2, 60);
	dev_push(&d, 0, 0);
	assert_int_equal(xv_pending(&r), 2);
	assert_int_equal(xv_harvest(&r, &id, &len), 1);
	assert_int_equal(id, 2);
	assert_int_equal(len, 60);
	assert_int_equal(xv_harvest(&r, &id, &len), 1);
	assert_int_equal(id, 0);
	assert_int_equal(xv_harvest(&r, &id, &len), 0);
	assert_int_equal(r.num_free, 7);
	dev_push(&d, 1, 99);
	assert_int_equal(xv_harvest(&r, &id, &len), 1);
	assert_int_equal(id, 1);
	assert_int_equal(len, 99);
	assert_int_equal(r.num_free, 8);
	/* Freed descriptors are reused: 8 more fit, a 9th does not. */
	b = (struct xv_buf){ .addr = 0x5000, .len = 1 };
	for (i = 0; i < 8; i++)
		assert_true(xv_add(&r, &b, 1, 0) >= 0);
	assert_int_equal(xv_add(&r, &b, 1, 0), -1);
	assert_int_equal(xv_add(&r, &b, 0, 0), -1);
	/* A device returning what it was not given breaks the ring. */
	xv_publish(&r);
	while (dev_pop(&d, &h, ch, &n))
		dev_push(&d, h, 0);
	for (i = 0; i < 8; i++)
		assert_int_equal(xv_harvest(&r, &id, &len), 1);
	dev_push(&d, 3, 0);
	assert_int_equal(xv_harvest(&r, &id, &len), -1);
	free(m);
}

static void test_bad_id(void **state)
{
	void *m = ring_mem(4, 4);
	struct xv_ring r = { 0 };
	struct dev d = { .r = &r };
	struct xv_buf b = { .addr = 0x1000, .len = 10 };
	uint32_t id, len;

	(void)state;
	ring_init(&r, m, 4);
	assert_int_equal(xv_add(&r, &b, 1, 0), 0);
	xv_publish(&r);
	dev_push(&d, 9, 0);
	assert_int_equal(xv_harvest(&r, &id, &len), -1);
	free(m);
}

/* ---- 16-bit index wrap ---- */

static void test_wrap(void **state)
{
	void *m = ring_mem(8, 4);
	struct xv_ring r = { 0 };
	struct dev d = { .r = &r };
	struct xv_desc *ch[8];
	struct xv_buf b;
	uint16_t h, expect_idx = 65531;
	uint32_t id, len, tag = 0, seen = 0;
	unsigned int n, i, round;
	int wrapped = 0;

	(void)state;
	ring_init(&r, m, 8);
	xv_set_base(&r, 65531);
	d.last_avail = 65531;
	for (round = 0; round < 10; round++) {
		for (i = 0; i < 3; i++) {
			b = (struct xv_buf){ .addr = ++tag, .len = tag };
			h = xv_next_head(&r);
			assert_int_equal(xv_add(&r, &b, 1, 0), h);
			/* The avail slot is the index modulo the size. */
			assert_int_equal(
				le16toh(r.avail->ring[(uint16_t)(expect_idx + i) &
						      7]),
				h);
		}
		xv_publish(&r);
		expect_idx = (uint16_t)(expect_idx + 3);
		assert_int_equal(le16toh(r.avail->idx), expect_idx);
		if (expect_idx < 65531)
			wrapped = 1;
		for (i = 0; i < 3; i++) {
			assert_int_equal(dev_pop(&d, &h, ch, &n), 1);
			assert_int_equal(n, 1);
			dev_push(&d, h, le32toh(ch[0]->len));
		}
		assert_int_equal(xv_pending(&r), 3);
		for (i = 0; i < 3; i++) {
			assert_int_equal(xv_harvest(&r, &id, &len), 1);
			assert_int_equal(len, ++seen);
		}
		assert_int_equal(xv_harvest(&r, &id, &len), 0);
		assert_int_equal(r.last_used, expect_idx);
		assert_int_equal(r.num_free, 8);
	}
	assert_true(wrapped);
	assert_int_equal(expect_idx, (uint16_t)(65531 + 30));
	free(m);
}

/* ---- chains ---- */

static void test_chain(void **state)
{
	void *m = ring_mem(8, 4);
	struct xv_ring r = { 0 };
	struct dev d = { .r = &r };
	struct xv_desc *ch[8];
	struct xv_buf b[5];
	uint16_t h;
	uint32_t id, len;
	unsigned int n, i;
	int h1, h2;

	(void)state;
	ring_init(&r, m, 8);
	for (i = 0; i < 5; i++)
		b[i] = (struct xv_buf){ .addr = 0x100 * (i + 1), .len = i + 1 };
	h1 = xv_add(&r, b, 2, 3);
	assert_int_equal(h1, 0);
	assert_int_equal(r.num_free, 3);
	h2 = xv_add(&r, b, 1, 2);
	assert_int_equal(h2, 5);
	assert_int_equal(xv_add(&r, b, 1, 0), -1);
	xv_publish(&r);
	assert_int_equal(dev_pop(&d, &h, ch, &n), 1);
	assert_int_equal(h, h1);
	assert_int_equal(n, 5);
	for (i = 0; i < 5; i++) {
		uint16_t fl = le16toh(ch[i]->flags);

		assert_int_equal(le64toh(ch[i]->addr), 0x100 * (i + 1));
		assert_int_equal(!!(fl & VRING_DESC_F_WRITE), i >= 2);
		assert_int_equal(!!(fl & VRING_DESC_F_NEXT), i < 4);
	}
	assert_int_equal(dev_pop(&d, &h, ch, &n), 1);
	assert_int_equal(h, h2);
	assert_int_equal(n, 3);
	dev_push(&d, (uint16_t)h2, 7);
	assert_int_equal(xv_harvest(&r, &id, &len), 1);
	assert_int_equal(id, h2);
	assert_int_equal(r.num_free, 3);
	/* The freed 3-chain takes a new 3-chain; nothing more fits. */
	assert_int_equal(xv_add(&r, b, 0, 3), h2);
	assert_int_equal(xv_add(&r, b, 1, 0), -1);
	dev_push(&d, (uint16_t)h1, 3);
	assert_int_equal(xv_harvest(&r, &id, &len), 1);
	assert_int_equal(id, h1);
	assert_int_equal(len, 3);
	assert_int_equal(r.num_free, 5);
	assert_int_equal(xv_add(&r, b, 5, 0), h1);
	assert_int_equal(r.num_free, 0);
	free(m);
}

/* ---- MRG_RXBUF ---- */

#define RXB 1024

static void test_mrg(void **state)
{
	static uint8_t pool[8][RXB], frame[3000], all[4096], out[4096];
	void *m = ring_mem(8, 4);
	struct xv_ring r = { 0 };
	struct dev d = { .r = &r };
	struct xv_desc *ch[8];
	struct xv_mrg mg = { .buf = out, .cap = sizeof(out) };
	struct xv_buf b = { .len = RXB };
	struct xv_hdr hdr = { .flags = VIRTIO_NET_HDR_F_DATA_VALID };
	uint16_t h;
	uint32_t id, len;
	size_t off, total = XV_HDR_LEN + sizeof(frame), k;
	unsigned int n, i, nb, got = 0;
	int rc = 0;

	(void)state;
	ring_init(&r, m, 8);
	for (k = 0; k < sizeof(frame); k++)
		frame[k] = (uint8_t)(k * 13 + 1);
	while (r.num_free) {
		b.addr = (uintptr_t)pool[xv_next_head(&r)];
		xv_add(&r, &b, 0, 1);
	}
	xv_publish(&r);
	/* The device: header + 3000 bytes over 1024-byte buffers. */
	nb = (unsigned int)((total + RXB - 1) / RXB);
	assert_int_equal(nb, 3);
	hdr.num_buffers = (uint16_t)nb;
	xv_hdr_put(all, &hdr);
	memcpy(all + XV_HDR_LEN, frame, sizeof(frame));
	for (i = 0, off = 0; i < nb; i++) {
		size_t c = total - off < RXB ? total - off : RXB;

		assert_int_equal(dev_pop(&d, &h, ch, &n), 1);
		assert_int_equal(n, 1);
		assert_int_equal(le32toh(ch[0]->len), RXB);
		memcpy((void *)(uintptr_t)le64toh(ch[0]->addr), all + off, c);
		off += c;
		dev_push(&d, h, (uint32_t)c);
	}
	while (xv_harvest(&r, &id, &len) == 1) {
		rc = xv_mrg_feed(&mg, pool[id], len);
		got++;
		assert_int_equal(rc, got < nb ? 0 : 1);
	}
	assert_int_equal(got, nb);
	assert_int_equal(mg.len, total);
	xv_hdr_get(out, &hdr);
	assert_int_equal(hdr.num_buffers, 3);
	assert_int_equal(hdr.flags, VIRTIO_NET_HDR_F_DATA_VALID);
	assert_memory_equal(out + XV_HDR_LEN, frame, sizeof(frame));

	/* One buffer, num_buffers 1. */
	memset(pool[0], 0, 64);
	pool[0][10] = 1;
	assert_int_equal(xv_mrg_feed(&mg, pool[0], 60), 1);
	assert_int_equal(mg.len, 60);
	/* num_buffers 0 and a buffer shorter than the header. */
	pool[0][10] = 0;
	assert_int_equal(xv_mrg_feed(&mg, pool[0], 60), -1);
	pool[0][10] = 1;
	assert_int_equal(xv_mrg_feed(&mg, pool[0], 11), -1);
	/* Too large: dropped once its last buffer is in, then in step. */
	mg.cap = 1500;
	pool[0][10] = 2;
	assert_int_equal(xv_mrg_feed(&mg, pool[0], RXB), 0);
	assert_int_equal(xv_mrg_feed(&mg, pool[1], RXB), -1);
	pool[0][10] = 1;
	assert_int_equal(xv_mrg_feed(&mg, pool[0], 100), 1);
	free(m);
}

/* ---- vnet header ---- */

static void test_hdr(void **state)
{
	static const uint8_t want[XV_HDR_LEN] = { 0x01, 0x01, 0x36, 0x00,
						  0xa8, 0x05, 0x22, 0x00,
						  0x10, 0x00, 0x03, 0x00 };
	struct xv_hdr h = { .flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
			    .gso_type = VIRTIO_NET_HDR_GSO_TCPV4,
			    .hdr_len = 54,
			    .gso_size = 1448,
			    .csum_start = 34,
			    .csum_offset = 16,
			    .num_buffers = 3 },
		      g;
	uint8_t p[XV_HDR_LEN];

	(void)state;
	assert_int_equal(sizeof(struct virtio_net_hdr_mrg_rxbuf), XV_HDR_LEN);
	xv_hdr_put(p, &h);
	assert_memory_equal(p, want, sizeof(want));
	xv_hdr_get(p, &g);
	assert_memory_equal(&g, &h, sizeof(h));
	assert_int_equal(xv_hdr_check(&h, 3000), 0);
	/* csum field past the end */
	assert_int_equal(xv_hdr_check(&h, 51), -1);
	assert_int_equal(xv_hdr_check(&h, 52), 0);
	g = h;
	g.flags = 0; /* GSO without NEEDS_CSUM */
	assert_int_equal(xv_hdr_check(&g, 3000), -1);
	g = h;
	g.gso_size = 0;
	assert_int_equal(xv_hdr_check(&g, 3000), -1);
	g = h;
	g.gso_type = 2; /* UFO's old value is not ours */
	assert_int_equal(xv_hdr_check(&g, 3000), -1);
	g = h;
	g.gso_type = VIRTIO_NET_HDR_GSO_TCPV6 | VIRTIO_NET_HDR_GSO_ECN;
	assert_int_equal(xv_hdr_check(&g, 3000), 0);
	g = (struct xv_hdr){ .flags = VIRTIO_NET_HDR_F_DATA_VALID };
	assert_int_equal(xv_hdr_check(&g, 60), 0);
	g.flags = 0x80;
	assert_int_equal(xv_hdr_check(&g, 60), -1);
	g = (struct xv_hdr){ .gso_type = VIRTIO_NET_HDR_GSO_ECN };
	assert_int_equal(xv_hdr_check(&g, 60), -1);
}

/* ---- checksums ---- */

/* A sum of our own: the words of a flat buffer. */
static uint16_t naive(const uint8_t *p, size_t n)
{
	uint32_t s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += i & 1 ? p[i] : (uint32_t)p[i] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

static void flow(struct xv_flow *f, int v6, uint8_t proto)
{
	memset(f, 0, sizeof(*f));
	memcpy(f->smac, "\x02\x00\x00\x00\x00\x01", 6);
	memcpy(f->dmac, "\x02\x00\x00\x00\x00\x02", 6);
	if (v6) {
		memcpy(f->saddr,
		       "\xfd\x00\x00\x00\x00\x00\x00\x00"
		       "\x00\x00\x00\x00\x00\x00\x00\x01",
		       16);
		memcpy(f->daddr,
		       "\xfd\x00\x00\x00\x00\x00\x00\x00"
		       "\x00\x00\x00\x00\x00\x00\x00\x02",
		       16);
	} else {
		memcpy(f->saddr, "\x0a\x00\x00\x01", 4);
		memcpy(f->daddr, "\x0a\x00\x00\x02", 4);
	}
	f->v6 = v6;
	f->proto = proto;
	f->sport = 40000;
	f->dport = 40001;
	f->tcp_seq = 1000;
}

static void test_csum_vectors(void **state)
{
	/* RFC 1071 section 3's example: sum ddf2. */
	static const uint8_t rfc[] = { 0x00, 0x01, 0xf2, 0x03,
				       0xf4, 0xf5, 0xf6, 0xf7 };
	/* An IPv4 header whose checksum is b861. */
	uint8_t ip[20] = { 0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40,
			   0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8,
			   0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7 };
	uint8_t ps[40], a6[16] = { 0xfe, 0x80 }, b6[16] = { 0xff, 0x02 };

	(void)state;
	assert_int_equal(xv_sum(0, rfc, sizeof(rfc)), 0xddf2);
	assert_int_equal(xv_csum(rfc, sizeof(rfc)), 0x220d);
	/* Split at an even offset, the sums chain. */
	assert_int_equal(xv_sum(xv_sum(0, rfc, 2), rfc + 2, 6), 0xddf2);
	/* An odd tail is padded with a zero byte. */
	assert_int_equal(xv_sum(0, rfc, 3), 0xf201);
	assert_int_equal(xv_csum(ip, 20), 0xb861);
	ip[10] = 0xb8;
	ip[11] = 0x61;
	assert_int_equal(xv_sum(0, ip, 20), 0xffff);
	/* Carries fold: ffff + ffff + 0001. */
	assert_int_equal(xv_fold(0x1ffff), 0x0001);
	assert_int_equal(xv_fold(0x2fffd), 0xffff);
	/* Pseudo-headers against a flat copy. */
	memcpy(ps, ip + 12, 8);
	memcpy(ps + 8, "\x00\x11\x00\x5f", 4);
	assert_int_equal(xv_pseudo4(ip + 12, ip + 16, 17, 0x5f), naive(ps, 12));
	a6[15] = 1;
	b6[15] = 0xfb;
	memcpy(ps, a6, 16);
	memcpy(ps + 16, b6, 16);
	memcpy(ps + 32, "\x00\x01\x23\x45\x00\x00\x00\x06", 8);
	assert_int_equal(xv_pseudo6(a6, b6, 6, 0x12345), naive(ps, 40));
}

/* Builds f's frame of plen payload bytes (pattern) in buf. */
static long mk(uint8_t *buf, struct xv_flow *f, size_t plen, int partial,
	       uint16_t mss, struct xv_hdr *h)
{
	size_t i;

	for (i = 0; i < plen; i++)
		buf[xv_hdrs_len(f) + i] = (uint8_t)(i * 7 + 3);
	return xv_build(buf, f, plen, partial, mss, h);
}

static void test_csum_frames(void **state)
{
	static uint8_t a[70000], b[70000];
	static const int cases[][2] = { { 0, XV_PROTO_UDP },
					{ 0, XV_PROTO_TCP },
					{ 1, XV_PROTO_UDP },
					{ 1, XV_PROTO_TCP } };
	struct xv_flow f, g;
	struct xv_hdr h, hf, none = { 0 };
	struct xv_pkt p;
	size_t c;
	long la, lb;

	(void)state;
	for (c = 0; c < 4; c++) {
		size_t plens[] = { 0, 1, 17, 1400 }, k;

		for (k = 0; k < 4; k++) {
			uint16_t coff = cases[c][1] == XV_PROTO_TCP ? 16 : 6;

			flow(&f, cases[c][0], (uint8_t)cases[c][1]);
			g = f;
			la = mk(a, &f, plens[k], 0, 0, &hf);
			lb = mk(b, &g, plens[k], 1, 0, &h);
			assert_true(la > 0);
			assert_int_equal(la, lb);
			assert_int_equal(hf.flags, 0);
			assert_int_equal(xv_parse(a, (size_t)la, &p), 0);
			assert_int_equal(p.plen, plens[k]);
			assert_int_equal(p.v6, cases[c][0]);
			assert_int_equal(p.sport, 40000);
			assert_int_equal(p.dport, 40001);
			assert_int_equal(xv_verify(a, &hf, &p), XV_CK_FULL);
			/* Partial: the field holds the pseudo sum ... */
			assert_int_equal(h.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
			assert_int_equal(h.csum_start, p.l4);
			assert_int_equal(h.csum_offset, coff);
			assert_int_equal(xv_get16(b + p.l4 + coff),
					 xv_pkt_pseudo(b, &p));
			assert_int_equal(xv_verify(b, &h, &p), XV_CK_PARTIAL);
			/* ... and unverified as a full one */
			if (xv_get16(b + p.l4 + coff) !=
			    xv_get16(a + p.l4 + coff))
				assert_int_equal(xv_verify(b, &none, &p),
						 XV_CK_BAD_L4);
			/* ... completed, it is the full frame. */
			assert_int_equal(xv_csum_complete(b, (size_t)lb,
							  h.csum_start,
							  h.csum_offset),
					 0);
			assert_memory_equal(a, b, (size_t)la);
			/* DATA_VALID is trusted. */
			b[p.l4 + coff] ^= 1;
			hf.flags = VIRTIO_NET_HDR_F_DATA_VALID;
			assert_int_equal(xv_verify(b, &hf, &p), XV_CK_VALID);
			hf.flags = 0;
			assert_int_equal(xv_verify(b, &hf, &p), XV_CK_BAD_L4);
			xv_fix_csums(b, &p);
			assert_memory_equal(a, b, (size_t)la);
			/* A flipped payload byte */
			if (plens[k]) {
				b[p.payload] ^= 0x40;
				assert_int_equal(xv_verify(b, &hf, &p),
						 XV_CK_BAD_L4);
				b[p.payload] ^= 0x40;
			}
			/* Swapped, every checksum still holds. */
			xv_swap(b, &p);
			assert_int_equal(xv_verify(b, &hf, &p), XV_CK_FULL);
			assert_memory_equal(b, a + 6, 6);
			assert_int_equal(xv_parse(b, (size_t)la, &p), 0);
			assert_int_equal(p.sport, 40001);
			xv_swap(b, &p);
			assert_memory_equal(a, b, (size_t)la);
			/* Wrong csum_offset, wrong pseudo sum */
			h.csum_offset = (uint16_t)(coff + 2);
			assert_int_equal(xv_verify(b, &h, &p),
					 XV_CK_BAD_PARTIAL);
			h.csum_offset = coff;
			assert_int_equal(xv_verify(b, &h, &p),
					 XV_CK_BAD_PARTIAL);
			if (!cases[c][0]) {
				b[p.l3 + 8] ^= 1; /* TTL */
				assert_int_equal(xv_verify(b, &hf, &p),
						 XV_CK_BAD_L3);
			}
		}
	}
}

static void test_udp_zero(void **state)
{
	static uint8_t a[200];
	struct xv_flow f, g;
	struct xv_hdr h;
	struct xv_pkt p;
	uint16_t c;
	long len;
	int v6;

	(void)state;
	for (v6 = 0; v6 < 2; v6++) {
		flow(&f, v6, XV_PROTO_UDP);
		g = f;
		/* With payload word 0, the checksum is c; with c there
		 * instead, the sum is ffff and the checksum would be 0. */
		memset(a, 0, sizeof(a));
		len = xv_build(a, &f, 8, 0, 0, &h);
		assert_int_equal(xv_parse(a, (size_t)len, &p), 0);
		c = xv_get16(a + p.l4 + 6);
		assert_int_not_equal(c, 0);
		a[p.payload] = (uint8_t)(c >> 8);
		a[p.payload + 1] = (uint8_t)c;
		len = xv_build(a, &g, 8, 0, 0, &h);
		assert_int_equal(xv_get16(a + p.l4 + 6), 0xffff);
		assert_int_equal(xv_verify(a, &h, &p), XV_CK_FULL);
		xv_fix_csums(a, &p);
		assert_int_equal(xv_get16(a + p.l4 + 6), 0xffff);
		/* A device completing it writes ffff too. */
		xv_put16(a + p.l4 + 6, xv_pkt_pseudo(a, &p));
		assert_int_equal(
			xv_csum_complete(a, (size_t)len, (uint16_t)p.l4, 6), 0);
		assert_int_equal(xv_get16(a + p.l4 + 6), 0xffff);
		/* 0: none for IPv4, invalid for IPv6. */
		xv_put16(a + p.l4 + 6, 0);
		assert_int_equal(xv_verify(a, &h, &p),
				 v6 ? XV_CK_BAD_L4 : XV_CK_NONE);
	}
	assert_int_equal(xv_csum_complete(a, 42, 34, 6), 0);
	assert_int_equal(xv_csum_complete(a, 41, 34, 6), -1);
}

static void test_gso_build(void **state)
{
	static uint8_t a[70000], b[70000];
	struct xv_flow f, g;
	struct xv_hdr h, hf;
	struct xv_pkt p;
	uint32_t seq = 0;
	size_t off;
	struct xv_rec rec;
	long la, lb;
	int v6;

	(void)state;
	for (v6 = 0; v6 < 2; v6++) {
		flow(&f, v6, XV_PROTO_TCP);
		g = f;
		seq = 0;
		assert_int_equal(xv_rec_fill(a + xv_hdrs_len(&f), 65000, 1000,
					     &seq, 7),
				 65);
		la = xv_build(a, &f, 65000, 1, 1000, &h);
		assert_true(la > 0);
		assert_int_equal(h.gso_type, v6 ? VIRTIO_NET_HDR_GSO_TCPV6
						: VIRTIO_NET_HDR_GSO_TCPV4);
		assert_int_equal(h.gso_size, 1000);
		assert_int_equal(h.hdr_len, xv_hdrs_len(&f));
		assert_int_equal(xv_hdr_check(&h, (size_t)la), 0);
		assert_int_equal(f.tcp_seq, 1000 + 65000);
		assert_int_equal(xv_parse(a, (size_t)la, &p), 0);
		assert_int_equal(xv_verify(a, &h, &p), XV_CK_PARTIAL);
		/* Each MSS-sized segment holds one whole record. */
		for (off = 0; off < p.plen; off += 1000) {
			assert_int_equal(xv_rec_get(a + p.payload + off, 1000,
						    &rec),
					 XV_REC_OK);
			assert_int_equal(rec.seq, off / 1000);
			assert_int_equal(rec.tag, 7);
		}
		/* Completed, the same as a full checksum. */
		memcpy(b, a, (size_t)la);
		lb = xv_build(b, &g, 65000, 0, 0, &hf);
		assert_int_equal(lb, la);
		assert_int_equal(hf.gso_type, 0);
		assert_int_equal(xv_csum_complete(a, (size_t)la, h.csum_start,
						  h.csum_offset),
				 0);
		assert_memory_equal(a, b, (size_t)la);
		/* A payload at or under the MSS is a plain frame. */
		assert_true(xv_build(a, &f, 1000, 1, 1000, &h) > 0);
		assert_int_equal(h.gso_type, 0);
	}
	/* Too long, GSO for UDP, GSO with full checksums */
	flow(&f, 0, XV_PROTO_TCP);
	assert_int_equal(xv_build(a, &f, 65535 - 40 + 1, 1, 1000, &h), -1);
	assert_true(xv_build(a, &f, 65535 - 40, 1, 1000, &h) > 0);
	assert_int_equal(xv_build(a, &f, 2000, 0, 1000, &h), -1);
	flow(&f, 1, XV_PROTO_UDP);
	assert_int_equal(xv_build(a, &f, 2000, 1, 1000, &h), -1);
	assert_true(xv_build(a, &f, 65535 - 8, 0, 0, &h) > 0);
	assert_int_equal(xv_build(a, &f, 65535 - 8 + 1, 0, 0, &h), -1);
}

static void test_parse(void **state)
{
	static uint8_t a[2000], v[2000];
	struct xv_flow f;
	struct xv_hdr h;
	struct xv_pkt p;
	long len;

	(void)state;
	flow(&f, 0, XV_PROTO_UDP);
	len = mk(a, &f, 100, 0, 0, &h);
	/* Truncated, padded, a VLAN tag, a fragment, another protocol */
	assert_int_equal(xv_parse(a, (size_t)len - 1, &p), -1);
	assert_int_equal(xv_parse(a, (size_t)len + 10, &p), 0);
	assert_int_equal(p.plen, 100);
	memcpy(v, a, 12);
	memcpy(v + 12, "\x81\x00\x00\x05", 4);
	memcpy(v + 16, a + 12, (size_t)len - 12);
	assert_int_equal(xv_parse(v, (size_t)len + 4, &p), 0);
	assert_int_equal(p.l3, 18);
	assert_int_equal(xv_verify(v, &h, &p), XV_CK_FULL);
	a[14 + 6] = 0x20; /* MF */
	assert_int_equal(xv_parse(a, (size_t)len, &p), -1);
	a[14 + 6] = 0;
	a[14 + 9] = 1; /* ICMP */
	assert_int_equal(xv_parse(a, (size_t)len, &p), -1);
	a[12] = 0x08;
	a[13] = 0x06; /* ARP */
	assert_int_equal(xv_parse(a, (size_t)len, &p), -1);
	assert_int_equal(xv_parse(a, 10, &p), -1);
}

/* A TCP ACK (xv_build_ack): headers alone, unpadded, the ACK flag and
 * number set, its checksum partial or full and valid either way. */
static void test_ack_build(void **state)
{
	static uint8_t a[200];
	struct xv_flow f;
	struct xv_hdr h;
	struct xv_pkt p;
	int v6, partial;
	long len;

	(void)state;
	for (v6 = 0; v6 < 2; v6++)
		for (partial = 0; partial < 2; partial++) {
			flow(&f, v6, XV_PROTO_TCP);
			f.tcp_seq = 7;
			len = xv_build_ack(a, &f, 0x01020304, partial, &h);
			assert_int_equal(len, v6 ? 74 : 54);
			assert_int_equal(f.tcp_seq, 7); /* no payload */
			assert_int_equal(xv_parse(a, (size_t)len, &p), 0);
			assert_int_equal(p.plen, 0);
			assert_int_equal(a[p.l4 + 13], 0x10);
			assert_memory_equal(a + p.l4 + 8, "\x01\x02\x03\x04",
					    4);
			assert_int_equal(h.gso_type, 0);
			assert_int_equal(xv_verify(a, &h, &p),
					 partial ? XV_CK_PARTIAL : XV_CK_FULL);
			/* What a redirect that drops the offload state
			 * delivers: the partial one is then broken. */
			memset(&h, 0, sizeof(h));
			assert_int_equal(xv_verify(a, &h, &p),
					 partial ? XV_CK_BAD_L4 : XV_CK_FULL);
		}
	flow(&f, 0, XV_PROTO_UDP);
	assert_int_equal(xv_build_ack(a, &f, 1, 1, &h), -1);
}

/* ---- records and sequences ---- */

static void test_records(void **state)
{
	static uint8_t a[4000];
	struct xv_rec r;
	uint32_t seq = 41;
	size_t off;
	int i;

	(void)state;
	/* FNV-1a 32 of "a" */
	assert_int_equal(xv_fnv1a(XV_FNV_BASIS, (const uint8_t *)"a", 1),
			 0xe40c292cu);
	assert_int_equal(xv_rec_fill(a, 2500, 1000, &seq, 3), 3);
	assert_int_equal(seq, 44);
	for (off = 0, i = 0; off < 2500; off += r.len, i++) {
		assert_int_equal(xv_rec_get(a + off, 2500 - off, &r),
				 XV_REC_OK);
		assert_int_equal(r.seq, 41 + i);
		assert_int_equal(r.tag, 3);
		assert_int_equal(r.len, i < 2 ? 1000 : 500);
	}
	assert_int_equal(i, 3);
	/* A corrupted byte anywhere after the magic */
	for (off = 4; off < 1000; off += 97) {
		a[off] ^= 0x10;
		assert_int_not_equal(xv_rec_get(a, 2500, &r), XV_REC_OK);
		a[off] ^= 0x10;
	}
	a[500] ^= 1;
	assert_int_equal(xv_rec_get(a, 2500, &r), XV_REC_DIGEST);
	a[500] ^= 1;
	a[0] ^= 1;
	assert_int_equal(xv_rec_get(a, 2500, &r), XV_REC_FORMAT);
	a[0] ^= 1;
	/* Longer than what is left, shorter than a header */
	assert_int_equal(xv_rec_get(a, 999, &r), XV_REC_FORMAT);
	assert_int_equal(xv_rec_get(a, 15, &r), XV_REC_FORMAT);
	xv_put16(a + 10, 15);
	assert_int_equal(xv_rec_get(a, 2500, &r), XV_REC_FORMAT);
	/* A last record shorter than its header, a unit too small */
	assert_int_equal(xv_rec_fill(a, 2005, 1000, &seq, 0), -1);
	assert_int_equal(xv_rec_fill(a, 2016, 1000, &seq, 0), 3);
	assert_int_equal(xv_rec_fill(a, 100, 15, &seq, 0), -1);
	assert_int_equal(xv_rec_fill(a, 15, 100, &seq, 0), -1);
	assert_int_equal(xv_rec_fill(a, 16, 100, &seq, 0), 1);
}

static void test_seq(void **state)
{
	static struct xv_seq t;
	uint32_t s;

	(void)state;
	memset(&t, 0, sizeof(t));
	assert_int_equal(xv_seq_note(&t, 0), XV_SEQ_NEW);
	assert_int_equal(xv_seq_note(&t, 1), XV_SEQ_NEW);
	assert_int_equal(xv_seq_note(&t, 2), XV_SEQ_NEW);
	/* A gap of two */
	assert_int_equal(xv_seq_note(&t, 5), XV_SEQ_GAP);
	assert_int_equal(t.missing, 2);
	/* One fills in late, then again: a duplicate */
	assert_int_equal(xv_seq_note(&t, 3), XV_SEQ_LATE);
	assert_int_equal(t.missing, 1);
	assert_int_equal(xv_seq_note(&t, 3), XV_SEQ_DUP);
	assert_int_equal(xv_seq_note(&t, 5), XV_SEQ_DUP);
	assert_int_equal(xv_seq_note(&t, 0), XV_SEQ_DUP);
	assert_int_equal(xv_seq_note(&t, 4), XV_SEQ_LATE);
	assert_int_equal(xv_seq_note(&t, 6), XV_SEQ_NEW);
	assert_int_equal(t.uniq, 7);
	assert_int_equal(t.missing, 0);
	assert_int_equal(t.dups, 3);
	assert_int_equal(t.late, 2);
	/* Bits reused across the window are cleared as it moves. */
	for (s = 7; s < 3 * XV_SEQ_WIN; s++)
		if (s % 1000)
			assert_int_not_equal(xv_seq_note(&t, s), XV_SEQ_DUP);
	assert_int_equal(t.missing, 12);
	assert_int_equal(xv_seq_note(&t, 3 * XV_SEQ_WIN - 1), XV_SEQ_DUP);
	assert_int_equal(xv_seq_note(&t, 11000), XV_SEQ_LATE);
	assert_int_equal(t.missing, 11);
	/* Too far back to tell; a jump past the window */
	assert_int_equal(xv_seq_note(&t, 1), XV_SEQ_OLD);
	assert_int_equal(t.old, 1);
	assert_int_equal(xv_seq_note(&t, 10 * XV_SEQ_WIN), XV_SEQ_GAP);
	assert_int_equal(t.missing, 11 + 7 * XV_SEQ_WIN);
	assert_int_equal(xv_seq_note(&t, 10 * XV_SEQ_WIN - 5), XV_SEQ_LATE);
	assert_int_equal(xv_seq_note(&t, 10 * XV_SEQ_WIN - 5), XV_SEQ_DUP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_add_publish_harvest),
		cmocka_unit_test(test_bad_id),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_chain),
		cmocka_unit_test(test_mrg),
		cmocka_unit_test(test_hdr),
		cmocka_unit_test(test_csum_vectors),
		cmocka_unit_test(test_csum_frames),
		cmocka_unit_test(test_udp_zero),
		cmocka_unit_test(test_gso_build),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_ack_build),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_seq),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
