// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Tests of the xdpnet datapath: xdpnet_tc and xdpnet_xdp run through
 * BPF_PROG_TEST_RUN against maps that the test fills itself.
 *
 * Every test is one row of a table: a frame (described in a struct frame,
 * built by build_frame()), its ingress port, and what each run of it must
 * produce, in order: the program's return code, the counter it adds on the
 * ingress port and the port it counts as the redirect target. A test run
 * does not carry out a redirect, so the target is read back from the
 * per-CPU stats map (XDPNET_C_RX_REDIRECTED on the target port). Each run
 * also checks that no other counter moved on any port, that the TC program
 * hands the frame back unchanged, that the XDP program changes it only to
 * complete a partial checksum, and that whatever the XDP program redirects
 * carries a valid L4 checksum (verified here with our own code).
 *
 * The devices live in a network namespace of our own (unshare), so they
 * disappear with the process.
 *
 * BPF_PROG_TEST_RUN cannot give the TC program a frame shorter than an
 * Ethernet header (the kernel refuses it) nor a VLAN tag in skb metadata
 * (struct __sk_buff's vlan fields are not accepted as input): runts and
 * tagged frames are run through the XDP program only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <cmocka.h>

#include "xdpnet.h"
#include "xdpnet.skel.h"

#define TC_ACT_REDIRECT 7
#define TC_ACT_UNSPEC_RET 0xffffffffu /* TC_ACT_UNSPEC (-1), as retval */

#define ETH_P_EXPERIMENTAL 0x88b5 /* IEEE local experimental EtherType */
#define MAX_FRAME 4096
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_STEPS 6
#define NS_PER_SEC 1000000000ULL
/* Longer than any uptime: bpf_ktime_get_ns() counts from boot, and an
 * entry that was never handed to the bridge (bridge_ns 0) must not look
 * refreshed at boot. */
#define REFRESH_NS (1ULL << 62)
#define GONE_IFINDEX 999999 /* no such device */

/* Ports. Each is one end of a veth pair in our namespace. */
enum port {
	PORT_A, /* usual ingress port */
	PORT_B, /* usual target; MTU 9000 */
	PORT_C, /* MTU 1500 */
	PORT_D, /* cannot take XDP redirects (no XDPNET_PORT_XDP_TARGET) */
	PORT_E, /* in tx_ports only: not attached */
	PORT_F, /* in ports only: not attached */
	NR_PORTS,
	PORT_GONE = NR_PORTS, /* an ifindex with no device */
	NO_PORT = -1,
};

#define PF_STD                                                       \
	(XDPNET_PORT_LEARNING | XDPNET_PORT_XDP | XDPNET_PORT_VETH | \
	 XDPNET_PORT_XDP_TARGET)

static const struct port_def {
	const char *dev, *peer;
	bool in_ports, in_tx_ports;
	__u32 flags;
	int mtu;
} port_defs[NR_PORTS] = {
	[PORT_A] = { "xbt0", "xbt1", true, true, PF_STD, 1500 },
	[PORT_B] = { "xbt2", "xbt3", true, true, PF_STD, 9000 },
	[PORT_C] = { "xbt4", "xbt5", true, true, PF_STD, 1500 },
	[PORT_D] = { "xbt6", "xbt7", true, true,
		     XDPNET_PORT_LEARNING | XDPNET_PORT_XDP | XDPNET_PORT_VETH,
		     1500 },
	[PORT_E] = { "xbt8", "xbt9", false, true, PF_STD, 1500 },
	[PORT_F] = { "xbt10", "xbt11", true, false, PF_STD, 1500 },
};

enum mac {
	MAC_A,	/* behind A */
	MAC_A2, /* also behind A */
	MAC_B,
	MAC_C,
	MAC_D,
	MAC_E,
	MAC_F,
	MAC_GONE,    /* behind an ifindex with no device */
	MAC_X,	     /* VLAN tests: known in VLAN 20 only */
	MAC_LOCAL,   /* the host's own address */
	MAC_UNKNOWN, /* in no FDB entry */
	MAC_NEW,     /* in no FDB entry, used as a source */
	MAC_BCAST,
	MAC_MCAST4,
	MAC_MCAST6,
	MAC_ZERO,
	NR_MACS,
};

static const __u8 macs[NR_MACS][ETH_ALEN] = {
	[MAC_A] = { 0x02, 0x00, 0x5e, 0x10, 0x00, 0x0a },
	[MAC_A2] = { 0x02, 0x00, 0x5e, 0x10, 0x00, 0xa2 },
	[MAC_B] = { 0x02, 0x00, 0x5e, 0x10, 0x00, 0x0b },
	[MAC_C] = { 0x02, 0x00, 0x5e, 0x10, 0x00, 0x0c },
	[MAC_D] = { 0x02, 0x00, 0x5e, 0x10, 0x00, 0x0d },
	[MAC_E] = { 0x02, 0x00, 0x5e, 0x10, 0x00, 0x0e },
	[MAC_F] = { 0x02, 0x00, 0x5e, 0x10, 0x00, 0x0f },
	[MAC_GONE] = { 0x02, 0x00, 0x5e, 0x10, 0x00, 0x99 },
	[MAC_X] = { 0x02, 0x00, 0x5e, 0x10, 0x00, 0x55 },
	[MAC_LOCAL] = { 0x02, 0x00, 0x5e, 0x10, 0x00, 0x01 },
	[MAC_UNKNOWN] = { 0x02, 0x00, 0x5e, 0x10, 0x00, 0x77 },
	[MAC_NEW] = { 0x02, 0x00, 0x5e, 0x10, 0x00, 0x88 },
	[MAC_BCAST] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	[MAC_MCAST4] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb },
	[MAC_MCAST6] = { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 },
	[MAC_ZERO] = { 0 },
};

/* FDB and VLAN membership, per test group. */
struct fdb_def {
	enum mac mac;
	__u16 vid;
	enum port port;
	__u32 flags;
};

struct vlan_def {
	enum port port;
	__u16 vid;
	__u32 flags;
};

struct topology {
	__u16 pvid[NR_PORTS];
	const struct fdb_def *fdb;
	size_t nr_fdb;
	const struct vlan_def *vlans;
	size_t nr_vlans;
};

/* A frame, as build_frame() makes it. Zero is a sensible default for every
 * field: from port A, an IPv4/UDP datagram with a valid checksum. */
enum l3 { L3_IPV4, L3_IPV6, L3_ARP, L3_RAW };
enum l4 { L4_UDP, L4_TCP, L4_ICMP /* ICMPv6 over IPv6 */ };

enum csum {
	CS_VALID,   /* complete and valid */
	CS_PARTIAL, /* the folded pseudo-header sum (CHECKSUM_PARTIAL) */
	CS_BAD,	    /* neither */
	CS_ZERO,    /* 0 */
};

#define LEN(n) ((n) + 1) /* struct frame .len: cut the frame to n bytes */

struct frame {
	enum port in;
	enum mac dst, src;
	__u16 tpid; /* VLAN tag when not 0 (ETH_P_8021Q, ETH_P_8021AD) */
	__u16 vid;
	enum l3 l3;
	enum l4 l4;
	enum csum csum;
	__u16 l4len;	 /* L4 header and payload (0: 64 bytes); L3_RAW: bytes
			  * after the EtherType */
	__u16 frag_off;	 /* IPv4 frag_off, host order */
	bool ip_opts;	 /* IPv4: 4 bytes of options */
	bool hop_by_hop; /* IPv6: a hop-by-hop options header */
	bool pad;	 /* pad to 60 bytes, as on the wire */
	int len;	 /* LEN(n): cut to n bytes */
	bool native;	 /* XDP: looks like tun's native path, see META_MAX */
};

/* One run of the frame through one program, and what it must produce. */
enum stage { ST_END, ST_TC, ST_XDP };
#define NO_CTR (-1)

struct expect {
	enum stage stage;
	__u32 retval;
	int ctr;    /* counter on the ingress port, or NO_CTR */
	int target; /* port counting XDPNET_C_RX_REDIRECTED, or NO_PORT */
};

/* clang-format off */
#define TC_TO(p) { ST_TC, TC_ACT_REDIRECT, XDPNET_C_TC_REDIRECT, p }
#define TC_PASS(why) { ST_TC, TC_ACT_UNSPEC_RET, XDPNET_C_PASS_##why, NO_PORT }
#define XDP_TO(p) { ST_XDP, XDP_REDIRECT, XDPNET_C_XDP_REDIRECT, p }
#define XDP_DEFER(why) \
	{ ST_XDP, XDP_PASS, XDPNET_C_XDP_DEFER_##why, NO_PORT }
/* XDP_PASS without a counter: the TC stage counts the final verdict. */
#define XDP_ON { ST_XDP, XDP_PASS, NO_CTR, NO_PORT }
/* clang-format on */

enum out {
	OUT_SAME,      /* every program returns the frame unchanged */
	OUT_CSUM_DONE, /* XDP redirect: the checksum is completed */
};

struct row {
	const char *name;
	struct frame fr;
	struct expect exp[MAX_STEPS]; /* run in order, on the same frame */
	enum out out;
	void (*setup)(void); /* after the group's topology */
	void (*check)(void); /* after the last step */
};

struct group {
	const char *name;
	__u64 refresh_ns;
	__u8 vlan_filtering;
	__u8 learning;
	const struct topology *topo;
	const struct row *rows;
	size_t nr_rows;
	__u8 strict_src; /* attach --strict */
};

struct group_unused_ {
	const struct row *rows;
	size_t nr_rows;
};

static struct {
	const char *skip_all;	/* why nothing can run */
	const char *skip_group; /* why this group cannot run */
	const struct group *group;
	struct xdpnet_bpf *skel;
	__u32 ifindex[NR_PORTS];
	int nr_cpus;
	void *percpu;	    /* one stats value per possible CPU */
	__u64 stamp;	    /* a time a setup wrote into a map */
	size_t native_meta; /* see META_MAX */
} env;

static const char *const ctr_names[XDPNET_C_MAX] = {
	[XDPNET_C_XDP_REDIRECT] = "XDP_REDIRECT",
	[XDPNET_C_TC_REDIRECT] = "TC_REDIRECT",
	[XDPNET_C_RX_REDIRECTED] = "RX_REDIRECTED",
	[XDPNET_C_PASS_MCAST] = "PASS_MCAST",
	[XDPNET_C_PASS_UNKNOWN] = "PASS_UNKNOWN",
	[XDPNET_C_PASS_LOCAL] = "PASS_LOCAL",
	[XDPNET_C_PASS_HAIRPIN] = "PASS_HAIRPIN",
	[XDPNET_C_PASS_NOT_ATTACHED] = "PASS_NOT_ATTACHED",
	[XDPNET_C_PASS_VLAN] = "PASS_VLAN",
	[XDPNET_C_PASS_ISOLATED] = "PASS_ISOLATED",
	[XDPNET_C_PASS_REFRESH] = "PASS_REFRESH",
	[XDPNET_C_PASS_SRC] = "PASS_SRC",
	[XDPNET_C_PASS_MALFORMED] = "PASS_MALFORMED",
	[XDPNET_C_XDP_DEFER_CSUM] = "XDP_DEFER_CSUM",
	[XDPNET_C_XDP_DEFER_SIZE] = "XDP_DEFER_SIZE",
	[XDPNET_C_XDP_DEFER_TARGET] = "XDP_DEFER_TARGET",
	[XDPNET_C_XDP_DEFER_PROTO] = "XDP_DEFER_PROTO",
	[XDPNET_C_XDP_DEFER_REFRESH] = "XDP_DEFER_REFRESH",
	[XDPNET_C_DROP_REDIRECT_ERR] = "DROP_REDIRECT_ERR",
	[XDPNET_C_DROP_XMIT_ERR] = "DROP_XMIT_ERR",
};

static const char *ctr_name(int c)
{
	if (c == NO_CTR)
		return "none";
	if (c < 0 || c >= XDPNET_C_MAX || !ctr_names[c])
		return "?";
	return ctr_names[c];
}

static const char *port_name(int p)
{
	static const char *const names[] = { "A", "B", "C", "D", "E", "F" };

	if (p == NO_PORT)
		return "none";
	if (p < 0 || p >= NR_PORTS)
		return "?";
	return names[p];
}

static __u32 port_ifindex(enum port p)
{
	return p == PORT_GONE ? GONE_IFINDEX : env.ifindex[p];
}

static __u64 now_ns(void)
{
	struct timespec ts;

	/* bpf_ktime_get_ns() reads CLOCK_MONOTONIC. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

/* ---- Checksums (RFC 1071), in network byte order. ---- */

static __u32 csum_add(__u32 sum, const __u8 *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (__u32)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (__u32)p[len - 1] << 8;
	return sum;
}

static __u16 csum_fold(__u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

static void put16(__u8 *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static __u16 get16(const __u8 *p)
{
	return (__u16)(p[0] << 8 | p[1]);
}

/* ---- Frames. ---- */

static const __u8 ip4_src[4] = { 10, 17, 201, 3 };
static const __u8 ip4_dst[4] = { 10, 17, 77, 254 };
static const __u8 ip6_src[16] = {
	0xfd, 0x00, 0x12, 0x34, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xa1, 0x01,
};
static const __u8 ip6_dst[16] = {
	0xfd, 0x00, 0x12, 0x34, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xb2, 0xfe,
};

static __u8 l4_proto(const struct frame *f)
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

static size_t l4_csum_off(__u8 proto)
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
static void put_l4(const struct frame *f, __u8 *l4, size_t l4len, __u32 pseudo)
{
	__u8 proto = l4_proto(f);
	size_t hlen = l4_hlen(proto), off = l4_csum_off(proto);
	__u16 valid, partial, bad;

	assert_true(l4len >= hlen);
	memset(l4, 0, hlen);
	fill_payload(l4 + hlen, l4len - hlen);
	switch (proto) {
	case IPPROTO_UDP:
		put16(l4, 40000);
		put16(l4 + 2, 5201);
		put16(l4 + 4, l4len);
		break;
	case IPPROTO_TCP:
		put16(l4, 40000);
		put16(l4 + 2, 5201);
		memcpy(l4 + 4, "\x8a\x31\x07\x42\x11\x2f\x9c\x03", 8);
		l4[12] = 5 << 4; /* data offset */
		l4[13] = 0x18;	 /* PSH, ACK */
		put16(l4 + 14, 64240);
		break;
	default: /* ICMP / ICMPv6 echo request */
		l4[0] = proto == IPPROTO_ICMP ? 8 : 128;
		put16(l4 + 4, 0x1234);
		put16(l4 + 6, 7);
		break;
	}

	valid = ~csum_fold(csum_add(pseudo, l4, l4len));
	if (proto == IPPROTO_UDP && !valid)
		valid = 0xffff;
	partial = csum_fold(pseudo);
	bad = valid + 0x1111;
	if (bad == partial)
		bad += 0x1111;
	switch (f->csum) {
	case CS_VALID:
		put16(l4 + off, valid);
		break;
	case CS_PARTIAL:
		put16(l4 + off, partial);
		break;
	case CS_BAD:
		put16(l4 + off, bad);
		break;
	case CS_ZERO:
		put16(l4 + off, 0);
		break;
	}
}

static size_t frame_l4len(const struct frame *f)
{
	return f->l4len ? f->l4len : 64;
}

static size_t put_ipv4(const struct frame *f, __u8 *p)
{
	size_t ihl = f->ip_opts ? 24 : 20, l4len = frame_l4len(f);
	__u8 proto = l4_proto(f);
	__u32 pseudo = 0;

	memset(p, 0, ihl);
	p[0] = 0x40 | ihl / 4;
	put16(p + 2, ihl + l4len);
	put16(p + 4, 0x1c46);
	put16(p + 6, f->frag_off);
	p[8] = 64;
	p[9] = proto;
	memcpy(p + 12, ip4_src, 4);
	memcpy(p + 16, ip4_dst, 4);
	if (f->ip_opts)
		memcpy(p + 20, "\x01\x01\x01\x00", 4); /* NOP NOP NOP EOL */
	put16(p + 10, ~csum_fold(csum_add(0, p, ihl)));

	if (proto != IPPROTO_ICMP) {
		pseudo = csum_add(0, p + 12, 8);
		pseudo += proto + l4len;
	}
	put_l4(f, p + ihl, l4len, pseudo);
	return ihl + l4len;
}

static size_t put_ipv6(const struct frame *f, __u8 *p)
{
	size_t ext = f->hop_by_hop ? 8 : 0, l4len = frame_l4len(f);
	__u8 proto = l4_proto(f);
	__u32 pseudo;

	memset(p, 0, 40 + ext);
	p[0] = 0x60;
	put16(p + 4, ext + l4len);
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

	pseudo = csum_add(0, p + 8, 32);
	pseudo += proto + l4len;
	put_l4(f, p + 40 + ext, l4len, pseudo);
	return 40 + ext + l4len;
}

static size_t put_arp(const struct frame *f, __u8 *p)
{
	put16(p, 1); /* Ethernet */
	put16(p + 2, ETH_P_IP);
	p[4] = ETH_ALEN;
	p[5] = 4;
	put16(p + 6, 2); /* reply */
	memcpy(p + 8, macs[f->src], ETH_ALEN);
	memcpy(p + 14, ip4_src, 4);
	memcpy(p + 18, macs[f->dst], ETH_ALEN);
	memcpy(p + 24, ip4_dst, 4);
	return 28;
}

/* Builds f into buf (MAX_FRAME bytes); returns its length. */
static size_t build_frame(const struct frame *f, __u8 *buf)
{
	size_t len = 2 * ETH_ALEN;
	__u16 type;

	memset(buf, 0, MAX_FRAME);
	memcpy(buf, macs[f->dst], ETH_ALEN);
	memcpy(buf + ETH_ALEN, macs[f->src], ETH_ALEN);
	if (f->tpid) {
		put16(buf + len, f->tpid);
		put16(buf + len + 2, f->vid);
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
		type = ETH_P_EXPERIMENTAL;
		fill_payload(buf + len + 2, f->l4len);
		len += 2 + f->l4len;
		break;
	}
	put16(buf + (f->tpid ? 16 : 12), type);
	assert_true(len <= MAX_FRAME);
	if (f->pad && len < 60)
		len = 60;
	if (f->len) {
		assert_true((size_t)(f->len - 1) <= len);
		len = f->len - 1;
	}
	return len;
}

/*
 * Our own check of the L4 checksum of an IPv4/IPv6 TCP, UDP or ICMP frame:
 * 1 valid, 0 not, -1 not such a frame.
 */
static int l4_csum_ok(const __u8 *p, size_t len)
{
	size_t off = 2 * ETH_ALEN, ihl, l4len;
	__u16 type;
	__u32 pseudo = 0;
	__u8 proto;

	if (len < off + 2)
		return -1;
	type = get16(p + off);
	if (type == ETH_P_8021Q || type == ETH_P_8021AD) {
		off += 4;
		if (len < off + 2)
			return -1;
		type = get16(p + off);
	}
	off += 2;
	if (type == ETH_P_IP) {
		if (len < off + 20)
			return -1;
		ihl = (p[off] & 0xf) * 4;
		proto = p[off + 9];
		if (get16(p + off + 6) & 0x3fff)
			return -1;
		l4len = get16(p + off + 2) - ihl;
		if (proto != IPPROTO_ICMP)
			pseudo = csum_add(0, p + off + 12, 8) + proto + l4len;
		off += ihl;
	} else if (type == ETH_P_IPV6) {
		if (len < off + 40)
			return -1;
		proto = p[off + 6];
		l4len = get16(p + off + 4);
		pseudo = csum_add(0, p + off + 8, 32) + proto + l4len;
		off += 40;
	} else {
		return -1;
	}
	if (proto != IPPROTO_TCP && proto != IPPROTO_UDP &&
	    proto != IPPROTO_ICMP && proto != IPPROTO_ICMPV6)
		return -1;
	if (off + l4len > len)
		return -1;
	if (type == ETH_P_IP && proto == IPPROTO_UDP &&
	    !get16(p + off + l4_csum_off(proto)))
		return 1; /* IPv4 UDP without a checksum */
	return csum_fold(csum_add(pseudo, p + off, l4len)) == 0xffff;
}

/* ---- Maps. ---- */

static void map_clear(struct bpf_map *map)
{
	int fd = bpf_map__fd(map);
	__u8 key[64];

	assert_true(bpf_map__key_size(map) <= sizeof(key));
	while (!bpf_map_get_next_key(fd, NULL, key))
		assert_int_equal(bpf_map_delete_elem(fd, key), 0);
}

static void port_put(enum port p, __u32 flags, __u16 pvid)
{
	struct xdpnet_port v = {
		.ifindex = port_ifindex(p),
		.flags = flags,
		.pvid = pvid,
	};

	assert_int_equal(bpf_map_update_elem(bpf_map__fd(env.skel->maps.ports),
					     &v.ifindex, &v, BPF_ANY),
			 0);
}

static bool port_get(enum port p, struct xdpnet_port *v)
{
	__u32 key = port_ifindex(p);

	return !bpf_map_lookup_elem(bpf_map__fd(env.skel->maps.ports), &key, v);
}

static void port_flags(enum port p, __u32 set, __u32 clear)
{
	struct xdpnet_port v;

	assert_true(port_get(p, &v));
	port_put(p, (v.flags | set) & ~clear, v.pvid);
}

static void fdb_put(enum mac mac, __u16 vid, enum port p, __u32 flags,
		    __u64 seen_ns, __u64 bridge_ns)
{
	struct xdpnet_fdb_key k = { .vid = vid };
	struct xdpnet_fdb_val v = {
		.ifindex = port_ifindex(p),
		.flags = flags,
		.seen_ns = seen_ns,
		.bridge_ns = bridge_ns,
	};

	memcpy(k.mac, macs[mac], ETH_ALEN);
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(env.skel->maps.fdb),
					     &k, &v, BPF_ANY),
			 0);
}

static bool fdb_get(enum mac mac, __u16 vid, struct xdpnet_fdb_val *v)
{
	struct xdpnet_fdb_key k = { .vid = vid };

	memcpy(k.mac, macs[mac], ETH_ALEN);
	return !bpf_map_lookup_elem(bpf_map__fd(env.skel->maps.fdb), &k, v);
}

static size_t percpu_size(void)
{
	return (sizeof(struct xdpnet_stats) + 7) / 8 * 8;
}

static void apply_topology(const struct topology *t)
{
	struct bpf_devmap_val dv = {};
	size_t i;
	int p;

	for (p = 0; p < NR_PORTS; p++) {
		__u32 ifindex = env.ifindex[p];

		if (port_defs[p].in_ports)
			port_put(p, port_defs[p].flags, t->pvid[p]);
		if (port_defs[p].in_tx_ports) {
			dv.ifindex = ifindex;
			assert_int_equal(
				bpf_map_update_elem(
					bpf_map__fd(env.skel->maps.tx_ports),
					&ifindex, &dv, BPF_ANY),
				0);
		}
		memset(env.percpu, 0, env.nr_cpus * percpu_size());
		assert_int_equal(
			bpf_map_update_elem(bpf_map__fd(env.skel->maps.stats),
					    &ifindex, env.percpu, BPF_ANY),
			0);
	}
	for (i = 0; i < t->nr_fdb; i++)
		fdb_put(t->fdb[i].mac, t->fdb[i].vid, t->fdb[i].port,
			t->fdb[i].flags, 0, 0);
	for (i = 0; i < t->nr_vlans; i++) {
		struct xdpnet_vlan_key k = {
			.ifindex = port_ifindex(t->vlans[i].port),
			.vid = t->vlans[i].vid,
		};
		struct xdpnet_vlan_val v = { .flags = t->vlans[i].flags };

		assert_int_equal(
			bpf_map_update_elem(bpf_map__fd(env.skel->maps.vlans),
					    &k, &v, BPF_ANY),
			0);
	}
}

struct snap {
	struct xdpnet_ctr_val c[NR_PORTS][XDPNET_C_MAX];
};

static void snap_take(struct snap *s)
{
	int fd = bpf_map__fd(env.skel->maps.stats);
	int p, cpu, c;

	memset(s, 0, sizeof(*s));
	for (p = 0; p < NR_PORTS; p++) {
		assert_int_equal(bpf_map_lookup_elem(fd, &env.ifindex[p],
						     env.percpu),
				 0);
		for (cpu = 0; cpu < env.nr_cpus; cpu++) {
			const struct xdpnet_stats *st =
				(void *)((char *)env.percpu +
					 cpu * percpu_size());

			for (c = 0; c < XDPNET_C_MAX; c++) {
				s->c[p][c].packets += st->c[c].packets;
				s->c[p][c].bytes += st->c[c].bytes;
			}
		}
	}
}

/* ---- Running a row. ---- */

static const char *stage_name(enum stage st)
{
	return st == ST_TC ? "tc" : "xdp";
}

static void check_counters(const struct row *r, int step,
			   const struct snap *before, const struct snap *after,
			   size_t len)
{
	const struct expect *e = &r->exp[step];
	char msg[1024] = "";
	size_t n = 0;
	int p, c;

	for (p = 0; p < NR_PORTS; p++) {
		for (c = 0; c < XDPNET_C_MAX; c++) {
			__u64 want = 0, got, bytes;

			if ((p == (int)r->fr.in && c == e->ctr) ||
			    (p == e->target && c == XDPNET_C_RX_REDIRECTED))
				want = 1;
			got = after->c[p][c].packets - before->c[p][c].packets;
			bytes = after->c[p][c].bytes - before->c[p][c].bytes;
			if ((got != want || bytes != want * len) &&
			    n < sizeof(msg))
				n += snprintf(
					msg + n, sizeof(msg) - n,
					"\n    port %s %s: +%llu (%llu bytes), want +%llu",
					port_name(p), ctr_name(c),
					(unsigned long long)got,
					(unsigned long long)bytes,
					(unsigned long long)want);
		}
	}
	if (n)
		fail_msg(
			"step %d (%s): counters differ (want %s on the ingress port %s, target %s):%s",
			step, stage_name(e->stage), ctr_name(e->ctr),
			port_name(r->fr.in), port_name(e->target), msg);
}

static void check_data(const struct row *r, int step, const __u8 *got,
		       size_t got_len, const __u8 *want, const __u8 *sent,
		       size_t len)
{
	size_t i;

	if (got_len != len)
		fail_msg(
			"step %d (%s): frame came back with %zu bytes, sent %zu",
			step, stage_name(r->exp[step].stage), got_len, len);
	for (i = 0; i < len; i++)
		if (got[i] != want[i])
			fail_msg(
				"step %d (%s): frame byte %zu is 0x%02x, want 0x%02x (%s)",
				step, stage_name(r->exp[step].stage), i, got[i],
				want[i],
				want == sent ? "frame must be unchanged"
					     : "checksum completed");
}

/*
 * The XDP program tells generic (skb-backed) XDP from tun's native path by
 * probing for room to grow the metadata. A test run always has that room,
 * unless the metadata is as long as the kernel lets a test run have: that
 * limit (32 bytes on older kernels, the headroom less a struct xdp_frame on
 * newer ones) is also where the program's probe fails. It is found once,
 * going down from the largest length the metadata can have.
 */
#define META_MAX 252

static void run_step(const struct row *r, int step, const __u8 *frame,
		     size_t len, const __u8 *completed)
{
	const struct expect *e = &r->exp[step];
	struct __sk_buff skb = { .ifindex = port_ifindex(r->fr.in) };
	struct xdp_md md = { .ingress_ifindex = port_ifindex(r->fr.in) };
	static __u8 in[META_MAX + MAX_FRAME], out[META_MAX + MAX_FRAME];
	bool native = e->stage == ST_XDP && r->fr.native;
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	const __u8 *want = frame;
	struct snap before, after;
	size_t meta, i;
	int fd, err;

	if (e->stage == ST_TC) {
		fd = bpf_program__fd(env.skel->progs.xdpnet_tc);
		opts.ctx_in = &skb;
		opts.ctx_size_in = sizeof(skb);
	} else {
		fd = bpf_program__fd(env.skel->progs.xdpnet_xdp);
		opts.ctx_in = &md;
		opts.ctx_size_in = sizeof(md);
		if (r->out == OUT_CSUM_DONE && e->retval == XDP_REDIRECT)
			want = completed;
	}

	snap_take(&before);
	meta = !native ? 0 : env.native_meta ? env.native_meta : META_MAX;
	for (;; meta -= 4) {
		memset(in, 0, meta);
		memcpy(in + meta, frame, len);
		memset(out, 0xa5, sizeof(out));
		md.data = meta;
		md.data_end = meta + len;
		opts.data_in = in;
		opts.data_size_in = meta + len;
		opts.data_out = out;
		opts.data_size_out = sizeof(out);
		opts.repeat = 1;
		err = bpf_prog_test_run_opts(fd, &opts);
		if (err != -EINVAL || !native || !meta)
			break;
	}
	if (native && !err)
		env.native_meta = meta;
	if (err && len < ETH_HLEN) {
		print_message("kernel refuses a %zu-byte test frame: %s\n", len,
			      strerror(-err));
		skip();
	}
	if (err)
		fail_msg("step %d (%s): BPF_PROG_TEST_RUN: %s", step,
			 stage_name(e->stage), strerror(-err));
	snap_take(&after);

	/* Counters first: they say why, when the return code is wrong. */
	check_counters(r, step, &before, &after, len);
	if (opts.retval != e->retval)
		fail_msg("step %d (%s): returned %d, want %d", step,
			 stage_name(e->stage), (int)opts.retval,
			 (int)e->retval);
	for (i = 0; i < meta; i++)
		if (out[i])
			fail_msg("step %d (xdp): metadata changed", step);
	check_data(r, step, out + meta, opts.data_size_out - meta, want, frame,
		   len);
	/* The safety property: nothing leaves through XDP with a broken
	 * L4 checksum. */
	if (e->stage == ST_XDP && opts.retval == XDP_REDIRECT &&
	    l4_csum_ok(out + meta, len) == 0)
		fail_msg(
			"step %d (xdp): redirected with an invalid L4 checksum",
			step);
	if (want == completed && l4_csum_ok(out + meta, len) != 1)
		fail_msg("step %d (xdp): checksum not completed", step);
}

static void test_row(void **state)
{
	const struct row *r = *state;
	static __u8 frame[MAX_FRAME], completed[MAX_FRAME];
	struct frame valid;
	size_t len;
	int i;

	if (env.skip_all || env.skip_group)
		skip();

	len = build_frame(&r->fr, frame);
	valid = r->fr;
	valid.csum = CS_VALID;
	build_frame(&valid, completed);

	for (i = 0; i < MAX_STEPS && r->exp[i].stage != ST_END; i++)
		run_step(r, i, frame, len, completed);
	if (r->check)
		r->check();
}

static int setup_row(void **state)
{
	const struct row *r = *state;
	struct xdpnet_bpf *s = env.skel;

	if (env.skip_all || env.skip_group)
		return 0;
	env.stamp = 0;
	map_clear(s->maps.fdb);
	map_clear(s->maps.ports);
	map_clear(s->maps.tx_ports);
	map_clear(s->maps.vlans);
	map_clear(s->maps.stats);
	apply_topology(env.group->topo);
	if (r->setup)
		r->setup();
	return 0;
}

/* ---- Per-row setup and checks. ---- */

static void isolate_a(void)
{
	port_flags(PORT_A, XDPNET_PORT_ISOLATED, 0);
}

static void isolate_b(void)
{
	port_flags(PORT_B, XDPNET_PORT_ISOLATED, 0);
}

static void isolate_a_b(void)
{
	isolate_a();
	isolate_b();
}

static void a_is_tap(void)
{
	port_flags(PORT_A, 0, XDPNET_PORT_VETH);
}

static void lock_a(void)
{
	port_flags(PORT_A, XDPNET_PORT_LOCKED, 0);
}

static void lock_b(void)
{
	port_flags(PORT_B, XDPNET_PORT_LOCKED, 0);
}

static void no_learning_a(void)
{
	port_flags(PORT_A, 0, XDPNET_PORT_LEARNING);
}

static void a_learned_on_c(void)
{
	fdb_put(MAC_A, 0, PORT_C, XDPNET_FDB_LEARNED, 1, 0);
}

static void a_learned_on_c_no_learning_a(void)
{
	a_learned_on_c();
	no_learning_a();
}

static void a_static_on_c(void)
{
	fdb_put(MAC_A, 0, PORT_C, XDPNET_FDB_SEEDED | XDPNET_FDB_STATIC, 1, 0);
}

static void a_local_on_c(void)
{
	fdb_put(MAC_A, 0, PORT_C, XDPNET_FDB_SEEDED | XDPNET_FDB_LOCAL, 1, 0);
}

static void a_seen_long_ago(void)
{
	fdb_put(MAC_A, 0, PORT_A, XDPNET_FDB_LEARNED, 1, 0);
}

static void a_seen_now(void)
{
	env.stamp = now_ns();
	fdb_put(MAC_A, 0, PORT_A, XDPNET_FDB_LEARNED, env.stamp, 0);
}

static void a_refreshed_now(void)
{
	env.stamp = now_ns();
	fdb_put(MAC_A, 0, PORT_A, XDPNET_FDB_LEARNED, env.stamp, env.stamp);
}

static void a_refreshed_long_ago(void)
{
	env.stamp = now_ns() - 2 * REFRESH_NS;
	fdb_put(MAC_A, 0, PORT_A, XDPNET_FDB_LEARNED, now_ns(), env.stamp);
}

static void a_refreshed_now_on_c(void)
{
	env.stamp = now_ns();
	fdb_put(MAC_A, 0, PORT_C, XDPNET_FDB_LEARNED, env.stamp, env.stamp);
}

static void want_fdb(enum mac mac, __u16 vid, enum port p, __u32 flags)
{
	struct xdpnet_fdb_val v;

	if (!fdb_get(mac, vid, &v))
		fail_msg("FDB: no entry for the MAC in VLAN %u", vid);
	if (v.ifindex != port_ifindex(p))
		fail_msg("FDB: MAC behind ifindex %u, want %u (port %s)",
			 v.ifindex, port_ifindex(p), port_name(p));
	if (v.flags != flags)
		fail_msg("FDB: flags 0x%x, want 0x%x", v.flags, flags);
}

static void want_no_fdb(enum mac mac, __u16 vid)
{
	struct xdpnet_fdb_val v;

	if (fdb_get(mac, vid, &v))
		fail_msg(
			"FDB: unexpected entry in VLAN %u (ifindex %u, flags 0x%x)",
			vid, v.ifindex, v.flags);
}

static void new_learned_on_a(void)
{
	struct xdpnet_fdb_val v;

	want_fdb(MAC_NEW, 0, PORT_A, XDPNET_FDB_LEARNED);
	assert_true(fdb_get(MAC_NEW, 0, &v));
	assert_true(v.seen_ns != 0);
	assert_true(v.seen_ns <= now_ns());
	assert_int_equal(v.bridge_ns, 0);
}

static void new_not_learned(void)
{
	want_no_fdb(MAC_NEW, 0);
}

static void mcast_zero_not_learned(void)
{
	want_no_fdb(MAC_MCAST4, 0);
	want_no_fdb(MAC_ZERO, 0);
}

static void a_moved_to_a(void)
{
	struct xdpnet_fdb_val v;

	want_fdb(MAC_A, 0, PORT_A, XDPNET_FDB_LEARNED);
	assert_true(fdb_get(MAC_A, 0, &v));
	assert_true(v.seen_ns > 1);
}

static void a_still_learned_on_c(void)
{
	want_fdb(MAC_A, 0, PORT_C, XDPNET_FDB_LEARNED);
}

static void a_still_static_on_c(void)
{
	want_fdb(MAC_A, 0, PORT_C, XDPNET_FDB_SEEDED | XDPNET_FDB_STATIC);
}

static void a_still_local_on_c(void)
{
	want_fdb(MAC_A, 0, PORT_C, XDPNET_FDB_SEEDED | XDPNET_FDB_LOCAL);
}

static void a_seen_updated(void)
{
	struct xdpnet_fdb_val v;

	assert_true(fdb_get(MAC_A, 0, &v));
	if (v.seen_ns <= 1)
		fail_msg("seen_ns not updated for a source last seen long ago");
}

static void a_seen_kept(void)
{
	struct xdpnet_fdb_val v;

	assert_true(fdb_get(MAC_A, 0, &v));
	if (v.seen_ns != env.stamp)
		fail_msg("seen_ns rewritten within a second: %llu, was %llu",
			 (unsigned long long)v.seen_ns,
			 (unsigned long long)env.stamp);
}

static void a_refreshed(void)
{
	struct xdpnet_fdb_val v;

	assert_true(fdb_get(MAC_A, 0, &v));
	if (v.bridge_ns == 0 || v.bridge_ns == env.stamp ||
	    v.bridge_ns > now_ns())
		fail_msg("bridge_ns %llu not stamped by the TC stage",
			 (unsigned long long)v.bridge_ns);
}

static void new_refreshed(void)
{
	struct xdpnet_fdb_val v;

	want_fdb(MAC_NEW, 0, PORT_A, XDPNET_FDB_LEARNED);
	assert_true(fdb_get(MAC_NEW, 0, &v));
	assert_true(v.bridge_ns != 0);
}

static void a_moved_and_refreshed(void)
{
	want_fdb(MAC_A, 0, PORT_A, XDPNET_FDB_LEARNED);
	a_refreshed();
}

static void new_learned_in_vlan_10(void)
{
	want_fdb(MAC_NEW, 10, PORT_A, XDPNET_FDB_LEARNED);
	want_no_fdb(MAC_NEW, 0);
	want_no_fdb(MAC_NEW, 20);
}

static void new_learned_in_vlan_20(void)
{
	want_fdb(MAC_NEW, 20, PORT_A, XDPNET_FDB_LEARNED);
	want_no_fdb(MAC_NEW, 0);
	want_no_fdb(MAC_NEW, 10);
}

/* ---- Topologies. ---- */

static const struct fdb_def plain_fdb[] = {
	{ MAC_A, 0, PORT_A, XDPNET_FDB_LEARNED },
	{ MAC_A2, 0, PORT_A, XDPNET_FDB_SEEDED },
	{ MAC_B, 0, PORT_B, XDPNET_FDB_LEARNED },
	{ MAC_C, 0, PORT_C, XDPNET_FDB_SEEDED },
	{ MAC_D, 0, PORT_D, XDPNET_FDB_LEARNED },
	{ MAC_E, 0, PORT_E, XDPNET_FDB_LEARNED },
	{ MAC_F, 0, PORT_F, XDPNET_FDB_LEARNED },
	{ MAC_GONE, 0, PORT_GONE, XDPNET_FDB_LEARNED },
	{ MAC_LOCAL, 0, PORT_B, XDPNET_FDB_SEEDED | XDPNET_FDB_LOCAL },
};

static const struct topology plain = {
	.fdb = plain_fdb,
	.nr_fdb = ARRAY_SIZE(plain_fdb),
};

/*
 * VLANs: A and B are untagged members of 10 (their pvid) and tagged
 * members of 20; C is a tagged member of 10 and 20, with a pvid (30) it is
 * no member of; D is a tagged member of 20 only, without a pvid.
 */
static const struct fdb_def vlan_fdb[] = {
	{ MAC_A, 10, PORT_A, XDPNET_FDB_LEARNED },
	{ MAC_A, 20, PORT_A, XDPNET_FDB_LEARNED },
	{ MAC_B, 10, PORT_B, XDPNET_FDB_LEARNED },
	{ MAC_B, 20, PORT_B, XDPNET_FDB_LEARNED },
	{ MAC_C, 10, PORT_C, XDPNET_FDB_LEARNED },
	{ MAC_C, 20, PORT_C, XDPNET_FDB_LEARNED },
	{ MAC_D, 10, PORT_D, XDPNET_FDB_LEARNED }, /* D not in VLAN 10 */
	{ MAC_D, 20, PORT_D, XDPNET_FDB_LEARNED },
	{ MAC_X, 20, PORT_B, XDPNET_FDB_LEARNED },
};

static const struct vlan_def vlan_members[] = {
	{ PORT_A, 10, XDPNET_VLAN_UNTAGGED },
	{ PORT_A, 20, 0 },
	{ PORT_B, 10, XDPNET_VLAN_UNTAGGED },
	{ PORT_B, 20, 0 },
	{ PORT_C, 10, 0 },
	{ PORT_C, 20, 0 },
	{ PORT_D, 20, 0 },
};

static const struct topology vlan = {
	.pvid = { [PORT_A] = 10, [PORT_B] = 10, [PORT_C] = 30, [PORT_F] = 10 },
	.fdb = vlan_fdb,
	.nr_fdb = ARRAY_SIZE(vlan_fdb),
	.vlans = vlan_members,
	.nr_vlans = ARRAY_SIZE(vlan_members),
};

/* ---- The tables. ---- */

#define TO_B .dst = MAC_B, .src = MAC_A

static const struct row plain_rows[] = {
	/* Forwarding decisions. */
	{ .name = "known unicast redirects to its port",
	  { TO_B },
	  { TC_TO(PORT_B), XDP_TO(PORT_B) } },
	{ .name = "known unicast to a second port",
	  { .dst = MAC_C, .src = MAC_A },
	  { TC_TO(PORT_C), XDP_TO(PORT_C) } },
	{ .name = "known unicast the other way",
	  { .in = PORT_B, .dst = MAC_A, .src = MAC_B },
	  { TC_TO(PORT_A), XDP_TO(PORT_A) } },
	{ .name = "broadcast passes",
	  { .dst = MAC_BCAST, .src = MAC_A },
	  { TC_PASS(MCAST), XDP_ON } },
	{ .name = "IPv4 multicast passes",
	  { .dst = MAC_MCAST4, .src = MAC_A },
	  { TC_PASS(MCAST), XDP_ON } },
	{ .name = "IPv6 multicast passes",
	  { .dst = MAC_MCAST6, .src = MAC_A, .l3 = L3_IPV6 },
	  { TC_PASS(MCAST), XDP_ON } },
	{ .name = "unknown unicast passes",
	  { .dst = MAC_UNKNOWN, .src = MAC_A },
	  { TC_PASS(UNKNOWN), XDP_ON } },
	{ .name = "destination behind the ingress port never redirects",
	  { .dst = MAC_A2, .src = MAC_A },
	  { TC_PASS(HAIRPIN), XDP_ON } },
	{ .name = "host's own address passes",
	  { .dst = MAC_LOCAL, .src = MAC_A },
	  { TC_PASS(LOCAL), XDP_ON } },
	{ .name = "destination port in tx_ports but not in ports passes",
	  { .dst = MAC_E, .src = MAC_A },
	  { TC_PASS(NOT_ATTACHED), XDP_ON } },
	{ .name = "destination port in ports but not in tx_ports passes",
	  { .dst = MAC_F, .src = MAC_A },
	  { TC_PASS(NOT_ATTACHED), XDP_ON } },
	{ .name = "destination ifindex without a device passes",
	  { .dst = MAC_GONE, .src = MAC_A },
	  { TC_PASS(NOT_ATTACHED), XDP_ON } },
	{ .name = "ingress port not attached passes",
	  { .in = PORT_E, .dst = MAC_B, .src = MAC_E },
	  { TC_PASS(NOT_ATTACHED), XDP_ON } },
	{ .name = "both ports isolated passes",
	  { TO_B },
	  { TC_PASS(ISOLATED), XDP_ON },
	  .setup = isolate_a_b },
	{ .name = "isolated ingress port to a plain port redirects",
	  { TO_B },
	  { TC_TO(PORT_B), XDP_TO(PORT_B) },
	  .setup = isolate_a },
	{ .name = "plain port to an isolated port redirects",
	  { TO_B },
	  { TC_TO(PORT_B), XDP_TO(PORT_B) },
	  .setup = isolate_b },
	{ .name = "locked ingress port passes and learns nothing",
	  { .dst = MAC_B, .src = MAC_NEW },
	  { TC_PASS(ISOLATED), XDP_ON },
	  .setup = lock_a,
	  .check = new_not_learned },
	{ .name = "locked destination port passes",
	  { TO_B },
	  { TC_PASS(ISOLATED), XDP_ON },
	  .setup = lock_b },
	{ .name = "ARP unicast redirects",
	  { TO_B, .l3 = L3_ARP },
	  { TC_TO(PORT_B), XDP_TO(PORT_B) } },
	{ .name = "ARP broadcast passes",
	  { .dst = MAC_BCAST, .src = MAC_A, .l3 = L3_ARP },
	  { TC_PASS(MCAST), XDP_ON } },
	{ .name = "other EtherType: tc redirects, xdp defers",
	  { TO_B, .l3 = L3_RAW, .l4len = 46 },
	  { TC_TO(PORT_B), XDP_DEFER(PROTO) } },
	{ .name = "target without XDP_TARGET: tc redirects, xdp defers",
	  { .dst = MAC_D, .src = MAC_A },
	  { TC_TO(PORT_D), XDP_DEFER(TARGET) } },

	/* Runts and truncated headers: XDP only, the kernel does not
	 * test-run TC programs on frames shorter than 14 bytes. */
	{ .name = "runt: 0 bytes", { TO_B, .len = LEN(0) }, { XDP_ON } },
	{ .name = "runt: 1 byte", { TO_B, .len = LEN(1) }, { XDP_ON } },
	{ .name = "runt: 13 bytes", { TO_B, .len = LEN(13) }, { XDP_ON } },
	{ .name = "Ethernet header only, to a known port",
	  { TO_B, .l3 = L3_RAW, .len = LEN(14) },
	  { TC_TO(PORT_B), XDP_DEFER(PROTO) } },
	{ .name = "truncated 802.1Q header (14+2 bytes)",
	  { TO_B, .tpid = ETH_P_8021Q, .vid = 20, .len = LEN(16) },
	  { XDP_ON } },
	{ .name = "truncated 802.1Q header (14+3 bytes)",
	  { TO_B, .tpid = ETH_P_8021Q, .vid = 20, .len = LEN(17) },
	  { XDP_ON } },
	{ .name = "truncated 802.1ad header (14+2 bytes)",
	  { TO_B, .tpid = ETH_P_8021AD, .vid = 20, .len = LEN(16) },
	  { XDP_ON } },
	/* An in-band tag never reaches tc ingress (the stack moves it into
	 * skb metadata first, or drops the frame when it is truncated); a
	 * test run hands the TC program the frame as it is, which it
	 * forwards as an ordinary frame of EtherType 0x8100. */
	{ .name = "tc: in-band truncated 802.1Q header is not parsed",
	  { TO_B, .tpid = ETH_P_8021Q, .vid = 20, .len = LEN(16) },
	  { TC_TO(PORT_B) } },
	{ .name = "802.1Q tag without a VLAN-filtering bridge redirects by MAC",
	  { TO_B, .tpid = ETH_P_8021Q, .vid = 20, .l4 = L4_TCP,
	    .csum = CS_PARTIAL, .l4len = 100 },
	  { XDP_TO(PORT_B) },
	  .out = OUT_CSUM_DONE },
	/* Truncated IP headers: XDP only, the kernel refuses to test-run
	 * TC programs on them. */
	{ .name = "IPv4 header truncated",
	  { TO_B, .l4len = 8, .len = LEN(30) },
	  { XDP_DEFER(PROTO) } },
	{ .name = "IPv6 header truncated",
	  { TO_B, .l3 = L3_IPV6, .l4len = 8, .len = LEN(50) },
	  { XDP_DEFER(PROTO) } },
	{ .name = "IPv4 total length beyond the frame",
	  { TO_B, .l4len = 108, .len = LEN(14 + 20 + 100) },
	  { TC_TO(PORT_B), XDP_DEFER(PROTO) } },
	{ .name = "IPv6 payload length beyond the frame",
	  { TO_B, .l3 = L3_IPV6, .l4len = 108, .len = LEN(14 + 40 + 100) },
	  { TC_TO(PORT_B), XDP_DEFER(PROTO) } },
	{ .name = "TCP header truncated",
	  { TO_B, .l4 = L4_TCP, .l4len = 20, .len = LEN(14 + 20 + 10) },
	  { TC_TO(PORT_B), XDP_DEFER(PROTO) } },

	/* XDP checksum proof; the size sweep is generated (csum_sweep). */
	{ .name = "IPv4/UDP checksum 0 redirects unchanged",
	  { TO_B, .csum = CS_ZERO, .l4len = 100 },
	  { XDP_TO(PORT_B), TC_TO(PORT_B) } },
	{ .name = "IPv6/UDP checksum 0 defers",
	  { TO_B, .l3 = L3_IPV6, .csum = CS_ZERO, .l4len = 100 },
	  { XDP_DEFER(CSUM), TC_TO(PORT_B) } },
	{ .name = "IPv4 fragment (MF) defers",
	  { TO_B, .frag_off = 0x2000, .l4len = 100 },
	  { XDP_DEFER(PROTO), TC_TO(PORT_B) } },
	{ .name = "IPv4 fragment (offset) defers",
	  { TO_B, .frag_off = 0x00b9, .l4len = 100 },
	  { XDP_DEFER(PROTO), TC_TO(PORT_B) } },
	{ .name = "IPv4 DF is not a fragment",
	  { TO_B, .frag_off = 0x4000, .csum = CS_PARTIAL, .l4len = 100 },
	  { XDP_TO(PORT_B), TC_TO(PORT_B) },
	  .out = OUT_CSUM_DONE },
	{ .name = "IPv4 options: partial TCP checksum completed",
	  { TO_B, .ip_opts = true, .l4 = L4_TCP, .csum = CS_PARTIAL,
	    .l4len = 333 },
	  { XDP_TO(PORT_B), TC_TO(PORT_B) },
	  .out = OUT_CSUM_DONE },
	{ .name = "IPv4 options: bad UDP checksum defers",
	  { TO_B, .ip_opts = true, .csum = CS_BAD, .l4len = 333 },
	  { XDP_DEFER(CSUM), TC_TO(PORT_B) } },
	{ .name = "IPv6 hop-by-hop header defers",
	  { TO_B, .l3 = L3_IPV6, .hop_by_hop = true, .l4len = 100 },
	  { XDP_DEFER(PROTO), TC_TO(PORT_B) } },
	{ .name = "ICMPv4 valid redirects",
	  { TO_B, .l4 = L4_ICMP, .l4len = 64 },
	  { XDP_TO(PORT_B), TC_TO(PORT_B) } },
	{ .name = "ICMPv4 bad checksum defers",
	  { TO_B, .l4 = L4_ICMP, .csum = CS_BAD, .l4len = 64 },
	  { XDP_DEFER(CSUM), TC_TO(PORT_B) } },
	{ .name = "ICMPv4 checksum 0 defers",
	  { TO_B, .l4 = L4_ICMP, .csum = CS_ZERO, .l4len = 64 },
	  { XDP_DEFER(CSUM), TC_TO(PORT_B) } },
	{ .name = "ICMPv6 valid redirects",
	  { TO_B, .l3 = L3_IPV6, .l4 = L4_ICMP, .l4len = 64 },
	  { XDP_TO(PORT_B), TC_TO(PORT_B) } },
	{ .name = "ICMPv6 partial checksum completed",
	  { TO_B, .l3 = L3_IPV6, .l4 = L4_ICMP, .csum = CS_PARTIAL,
	    .l4len = 63 },
	  { XDP_TO(PORT_B), TC_TO(PORT_B) },
	  .out = OUT_CSUM_DONE },
	{ .name = "ICMPv6 bad checksum defers",
	  { TO_B, .l3 = L3_IPV6, .l4 = L4_ICMP, .csum = CS_BAD, .l4len = 64 },
	  { XDP_DEFER(CSUM), TC_TO(PORT_B) } },
	{ .name = "IPv4/UDP partial checksum, frame padded to 60 bytes",
	  { TO_B, .csum = CS_PARTIAL, .l4len = 9, .pad = true },
	  { XDP_TO(PORT_B), TC_TO(PORT_B) },
	  .out = OUT_CSUM_DONE },
	{ .name = "IPv4/TCP bad checksum, frame padded to 60 bytes",
	  { TO_B, .l4 = L4_TCP, .csum = CS_BAD, .l4len = 21, .pad = true },
	  { XDP_DEFER(CSUM), TC_TO(PORT_B) } },

	/*
	 * Completing a partial checksum is right only where the redirect
	 * drops the checksum state: an xdp_buff redirect (tun's native path,
	 * any veth). A test run gives the program room for metadata, so it
	 * looks like generic (skb-backed) XDP; with 32 bytes of metadata
	 * already there, it looks like tun's native path.
	 */
	{ .name = "tap, generic XDP: partial checksum defers",
	  { TO_B, .l4 = L4_TCP, .csum = CS_PARTIAL, .l4len = 200 },
	  { XDP_DEFER(CSUM), TC_TO(PORT_B) },
	  .setup = a_is_tap },
	{ .name = "tap, generic XDP: valid checksum redirects",
	  { TO_B, .l4 = L4_TCP, .l4len = 200 },
	  { XDP_TO(PORT_B), TC_TO(PORT_B) },
	  .setup = a_is_tap },
	{ .name = "tap, native XDP: partial checksum completed",
	  { TO_B, .l4 = L4_TCP, .csum = CS_PARTIAL, .l4len = 200,
	    .native = true },
	  { XDP_TO(PORT_B), TC_TO(PORT_B) },
	  .out = OUT_CSUM_DONE,
	  .setup = a_is_tap },
	{ .name = "tap, native XDP: bad checksum defers",
	  { TO_B, .l3 = L3_IPV6, .csum = CS_BAD, .l4len = 200, .native = true },
	  { XDP_DEFER(CSUM), TC_TO(PORT_B) },
	  .setup = a_is_tap },
	{ .name = "veth, native XDP: partial checksum completed",
	  { TO_B, .l3 = L3_IPV6, .csum = CS_PARTIAL, .l4len = 200,
	    .native = true },
	  { XDP_TO(PORT_B), TC_TO(PORT_B) },
	  .out = OUT_CSUM_DONE },

	/* Sizes: B has MTU 9000, C 1500. */
	{ .name = "1514 bytes into an MTU 1500 port redirects",
	  { .dst = MAC_C, .src = MAC_A, .csum = CS_PARTIAL, .l4len = 1480 },
	  { XDP_TO(PORT_C), TC_TO(PORT_C) },
	  .out = OUT_CSUM_DONE },
	{ .name = "1515 bytes into an MTU 1500 port defers",
	  { .dst = MAC_C, .src = MAC_A, .l4len = 1481 },
	  { XDP_DEFER(SIZE), TC_TO(PORT_C) } },
	{ .name = "IPv4 frame of XDPNET_XDP_MAX_FRAME bytes, partial, redirects",
	  { TO_B, .csum = CS_PARTIAL, .l4len = XDPNET_XDP_MAX_FRAME - 14 - 20 },
	  { XDP_TO(PORT_B), TC_TO(PORT_B) },
	  .out = OUT_CSUM_DONE },
	{ .name = "IPv6 frame of XDPNET_XDP_MAX_FRAME bytes, partial, redirects",
	  { TO_B, .l3 = L3_IPV6, .l4 = L4_TCP, .csum = CS_PARTIAL,
	    .l4len = XDPNET_XDP_MAX_FRAME - 14 - 40 },
	  { XDP_TO(PORT_B), TC_TO(PORT_B) },
	  .out = OUT_CSUM_DONE },
	{ .name = "IPv4 frame one byte over XDPNET_XDP_MAX_FRAME defers",
	  { TO_B, .l4len = XDPNET_XDP_MAX_FRAME - 14 - 20 + 1 },
	  { XDP_DEFER(SIZE), TC_TO(PORT_B) } },
	{ .name = "over XDPNET_XDP_MAX_FRAME: size defers before protocol",
	  { TO_B, .l3 = L3_RAW, .l4len = XDPNET_XDP_MAX_FRAME },
	  { XDP_DEFER(SIZE), TC_TO(PORT_B) } },

	/* Learning. */
	{ .name = "learning: new source learned on the ingress port (tc)",
	  { .dst = MAC_B, .src = MAC_NEW },
	  { TC_TO(PORT_B) },
	  .check = new_learned_on_a },
	{ .name = "learning: new source learned on the ingress port (xdp)",
	  { .dst = MAC_B, .src = MAC_NEW },
	  { XDP_TO(PORT_B) },
	  .check = new_learned_on_a },
	{ .name = "learning: new source, unknown destination",
	  { .dst = MAC_UNKNOWN, .src = MAC_NEW },
	  { TC_PASS(UNKNOWN) },
	  .check = new_learned_on_a },
	{ .name = "learning: MAC seen on a new port moves",
	  { TO_B },
	  { TC_TO(PORT_B), XDP_TO(PORT_B) },
	  .setup = a_learned_on_c,
	  .check = a_moved_to_a },
	{ .name = "learning: moved MAC is a target on its new port",
	  { .in = PORT_B, .dst = MAC_A, .src = MAC_B },
	  { TC_TO(PORT_C) },
	  .setup = a_learned_on_c },
	{ .name = "learning: static entry does not move",
	  { TO_B },
	  { TC_TO(PORT_B), XDP_TO(PORT_B) },
	  .setup = a_static_on_c,
	  .check = a_still_static_on_c },
	{ .name = "learning: host address does not move",
	  { TO_B },
	  { TC_TO(PORT_B), XDP_TO(PORT_B) },
	  .setup = a_local_on_c,
	  .check = a_still_local_on_c },
	{ .name = "learning: port without learning learns nothing",
	  { .dst = MAC_B, .src = MAC_NEW },
	  { TC_TO(PORT_B), XDP_TO(PORT_B) },
	  .setup = no_learning_a,
	  .check = new_not_learned },
	{ .name = "learning: port without learning moves nothing",
	  { TO_B },
	  { TC_TO(PORT_B), XDP_TO(PORT_B) },
	  .setup = a_learned_on_c_no_learning_a,
	  .check = a_still_learned_on_c },
	{ .name = "learning: multicast source not learned",
	  { .dst = MAC_B, .src = MAC_MCAST4 },
	  { TC_TO(PORT_B), XDP_TO(PORT_B) },
	  .check = mcast_zero_not_learned },
	{ .name = "learning: zero source not learned",
	  { .dst = MAC_B, .src = MAC_ZERO },
	  { TC_TO(PORT_B), XDP_TO(PORT_B) },
	  .check = mcast_zero_not_learned },
	{ .name = "learning: known source seen long ago gets seen_ns",
	  { TO_B },
	  { TC_TO(PORT_B) },
	  .setup = a_seen_long_ago,
	  .check = a_seen_updated },
	{ .name = "learning: seen_ns kept within a second",
	  { TO_B },
	  { TC_TO(PORT_B), XDP_TO(PORT_B) },
	  .setup = a_seen_now,
	  .check = a_seen_kept },
};

/* VLAN tagged input is XDP only: see the top of the file. */
static const struct row vlan_rows[] = {
	{ .name = "vlan: untagged on the pvid to an untagged member redirects",
	  { TO_B },
	  { TC_TO(PORT_B), XDP_TO(PORT_B) } },
	{ .name = "vlan: tagged to a tagged member redirects",
	  { TO_B, .tpid = ETH_P_8021Q, .vid = 20 },
	  { XDP_TO(PORT_B) } },
	{ .name = "vlan: tagged, MAC known in that VLAN only, redirects",
	  { .dst = MAC_X, .src = MAC_A, .tpid = ETH_P_8021Q, .vid = 20 },
	  { XDP_TO(PORT_B) } },
	{ .name = "vlan: MAC known in another VLAN only is unknown",
	  { .dst = MAC_X, .src = MAC_A },
	  { TC_PASS(UNKNOWN), XDP_ON } },
	{ .name = "vlan: tagged in, untagged out (tagging differs) passes",
	  { TO_B, .tpid = ETH_P_8021Q, .vid = 10 },
	  { XDP_ON } },
	{ .name = "vlan: untagged in, tagged out (tagging differs) passes",
	  { .dst = MAC_C, .src = MAC_A },
	  { TC_PASS(VLAN), XDP_ON } },
	{ .name = "vlan: tagged with a VLAN the port is no member of passes",
	  { TO_B, .tpid = ETH_P_8021Q, .vid = 30 },
	  { XDP_ON } },
	{ .name = "vlan: priority tag (VID 0) passes",
	  { TO_B, .tpid = ETH_P_8021Q, .vid = 0 },
	  { XDP_ON } },
	{ .name = "vlan: 802.1ad tag passes",
	  { TO_B, .tpid = ETH_P_8021AD, .vid = 20 },
	  { XDP_ON } },
	{ .name = "vlan: untagged on a port without a pvid passes",
	  { .in = PORT_D, .dst = MAC_B, .src = MAC_D },
	  { TC_PASS(VLAN), XDP_ON } },
	{ .name = "vlan: untagged on a pvid the port is no member of passes",
	  { .in = PORT_C, .dst = MAC_B, .src = MAC_C },
	  { TC_PASS(VLAN), XDP_ON } },
	{ .name = "vlan: target no member of the VLAN passes",
	  { .dst = MAC_D, .src = MAC_A },
	  { TC_PASS(VLAN), XDP_ON } },
	{ .name = "vlan: truncated 802.1Q header passes",
	  { TO_B, .tpid = ETH_P_8021Q, .vid = 20, .len = LEN(16) },
	  { XDP_ON } },
	{ .name = "vlan: tagged IPv4/TCP partial checksum completed behind the tag",
	  { TO_B, .tpid = ETH_P_8021Q, .vid = 20, .l4 = L4_TCP,
	    .csum = CS_PARTIAL, .l4len = 401 },
	  { XDP_TO(PORT_B) },
	  .out = OUT_CSUM_DONE },
	{ .name = "vlan: tagged IPv6/UDP bad checksum defers",
	  { TO_B, .tpid = ETH_P_8021Q, .vid = 20, .l3 = L3_IPV6, .csum = CS_BAD,
	    .l4len = 401 },
	  { XDP_DEFER(CSUM) } },
	{ .name = "vlan: untagged source learned in the pvid",
	  { .dst = MAC_B, .src = MAC_NEW },
	  { TC_TO(PORT_B), XDP_TO(PORT_B) },
	  .check = new_learned_in_vlan_10 },
	{ .name = "vlan: tagged source learned in its VLAN",
	  { .dst = MAC_B, .src = MAC_NEW, .tpid = ETH_P_8021Q, .vid = 20 },
	  { XDP_TO(PORT_B) },
	  .check = new_learned_in_vlan_20 },
};

static const struct row refresh_rows[] = {
	{ .name = "keep-alive: first frame to the bridge, the next redirects",
	  { TO_B },
	  { XDP_DEFER(REFRESH), XDP_DEFER(REFRESH), TC_PASS(REFRESH),
	    TC_TO(PORT_B), XDP_TO(PORT_B) },
	  .check = a_refreshed },
	{ .name = "keep-alive: recently refreshed source redirects",
	  { TO_B },
	  { XDP_TO(PORT_B), TC_TO(PORT_B) },
	  .setup = a_refreshed_now },
	{ .name = "keep-alive: refresh older than the interval goes to the bridge",
	  { TO_B },
	  { XDP_DEFER(REFRESH), TC_PASS(REFRESH), TC_TO(PORT_B),
	    XDP_TO(PORT_B) },
	  .setup = a_refreshed_long_ago,
	  .check = a_refreshed },
	{ .name = "keep-alive: newly learned source goes to the bridge first",
	  { .dst = MAC_B, .src = MAC_NEW },
	  { TC_PASS(REFRESH), TC_TO(PORT_B), XDP_TO(PORT_B) },
	  .check = new_refreshed },
	{ .name = "keep-alive: moved source goes to the bridge first",
	  { TO_B },
	  { XDP_DEFER(REFRESH), TC_PASS(REFRESH), TC_TO(PORT_B) },
	  .setup = a_refreshed_now_on_c,
	  .check = a_moved_and_refreshed },
	{ .name = "keep-alive: decided after the forwarding checks",
	  { .dst = MAC_UNKNOWN, .src = MAC_A },
	  { XDP_ON, TC_PASS(UNKNOWN) } },
};

static const struct row nolearn_rows[] = {
	{ .name = "learning off: new source not learned",
	  { .dst = MAC_B, .src = MAC_NEW },
	  { TC_TO(PORT_B), XDP_TO(PORT_B) },
	  .check = new_not_learned },
	{ .name = "learning off: MAC seen on a new port stays",
	  { TO_B },
	  { TC_TO(PORT_B), XDP_TO(PORT_B) },
	  .setup = a_learned_on_c,
	  .check = a_still_learned_on_c },
	{ .name = "learning off: known source still gets seen_ns",
	  { TO_B },
	  { TC_TO(PORT_B) },
	  .setup = a_seen_long_ago,
	  .check = a_seen_updated },
};

/* --strict: only sources the bridge has on the ingress port (seeded). */
static const struct row strict_rows[] = {
	{ .name = "strict: source seeded on its port is bypassed",
	  { .dst = MAC_B, .src = MAC_A2 },
	  { TC_TO(PORT_B), XDP_TO(PORT_B) } },
	{ .name = "strict: source learned by the datapath passes",
	  { TO_B },
	  { TC_PASS(SRC), XDP_ON } },
	{ .name = "strict: unknown source passes, is not learned",
	  { .dst = MAC_B, .src = MAC_NEW },
	  { TC_PASS(SRC), XDP_ON },
	  .check = new_not_learned },
	{ .name = "strict: source seeded on another port passes",
	  { .dst = MAC_B, .src = MAC_C },
	  { TC_PASS(SRC), XDP_ON } },
	{ .name = "strict: broadcast still counts as broadcast",
	  { .dst = MAC_BCAST, .src = MAC_NEW },
	  { TC_PASS(MCAST), XDP_ON } },
};

/*
 * The checksum sweep: every L4 length here (header and payload), for
 * IPv4/IPv6 and TCP/UDP, with a valid, a partial and a bad checksum. The
 * lengths cover the tail of csum_region() (0-3 bytes after the last 4-byte
 * word), its 512-byte chunks and the lengths around them, payloads of
 * exactly 512, 1000 and 1400 bytes (UDP: +8, TCP: +20), and odd sizes.
 */
static const __u16 sweep_l4len[] = {
	8,    9,    10,	  11,	12,   20,   21,	  22,	23,   24,
	25,   511,  512,  513,	514,  515,  516,  520,	521,  532,
	533,  1000, 1001, 1008, 1020, 1023, 1024, 1025, 1027, 1400,
	1401, 1408, 1420, 1535, 1536, 2047, 2048, 2049, 2561, 3000,
};

static const struct {
	const char *name;
	enum l3 l3;
	enum l4 l4;
} sweep_protos[] = {
	{ .name = "IPv4/UDP", L3_IPV4, L4_UDP },
	{ .name = "IPv4/TCP", L3_IPV4, L4_TCP },
	{ .name = "IPv6/UDP", L3_IPV6, L4_UDP },
	{ .name = "IPv6/TCP", L3_IPV6, L4_TCP },
};

struct sweep {
	struct row *rows;
	char (*names)[64];
	size_t nr;
};

static bool csum_sweep(struct sweep *sw)
{
	static const char *const cs_names[] = { "valid", "partial", "bad" };
	size_t max = ARRAY_SIZE(sweep_protos) * ARRAY_SIZE(sweep_l4len) * 3;
	size_t p, l;
	int cs;

	sw->nr = 0;
	sw->rows = calloc(max, sizeof(*sw->rows));
	sw->names = calloc(max, sizeof(*sw->names));
	if (!sw->rows || !sw->names)
		return false;
	for (p = 0; p < ARRAY_SIZE(sweep_protos); p++) {
		for (l = 0; l < ARRAY_SIZE(sweep_l4len); l++) {
			size_t hlen = sweep_protos[p].l4 == L4_TCP ? 20 : 8;

			if (sweep_l4len[l] < hlen)
				continue;
			for (cs = CS_VALID; cs <= CS_BAD; cs++) {
				struct expect xdp = XDP_TO(PORT_B),
					      tc = TC_TO(PORT_B),
					      defer = XDP_DEFER(CSUM);
				struct row *r = &sw->rows[sw->nr];

				snprintf(sw->names[sw->nr], sizeof(*sw->names),
					 "xdp checksum: %s %u bytes, %s",
					 sweep_protos[p].name, sweep_l4len[l],
					 cs_names[cs]);
				r->name = sw->names[sw->nr];
				r->fr.dst = MAC_B;
				r->fr.src = MAC_A;
				r->fr.l3 = sweep_protos[p].l3;
				r->fr.l4 = sweep_protos[p].l4;
				r->fr.csum = cs;
				r->fr.l4len = sweep_l4len[l];
				r->exp[0] = cs == CS_BAD ? defer : xdp;
				r->exp[1] = tc;
				r->out = cs == CS_PARTIAL ? OUT_CSUM_DONE
							  : OUT_SAME;
				sw->nr++;
			}
		}
	}
	return true;
}

/* ---- Groups, environment, main. ---- */

static int setup_group(void **state)
{
	const struct group *g = env.group;
	struct xdpnet_bpf *s;
	int err;

	(void)state;
	env.skip_group = NULL;
	if (env.skip_all) {
		print_message("skipping %s: %s\n", g->name, env.skip_all);
		return 0;
	}
	s = xdpnet_bpf__open();
	if (!s) {
		env.skip_group = "cannot open the BPF object";
		print_message("skipping %s: %s\n", g->name, env.skip_group);
		return 0;
	}
	s->rodata->cfg_refresh_ns = g->refresh_ns;
	s->rodata->cfg_vlan_filtering = g->vlan_filtering;
	s->rodata->cfg_learning = g->learning;
	s->rodata->cfg_strict_src = g->strict_src;
	/* Only the two packet programs are under test. */
	bpf_program__set_autoload(s->progs.xdpnet_redirect_err, false);
	bpf_program__set_autoload(s->progs.xdpnet_devmap_xmit, false);
	err = xdpnet_bpf__load(s);
	if (err) {
		xdpnet_bpf__destroy(s);
		env.skip_group = "the kernel cannot load the programs";
		print_message("skipping %s: %s (%s)\n", g->name, env.skip_group,
			      strerror(-err));
		return 0;
	}
	env.skel = s;
	return 0;
}

static int teardown_group(void **state)
{
	(void)state;
	xdpnet_bpf__destroy(env.skel);
	env.skel = NULL;
	return 0;
}

static int sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static const char *make_env(void)
{
	int p;

	if (geteuid() != 0)
		return "not root";
	if (unshare(CLONE_NEWNET))
		return "cannot create a network namespace";
	for (p = 0; p < NR_PORTS; p++) {
		const struct port_def *d = &port_defs[p];

		if (sh("ip link add %s mtu %d type veth peer name %s mtu %d",
		       d->dev, d->mtu, d->peer, d->mtu) ||
		    sh("ip link set %s up && ip link set %s up", d->dev,
		       d->peer))
			return "cannot create veth devices";
		env.ifindex[p] = if_nametoindex(d->dev);
		if (!env.ifindex[p])
			return "veth device vanished";
	}
	env.nr_cpus = libbpf_num_possible_cpus();
	if (env.nr_cpus <= 0)
		return "cannot count CPUs";
	env.percpu = calloc(env.nr_cpus, percpu_size());
	if (!env.percpu)
		return "out of memory";
	return NULL;
}

static int run_group(const struct group *g)
{
	struct CMUnitTest *tests = calloc(g->nr_rows, sizeof(*tests));
	size_t i;
	int failed;

	if (!tests)
		return 1;
	for (i = 0; i < g->nr_rows; i++) {
		tests[i].name = g->rows[i].name;
		tests[i].test_func = test_row;
		tests[i].setup_func = setup_row;
		tests[i].initial_state = (void *)(uintptr_t)&g->rows[i];
	}
	env.group = g;
	failed = _cmocka_run_group_tests(g->name, tests, g->nr_rows,
					 setup_group, teardown_group);
	free(tests);
	return failed;
}

#define ROWS(t) .rows = t, .nr_rows = ARRAY_SIZE(t)

int main(void)
{
	struct group groups[] = {
		{ "xdpnet_forwarding", 0, 0, 1, &plain, ROWS(plain_rows), 0 },
		{ "xdpnet_csum_sweep", 0, 0, 1, &plain, NULL, 0, 0 },
		{ "xdpnet_vlan_filtering", 0, 1, 1, &vlan, ROWS(vlan_rows), 0 },
		{ "xdpnet_keepalive", REFRESH_NS, 0, 1, &plain,
		  ROWS(refresh_rows), 0 },
		{ "xdpnet_learning_off", 0, 0, 0, &plain, ROWS(nolearn_rows),
		  0 },
		{ "xdpnet_strict_src", 0, 0, 0, &plain, ROWS(strict_rows), 1 },
	};
	struct sweep sweep;
	int failed = 0;
	size_t g;

	env.skip_all = make_env();
	if (!csum_sweep(&sweep)) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	groups[1].rows = sweep.rows;
	groups[1].nr_rows = sweep.nr;

	for (g = 0; g < ARRAY_SIZE(groups); g++)
		failed += run_group(&groups[g]);

	free(sweep.rows);
	free(sweep.names);
	free(env.percpu);
	return failed ? 1 : 0;
}
