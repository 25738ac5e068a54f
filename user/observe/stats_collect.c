// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Samples of a bridge's counters: see stats_collect.h. Sampling reads the
 * devices' counters over netlink (IFLA_STATS64) and xdpnet's from the
 * pinned maps, so counters outlive the CLI and work for a bridge that is
 * not attached (then every frame takes the bridge).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "xdpnet.h"
#include "lib/log.h"
#include "lib/util.h"
#include "state/paths.h"
#include "state/pins.h"
#include "state/owner.h"
#include "datapath/counters.h"
#include "state/bridge.h"
#include "observe/latency.h"
#include "state/lock.h"
#include "observe/stats_collect.h"

int xn_stats_pins_ours(const struct xn_bridge *bridge)
{
	struct xdpnet_lat_ctl ctl = {};
	struct xn_state st;
	__u32 zero = 0;
	int fd;

	if (!xn_state_open(&st, bridge)) {
		xn_state_close(&st);
		return 1;
	}
	if (xn_pin_exists(bridge, "meta"))
		return 0; /* another namespace's (or version's) state */
	fd = xn_pin_get(bridge, "lat_ctl");
	if (fd >= 0) {
		int ok = bpf_map_lookup_elem(fd, &zero, &ctl) ||
			 !ctl.netns_ino || ctl.netns_ino == bridge->ns.ino;

		close(fd);
		return ok;
	}
	return 1;
}

static int cmp_port(const void *a, const void *b)
{
	return strcmp(((const struct xn_stats_port *)a)->name,
		      ((const struct xn_stats_port *)b)->name);
}

void xn_stats_free(struct xn_stats_sample *s)
{
	free(s->ports);
	free(s->lat);
	s->ports = NULL;
	s->lat = NULL;
	s->nports = s->nlat = 0;
}

/* What the alerting rules watch: the follower, the bypass, the FDB copy. */
static void health(const struct xn_bridge *bridge, const struct xn_state *st,
		   struct xn_stats_sample *s)
{
	__u64 ev[XDPNET_FE_MAX];
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	struct xdpnet_cfg cfg;
	pid_t pid;

	s->follower = xn_follower_alive(bridge, &pid);
	s->follower_wanted = !st->meta.no_follow;
	if (!xn_cfg_read(st, &cfg)) {
		s->bypass = !!cfg.bypass;
		s->hold = cfg.hold;
	}
	s->fdb_entries = xn_map_count_keys(st->fd[XM_FDB]);
	if (!bpf_obj_get_info_by_fd(st->fd[XM_FDB], &info, &len))
		s->fdb_max = info.max_entries;
	if (!xn_fdb_ev_read(st, ev))
		s->fdb_full = ev[XDPNET_FE_FULL];
}

/* xdpnet's side of a sample: which ports the datapath carries, and its
 * counters. Leaves s->attached 0 when the bridge is not attached. */
static int collect_datapath(const struct xn_bridge *bridge,
			    struct xn_stats_sample *s)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	struct xdpnet_stats *pc;
	struct xn_state st;

	if (ncpu < 0)
		return ncpu;
	if (xn_state_open(&st, bridge))
		return 0;
	if (st.meta.bridge_ifindex != s->bridge_ifindex) {
		xn_state_close(&st);
		return 0;
	}
	pc = calloc(ncpu, sizeof(*pc));
	if (!pc) {
		xn_state_close(&st);
		return -ENOMEM;
	}
	s->attached = 1;
	s->mode = st.meta.mode;
	health(bridge, &st, s);
	for (i = 0; i < s->nports; i++) {
		struct xn_stats_port *p = &s->ports[i];
		struct xdpnet_port port;
		__u32 slot;

		if (bpf_map_lookup_elem(st.fd[XM_PORT_IDX], &p->ifindex,
					&slot) ||
		    bpf_map_lookup_elem(st.fd[XM_PORTS], &slot, &port) ||
		    port.ifindex != p->ifindex)
			continue;
		p->attached = 1;
		p->xdp = !!(port.flags & XDPNET_PORT_XDP);
		if (!bpf_map_lookup_elem(st.fd[XM_STATS], &slot, pc))
			xn_sum_stats(pc, ncpu, &p->ctr);
	}
	free(pc);
	xn_state_close(&st);
	return 0;
}

int xn_stats_collect(const struct xn_bridge *bridge, struct xn_stats_sample *s)
{
	struct xn_port_stats *ps = NULL;
	struct timespec wall;
	int n = 0, i, err;

	memset(s, 0, sizeof(*s));
	/* Still the bridge it was: stats -i and the exporter run on. */
	err = xn_bridge_still(bridge);
	if (err)
		return err;
	snprintf(s->bridge, sizeof(s->bridge), "%s", bridge->name);
	s->bridge_ifindex = bridge->link.ifindex;
	err = xn_list_port_stats(s->bridge_ifindex, &ps, &n);
	s->mono_ns = xn_mono_ns();
	clock_gettime(CLOCK_REALTIME, &wall);
	if (err) {
		xn_err("cannot read the ports of %s: %s", bridge->name,
		       strerror(-err));
		return -XN_FAILED;
	}
	s->wall = wall.tv_sec + wall.tv_nsec / 1e9;
	s->ports = calloc(n ? n : 1, sizeof(*s->ports));
	if (!s->ports) {
		free(ps);
		return -XN_FAILED;
	}
	for (i = 0; i < n; i++) {
		struct xn_stats_port *p = &s->ports[i];

		p->ifindex = ps[i].link.ifindex;
		snprintf(p->name, sizeof(p->name), "%s", ps[i].link.name);
		snprintf(p->kind, sizeof(p->kind), "%s", ps[i].link.kind);
		p->dev = ps[i].st;
	}
	s->nports = n;
	free(ps);
	qsort(s->ports, s->nports, sizeof(*s->ports), cmp_port);
	err = collect_datapath(bridge, s);
	if (!err) {
		err = xn_lat_read(bridge, &s->lat, &s->nlat);
		s->latency_maps = !err;
		if (err == -ENOENT)
			err = 0;
	}
	if (err) {
		xn_err("cannot read xdpnet's maps for %s: %s", bridge->name,
		       strerror(-err));
		xn_stats_free(s);
		return -XN_FAILED;
	}
	s->latency_on = xn_lat_is_on(bridge);
	return 0;
}

int xn_stats_refuse_other_ns(const struct xn_bridge *bridge)
{
	char dir[256];

	xn_pin_path(dir, sizeof(dir), bridge, NULL);
	xn_err("%s belongs to a bridge named %s in another network namespace",
	       dir, bridge->name);
	return -XN_FAILED;
}

int xn_stats_reset(const struct xn_bridge *bridge)
{
	int ncpu = libbpf_num_possible_cpus(), did = 0;
	struct xdpnet_stats *zero;
	struct xn_state st;
	__u32 key;

	if (ncpu < 0)
		return -XN_FAILED;
	if (xn_pinned(bridge) >= XN_PINNED_OTHER_NS)
		return xn_pinned_refuse(bridge, xn_pinned(bridge));
	if (!xn_stats_pins_ours(bridge))
		return xn_stats_refuse_other_ns(bridge);
	if (!xn_state_open(&st, bridge)) {
		zero = calloc(ncpu, sizeof(*zero));
		if (!zero) {
			xn_state_close(&st);
			return -XN_FAILED;
		}
		for (key = 0; key < XDPNET_MAX_PORTS; key++)
			bpf_map_update_elem(st.fd[XM_STATS], &key, zero,
					    BPF_EXIST);
		free(zero);
		xn_state_close(&st);
		did = 1;
	}
	if (!xn_lat_reset(bridge))
		did = 1;
	if (!did) {
		xn_err("xdpnet keeps no counters for %s (not attached, latency "
		       "probe never on)",
		       bridge->name);
		return -XN_NOT_ATTACHED;
	}
	return 0;
}

int xn_stats_ready(const struct xn_bridge *bridge)
{
	enum xn_pinned p = xn_pinned(bridge);

	if (p >= XN_PINNED_OTHER_NS)
		return xn_pinned_refuse(bridge, p);
	if (!xn_stats_pins_ours(bridge))
		return xn_stats_refuse_other_ns(bridge);
	return 0;
}

static volatile sig_atomic_t stop_watch;

static void on_signal(int sig)
{
	(void)sig;
	stop_watch = 1;
}

int xn_stats_watch(const struct xn_bridge *bridge,
		   const struct xn_stats_watch *w)
{
	struct xn_stats_sample a, b, *prev = &a, *cur = &b, *t;
	unsigned long seq = 0;
	struct timespec next;
	int err;

	err = xn_stats_collect(bridge, cur);
	if (err)
		return err;
	if (!w->interval) {
		w->show(NULL, cur, ++seq, w->arg);
		xn_stats_free(cur);
		return 0;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!stop_watch && (!w->count || seq < (unsigned long)w->count)) {
		__u64 ns = next.tv_nsec + (__u64)(w->interval * 1e9);

		next.tv_sec += ns / 1000000000ULL;
		next.tv_nsec = ns % 1000000000ULL;
		while (!stop_watch &&
		       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
				       NULL) == EINTR)
			;
		if (stop_watch)
			break;
		t = prev;
		prev = cur;
		cur = t;
		err = xn_stats_collect(bridge, cur);
		if (err) {
			xn_stats_free(prev);
			return err;
		}
		w->show(prev, cur, ++seq, w->arg);
		xn_stats_free(prev);
	}
	xn_stats_free(cur);
	return 0;
}
