// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A pcapng writer: see pcapng.h (and draft-ietf-opsawg-pcapng). */
#include <stdint.h>
#include <string.h>
#include "render/pcapng.h"

enum {
	BT_SHB = 0x0A0D0D0A,
	BT_IDB = 1,
	BT_ISB = 5,
	BT_EPB = 6,
	OPT_END = 0,
	OPT_COMMENT = 1,
	OPT_SHB_USERAPPL = 4,
	OPT_IF_NAME = 2,
	OPT_IF_DESCRIPTION = 3,
	OPT_IF_TSRESOL = 9,
	OPT_EPB_FLAGS = 2,
	OPT_ISB_IFRECV = 4,
	OPT_ISB_OSDROP = 7,
	LINKTYPE_ETHERNET = 1,
};

static __u32 pad4(size_t n)
{
	return (__u32)((n + 3) & ~(size_t)3);
}

/* A block under construction. */
struct blk {
	__u8 b[4096 + 65536];
	size_t n;
};

static void put(struct blk *k, const void *p, size_t n)
{
	if (k->n + n > sizeof(k->b))
		n = sizeof(k->b) - k->n;
	memcpy(k->b + k->n, p, n);
	k->n += n;
}

static void put32(struct blk *k, __u32 v)
{
	put(k, &v, 4);
}

static void put16(struct blk *k, __u16 v)
{
	put(k, &v, 2);
}

static void put_pad(struct blk *k)
{
	static const __u8 z[4];

	put(k, z, pad4(k->n) - k->n);
}

static void opt(struct blk *k, __u16 code, const void *v, size_t n)
{
	put16(k, code);
	put16(k, (__u16)n);
	put(k, v, n);
	put_pad(k);
}

static void opt_str(struct blk *k, __u16 code, const char *s)
{
	if (s && *s)
		opt(k, code, s, strlen(s));
}

/* type, length, body (k), length: written out. */
static int emit(FILE *f, __u32 type, struct blk *k)
{
	__u32 len = (__u32)(k->n + 12);

	return fwrite(&type, 4, 1, f) == 1 && fwrite(&len, 4, 1, f) == 1 &&
			       fwrite(k->b, 1, k->n, f) == k->n &&
			       fwrite(&len, 4, 1, f) == 1
		       ? 0
		       : -1;
}

static struct blk blk; /* one writer at a time */

int xn_pcapng_header(FILE *f, const char *app)
{
	__u64 sect_len = UINT64_MAX;

	blk.n = 0;
	put32(&blk, 0x1A2B3C4D); /* byte-order magic */
	put16(&blk, 1);
	put16(&blk, 0);
	put(&blk, &sect_len, 8);
	opt_str(&blk, OPT_SHB_USERAPPL, app);
	opt(&blk, OPT_END, NULL, 0);
	return emit(f, BT_SHB, &blk);
}

int xn_pcapng_interface(FILE *f, const char *name, const char *descr,
			__u32 snaplen)
{
	__u8 tsresol = 9; /* nanoseconds */

	blk.n = 0;
	put16(&blk, LINKTYPE_ETHERNET);
	put16(&blk, 0);
	put32(&blk, snaplen);
	opt_str(&blk, OPT_IF_NAME, name);
	opt_str(&blk, OPT_IF_DESCRIPTION, descr);
	opt(&blk, OPT_IF_TSRESOL, &tsresol, 1);
	opt(&blk, OPT_END, NULL, 0);
	return emit(f, BT_IDB, &blk);
}

int xn_pcapng_packet(FILE *f, __u32 ifid, __u64 ts_ns, const void *data,
		     __u32 caplen, __u32 len, enum xn_pcapng_dir dir,
		     const char *comment)
{
	__u32 flags = dir; /* bits 0-1: 1 inbound, 2 outbound */

	if (caplen > 65536)
		caplen = 65536;
	blk.n = 0;
	put32(&blk, ifid);
	put32(&blk, (__u32)(ts_ns >> 32));
	put32(&blk, (__u32)ts_ns);
	put32(&blk, caplen);
	put32(&blk, len);
	put(&blk, data, caplen);
	put_pad(&blk);
	opt(&blk, OPT_EPB_FLAGS, &flags, 4);
	opt_str(&blk, OPT_COMMENT, comment);
	opt(&blk, OPT_END, NULL, 0);
	return emit(f, BT_EPB, &blk);
}

int xn_pcapng_stats(FILE *f, __u32 ifid, __u64 ts_ns, __u64 recv, __u64 osdrop)
{
	blk.n = 0;
	put32(&blk, ifid);
	put32(&blk, (__u32)(ts_ns >> 32));
	put32(&blk, (__u32)ts_ns);
	opt(&blk, OPT_ISB_IFRECV, &recv, 8);
	opt(&blk, OPT_ISB_OSDROP, &osdrop, 8);
	opt(&blk, OPT_END, NULL, 0);
	return emit(f, BT_ISB, &blk);
}
