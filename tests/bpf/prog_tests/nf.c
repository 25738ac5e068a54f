// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * br_netfilter's own part (bpf/xdpnet_nf.h, cfg.nf): with it on, a frame
 * that br_netfilter would drop, trim or reassemble before any rule sees it
 * goes to the bridge (pass_nf, counted by the TC stage; the XDP stage
 * hands it on uncounted); every other frame is redirected as without it.
 * Without cfg.nf (no br_netfilter), the bridge checks none of this, and
 * the same frames are redirected.
 */
#include "harness.h"

#define TO_B .dst = M_B, .src = M_A

static bool nf_set(__u32 nf)
{
	struct xdpnet_cfg c;

	if (!xt_cfg_get(&c))
		return false;
	c.nf = nf;
	return xt_cfg_put(&c);
}

/* bridge-nf-call-iptables, -ip6tables and -arptables on. */
static bool nf_on(void)
{
	return nf_set(XDPNET_NF_IP4 | XDPNET_NF_IP6 | XDPNET_NF_ARP);
}

/* bridge-nf-call-iptables alone. */
static bool nf_ip4(void)
{
	return nf_set(XDPNET_NF_IP4);
}

/* ... and bridge-nf-filter-vlan-tagged. */
static bool nf_vlan(void)
{
	return nf_set(XDPNET_NF_IP4 | XDPNET_NF_VLAN);
}

/* ... and bridge-nf-filter-pppoe-tagged. */
static bool nf_pppoe(void)
{
	return nf_set(XDPNET_NF_IP4 | XDPNET_NF_PPPOE);
}

#define NF_PASS                     \
	{                           \
		XDP_ON, TC_PASS(NF) \
	}
#define BOTH_TO_B                       \
	{                               \
		TC_TO(P_B), XDP_TO(P_B) \
	}

/* A 42-byte IPv4 frame, padded to 60 as on the wire: 18 bytes beyond
 * the IP packet, which br_netfilter trims. */
#define SHORT_PADDED .l4len = 8, .pad = true

static const struct xt_row rows[] = {
	/* IPv4. */
	{ .name = "IPv4 as it should be is redirected",
	  { TO_B },
	  BOTH_TO_B,
	  .setup = nf_on },
	{ .name = "IPv4 with options that add up is redirected",
	  { TO_B, .ip_opts = true },
	  BOTH_TO_B,
	  .setup = nf_on },
	{ .name = "IPv4 header checksum wrong: to the bridge (it drops)",
	  { TO_B, .ip_bad_csum = true },
	  NF_PASS,
	  .setup = nf_on },
	{ .name = "... the same with options",
	  { TO_B, .ip_bad_csum = true, .ip_opts = true },
	  NF_PASS,
	  .setup = nf_on },
	{ .name = "... without br_netfilter: redirected (the bridge forwards)",
	  { TO_B, .ip_bad_csum = true },
	  BOTH_TO_B },
	{ .name = "IPv4 bytes beyond the packet: to the bridge (it trims)",
	  { TO_B, SHORT_PADDED },
	  NF_PASS,
	  .setup = nf_on },
	{ .name = "... without br_netfilter: redirected",
	  { TO_B, SHORT_PADDED },
	  BOTH_TO_B },
	{ .name = "IPv4 cut short of its total length: to the bridge (it drops)",
	  { TO_B, .len = LEN(80) },
	  NF_PASS,
	  .setup = nf_on },
	{ .name = "IPv4 first fragment: to the bridge (it may reassemble)",
	  { TO_B, .frag_off = 0x2000 },
	  NF_PASS,
	  .setup = nf_on },
	{ .name = "IPv4 later fragment: to the bridge",
	  { TO_B, .frag_off = 0x0010 },
	  NF_PASS,
	  .setup = nf_on },
	{ .name = "... without br_netfilter: the TC stage redirects it",
	  { TO_B, .frag_off = 0x2000 },
	  { XDP_DEFER(PROTO), TC_TO(P_B) } },
	{ .name = "a frame the bridge handles anyway is still its own",
	  { .dst = M_UNKNOWN, .src = M_A, .ip_bad_csum = true },
	  { TC_PASS(UNKNOWN), XDP_ON },
	  .setup = nf_on },

	/* IPv6. */
	{ .name = "IPv6 as it should be is redirected",
	  { TO_B, .l3 = L3_IPV6 },
	  BOTH_TO_B,
	  .setup = nf_on },
	{ .name = "IPv6 with a hop-by-hop header: to the bridge",
	  { TO_B, .l3 = L3_IPV6, .hop_by_hop = true },
	  NF_PASS,
	  .setup = nf_on },
	{ .name = "IPv6 cut short of its payload length: to the bridge",
	  { TO_B, .l3 = L3_IPV6, .len = LEN(100) },
	  NF_PASS,
	  .setup = nf_on },
	{ .name = "... with bridge-nf-call-ip6tables off: redirected",
	  { TO_B, .l3 = L3_IPV6, .hop_by_hop = true },
	  { XDP_DEFER(PROTO), TC_TO(P_B) },
	  .setup = nf_ip4 },

	/* ARP. */
	{ .name = "ARP is redirected",
	  { TO_B, .l3 = L3_ARP },
	  BOTH_TO_B,
	  .setup = nf_on },
	{ .name = "ARP too short for its header: to the bridge (it drops)",
	  { TO_B, .l3 = L3_ARP, .len = LEN(20) },
	  NF_PASS,
	  .setup = nf_on },
	{ .name = "... with bridge-nf-call-arptables off: redirected",
	  { TO_B, .l3 = L3_ARP, .len = LEN(20) },
	  BOTH_TO_B,
	  .setup = nf_ip4 },

	/* Tagged frames: only with bridge-nf-filter-vlan-tagged. (At TC
	 * ingress the stack has moved the tag into the skb, which
	 * BPF_PROG_TEST_RUN does not: the XDP stage stands for both.) */
	{ .name = "VLAN-tagged, checksum wrong, filter-vlan-tagged off",
	  { TO_B, .tpid = 0x8100, .vid = 5, .ip_bad_csum = true },
	  { XDP_TO(P_B) },
	  .setup = nf_ip4 },
	{ .name = "VLAN-tagged, checksum wrong, filter-vlan-tagged on",
	  { TO_B, .tpid = 0x8100, .vid = 5, .ip_bad_csum = true },
	  { XDP_ON },
	  .setup = nf_vlan },
	{ .name = "VLAN-tagged as it should be, filter-vlan-tagged on",
	  { TO_B, .tpid = 0x8100, .vid = 5 },
	  { XDP_TO(P_B) },
	  .setup = nf_vlan },

	/* PPPoE sessions: only with bridge-nf-filter-pppoe-tagged. */
	{ .name = "PPPoE session, filter-pppoe-tagged on: to the bridge",
	  { TO_B, .l3 = L3_RAW, .ethertype = 0x8864, .l4len = 46 },
	  NF_PASS,
	  .setup = nf_pppoe },
	{ .name = "PPPoE session, filter-pppoe-tagged off: redirected",
	  { TO_B, .l3 = L3_RAW, .ethertype = 0x8864, .l4len = 46 },
	  { TC_TO(P_B), XDP_DEFER(PROTO) },
	  .setup = nf_ip4 },
};

void test_nf(void)
{
	const struct xt_table t = {
		"nf", {}, &xt_plain, rows, ARRAY_SIZE(rows)
	};

	xt_run_table(&t);
}
