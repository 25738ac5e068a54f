// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Every verdict of the forwarding decision (enum xdpnet_ctr), through both
 * entry points: where the frame goes, where it must not, and which reason
 * is counted. The XDP stage counts only its own reasons (XDP_DEFER_*);
 * a frame it hands on with XDP_PASS is counted by the TC stage.
 *
 * BPF_PROG_TEST_RUN runs neither program on a frame shorter than an
 * Ethernet header (xt_kernel_refuses()): the runt rows say what a kernel
 * that did must get.
 */
#include "harness.h"

/* ---- Setups: map and kernel alike (the live build reads the kernel). */

static bool a_no_learning(void)
{
	return xt_port_flags(P_A, 0, XDPNET_PORT_LEARNING);
}

/* 'bridge fdb add 01:00:5e:00:00:fb dev A master static': the bridge
 * takes a static group entry, and still drops frames from that source. */
static bool a_static_group(void)
{
	return xt_fdb_put(M_MCAST4, 0, P_A, XDPNET_FDB_STATIC, 0);
}

static bool a_locked(void)
{
	return xt_port_flags(P_A, XDPNET_PORT_LOCKED, 0);
}

static bool b_locked(void)
{
	return xt_port_flags(P_B, XDPNET_PORT_LOCKED, 0);
}

static bool a_isolated(void)
{
	return xt_port_flags(P_A, XDPNET_PORT_ISOLATED, 0);
}

static bool b_isolated(void)
{
	return xt_port_flags(P_B, XDPNET_PORT_ISOLATED, 0);
}

static bool a_b_isolated(void)
{
	return a_isolated() && b_isolated();
}

/* User space holds the port (STP state, carrier, a filter): FWD cleared
 * in the map while the kernel still forwards. */
static bool a_held(void)
{
	return xt_port_flags(P_A, 0, XDPNET_PORT_FWD);
}

static bool b_held(void)
{
	return xt_port_flags(P_B, 0, XDPNET_PORT_FWD);
}

/* The destination's slot hint: */
/* ... not carried as of the current port generation (trusted). */
static bool b_hint_uncarried_now(void)
{
	return xt_fdb_set_hint(M_B, 0, 0, XT_PORT_GEN);
}

/* ... not carried as of an older generation: must be looked up again. */
static bool b_hint_uncarried_before(void)
{
	return xt_fdb_set_hint(M_B, 0, 0, XT_PORT_GEN - 1);
}

/* ... a slot that now holds another port (A's). */
static bool b_hint_other_slot(void)
{
	return xt_fdb_set_hint(M_B, 0, 3, XT_PORT_GEN - 1);
}

/* ... an empty slot. */
static bool b_hint_empty_slot(void)
{
	return xt_fdb_set_hint(M_B, 0, 5, XT_PORT_GEN - 3);
}

/* ... the right slot, an older generation: still right. */
static bool b_hint_old_gen(void)
{
	return xt_fdb_set_hint(M_B, 0, 7, XT_PORT_GEN - 1);
}

/* The source's hint points elsewhere: the ingress port is found by
 * ifindex, and the hint mended. */
static bool a_src_hint_wrong(void)
{
	return xt_fdb_set_hint(M_A, 0, 7, XT_PORT_GEN - 1);
}

/* ---- Checks. */

static void b_hint_resolved(void)
{
	struct xdpnet_fdb_val v;

	if (!CHECK(xt_fdb_get(M_B, 0, &v), "the entry of M_B is gone"))
		return;
	CHECK(v.slot == 7 && v.gen == XT_PORT_GEN,
	      "M_B's hint is slot %u gen %u, want slot 7 gen %u", v.slot, v.gen,
	      XT_PORT_GEN);
}

static void b_hint_kept(void)
{
	struct xdpnet_fdb_val v;

	if (!CHECK(xt_fdb_get(M_B, 0, &v), "the entry of M_B is gone"))
		return;
	CHECK(v.slot == 0 && v.gen == XT_PORT_GEN,
	      "M_B's hint is slot %u gen %u, want slot 0 gen %u (kept)", v.slot,
	      v.gen, XT_PORT_GEN);
}

static void a_src_hint_mended(void)
{
	struct xdpnet_fdb_val v;

	if (!CHECK(xt_fdb_get(M_A, 0, &v), "the entry of M_A is gone"))
		return;
	CHECK(v.slot == 3 && v.gen == XT_PORT_GEN,
	      "M_A's hint is slot %u gen %u, want slot 3 gen %u", v.slot, v.gen,
	      XT_PORT_GEN);
}

#define TO_B .dst = M_B, .src = M_A

/* Frame lengths around port C's MTU (1280): both stages allow MTU + 14
 * (the bridge takes MTU + 18, but with br_netfilter on it drops IP packets
 * over the MTU: frames between go to the bridge). */
#define C_L4(total) ((total)-14 - 20)

static const struct xt_row rows[] = {
	/* Known unicast. */
	{ .name = "known unicast redirects to its port",
	  { TO_B },
	  { TC_TO(P_B), XDP_TO(P_B) } },
	{ .name = "known unicast to a veth port",
	  { .dst = M_C, .src = M_A },
	  { TC_TO(P_C), XDP_TO(P_C) } },
	{ .name = "known unicast the other way",
	  { .in = P_B, .dst = M_A, .src = M_B },
	  { TC_TO(P_A), XDP_TO(P_A) } },
	{ .name = "static destination redirects",
	  { .dst = M_STATIC_B, .src = M_A },
	  { TC_TO(P_B), XDP_TO(P_B) } },
	{ .name = "target without XDP_TARGET: tc redirects, xdp defers",
	  { .dst = M_D, .src = M_A },
	  { TC_TO(P_D), XDP_DEFER(TARGET) } },
	{ .name = "ARP unicast redirects",
	  { TO_B, .l3 = L3_ARP },
	  { TC_TO(P_B), XDP_TO(P_B) } },

	/* Multicast. */
	{ .name = "broadcast passes",
	  { .dst = M_BCAST, .src = M_A },
	  { TC_PASS(MCAST), XDP_ON } },
	{ .name = "IPv4 multicast passes",
	  { .dst = M_MCAST4, .src = M_A },
	  { TC_PASS(MCAST), XDP_ON } },
	{ .name = "IPv6 multicast passes",
	  { .dst = M_MCAST6, .src = M_A, .l3 = L3_IPV6 },
	  { TC_PASS(MCAST), XDP_ON } },
	{ .name = "ARP broadcast passes",
	  { .dst = M_BCAST, .src = M_A, .l3 = L3_ARP },
	  { TC_PASS(MCAST), XDP_ON } },
	{ .name = "multicast from an unknown source is multicast",
	  { .dst = M_BCAST, .src = M_NEW },
	  { TC_PASS(MCAST), XDP_ON } },

	/* Destinations the bridge must handle. */
	{ .name = "unknown destination passes",
	  { .dst = M_UNKNOWN, .src = M_A },
	  { TC_PASS(UNKNOWN), XDP_ON } },
	{ .name = "the host's address passes",
	  { .dst = M_LOCAL, .src = M_A },
	  { TC_PASS(LOCAL), XDP_ON } },
	{ .name = "a port's own address (local entry) passes",
	  { .in = P_B, .dst = M_A_OWN, .src = M_B },
	  { TC_PASS(LOCAL), XDP_ON } },
	{ .name = "locked destination entry passes",
	  { .dst = M_LOCKED_B, .src = M_A },
	  { TC_PASS(ISOLATED), XDP_ON } },
	{ .name = "hairpin: learned destination behind the ingress port",
	  { .dst = M_A, .src = M_A2 },
	  { TC_PASS(HAIRPIN), XDP_ON } },
	{ .name = "hairpin: static destination behind the ingress port",
	  { .dst = M_A2, .src = M_A },
	  { TC_PASS(HAIRPIN), XDP_ON } },

	/* Destination ports and slot hints. */
	{ .name = "destination behind a port xdpnet does not carry",
	  { .dst = M_E, .src = M_A },
	  { TC_PASS(NOT_ATTACHED), XDP_ON } },
	{ .name = "destination behind an ifindex without a device",
	  { .dst = M_GONE, .src = M_A },
	  { TC_PASS(NOT_ATTACHED), XDP_ON } },
	{ .name = "hint: slot 0 at the current generation is not carried",
	  { TO_B },
	  { TC_PASS(NOT_ATTACHED), XDP_ON },
	  .setup = b_hint_uncarried_now,
	  .check = b_hint_kept },
	{ .name = "hint: slot 0 of an older generation is looked up again",
	  { TO_B },
	  { XDP_TO(P_B), TC_TO(P_B) },
	  .setup = b_hint_uncarried_before,
	  .check = b_hint_resolved },
	{ .name = "hint: a slot that holds another port is looked up again",
	  { TO_B },
	  { TC_TO(P_B), XDP_TO(P_B) },
	  .setup = b_hint_other_slot,
	  .check = b_hint_resolved },
	{ .name = "hint: an empty slot is looked up again",
	  { TO_B },
	  { XDP_TO(P_B), TC_TO(P_B) },
	  .setup = b_hint_empty_slot,
	  .check = b_hint_resolved },
	{ .name = "hint: the right slot of an older generation is used",
	  { TO_B },
	  { TC_TO(P_B), XDP_TO(P_B) },
	  .setup = b_hint_old_gen },
	{ .name = "hint: the source's wrong slot is mended",
	  { TO_B },
	  { TC_TO(P_B), XDP_TO(P_B) },
	  .setup = a_src_hint_wrong,
	  .check = a_src_hint_mended },

	/* Ingress ports. */
	{ .name = "ingress port xdpnet does not carry passes",
	  { .in = P_E, .dst = M_B, .src = M_E },
	  { TC_PASS(NOT_ATTACHED), XDP_ON } },

	/* Sources: the bridge must already have it on this port. */
	{ .name = "src unknown passes",
	  { .dst = M_B, .src = M_NEW },
	  { TC_PASS(SRC), XDP_ON } },
	{ .name = "src learned on another port passes",
	  { .dst = M_B, .src = M_C },
	  { TC_PASS(SRC), XDP_ON } },
	{ .name = "src is the host's address passes",
	  { .dst = M_B, .src = M_LOCAL },
	  { TC_PASS(SRC), XDP_ON } },
	{ .name = "src is the ingress port's own (local) address passes",
	  { .dst = M_B, .src = M_A_OWN },
	  { TC_PASS(SRC), XDP_ON } },
	{ .name = "src static on another port passes",
	  { .dst = M_B, .src = M_STATIC_B },
	  { TC_PASS(SRC), XDP_ON } },
	{ .name = "src static on the ingress port redirects",
	  { .dst = M_B, .src = M_A2 },
	  { TC_TO(P_B), XDP_TO(P_B) } },
	{ .name = "src learned locked on the ingress port passes",
	  { .in = P_B, .dst = M_A, .src = M_LOCKED_B },
	  { TC_PASS(SRC), XDP_ON } },
	{ .name = "learning off: unknown src is not needed",
	  { .dst = M_B, .src = M_NEW },
	  { TC_TO(P_B), XDP_TO(P_B) },
	  .setup = a_no_learning },
	{ .name = "learning off: src on another port is not needed",
	  { .dst = M_B, .src = M_C },
	  { TC_TO(P_B), XDP_TO(P_B) },
	  .setup = a_no_learning },
	/* The bridge drops a frame whose source is not a valid address
	 * (br_handle_frame(): group or zero), learning or not: so must the
	 * bypass not carry it (fdb_trace.c has the witness). */
	{ .name = "learning off: zero source (the bridge drops it) passes",
	  { .dst = M_B, .src = M_ZERO },
	  { TC_PASS(SRC), XDP_ON },
	  .setup = a_no_learning },
	{ .name = "learning off: group source (the bridge drops it) passes",
	  { .dst = M_B, .src = M_MCAST4 },
	  { TC_PASS(SRC), XDP_ON },
	  .setup = a_no_learning },
	{ .name = "zero source passes",
	  { .dst = M_B, .src = M_ZERO },
	  { TC_PASS(SRC), XDP_ON } },
	{ .name = "broadcast source passes",
	  { .dst = M_B, .src = M_BCAST },
	  { TC_PASS(SRC), XDP_ON } },
	{ .name = "group source static on the ingress port passes",
	  { .dst = M_B, .src = M_MCAST4 },
	  { TC_PASS(SRC), XDP_ON },
	  .setup = a_static_group },
	{ .name = "learning off: known destination rules still apply",
	  { .dst = M_UNKNOWN, .src = M_NEW },
	  { TC_PASS(UNKNOWN), XDP_ON },
	  .setup = a_no_learning },

	/* Port states and flags. */
	{ .name = "locked ingress port passes",
	  { TO_B },
	  { TC_PASS(ISOLATED), XDP_ON },
	  .setup = a_locked },
	{ .name = "locked egress port passes",
	  { TO_B },
	  { TC_PASS(ISOLATED), XDP_ON },
	  .setup = b_locked },
	{ .name = "isolated pair passes",
	  { TO_B },
	  { TC_PASS(ISOLATED), XDP_ON },
	  .setup = a_b_isolated },
	{ .name = "isolated ingress to a plain port redirects",
	  { TO_B },
	  { TC_TO(P_B), XDP_TO(P_B) },
	  .setup = a_isolated },
	{ .name = "plain port to an isolated port redirects",
	  { TO_B },
	  { TC_TO(P_B), XDP_TO(P_B) },
	  .setup = b_isolated },
	{ .name = "ingress port not FWD passes",
	  { TO_B },
	  { TC_PASS(STATE), XDP_ON },
	  .setup = a_held },
	{ .name = "egress port not FWD passes",
	  { TO_B },
	  { TC_PASS(STATE), XDP_ON },
	  .setup = b_held },
	{ .name = "multicast on a port not FWD is multicast",
	  { .dst = M_BCAST, .src = M_A },
	  { TC_PASS(MCAST), XDP_ON },
	  .setup = a_held },

	/* MTU: port C has MTU 1280. */
	{ .name = "MTU: MTU + 18 bytes passes (tc), defers (xdp)",
	  { .dst = M_C, .src = M_A, .l4len = C_L4(1298) },
	  { TC_PASS(MTU), XDP_DEFER(SIZE) } },
	{ .name = "MTU: MTU + 19 bytes passes",
	  { .dst = M_C, .src = M_A, .l4len = C_L4(1299) },
	  { TC_PASS(MTU), XDP_DEFER(SIZE) } },
	{ .name = "MTU: MTU + 14 bytes redirects",
	  { .dst = M_C, .src = M_A, .l4len = C_L4(1294) },
	  { XDP_TO(P_C), TC_TO(P_C) } },
	{ .name = "MTU: MTU + 15 bytes defers (xdp), passes (tc)",
	  { .dst = M_C, .src = M_A, .l4len = C_L4(1295) },
	  { XDP_DEFER(SIZE), TC_PASS(MTU) } },
	/* GSO: bpf_check_mtu(BPF_MTU_CHK_SEGS) measures a segment from the
	 * skb's transport header, which BPF_PROG_TEST_RUN leaves unset: a
	 * GSO frame whose segments fit cannot be shown here, one whose
	 * segments do not fit, or that fits whole, can. */
	{ .name = "MTU: GSO frame that fits whole redirects",
	  { .dst = M_C,
	    .src = M_A,
	    .l4 = L4_TCP,
	    .l4len = C_L4(1294),
	    .gso = 600 },
	  { TC_TO(P_C) } },
	{ .name = "MTU: GSO frame whose segments do not fit passes",
	  { .dst = M_C,
	    .src = M_A,
	    .l4 = L4_TCP,
	    .l4len = C_L4(3000),
	    .gso = 1400 },
	  { TC_PASS(MTU) } },
	{ .name = "MTU: GSO frame into a large MTU redirects",
	  { TO_B, .l4 = L4_TCP, .l4len = 3000, .gso = 1448 },
	  { TC_TO(P_B) } },

	/* Malformed: what a runt must get, should a kernel test-run one
	 * (6.18 does not, see xt_kernel_refuses()). */
	{ .name = "runt: 0 bytes",
	  { TO_B, .len = LEN(0) },
	  { XDP_ON, TC_PASS(MALFORMED) } },
	{ .name = "runt: 1 byte",
	  { TO_B, .len = LEN(1) },
	  { XDP_ON, TC_PASS(MALFORMED) } },
	{ .name = "runt: 13 bytes",
	  { TO_B, .len = LEN(13) },
	  { XDP_ON, TC_PASS(MALFORMED) } },
	{ .name = "Ethernet header only: tc redirects, xdp defers",
	  { TO_B, .l3 = L3_RAW, .len = LEN(14) },
	  { TC_TO(P_B), XDP_DEFER(PROTO) } },
	{ .name = "other EtherType: tc redirects, xdp defers",
	  { TO_B, .l3 = L3_RAW, .l4len = 46 },
	  { TC_TO(P_B), XDP_DEFER(PROTO) } },
};

static bool hub_no_learning(void)
{
	return a_no_learning();
}

static const struct xt_row hub_rows[] = {
	{ .name = "known unicast passes", { TO_B }, { TC_PASS(HUB), XDP_ON } },
	{ .name = "broadcast passes as hub",
	  { .dst = M_BCAST, .src = M_A },
	  { TC_PASS(HUB), XDP_ON } },
	{ .name = "unknown source passes as hub",
	  { .dst = M_B, .src = M_NEW },
	  { TC_PASS(HUB), XDP_ON },
	  .setup = hub_no_learning },
	{ .name = "ingress port not carried is still not attached",
	  { .in = P_E, .dst = M_B, .src = M_E },
	  { TC_PASS(NOT_ATTACHED), XDP_ON } },
};

void test_verdicts(void)
{
	const struct xt_table t[] = {
		{ "plain", {}, &xt_plain, rows, ARRAY_SIZE(rows) },
		{ "hub",
		  { .hub = 1 },
		  &xt_plain,
		  hub_rows,
		  ARRAY_SIZE(hub_rows) },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		xt_run_table(&t[i]);
}
