// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * VLANs. With VLAN filtering the bridge keys its FDB by (MAC, VID), and a
 * frame is bypassed only where both ports are members of its VLAN with the
 * same tagging (retagging is the bridge's job). Without filtering a tag is
 * payload, except that the XDP stage looks behind one to prove checksums.
 *
 * BPF_PROG_TEST_RUN cannot hand the TC program a tag in skb metadata (the
 * __sk_buff vlan fields are not input), and on a real port the stack moves
 * the outer tag there before TC runs: tagged frames go through the XDP
 * program only; the TC rows are untagged frames (VLAN = the port's pvid).
 */
#include "harness.h"

#define TO_B .dst = M_B, .src = M_A
#define TAG(v) .tpid = ETH_P_8021Q, .vid = (v)

/* 'bridge vlan set dev A|B vid 20 state blocking' (without MST). */
static bool a_held_in_20(void)
{
	return xt_vlan_flags(P_A, 20, XDPNET_VLAN_HELD);
}

static bool b_held_in_20(void)
{
	return xt_vlan_flags(P_B, 20, XDPNET_VLAN_HELD);
}

static bool a_held_in_10(void)
{
	return xt_vlan_flags(P_A, 10, XDPNET_VLAN_HELD);
}

static bool b_held_in_10(void)
{
	return xt_vlan_flags(P_B, 10, XDPNET_VLAN_HELD);
}

static const struct xt_row filtering[] = {
	/* Untagged: the ingress port's pvid. */
	{ .name = "untagged on the pvid to an untagged member redirects",
	  { TO_B },
	  { TC_TO(P_B), XDP_TO(P_B) } },
	{ .name = "untagged in, tagged out (tagging differs) passes",
	  { .dst = M_C, .src = M_A },
	  { TC_PASS(VLAN), XDP_ON } },
	{ .name = "untagged, ingress port held in its pvid, passes",
	  { TO_B },
	  { TC_PASS(STATE), XDP_ON },
	  .setup = a_held_in_10 },
	{ .name = "untagged, egress port held in the pvid, passes",
	  { TO_B },
	  { TC_PASS(STATE), XDP_ON },
	  .setup = b_held_in_10 },
	{ .name = "untagged, egress port held in another VLAN, redirects",
	  { TO_B },
	  { TC_TO(P_B), XDP_TO(P_B) },
	  .setup = b_held_in_20 },
	{ .name = "untagged on a port without a pvid passes",
	  { .in = P_D, .dst = M_B, .src = M_D },
	  { TC_PASS(VLAN), XDP_ON } },
	{ .name = "untagged on a pvid the port is no member of passes",
	  { .in = P_C, .dst = M_B, .src = M_C },
	  { TC_PASS(VLAN), XDP_ON } },
	{ .name = "target no member of the VLAN passes",
	  { .dst = M_D, .src = M_A },
	  { TC_PASS(VLAN), XDP_ON } },
	{ .name = "destination known in another VLAN only is unknown",
	  { .dst = M_X, .src = M_A },
	  { TC_PASS(UNKNOWN), XDP_ON } },
	{ .name = "source known in another VLAN only passes",
	  { .dst = M_B, .src = M_X },
	  { TC_PASS(SRC), XDP_ON } },
	{ .name = "the host's address in the VLAN passes",
	  { .dst = M_LOCAL, .src = M_A },
	  { TC_PASS(LOCAL), XDP_ON } },
	{ .name = "multicast passes",
	  { .dst = M_BCAST, .src = M_A },
	  { TC_PASS(MCAST), XDP_ON } },
	/* Tagged: XDP only. */
	{ .name = "tagged to a tagged member redirects",
	  { TO_B, TAG(20) },
	  { XDP_TO(P_B) } },
	{ .name = "tagged, destination known in that VLAN only, redirects",
	  { .dst = M_X, .src = M_A, TAG(20) },
	  { XDP_TO(P_B) } },
	{ .name = "tagged, static source in that VLAN, redirects",
	  { .dst = M_B, .src = M_A2, TAG(20) },
	  { XDP_TO(P_B) } },
	{ .name = "tagged, source known in the pvid only, passes",
	  { .dst = M_B, .src = M_A2, TAG(10) },
	  { XDP_ON } },
	{ .name = "tagged in, untagged out (tagging differs) passes",
	  { TO_B, TAG(10) },
	  { XDP_ON } },
	{ .name = "tagged with a VLAN the port is no member of passes",
	  { TO_B, TAG(30) },
	  { XDP_ON } },
	{ .name = "priority tag (VID 0) passes", { TO_B, TAG(0) }, { XDP_ON } },
	/* Per-VLAN port state. */
	{ .name = "ingress port not forwarding in the VLAN passes",
	  { TO_B, TAG(20) },
	  { XDP_ON },
	  .setup = a_held_in_20 },
	{ .name = "egress port not forwarding in the VLAN passes",
	  { TO_B, TAG(20) },
	  { XDP_ON },
	  .setup = b_held_in_20 },
	{ .name = "held in another VLAN: redirects",
	  { TO_B, TAG(20) },
	  { XDP_TO(P_B) },
	  .setup = a_held_in_10 },
	{ .name = "802.1ad tag passes (the bridge filters 802.1Q)",
	  { TO_B, .tpid = ETH_P_8021AD, .vid = 20 },
	  { XDP_ON } },
	{ .name = "802.1ad outer, 802.1Q inner passes",
	  { TO_B, .tpid = ETH_P_8021AD, .vid = 20, .tpid2 = ETH_P_8021Q },
	  { XDP_ON } },
	{ .name = "802.1Q outer, 802.1Q inner: redirect by the outer, xdp "
		  "defers",
	  { TO_B, TAG(20), .tpid2 = ETH_P_8021Q },
	  { XDP_DEFER(PROTO) } },
	{ .name = "truncated 802.1Q header passes",
	  { TO_B, TAG(20), .len = LEN(16) },
	  { XDP_ON } },
	{ .name = "tagged IPv4/TCP partial checksum completed behind the tag",
	  { TO_B, TAG(20), .l4 = L4_TCP, .csum = CS_PARTIAL, .l4len = 401,
	    .native = true },
	  { XDP_TO(P_B) },
	  .out = OUT_CSUM_DONE },
	{ .name = "tagged IPv6/UDP bad checksum defers",
	  { TO_B, TAG(20), .l3 = L3_IPV6, .csum = CS_BAD, .l4len = 401 },
	  { XDP_DEFER(CSUM) } },
	/* The TC program only knows tags in skb metadata: an in-band tag
	 * (never there on a real port, see above) is payload. */
	{ .name = "tc: an in-band tag is payload, the frame is untagged",
	  { TO_B, TAG(20) },
	  { TC_TO(P_B) } },
};

/* An 802.1ad bridge (vlan_protocol 802.1ad): S-tags are its VLANs, a
 * C-tag (802.1Q) is payload of an untagged frame to it. */
static const struct xt_row filtering_ad[] = {
	{ .name = "S-tagged to a tagged member redirects",
	  { TO_B, .tpid = ETH_P_8021AD, .vid = 20 },
	  { XDP_TO(P_B) } },
	{ .name = "S-tag outer, C-tag inner: redirect by the outer, xdp "
		  "defers",
	  { TO_B, .tpid = ETH_P_8021AD, .vid = 20, .tpid2 = ETH_P_8021Q },
	  { XDP_DEFER(PROTO) } },
	{ .name = "C-tagged (802.1Q) passes: untagged to the bridge",
	  { TO_B, TAG(20) },
	  { XDP_ON } },
	{ .name = "C-tagged on the pvid's number passes too",
	  { TO_B, TAG(10) },
	  { XDP_ON } },
	{ .name = "untagged on the pvid to an untagged member redirects",
	  { TO_B },
	  { TC_TO(P_B), XDP_TO(P_B) } },
	{ .name = "truncated S-tag passes",
	  { TO_B, .tpid = ETH_P_8021AD, .vid = 20, .len = LEN(16) },
	  { XDP_ON } },
};

static const struct xt_row tags[] = {
	{ .name = "802.1Q tag: redirected by MAC",
	  { TO_B, TAG(20), .l4 = L4_TCP, .csum = CS_PARTIAL, .l4len = 100,
	    .native = true },
	  { XDP_TO(P_B), TC_TO(P_B) },
	  .out = OUT_CSUM_DONE },
	{ .name = "802.1ad tag: redirected by MAC",
	  { TO_B, .tpid = ETH_P_8021AD, .vid = 20 },
	  { XDP_TO(P_B), TC_TO(P_B) } },
	{ .name = "stacked 802.1ad/802.1Q tags: xdp defers",
	  { TO_B, .tpid = ETH_P_8021AD, .vid = 20, .tpid2 = ETH_P_8021Q },
	  { XDP_DEFER(PROTO), TC_TO(P_B) } },
	{ .name = "stacked 802.1Q/802.1Q tags: xdp defers",
	  { TO_B, TAG(7), .tpid2 = ETH_P_8021Q },
	  { XDP_DEFER(PROTO), TC_TO(P_B) } },
	{ .name = "truncated 802.1Q header (14+2 bytes)",
	  { TO_B, TAG(20), .len = LEN(16) },
	  { XDP_ON, TC_TO(P_B) } },
	{ .name = "truncated 802.1Q header (14+3 bytes)",
	  { TO_B, TAG(20), .len = LEN(17) },
	  { XDP_ON, TC_TO(P_B) } },
	{ .name = "truncated 802.1ad header (14+2 bytes)",
	  { TO_B, .tpid = ETH_P_8021AD, .vid = 20, .len = LEN(16) },
	  { XDP_ON, TC_TO(P_B) } },
	{ .name = "802.1Q header, nothing behind it: xdp defers",
	  { TO_B, TAG(20), .l3 = L3_RAW, .len = LEN(18) },
	  { XDP_DEFER(PROTO), TC_TO(P_B) } },
	{ .name = "tagged multicast passes",
	  { .dst = M_BCAST, .src = M_A, TAG(20) },
	  { XDP_ON, TC_PASS(MCAST) } },
	{ .name = "tagged, unknown source passes",
	  { .dst = M_B, .src = M_NEW, TAG(20) },
	  { XDP_ON, TC_PASS(SRC) } },
};

void test_vlan(void)
{
	const struct xt_table t[] = {
		{ "filtering",
		  { .vlan_filtering = 1 },
		  &xt_vlan,
		  filtering,
		  ARRAY_SIZE(filtering) },
		{ "filtering 802.1ad",
		  { .vlan_filtering = XDPNET_VF_8021AD },
		  &xt_vlan,
		  filtering_ad,
		  ARRAY_SIZE(filtering_ad) },
		{ "tags without filtering",
		  {},
		  &xt_plain,
		  tags,
		  ARRAY_SIZE(tags) },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		xt_run_table(&t[i]);
}
