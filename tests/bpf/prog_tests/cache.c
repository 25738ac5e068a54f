// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The decision cache (bpf/xdpnet_cache.h): the next frame of a bypassed
 * flow takes the bridge's part of the decision from this CPU's entry for
 * as long as the generation stands, the source's keep-alive is not due and
 * (live build) the kernel still says of the ingress port what it said.
 *
 * Every table of the other tests runs its steps through the cache too (and
 * the harness bumps the generation after each map it writes, as user space
 * does); here the cache itself: that it is used at all (a change without a
 * bump leaves the cached decision standing, which only the cache can do),
 * that each way a decision goes stale makes the next frame decide in full,
 * and that nothing is cached where it must not be.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "harness.h"

#define REDIRECT TC_ACT_REDIRECT
#define PASS TC_ACT_UNSPEC_RET

static const struct xt_table plain = { "cache", {}, &xt_plain, NULL, 0 };

/* One frame from in (src -> dst) through a stage; its return code
 * (~0U - 1 after a failure). */
static __u32 run(bool xdp, int in, enum xt_mac src, enum xt_mac dst, bool trace)
{
	static __u8 frame[XT_MAX_FRAME];
	struct xt_frame f = { .in = in, .src = src, .dst = dst };
	struct xt_run r = {
		.xdp = xdp,
		.trace = trace,
		.ifindex = xt_ifindex(in),
		.frame = frame,
	};

	r.len = xt_build_frame(&f, frame);
	if (!xt_test_run(&r) &&
	    !CHECK(!r.err, "BPF_PROG_TEST_RUN: %s", strerror(-r.err)))
		return ~0U - 1;
	return r.retval;
}

static __u32 tc(enum xt_mac src, enum xt_mac dst)
{
	return run(false, P_A, src, dst, false);
}

/* A -> dst through the TC stage, l4len bytes of UDP. */
static __u32 tc_len(enum xt_mac dst, __u16 l4len)
{
	static __u8 frame[XT_MAX_FRAME];
	struct xt_frame f = {
		.in = P_A, .src = M_A, .dst = dst, .l4len = l4len
	};
	struct xt_run r = { .ifindex = xt_ifindex(P_A), .frame = frame };

	r.len = xt_build_frame(&f, frame);
	if (!xt_test_run(&r) &&
	    !CHECK(!r.err, "BPF_PROG_TEST_RUN: %s", strerror(-r.err)))
		return ~0U - 1;
	return r.retval;
}

/* Valid entries (of this generation) for a flow from port A, on every
 * CPU; -1 when the cache cannot be read. */
static int cached(enum xt_mac src, enum xt_mac dst)
{
	struct bpf_map_info info = {};
	__u32 ilen = sizeof(info), gen = xt_gen(), i;
	const struct xdpnet_flow *e;
	int fd = xt_b->map[XT_M_FLOWS], n = 0;
	size_t len;

	if (!CHECK(!bpf_obj_get_info_by_fd(fd, &info, &ilen), "map info: %s",
		   strerror(errno)))
		return -1;
	len = (size_t)info.value_size * info.max_entries;
	e = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (!CHECK(e != MAP_FAILED, "cannot map the cache: %s",
		   strerror(errno)))
		return -1;
	for (i = 0; i < info.max_entries; i++)
		n += e[i].ifindex == xt_ifindex(P_A) && e[i].gen == gen &&
		     !memcmp(e[i].src, xt_macs[src], ETH_ALEN) &&
		     !memcmp(e[i].dst, xt_macs[dst], ETH_ALEN);
	munmap((void *)e, len);
	return n;
}

/* A hand-over cached for A -> dst: its reason. */
static bool cached_pass(enum xt_mac dst, __u32 why)
{
	struct bpf_map_info info = {};
	__u32 ilen = sizeof(info), gen = xt_gen(), i;
	const struct xdpnet_flow *e;
	int fd = xt_b->map[XT_M_FLOWS], n = 0;
	size_t len;

	if (bpf_obj_get_info_by_fd(fd, &info, &ilen))
		return false;
	len = (size_t)info.value_size * info.max_entries;
	e = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (e == MAP_FAILED)
		return false;
	for (i = 0; i < info.max_entries; i++)
		n += e[i].ifindex == xt_ifindex(P_A) && e[i].gen == gen &&
		     (e[i].flags & XDPNET_FLOW_PASS) && e[i].pass == why &&
		     !memcmp(e[i].src, xt_macs[M_A], ETH_ALEN) &&
		     !memcmp(e[i].dst, xt_macs[dst], ETH_ALEN);
	munmap((void *)e, len);
	return n > 0;
}

/* Put mac's FDB copy behind port the way no writer may: without the
 * bump. */
static bool fdb_put_unannounced(enum xt_mac mac, int port)
{
	struct xdpnet_fdb_key k = { .vid = 0 };
	struct xdpnet_fdb_val v = {
		.ifindex = xt_ifindex(port),
		.bridge_j = xt_jiffies(),
	};

	memcpy(k.mac, xt_macs[mac], ETH_ALEN);
	return CHECK(!bpf_map_update_elem(xt_b->map[XT_M_FDB], &k, &v, BPF_ANY),
		     "cannot write the FDB entry: %s", strerror(errno));
}

/* Delete dst's FDB copy the way no writer may: without the bump. */
static bool fdb_del_unannounced(enum xt_mac mac)
{
	struct xdpnet_fdb_key k = { .vid = 0 };

	memcpy(k.mac, xt_macs[mac], ETH_ALEN);
	return CHECK(!bpf_map_delete_elem(xt_b->map[XT_M_FDB], &k),
		     "cannot delete the FDB entry: %s", strerror(errno));
}

/* live_only: what the live build reads from the kernel (the portable
 * build reads the maps, whose writers bump). */
static bool prepare(const char *name, bool live_only)
{
	if ((live_only && !xt_b->live) || !xt_begin("%s", name))
		return false;
	return xt_row_prepare(&plain, NULL);
}

/* Fill A -> B's entry on this CPU: redirected, and cached. */
static bool fill(void)
{
	return CHECK(tc(M_A, M_B) == REDIRECT, "A -> B not redirected") &&
	       CHECK(cached(M_A, M_B) >= 1, "A -> B redirected, not cached");
}

static void used_until_bumped(void)
{
	struct xt_snap s0, s1;

	if (!prepare("a cached decision stands until the generation moves",
		     false) ||
	    !fill() || !xt_snap(&s0) || !fdb_del_unannounced(M_B))
		return;
	CHECK(tc(M_A, M_B) == REDIRECT,
	      "B's entry gone unannounced: the frame was decided in full, "
	      "not from the cache");
	if (!xt_snap(&s1))
		return;
	CHECK(s1.c[xt_ports[P_A].slot][XDPNET_C_TC_REDIRECT].packets ==
			      s0.c[xt_ports[P_A].slot][XDPNET_C_TC_REDIRECT]
					      .packets +
				      1 &&
		      s1.c[xt_ports[P_B].slot][XDPNET_C_RX_REDIRECTED].packets ==
			      s0.c[xt_ports[P_B].slot][XDPNET_C_RX_REDIRECTED]
					      .packets +
				      1,
	      "a cached frame counts tc_redirect on A and rx_redirected on B");
	if (!xt_bump())
		return;
	CHECK(cached(M_A, M_B) == 0, "an entry of the old generation counts");
	CHECK(tc(M_A, M_B) == PASS, "after the bump: not decided anew");
}

/* Each CPU keeps its own entries; one bump reaches them all. */
static void per_cpu(void)
{
	int was = sched_getcpu(), cpu, n = 0;

	if (!prepare("each CPU has its own entry; a bump reaches all", false))
		return;
	if (xt_env.nr_cpus < 2) {
		xt_note("one CPU: nothing to show");
		return;
	}
	for (cpu = 0; cpu < 2; cpu++) {
		if (xt_pin(cpu) < 0)
			continue;
		n++;
		CHECK(tc(M_A, M_B) == REDIRECT, "CPU %d: not redirected", cpu);
	}
	CHECK(cached(M_A, M_B) == n, "%d entries for %d CPUs", cached(M_A, M_B),
	      n);
	/* B stops forwarding (the map, bumped as user space does). */
	xt_port_flags(P_B, 0, XDPNET_PORT_FWD);
	for (cpu = 0; cpu < 2; cpu++) {
		if (xt_pin(cpu) < 0)
			continue;
		CHECK(tc(M_A, M_B) == PASS,
		      "CPU %d: B not forwarding, its cached decision stood",
		      cpu);
	}
	xt_pin(was);
}

/* What user space changes (and bumps): the next frame decides anew. */
static bool b_held(void)
{
	return xt_port_flags(P_B, 0, XDPNET_PORT_FWD);
}

static bool hub(void)
{
	struct xdpnet_cfg c;

	if (!xt_cfg_get(&c))
		return false;
	c.bypass = 0;
	return xt_cfg_put(&c);
}

static bool b_moved(void)
{
	return xt_fdb_put(M_B, 0, P_C, 0, xt_jiffies());
}

static bool b_mtu(void)
{
	struct xdpnet_port p;

	if (!xt_port_get(P_B, &p))
		return false;
	p.mtu = 40; /* the 64-byte frame no longer fits */
	return xt_port_put(P_B, &p);
}

static void user_changes(void)
{
	static const struct {
		const char *name;
		bool (*change)(void);
		__u32 ret;
		int ctr, rx_port;
	} c[] = {
		{ "B not forwarding (ports)", b_held, PASS, XDPNET_C_PASS_STATE,
		  P_NONE },
		{ "bypass off (cfg)", hub, PASS, XDPNET_C_PASS_HUB, P_NONE },
		{ "B moved to C (FDB copy)", b_moved, REDIRECT,
		  XDPNET_C_TC_REDIRECT, P_C },
		{ "B's MTU lowered (ports)", b_mtu, PASS, XDPNET_C_PASS_MTU,
		  P_NONE },
	};
	struct xt_snap s0, s1;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		char name[96];

		snprintf(name, sizeof(name),
			 "changed by user space, then bumped: %s", c[i].name);
		if (!prepare(name, false) || !fill() || !c[i].change() ||
		    !xt_snap(&s0))
			continue;
		CHECK(tc(M_A, M_B) == c[i].ret, "the cached decision stood");
		if (!xt_snap(&s1))
			continue;
		CHECK(s1.c[xt_ports[P_A].slot][c[i].ctr].packets ==
			      s0.c[xt_ports[P_A].slot][c[i].ctr].packets + 1,
		      "A did not count %s", xt_ctr_name(c[i].ctr));
		if (c[i].rx_port != P_NONE)
			CHECK(s1.c[xt_ports[c[i].rx_port].slot]
				  [XDPNET_C_RX_REDIRECTED]
					      .packets ==
				      s0.c[xt_ports[c[i].rx_port].slot]
					  [XDPNET_C_RX_REDIRECTED]
						      .packets +
					      1,
			      "not redirected into %s",
			      xt_port_name(c[i].rx_port));
	}
}

/* The kernel alone changes (netlink, no map write, no bump): the live
 * build reads it on the cached frame too. */
static bool a_blocked(void)
{
	xt_kwant[P_A].state = 2; /* learning: not forwarding */
	return true;
}

static bool a_locked(void)
{
	xt_kwant[P_A].locked = true;
	return true;
}

static bool a_isolated(void)
{
	xt_kwant[P_A].isolated = true;
	return true;
}

static bool a_left(void)
{
	xt_kwant[P_A].master = false;
	return true;
}

static bool promisc(void)
{
	xt_kwant_promisc = true;
	return true;
}

/* The egress port (its device known: a frame came in through it). */
static bool b_blocked(void)
{
	xt_kwant[P_B].state = 1; /* listening */
	return true;
}

static bool b_isolated(void)
{
	xt_kwant[P_B].isolated = true;
	return true;
}

static bool b_mtu_68(void)
{
	xt_kwant_mtu[P_B] = 68; /* the 106-byte frame no longer fits */
	return true;
}

/* A tc filter on A's ingress, which the kernel runs after A's TC stage,
 * a tcx program (a_tcx). */
static bool a_tc_filter(void)
{
	return xt_tc_ingress(P_A, true, true);
}

static void kernel_changes(void)
{
	static const struct {
		const char *name;
		bool (*change)(void);
		bool b_isolated, a_isolated, b_known, a_tcx;
	} c[] = {
		{ "A not forwarding", a_blocked, false, false, false, false },
		{ "A locked", a_locked, false, false, false, false },
		{ "A isolated, B isolated in the map", a_isolated, true, false,
		  false, false },
		{ "A left the bridge", a_left, false, false, false, false },
		{ "the bridge promiscuous", promisc, false, false, false,
		  false },
		{ "B (known) not forwarding", b_blocked, false, false, true,
		  false },
		{ "B (known) isolated, A isolated", b_isolated, false, true,
		  true, false },
		{ "B's (known) device MTU lowered", b_mtu_68, false, false,
		  true, false },
		{ "a tc filter on A's ingress, its TC stage a tcx program",
		  a_tc_filter, false, false, false, true },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		char name[96];
		__u32 gen;

		snprintf(name, sizeof(name),
			 "the kernel alone changes, cached frame: %s",
			 c[i].name);
		if (!prepare(name, true))
			continue;
		if (c[i].a_tcx) {
			struct xdpnet_port p;

			if (!xt_kernel_has_struct("tcx_entry")) {
				xt_skip("no tcx in this kernel (struct "
					"tcx_entry, Linux 6.6)");
				continue;
			}
			if (!xt_port_get(P_A, &p))
				continue;
			p.hook = XDPNET_HOOK_TCX;
			if (!xt_port_put(P_A, &p))
				continue;
		}
		if (c[i].b_isolated &&
		    !xt_port_flags(P_B, XDPNET_PORT_ISOLATED, 0))
			continue;
		if (c[i].a_isolated) {
			xt_kwant[P_A].isolated = true;
			if (!xt_port_flags(P_A, XDPNET_PORT_ISOLATED, 0))
				continue;
		}
		if (!xt_kports_sync())
			continue;
		if (c[i].b_known &&
		    !CHECK(run(false, P_B, M_B, M_A, false) == REDIRECT,
			   "B -> A not redirected"))
			continue;
		if (!fill())
			continue;
		gen = xt_gen();
		if (!c[i].change() || !xt_kports_sync())
			continue;
		CHECK(xt_gen() == gen, "the generation moved");
		CHECK(tc(M_A, M_B) == PASS,
		      "the cached decision stood against the kernel's view");
		if (c[i].a_tcx)
			xt_tc_ingress(P_A, false, false);
	}
}

/* The datapath's clock rate, jiffies per second (measured once, over
 * 100 ms of CLOCK_MONOTONIC); at least 100. */
static __u32 jiffies_hz(void)
{
	struct timespec d = { 0, 100 * 1000 * 1000 }, t0, t1;
	double secs;
	__u32 j0, j1;

	if (xt_env.hz)
		return xt_env.hz;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	j0 = xt_jiffies();
	nanosleep(&d, NULL);
	j1 = xt_jiffies();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	xt_env.hz = secs > 0 ? (__u32)((j1 - j0) / secs + 0.5) : 0;
	if (xt_env.hz < 100)
		xt_env.hz = 100;
	return xt_env.hz;
}

/* Poll (5 s at most) until the datapath's clock passes j. */
static bool jiffies_past(__u32 j)
{
	struct timespec d = { 0, 2 * 1000 * 1000 };
	int i;

	for (i = 0; i < 2500; i++) {
		if ((__s32)(xt_jiffies() - j) > 0)
			return true;
		nanosleep(&d, NULL);
	}
	return CHECK(false, "jiffies stand still at %u", xt_jiffies());
}

/* The keep-alive falls due while the decision is cached: exactly one
 * frame goes to the bridge, and the entry's stamp moves. */
static void keepalive_due(void)
{
	/* Half a second: the entry is stamped, then the flow's first frame
	 * must find the keep-alive not yet due; the four frames below take
	 * microseconds. (xt_env.hz was never measured: r was 0, and a
	 * jiffy that ticked between the stamp and the first frame made it
	 * due, on a TCG guest under load.) */
	__u32 r = jiffies_hz() / 2, j0, n = 0, i;
	struct xdpnet_fdb_val v;

	if (!prepare("the keep-alive falls due on a cached flow: one frame "
		     "to the bridge",
		     false) ||
	    !xt_refresh_every(r))
		return;
	j0 = xt_jiffies();
	if (!xt_fdb_put(M_A, 0, P_A, 0, j0) || !fill() || !jiffies_past(j0 + r))
		return;
	for (i = 0; i < 4; i++)
		n += tc(M_A, M_B) == PASS;
	CHECK(n == 1,
	      "%u of 4 frames after the keep-alive fell due went to "
	      "the bridge, want 1",
	      n);
	CHECK(xt_fdb_get(M_A, 0, &v) && (__s32)(v.bridge_j - j0) > 0,
	      "the source's bridge_j was not stamped");
	CHECK(cached(M_A, M_B) >= 1, "not cached again");
}

/* The port starts to learn (kernel alone): the keep-alive the cached
 * decision skipped applies again. */
#define R_LONG 100000
static bool a_no_learning(void)
{
	xt_kwant[P_A].learning = false;
	return true;
}

static void learning_on(void)
{
	if (!prepare("learning turned on in the kernel: the keep-alive applies "
		     "again",
		     true) ||
	    !xt_refresh_every(R_LONG) ||
	    !xt_fdb_put(M_A, 0, P_A, 0, xt_jiffies() - 2 * R_LONG) ||
	    !a_no_learning() || !xt_kports_sync())
		return;
	/* Not learning: no keep-alive is due, and the decision is cached
	 * for R_LONG (far longer than the rest of this test). */
	if (!fill())
		return;
	xt_kwant[P_A].learning = true;
	if (!xt_kports_sync())
		return;
	CHECK(tc(M_A, M_B) == PASS,
	      "the source's keep-alive was due: the frame must go to the "
	      "bridge");
}

/* Where nothing may be cached. */
static bool lat_on(void)
{
	struct xdpnet_cfg c;

	if (!xt_cfg_get(&c))
		return false;
	c.lat_on = 1;
	return xt_cfg_put(&c);
}

static bool dump_on(void)
{
	struct xdpnet_dump_ctl d = { .on = 1, .snaplen = 64 };
	__u32 zero = 0;

	return CHECK(!bpf_map_update_elem(xt_b->map[XT_M_DUMP], &zero, &d,
					  BPF_ANY),
		     "cannot switch the dump on: %s", strerror(errno)) &&
	       xt_bump();
}

static void not_cached(void)
{
	static const struct {
		const char *name;
		bool (*change)(void);
	} c[] = {
		{ "the latency probe on", lat_on },
		{ "a dump running", dump_on },
	};
	const struct xt_table vlan = { "cache",
				       { .vlan_filtering = XDPNET_VF_8021Q },
				       &xt_vlan,
				       NULL,
				       0 };
	struct xdpnet_dump_ctl off = {};
	__u32 zero = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		char name[96];

		snprintf(name, sizeof(name),
			 "nothing cached, %s; a cached flow decides anew",
			 c[i].name);
		if (!prepare(name, false) || !fill() || !c[i].change())
			continue;
		CHECK(tc(M_A, M_B) == REDIRECT, "not redirected");
		CHECK(cached(M_A, M_B) == 0, "cached");
		bpf_map_update_elem(xt_b->map[XT_M_DUMP], &zero, &off, BPF_ANY);
	}
	if (xt_begin("nothing cached with VLAN filtering") &&
	    xt_row_prepare(&vlan, NULL)) {
		CHECK(tc(M_A, M_B) == REDIRECT, "A -> B not redirected");
		CHECK(cached(M_A, M_B) == 0, "cached");
	}
}

/* The XDP stage shares the entries; a trace run neither reads nor fills
 * them. */
static void xdp_and_trace(void)
{
	if (prepare("the XDP stage takes the cached decision too", false) &&
	    CHECK(run(true, P_A, M_A, M_B, false) == XDP_REDIRECT,
		  "A -> B not redirected by XDP") &&
	    CHECK(cached(M_A, M_B) >= 1, "not cached by the XDP stage") &&
	    fdb_del_unannounced(M_B)) {
		CHECK(run(true, P_A, M_A, M_B, false) == XDP_REDIRECT,
		      "decided in full, not from the cache");
		if (xt_bump())
			CHECK(run(true, P_A, M_A, M_B, false) == XDP_PASS,
			      "after the bump: not decided anew");
	}
	if (prepare("a trace decides in full, and caches nothing", false) &&
	    fill() && fdb_del_unannounced(M_B)) {
		CHECK(run(false, P_A, M_A, M_B, true) == PASS,
		      "the trace took the cached decision");
		CHECK(tc(M_A, M_B) == REDIRECT, "the cached decision is gone");
	}
	/* (An entry it filled would evict another flow's.) */
	if (prepare("a trace of a bypassed flow fills no entry", false)) {
		CHECK(run(false, P_A, M_A, M_B, true) == REDIRECT,
		      "the trace does not find A -> B bypassed");
		CHECK(cached(M_A, M_B) == 0, "the trace filled an entry");
		fill();
	}
}

/* A cached XDP redirect to B (known), then a root qdisc on B's device,
 * the kernel alone: an XDP redirect would skip it, so the XDP stage leaves
 * the next frame to the TC stage, which goes through it. */
static void egress_tc(void)
{
	__u32 gen;

	if (!prepare("the kernel alone puts a qdisc on B's (known) device: "
		     "a cached XDP redirect is decided anew",
		     true) ||
	    !CHECK(run(false, P_B, M_B, M_A, false) == REDIRECT,
		   "B -> A not redirected") ||
	    !CHECK(run(true, P_A, M_A, M_B, false) == XDP_REDIRECT,
		   "A -> B not redirected by XDP") ||
	    !CHECK(cached(M_A, M_B) >= 1, "not cached by the XDP stage"))
		return;
	gen = xt_gen();
	if (xt_tc_egress(P_B, XT_TC_ROOT_QDISC)) {
		CHECK(xt_gen() == gen, "the generation moved");
		CHECK(run(true, P_A, M_A, M_B, false) == XDP_PASS,
		      "the cached XDP redirect stood against B's qdisc");
		CHECK(tc(M_A, M_B) == REDIRECT, "the TC stage passes A -> B");
	}
	xt_tc_egress(P_B, XT_TC_NONE);
}

/*
 * A hand-over to the bridge whose reason is not the frame's own is cached
 * too: counted as that reason, it stands until the generation moves (an
 * unknown destination learned, here without the bump that would come
 * with it). One that the frame decides (its length) is not: the next
 * frame of the flow is bypassed.
 */
static void pass_cached(void)
{
	__u32 a = xt_ports[P_A].slot;
	struct xt_snap s0, s1;

	if (prepare("a hand-over to the bridge stands until the generation "
		    "moves",
		    false) &&
	    CHECK(tc(M_A, M_UNKNOWN) == PASS, "A -> unknown not handed over") &&
	    CHECK(cached_pass(M_UNKNOWN, XDPNET_C_PASS_UNKNOWN),
		  "the hand-over is not cached") &&
	    xt_snap(&s0) && fdb_put_unannounced(M_UNKNOWN, P_C)) {
		CHECK(tc(M_A, M_UNKNOWN) == PASS,
		      "decided in full, not from the cache");
		if (xt_snap(&s1))
			CHECK(s1.c[a][XDPNET_C_PASS_UNKNOWN].packets ==
				      s0.c[a][XDPNET_C_PASS_UNKNOWN].packets +
					      1,
			      "a cached hand-over counts its reason");
		CHECK(run(true, P_A, M_A, M_UNKNOWN, false) == XDP_PASS,
		      "the XDP stage did not pass it on");
		if (xt_bump())
			CHECK(tc(M_A, M_UNKNOWN) == REDIRECT,
			      "after the bump: not decided anew");
	}
	if (prepare("broadcast: the hand-over is cached", false)) {
		CHECK(tc(M_A, M_BCAST) == PASS, "broadcast not handed over");
		CHECK(cached_pass(M_BCAST, XDPNET_C_PASS_MCAST),
		      "the hand-over is not cached");
	}
	if (prepare("a hand-over for the frame's length is not cached",
		    false)) {
		CHECK(tc_len(M_C, 1400) == PASS, "1,442 bytes into C's MTU "
						 "1280 not handed over");
		CHECK(!cached_pass(M_C, XDPNET_C_PASS_MTU), "cached as a pass");
		CHECK(tc_len(M_C, 100) == REDIRECT,
		      "the next, small frame not bypassed");
	}
}

void test_cache(void)
{
	/* One CPU, so that consecutive frames meet their entry (per_cpu()
	 * moves on its own). */
	xt_pin(-1);
	used_until_bumped();
	per_cpu();
	user_changes();
	kernel_changes();
	keepalive_due();
	learning_on();
	not_cached();
	xdp_and_trace();
	egress_tc();
	pass_cached();
	xt_unpin();
}
