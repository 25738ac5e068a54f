// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Reading one frame of a pcap or pcapng capture: see pcap_read.h. */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/log.h"
#include "lib/pcap_read.h"

#define LINKTYPE_ETHERNET 1
#define PCAPNG_SHB 0x0A0D0D0AU
#define PCAPNG_IDB 1U
#define PCAPNG_SPB 3U
#define PCAPNG_EPB 6U
#define PCAPNG_MAGIC 0x1A2B3C4DU
#define MAX_BLOCK (16U << 20)
#define MAX_IFS 1024

struct rd {
	FILE *f;
	const char *path;
	int swap;
	__u8 back[24]; /* read to tell pcap from pcapng, to be read again */
	size_t nback;
};

/* fread() of n bytes, the bytes read back first. */
static size_t rd(struct rd *r, void *buf, size_t n)
{
	size_t k = n < r->nback ? n : r->nback;

	memcpy(buf, r->back, k);
	memmove(r->back, r->back + k, r->nback - k);
	r->nback -= k;
	return k + (n > k ? fread((__u8 *)buf + k, 1, n - k, r->f) : 0);
}

static __u32 u32(const struct rd *r, const __u8 *p)
{
	__u32 v;

	memcpy(&v, p, 4);
	return r->swap ? __builtin_bswap32(v) : v;
}

static __u16 u16(const struct rd *r, const __u8 *p)
{
	__u16 v;

	memcpy(&v, p, 2);
	return r->swap ? __builtin_bswap16(v) : v;
}

static int bad(const struct rd *r, const char *what)
{
	xn_err("%s: %s", r->path, what);
	return -1;
}

/* The frame found: copy it out, whole. */
static int take(const struct rd *r, struct xn_pcap_frame *f, const __u8 *data,
		__u32 caplen, __u32 len, unsigned long n)
{
	if (caplen < len) {
		xn_err("%s: frame %lu was captured cut to %u of its %u bytes "
		       "(capture with a larger snap length)",
		       r->path, n, caplen, len);
		return -1;
	}
	if (len > f->cap) {
		xn_err("%s: frame %lu has %u bytes; trace takes at most %zu",
		       r->path, n, len, f->cap);
		return -1;
	}
	memcpy(f->buf, data, len);
	f->len = len;
	return 0;
}

static int read_pcap(struct rd *r, const __u8 *hdr, unsigned long n,
		     struct xn_pcap_frame *f)
{
	__u8 rec[16];
	unsigned long i;
	__u8 *data;
	int ret;

	if (u32(r, hdr + 20) != LINKTYPE_ETHERNET)
		return bad(r, "not an Ethernet capture");
	data = malloc(MAX_BLOCK);
	if (!data)
		return bad(r, strerror(ENOMEM));
	for (i = 1;; i++) {
		__u32 caplen, len;

		if (rd(r, rec, sizeof(rec)) != sizeof(rec)) {
			xn_err("%s: has %lu frames, no frame %lu", r->path,
			       i - 1, n);
			ret = -1;
			break;
		}
		caplen = u32(r, rec + 8);
		len = u32(r, rec + 12);
		if (caplen > MAX_BLOCK || rd(r, data, caplen) != caplen) {
			ret = bad(r, "truncated capture");
			break;
		}
		if (i == n) {
			ret = take(r, f, data, caplen, len, n);
			break;
		}
	}
	free(data);
	return ret;
}

/* pcapng: the next block's type and body (len bytes, in *body). 1 at the
 * end of the file, -1 on an error. */
static int block(struct rd *r, __u32 *type, __u8 **body, __u32 *len)
{
	__u8 h[8];
	__u32 total;

	if (rd(r, h, 8) != 8)
		return 1;
	if (!memcmp(h, "\x0a\x0d\x0d\x0a", 4)) {
		/* A new section: its byte order first. */
		__u8 m[4];

		if (rd(r, m, 4) != 4)
			return bad(r, "truncated capture");
		r->swap = 0;
		if (u32(r, m) != PCAPNG_MAGIC) {
			r->swap = 1;
			if (u32(r, m) != PCAPNG_MAGIC)
				return bad(r, "not a pcap or pcapng capture");
		}
		*type = PCAPNG_SHB;
		total = u32(r, h + 4);
		if (total < 16 || total > MAX_BLOCK || total % 4)
			return bad(r, "corrupt pcapng block");
		*len = total - 16;
		*body = malloc(*len + 4);
		if (!*body || rd(r, *body, *len + 4) != *len + 4)
			return bad(r, "truncated capture");
		return 0;
	}
	*type = u32(r, h);
	total = u32(r, h + 4);
	if (total < 12 || total > MAX_BLOCK || total % 4)
		return bad(r, "corrupt pcapng block");
	*len = total - 12;
	*body = malloc(*len + 4);
	if (!*body || rd(r, *body, *len + 4) != *len + 4)
		return bad(r, "truncated capture");
	return 0;
}

/* An interface description's link type, and its if_name option. */
struct iface {
	__u16 linktype;
	char name[32];
};

static void idb(const struct rd *r, const __u8 *b, __u32 len, struct iface *i)
{
	__u32 off = 8;

	memset(i, 0, sizeof(*i));
	if (len < 8)
		return;
	i->linktype = u16(r, b);
	while (off + 4 <= len) {
		__u16 code = u16(r, b + off), olen = u16(r, b + off + 2);

		if (!code || off + 4 + olen > len)
			break;
		if (code == 2) /* if_name */
			snprintf(i->name, sizeof(i->name), "%.*s", (int)olen,
				 (const char *)b + off + 4);
		off += 4 + ((olen + 3U) & ~3U);
	}
}

/* An enhanced packet's options: epb_flags (direction "outbound") and,
 * in xdpnet dump's comment of a frame that left a port, "from=PORT": the
 * port it arrived on. */
static void epb_opts(const struct rd *r, const __u8 *b, __u32 len, __u32 off,
		     struct xn_pcap_frame *f)
{
	off = (off + 3U) & ~3U;
	while (off + 4 <= len) {
		__u16 code = u16(r, b + off), olen = u16(r, b + off + 2);
		const char *v = (const char *)b + off + 4, *p;

		if (!code || off + 4 + olen > len)
			break;
		if (code == 2 && olen == 4) /* epb_flags */
			f->outbound = (u32(r, b + off + 4) & 3) == 2;
		if (code == 1 && olen > 5 && /* opt_comment */
		    (p = memmem(v, olen, " from=", 6))) {
			size_t n = 0;

			p += 6;
			while (p + n < v + olen && p[n] != ' ' &&
			       n + 1 < sizeof(f->from))
				n++;
			memcpy(f->from, p, n);
			f->from[n] = 0;
		}
		off += 4 + ((olen + 3U) & ~3U);
	}
}

static int read_pcapng(struct rd *r, unsigned long n, struct xn_pcap_frame *f)
{
	struct iface *ifs = calloc(MAX_IFS, sizeof(*ifs));
	unsigned long i = 0;
	int nifs = 0, ret = -1, e;
	__u32 type, len;
	__u8 *b = NULL;

	if (!ifs)
		return bad(r, strerror(ENOMEM));
	while (!(e = block(r, &type, &b, &len))) {
		__u32 id = 0, caplen, olen;
		const __u8 *data;

		if (type == PCAPNG_SHB) {
			nifs = 0;
		} else if (type == PCAPNG_IDB && nifs < MAX_IFS) {
			idb(r, b, len, &ifs[nifs++]);
		} else if ((type == PCAPNG_EPB && len >= 20) ||
			   (type == PCAPNG_SPB && len >= 4)) {
			if (type == PCAPNG_EPB) {
				id = u32(r, b);
				caplen = u32(r, b + 12);
				olen = u32(r, b + 16);
				data = b + 20;
			} else {
				olen = u32(r, b);
				caplen = olen < len - 4 ? olen : len - 4;
				data = b + 4;
			}
			if (id >= (__u32)nifs || caplen > len) {
				bad(r, "corrupt pcapng block");
				break;
			}
			if (++i == n) {
				if (ifs[id].linktype != LINKTYPE_ETHERNET) {
					xn_err("%s: frame %lu is not an "
					       "Ethernet frame (link type %u)",
					       r->path, n, ifs[id].linktype);
					break;
				}
				ret = take(r, f, data, caplen, olen, n);
				if (!ret)
					memcpy(f->ifname, ifs[id].name,
					       sizeof(f->ifname));
				if (!ret && type == PCAPNG_EPB)
					epb_opts(r, b, len, 20 + caplen, f);
				break;
			}
		}
		free(b);
		b = NULL;
	}
	if (e == 1)
		xn_err("%s: has %lu frames, no frame %lu", r->path, i, n);
	free(b);
	free(ifs);
	return ret;
}

int xn_pcap_read(const char *path, unsigned long n, struct xn_pcap_frame *f)
{
	struct rd r = { .path = path };
	__u8 hdr[24];
	__u32 magic;
	int ret;

	f->len = 0;
	f->ifname[0] = 0;
	f->from[0] = 0;
	f->outbound = 0;
	r.f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!r.f) {
		xn_err("cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	if (fread(hdr, 1, sizeof(hdr), r.f) != sizeof(hdr)) {
		ret = bad(&r, "not a pcap or pcapng capture");
		goto out;
	}
	memcpy(&magic, hdr, 4);
	if (magic == PCAPNG_SHB) {
		/* Read the section header again as a block. */
		memcpy(r.back, hdr, sizeof(hdr));
		r.nback = sizeof(hdr);
		ret = read_pcapng(&r, n, f);
		goto out;
	}
	if (magic == 0xa1b2c3d4U || magic == 0xa1b23c4dU) {
		r.swap = 0;
	} else if (magic == 0xd4c3b2a1U || magic == 0x4d3cb2a1U) {
		r.swap = 1;
	} else {
		ret = bad(&r, "not a pcap or pcapng capture");
		goto out;
	}
	ret = read_pcap(&r, hdr, n, f);
out:
	if (r.f != stdin)
		fclose(r.f);
	return ret;
}
