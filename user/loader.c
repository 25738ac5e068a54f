// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * attach / detach / status / fdb.
 *
 * Everything xdpnet creates for a bridge is pinned under
 * /sys/fs/bpf/xdpnet/BRIDGE/: the maps, the two programs, one link per
 * port and stage (tc_IFINDEX, xdp_IFINDEX) and the tracepoint links. The
 * datapath needs no process: the CLI can exit, crash or be upgraded and
 * forwarding goes on. Detach removes the pin directory and with it every
 * hook.
 *
 * Order matters for connectivity: attach fills the maps before it hooks
 * any port, and hooks TC before XDP; detach unhooks XDP, then TC, then
 * drops the maps. A frame is always either bypassed or bridged.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_bridge.h>
#include <linux/if_link.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include "xdpnet.h"
#include "xdpnet.skel.h"
#include "util.h"
#include "nl.h"
#include "format.h"
#include "loader.h"

/* Not in the 6.1 UAPI headers that Debian 12 ships. */
#ifndef BPF_TCX_INGRESS
#define BPF_TCX_INGRESS 46
#endif

#define XDPNET_VERSION 1
#define TC_CLSACT_HANDLE 1
#define TC_CLSACT_PRIO 0xfe58
#define BR_STATE_BLOCKING_ 4

static const char *const map_pins[] = { "fdb",	 "ports", "vlans",   "tx_ports",
					"stats", "meta",  "lat_ctl", "lat_cpu" };
#define N_MAPS (sizeof(map_pins) / sizeof(map_pins[0]))

/* An attached (or being attached) bridge. */
struct br {
	char name[IF_NAMESIZE];
	struct xn_link link;
	int map_fd[N_MAPS];
	int prog_tc, prog_xdp;
	struct xdpnet_meta meta;
};

enum { M_FDB, M_PORTS, M_VLANS, M_TX, M_STATS, M_META, M_LAT_CTL, M_LAT_CPU };

/* Maps the latency probe shares with the datapath: "xdpnet latency on"
 * may have pinned them before the bridge was attached (user/latency.c). */
static int lat_shared(unsigned int i)
{
	return i == M_LAT_CTL || i == M_LAT_CPU;
}

static void br_close(struct br *b)
{
	unsigned int i;

	for (i = 0; i < N_MAPS; i++)
		if (b->map_fd[i] > 0)
			close(b->map_fd[i]);
	if (b->prog_tc > 0)
		close(b->prog_tc);
	if (b->prog_xdp > 0)
		close(b->prog_xdp);
	memset(b->map_fd, 0, sizeof(b->map_fd));
	b->prog_tc = b->prog_xdp = 0;
}

static int pin_exists(const char *bridge, const char *leaf)
{
	char path[256];

	return !xn_pin_path(path, sizeof(path), bridge, leaf) &&
	       !access(path, F_OK);
}

static int pin_obj(int fd, const char *bridge, const char *leaf)
{
	char path[256];

	if (xn_pin_path(path, sizeof(path), bridge, leaf))
		return -ENAMETOOLONG;
	return bpf_obj_pin(fd, path) ? -errno : 0;
}

static void pin_unlink(const char *bridge, const char *leaf)
{
	char path[256];

	if (!xn_pin_path(path, sizeof(path), bridge, leaf))
		unlink(path);
}

/* Open the pinned state of an attached bridge. 0, or XN_ENOTATTACHED. */
static int br_open_pinned(struct br *b, const char *bridge)
{
	__u32 zero = 0;
	unsigned int i;

	/* b->link is the caller's: keep it. */
	memset(b->map_fd, 0, sizeof(b->map_fd));
	memset(&b->meta, 0, sizeof(b->meta));
	b->prog_tc = b->prog_xdp = 0;
	if (bridge != b->name)
		snprintf(b->name, sizeof(b->name), "%s", bridge);
	for (i = 0; i < N_MAPS; i++) {
		b->map_fd[i] = xn_pin_get(bridge, map_pins[i]);
		if (b->map_fd[i] < 0) {
			b->map_fd[i] = 0;
			br_close(b);
			return XN_ENOTATTACHED;
		}
	}
	b->prog_tc = xn_pin_get(bridge, "prog_tc");
	b->prog_xdp = xn_pin_get(bridge, "prog_xdp");
	if (b->prog_tc < 0 || b->prog_xdp < 0 ||
	    bpf_map_lookup_elem(b->map_fd[M_META], &zero, &b->meta)) {
		br_close(b);
		return XN_ENOTATTACHED;
	}
	return 0;
}

/* Pins are global, bridges live in a network namespace: tell them apart. */
static int same_netns(const struct br *b)
{
	return !b->meta.netns_ino || b->meta.netns_ino == xn_netns_ino();
}

static int root_check(void)
{
	if (geteuid() != 0) {
		xn_err("must run as root (needs CAP_BPF, CAP_NET_ADMIN and "
		       "CAP_SYS_ADMIN)");
		return XN_EPERM;
	}
	return 0;
}

static __u64 refresh_ns_for(const struct xn_link *br)
{
	/* ageing_time in centiseconds; refresh four times per ageing period
	 * so that a lost frame or a busy CPU never lets an entry expire. */
	__u64 ns = (__u64)br->ageing_time_cs * 10000000ULL / 4;

	if (!br->ageing_time_cs)
		return 0;
	return ns < 100000000ULL ? 100000000ULL : ns;
}

/* ---------------------------------------------------------------- load */

static int load_fresh(struct br *b, unsigned int mode, int strict)
{
	struct xdpnet_bpf *skel;
	struct bpf_map *maps[N_MAPS];
	int err, tracing = 1;
	__u32 zero = 0;
	unsigned int i;
	char dir[256];

again:
	skel = xdpnet_bpf__open();
	if (!skel) {
		xn_err("cannot open the BPF object: %s", strerror(errno));
		return XN_ENOBPF;
	}
	skel->rodata->cfg_refresh_ns = refresh_ns_for(&b->link);
	skel->rodata->cfg_vlan_filtering = !!b->link.vlan_filtering;
	skel->rodata->cfg_learning = !strict;
	skel->rodata->cfg_strict_src = !!strict;
	skel->rodata->cfg_netns_ino = xn_netns_ino();
	if (!tracing) {
		bpf_program__set_autoload(skel->progs.xdpnet_redirect_err, 0);
		bpf_program__set_autoload(skel->progs.xdpnet_devmap_xmit, 0);
	}
	for (i = M_LAT_CTL; i <= M_LAT_CPU; i++) {
		int fd = xn_pin_get(b->name, map_pins[i]);
		struct bpf_map *m = i == M_LAT_CTL ? skel->maps.lat_ctl
						   : skel->maps.lat_cpu;

		if (fd >= 0) {
			bpf_map__reuse_fd(m, fd);
			close(fd);
		}
	}
	err = xdpnet_bpf__load(skel);
	if (err && tracing) {
		/* Feature probe: try again without the tp_btf programs. */
		xn_debug("load failed (%d), retrying without tracing", err);
		xdpnet_bpf__destroy(skel);
		tracing = 0;
		goto again;
	}
	if (err) {
		xn_err("the kernel refused the BPF programs (%s); needs BPF, "
		       "BTF and tc/XDP support (-vv shows the verifier log)",
		       strerror(-err));
		xdpnet_bpf__destroy(skel);
		return XN_ENOBPF;
	}

	if (xn_pin_path(dir, sizeof(dir), b->name, NULL) ||
	    (mkdir(XDPNET_PIN_ROOT, 0700) && errno != EEXIST) ||
	    (mkdir(dir, 0700) && errno != EEXIST)) {
		xn_err("cannot create %s: %s", dir, strerror(errno));
		xdpnet_bpf__destroy(skel);
		return XN_ERR;
	}
	maps[M_FDB] = skel->maps.fdb;
	maps[M_PORTS] = skel->maps.ports;
	maps[M_VLANS] = skel->maps.vlans;
	maps[M_TX] = skel->maps.tx_ports;
	maps[M_STATS] = skel->maps.stats;
	maps[M_META] = skel->maps.meta;
	maps[M_LAT_CTL] = skel->maps.lat_ctl;
	maps[M_LAT_CPU] = skel->maps.lat_cpu;
	err = 0;
	for (i = 0; i < N_MAPS && !err; i++)
		if (!lat_shared(i) || !pin_exists(b->name, map_pins[i]))
			err = pin_obj(bpf_map__fd(maps[i]), b->name,
				      map_pins[i]);
	if (!err)
		err = pin_obj(bpf_program__fd(skel->progs.xdpnet_tc), b->name,
			      "prog_tc");
	if (!err)
		err = pin_obj(bpf_program__fd(skel->progs.xdpnet_xdp), b->name,
			      "prog_xdp");
	if (!err && tracing) {
		struct bpf_link *l1, *l2;

		l1 = bpf_program__attach(skel->progs.xdpnet_redirect_err);
		l2 = bpf_program__attach(skel->progs.xdpnet_devmap_xmit);
		if (l1 && l2) {
			err = pin_obj(bpf_link__fd(l1), b->name,
				      "trace_redirect_err");
			if (!err)
				err = pin_obj(bpf_link__fd(l2), b->name,
					      "trace_devmap_xmit");
		} else {
			xn_debug("tracepoints not attached: redirect errors "
				 "after the XDP program returns are not "
				 "counted");
		}
		bpf_link__destroy(l1);
		bpf_link__destroy(l2);
	}
	if (err) {
		xn_err("cannot pin under %s: %s", dir, strerror(-err));
		xdpnet_bpf__destroy(skel);
		return XN_ERR;
	}
	b->meta.bridge_ifindex = b->link.ifindex;
	b->meta.mode = mode;
	b->meta.refresh_ns = skel->rodata->cfg_refresh_ns;
	b->meta.attached_at = time(NULL);
	b->meta.vlan_filtering = !!b->link.vlan_filtering;
	b->meta.version = XDPNET_VERSION;
	b->meta.netns_ino = xn_netns_ino();
	b->meta.strict_src = !!strict;
	err = bpf_map_update_elem(bpf_map__fd(skel->maps.meta), &zero, &b->meta,
				  0);
	xdpnet_bpf__destroy(skel); /* the pins hold everything */
	if (err)
		return XN_ERR;
	return br_open_pinned(b, b->name) ? XN_ERR : 0;
}

/* ----------------------------------------------------------- port hooks */

static int tc_hook_kind(void)
{
	const char *env = getenv("XDPNET_TC_HOOK"); /* tests: force clsact */

	return env && !strcmp(env, "clsact") ? XDPNET_HOOK_CLSACT
					     : XDPNET_HOOK_TCX;
}

/* Hook the TC stage on a port: a tcx link where the kernel has tcx, a
 * clsact filter otherwise. Fills port->hook. */
static int hook_tc(struct br *b, struct xdpnet_port *port)
{
	char leaf[32];
	int fd, err;

	snprintf(leaf, sizeof(leaf), "tc_%u", port->ifindex);
	if (tc_hook_kind() == XDPNET_HOOK_TCX) {
		fd = bpf_link_create(b->prog_tc, port->ifindex, BPF_TCX_INGRESS,
				     NULL);
		if (fd >= 0) {
			err = pin_obj(fd, b->name, leaf);
			close(fd);
			port->hook = XDPNET_HOOK_TCX;
			return err;
		}
		if (fd != -EINVAL && fd != -EOPNOTSUPP)
			return fd;
		xn_debug("no tcx on this kernel, using a clsact filter");
	}
	{
		DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = port->ifindex,
				    .attach_point = BPF_TC_INGRESS);
		DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts,
				    .handle = TC_CLSACT_HANDLE,
				    .priority = TC_CLSACT_PRIO,
				    .prog_fd = b->prog_tc);

		err = bpf_tc_hook_create(&hook);
		if (!err)
			port->flags |= XDPNET_PORT_OWN_CLSACT;
		else if (err != -EEXIST)
			return err;
		err = bpf_tc_attach(&hook, &opts);
		if (err)
			return err;
		port->hook = XDPNET_HOOK_CLSACT;
	}
	return 0;
}

static void unhook_tc(struct br *b, const struct xdpnet_port *port)
{
	char leaf[32];
	int fd;

	if (port->hook == XDPNET_HOOK_CLSACT) {
		DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = port->ifindex,
				    .attach_point = BPF_TC_INGRESS);
		DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts,
				    .handle = TC_CLSACT_HANDLE,
				    .priority = TC_CLSACT_PRIO);

		bpf_tc_detach(&hook, &opts);
		if (port->flags & XDPNET_PORT_OWN_CLSACT) {
			hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
			bpf_tc_hook_destroy(&hook);
		}
		return;
	}
	snprintf(leaf, sizeof(leaf), "tc_%u", port->ifindex);
	fd = xn_pin_get(b->name, leaf);
	if (fd >= 0) {
		bpf_link_detach(fd); /* fails harmlessly if the port is gone */
		close(fd);
	}
	pin_unlink(b->name, leaf);
}

static __u32 prog_id(int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	return fd > 0 && !bpf_obj_get_info_by_fd(fd, &info, &len) ? info.id : 0;
}

/* Describe whoever owns XDP on a port, with libxdp (it knows dispatchers). */
static void describe_foreign_xdp(const struct xn_link *l)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(l->ifindex);

	if (!mp || libxdp_get_error(mp)) {
		xn_info("  %s: XDP program %u already attached; leaving XDP "
			"to it, xdpnet uses the TC stage here",
			l->name, l->xdp_prog_id);
		return;
	}
	if (xdp_multiprog__is_legacy(mp)) {
		struct xdp_program *p = xdp_multiprog__main_prog(mp);

		xn_info("  %s: XDP program '%s' (id %u) already attached; "
			"xdpnet uses the TC stage here",
			l->name, p ? xdp_program__name(p) : "?",
			l->xdp_prog_id);
	} else {
		xn_info("  %s: a libxdp dispatcher (id %u) holds XDP; xdpnet "
			"uses the TC stage here",
			l->name, l->xdp_prog_id);
	}
	xdp_multiprog__close(mp);
}

/* Native XDP on a port, as a pinned link: the kernel refuses (EBUSY)
 * rather than replace a program somebody else attached. */
static void hook_xdp(struct br *b, const struct xn_link *l,
		     struct xdpnet_port *port)
{
	DECLARE_LIBBPF_OPTS(bpf_link_create_opts, opts,
			    .flags = XDP_FLAGS_DRV_MODE);
	char leaf[32];
	int fd;

	snprintf(leaf, sizeof(leaf), "xdp_%u", port->ifindex);
	if (pin_exists(b->name, leaf)) {
		port->flags |= XDPNET_PORT_XDP;
		port->tc_reason = XDPNET_TCR_NONE;
		return;
	}
	if (l->xdp_prog_id) {
		port->tc_reason = XDPNET_TCR_FOREIGN_XDP;
		port->foreign_prog_id = l->xdp_prog_id;
		describe_foreign_xdp(l);
		return;
	}
	fd = bpf_link_create(b->prog_xdp, port->ifindex, BPF_XDP, &opts);
	if (fd < 0 || pin_obj(fd, b->name, leaf)) {
		if (fd >= 0)
			close(fd);
		port->tc_reason = XDPNET_TCR_XDP_FAILED;
		xn_info("  %s: native XDP refused (%s); xdpnet uses the TC "
			"stage here",
			l->name, strerror(fd < 0 ? -fd : errno));
		return;
	}
	close(fd);
	port->flags |= XDPNET_PORT_XDP;
	port->tc_reason = XDPNET_TCR_NONE;
}

static void unhook_xdp(struct br *b, __u32 ifindex)
{
	char leaf[32];
	int fd;

	snprintf(leaf, sizeof(leaf), "xdp_%u", ifindex);
	fd = xn_pin_get(b->name, leaf);
	if (fd >= 0) {
		bpf_link_detach(fd);
		close(fd);
	}
	pin_unlink(b->name, leaf);
}

/* Remove a port from the datapath: hooks first, then the map entries. */
static void port_remove(struct br *b, const struct xdpnet_port *port)
{
	struct xdpnet_vlan_key vk = { .ifindex = port->ifindex };

	unhook_xdp(b, port->ifindex);
	unhook_tc(b, port);
	bpf_map_delete_elem(b->map_fd[M_TX], &port->ifindex);
	bpf_map_delete_elem(b->map_fd[M_PORTS], &port->ifindex);
	bpf_map_delete_elem(b->map_fd[M_STATS], &port->ifindex);
	for (vk.vid = 1; vk.vid < 4095; vk.vid++)
		bpf_map_delete_elem(b->map_fd[M_VLANS], &vk);
}

/* ------------------------------------------------------------ port sync */

static int port_kind_ok(const struct xn_link *l)
{
	return !strcmp(l->kind, "tun") || !strcmp(l->kind, "veth");
}

static int stats_init(struct br *b, __u32 ifindex)
{
	int ncpu = libbpf_num_possible_cpus();
	struct xdpnet_stats *zero;
	int err;

	if (ncpu < 0)
		return ncpu;
	zero = calloc(ncpu, sizeof(*zero));
	if (!zero)
		return -ENOMEM;
	/* Keep the counters of a port that is already there. */
	err = bpf_map_update_elem(b->map_fd[M_STATS], &ifindex, zero,
				  BPF_NOEXIST);
	free(zero);
	return err && errno != EEXIST ? -errno : 0;
}

static int vlans_load(struct br *b, const struct xn_vlan *v, int nv,
		      struct xdpnet_port *port)
{
	int i;

	for (i = 0; i < nv; i++) {
		struct xdpnet_vlan_key k = { .ifindex = v[i].ifindex,
					     .vid = v[i].vid };
		struct xdpnet_vlan_val val = {};

		if (v[i].ifindex != port->ifindex)
			continue;
		if (v[i].flags & BRIDGE_VLAN_INFO_UNTAGGED)
			val.flags |= XDPNET_VLAN_UNTAGGED;
		if (v[i].flags & BRIDGE_VLAN_INFO_PVID)
			port->pvid = v[i].vid;
		if (bpf_map_update_elem(b->map_fd[M_VLANS], &k, &val, BPF_ANY))
			return -errno;
	}
	return 0;
}

struct sync_result {
	int added, removed, changed, skipped, total;
	__u32 added_ifindex[XDPNET_MAX_PORTS];
};

/* Bring one bridge port into the datapath, or update it. */
static int port_sync(struct br *b, const struct xn_link *l,
		     const struct xn_vlan *v, int nv, struct sync_result *r)
{
	struct xdpnet_port old, port = { .ifindex = l->ifindex };
	struct bpf_devmap_val dv = { .ifindex = l->ifindex };
	int had = !bpf_map_lookup_elem(b->map_fd[M_PORTS], &l->ifindex, &old);
	int err;

	if (!strcmp(l->kind, "veth"))
		port.flags |= XDPNET_PORT_VETH;
	else
		port.flags |= XDPNET_PORT_XDP_TARGET; /* tun_xdp_xmit */
	if (l->learning)
		port.flags |= XDPNET_PORT_LEARNING;
	if (l->isolated)
		port.flags |= XDPNET_PORT_ISOLATED;
	if (l->locked)
		port.flags |= XDPNET_PORT_LOCKED;
	if (had) {
		port.hook = old.hook;
		port.flags |= old.flags & XDPNET_PORT_OWN_CLSACT;
	}
	err = vlans_load(b, v, nv, &port);
	if (!err)
		err = stats_init(b, l->ifindex);
	if (!err && bpf_map_update_elem(b->map_fd[M_TX], &l->ifindex, &dv, 0))
		err = -errno;
	/* The port entry goes in before the hook: the datapath only acts on
	 * ports it finds in the map. */
	port.tc_reason = XDPNET_TCR_MODE;
	if (!err && bpf_map_update_elem(b->map_fd[M_PORTS], &l->ifindex, &port,
					BPF_ANY))
		err = -errno;
	if (!err && !had) {
		err = hook_tc(b, &port);
		if (!err)
			r->added_ifindex[r->added++] = l->ifindex;
	}
	if (err) {
		xn_err("cannot attach to port %s: %s", l->name, strerror(-err));
		return err;
	}
	if (b->meta.mode == XDPNET_MODE_XDP)
		hook_xdp(b, l, &port);
	else
		unhook_xdp(b, l->ifindex);
	if (bpf_map_update_elem(b->map_fd[M_PORTS], &l->ifindex, &port,
				BPF_ANY))
		return -errno;
	if (had && memcmp(&old, &port, sizeof(port)))
		r->changed++;
	r->total++;
	return 0;
}

/* --strict: forget seeded entries the bridge no longer has. */
static void fdb_drop_stale(struct br *b, const struct xn_fdb_entry *e, int n)
{
	struct xdpnet_fdb_key k, nk, *gone;
	struct xdpnet_fdb_val v;
	int err, i, ngone = 0;

	gone = calloc(XDPNET_MAX_FDB, sizeof(*gone));
	if (!gone)
		return;
	for (err = bpf_map_get_next_key(b->map_fd[M_FDB], NULL, &k);
	     !err && ngone < XDPNET_MAX_FDB;
	     err = bpf_map_get_next_key(b->map_fd[M_FDB], &k, &nk), k = nk) {
		int found = 0;

		if (bpf_map_lookup_elem(b->map_fd[M_FDB], &k, &v) ||
		    !(v.flags & XDPNET_FDB_SEEDED))
			continue;
		for (i = 0; i < n && !found; i++)
			found = !memcmp(e[i].mac, k.mac, 6) &&
				(b->link.vlan_filtering ? e[i].vid : 0) ==
					k.vid;
		if (!found)
			gone[ngone++] = k;
	}
	for (i = 0; i < ngone; i++)
		bpf_map_delete_elem(b->map_fd[M_FDB], &gone[i]);
	free(gone);
}

static void fdb_seed(struct br *b, int *seeded)
{
	struct xn_fdb_entry *e = NULL;
	int n = 0, i;

	*seeded = 0;
	if (xn_dump_fdb(b->link.ifindex, &e, &n)) {
		xn_info("  warning: cannot read the bridge's FDB; the "
			"datapath will learn addresses as frames arrive");
		return;
	}
	for (i = 0; i < n; i++) {
		struct xdpnet_fdb_key k = {};
		struct xdpnet_fdb_val v = { .ifindex = e[i].ifindex };
		__u64 flags = BPF_NOEXIST;

		if (e[i].mac[0] & 1)
			continue; /* multicast / broadcast */
		/* A port's own filter list (self), not the bridge's table. */
		if ((e[i].flags & NTF_SELF) && e[i].ifindex != b->link.ifindex)
			continue;
		memcpy(k.mac, e[i].mac, 6);
		k.vid = b->link.vlan_filtering ? e[i].vid : 0;
		if (e[i].state & NUD_PERMANENT) {
			v.flags = XDPNET_FDB_LOCAL;
			flags = BPF_ANY;
		} else if (e[i].state & NUD_NOARP) {
			v.flags = XDPNET_FDB_STATIC;
			flags = BPF_ANY;
		} else {
			v.flags = XDPNET_FDB_SEEDED;
			/* --strict: the bridge's (filtered) view is the truth.
			 */
			if (b->meta.strict_src)
				flags = BPF_ANY;
		}
		if (!bpf_map_update_elem(b->map_fd[M_FDB], &k, &v, flags))
			(*seeded)++;
	}
	if (b->meta.strict_src)
		fdb_drop_stale(b, e, n);
	free(e);
}

/* Make the datapath match the bridge: add new ports, drop departed ones,
 * refresh flags and VLANs, seed the FDB. */
static int br_sync(struct br *b, struct sync_result *r, int quiet_skips)
{
	struct xn_link *ports = NULL;
	struct xn_vlan *vl = NULL;
	int np = 0, nv = 0, i, err, seeded;
	const char *fa = getenv("XDPNET_TEST_FAIL_AFTER");
	int fail_after = fa ? atoi(fa) : -1;
	__u32 key, next, *gone = NULL;
	int ngone = 0;

	memset(r, 0, sizeof(*r));
	err = xn_list_ports(b->link.ifindex, &ports, &np);
	if (!err && b->link.vlan_filtering)
		err = xn_dump_vlans(b->link.ifindex, &vl, &nv);
	if (err) {
		xn_err("cannot list the ports of %s: %s", b->name,
		       strerror(-err));
		free(ports);
		return XN_ERR;
	}
	for (i = 0; i < np; i++) {
		if (!port_kind_ok(&ports[i])) {
			if (!quiet_skips)
				xn_info("  %s: left to the bridge (a %s port; "
					"xdpnet bypasses tap and veth ports)",
					ports[i].name,
					ports[i].kind[0] ? ports[i].kind
							 : "physical");
			r->skipped++;
			continue;
		}
		if (ports[i].stp_state == BR_STATE_BLOCKING_) {
			if (!quiet_skips)
				xn_info("  %s: left to the bridge (STP "
					"blocking)",
					ports[i].name);
			r->skipped++;
			continue;
		}
		err = port_sync(b, &ports[i], vl, nv, r);
		if (!err && fail_after >= 0 && r->added > fail_after) {
			/* Tests: make a half-done attach fail here. */
			xn_err("injected failure (XDPNET_TEST_FAIL_AFTER=%d)",
			       fail_after);
			err = -EIO;
		}
		if (err)
			goto out;
	}

	/* Ports that left the bridge (or vanished). */
	gone = calloc(XDPNET_MAX_PORTS, sizeof(*gone));
	if (!gone) {
		err = -ENOMEM;
		goto out;
	}
	for (err = bpf_map_get_next_key(b->map_fd[M_PORTS], NULL, &key);
	     !err && ngone < XDPNET_MAX_PORTS;
	     err = bpf_map_get_next_key(b->map_fd[M_PORTS], &key, &next),
	    key = next) {
		int found = 0;

		for (i = 0; i < np && !found; i++)
			found = ports[i].ifindex == key &&
				port_kind_ok(&ports[i]) &&
				ports[i].stp_state != BR_STATE_BLOCKING_;
		if (!found)
			gone[ngone++] = key;
	}
	err = 0;
	for (i = 0; i < ngone; i++) {
		struct xdpnet_port p;

		if (!bpf_map_lookup_elem(b->map_fd[M_PORTS], &gone[i], &p)) {
			port_remove(b, &p);
			r->removed++;
		}
	}
	fdb_seed(b, &seeded);
	xn_debug("seeded %d FDB entries from the bridge", seeded);
out:
	free(gone);
	free(ports);
	free(vl);
	return err ? XN_ERR : 0;
}

/* ---------------------------------------------------------------- detach */

static void br_teardown(const char *bridge)
{
	struct xdpnet_port p;
	char dir[256], path[512];
	struct dirent *de;
	struct br b = {};
	__u32 key, next;
	DIR *d;
	int err;

	if (!br_open_pinned(&b, bridge)) {
		/* XDP first, then TC: each frame is bypassed or bridged. */
		for (err = bpf_map_get_next_key(b.map_fd[M_PORTS], NULL, &key);
		     !err;
		     err = bpf_map_get_next_key(b.map_fd[M_PORTS], &key, &next),
		    key = next)
			unhook_xdp(&b, key);
		for (err = bpf_map_get_next_key(b.map_fd[M_PORTS], NULL, &key);
		     !err;
		     err = bpf_map_get_next_key(b.map_fd[M_PORTS], &key, &next),
		    key = next)
			if (!bpf_map_lookup_elem(b.map_fd[M_PORTS], &key, &p))
				unhook_tc(&b, &p);
		br_close(&b);
	}
	/* Whatever is left: links of vanished ports, maps, programs. */
	if (xn_pin_path(dir, sizeof(dir), bridge, NULL))
		return;
	d = opendir(dir);
	if (d) {
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			if (!strncmp(de->d_name, "xdp_", 4) ||
			    !strncmp(de->d_name, "tc_", 3)) {
				int fd = bpf_obj_get(path);

				if (fd >= 0) {
					bpf_link_detach(fd);
					close(fd);
				}
			}
			unlink(path);
		}
		closedir(d);
	}
	rmdir(dir);
	rmdir(XDPNET_PIN_ROOT); /* only if empty */
}

int xn_detach(const struct xn_opts *o)
{
	char dir[256];
	int err = root_check();

	if (err)
		return err;
	err = xn_ensure_bpffs();
	if (err)
		return err;
	if (xn_pin_path(dir, sizeof(dir), o->bridge, NULL) ||
	    access(dir, F_OK)) {
		struct xn_link l;

		/* Nothing pinned: an unknown name is an error, as for attach;
		 * a bridge we are not on is fine. */
		if (xn_get_link(o->bridge, &l) == -ENODEV) {
			xn_err("no such device '%s'", o->bridge);
			return XN_ENOBRIDGE;
		}
		xn_info("xdpnet: %s is not attached; nothing to do", o->bridge);
		return XN_OK;
	}
	{
		struct br b = {};

		if (!br_open_pinned(&b, o->bridge) && !same_netns(&b)) {
			br_close(&b);
			xn_err("%s belongs to a bridge named %s in another "
			       "network namespace; detach it from there",
			       dir, o->bridge);
			return XN_ERR;
		}
		br_close(&b);
	}
	br_teardown(o->bridge);
	if (!access(dir, F_OK)) {
		xn_err("could not remove everything under %s", dir);
		return XN_ERR;
	}
	xn_info("xdpnet: detached from %s; the bridge forwards everything "
		"again",
		o->bridge);
	return XN_OK;
}

/* ---------------------------------------------------------------- attach */

int xn_find_bridge(const char *name, struct xn_link *l)
{
	int err = xn_get_link(name, l);

	if (err == -ENODEV) {
		xn_err("no such device '%s'", name);
		return XN_ENOBRIDGE;
	}
	if (err) {
		xn_err("cannot look up '%s': %s", name, strerror(-err));
		return err == -EPERM ? XN_EPERM : XN_ERR;
	}
	if (strcmp(l->kind, "bridge")) {
		xn_err("'%s' is not a bridge (it is a %s device); give the "
		       "bridge its VMs' taps are enslaved to, e.g. virbr0",
		       name, l->kind[0] ? l->kind : "physical");
		return XN_ENOBRIDGE;
	}
	return 0;
}

static volatile sig_atomic_t stop_follow;

static void on_signal(int sig)
{
	(void)sig;
	stop_follow = 1;
}

/* attach --follow: re-sync whenever links change (and every few seconds,
 * in case an event was lost). Exiting leaves the datapath in place. */
static int follow(struct br *b)
{
	struct sync_result *r = calloc(1, sizeof(*r));
	struct nl_sock *sk = nl_socket_alloc();
	struct pollfd pfd;

	if (!sk || !r || nl_connect(sk, NETLINK_ROUTE) ||
	    nl_socket_add_membership(sk, RTNLGRP_LINK)) {
		xn_err("cannot listen for link changes");
		free(r);
		nl_socket_free(sk);
		return XN_ERR;
	}
	nl_socket_disable_seq_check(sk);
	nl_socket_set_nonblocking(sk);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	xn_info("xdpnet: following %s (Ctrl-C to stop; the bypass stays "
		"attached)",
		b->name);
	pfd.fd = nl_socket_get_fd(sk);
	pfd.events = POLLIN;
	while (!stop_follow) {
		int ev = poll(&pfd, 1, 5000);

		if (ev > 0) {
			char buf[8192];

			/* Drain: we re-read the state, not the events. */
			while (recv(pfd.fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
				;
			usleep(100000); /* let a burst settle */
		}
		if (stop_follow)
			break;
		if (xn_get_link_by_index(b->link.ifindex, &b->link) ||
		    strcmp(b->link.kind, "bridge")) {
			xn_info("xdpnet: %s is gone; stopping", b->name);
			break;
		}
		if (br_sync(b, r, 1))
			continue;
		if (r->added || r->removed)
			xn_info("xdpnet: %s: +%d -%d ports (%d attached)",
				b->name, r->added, r->removed, r->total);
	}
	free(r);
	nl_socket_free(sk);
	return XN_OK;
}

int xn_attach(const struct xn_opts *o)
{
	struct sync_result *r;
	struct br b = {};
	int err, fresh, i;
	__u32 zero = 0;
	char dir[256];

	err = root_check();
	if (err)
		return err;
	err = xn_find_bridge(o->bridge, &b.link);
	if (err)
		return err;
	err = xn_ensure_bpffs();
	if (err)
		return err;
	r = calloc(1, sizeof(*r));
	if (!r)
		return XN_ERR;
	snprintf(b.name, sizeof(b.name), "%s", o->bridge);
	xn_pin_path(dir, sizeof(dir), b.name, NULL);
	/* State of a bridge that was deleted (libvirt reuses names): clear. */
	if (pin_exists(b.name, "meta") && !br_open_pinned(&b, b.name)) {
		struct xn_link old;
		int stale = same_netns(&b) &&
			    b.meta.bridge_ifindex != b.link.ifindex &&
			    xn_get_link_by_index(b.meta.bridge_ifindex, &old) ==
				    -ENODEV;

		br_close(&b);
		if (stale) {
			br_teardown(b.name);
			xn_info("xdpnet: removed what a deleted bridge named %s "
				"left behind",
				b.name);
		}
	}
	/* A directory without "meta" holds only the latency probe's pins. */
	fresh = !pin_exists(b.name, "meta");
	if (fresh) {
		err = load_fresh(&b, o->mode, o->strict);
		if (err) {
			br_teardown(b.name);
			free(r);
			return err;
		}
	} else {
		err = br_open_pinned(&b, b.name);
		if (err) {
			xn_err("%s holds an incomplete xdpnet state; run "
			       "'xdpnet detach %s' first",
			       dir, b.name);
			free(r);
			return XN_ERR;
		}
		if (!same_netns(&b)) {
			xn_err("%s belongs to a bridge named %s in another "
			       "network namespace",
			       dir, b.name);
			br_close(&b);
			free(r);
			return XN_ERR;
		}
		if (!b.meta.strict_src != !o->strict) {
			xn_err("%s is attached %s --strict; detach first to "
			       "change that",
			       b.name, b.meta.strict_src ? "with" : "without");
			br_close(&b);
			free(r);
			return XN_EUSAGE;
		}
		if (b.meta.bridge_ifindex != b.link.ifindex) {
			xn_err("the pinned state in %s belongs to an earlier "
			       "bridge named %s; run 'xdpnet detach %s' first",
			       dir, b.name, b.name);
			br_close(&b);
			free(r);
			return XN_ERR;
		}
	}
	{
		__u32 old_mode = b.meta.mode;

		b.meta.mode = o->mode;
		if (bpf_map_update_elem(b.map_fd[M_META], &zero, &b.meta, 0))
			err = XN_ERR;
		if (!err)
			err = br_sync(&b, r, 0);
		if (err && fresh) {
			br_close(&b);
			br_teardown(b.name);
			xn_err("attach failed; everything was rolled back");
			free(r);
			return err;
		}
		if (err) {
			/* Undo only what this run added. */
			for (i = 0; i < r->added; i++) {
				struct xdpnet_port p;

				if (!bpf_map_lookup_elem(b.map_fd[M_PORTS],
							 &r->added_ifindex[i],
							 &p))
					port_remove(&b, &p);
			}
			xn_err("attach failed; ports added by this run were "
			       "removed again");
			br_close(&b);
			free(r);
			return err;
		}
		if (fresh)
			xn_info("xdpnet: attached to %s (mode %s): %d port%s",
				b.name, xn_mode_name(b.meta.mode), r->total,
				r->total == 1 ? "" : "s");
		else if (!r->added && !r->removed && !r->changed &&
			 old_mode == b.meta.mode)
			xn_info("xdpnet: %s already attached (mode %s, %d "
				"port%s); nothing changed",
				b.name, xn_mode_name(b.meta.mode), r->total,
				r->total == 1 ? "" : "s");
		else
			xn_info("xdpnet: %s updated (mode %s): %d port%s "
				"added, %d removed, %d changed, %d attached",
				b.name, xn_mode_name(b.meta.mode), r->added,
				r->added == 1 ? "" : "s", r->removed,
				r->changed, r->total);
	}
	free(r);
	if (o->follow)
		err = follow(&b);
	br_close(&b);
	return err;
}

/* ---------------------------------------------------------------- status */

static int count_fdb(int fd)
{
	struct xdpnet_fdb_key k, nk;
	int n = 0, err;

	for (err = bpf_map_get_next_key(fd, NULL, &k); !err;
	     err = bpf_map_get_next_key(fd, &k, &nk), k = nk)
		n++;
	return n;
}

static __u32 link_prog_id(const char *bridge, const char *leaf)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	int fd = xn_pin_get(bridge, leaf);
	__u32 id = 0;

	if (fd < 0)
		return 0;
	if (!bpf_obj_get_info_by_fd(fd, &info, &len))
		id = info.prog_id;
	close(fd);
	return id;
}

static int status_one(const char *bridge, struct xn_bridge_status *s)
{
	int ncpu = libbpf_num_possible_cpus(), err, n = 0;
	struct xdpnet_stats *pc;
	__u32 key, next;
	struct br b = {};

	memset(s, 0, sizeof(*s));
	if (ncpu < 0 || br_open_pinned(&b, bridge))
		return XN_ENOTATTACHED;
	if (!same_netns(&b)) {
		br_close(&b);
		return XN_ENOTATTACHED;
	}
	snprintf(s->name, sizeof(s->name), "%s", bridge);
	s->meta = b.meta;
	s->fdb_entries = count_fdb(b.map_fd[M_FDB]);
	if (!pin_exists(bridge, "trace_redirect_err"))
		s->note_set = 1;
	{
		struct xn_link l;

		s->gone = xn_get_link_by_index(b.meta.bridge_ifindex, &l) ==
				  -ENODEV ||
			  strcmp(l.name, bridge);
	}
	pc = calloc(ncpu, sizeof(*pc));
	s->ports = calloc(XDPNET_MAX_PORTS, sizeof(*s->ports));
	if (!pc || !s->ports) {
		free(pc);
		br_close(&b);
		return XN_ERR;
	}
	for (err = bpf_map_get_next_key(b.map_fd[M_PORTS], NULL, &key);
	     !err && n < XDPNET_MAX_PORTS;
	     err = bpf_map_get_next_key(b.map_fd[M_PORTS], &key, &next),
	    key = next) {
		struct xn_port_row *p = &s->ports[n];
		char leaf[32];

		if (bpf_map_lookup_elem(b.map_fd[M_PORTS], &key, &p->port))
			continue;
		if (!if_indextoname(key, p->name))
			snprintf(p->name, sizeof(p->name), "(gone)");
		snprintf(leaf, sizeof(leaf), "tc_%u", key);
		p->tc_prog_id = p->port.hook == XDPNET_HOOK_CLSACT
					? prog_id(b.prog_tc)
					: link_prog_id(bridge, leaf);
		snprintf(leaf, sizeof(leaf), "xdp_%u", key);
		p->xdp_prog_id = link_prog_id(bridge, leaf);
		if (!bpf_map_lookup_elem(b.map_fd[M_STATS], &key, pc))
			xn_sum_stats(pc, ncpu, &p->st);
		n++;
	}
	s->nports = n;
	free(pc);
	br_close(&b);
	return 0;
}

static int cmp_port(const void *a, const void *b)
{
	return strcmp(((const struct xn_port_row *)a)->name,
		      ((const struct xn_port_row *)b)->name);
}

int xn_status(const struct xn_opts *o)
{
	struct xn_bridge_status *s = NULL;
	int n = 0, i, err = root_check();
	struct dirent *de;
	DIR *d;

	if (err)
		return err;
	err = xn_ensure_bpffs();
	if (err)
		return err;
	s = calloc(64, sizeof(*s));
	if (!s)
		return XN_ERR;
	if (o->bridge) {
		err = status_one(o->bridge, &s[0]);
		if (err == XN_ENOTATTACHED)
			xn_err("xdpnet is not attached to %s (try 'xdpnet "
			       "attach %s')",
			       o->bridge, o->bridge);
		n = !err;
	} else if ((d = opendir(XDPNET_PIN_ROOT))) {
		while ((de = readdir(d)) && n < 64)
			if (de->d_name[0] != '.' &&
			    !status_one(de->d_name, &s[n]))
				n++;
		closedir(d);
	}
	for (i = 0; i < n; i++)
		qsort(s[i].ports, s[i].nports, sizeof(*s[i].ports), cmp_port);
	if (!err) {
		if (!n && !o->json)
			printf("xdpnet is not attached to any bridge\n");
		else
			xn_print_status(stdout, s, n, o->json);
	}
	for (i = 0; i < n; i++)
		free(s[i].ports);
	free(s);
	return err;
}

/* ------------------------------------------------------------------- fdb */

static int cmp_fdb(const void *a, const void *b)
{
	const struct xn_fdb_row *x = a, *y = b;
	int c = strcmp(x->port, y->port);

	if (c)
		return c;
	c = memcmp(x->key.mac, y->key.mac, 6);
	return c ? c : (int)x->key.vid - (int)y->key.vid;
}

int xn_fdb(const struct xn_opts *o)
{
	struct xn_fdb_row *rows;
	struct xdpnet_fdb_key k, nk;
	struct timespec ts;
	int n = 0, err = root_check();
	struct br b = {};

	if (err)
		return err;
	err = xn_ensure_bpffs();
	if (err)
		return err;
	if (br_open_pinned(&b, o->bridge) || !same_netns(&b)) {
		br_close(&b);
		xn_err("xdpnet is not attached to %s (try 'xdpnet attach %s')",
		       o->bridge, o->bridge);
		return XN_ENOTATTACHED;
	}
	rows = calloc(XDPNET_MAX_FDB, sizeof(*rows));
	if (!rows) {
		br_close(&b);
		return XN_ERR;
	}
	for (err = bpf_map_get_next_key(b.map_fd[M_FDB], NULL, &k);
	     !err && n < XDPNET_MAX_FDB;
	     err = bpf_map_get_next_key(b.map_fd[M_FDB], &k, &nk), k = nk) {
		if (bpf_map_lookup_elem(b.map_fd[M_FDB], &k, &rows[n].val))
			continue;
		rows[n].key = k;
		if (!if_indextoname(rows[n].val.ifindex, rows[n].port))
			rows[n].port[0] = 0;
		n++;
	}
	qsort(rows, n, sizeof(*rows), cmp_fdb);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	xn_print_fdb(stdout, o->bridge, rows, n,
		     (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec, o->json);
	free(rows);
	br_close(&b);
	return XN_OK;
}
