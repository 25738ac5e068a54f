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
 * file sees each line as it happens).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <linux/if_bridge.h>
#include <linux/netlink.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/rtnetlink.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "lib/exit.h"
#include "lib/log.h"
#include "lib/util.h"
#include "state/netns.h"
#include "state/pins.h"
#include "state/owner.h"
#include "datapath/hooks.h"
#include "datapath/load.h"
#include "datapath/counters.h"
#include "lib/nl.h"
#include "state/lock.h"
#include "sync/reconcile.h"
#include "sync/policy.h"
#include "sync/follower.h"
#include "observe/dump.h"

#define XN_BACKSTOP_S 30
/* How often it looks whether anything but itself holds its network
 * namespace (state/netns.h). */
#define XN_NETNS_CHECK_S 2
#define XN_MAX_BATCH 256

static volatile sig_atomic_t stop_sig, hup_sig;

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		hup_sig = 1;
	else
		stop_sig = sig;
}

struct batch {
	__u32 bridge;
	int port_idx; /* the datapath's ifindex -> slot map */
	int newcomer; /* a port of the bridge not carried yet */
	int tc;	      /* a qdisc or tc filter changed: read the filters */
	int full;     /* reconcile everything */
	int gone;     /* the bridge was deleted */
	int orphan;   /* ... or its network namespace, under us */
	int n;	      /* links to reconcile */
	__u32 link[XN_MAX_BATCH];
	int nfdb;
	int fdb_budget; /* entries the in-kernel mirror missed: ask for */
	struct {
		struct xn_fdb_entry e;
		int deleted;
	} fdb[XN_MAX_BATCH];
};

static void batch_link(struct batch *b, __u32 ifindex)
{
	int i;

	for (i = 0; i < b->n; i++)
		if (b->link[i] == ifindex)
			return;
	if (b->n == XN_MAX_BATCH)
		b->full = 1;
	else
		b->link[b->n++] = ifindex;
}

static int on_event(const struct nlmsghdr *nlh, void *arg)
{
	struct batch *b = arg;
	struct xn_fdb_entry e;
	struct ifinfomsg *ifi;
	int parsed, mine;
	struct xn_link l;
	__u32 slot;

	switch (nlh->nlmsg_type) {
	case RTM_NEWLINK:
	case RTM_DELLINK:
		if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
			return 0;
		ifi = NLMSG_DATA(nlh);
		if ((__u32)ifi->ifi_index == b->bridge) {
			if (nlh->nlmsg_type == RTM_DELLINK &&
			    ifi->ifi_family != AF_BRIDGE)
				b->gone = 1;
			else /* the bridge's settings, its nf_call_* too */
				b->full = b->tc = 1;
			return 0;
		}
		/* A port we have (it may be leaving: IFLA_MASTER absent, or
		 * another bridge's), or one that names our bridge (joining):
		 * re-read it. Not the host's other links: addrconf alone
		 * sends a few messages per link, without IFLA_MASTER, and a
		 * re-read reads every port's entry. */
		parsed = xn_parse_link(nlh, &l) == 0;
		mine = !bpf_map_lookup_elem(b->port_idx, &ifi->ifi_index,
					    &slot);
		if (nlh->nlmsg_type == RTM_DELLINK || mine ||
		    (parsed && l.master == b->bridge) ||
		    (!parsed && ifi->ifi_family == AF_BRIDGE))
			batch_link(b, ifi->ifi_index);
		/* A VLAN device coming onto a port we have, or going. */
		if (parsed && l.link && !strcmp(l.kind, "vlan") &&
		    !bpf_map_lookup_elem(b->port_idx, &l.link, &slot))
			batch_link(b, l.link);
		if (nlh->nlmsg_type == RTM_NEWLINK && parsed &&
		    l.master == b->bridge && !mine)
			b->newcomer = 1;
		return 0;
	case RTM_NEWNEIGH:
	case RTM_DELNEIGH:
		if (xn_parse_fdb(nlh, &e) ||
		    (e.master != b->bridge && e.ifindex != b->bridge))
			return 0;
		if (b->nfdb == XN_MAX_BATCH) {
			b->full = 1;
			return 0;
		}
		b->fdb[b->nfdb].e = e;
		b->fdb[b->nfdb++].deleted = nlh->nlmsg_type == RTM_DELNEIGH;
		return 0;
	case RTM_NEWQDISC:
	case RTM_DELQDISC:
	case RTM_NEWTFILTER:
	case RTM_DELTFILTER:
		/* tc of the bridge or of one of its ports (held or carried),
		 * or of a device gone already (it may have been one): read
		 * the filters again. Not for other devices: that read runs
		 * the host's filter tools, and a host (or a test) that
		 * changes tc elsewhere would keep the follower busy. */
		if (nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(struct tcmsg))) {
			int dev =
				((struct tcmsg *)NLMSG_DATA(nlh))->tcm_ifindex;

			if (dev > 0 && (__u32)dev != b->bridge &&
			    !xn_get_link_by_index((__u32)dev, &l) &&
			    l.master != b->bridge)
				return 0;
		}
		b->tc = 1;
		return 0;
	case RTM_NEWVLAN:
	case RTM_DELVLAN:
		if (nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(struct br_vlan_msg)))
			batch_link(b, ((struct br_vlan_msg *)NLMSG_DATA(nlh))
					      ->ifindex);
		return 0;
	default:
		return 0;
	}
}

static __u64 fdb_full_count(struct xn_state *s)
{
	__u64 ev[XDPNET_FE_MAX];

	return xn_fdb_ev_read(s, ev) ? 0 : ev[XDPNET_FE_FULL];
}

/* nftables change notifications: an fd to poll, or -1. */
static int nft_events_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK,
				  .nl_groups = 1U << (NFNLGRP_NFTABLES - 1) };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
			NETLINK_NETFILTER);

	if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static int nft_events_drain(int fd)
{
	char buf[8192];
	int any = 0;

	while (fd >= 0 && recv(fd, buf, sizeof(buf), MSG_DONTWAIT) != -1)
		any = 1;
	return any || (fd >= 0 && errno == ENOBUFS);
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
static int apply(struct xn_state *s, struct xn_link *br, struct batch *b,
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

/* The bridge was deleted (apply() removed every hook and pin): our run
 * files go too, then the bridge lock. */
static void gone(const struct xn_bridge *bridge, int lk, int flk)
{
	xn_run_remove_follower(bridge, flk);
	xn_unlock(lk);
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
	return -1;
}

/* Start: open (or upgrade) the state, reconcile everything. Under lock.
 * An XN_* exit code, or -1: the bridge was deleted meanwhile, and
 * everything of it removed. */
static int take_over(struct xn_state *s, const struct xn_bridge *bridge,
		     struct xn_link *br, struct xn_policy *pol)
{
	struct xn_load ld = { .bridge_ifindex = br->ifindex };
	struct xn_sync r;
	int err;

	err = xn_state_open(s, bridge);
	if (err) {
		if (err == XN_ENOTATTACHED)
			xn_err("%s is not attached (try 'xdpnet attach %s')",
			       br->name, br->name);
		return err;
	}
	if (s->meta.bridge_ifindex != br->ifindex) {
		xn_err("the pinned state of %s belongs to an earlier bridge "
		       "of that name; run 'xdpnet detach %s'",
		       br->name, br->name);
		return XN_ERR;
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
		return XN_ERR;
	}
	snprintf(s->meta.build, sizeof(s->meta.build), "%s", xn_build_id());
	xn_meta_write(s);
	log_sync(br->name, "start", &r);
	return 0;
}

/*
 * br_netfilter's switches: loading the module (Docker does, with FORWARD
 * set to DROP) and writing its bridge-nf-call-* sysctls raise no event
 * the follower hears, and bridged frames meet the IP hooks from then on.
 * Read every NF_CHECK_S; a change re-reads the filters. A bit per sysctl
 * set, and one for the module's absence.
 */
#define NF_CHECK_S 0.25
static unsigned int nf_switches(void)
{
	static const char *const which[] = { "call-iptables", "call-ip6tables",
					     "call-arptables",
					     "filter-vlan-tagged",
					     "filter-pppoe-tagged" };
	unsigned int i, v = 0;
	char path[64], c;
	int fd;

	for (i = 0; i < ARRAY_SIZE(which); i++) {
		snprintf(path, sizeof(path),
			 "/proc/sys/net/bridge/bridge-nf-%s", which[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return 1U << 31;
		if (read(fd, &c, 1) == 1 && c != '0')
			v |= 1U << i;
		close(fd);
	}
	return v;
}

/* What bridged frames meet now, as bits: the IP hooks by
 * bridge-nf-call-* (br_netfilter loaded) or by one of the bridge's own
 * nf_call_*, and what the filter-*-tagged sysctls add to them. */
static unsigned int nf_on_now(const struct xn_link *br)
{
	unsigned int v = nf_switches();
	struct xn_link now;

	if (v & 1U << 31)
		return 0;
	if (!xn_get_link_by_index(br->ifindex, &now))
		v |= (now.nf_call_iptables ? 1U : 0) |
		     (now.nf_call_ip6tables ? 2U : 0) |
		     (now.nf_call_arptables ? 4U : 0);
	return v & 7 ? v : 0;
}

int xn_follow_run(const struct xn_bridge *bridge)
{
	struct xn_link link = bridge->link, *br = &link;
	struct xn_policy pol = {};
	struct xn_state s;
	struct batch *b;
	double next_backstop, next_fdb_check = 0, next_tcx_check = 0;
	double next_nf_check = 0, next_ns_check = 0;
	unsigned int nf_seen = nf_switches();
	__u64 full_seen = 0, tcx_seen;
	unsigned int nf_on = nf_on_now(br);
	int fdb_recheck = 0;
	int fd, nfd, lk, flk, err = 0;
	pid_t other;

	/* Its lines go out one at a time (main.c made stdout line-buffered
	 * before anything was written: setvbuf later has no effect). */
	/* libxdp 1.3 leaves a descriptor open each time it attaches or
	 * detaches a program: room for years of VMs coming and going. */
	{
		struct rlimit rl;

		if (!getrlimit(RLIMIT_NOFILE, &rl) &&
		    rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	flk = xn_follow_lock(bridge, &other);
	if (flk == -EBUSY) {
		xn_err("a follower for %s is already running (pid %d)",
		       bridge->name, (int)other);
		return XN_EBUSY;
	}
	if (flk < 0) {
		xn_err("cannot take the follower lock: %s", strerror(-flk));
		return XN_ERR;
	}
	/* Subscribe before reading anything: no change can slip between
	 * the first reconcile and the first notification. */
	fd = xn_events_open();
	if (fd < 0) {
		xn_err("cannot listen to netlink: %s", strerror(-fd));
		close(flk);
		return XN_ERR;
	}
	nfd = nft_events_open();
	b = calloc(1, sizeof(*b));
	lk = b ? xn_lock(bridge, 30) : -1;
	if (lk < 0) {
		free(b);
		close(fd);
		if (nfd >= 0)
			close(nfd);
		close(flk);
		return XN_ERR;
	}
	err = take_over(&s, bridge, br, &pol);
	if (err == -1) {
		gone(bridge, lk, flk);
		lk = -1;
		err = XN_OK;
	}
	xn_unlock(lk);
	if (err || lk < 0) {
		xn_policy_free(&pol);
		free(b);
		close(fd);
		if (nfd >= 0)
			close(nfd);
		close(flk);
		return err;
	}
	xn_info("xdpnet: following %s (pid %d; %s datapath; FDB mirrored %s)",
		bridge->name, (int)getpid(), s.meta.live ? "live" : "portable",
		s.meta.fdb_trace ? "in the kernel" : "by this follower");
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGHUP, on_signal);
	next_backstop = xn_mono_s() + XN_BACKSTOP_S;
	full_seen = fdb_full_count(&s);
	tcx_seen = xn_tcx_fingerprint(&s);
	while (!stop_sig) {
		struct pollfd pfd[2] = { { .fd = fd, .events = POLLIN },
					 { .fd = nfd, .events = POLLIN } };
		int rd = 0, filters = 0;
		__u32 hold;

		poll(pfd, nfd >= 0 ? 2 : 1, (int)(NF_CHECK_S * 1000));
		memset(b, 0, sizeof(*b));
		b->bridge = br->ifindex;
		b->port_idx = s.fd[XM_PORT_IDX];
		b->fdb_budget = 16;
		if (pfd[1].revents & POLLIN)
			filters = nft_events_drain(nfd);
		if (pfd[0].revents & POLLIN) {
			rd = xn_events_read(fd, on_event, b);
			if (rd == -ENOBUFS) {
				xn_info("xdpnet: %s: notifications were lost; "
					"resyncing",
					bridge->name);
				b->full = 1;
				filters = 1;
			}
			filters |= b->tc;
		}
		/* Another party's tcx program came or went: the XDP stage
		 * steps aside from its ingress, XDP redirects from its
		 * egress (datapath/hooks.c, filters/tc.c). */
		if (xn_mono_s() >= next_tcx_check) {
			next_tcx_check = xn_mono_s() + 1;
			xn_dump_orphan_off(bridge, s.fd[XM_DUMP]);
			if (xn_tcx_fingerprint(&s) != tcx_seen) {
				b->full = 1;
				filters = 1;
			}
		}
		if (xn_mono_s() >= next_nf_check) {
			unsigned int nf = nf_switches();

			next_nf_check = xn_mono_s() + NF_CHECK_S;
			if (nf != nf_seen) {
				xn_info("xdpnet: %s: br_netfilter %s; reading "
					"the filters again",
					bridge->name,
					nf & 1U << 31 ? "unloaded"
						      : "switched on or off");
				nf_seen = nf;
				filters = 1;
			}
		}
		/* 'ip netns del' under us: we alone keep the namespace, its
		 * devices and our pins alive. */
		if (xn_mono_s() >= next_ns_check) {
			next_ns_check = xn_mono_s() + XN_NETNS_CHECK_S;
			if (xn_netns_held() == 0)
				b->gone = b->orphan = 1;
		}
		if (hup_sig || xn_mono_s() >= next_backstop) {
			b->full = 1;
			filters = 1;
			hup_sig = 0;
			next_backstop = xn_mono_s() + XN_BACKSTOP_S;
		}
		if (!b->full && !b->gone && !b->n && !b->nfdb && !filters &&
		    xn_mono_s() < next_fdb_check)
			continue;
		lk = xn_lock(bridge, 30);
		if (lk < 0)
			continue;
		/* Somebody may have upgraded or detached meanwhile. */
		{
			struct xdpnet_meta m = s.meta;

			xn_state_close(&s);
			err = xn_state_open(&s, bridge);
			if (err || strcmp(s.meta.build, m.build)) {
				xn_unlock(lk);
				xn_info("xdpnet: %s: %s; the follower stops",
					bridge->name,
					err ? "no longer attached"
					    : "upgraded by another xdpnet");
				err = err == XN_ENOTATTACHED ? 0 : err;
				break;
			}
		}
		if ((filters || b->newcomer) && b->full && !b->gone &&
		    (hold = bridge_hold_now(br)) != XDPNET_BHOLD_NONE) {
			/* The bridge's own settings hold it (hub mode, a short
			 * ageing, ...): make that so before the filter tools
			 * run, which take a while on a busy host. Held with
			 * the old filters' policy too, should the bridge let
			 * go between two reads: nothing is bypassed. */
			struct xn_policy held = pol;

			held.bridge_hold = (int)hold;
			err = apply(&s, br, b, &held);
			if (err == 1) {
				gone(bridge, lk, flk);
				err = 0;
				break;
			}
		}
		/* br_netfilter just came on (the module, a sysctl, the
		 * bridge's nf_call_*), or sees more frames (a
		 * filter-*-tagged sysctl): hold the bridge until the filters
		 * are read (they may drop what the bypass would carry; Docker
		 * loads it with FORWARD set to DROP), however long the tools
		 * take on a busy host. */
		if (filters && !b->gone) {
			unsigned int on = nf_on_now(br);

			if (on & ~nf_on) {
				struct xn_policy held = pol;

				held.bridge_hold = XDPNET_BHOLD_FILTERS;
				b->full = 1;
				err = apply(&s, br, b, &held);
				if (err == 1) {
					gone(bridge, lk, flk);
					err = 0;
					break;
				}
			}
			nf_on = on;
		}
		/* tc changed on a port: hold the ports whose ingress has
		 * filters now, and keep XDP redirects out of those whose
		 * egress has tc (netlink alone), before the tools run. The
		 * TC stage, a tcx program, runs before a qdisc's filters, and
		 * the XDP stage before both; the live datapath sees ingress
		 * filters itself where the TC stage is a tcx program. */
		if (b->tc && !b->gone) {
			struct xn_policy held;

			if (xn_policy_tc_now(br, &pol, &held) > 0) {
				b->full = 1;
				err = apply(&s, br, b, &held);
				free((void *)held.tc_in);
				free((void *)held.no_xdp);
				if (err == 1) {
					gone(bridge, lk, flk);
					err = 0;
					break;
				}
			}
		}
		/* The filters are read again below, which takes tens of
		 * milliseconds (the tools run). A change to ports we carry
		 * goes in first, under the policy they already have: a port's
		 * MTU, say, which also changes the bridge's (its lowest) and
		 * so comes with the bridge's notification. Joining ports wait
		 * for the filters. */
		if (filters && !b->newcomer && !b->gone) {
			struct xn_sync r;
			int i;

			for (i = 0; i < b->n; i++)
				if (b->link[i] != br->ifindex)
					xn_reconcile_link(&s, br, b->link[i],
							  &pol, &r);
		}
		if ((filters || b->newcomer) && policy_refresh(&s, br, &pol))
			b->full = 1;
		err = apply(&s, br, b, &pol);
		fdb_recheck |= b->fdb_budget < 0;
		tcx_seen = xn_tcx_fingerprint(&s);
		if (err == 1) {
			gone(bridge, lk, flk);
			err = 0;
			break;
		}
		if (err < 0) {
			/* Whatever failed is tried again, whole, soon. */
			xn_info("xdpnet: %s: %s; resyncing in a second",
				bridge->name, strerror(-err));
			next_backstop = xn_mono_s() + 1;
		}
		if (xn_mono_s() >= next_fdb_check) {
			__u64 full = fdb_full_count(&s);
			struct xn_fdb_sync r = {};

			/* The FDB copy overflowed: copy what fits now. Or
			 * copies on another port than the bridge's were more
			 * than a batch asks for (fdb_copy.h): ask for all. */
			if ((full != full_seen || fdb_recheck) &&
			    !xn_fdb_repair(&s, br, &r) && r.seeded)
				xn_info("xdpnet: %s: FDB copy refilled: %d "
					"entries",
					bridge->name, r.seeded);
			full_seen = full;
			fdb_recheck = 0;
			next_fdb_check = xn_mono_s() + 1;
		}
		xn_unlock(lk);
	}
	if (stop_sig)
		xn_info("xdpnet: %s: follower stops (signal %d); the datapath "
			"stays attached",
			bridge->name, (int)stop_sig);
	xn_state_close(&s);
	xn_policy_free(&pol);
	free(b);
	close(fd);
	if (nfd >= 0)
		close(nfd);
	close(flk);
	return err < 0 ? XN_ERR : err;
}
