// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The bridge's keep-alive: a bypassed source would age out of the
 * bridge's FDB, so one frame per source and refresh interval
 * (cfg.refresh_j, jiffies) goes to the bridge. The XDP stage hands such a
 * frame on (XDP_DEFER_REFRESH) without touching the entry; the TC stage
 * passes it (PASS_REFRESH) and stamps the entry's bridge_j, so the next
 * frame is bypassed. Jiffies are compared with wrap-around (32 bits).
 */
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>
#include "harness.h"

#define TO_B .dst = M_B, .src = M_A
#define R 1000	   /* refresh interval, jiffies */
#define MARGIN 500 /* far more than a row takes, at any HZ */

static __u32 t0, set_j; /* jiffies at setup, bridge_j written */

static bool a_seen(__u32 ago, __u32 r)
{
	t0 = xt_jiffies();
	set_j = t0 - ago;
	return xt_refresh_every(r) && xt_fdb_put(M_A, 0, P_A, 0, set_j);
}

static bool due(void)
{
	return a_seen(R + MARGIN, R);
}

static bool not_due(void)
{
	return a_seen(R - MARGIN, R);
}

static bool in_future(void)
{
	return a_seen(-5000U, R);
}

static bool due_no_learning(void)
{
	return due() && xt_port_flags(P_A, 0, XDPNET_PORT_LEARNING);
}

static bool due_held(void)
{
	return due() && xt_port_flags(P_A, 0, XDPNET_PORT_FWD);
}

/* A static source on its port: no keep-alive (the bridge never ages it). */
static bool static_src_due(void)
{
	return xt_refresh_every(R) &&
	       xt_fdb_put(M_A2, 0, P_A, XDPNET_FDB_STATIC | XDPNET_FDB_SEEDED,
			  xt_jiffies() - 10 * R);
}

/*
 * Across a wrap: bridge_j numerically above now (the 32-bit jiffies
 * wrapped in between), or on the other side of 2^31 where now is past it.
 * The interval is set to the age less (due) or more (not due) a margin.
 */
static bool wrap(bool is_due)
{
	__u32 age, base;

	t0 = xt_jiffies();
	if (t0 < 0x7fff0000U)
		base = 0; /* bridge_j = 2^32 - 1000 */
	else if (t0 >= 0x80010000U && t0 < 0xfff00000U)
		base = 0x80000000U; /* bridge_j = 2^31 - 1000 */
	else
		base = t0 - 2000; /* too close to 2^31 to cross it */
	if (base == t0 - 2000)
		xt_note("jiffies (%u) too close to 2^31: no wrap here", t0);
	set_j = base - 1000;
	age = t0 - set_j;
	xt_note("jiffies %u, bridge_j %u, age %u", t0, set_j, age);
	return xt_refresh_every(is_due ? age - MARGIN : age + MARGIN) &&
	       xt_fdb_put(M_A, 0, P_A, 0, set_j);
}

static bool wrap_due(void)
{
	return wrap(true);
}

static bool wrap_not_due(void)
{
	return wrap(false);
}

static void stamped(void)
{
	struct xdpnet_fdb_val v;
	__u32 now = xt_jiffies();

	if (!CHECK(xt_fdb_get(M_A, 0, &v), "M_A's entry is gone"))
		return;
	CHECK((__s32)(v.bridge_j - t0) >= 0 && (__s32)(now - v.bridge_j) >= 0,
	      "bridge_j %u not stamped by the TC stage (setup at %u, now %u)",
	      v.bridge_j, t0, now);
}

static void untouched(void)
{
	struct xdpnet_fdb_val v;

	if (!CHECK(xt_fdb_get(M_A, 0, &v), "M_A's entry is gone"))
		return;
	CHECK(v.bridge_j == set_j, "bridge_j %u changed, was %u", v.bridge_j,
	      set_j);
}

/* xdpnet trace of a frame whose source is due its keep-alive (set due
 * again): this frame is the keep-alive (to the bridge), and the record
 * goes on to the flow's steady decision. */
static void trace_due(enum xt_mac dst, bool xdp, __u32 steady, int target)
{
	struct xt_frame fr = { .dst = dst, .src = M_A };
	struct xt_run run = { .xdp = xdp,
			      .trace = true,
			      .ifindex = xt_ifindex(P_A) };
	__u32 now = xdp ? XDPNET_C_XDP_DEFER_REFRESH : XDPNET_C_PASS_REFRESH;
	__u8 frame[XT_MAX_FRAME];
	struct xdpnet_trace_rec t;
	__u32 zero = 0;

	run.len = xt_build_frame(&fr, frame);
	run.frame = frame;
	if (!CHECK(due(), "cannot set the entry due") || !xt_test_run(&run) ||
	    !CHECK(!run.err, "trace: BPF_PROG_TEST_RUN: %s",
		   strerror(-run.err)) ||
	    !CHECK(!bpf_map_lookup_elem(xt_b->map[XT_M_TRACE_OUT], &zero, &t),
		   "cannot read trace_out: %s", strerror(errno)))
		return;
	CHECK(t.refresh_due == 1 && t.verdict == now &&
		      t.at == XDPNET_CK_KEEPALIVE && !t.target,
	      "%s trace, this frame: due %u, names %s at check %u, target "
	      "%u; want the keep-alive (%s)",
	      xdp ? "xdp" : "tc", t.refresh_due, xt_ctr_name(t.verdict), t.at,
	      t.target, xt_ctr_name(now));
	CHECK(run.retval == (xdp ? XDP_PASS : TC_ACT_UNSPEC_RET),
	      "%s trace returned %u for the keep-alive", xdp ? "xdp" : "tc",
	      run.retval);
	CHECK(t.steady_verdict == steady &&
		      t.steady_target ==
			      (target == P_NONE ? 0 : xt_ifindex(target)),
	      "%s trace, the flow: %s to ifindex %u, want %s to %s",
	      xdp ? "xdp" : "tc", xt_ctr_name(t.steady_verdict),
	      t.steady_target, xt_ctr_name(steady), xt_port_name(target));
	untouched(); /* a trace stamps nothing */
}

static void trace_steady(void)
{
	trace_due(M_B, false, XDPNET_C_TC_REDIRECT, P_B);
	trace_due(M_B, true, XDPNET_C_XDP_REDIRECT, P_B);
	trace_due(M_UNKNOWN, false, XDPNET_C_PASS_UNKNOWN, P_NONE);
}

static const struct xt_row rows[] = {
	{ .name = "due: trace says the keep-alive, and the flow's steady verdict",
	  { TO_B },
	  { XDP_DEFER(REFRESH) },
	  .setup = due,
	  .check = trace_steady },
	{ .name = "due: xdp defers, tc hands it to the bridge, then bypass",
	  { TO_B },
	  { XDP_DEFER(REFRESH), XDP_DEFER(REFRESH), TC_PASS(REFRESH),
	    TC_TO(P_B), XDP_TO(P_B) },
	  .setup = due,
	  .check = stamped },
	{ .name = "xdp alone never stamps the entry",
	  { TO_B },
	  { XDP_DEFER(REFRESH), XDP_DEFER(REFRESH) },
	  .setup = due,
	  .check = untouched },
	{ .name = "not due: redirected, entry untouched",
	  { TO_B },
	  { XDP_TO(P_B), TC_TO(P_B) },
	  .setup = not_due,
	  .check = untouched },
	{ .name = "seen after now (another CPU's clock): not due",
	  { TO_B },
	  { XDP_TO(P_B), TC_TO(P_B) },
	  .setup = in_future,
	  .check = untouched },
	{ .name = "due across the 32-bit wrap",
	  { TO_B },
	  { XDP_DEFER(REFRESH), TC_PASS(REFRESH), TC_TO(P_B), XDP_TO(P_B) },
	  .setup = wrap_due,
	  .check = stamped },
	{ .name = "not due across the 32-bit wrap",
	  { TO_B },
	  { XDP_TO(P_B), TC_TO(P_B) },
	  .setup = wrap_not_due,
	  .check = untouched },
	{ .name = "due: decided before the destination",
	  { .dst = M_UNKNOWN, .src = M_A },
	  { XDP_DEFER(REFRESH), TC_PASS(REFRESH), TC_PASS(UNKNOWN) },
	  .setup = due,
	  .check = stamped },
	{ .name = "due, multicast: multicast",
	  { .dst = M_BCAST, .src = M_A },
	  { XDP_ON, TC_PASS(MCAST) },
	  .setup = due,
	  .check = untouched },
	{ .name = "due on a port not forwarding: state",
	  { TO_B },
	  { XDP_ON, TC_PASS(STATE) },
	  .setup = due_held,
	  .check = untouched },
	{ .name = "due, the port does not learn: no keep-alive",
	  { TO_B },
	  { XDP_TO(P_B), TC_TO(P_B) },
	  .setup = due_no_learning,
	  .check = untouched },
	{ .name = "static source on its port: no keep-alive",
	  { .dst = M_B, .src = M_A2 },
	  { XDP_TO(P_B), TC_TO(P_B) },
	  .setup = static_src_due },
};

void test_refresh(void)
{
	const struct xt_table t = {
		"keep-alive", {}, &xt_plain, rows, ARRAY_SIZE(rows)
	};

	xt_run_table(&t);
}
