// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The live build reads the ingress device's bridge port state from the
 * kernel on every frame (bpf/xdpnet_live.h): membership in this bridge,
 * STP state, learning, isolated, locked, and whether the bridge is
 * promiscuous. Here the kernel alone changes (netlink, no map write): the
 * live build follows at once, the portable build keeps deciding from the
 * maps until user space updates them. The egress port: from the maps
 * in both builds until a frame has come in through it; then the live
 * build reads its STP state, flags and MTU from the kernel too. Filters
 * of a clsact qdisc on the ingress, which the kernel runs after tcx
 * programs: the live build holds the port at once. tc on the egress
 * device's egress (a root qdisc of a user's, filters, tcx programs), which
 * an XDP redirect would skip: the live build's XDP stage leaves the frame
 * to the TC stage at once.
 */
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>

#include "harness.h"

#define TO_B .dst = M_B, .src = M_A

static bool a_state(__u8 state)
{
	xt_kwant[P_A].state = state;
	return true;
}

static bool a_disabled(void)
{
	return a_state(0);
}

static bool a_listening(void)
{
	return a_state(1);
}

static bool a_learning_state(void)
{
	return a_state(2);
}

static bool a_left_bridge(void)
{
	xt_kwant[P_A].master = false;
	return true;
}

static bool other_bridge(void)
{
	struct xdpnet_cfg c;

	if (!xt_cfg_get(&c))
		return false;
	c.bridge_ifindex = XT_GONE_IFINDEX;
	return xt_cfg_put(&c);
}

static bool kernel_no_learning(void)
{
	xt_kwant[P_A].learning = false;
	return true;
}

static bool map_no_learning(void)
{
	if (!xt_port_flags(P_A, 0, XDPNET_PORT_LEARNING))
		return false;
	xt_kwant[P_A].learning = true; /* the kernel still learns */
	return true;
}

static bool kernel_isolated(void)
{
	xt_kwant[P_A].isolated = true;
	return xt_port_flags(P_B, XDPNET_PORT_ISOLATED, 0);
}

static bool kernel_locked(void)
{
	xt_kwant[P_A].locked = true;
	return true;
}

static bool b_listening(void)
{
	xt_kwant[P_B].state = 1;
	return true;
}

/* A frame in through B (to A), as the kernel has B now: the live build
 * keeps B's device. */
static bool b_came_in(void)
{
	static __u8 frame[XT_MAX_FRAME];
	struct xt_frame f = { .in = P_B, .src = M_B, .dst = M_A };
	struct xt_run r = { .ifindex = xt_ifindex(P_B), .frame = frame };

	r.len = xt_build_frame(&f, frame);
	return xt_kports_sync() && xt_test_run(&r) &&
	       CHECK(!r.err, "BPF_PROG_TEST_RUN: %s", strerror(-r.err));
}

static bool b_known_listening(void)
{
	return b_came_in() && b_listening();
}

static bool b_known_isolated(void)
{
	xt_kwant[P_A].isolated = true;
	xt_kwant[P_B].isolated = true;
	return b_came_in() && xt_port_flags(P_A, XDPNET_PORT_ISOLATED, 0);
}

/* B's device MTU 68 (the map keeps 9000): the 106-byte frame no longer
 * fits. */
static bool b_known_mtu(void)
{
	if (!b_came_in())
		return false;
	xt_kwant_mtu[P_B] = 68;
	return true;
}

/* The bridge promiscuous ('ip link set promisc on', tcpdump, a macvlan):
 * it hands every frame it forwards to the host as well. */
static bool bridge_promisc(void)
{
	xt_kwant_promisc = true;
	return true;
}

/* A stale cached address of the bridge (xdpnet_rt.br, the datapath's
 * own: written here as a bridge deleted and made anew would leave it):
 * checked again by ifindex. */
#define XT_STALE_BR 0xffff888800001000ULL

static bool rt_rw(struct xdpnet_rt *rt, bool write)
{
	__u32 zero = 0;
	int fd = xt_b->map[XT_M_RT];

	return CHECK(!(write ? bpf_map_update_elem(fd, &zero, rt, BPF_ANY)
			     : bpf_map_lookup_elem(fd, &zero, rt)),
		     "cannot %s rt: %s", write ? "write" : "read",
		     strerror(errno));
}

static bool stale_br_addr(void)
{
	struct xdpnet_rt rt;

	if (!rt_rw(&rt, false))
		return false;
	rt.br = XT_STALE_BR; /* (a bump would clear it) */
	return rt_rw(&rt, true);
}

static void br_addr_cached(void)
{
	struct xdpnet_rt rt;

	if (!rt_rw(&rt, false))
		return;
	if (xt_b->live)
		CHECK(rt.br && rt.br != XT_STALE_BR,
		      "rt.br %llx: the bridge's address not cached",
		      (unsigned long long)rt.br);
	else
		CHECK(rt.br == XT_STALE_BR, "the portable build wrote rt.br");
}

/* tc on port A's ingress (a clsact qdisc, with a filter or not), its TC
 * stage a tcx program or a clsact filter: the kernel runs the qdisc's
 * filters after tcx programs (Linux 6.6 and later), and a filter placed
 * before xdpnet's clsact filter before it. */
static bool a_tc(bool filter, __u8 hook)
{
	struct xdpnet_port p;

	if (!xt_kernel_has_struct("tcx_entry")) {
		xt_skip("no tcx in this kernel (struct tcx_entry, Linux 6.6)");
		return false;
	}
	if (!xt_port_get(P_A, &p))
		return false;
	p.hook = hook;
	if (!xt_port_put(P_A, &p))
		return false;
	return xt_tc_ingress(P_A, true, filter);
}

static bool a_tc_filter_tcx(void)
{
	return a_tc(true, XDPNET_HOOK_TCX);
}

static bool a_tc_qdisc_tcx(void)
{
	return a_tc(false, XDPNET_HOOK_TCX);
}

static bool a_tc_filter_clsact(void)
{
	return a_tc(true, XDPNET_HOOK_CLSACT);
}

static void a_tc_gone(void)
{
	xt_tc_ingress(P_A, false, false);
}

/* tc on B's egress (B known): a TC redirect passes through it, an XDP
 * redirect would not. */
static bool b_tc_out(enum xt_tc_out what, bool tcx)
{
	if (tcx && !xt_kernel_has_struct("tcx_entry")) {
		xt_skip("no tcx in this kernel (struct tcx_entry, Linux 6.6)");
		return false;
	}
	return b_came_in() && xt_tc_egress(P_B, what);
}

static bool b_root_qdisc(void)
{
	return b_tc_out(XT_TC_ROOT_QDISC, false);
}

static bool b_clsact(void)
{
	return b_tc_out(XT_TC_CLSACT, false);
}

static bool b_egress_filter(void)
{
	return b_tc_out(XT_TC_EGRESS_FILTER, true);
}

static bool b_tcx_prog(void)
{
	return b_tc_out(XT_TC_TCX_PROG, true);
}

static void b_tc_gone(void)
{
	xt_tc_egress(P_B, XT_TC_NONE);
}

/* clang-format off */
#define BYPASS { TC_TO(P_B), XDP_TO(P_B) }
#define STATE { TC_PASS(STATE), XDP_ON }
/* clang-format on */

static const struct xt_row rows[] = {
	{ .name = "STP state disabled, set by netlink",
	  { TO_B },
	  BYPASS,
	  STATE,
	  .setup = a_disabled },
	{ .name = "STP state listening, set by netlink",
	  { TO_B },
	  BYPASS,
	  STATE,
	  .setup = a_listening },
	{ .name = "STP state learning, set by netlink",
	  { TO_B },
	  BYPASS,
	  STATE,
	  .setup = a_learning_state },
	{ .name = "port left the bridge",
	  { TO_B },
	  BYPASS,
	  STATE,
	  .setup = a_left_bridge },
	{ .name = "port of another bridge than cfg's",
	  { TO_B },
	  BYPASS,
	  STATE,
	  .setup = other_bridge },
	{ .name = "learning off in the kernel: unknown source not needed",
	  { .dst = M_B, .src = M_NEW },
	  { TC_PASS(SRC), XDP_ON },
	  { TC_TO(P_B), XDP_TO(P_B) },
	  .setup = kernel_no_learning },
	{ .name = "learning on in the kernel, off in the map: source needed",
	  { .dst = M_B, .src = M_NEW },
	  { TC_TO(P_B), XDP_TO(P_B) },
	  { TC_PASS(SRC), XDP_ON },
	  .setup = map_no_learning },
	{ .name = "isolated in the kernel (egress isolated in the map)",
	  { TO_B },
	  BYPASS,
	  { TC_PASS(ISOLATED), XDP_ON },
	  .setup = kernel_isolated },
	{ .name = "locked in the kernel",
	  { TO_B },
	  BYPASS,
	  { TC_PASS(ISOLATED), XDP_ON },
	  .setup = kernel_locked },
	{ .name = "bridge promiscuous, set by netlink",
	  { TO_B },
	  BYPASS,
	  { TC_PASS(HUB), XDP_ON },
	  .setup = bridge_promisc },
	{ .name = "egress port's STP state before a frame came in through it: "
		  "the map's",
	  { TO_B },
	  BYPASS,
	  .setup = b_listening },
	{ .name = "egress port's STP state, set by netlink, once a frame came "
		  "in through it",
	  { TO_B },
	  BYPASS,
	  STATE,
	  .setup = b_known_listening },
	{ .name = "B isolated in the kernel only (A in both), B known",
	  { TO_B },
	  BYPASS,
	  { TC_PASS(ISOLATED), XDP_ON },
	  .setup = b_known_isolated },
	{ .name = "egress device's MTU lowered by netlink, B known",
	  { TO_B },
	  { TC_TO(P_B), XDP_DEFER(SIZE) },
	  { TC_PASS(MTU), XDP_DEFER(SIZE) },
	  .setup = b_known_mtu },
	{ .name = "tc filter on the ingress, the TC stage a tcx program",
	  { TO_B },
	  BYPASS,
	  STATE,
	  .setup = a_tc_filter_tcx,
	  .check = a_tc_gone },
	{ .name = "clsact qdisc without filters, the TC stage a tcx program",
	  { TO_B },
	  BYPASS,
	  .setup = a_tc_qdisc_tcx,
	  .check = a_tc_gone },
	{ .name = "tc filter on the ingress, the TC stage a clsact filter after "
		  "it",
	  { TO_B },
	  BYPASS,
	  .setup = a_tc_filter_clsact,
	  .check = a_tc_gone },
	{ .name = "a user's root qdisc on the egress device, B known",
	  { TO_B },
	  BYPASS,
	  { TC_TO(P_B), XDP_DEFER(TARGET) },
	  .setup = b_root_qdisc,
	  .check = b_tc_gone },
	{ .name = "a tc filter on the egress device's egress, B known",
	  { TO_B },
	  BYPASS,
	  { TC_TO(P_B), XDP_DEFER(TARGET) },
	  .setup = b_egress_filter,
	  .check = b_tc_gone },
	{ .name = "a tcx program on the egress device's egress, B known",
	  { TO_B },
	  BYPASS,
	  { TC_TO(P_B), XDP_DEFER(TARGET) },
	  .setup = b_tcx_prog,
	  .check = b_tc_gone },
	{ .name = "a clsact qdisc without filters on the egress device, B "
		  "known",
	  { TO_B },
	  BYPASS,
	  .setup = b_clsact,
	  .check = b_tc_gone },
	{ .name = "the bridge's address is cached, a stale one checked again",
	  { TO_B },
	  BYPASS,
	  .setup = stale_br_addr,
	  .check = br_addr_cached },
};

void test_live(void)
{
	const struct xt_table t = {
		"kernel state", {}, &xt_plain, rows, ARRAY_SIZE(rows)
	};

	xt_run_table(&t);
}
