/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xnb_vhost's payloads (see xnb_vring.h): stamped records (magic, sequence,
 * stream tag, length, FNV-1a digest) and a tracker of each stream's
 * sequence (gaps, duplicates, reordering).
 */
#ifndef XNB_VREC_H
#define XNB_VREC_H

#include "xnb_vframe.h" /* xv_get16, xv_put16 */

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
