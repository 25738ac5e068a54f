// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Bridge model -> datapath maps and hooks: see reconcile.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP (1 << 16) /* linux/if.h, which clashes with net/if.h */
#endif
#include <linux/if_bridge.h>
#include <linux/neighbour.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "lib/log.h"
#include "state/pins.h"
#include "datapath/jiffies.h"
#include "datapath/names.h"
#include "datapath/hooks.h"
#include "sync/reconcile.h"

/* ------------------------------------------------------------ helpers */

/* The bridge's settings, read again. -ENODEV when its ifindex is gone or
 * names something else now; *br (its name: the pins' directory) is then
 * left as it was, for the caller to remove what it had attached. */
static int bridge_reread(struct xn_link *br)
{
	struct xn_link now;
	int err;

	err = xn_get_link_by_index(br->ifindex, &now);
	if (!err && strcmp(now.kind, "bridge"))
		err = -ENODEV;
	if (!err)
		*br = now;
	return err;
}

static int ports_read(struct xn_state *s, struct xdpnet_port *all)
{
	__u32 slot;

	memset(all, 0, sizeof(*all) * XDPNET_MAX_PORTS);
	for (slot = 1; slot < XDPNET_MAX_PORTS; slot++)
		if (bpf_map_lookup_elem(s->fd[XM_PORTS], &slot, &all[slot]))
			return -errno;
	return 0;
}

static __u32 slot_of(const struct xdpnet_port *all, __u32 ifindex)
{
	__u32 slot;

	for (slot = 1; slot < XDPNET_MAX_PORTS; slot++)
		if (all[slot].ifindex == ifindex)
			return slot;
	return 0;
}

/* A slot changed hands (xdpnet_cfg.port_gen: FDB entries' slot hints). */
static int port_gen_bump(struct xn_state *s)
{
	struct xdpnet_cfg c;
	int err = xn_cfg_read(s, &c);

	if (err)
		return err;
	c.port_gen++;
	return xn_cfg_write(s, &c);
}

static int stats_zero(struct xn_state *s, __u32 slot)
{
	int ncpu = libbpf_num_possible_cpus(), err;
	struct xdpnet_stats *z;

	if (ncpu < 0)
		return ncpu;
	z = calloc(ncpu, sizeof(*z));
	if (!z)
		return -ENOMEM;
	err = bpf_map_update_elem(s->fd[XM_STATS], &slot, z, 0) ? -errno : 0;
	free(z);
	return err;
}

static int port_put(struct xn_state *s, __u32 slot, const struct xdpnet_port *p)
{
	if (bpf_map_update_elem(s->fd[XM_PORTS], &slot, p, 0))
		return -errno;
	xn_gen_bump(s);
	return 0;
}

/* A port's VLAN entries: exactly those in v (of this ifindex). */
static int vlans_sync(struct xn_state *s, __u32 ifindex,
		      const struct xn_vlan *v, int nv, __u16 *pvid)
{
	struct xdpnet_vlan_key k, nk, *gone = NULL;
	int i, ngone = 0, cap = 0, err;

	*pvid = 0;
	for (i = 0; i < nv; i++) {
		struct xdpnet_vlan_key key = { .ifindex = ifindex,
					       .vid = v[i].vid };
		struct xdpnet_vlan_val val = {};

		if (v[i].ifindex != ifindex)
			continue;
		if (v[i].flags & BRIDGE_VLAN_INFO_UNTAGGED)
			val.flags |= XDPNET_VLAN_UNTAGGED;
		if (v[i].flags & BRIDGE_VLAN_INFO_PVID)
			*pvid = v[i].vid;
		if (v[i].state != BR_STATE_FORWARDING)
			val.flags |= XDPNET_VLAN_HELD;
		if (bpf_map_update_elem(s->fd[XM_VLANS], &key, &val, 0))
			return -errno;
	}
	for (err = bpf_map_get_next_key(s->fd[XM_VLANS], NULL, &k); !err;
	     err = bpf_map_get_next_key(s->fd[XM_VLANS], &k, &nk), k = nk) {
		int keep = 0;

		if (k.ifindex != ifindex)
			continue;
		for (i = 0; i < nv && !keep; i++)
			keep = v[i].ifindex == ifindex && v[i].vid == k.vid;
		if (keep)
			continue;
		if (ngone == cap) {
			void *p = realloc(gone,
					  (cap = cap * 2 + 16) * sizeof(*gone));

			if (!p)
				break;
			gone = p;
		}
		gone[ngone++] = k;
	}
	for (i = 0; i < ngone; i++)
		bpf_map_delete_elem(s->fd[XM_VLANS], &gone[i]);
	free(gone);
	/* No bump: nothing is cached while the bridge filters VLANs (its
	 * switch is in cfg, whose writes bump). */
	return 0;
}

/* Out of the datapath: hooks first, then no redirects into it, then the
 * slot is free. */
static void port_drop(struct xn_state *s, __u32 slot, struct xdpnet_port *p)
{
	struct xdpnet_port zero = {};
	__u16 pvid;

	xn_unhook_xdp(s, p->ifindex);
	xn_unhook_tc(s, p);
	p->flags &= ~(XDPNET_PORT_FWD | XDPNET_PORT_XDP_TARGET);
	port_put(s, slot, p);
	bpf_map_delete_elem(s->fd[XM_TX], &slot);
	bpf_map_delete_elem(s->fd[XM_PORT_IDX], &p->ifindex);
	vlans_sync(s, p->ifindex, NULL, 0, &pvid);
	port_put(s, slot, &zero);
	port_gen_bump(s);
	*p = zero;
}

/*
 * Bring one port into the datapath, update it, or take it out. all is the
 * snapshot of ports[], kept current.
 */
static int port_apply(struct xn_state *s, struct xdpnet_port *all,
		      const struct xn_link *br, const struct xn_link *l,
		      const struct xn_policy *pol, const struct xn_vlan *v,
		      int nv, struct xn_sync *r, int quiet)
{
	__u32 slot = slot_of(all, l->ifindex);
	struct xdpnet_port w, cur;
	int err, fresh = 0;

	if (!xn_port_want(br, l, pol, &w)) {
		if (slot) {
			port_drop(s, slot, &all[slot]);
			r->removed++;
			if (!quiet)
				xn_info("  %s: no longer carried", l->name);
		}
		return 0;
	}
	if (!slot) {
		for (slot = 1; slot < XDPNET_MAX_PORTS && all[slot].ifindex;
		     slot++)
			;
		if (slot == XDPNET_MAX_PORTS) {
			xn_err("cannot carry %s: %d ports already", l->name,
			       XDPNET_MAX_PORTS - 1);
			return -ENOSPC;
		}
		fresh = 1;
	}
	cur = all[slot];
	w.hook = cur.hook;
	w.tc_reason = cur.tc_reason;
	w.foreign_prog_id = cur.foreign_prog_id;
	/* What the hooks are stays until they are looked at (below): the
	 * entry written before them must say what runs. */
	w.flags |= cur.flags & (XDPNET_PORT_OWN_CLSACT | XDPNET_PORT_XDP |
				XDPNET_PORT_XDP_MULTI);
	err = vlans_sync(s, l->ifindex, v, nv, &w.pvid);
	if (!err && fresh)
		err = stats_zero(s, slot);
	/* The entry goes in before the hook: the datapath only acts on
	 * ports it finds in the map. (Unchanged, it is not written: each
	 * write makes every cached decision anew.) */
	if (!err && (fresh || memcmp(&w, &cur, sizeof(w))))
		err = port_put(s, slot, &w);
	if (!err &&
	    bpf_map_update_elem(s->fd[XM_PORT_IDX], &l->ifindex, &slot, 0))
		err = -errno;
	if (!err) {
		struct bpf_devmap_val dv = { .ifindex = l->ifindex };

		if (w.flags & XDPNET_PORT_XDP_TARGET)
			err = bpf_map_update_elem(s->fd[XM_TX], &slot, &dv, 0)
				      ? -errno
				      : 0;
		else
			bpf_map_delete_elem(s->fd[XM_TX], &slot);
	}
	if (!err && fresh)
		err = port_gen_bump(s);
	if (!err)
		err = xn_hook_tc(s, &w);
	if (err == -ENODEV) {
		/* It vanished while we worked on it (its RTM_DELLINK is on its
		 * way): not carried, and not an error of the whole run. */
		if (!quiet)
			xn_info("  %s: vanished", l->name);
		all[slot] = fresh ? w : cur;
		port_drop(s, slot, &all[slot]);
		r->removed += !fresh;
		return 0;
	}
	if (err) {
		xn_err("cannot attach to port %s: %s", l->name, strerror(-err));
		if (fresh) {
			all[slot] = w;
			port_drop(s, slot, &all[slot]);
		}
		return err;
	}
	if (s->meta.mode == XDPNET_MODE_XDP) {
		xn_hook_xdp(s, l, &w);
	} else {
		xn_unhook_xdp(s, l->ifindex);
		w.flags &= ~XDPNET_PORT_XDP;
		w.tc_reason = XDPNET_TCR_MODE;
	}
	if (memcmp(&w, &all[slot], sizeof(w))) {
		err = port_put(s, slot, &w);
		if (err)
			return err;
		if (!fresh) {
			r->changed++;
			if (!quiet && w.hold != cur.hold)
				xn_info("  %s: %s", l->name,
					w.hold ? xn_hold_text(w.hold)
					       : "forwarding: bypassed");
		}
	}
	all[slot] = w;
	if (fresh) {
		r->added_ifindex[r->added++] = l->ifindex;
		if (!quiet)
			xn_info("  %s: carried (%s%s%s)", l->name,
				w.flags & XDPNET_PORT_XDP ? "xdp+tc" : "tc",
				w.hold ? "; held: " : "", xn_hold_text(w.hold));
	}
	r->total++;
	if (w.hold)
		r->held++;
	return 0;
}

/* neigh_proxy: xn_ports_neigh_proxy() of the bridge's ports, or -1: of
 * the ports listed now, if the bridge is held by a hold that ranks above
 * the filters' (which a port's proxy_arp would have set, or hides); none
 * or the filters' hold: no port has it. */
static int cfg_apply(struct xn_state *s, const struct xn_link *br,
		     const struct xn_policy *pol, int neigh_proxy, int quiet)
{
	struct xdpnet_cfg cur, want;
	int err = xn_cfg_read(s, &cur);

	if (err)
		return err;
	if (neigh_proxy < 0) {
		struct xn_link *ports = NULL;
		int np = 0;

		neigh_proxy = 0;
		if (cur.hold != XDPNET_BHOLD_NONE &&
		    cur.hold != XDPNET_BHOLD_FILTERS &&
		    cur.hold != XDPNET_BHOLD_UNKNOWN) {
			err = xn_list_ports(br->ifindex, &ports, &np);
			if (err)
				return err;
			neigh_proxy = xn_ports_neigh_proxy(ports, np);
			free(ports);
		}
	}
	if (!cur.hz)
		cur.hz = xn_measure_hz(s);
	if (!cur.hz)
		return -EIO;
	xn_cfg_want(br, neigh_proxy, pol, &cur, &want);
	{
		/* The latency probe's switch (it may be on before attach). */
		struct xdpnet_lat_ctl ctl = {};
		__u32 zero = 0;

		if (!bpf_map_lookup_elem(s->fd[XM_LAT_CTL], &zero, &ctl))
			want.lat_on = !!ctl.on;
	}
	if (!memcmp(&cur, &want, sizeof(cur)))
		return 0;
	if (!quiet && cur.bridge_ifindex && cur.hold != want.hold)
		xn_info("  %s: bypass %s", br->name,
			want.bypass ? "on" : xn_bridge_hold_text(want.hold));
	return xn_cfg_write(s, &want);
}

/* --------------------------------------------------------- reconcile */

int xn_reconcile(struct xn_state *s, struct xn_link *br,
		 const struct xn_policy *pol, struct xn_sync *r, int flags)
{
	int quiet = flags & XN_RC_QUIET;
	const char *fa = getenv("XDPNET_TEST_FAIL_AFTER");
	int fail_after = fa ? atoi(fa) : -1;
	struct xdpnet_port *all = NULL;
	struct xn_link *ports = NULL;
	struct xn_vlan *vl = NULL;
	int np = 0, nv = 0, i, err;
	__u32 slot;

	memset(r, 0, sizeof(*r));
	err = bridge_reread(br);
	if (!err)
		err = xn_list_ports(br->ifindex, &ports, &np);
	if (!err && br->vlan_filtering)
		err = xn_dump_vlans(br->ifindex, &vl, &nv);
	all = calloc(XDPNET_MAX_PORTS, sizeof(*all));
	if (!err && !all)
		err = -ENOMEM;
	if (!err)
		err = ports_read(s, all);
	if (!err)
		err = cfg_apply(s, br, pol, xn_ports_neigh_proxy(ports, np),
				quiet);
	for (i = 0; !err && i < np; i++) {
		if ((flags & XN_RC_NO_ADD) && !slot_of(all, ports[i].ifindex))
			continue;
		err = port_apply(s, all, br, &ports[i], pol, vl, nv, r, quiet);
		if (!err && !(flags & XN_RC_NO_ADD) && fail_after >= 0 &&
		    r->added > fail_after) {
			/* Tests: make a half-done attach fail here. */
			xn_err("injected failure (XDPNET_TEST_FAIL_AFTER=%d)",
			       fail_after);
			err = -EIO;
		}
	}
	/* Ports that left the bridge, or vanished. */
	for (slot = 1; !err && slot < XDPNET_MAX_PORTS; slot++) {
		int found = 0;

		if (!all[slot].ifindex)
			continue;
		for (i = 0; i < np && !found; i++)
			found = ports[i].ifindex == all[slot].ifindex;
		if (found)
			continue;
		if (!quiet) {
			char name[IF_NAMESIZE];

			xn_info("  %s: left the bridge",
				if_indextoname(all[slot].ifindex, name)
					? name
					: "(gone)");
		}
		port_drop(s, slot, &all[slot]);
		r->removed++;
	}
	if (!err)
		err = xn_fdb_repair(s, br, &r->fdb);
	free(all);
	free(ports);
	free(vl);
	return err;
}

int xn_reconcile_link(struct xn_state *s, struct xn_link *br, __u32 ifindex,
		      const struct xn_policy *pol, struct xn_sync *r)
{
	struct xdpnet_port *all;
	struct xn_vlan *vl = NULL;
	struct xn_link l;
	int nv = 0, err, neigh;
	__u32 slot;

	memset(r, 0, sizeof(*r));
	if (ifindex == br->ifindex) {
		err = bridge_reread(br);
		return err ? err : cfg_apply(s, br, pol, -1, 0);
	}
	all = calloc(XDPNET_MAX_PORTS, sizeof(*all));
	if (!all)
		return -ENOMEM;
	err = ports_read(s, all);
	if (!err && xn_get_link_by_index(ifindex, &l)) {
		/* Gone: drop it if we had it. */
		slot = slot_of(all, ifindex);
		if (slot) {
			xn_info("  ifindex %u: gone", ifindex);
			port_drop(s, slot, &all[slot]);
			r->removed++;
		}
		free(all);
		return cfg_apply(s, br, pol, -1, 0);
	}
	if (!err && l.is_port && l.master == br->ifindex && br->vlan_filtering)
		err = xn_port_vlans(ifindex, &vl, &nv);
	/* A port's proxy_arp and kin hold the bridge: before the port is
	 * applied; let go after (the ports are listed anew: others may hold
	 * it too). */
	neigh = l.is_port && l.master == br->ifindex && l.neigh_proxy;
	if (!err && neigh)
		err = cfg_apply(s, br, pol, 1, 0);
	if (!err)
		err = port_apply(s, all, br, &l, pol, vl, nv, r, 0);
	if (!err && !neigh)
		err = cfg_apply(s, br, pol, -1, 0);
	free(vl);
	free(all);
	return err;
}

void xn_reconcile_undo(struct xn_state *s, struct xn_link *br,
		       const struct xn_policy *pol, const struct xn_sync *r)
{
	struct xdpnet_port *all = calloc(XDPNET_MAX_PORTS, sizeof(*all));
	struct xn_sync *r2 = calloc(1, sizeof(*r2));
	__u32 slot;
	int i;

	if (all && r2 && !ports_read(s, all)) {
		for (i = 0; i < r->added; i++) {
			slot = slot_of(all, r->added_ifindex[i]);
			if (slot)
				port_drop(s, slot, &all[slot]);
		}
		xn_reconcile(s, br, pol, r2, XN_RC_QUIET | XN_RC_NO_ADD);
	}
	free(r2);
	free(all);
}

void xn_reconcile_clear(struct xn_state *s)
{
	struct xdpnet_port *all = calloc(XDPNET_MAX_PORTS, sizeof(*all));
	__u32 slot;

	if (!all || ports_read(s, all)) {
		xn_unhook_all(s);
		free(all);
		return;
	}
	/* XDP first, then TC: each frame is bypassed or bridged. */
	for (slot = 1; slot < XDPNET_MAX_PORTS; slot++)
		if (all[slot].ifindex)
			xn_unhook_xdp(s, all[slot].ifindex);
	for (slot = 1; slot < XDPNET_MAX_PORTS; slot++)
		if (all[slot].ifindex)
			port_drop(s, slot, &all[slot]);
	free(all);
}
