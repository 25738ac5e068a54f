// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdpnet latency BRIDGE on|off: the forwarding-latency probe.
 *
 * "on" loads bpf/xdpnet_lat.bpf.c, reusing whatever is already pinned for
 * the bridge (the datapath's lat_ctl and lat_cpu when it is attached, the
 * probe's own lat_hist and lat_ports from an earlier "on"), pins what is
 * new, fills lat_ports with the bridge's ports, attaches the three
 * tracepoint programs as pinned links and finally sets lat_ctl.on, which
 * makes the datapath mark frames for the probe. "off" clears lat_ctl.on and
 * unpins the links (the kernel detaches them); the maps and with them the
 * histograms stay until "xdpnet stats BRIDGE --reset" or "xdpnet detach".
 * Neither touches the datapath's programs or links.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "xdpnet.h"
#include "xdpnet_lat.skel.h"
#include "lib/log.h"
#include "lib/util.h"
#include "state/pins.h"
#include "state/owner.h"
#include "lib/nl.h"
#include "state/lock.h"
#include "observe/histogram.h"
#include "observe/latency.h"

static const char *const lat_links[] = { "lat_rx", "lat_tx", "lat_xdp" };
#define N_LINKS ARRAY_SIZE(lat_links)

/* The probe's pins belong to this namespace's bridge? Pins are global. */
int xn_lat_ours(const struct xn_bridge *bridge)
{
	struct xdpnet_lat_ctl ctl = {};
	__u32 zero = 0;
	int fd = xn_pin_get(bridge, "lat_ctl"), ok;

	if (fd < 0)
		return 0;
	/* Never switched on: the namespace of the datapath's state, if any
	 * (an attach pins the probe's switch too). */
	ok = !bpf_map_lookup_elem(fd, &zero, &ctl) &&
	     (ctl.netns_ino ? ctl.netns_ino == bridge->ns.ino
			    : xn_pinned(bridge) != XN_PINNED_OTHER_NS);
	close(fd);
	return ok;
}

int xn_lat_is_on(const struct xn_bridge *bridge)
{
	unsigned int i;

	if (!xn_lat_ours(bridge))
		return 0;
	for (i = 0; i < N_LINKS; i++)
		if (!xn_pin_exists(bridge, lat_links[i]))
			return 0;
	return 1;
}

static int cmp_row(const void *a, const void *b)
{
	const struct xn_lat_row *x = a, *y = b;
	int c = strcmp(x->in, y->in);

	if (!c)
		c = strcmp(x->out, y->out);
	return c ? c : (int)x->key.path - (int)y->key.path;
}

int xn_lat_read(const struct xn_bridge *bridge, struct xn_lat_row **rows,
		int *n)
{
	int ncpu = libbpf_num_possible_cpus(), fd, err, cap = 0;
	struct xdpnet_lat_key k, nk;
	struct xdpnet_lat_hist *pc;
	struct xn_lat_row *r = NULL;

	*rows = NULL;
	*n = 0;
	if (ncpu < 0)
		return ncpu;
	if (!xn_lat_ours(bridge))
		return -ENOENT;
	fd = xn_pin_get(bridge, "lat_hist");
	if (fd < 0)
		return -ENOENT;
	pc = calloc(ncpu, sizeof(*pc));
	if (!pc) {
		close(fd);
		return -ENOMEM;
	}
	for (err = bpf_map_get_next_key(fd, NULL, &k); !err;
	     err = bpf_map_get_next_key(fd, &k, &nk), k = nk) {
		struct xn_lat_row *row;

		if (bpf_map_lookup_elem(fd, &k, pc))
			continue;
		if (*n == cap) {
			void *p = realloc(r, (cap ? cap * 2 : 16) * sizeof(*r));

			if (!p) {
				free(r);
				free(pc);
				close(fd);
				return -ENOMEM;
			}
			r = p;
			cap = cap ? cap * 2 : 16;
		}
		row = &r[(*n)++];
		memset(row, 0, sizeof(*row));
		row->key = k;
		xn_lat_sum(pc, ncpu, &row->h);
		if (!if_indextoname(k.in_ifindex, row->in))
			snprintf(row->in, sizeof(row->in), "if%u",
				 k.in_ifindex);
		if (!if_indextoname(k.out_ifindex, row->out))
			snprintf(row->out, sizeof(row->out), "if%u",
				 k.out_ifindex);
	}
	free(pc);
	close(fd);
	if (*n)
		qsort(r, *n, sizeof(*r), cmp_row);
	*rows = r;
	return 0;
}

int xn_lat_reset(const struct xn_bridge *bridge)
{
	struct xdpnet_lat_key *keys, k, nk;
	int fd, n = 0, i, err;

	if (!xn_lat_ours(bridge))
		return -ENOENT;
	fd = xn_pin_get(bridge, "lat_hist");
	if (fd < 0)
		return -ENOENT;
	keys = calloc(XDPNET_LAT_MAX_PAIRS, sizeof(*keys));
	if (!keys) {
		close(fd);
		return -ENOMEM;
	}
	for (err = bpf_map_get_next_key(fd, NULL, &k);
	     !err && n < XDPNET_LAT_MAX_PAIRS;
	     err = bpf_map_get_next_key(fd, &k, &nk), k = nk)
		keys[n++] = k;
	for (i = 0; i < n; i++)
		bpf_map_delete_elem(fd, &keys[i]);
	free(keys);
	close(fd);
	return 0;
}

/* lat_ports := the bridge's ports now. */
static int ports_sync(int fd, __u32 bridge_ifindex, int *count)
{
	struct xn_link *ports = NULL;
	__u32 key, next, *gone;
	int np = 0, i, err, ngone = 0;
	__u32 one = 1;

	err = xn_list_ports(bridge_ifindex, &ports, &np);
	if (err)
		return err;
	for (i = 0; i < np; i++)
		if (bpf_map_update_elem(fd, &ports[i].ifindex, &one, BPF_ANY)) {
			err = -errno;
			free(ports);
			return err;
		}
	gone = calloc(XDPNET_MAX_PORTS, sizeof(*gone));
	if (!gone) {
		free(ports);
		return -ENOMEM;
	}
	for (err = bpf_map_get_next_key(fd, NULL, &key);
	     !err && ngone < XDPNET_MAX_PORTS;
	     err = bpf_map_get_next_key(fd, &key, &next), key = next) {
		int found = 0;

		for (i = 0; i < np && !found; i++)
			found = ports[i].ifindex == key;
		if (!found)
			gone[ngone++] = key;
	}
	for (i = 0; i < ngone; i++)
		bpf_map_delete_elem(fd, &gone[i]);
	*count = np;
	free(gone);
	free(ports);
	return 0;
}

static void set_ctl(int fd, __u32 on, const struct xn_bridge *bridge)
{
	struct xdpnet_lat_ctl ctl = {
		.on = on,
		.bridge_ifindex = bridge->link.ifindex,
		.netns_ino = bridge->ns.ino,
	};
	__u32 zero = 0;

	bpf_map_update_elem(fd, &zero, &ctl, 0);
}

/* Tell an attached datapath whether to mark frames for the probe
 * (xdpnet_cfg.lat_on; reconcile keeps it equal to lat_ctl.on). */
static void datapath_mark(const struct xn_bridge *bridge, __u32 on)
{
	struct xdpnet_cfg c;
	struct xn_state st;
	int lk;

	if (xn_state_open(&st, bridge))
		return;
	lk = xn_lock(bridge, 30);
	if (!xn_cfg_read(&st, &c) && c.lat_on != on) {
		c.lat_on = on;
		xn_cfg_write(&st, &c);
	}
	xn_unlock(lk);
	xn_state_close(&st);
}

static void links_remove(const struct xn_bridge *bridge)
{
	unsigned int i;

	for (i = 0; i < N_LINKS; i++)
		xn_pin_unlink(bridge, lat_links[i]);
}

/* Reuse a pinned map of the bridge if there is one. 1 if reused. */
static int reuse(struct bpf_map *m, const struct xn_bridge *bridge,
		 const char *leaf)
{
	int fd = xn_pin_get(bridge, leaf), err;

	if (fd < 0)
		return 0;
	err = bpf_map__reuse_fd(m, fd);
	close(fd);
	return !err;
}

int xn_lat_on(const struct xn_bridge *bridge)
{
	struct xdpnet_lat_bpf *skel;
	struct bpf_link *l[N_LINKS] = {};
	struct {
		struct bpf_map *m;
		const char *leaf;
		int reused;
	} maps[4];
	const char *env = getenv("XDPNET_LAT_NO_REDIRECTED");
	int err, nports = 0, fd;
	unsigned int i;

	if (xn_lat_is_on(bridge)) {
		fd = xn_pin_get(bridge, "lat_ports");
		err = fd < 0 ? -ENOENT
			     : ports_sync(fd, bridge->link.ifindex, &nports);
		if (fd >= 0)
			close(fd);
		if (err) {
			xn_err("cannot update the probe's ports: %s",
			       strerror(-err));
			return -XN_FAILED;
		}
		fd = xn_pin_get(bridge, "lat_ctl");
		if (fd >= 0) {
			set_ctl(fd, 1, bridge);
			close(fd);
		}
		datapath_mark(bridge, 1);
		xn_info("xdpnet: latency probe already on for %s (%d port%s)",
			bridge->name, nports, nports == 1 ? "" : "s");
		return 0;
	}
	links_remove(bridge); /* a half-done earlier "on" */

	skel = xdpnet_lat_bpf__open();
	if (!skel) {
		xn_err("cannot open the latency probe's BPF object: %s",
		       strerror(errno));
		return -XN_BPF_REFUSED;
	}
	skel->rodata->cfg_netns_ino = bridge->ns.ino;
	skel->rodata->cfg_use_redirected = !(env && *env && strcmp(env, "0"));
	maps[0].m = skel->maps.lat_ctl;
	maps[0].leaf = "lat_ctl";
	maps[1].m = skel->maps.lat_cpu;
	maps[1].leaf = "lat_cpu";
	maps[2].m = skel->maps.lat_hist;
	maps[2].leaf = "lat_hist";
	maps[3].m = skel->maps.lat_ports;
	maps[3].leaf = "lat_ports";
	for (i = 0; i < 4; i++)
		maps[i].reused = reuse(maps[i].m, bridge, maps[i].leaf);
	err = xdpnet_lat_bpf__load(skel);
	if (err) {
		xn_err("the kernel refused the latency probe (%s); it needs "
		       "BTF and tp_btf tracepoints (-vv shows the verifier "
		       "log)",
		       strerror(-err));
		xdpnet_lat_bpf__destroy(skel);
		return -XN_BPF_REFUSED;
	}
	err = 0;
	for (i = 0; i < 4 && !err; i++)
		if (!maps[i].reused)
			err = xn_pin_obj(bpf_map__fd(maps[i].m), bridge,
					 maps[i].leaf);
	if (!err)
		err = ports_sync(bpf_map__fd(skel->maps.lat_ports),
				 bridge->link.ifindex, &nports);
	if (!err) {
		l[0] = bpf_program__attach(skel->progs.xdpnet_lat_rx);
		l[1] = bpf_program__attach(skel->progs.xdpnet_lat_tx);
		l[2] = bpf_program__attach(skel->progs.xdpnet_lat_xdp);
		for (i = 0; i < N_LINKS && !err; i++)
			err = l[i] ? xn_pin_obj(bpf_link__fd(l[i]), bridge,
						lat_links[i])
				   : -errno;
	}
	if (!err) {
		set_ctl(bpf_map__fd(skel->maps.lat_ctl), 1, bridge);
		datapath_mark(bridge, 1);
	}
	for (i = 0; i < N_LINKS; i++)
		bpf_link__destroy(l[i]); /* the pins hold them */
	xdpnet_lat_bpf__destroy(skel);
	if (err) {
		links_remove(bridge);
		xn_err("cannot switch the latency probe on: %s",
		       strerror(-err));
		return -XN_FAILED;
	}
	xn_info("xdpnet: latency probe on for %s (%d port%s); see 'xdpnet "
		"stats %s --latency'",
		bridge->name, nports, nports == 1 ? "" : "s", bridge->name);
	return 0;
}

int xn_lat_off(const struct xn_bridge *bridge)
{
	int fd;

	if (!xn_pin_exists(bridge, "lat_ctl") &&
	    !xn_pin_exists(bridge, "lat_rx")) {
		xn_info("xdpnet: latency probe is not on for %s; nothing to do",
			bridge->name);
		return 0;
	}
	/* Datapath first: it stops marking frames, then the probe goes. */
	fd = xn_pin_get(bridge, "lat_ctl");
	if (fd >= 0) {
		struct xdpnet_lat_ctl ctl = {};
		__u32 zero = 0;

		if (!bpf_map_lookup_elem(fd, &zero, &ctl)) {
			ctl.on = 0;
			bpf_map_update_elem(fd, &zero, &ctl, 0);
		}
		close(fd);
	}
	datapath_mark(bridge, 0);
	links_remove(bridge);
	xn_info("xdpnet: latency probe off for %s; the histograms stay until "
		"'xdpnet stats %s --reset' or detach",
		bridge->name, bridge->name);
	return 0;
}

/* What is pinned under the bridge's name is ours to use: 0, or -XN_FAILED
 * after a one-line error. */
static int lat_ready(const struct xn_bridge *br)
{
	enum xn_pinned p = xn_pinned(br);

	if (p >= XN_PINNED_OTHER_NS)
		return xn_pinned_refuse(br, p);
	if (xn_pin_exists(br, "lat_ctl") && !xn_lat_ours(br)) {
		xn_err("%s holds the state of a bridge named %s in another "
		       "network namespace",
		       br->path.pins, br->name);
		return -XN_FAILED;
	}
	return 0;
}

int xn_lat_get(const struct xn_bridge *br, int *on)
{
	int err = lat_ready(br);

	*on = !err && xn_lat_is_on(br);
	return err;
}

int xn_lat_set(const struct xn_bridge *br, int on)
{
	char dir[256];
	int err = lat_ready(br);

	if (err)
		return err;
	if (!on)
		return xn_lat_off(br);
	if (xn_pin_mkdir(br, dir, sizeof(dir)))
		return -XN_FAILED;
	return xn_lat_on(br);
}
