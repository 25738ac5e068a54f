// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests for the pure part of user/reconcile.c: what datapath entry a
 * bridge port should have (xn_port_want) and which bridge settings the
 * datapath reads (xn_cfg_want). Table-driven; no root needed.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <cmocka.h>
#include "xdpnet.h"
#include "lib/util.h"
#include "state/netns.h"
#include "sync/reconcile.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP (1 << 16)
#endif
#define UP (IFF_UP | IFF_LOWER_UP)
#define BR_IFINDEX 5

/* BR_STATE_* (linux/if_bridge.h) */
enum { DISABLED, LISTENING, LEARNING, FORWARDING, BLOCKING };

static const struct xn_link bridge = {
	.ifindex = BR_IFINDEX,
	.name = "br0",
	.kind = "bridge",
	.flags = UP,
	.ageing_time_cs = 30000,
};

/* A port of the bridge, up, forwarding, learning. */
static struct xn_link port(const char *kind)
{
	struct xn_link l = {
		.ifindex = 9,
		.name = "p0",
		.master = BR_IFINDEX,
		.mtu = 1400,
		.flags = UP,
		.is_port = 1,
		.stp_state = FORWARDING,
		.learning = 1,
	};

	snprintf(l.kind, sizeof(l.kind), "%s", kind);
	return l;
}

struct port_case {
	const char *name;
	const char *kind;
	/* changes to the default port */
	int not_port, other_master, down, no_carrier, no_learning, isolated,
		locked, filtered, tc_in, tc_out, backup, vlan_dev, tunnel;
	int state; /* stp_state + 1; 0: forwarding */
	/* want */
	int carried;
	__u32 flags;
	__u32 hold;
};

#define FWD XDPNET_PORT_FWD
#define LRN XDPNET_PORT_LEARNING
#define VETH XDPNET_PORT_VETH
#define TGT XDPNET_PORT_XDP_TARGET
#define ISO XDPNET_PORT_ISOLATED
#define LCK XDPNET_PORT_LOCKED
#define TCE XDPNET_PORT_TC_EGRESS

static const struct port_case port_cases[] = {
	/* carried: taps and veths of this bridge */
	{ "veth forwarding", "veth", .carried = 1, .flags = FWD | LRN | VETH },
	{ "tap forwarding", "tun", .carried = 1, .flags = FWD | LRN | TGT },
	{ "tap without learning", "tun", .no_learning = 1, .carried = 1,
	  .flags = FWD | TGT },
	{ "veth isolated", "veth", .isolated = 1, .carried = 1,
	  .flags = FWD | LRN | VETH | ISO },
	{ "tap isolated", "tun", .isolated = 1, .carried = 1,
	  .flags = FWD | LRN | TGT | ISO },
	/* held: carried, not bypassed */
	{ "tap down", "tun", .down = 1, .carried = 1, .flags = LRN,
	  .hold = XDPNET_HOLD_DOWN },
	{ "veth without carrier", "veth", .no_carrier = 1, .carried = 1,
	  .flags = LRN | VETH, .hold = XDPNET_HOLD_DOWN },
	{ "tap disabled", "tun", .state = DISABLED + 1, .carried = 1,
	  .flags = LRN, .hold = XDPNET_HOLD_STATE },
	{ "tap listening", "tun", .state = LISTENING + 1, .carried = 1,
	  .flags = LRN, .hold = XDPNET_HOLD_STATE },
	{ "veth learning state", "veth", .state = LEARNING + 1, .carried = 1,
	  .flags = LRN | VETH, .hold = XDPNET_HOLD_STATE },
	{ "tap blocking", "tun", .state = BLOCKING + 1, .carried = 1,
	  .flags = LRN, .hold = XDPNET_HOLD_STATE },
	{ "tap locked", "tun", .locked = 1, .carried = 1, .flags = LRN | LCK,
	  .hold = XDPNET_HOLD_LOCKED },
	{ "veth under a filter", "veth", .filtered = 1, .carried = 1,
	  .flags = LRN | VETH, .hold = XDPNET_HOLD_FILTER },
	{ "tap under a filter, isolated", "tun", .filtered = 1, .isolated = 1,
	  .carried = 1, .flags = LRN | ISO, .hold = XDPNET_HOLD_FILTER },
	/* tc on its ingress holds it; on its egress no XDP redirect in */
	{ "tap with tc ingress filters", "tun", .tc_in = 1, .carried = 1,
	  .flags = LRN, .hold = XDPNET_HOLD_TC },
	{ "tap with an egress qdisc", "tun", .tc_out = 1, .carried = 1,
	  .flags = FWD | LRN | TCE },
	{ "veth with tc on both sides", "veth", .tc_in = 1, .tc_out = 1,
	  .carried = 1, .flags = LRN | VETH | TCE, .hold = XDPNET_HOLD_TC },
	/* a backup port: the bridge's choice depends on the carrier */
	{ "tap with a backup port", "tun", .backup = 1, .carried = 1,
	  .flags = LRN, .hold = XDPNET_HOLD_BACKUP },
	{ "veth with a backup port, tc ingress: tc first", "veth", .backup = 1,
	  .tc_in = 1, .carried = 1, .flags = LRN | VETH,
	  .hold = XDPNET_HOLD_TC },
	/* a VLAN device takes its VLAN's frames; vlan_tunnel pops tags */
	{ "tap with a VLAN device on it", "tun", .vlan_dev = 1, .carried = 1,
	  .flags = LRN, .hold = XDPNET_HOLD_VLAN_DEV },
	{ "veth with vlan_tunnel", "veth", .tunnel = 1, .carried = 1,
	  .flags = LRN | VETH, .hold = XDPNET_HOLD_VLAN_TUNNEL },
	{ "tap with a backup port and a VLAN device: backup first", "tun",
	  .backup = 1, .vlan_dev = 1, .tunnel = 1, .carried = 1, .flags = LRN,
	  .hold = XDPNET_HOLD_BACKUP },
	{ "tap filtered and tc ingress: filter first", "tun", .filtered = 1,
	  .tc_in = 1, .carried = 1, .flags = LRN, .hold = XDPNET_HOLD_FILTER },
	/* the first reason wins: down, state, locked, filter */
	{ "down and blocking and locked", "tun", .down = 1,
	  .state = BLOCKING + 1, .locked = 1, .filtered = 1, .carried = 1,
	  .flags = LRN | LCK, .hold = XDPNET_HOLD_DOWN },
	{ "listening and locked", "veth", .state = LISTENING + 1, .locked = 1,
	  .filtered = 1, .carried = 1, .flags = LRN | VETH | LCK,
	  .hold = XDPNET_HOLD_STATE },
	{ "locked and filtered", "tun", .locked = 1, .filtered = 1,
	  .carried = 1, .flags = LRN | LCK, .hold = XDPNET_HOLD_LOCKED },
	/* not carried */
	{ "not a bridge port", "tun", .not_port = 1 },
	{ "port of another bridge", "veth", .other_master = 1 },
	{ "vxlan port", "vxlan", .carried = 0 },
	{ "physical port (no kind)", "", .carried = 0 },
	{ "bond port", "bond", .carried = 0 },
	{ "a bridge in the bridge", "bridge", .carried = 0 },
	{ "kind with tun's prefix", "tunx", .carried = 0 },
	{ "kind veth, other bridge, down", "veth", .other_master = 1,
	  .down = 1 },
};

static void test_port_want(void **state)
{
	static const __u32 filtered[] = { 4, 9, 12 };
	static const __u32 others[] = { 4, 12 };
	static const __u32 tc_others[] = { 3 };
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(port_cases); i++) {
		const struct port_case *c = &port_cases[i];
		struct xn_policy pol = { .filtered = others,
					 .nfiltered = 2,
					 .tc_in = tc_others,
					 .ntc_in = 1,
					 .no_xdp = tc_others,
					 .nno_xdp = 1 };
		struct xn_link l = port(c->kind);
		struct xdpnet_port out, want = {};
		int rc;

		if (c->not_port)
			l.is_port = 0;
		if (c->other_master)
			l.master = BR_IFINDEX + 1;
		if (c->down)
			l.flags &= ~IFF_UP;
		if (c->no_carrier)
			l.flags &= ~IFF_LOWER_UP;
		if (c->no_learning)
			l.learning = 0;
		l.isolated = c->isolated;
		l.locked = c->locked;
		l.backup_port = c->backup ? 12 : 0;
		l.vlan_upper = c->vlan_dev;
		l.vlan_tunnel = c->tunnel;
		if (c->state)
			l.stp_state = c->state - 1;
		if (c->filtered) {
			pol.filtered = filtered;
			pol.nfiltered = ARRAY_SIZE(filtered);
		}
		if (c->tc_in) {
			pol.tc_in = filtered;
			pol.ntc_in = ARRAY_SIZE(filtered);
		}
		if (c->tc_out) {
			pol.no_xdp = filtered;
			pol.nno_xdp = ARRAY_SIZE(filtered);
		}
		memset(&out, 0xa5, sizeof(out));
		rc = xn_port_want(&bridge, &l, &pol, &out);
		if (rc != c->carried)
			fail_msg("%s: returned %d, want %d", c->name, rc,
				 c->carried);
		if (c->carried) {
			want.ifindex = 9;
			want.mtu = 1400;
			want.flags = c->flags;
			want.hold = c->hold;
		}
		/* everything else zero: hooks are filled in by the caller */
		if (memcmp(&out, &want, sizeof(out)))
			fail_msg(
				"%s: ifindex %u flags 0x%x mtu %u pvid %u "
				"tc_reason %u hook %u foreign %u hold %u; want "
				"ifindex %u flags 0x%x mtu %u hold %u, the "
				"rest 0",
				c->name, out.ifindex, out.flags, out.mtu,
				out.pvid, out.tc_reason, out.hook,
				out.foreign_prog_id, out.hold, want.ifindex,
				want.flags, want.mtu, want.hold);
	}
}

/* No policy at all: nothing is filtered. */
static void test_port_want_no_policy(void **state)
{
	struct xn_link l = port("tun");
	struct xdpnet_port out;

	(void)state;
	assert_int_equal(xn_port_want(&bridge, &l, NULL, &out), 1);
	assert_int_equal(out.flags, FWD | LRN | TGT);
	assert_int_equal(out.hold, XDPNET_HOLD_NONE);
	/* an empty list is no list */
	{
		struct xn_policy pol = { .filtered = NULL, .nfiltered = 0 };

		assert_int_equal(xn_port_want(&bridge, &l, &pol, &out), 1);
		assert_int_equal(out.hold, XDPNET_HOLD_NONE);
	}
}

/* ---- bridge settings ---- */

struct cfg_case {
	const char *name;
	__u32 ageing_cs;
	__u32 vlan_filtering;
	__u8 mst;
	int bridge_hold; /* policy */
	int no_policy;
	__u32 hz;
	/* want */
	__u8 vlan;
	__u8 bypass;
	__u32 refresh_j;
	__u32 hold; /* enum xdpnet_bridge_hold */
	/* more of the bridge (0 in the rows above them) */
	__u32 br_stp, forward_delay_cs, promiscuity;
	int neigh_proxy; /* a port has proxy_arp or kin */
};

static const struct cfg_case cfg_cases[] = {
	/* ageing_time / XDPNET_REFRESH_DIV, in jiffies, at most 1 s */
	{ "default ageing, 250 Hz", 30000, 0, 0, 0, 0, 250, 0, 1, 250,
	  XDPNET_BHOLD_NONE, 0, 0, 0, 0 },
	{ "default ageing, 1000 Hz", 30000, 0, 0, 0, 0, 1000, 0, 1, 1000,
	  XDPNET_BHOLD_NONE, 0, 0, 0, 0 },
	{ "default ageing, 100 Hz", 30000, 0, 0, 0, 0, 100, 0, 1, 100,
	  XDPNET_BHOLD_NONE, 0, 0, 0, 0 },
	{ "ageing 10 s, 300 Hz", 1000, 0, 0, 0, 0, 300, 0, 1, 187,
	  XDPNET_BHOLD_NONE, 0, 0, 0, 0 },
	{ "ageing not a multiple of 16", 1003, 0, 0, 0, 0, 1000, 0, 1, 626,
	  XDPNET_BHOLD_NONE, 0, 0, 0, 0 },
	/* never below 100 ms; an ageing that 16 of those do not fit in
	 * (1.6 s) bypasses nothing */
	{ "ageing 1.6 s", 160, 0, 0, 0, 0, 1000, 0, 1, 100, XDPNET_BHOLD_NONE,
	  0, 0, 0, 0 },
	{ "ageing 1.59 s", 159, 0, 0, 0, 0, 1000, 0, 0, 100,
	  XDPNET_BHOLD_AGEING, 0, 0, 0, 0 },
	{ "ageing 0.4 s", 40, 0, 0, 0, 0, 1000, 0, 0, 100, XDPNET_BHOLD_AGEING,
	  0, 0, 0, 0 },
	{ "ageing 0.01 s", 1, 0, 0, 0, 0, 250, 0, 0, 25, XDPNET_BHOLD_AGEING, 0,
	  0, 0, 0 },
	{ "ageing 0.1 s, filters", 10, 0, 0, XDPNET_BHOLD_FILTERS, 0, 250, 0, 0,
	  25, XDPNET_BHOLD_AGEING, 0, 0, 0, 0 },
	/* STP on: forward delay 2 s (its least) keeps a 10 s ageing's
	 * bypass */
	{ "STP on, forward delay 2 s", 1000, 0, 0, 0, 0, 1000, 0, 1, 125,
	  XDPNET_BHOLD_NONE, 1, 200, 0, 0 },
	/* hub mode: ageing_time 0 */
	{ "hub mode", 0, 0, 0, 0, 0, 250, 0, 0, 25, XDPNET_BHOLD_HUB, 0, 0, 0,
	  0 },
	/* VLAN filtering: any non-zero value */
	{ "vlan filtering", 30000, 1, 0, 0, 0, 250, 1, 1, 250,
	  XDPNET_BHOLD_NONE, 0, 0, 0, 0 },
	{ "vlan filtering 0x100", 30000, 0x100, 0, 0, 0, 250, 1, 1, 250,
	  XDPNET_BHOLD_NONE, 0, 0, 0, 0 },
	/* MST: per-VLAN port states the datapath cannot see */
	{ "mst", 30000, 1, 1, 0, 0, 250, 1, 0, 250, XDPNET_BHOLD_MST, 0, 0, 0,
	  0 },
	/* filters between ports, not bypassed */
	{ "filters", 30000, 0, 0, XDPNET_BHOLD_FILTERS, 0, 250, 0, 0, 250,
	  XDPNET_BHOLD_FILTERS, 0, 0, 0, 0 },
	{ "filters unreadable", 30000, 0, 0, XDPNET_BHOLD_UNKNOWN, 0, 250, 0, 0,
	  250, XDPNET_BHOLD_UNKNOWN, 0, 0, 0, 0 },
	/* hub mode wins over what the policy says */
	{ "hub mode and filters", 0, 0, 0, XDPNET_BHOLD_FILTERS, 0, 250, 0, 0,
	  25, XDPNET_BHOLD_HUB, 0, 0, 0, 0 },
	{ "no policy", 30000, 0, 0, 0, 1, 250, 0, 1, 250, XDPNET_BHOLD_NONE, 0,
	  0, 0, 0 },
	{ "ageing 10^6 s, 1000 Hz", 100000000U, 0, 0, 0, 0, 1000, 0, 1, 1000,
	  XDPNET_BHOLD_NONE, 0, 0, 0, 0 },
	/* STP on: a topology change ages after forward_delay, so the
	 * shorter of the two, a sixteenth of it */
	{ "STP on, forward delay 15 s", 30000, 0, 0, 0, 0, 250, 0, 1, 234,
	  XDPNET_BHOLD_NONE, 1, 1500, 0, 0 },
	{ "STP on, ageing 10 s below forward delay 15 s", 1000, 0, 0, 0, 0, 250,
	  0, 1, 156, XDPNET_BHOLD_NONE, 1, 1500, 0, 0 },
	{ "user-space STP, forward delay 2 s", 30000, 0, 0, 0, 0, 1000, 0, 1,
	  125, XDPNET_BHOLD_NONE, 2, 200, 0, 0 },
	{ "STP off: forward delay unused", 30000, 0, 0, 0, 0, 250, 0, 1, 250,
	  XDPNET_BHOLD_NONE, 0, 200, 0, 0 },
	/* promiscuous: the bridge hands every frame to the host too */
	{ "promiscuous", 30000, 0, 0, 0, 0, 250, 0, 0, 250,
	  XDPNET_BHOLD_PROMISC, 0, 1500, 1, 0 },
	{ "promiscuous, filters", 30000, 0, 0, XDPNET_BHOLD_FILTERS, 0, 250, 0,
	  0, 250, XDPNET_BHOLD_PROMISC, 0, 1500, 2, 0 },
	{ "hub mode wins over promiscuous", 0, 0, 0, 0, 0, 250, 0, 0, 25,
	  XDPNET_BHOLD_HUB, 0, 1500, 1, 0 },
	/* a port with proxy_arp or kin: the bridge answers ARP/ND itself */
	{ "a port proxies ARP/ND", 30000, 0, 0, 0, 0, 250, 0, 0, 250,
	  XDPNET_BHOLD_NEIGH, 0, 0, 0, 1 },
	{ "a port proxies ARP/ND, filters", 30000, 0, 0, XDPNET_BHOLD_FILTERS,
	  0, 250, 0, 0, 250, XDPNET_BHOLD_NEIGH, 0, 0, 0, 1 },
	{ "a port proxies ARP/ND, no policy", 30000, 0, 0, 0, 1, 250, 0, 0, 250,
	  XDPNET_BHOLD_NEIGH, 0, 0, 0, 1 },
	{ "promiscuous wins over a port proxying", 30000, 0, 0, 0, 0, 250, 0, 0,
	  250, XDPNET_BHOLD_PROMISC, 0, 0, 1, 1 },
	{ "hub mode wins over a port proxying", 0, 0, 0, 0, 0, 250, 0, 0, 25,
	  XDPNET_BHOLD_HUB, 0, 0, 0, 1 },
};

static void test_cfg_want(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cfg_cases); i++) {
		const struct cfg_case *c = &cfg_cases[i];
		struct xn_link br = bridge;
		struct xn_policy pol = { .bridge_hold = c->bridge_hold,
					 .nf = XDPNET_NF_IP4 | XDPNET_NF_VLAN };
		struct xdpnet_cfg cur = {
			.bridge_ifindex = 77,
			.port_gen = 9,
			.vlan_filtering = !c->vlan,
			.bypass = !c->bypass,
			.netns_ino = 1,
			.refresh_j = 3,
			.hz = c->hz,
			.lat_on = 1,
			.hold = 0x5a5a5a5a,
			.nf = XDPNET_NF_ARP,
		};
		struct xdpnet_cfg out, want;

		br.ageing_time_cs = c->ageing_cs;
		br.vlan_filtering = c->vlan_filtering;
		br.mst = c->mst;
		br.br_stp = c->br_stp;
		br.forward_delay_cs = c->forward_delay_cs;
		br.promiscuity = c->promiscuity;
		memset(&out, 0xa5, sizeof(out));
		xn_cfg_want(&br, c->neigh_proxy, c->no_policy ? NULL : &pol,
			    &cur, &out);
		want = cur;
		want.bridge_ifindex = BR_IFINDEX;
		want.vlan_filtering = c->vlan;
		want.bypass = c->bypass;
		want.netns_ino = xn_netns_self()->ino;
		want.refresh_j = c->refresh_j;
		want.hold = c->hold;
		/* br_netfilter's checks: the policy's; kept without one. */
		if (!c->no_policy)
			want.nf = pol.nf;
		if (memcmp(&out, &want, sizeof(out)))
			fail_msg("%s: bridge %u gen %u vlan %u bypass %u netns "
				 "%llu refresh_j %u hz %u lat_on %u hold %u "
				 "nf %x; want %u %u %u %u %llu %u %u %u "
				 "%u %x",
				 c->name, out.bridge_ifindex, out.port_gen,
				 out.vlan_filtering, out.bypass,
				 (unsigned long long)out.netns_ino,
				 out.refresh_j, out.hz, out.lat_on, out.hold,
				 out.nf, want.bridge_ifindex, want.port_gen,
				 want.vlan_filtering, want.bypass,
				 (unsigned long long)want.netns_ino,
				 want.refresh_j, want.hz, want.lat_on,
				 want.hold, want.nf);
	}
}

/* The tag the bridge filters by: 802.1Q unless it says 802.1ad; nothing
 * without filtering, whatever the protocol. */
static void test_cfg_vlan_protocol(void **state)
{
	static const struct {
		__u32 filtering;
		__u16 proto;
		__u8 want;
	} c[] = {
		{ 0, 0x8100, XDPNET_VF_OFF },	{ 0, 0x88a8, XDPNET_VF_OFF },
		{ 1, 0x8100, XDPNET_VF_8021Q }, { 1, 0x88a8, XDPNET_VF_8021AD },
		{ 1, 0, XDPNET_VF_8021Q },	{ 2, 0x88a8, XDPNET_VF_8021AD },
	};
	struct xdpnet_cfg cur = { .hz = 250 }, out;
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		struct xn_link br = bridge;

		br.vlan_filtering = c[i].filtering;
		br.vlan_protocol = c[i].proto;
		xn_cfg_want(&br, 0, NULL, &cur, &out);
		if (out.vlan_filtering != c[i].want)
			fail_msg("filtering %u protocol %#x: %u, want %u",
				 c[i].filtering, c[i].proto, out.vlan_filtering,
				 c[i].want);
	}
}

/*
 * The datapath decides "refresh due" with (__s32)(now - bridge_j) >
 * (__s32)refresh_j: an interval of 2^31 jiffies or more reads as negative
 * there, and every frame would go to the bridge. Any ageing time the
 * bridge accepts (a u32 of centiseconds) must give a positive interval.
 */
static void test_cfg_refresh_fits(void **state)
{
	static const __u32 hz[] = { 100, 250, 300, 1000 };
	static const __u32 ageing[] = { 1,	     30000,	  100000000U,
					0x7fffffffU, 0xfffffffeU, UINT_MAX };
	unsigned int i, j;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(hz); i++)
		for (j = 0; j < ARRAY_SIZE(ageing); j++) {
			struct xn_link br = bridge;
			struct xdpnet_cfg cur = { .hz = hz[i] }, out;

			br.ageing_time_cs = ageing[j];
			xn_cfg_want(&br, 0, NULL, &cur, &out);
			if ((__s32)out.refresh_j <= 0)
				fail_msg("ageing %u cs at %u Hz: refresh_j %u "
					 "is not a positive 32-bit interval",
					 ageing[j], hz[i], out.refresh_j);
		}
}

/* Any one port with proxy_arp or kin holds the bridge; none, or no
 * ports, does not. */
static void test_ports_neigh_proxy(void **state)
{
	struct xn_link ports[3] = {};

	(void)state;
	assert_int_equal(xn_ports_neigh_proxy(NULL, 0), 0);
	assert_int_equal(xn_ports_neigh_proxy(ports, 3), 0);
	ports[2].neigh_proxy = 1;
	assert_int_equal(xn_ports_neigh_proxy(ports, 3), 1);
	assert_int_equal(xn_ports_neigh_proxy(ports, 2), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_port_want),
		cmocka_unit_test(test_port_want_no_policy),
		cmocka_unit_test(test_cfg_want),
		cmocka_unit_test(test_cfg_vlan_protocol),
		cmocka_unit_test(test_cfg_refresh_fits),
		cmocka_unit_test(test_ports_neigh_proxy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
