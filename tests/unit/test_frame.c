// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests for xdpnet trace's frames: user/lib/frame.c (a frame from
 * fields, its checksums checked here by a sum of our own) and
 * user/lib/pcap_read.c (pcapng as render/pcapng.c writes it, classic pcap of
 * either byte order, and the captures it must refuse).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <cmocka.h>
#include "lib/frame.h"
#include "lib/pcap_read.h"
#include "render/pcapng.h"

static unsigned int get16(const uint8_t *p)
{
	return (unsigned int)(p[0] << 8 | p[1]);
}

/* The one's-complement sum of a range, folded (0xffff: a valid sum). */
static unsigned int sum(unsigned int s, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += get16(p + i);
	if (n & 1)
		s += (unsigned int)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

static struct xn_frame_spec spec(enum xn_frame_l3 l3, enum xn_frame_l4 l4)
{
	struct xn_frame_spec s = { .vlan = -1, .l3 = l3, .l4 = l4 };

	memcpy(s.src, "\x02\x00\x00\x00\x00\x01", 6);
	memcpy(s.dst, "\x02\x00\x00\x00\x00\x02", 6);
	return s;
}

static void check_l4(const uint8_t *f, size_t len, size_t l3)
{
	unsigned int et = get16(f + l3 - 2), proto, l4len, ps;
	const uint8_t *ip = f + l3, *l4;

	if (et == 0x0800) {
		assert_int_equal(sum(0, ip, 20), 0xffff);
		assert_int_equal(get16(ip + 2), len - l3);
		proto = ip[9];
		l4 = ip + 20;
		l4len = (unsigned int)(len - l3 - 20);
		ps = proto == IPPROTO_ICMP
			     ? 0
			     : sum(sum(0, ip + 12, 8),
				   (const uint8_t[]){ 0, (uint8_t)proto,
						      (uint8_t)(l4len >> 8),
						      (uint8_t)l4len },
				   4);
	} else {
		assert_int_equal(et, 0x86dd);
		assert_int_equal(get16(ip + 4), len - l3 - 40);
		proto = ip[6];
		l4 = ip + 40;
		l4len = (unsigned int)(len - l3 - 40);
		ps = sum(sum(0, ip + 8, 32),
			 (const uint8_t[]){ 0, (uint8_t)proto,
					    (uint8_t)(l4len >> 8),
					    (uint8_t)l4len },
			 4);
	}
	assert_int_equal(sum(ps, l4, l4len), 0xffff);
}

static void test_build(void **state)
{
	static const struct {
		enum xn_frame_l3 l3;
		enum xn_frame_l4 l4;
		int vlan;
		unsigned int len, want_len;
		const char *kind;
	} rows[] = {
		{ XN_L3_IPV4, XN_L4_UDP, -1, 0, 60, "IPv4/UDP" },
		{ XN_L3_IPV4, XN_L4_TCP, -1, 1400, 1400, "IPv4/TCP" },
		{ XN_L3_IPV4, XN_L4_ICMP, 7, 99, 99, "802.1Q 7 IPv4/ICMP" },
		{ XN_L3_IPV6, XN_L4_UDP, -1, 0, 62, "IPv6/UDP" },
		{ XN_L3_IPV6, XN_L4_TCP, 4094, 3500, 3500,
		  "802.1Q 4094 IPv6/TCP" },
		{ XN_L3_IPV6, XN_L4_ICMP, -1, 201, 201, "IPv6/ICMPv6" },
		{ XN_L3_ARP, XN_L4_UDP, -1, 0, 60, "ARP" },
		{ XN_L3_RAW, XN_L4_UDP, 0, 0, 60, "802.1Q 0 EtherType 0x88b5" },
	};
	static uint8_t f[4096];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct xn_frame_spec s = spec(rows[i].l3, rows[i].l4);
		size_t n, l3 = 14;
		char kind[64];

		s.vlan = rows[i].vlan;
		s.tpid = 0x8100;
		s.len = rows[i].len;
		s.ethertype = 0x88b5;
		n = xn_frame_build(&s, f, sizeof(f));
		assert_int_equal(n, rows[i].want_len);
		assert_memory_equal(f, s.dst, 6);
		assert_memory_equal(f + 6, s.src, 6);
		if (s.vlan >= 0) {
			assert_int_equal(get16(f + 12), 0x8100);
			assert_int_equal(get16(f + 14), s.vlan);
			l3 += 4;
		}
		xn_frame_describe(f, n, kind, sizeof(kind));
		assert_string_equal(kind, rows[i].kind);
		if (s.l3 == XN_L3_IPV4 || s.l3 == XN_L3_IPV6)
			check_l4(f, n, l3);
	}
}

/* A partial checksum holds the pseudo-header's sum: completed over the
 * segment as the kernel would (skb_checksum_help()), it is the valid
 * one. */
static void test_build_partial(void **state)
{
	static const enum xn_frame_l3 l3s[] = { XN_L3_IPV4, XN_L3_IPV6 };
	static const enum xn_frame_l4 l4s[] = { XN_L4_UDP, XN_L4_TCP };
	unsigned int i, j;
	uint8_t f[2048], g[2048];

	(void)state;
	for (i = 0; i < 2; i++) {
		for (j = 0; j < 2; j++) {
			struct xn_frame_spec s = spec(l3s[i], l4s[j]);
			size_t n, m, l4 = l3s[i] == XN_L3_IPV4 ? 34 : 54;
			size_t off = l4 + (l4s[j] == XN_L4_UDP ? 6 : 16);
			unsigned int done;

			s.len = 333;
			n = xn_frame_build(&s, g, sizeof(g));
			s.partial = 1;
			m = xn_frame_build(&s, f, sizeof(f));
			assert_int_equal(n, m);
			/* Everything but the checksum as the full frame. */
			assert_memory_equal(f, g, off);
			assert_memory_equal(f + off + 2, g + off + 2,
					    n - off - 2);
			assert_int_not_equal(get16(f + off), get16(g + off));
			done = sum(0, f + l4, n - l4);
			done = ~done & 0xffff;
			if (l4s[j] == XN_L4_UDP && !done)
				done = 0xffff;
			assert_int_equal(done, get16(g + off));
		}
	}
}

static void test_build_limits(void **state)
{
	struct xn_frame_spec s = spec(XN_L3_IPV4, XN_L4_TCP);
	uint8_t f[128];

	(void)state;
	assert_int_equal(xn_frame_min_len(&s), 54);
	s.len = 53;
	assert_int_equal(xn_frame_build(&s, f, sizeof(f)), 0);
	s.len = 129;
	assert_int_equal(xn_frame_build(&s, f, sizeof(f)), 0);
	s.len = 54;
	assert_int_equal(xn_frame_build(&s, f, sizeof(f)), 54);
	/* addresses given are used */
	s = spec(XN_L3_IPV4, XN_L4_UDP);
	inet_pton(AF_INET, "10.1.2.3", &s.saddr);
	assert_int_equal(xn_frame_build(&s, f, sizeof(f)), 60);
	assert_memory_equal(f + 26, "\x0a\x01\x02\x03", 4);
	check_l4(f, 60, 14);
}

static char *tmpfile_path(void)
{
	static char path[] = "/tmp/xn-test-frame.XXXXXX";
	int fd;

	strcpy(path, "/tmp/xn-test-frame.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	return path;
}

static void test_pcapng(void **state)
{
	uint8_t a[100], b[1500], buf[2048];
	struct xn_pcap_frame pf = { .buf = buf, .cap = sizeof(buf) };
	char *path = tmpfile_path();
	FILE *f = fopen(path, "w");

	(void)state;
	memset(a, 0xa1, sizeof(a));
	memset(b, 0xb2, sizeof(b));
	assert_non_null(f);
	assert_int_equal(xn_pcapng_header(f, "test"), 0);
	assert_int_equal(xn_pcapng_interface(f, "vnet0", "a port", 2048), 0);
	assert_int_equal(xn_pcapng_interface(f, "vnet1", "another", 2048), 0);
	assert_int_equal(xn_pcapng_packet(f, 0, 1, a, sizeof(a), sizeof(a),
					  XN_PCAPNG_IN, "xdpnet path=tc"),
			 0);
	assert_int_equal(xn_pcapng_packet(f, 1, 2, b, sizeof(b), sizeof(b),
					  XN_PCAPNG_OUT, NULL),
			 0);
	assert_int_equal(xn_pcapng_packet(f, 1, 3, b, 64, sizeof(b),
					  XN_PCAPNG_IN, NULL),
			 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(xn_pcap_read(path, 1, &pf), 0);
	assert_int_equal(pf.len, sizeof(a));
	assert_memory_equal(buf, a, sizeof(a));
	assert_string_equal(pf.ifname, "vnet0");
	assert_int_equal(pf.outbound, 0);
	assert_int_equal(xn_pcap_read(path, 2, &pf), 0);
	assert_int_equal(pf.len, sizeof(b));
	assert_memory_equal(buf, b, sizeof(b));
	assert_string_equal(pf.ifname, "vnet1");
	assert_int_equal(pf.outbound, 1);
	/* cut short by the snap length; past the end */
	assert_int_equal(xn_pcap_read(path, 3, &pf), -1);
	assert_int_equal(xn_pcap_read(path, 4, &pf), -1);
	pf.cap = 64; /* longer than trace takes */
	assert_int_equal(xn_pcap_read(path, 2, &pf), -1);
	unlink(path);
}

static void put32(uint8_t *p, uint32_t v, int be)
{
	int i;

	for (i = 0; i < 4; i++)
		p[be ? i : 3 - i] = (uint8_t)(v >> (24 - 8 * i));
}

/* A classic pcap of two frames (60 and 70 bytes) with link type lt. */
static void write_pcap(const char *path, int be, uint32_t magic, uint32_t lt)
{
	uint8_t h[24] = { 0 }, r[16] = { 0 }, d[70];
	FILE *f = fopen(path, "w");
	int i;

	assert_non_null(f);
	put32(h, magic, be);
	h[be ? 5 : 4] = 2; /* version 2.4 */
	h[be ? 7 : 6] = 4;
	put32(h + 16, 65535, be);
	put32(h + 20, lt, be);
	fwrite(h, 1, sizeof(h), f);
	for (i = 0; i < 2; i++) {
		uint32_t n = i ? 70 : 60;

		memset(d, 0x10 + i, sizeof(d));
		put32(r + 8, n, be);
		put32(r + 12, n, be);
		fwrite(r, 1, sizeof(r), f);
		fwrite(d, 1, n, f);
	}
	assert_int_equal(fclose(f), 0);
}

static void test_pcap(void **state)
{
	uint8_t buf[2048];
	struct xn_pcap_frame pf = { .buf = buf, .cap = sizeof(buf) };
	char *path = tmpfile_path();
	int be;

	(void)state;
	for (be = 0; be < 2; be++) {
		write_pcap(path, be, be ? 0xa1b23c4d : 0xa1b2c3d4, 1);
		assert_int_equal(xn_pcap_read(path, 2, &pf), 0);
		assert_int_equal(pf.len, 70);
		assert_int_equal(buf[69], 0x11);
		assert_string_equal(pf.ifname, "");
		assert_int_equal(xn_pcap_read(path, 1, &pf), 0);
		assert_int_equal(pf.len, 60);
		assert_int_equal(xn_pcap_read(path, 3, &pf), -1);
	}
	write_pcap(path, 0, 0xa1b2c3d4, 113); /* Linux cooked: not Ethernet */
	assert_int_equal(xn_pcap_read(path, 1, &pf), -1);
	write_pcap(path, 0, 0x12345678, 1);
	assert_int_equal(xn_pcap_read(path, 1, &pf), -1);
	unlink(path);
	assert_int_equal(xn_pcap_read(path, 1, &pf), -1); /* gone */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_build_partial),
		cmocka_unit_test(test_build_limits),
		cmocka_unit_test(test_pcapng),
		cmocka_unit_test(test_pcap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
