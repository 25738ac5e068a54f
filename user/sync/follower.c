// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdpnet follow BRIDGE: keep the datapath in step with the bridge.
 *
 * Subscribes to the kernel's link, neighbour (the bridge FDB) and bridge
 * VLAN notifications, and applies each change as a delta: the link that
 * changed is read again and reconciled alone, an FDB entry is copied or
 * dropped alone. Only when the kernel says it dropped notifications
 * (ENOBUFS), the bridge's own settings change, or as a backstop every
 * XN_BACKSTOP_S seconds, does it reconcile everything. On start it
 * reconciles everything from the pinned state and the kernel (which
 * finishes whatever a killed predecessor left half-done), and takes over
 * the datapath from another build (an upgrade). When the bridge is
 * deleted it removes every hook and pin, and exits.
 *
 * The host's filters (user/policy.c) are read again whenever nftables
 * changes (iptables-nft and ebtables-nft included: NFNLGRP_NFTABLES) or
 * tc does (a qdisc or filter of any device: RTNLGRP_TC), when the
 * bridge's own settings change (nf_call_*), when br_netfilter is loaded or
 * its bridge-nf-call-* sysctls switch (read four times a second: they
 * raise no event), before a port joins the datapath (libvirt instantiates a
 * VM's nwfilter around the time its tap joins the bridge), on SIGHUP and with
 * the backstop; legacy iptables changes raise no event and are seen by the
 * backstop. Reading them runs the filter tools (tens of milliseconds, a
 * second on a busy host); a bridge whose own settings now make it bypass
 * nothing (hub mode, a short ageing, MST, promiscuous) is held first.
 *
 * Logs one line per change on stdout, line-buffered (journald or the log
 * file sees each line as it happens). In three steps, setup, loop and
 * teardown (the one cleanup path); what it hears is
 * sync/follow_events.c's.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include "lib/log.h"
#include "lib/util.h"
#include "state/netns.h"
#include "state/pins.h"
#include "state/owner.h"
#include "state/lock.h"
#include "datapath/hooks.h"
#include "datapath/load.h"
#include "datapath/counters.h"
#include "observe/dump.h"
#include "sync/reconcile.h"
#include "sync/policy.h"
#include "sync/follow_events.h"
#include "sync/follower.h"

#define XN_BACKSTOP_S 30
/* How often it looks whether anything but itself holds its network
 * namespace (state/netns.h). */
#define XN_NETNS_CHECK_S 2

static volatile sig_atomic_t stop_sig, hup_sig;

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		hup_sig = 1;
	else
		stop_sig = sig;
}

static __u64 fdb_full_count(struct xn_state *s)
{
	__u64 ev[XDPNET_FE_MAX];

	return xn_fdb_ev_read(s, ev) ? 0 : ev[XDPNET_FE_FULL];
}

/* Why the bridge's settings alone make it bypass nothing now
 * (sync/desired.h), or XDPNET_BHOLD_NONE. */
static __u32 bridge_hold_now(const struct xn_link *br)
{
	struct xn_link now;

	return xn_get_link_by_index(br->ifindex, &now)
		       ? XDPNET_BHOLD_NONE
		       : xn_bridge_hold(&now, 0);
}

/* Read the host's filters again; 1 when what they hold changed. */
static int policy_refresh(struct xn_state *s, const struct xn_link *br,
			  struct xn_policy *pol)
{
	struct xn_policy np;

	if (xn_policy_read(br, s->meta.bypass_filters, 0, &np))
		return 0;
	if (!xn_policy_differs(pol, &np)) {
		xn_policy_free(&np);
		return 0;
	}
	xn_policy_free(pol);
	*pol = np;
	xn_info("xdpnet: %s: filters: %s", br->name,
		xn_policy_summary(pol)[0] ? xn_policy_summary(pol)
					  : "none apply");
	return 1;
}

static void log_sync(const char *bridge, const char *what,
		     const struct xn_sync *r)
{
	if (r->added || r->removed || r->changed)
		xn_info("xdpnet: %s: %s: +%d -%d ~%d ports (%d carried, %d "
			"held)",
			bridge, what, r->added, r->removed, r->changed,
			r->total, r->held);
}

/* Is br's ifindex still a bridge? (-ENODEV from a run may come from a
 * port that vanished under it.) */
static int bridge_exists(const struct xn_link *br)
{
	struct xn_link now;

	return !xn_get_link_by_index(br->ifindex, &now) &&
	       !strcmp(now.kind, "bridge");
}

/* Apply one batch of notifications, under the bridge's lock. Returns 1
 * when the bridge is gone (everything was removed), 0, or -errno. */
static int apply(struct xn_state *s, struct xn_link *br, struct xn_batch *b,
		 const struct xn_policy *pol)
{
	struct xn_sync r;
	int i, err = 0;

	if (b->gone) {
		if (b->orphan)
			xn_info("xdpnet: %s: its network namespace was "
				"deleted (nothing but this follower holds "
				"it): removing every hook and pin",
				br->name);
		else
			xn_info("xdpnet: %s was deleted: removing every hook",
				br->name);
		xn_reconcile_clear(s);
		xn_state_close(s);
		xn_state_remove(s->bridge);
		return 1;
	}
	if (b->full) {
		double t0 = xn_mono_s();

		err = xn_reconcile(s, br, pol, &r, 0);
		if (err == -ENODEV && !bridge_exists(br)) {
			b->gone = 1;
			return apply(s, br, b, pol);
		}
		log_sync(br->name, "resync", &r);
		/* -v: what a resync costs (scripts/bench_scale reads it). */
		xn_debug("xdpnet: %s: full resync of %d ports in %.1f ms",
			 br->name, r.total, (xn_mono_s() - t0) * 1e3);
		return err;
	}
	for (i = 0; i < b->n; i++) {
		err = xn_reconcile_link(s, br, b->link[i], pol, &r);
		if (err == -ENODEV && b->link[i] == br->ifindex) {
			b->gone = 1;
			return apply(s, br, b, pol);
		}
	}
	for (i = 0; i < b->nfdb; i++)
		xn_reconcile_fdb_entry(s, br, &b->fdb[i].e, b->fdb[i].deleted,
				       &b->fdb_budget);
	return 0;
}

/* The bridge was deleted as the follower started (attach had returned):
 * remove everything of it, as apply() does later. s is open or not. */
static int deleted(struct xn_state *s, const struct xn_link *br, int open)
{
	xn_info("xdpnet: %s was deleted: removing every hook", br->name);
	if (open || !xn_state_open(s, s->bridge)) {
		xn_reconcile_clear(s);
		xn_state_close(s);
	}
	xn_state_remove(s->bridge);
	return 1;
}

/* Start: open (or upgrade) the state, reconcile everything. Under lock.
 * 0, -errno after a one-line error, or 1: the bridge was deleted
 * meanwhile, and everything of it removed. */
static int take_over(struct xn_state *s, const struct xn_bridge *bridge,
		     struct xn_link *br, struct xn_policy *pol)
{
	struct xn_load ld = { .bridge_ifindex = br->ifindex };
	struct xn_sync r;
	int err;

	err = xn_state_open(s, bridge);
	if (err) {
		if (err == -XN_NOT_ATTACHED)
			xn_err("%s is not attached (try 'xdpnet attach %s')",
			       br->name, br->name);
		return err;
	}
	if (s->meta.bridge_ifindex != br->ifindex) {
		xn_err("the pinned state of %s belongs to an earlier bridge "
		       "of that name; run 'xdpnet detach %s'",
		       br->name, br->name);
		return -XN_FAILED;
	}
	err = xn_policy_read(br, s->meta.bypass_filters, 0, pol);
	if (err)
		return bridge_exists(br) ? err : deleted(s, br, 1);
	if (strcmp(s->meta.build, xn_build_id())) {
		xn_info("xdpnet: %s: taking over the datapath of build %s",
			br->name, s->meta.build);
		xn_state_close(s);
		err = xn_state_load(s, &ld);
		if (err)
			return bridge_exists(br) ? err : deleted(s, br, 0);
	}
	err = xn_reconcile(s, br, pol, &r, 0);
	if (err && !bridge_exists(br))
		return deleted(s, br, 1);
	if (err) {
		xn_err("cannot reconcile %s: %s", br->name, strerror(-err));
		return -XN_FAILED;
	}
	snprintf(s->meta.build, sizeof(s->meta.build), "%s", xn_build_id());
	xn_meta_write(s);
	log_sync(br->name, "start", &r);
	return 0;
}

/* Take the follower's lock and listen; then, under the bridge's lock,
 * open (or upgrade) the state and reconcile everything. */
int xn_follower_setup(struct xn_follower *f, const struct xn_bridge *bridge)
{
	struct xn_link *br = &f->link;
	struct rlimit rl;
	pid_t other;
	int lk, err;

	/* First: whoever waits for the line that says it follows may signal
	 * at once (a SIGHUP's default would end the follower). */
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGHUP, on_signal);
	memset(f, 0, sizeof(*f));
	f->bridge = bridge;
	f->link = bridge->link;
	f->ev = f->nft = f->flk = f->lk = -1;
	xn_state_init(&f->s, bridge);
	f->nf_seen = xn_nf_switches();
	f->nf_on = xn_nf_on_now(br);
	/* Its lines go out one at a time (main.c made stdout line-buffered
	 * before anything was written: setvbuf later has no effect). */
	/* libxdp 1.3 leaves a descriptor open each time it attaches or
	 * detaches a program: room for years of VMs coming and going. */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	f->flk = xn_follow_lock(bridge, &other);
	if (f->flk == -EBUSY) {
		xn_err("a follower for %s is already running (pid %d)",
		       bridge->name, (int)other);
		return -XN_BUSY;
	}
	if (f->flk < 0) {
		xn_err("cannot take the follower lock: %s", strerror(-f->flk));
		return -XN_FAILED;
	}
	/* Subscribe before reading anything: no change can slip between
	 * the first reconcile and the first notification. */
	f->ev = xn_events_open();
	if (f->ev < 0) {
		xn_err("cannot listen to netlink: %s", strerror(-f->ev));
		return -XN_FAILED;
	}
	f->nft = xn_nft_events_open();
	f->b = calloc(1, sizeof(*f->b));
	lk = f->b ? xn_lock(bridge, 30) : -1;
	if (lk < 0)
		return -XN_FAILED;
	err = take_over(&f->s, bridge, br, &f->pol);
	if (err == 1) {
		/* Deleted meanwhile: teardown lets go of the lock. */
		f->gone = 1;
		f->lk = lk;
		return 0;
	}
	xn_unlock(lk);
	if (err)
		return err;
	xn_info("xdpnet: following %s (pid %d; %s datapath; FDB mirrored %s)",
		bridge->name, (int)getpid(),
		f->s.meta.live ? "live" : "portable",
		f->s.meta.fdb_trace ? "in the kernel" : "by this follower");
	f->next_backstop = xn_mono_s() + XN_BACKSTOP_S;
	f->full_seen = fdb_full_count(&f->s);
	f->tcx_seen = xn_tcx_fingerprint(&f->s);
	return 0;
}

/* Wait for a change and batch it; the checks that raise no event run on
 * their clocks. 1 when there is anything to do. */
static int wait_batch(struct xn_follower *f, int *filters)
{
	struct pollfd pfd[2] = { { .fd = f->ev, .events = POLLIN },
				 { .fd = f->nft, .events = POLLIN } };
	struct xn_batch *b = f->b;
	const char *name = f->bridge->name;

	*filters = 0;
	poll(pfd, f->nft >= 0 ? 2 : 1, (int)(XN_NF_CHECK_S * 1000));
	memset(b, 0, sizeof(*b));
	b->bridge = f->link.ifindex;
	b->port_idx = f->s.fd[XM_PORT_IDX];
	b->fdb_budget = 16;
	if (pfd[1].revents & POLLIN)
		*filters = xn_nft_events_drain(f->nft);
	if (pfd[0].revents & POLLIN) {
		if (xn_events_read(f->ev, xn_batch_event, b) == -ENOBUFS) {
			xn_info("xdpnet: %s: notifications were lost; "
				"resyncing",
				name);
			b->full = 1;
			*filters = 1;
		}
		*filters |= b->tc;
	}
	/* Another party's tcx program came or went: the XDP stage steps
	 * aside from its ingress, XDP redirects from its egress
	 * (datapath/hooks.c, filters/tc.c). */
	if (xn_mono_s() >= f->next_tcx_check) {
		f->next_tcx_check = xn_mono_s() + 1;
		xn_dump_orphan_off(f->bridge, f->s.fd[XM_DUMP]);
		if (xn_tcx_fingerprint(&f->s) != f->tcx_seen) {
			b->full = 1;
			*filters = 1;
		}
	}
	if (xn_mono_s() >= f->next_nf_check) {
		unsigned int nf = xn_nf_switches();

		f->next_nf_check = xn_mono_s() + XN_NF_CHECK_S;
		if (nf != f->nf_seen) {
			xn_info("xdpnet: %s: br_netfilter %s; reading the "
				"filters again",
				name,
				nf & 1U << 31 ? "unloaded"
					      : "switched on or off");
			f->nf_seen = nf;
			*filters = 1;
		}
	}
	/* 'ip netns del' under us: we alone keep the namespace, its devices
	 * and our pins alive. */
	if (xn_mono_s() >= f->next_ns_check) {
		f->next_ns_check = xn_mono_s() + XN_NETNS_CHECK_S;
		if (xn_netns_held() == 0)
			b->gone = b->orphan = 1;
	}
	if (hup_sig || xn_mono_s() >= f->next_backstop) {
		b->full = 1;
		*filters = 1;
		hup_sig = 0;
		f->next_backstop = xn_mono_s() + XN_BACKSTOP_S;
	}
	return b->full || b->gone || b->n || b->nfdb || *filters ||
	       xn_mono_s() >= f->next_fdb_check;
}

/* Apply a batch under the bridge's lock, with the holds that must come
 * before the filter tools run. 1: the bridge is gone (everything of it
 * was removed); 2: the follower stops (detached, or upgraded by another
 * build: *err says); 0, or -errno, tried again soon. */
static int handle(struct xn_follower *f, int filters, int *err)
{
	struct xn_link *br = &f->link;
	struct xn_state *s = &f->s;
	struct xn_batch *b = f->b;
	struct xdpnet_meta m = s->meta;
	__u32 hold;

	/* Somebody may have upgraded or detached meanwhile. */
	xn_state_close(s);
	*err = xn_state_open(s, f->bridge);
	if (*err || strcmp(s->meta.build, m.build)) {
		xn_info("xdpnet: %s: %s; the follower stops", f->bridge->name,
			*err ? "no longer attached"
			     : "upgraded by another xdpnet");
		*err = *err == -XN_NOT_ATTACHED ? 0 : *err;
		return 2;
	}
	if ((filters || b->newcomer) && b->full && !b->gone &&
	    (hold = bridge_hold_now(br)) != XDPNET_BHOLD_NONE) {
		/* The bridge's own settings hold it (hub mode, a short
		 * ageing, ...): make that so before the filter tools run,
		 * which take a while on a busy host. Held with the old
		 * filters' policy too, should the bridge let go between two
		 * reads: nothing is bypassed. */
		struct xn_policy held = f->pol;

		held.bridge_hold = (int)hold;
		if ((*err = apply(s, br, b, &held)) == 1)
			return 1;
	}
	/* br_netfilter just came on (the module, a sysctl, the bridge's
	 * nf_call_*), or sees more frames (a filter-*-tagged sysctl): hold
	 * the bridge until the filters are read (they may drop what the
	 * bypass would carry; Docker loads it with FORWARD set to DROP),
	 * however long the tools take on a busy host. */
	if (filters && !b->gone) {
		unsigned int on = xn_nf_on_now(br);

		if (on & ~f->nf_on) {
			struct xn_policy held = f->pol;

			held.bridge_hold = XDPNET_BHOLD_FILTERS;
			b->full = 1;
			if ((*err = apply(s, br, b, &held)) == 1)
				return 1;
		}
		f->nf_on = on;
	}
	/* tc changed on a port: hold the ports whose ingress has filters
	 * now, and keep XDP redirects out of those whose egress has tc
	 * (netlink alone), before the tools run. The TC stage, a tcx
	 * program, runs before a qdisc's filters, and the XDP stage before
	 * both; the live datapath sees ingress filters itself where the TC
	 * stage is a tcx program. */
	if (b->tc && !b->gone) {
		struct xn_policy held;

		if (xn_policy_tc_now(br, &f->pol, &held) > 0) {
			b->full = 1;
			*err = apply(s, br, b, &held);
			free((void *)held.tc_in);
			free((void *)held.no_xdp);
			if (*err == 1)
				return 1;
		}
	}
	/* The filters are read again below, which takes tens of
	 * milliseconds (the tools run). A change to ports we carry goes in
	 * first, under the policy they already have: a port's MTU, say,
	 * which also changes the bridge's (its lowest) and so comes with the
	 * bridge's notification. Joining ports wait for the filters. */
	if (filters && !b->newcomer && !b->gone) {
		struct xn_sync r;
		int i;

		for (i = 0; i < b->n; i++)
			if (b->link[i] != br->ifindex)
				xn_reconcile_link(s, br, b->link[i], &f->pol,
						  &r);
	}
	if ((filters || b->newcomer) && policy_refresh(s, br, &f->pol))
		b->full = 1;
	*err = apply(s, br, b, &f->pol);
	f->fdb_recheck |= b->fdb_budget < 0;
	f->tcx_seen = xn_tcx_fingerprint(s);
	if (*err == 1)
		return 1;
	if (*err < 0) {
		/* Whatever failed is tried again, whole, soon. */
		xn_info("xdpnet: %s: %s; resyncing in a second",
			f->bridge->name, strerror(-*err));
		f->next_backstop = xn_mono_s() + 1;
	}
	if (xn_mono_s() >= f->next_fdb_check) {
		__u64 full = fdb_full_count(s);
		struct xn_fdb_sync r = {};

		/* The FDB copy overflowed: copy what fits now. Or copies on
		 * another port than the bridge's were more than a batch asks
		 * for (fdb_copy.h): ask for all. */
		if ((full != f->full_seen || f->fdb_recheck) &&
		    !xn_fdb_repair(s, br, &r) && r.seeded)
			xn_info("xdpnet: %s: FDB copy refilled: %d entries",
				f->bridge->name, r.seeded);
		f->full_seen = full;
		f->fdb_recheck = 0;
		f->next_fdb_check = xn_mono_s() + 1;
	}
	return 0;
}

int xn_follower_loop(struct xn_follower *f)
{
	int filters, lk, done = 0, err = 0;

	while (!stop_sig && !done) {
		if (!wait_batch(f, &filters))
			continue;
		lk = xn_lock(f->bridge, 30);
		if (lk < 0)
			continue;
		done = handle(f, filters, &err);
		/* Gone: the bridge lock is let go once the run files are
		 * (teardown's). */
		f->gone = done == 1;
		if (f->gone) {
			f->lk = lk;
			err = 0;
		} else {
			xn_unlock(lk);
		}
	}
	if (stop_sig)
		xn_info("xdpnet: %s: follower stops (signal %d); the datapath "
			"stays attached",
			f->bridge->name, (int)stop_sig);
	/* Stopped (2): why, as the state's open said; else what the last
	 * batch left failed (-errno) is a plain failure. */
	return done == 2 || err >= 0 ? err : -XN_FAILED;
}

void xn_follower_teardown(struct xn_follower *f)
{
	/* The bridge was deleted (everything of it removed): our run files
	 * go too, then the bridge lock. */
	if (f->gone) {
		xn_run_remove_follower(f->bridge, f->flk);
		xn_unlock(f->lk);
	}
	xn_state_close(&f->s);
	xn_policy_free(&f->pol);
	free(f->b);
	if (f->ev >= 0)
		close(f->ev);
	if (f->nft >= 0)
		close(f->nft);
	if (f->flk >= 0)
		close(f->flk);
	memset(f, 0, sizeof(*f));
}

int xn_follow_run(const struct xn_bridge *bridge)
{
	struct xn_follower f;
	int err = xn_follower_setup(&f, bridge);

	if (!err && !f.gone)
		err = xn_follower_loop(&f);
	xn_follower_teardown(&f);
	return err;
}
