// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The XDP stage's own reasons: it redirects only what it can prove safe
 * (a valid L4 checksum, or a partial one it completes in place, where the
 * redirect drops the checksum state), and hands everything else on to the
 * TC stage (XDP_DEFER_*), which redirects it with its checksum state.
 * Then the checksum sweep: every length around csum_region()'s chunks and
 * tail, IPv4/IPv6, TCP/UDP, valid, partial and bad.
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#define TO_B .dst = M_B, .src = M_A

/* Port A as a tap (not a veth): generic XDP there keeps the checksum
 * state, so a partial checksum must not be completed. */
static bool a_is_tap(void)
{
	return xt_port_flags(P_A, 0, XDPNET_PORT_VETH);
}

/* B flagged as an XDP target, but missing from tx_ports (the kernel
 * removes a device that goes away from a devmap; user space may lag). */
static bool b_not_in_tx_ports(void)
{
	return xt_tx_del(P_B);
}

static const struct xt_row rows[] = {
	/* Protocols. */
	{ .name = "ARP redirects without a checksum",
	  { TO_B, .l3 = L3_ARP },
	  { XDP_TO(P_B), TC_TO(P_B) } },
	{ .name = "IPv4 header truncated defers",
	  { TO_B, .l4len = 8, .len = LEN(30) },
	  { XDP_DEFER(PROTO), TC_TO(P_B) } },
	{ .name = "IPv6 header truncated defers",
	  { TO_B, .l3 = L3_IPV6, .l4len = 8, .len = LEN(50) },
	  { XDP_DEFER(PROTO), TC_TO(P_B) } },
	{ .name = "IPv4 total length beyond the frame defers",
	  { TO_B, .l4len = 108, .len = LEN(14 + 20 + 100) },
	  { XDP_DEFER(PROTO), TC_TO(P_B) } },
	{ .name = "IPv6 payload length beyond the frame defers",
	  { TO_B, .l3 = L3_IPV6, .l4len = 108, .len = LEN(14 + 40 + 100) },
	  { XDP_DEFER(PROTO), TC_TO(P_B) } },
	{ .name = "TCP header truncated defers",
	  { TO_B, .l4 = L4_TCP, .l4len = 20, .len = LEN(14 + 20 + 10) },
	  { XDP_DEFER(PROTO), TC_TO(P_B) } },
	{ .name = "UDP header truncated defers",
	  { TO_B, .l4len = 8, .len = LEN(14 + 20 + 5) },
	  { XDP_DEFER(PROTO), TC_TO(P_B) } },
	{ .name = "IPv4 fragment (MF) defers",
	  { TO_B, .frag_off = 0x2000, .l4len = 100 },
	  { XDP_DEFER(PROTO), TC_TO(P_B) } },
	{ .name = "IPv4 fragment (offset) defers",
	  { TO_B, .frag_off = 0x00b9, .l4len = 100 },
	  { XDP_DEFER(PROTO), TC_TO(P_B) } },
	{ .name = "IPv4 DF is not a fragment",
	  { TO_B, .frag_off = 0x4000, .csum = CS_PARTIAL, .l4len = 100,
	    .native = true },
	  { XDP_TO(P_B), TC_TO(P_B) },
	  .out = OUT_CSUM_DONE },
	{ .name = "IPv6 hop-by-hop header defers",
	  { TO_B, .l3 = L3_IPV6, .hop_by_hop = true, .l4len = 100 },
	  { XDP_DEFER(PROTO), TC_TO(P_B) } },

	/* Checksums. */
	/* No checksum to prove, but its payload may carry one: a tunnel
	 * (VXLAN noudpcsum) with a partial inner checksum. */
	{ .name = "IPv4/UDP checksum 0 defers",
	  { TO_B, .csum = CS_ZERO, .l4len = 100 },
	  { XDP_DEFER(UDP0), TC_TO(P_B) } },
	{ .name = "IPv6/UDP checksum 0 defers",
	  { TO_B, .l3 = L3_IPV6, .csum = CS_ZERO, .l4len = 100 },
	  { XDP_DEFER(CSUM), TC_TO(P_B) } },
	{ .name = "IPv4 options: partial TCP checksum completed",
	  { TO_B, .ip_opts = true, .l4 = L4_TCP, .csum = CS_PARTIAL,
	    .l4len = 333, .native = true },
	  { XDP_TO(P_B), TC_TO(P_B) },
	  .out = OUT_CSUM_DONE },
	{ .name = "IPv4 options: bad UDP checksum defers",
	  { TO_B, .ip_opts = true, .csum = CS_BAD, .l4len = 333 },
	  { XDP_DEFER(CSUM), TC_TO(P_B) } },
	{ .name = "ICMPv4 valid redirects",
	  { TO_B, .l4 = L4_ICMP, .l4len = 64 },
	  { XDP_TO(P_B), TC_TO(P_B) } },
	{ .name = "ICMPv4 bad checksum defers",
	  { TO_B, .l4 = L4_ICMP, .csum = CS_BAD, .l4len = 64 },
	  { XDP_DEFER(CSUM), TC_TO(P_B) } },
	{ .name = "ICMPv4 checksum 0 defers",
	  { TO_B, .l4 = L4_ICMP, .csum = CS_ZERO, .l4len = 64 },
	  { XDP_DEFER(CSUM), TC_TO(P_B) } },
	{ .name = "ICMPv6 valid redirects",
	  { TO_B, .l3 = L3_IPV6, .l4 = L4_ICMP, .l4len = 64 },
	  { XDP_TO(P_B), TC_TO(P_B) } },
	{ .name = "ICMPv6 partial checksum completed",
	  { TO_B, .l3 = L3_IPV6, .l4 = L4_ICMP, .csum = CS_PARTIAL, .l4len = 63,
	    .native = true },
	  { XDP_TO(P_B), TC_TO(P_B) },
	  .out = OUT_CSUM_DONE },
	{ .name = "ICMPv6 bad checksum defers",
	  { TO_B, .l3 = L3_IPV6, .l4 = L4_ICMP, .csum = CS_BAD, .l4len = 64 },
	  { XDP_DEFER(CSUM), TC_TO(P_B) } },
	{ .name = "IPv4/UDP partial checksum, frame padded to 60 bytes",
	  { TO_B, .csum = CS_PARTIAL, .l4len = 9, .pad = true, .native = true },
	  { XDP_TO(P_B), TC_TO(P_B) },
	  .out = OUT_CSUM_DONE },
	{ .name = "IPv4/TCP bad checksum, frame padded to 60 bytes",
	  { TO_B, .l4 = L4_TCP, .csum = CS_BAD, .l4len = 21, .pad = true },
	  { XDP_DEFER(CSUM), TC_TO(P_B) } },

	/*
	 * Completing a partial checksum is right only where the redirect
	 * drops the checksum state: an xdp_buff redirect (tun's native
	 * paths, a veth). A test run always looks like generic XDP to the
	 * program (the device's own rxq, room for metadata); the native
	 * rows run its copy that takes every buffer as an xdp_buff
	 * (xdpnet_test_native). A veth is no different from a tap.
	 */
	{ .name = "tap, generic XDP: partial checksum defers",
	  { TO_B, .l4 = L4_TCP, .csum = CS_PARTIAL, .l4len = 200 },
	  { XDP_DEFER(CSUM), TC_TO(P_B) },
	  .setup = a_is_tap },
	{ .name = "veth, generic XDP: partial checksum defers",
	  { TO_B, .l3 = L3_IPV6, .csum = CS_PARTIAL, .l4len = 200 },
	  { XDP_DEFER(CSUM), TC_TO(P_B) } },
	{ .name = "tap, generic XDP: valid checksum redirects",
	  { TO_B, .l4 = L4_TCP, .l4len = 200 },
	  { XDP_TO(P_B), TC_TO(P_B) },
	  .setup = a_is_tap },
	{ .name = "tap, generic XDP: bad checksum defers",
	  { TO_B, .l4 = L4_TCP, .csum = CS_BAD, .l4len = 200 },
	  { XDP_DEFER(CSUM), TC_TO(P_B) },
	  .setup = a_is_tap },
	{ .name = "tap, native XDP: partial checksum completed",
	  { TO_B, .l4 = L4_TCP, .csum = CS_PARTIAL, .l4len = 200,
	    .native = true },
	  { XDP_TO(P_B), TC_TO(P_B) },
	  .out = OUT_CSUM_DONE,
	  .setup = a_is_tap },
	{ .name = "tap, native XDP: valid checksum redirects unchanged",
	  { TO_B, .l3 = L3_IPV6, .l4len = 200, .native = true },
	  { XDP_TO(P_B), TC_TO(P_B) },
	  .setup = a_is_tap },
	/* Also what a tunnel's outer checksum looks like while its inner
	 * one is partial (local checksum offload sums the outer one for
	 * the completed inner one): it does not add up as it stands. */
	{ .name = "tap, native XDP: bad checksum defers",
	  { TO_B, .l3 = L3_IPV6, .csum = CS_BAD, .l4len = 200, .native = true },
	  { XDP_DEFER(CSUM), TC_TO(P_B) },
	  .setup = a_is_tap },
	{ .name = "veth, native XDP: partial checksum completed",
	  { TO_B, .l3 = L3_IPV6, .csum = CS_PARTIAL, .l4len = 200,
	    .native = true },
	  { XDP_TO(P_B), TC_TO(P_B) },
	  .out = OUT_CSUM_DONE },

	/* Sizes: B has MTU 9000. */
	{ .name = "IPv4 frame of XDPNET_XDP_MAX_FRAME bytes, partial, "
		  "redirects",
	  { TO_B, .csum = CS_PARTIAL, .l4len = XDPNET_XDP_MAX_FRAME - 14 - 20,
	    .native = true },
	  { XDP_TO(P_B), TC_TO(P_B) },
	  .out = OUT_CSUM_DONE },
	{ .name = "IPv6 frame of XDPNET_XDP_MAX_FRAME bytes, partial, "
		  "redirects",
	  { TO_B, .l3 = L3_IPV6, .l4 = L4_TCP, .csum = CS_PARTIAL,
	    .l4len = XDPNET_XDP_MAX_FRAME - 14 - 40, .native = true },
	  { XDP_TO(P_B), TC_TO(P_B) },
	  .out = OUT_CSUM_DONE },
	{ .name = "IPv4 frame one byte over XDPNET_XDP_MAX_FRAME defers",
	  { TO_B, .l4len = XDPNET_XDP_MAX_FRAME - 14 - 20 + 1 },
	  { XDP_DEFER(SIZE), TC_TO(P_B) } },
	{ .name = "over XDPNET_XDP_MAX_FRAME: size defers before protocol",
	  { TO_B, .l3 = L3_RAW, .l4len = XDPNET_XDP_MAX_FRAME },
	  { XDP_DEFER(SIZE), TC_TO(P_B) } },

	/* The redirect target: a frame is either redirected or left
	 * alone. With the target gone from the devmap, the redirect fails
	 * after the checksum was completed: the stage puts the field back
	 * (without that, this row's frame comes back changed). */
	{ .name = "XDP target missing from tx_ports: not redirected, frame "
		  "unchanged",
	  { TO_B, .l4 = L4_TCP, .csum = CS_PARTIAL, .l4len = 200,
	    .native = true },
	  { XDP_DEFER(TARGET), TC_TO(P_B) },
	  .setup = b_not_in_tx_ports },
};

/*
 * The sweep: every L4 length here (header and payload), for IPv4/IPv6 and
 * TCP/UDP, with a valid, a partial and a bad checksum. The lengths cover
 * the tail of csum_region() (0-3 bytes after the last 4-byte word), its
 * 512-byte chunks and the lengths around them, payloads of exactly 512,
 * 1000 and 1400 bytes (UDP: +8, TCP: +20), and odd sizes.
 */
static const __u16 sweep_l4len[] = {
	8,    9,    10,	  11,	12,   20,   21,	  22,	23,   24,
	25,   511,  512,  513,	514,  515,  516,  520,	521,  532,
	533,  1000, 1001, 1008, 1020, 1023, 1024, 1025, 1027, 1400,
	1401, 1408, 1420, 1535, 1536, 2047, 2048, 2049, 2561, 3000,
};

static const struct {
	const char *name;
	enum xt_l3 l3;
	enum xt_l4 l4;
} sweep_protos[] = {
	{ "IPv4/UDP", L3_IPV4, L4_UDP },
	{ "IPv4/TCP", L3_IPV4, L4_TCP },
	{ "IPv6/UDP", L3_IPV6, L4_UDP },
	{ "IPv6/TCP", L3_IPV6, L4_TCP },
};

static void sweep(void)
{
	static const char *const cs_names[] = { "valid", "partial", "bad" };
	size_t max = ARRAY_SIZE(sweep_protos) * ARRAY_SIZE(sweep_l4len) * 3;
	struct xt_row *rows = calloc(max, sizeof(*rows));
	char(*names)[64] = calloc(max, sizeof(*names));
	struct xt_table t = { "sweep", {}, &xt_plain, rows, 0 };
	size_t p, l;
	int cs;

	if (!rows || !names) {
		xt_begin("sweep");
		CHECK(false, "out of memory");
		goto out;
	}
	for (p = 0; p < ARRAY_SIZE(sweep_protos); p++) {
		for (l = 0; l < ARRAY_SIZE(sweep_l4len); l++) {
			size_t hlen = sweep_protos[p].l4 == L4_TCP ? 20 : 8;

			if (sweep_l4len[l] < hlen)
				continue;
			for (cs = CS_VALID; cs <= CS_BAD; cs++) {
				struct xt_expect xdp = XDP_TO(P_B),
						 tc = TC_TO(P_B),
						 defer = XDP_DEFER(CSUM);
				struct xt_row *r = &rows[t.nr_rows];

				snprintf(names[t.nr_rows], sizeof(*names),
					 "%s %u bytes, %s",
					 sweep_protos[p].name, sweep_l4len[l],
					 cs_names[cs]);
				r->name = names[t.nr_rows];
				r->fr.dst = M_B;
				r->fr.src = M_A;
				r->fr.l3 = sweep_protos[p].l3;
				r->fr.l4 = sweep_protos[p].l4;
				r->fr.csum = cs;
				r->fr.l4len = sweep_l4len[l];
				r->fr.native = true;
				r->exp[0] = cs == CS_BAD ? defer : xdp;
				r->exp[1] = tc;
				r->out = cs == CS_PARTIAL ? OUT_CSUM_DONE
							  : OUT_SAME;
				t.nr_rows++;
			}
		}
	}
	xt_run_table(&t);
out:
	free(rows);
	free(names);
}

void test_csum(void)
{
	const struct xt_table t = {
		"xdp", {}, &xt_plain, rows, ARRAY_SIZE(rows)
	};

	xt_run_table(&t);
	sweep();
}
