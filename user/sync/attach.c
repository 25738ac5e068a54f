// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Attaching to a bridge, under its lock: load (or upgrade) the datapath,
 * reconcile it with the bridge, then write meta. Order matters for
 * connectivity: maps are filled before any port is hooked, and TC is
 * hooked before XDP; a fresh attach that fails half-way is rolled back
 * entirely, an attach over an attached bridge back to what it was.
 */
#include <errno.h>
#include <string.h>
#include "xdpnet.h"
#include "lib/log.h"
#include "state/paths.h"
#include "state/pins.h"
#include "state/owner.h"
#include "datapath/load.h"
#include "sync/daemon.h"
#include "state/lock.h"
#include "datapath/names.h"
#include "sync/reconcile.h"
#include "sync/follower.h"
#include "sync/policy.h"
#include "sync/attach.h"

/*
 * What is pinned under the bridge's name: 0 with *fresh 0 (ours and
 * current, s open) or 1 (nothing, the pins of an attach that died before
 * it wrote meta, or the leftovers of a deleted bridge of that name:
 * cleared), or a -errno (lib/log.h) after a one-line error (another namespace's
 * bridge, another version, pins that are not ours: nothing is touched).
 */
static int existing_state(struct xn_state *s, const struct xn_bridge *br,
			  int *fresh)
{
	enum xn_pinned p = xn_pinned(br);
	struct xn_link old;
	int err;

	*fresh = 1;
	xn_state_init(s, br);
	if (p == XN_PINNED_NONE || p == XN_PINNED_HALF)
		return 0;
	if (p != XN_PINNED_OURS)
		return xn_pinned_refuse(br, p);
	err = xn_state_open(s, br);
	if (err == -XN_NOT_ATTACHED)
		return 0; /* pins missing: an attach that died half-way */
	if (err)
		return err;
	*fresh = 0;
	if (s->meta.bridge_ifindex == br->link.ifindex)
		return 0;
	*fresh = 1;
	/* libvirt reuses names: a deleted bridge's state goes. */
	if (xn_get_link_by_index(s->meta.bridge_ifindex, &old) == -ENODEV ||
	    strcmp(old.kind, "bridge")) {
		xn_reconcile_clear(s);
		xn_state_close(s);
		xn_state_remove(br);
		xn_info("xdpnet: removed what a deleted bridge named %s left "
			"behind",
			br->name);
		return 0;
	}
	xn_state_close(s);
	xn_err("the pinned state in %s belongs to another bridge; run "
	       "'xdpnet detach %s' first",
	       br->path.pins, br->name);
	return -XN_FAILED;
}

/* Does the attach ask for a map size other than the pinned one's? */
static int sizes_differ(const struct xn_state *s, const struct xn_load *ld)
{
	unsigned int k;

	for (k = 0; k < XN_SIZE_N; k++)
		if (ld->size[k] &&
		    ld->size[k] != xn_map_max_entries(s->fd[xn_sizes[k].map]))
			return 1;
	return 0;
}

/* Everything under the lock: load or upgrade, reconcile, meta; rolled back
 * on failure. Options of an earlier attach stay unless o changes them.
 * *ld and *r say what was done. */
static int attach_locked(const struct xn_attach_req *o,
			 const struct xn_bridge *bridge, struct xn_load *ld,
			 struct xn_sync *r)
{
	struct xn_link link = bridge->link, *br = &link;
	struct xn_policy pol = {};
	int err, fresh, bypass, no_follow;
	struct xdpnet_meta before;
	struct xn_state s;

	err = existing_state(&s, bridge, &fresh);
	if (err)
		return err;
	/* Options of an earlier attach stay (the libvirt hook runs a plain
	 * "xdpnet attach"); detach resets them. */
	bypass = o->bypass_filters || (!fresh && s.meta.bypass_filters);
	no_follow = o->no_follow || (!fresh && s.meta.no_follow && !o->follow);
	err = xn_policy_read(br, bypass, no_follow, &pol);
	if (!err)
		err = xn_policy_refuse(&pol, bridge);
	if (err) {
		/* Attached already (a reconcile, with no follower to have held
		 * it): what the datapath bypasses would skip the rules too, so
		 * it holds the bridge, as a follower does, until they go. */
		if (err == -XN_FILTERED && !fresh &&
		    !strcmp(s.meta.build, xn_build_id()) &&
		    !xn_reconcile(&s, br, &pol, r, XN_RC_QUIET))
			xn_info("xdpnet: %s stays attached but bypasses nothing "
				"while the rules apply",
				br->name);
		if (!fresh)
			xn_state_close(&s);
		xn_policy_free(&pol);
		return err;
	}
	if (pol.nfiltered)
		xn_info("xdpnet: %s", xn_policy_summary(&pol));
	/* Another build's programs, or maps to be made anew in another
	 * size: (re)load, which moves the hooks to new programs. */
	if (fresh || strcmp(s.meta.build, xn_build_id()) ||
	    sizes_differ(&s, ld)) {
		xn_state_close(&s);
		xn_state_init(&s, bridge);
		err = xn_state_load(&s, ld);
		if (err) {
			/* Refused or failed: the old build's follower, if
			 * one runs, goes on as before. */
			if (fresh)
				xn_state_remove(bridge);
			xn_policy_free(&pol);
			return err;
		}
		/* A follower of another build must not touch the new
		 * layout: it stops (it waits for our lock meanwhile), and a
		 * new one starts below. */
		if (!fresh)
			xn_follower_stop(bridge);
	}
	ld->fresh = fresh;
	before = s.meta;
	if (o->mode)
		s.meta.mode = o->mode;
	else if (!s.meta.mode)
		s.meta.mode = XDPNET_MODE_TC;
	s.meta.no_follow = no_follow;
	s.meta.bypass_filters = bypass;
	err = xn_meta_write(&s);
	if (!err)
		err = xn_reconcile(&s, br, &pol, r, 0);
	if (err) {
		if (fresh) {
			xn_reconcile_clear(&s);
			xn_state_close(&s);
			xn_state_remove(bridge);
			xn_err("attach failed (%s); everything was rolled back",
			       strerror(-err));
		} else {
			/* As it was: the mode and options, the ports. */
			s.meta = before;
			xn_meta_write(&s);
			xn_reconcile_undo(&s, br, &pol, r);
			xn_state_close(&s);
			xn_err("attach failed (%s); what it changed was rolled "
			       "back",
			       strerror(-err));
		}
		xn_policy_free(&pol);
		return -XN_FAILED;
	}
	/* Done: this build owns the state now. */
	snprintf(s.meta.build, sizeof(s.meta.build), "%s", xn_build_id());
	ld->live = s.meta.live;
	ld->no_follow = s.meta.no_follow;
	ld->mode = s.meta.mode;
	ld->fdb_trace = s.meta.fdb_trace;
	err = xn_meta_write(&s) ? -XN_FAILED : 0;
	xn_state_close(&s);
	xn_policy_free(&pol);
	return err;
}

int xn_attach_bridge(const struct xn_bridge *br, const struct xn_attach_req *o)
{
	struct xn_load ld = { .bridge_ifindex = br->link.ifindex };
	struct xn_sync r = {};
	const char *how = NULL;
	int err, lk;

	memcpy(ld.size, o->size, sizeof(ld.size));
	lk = xn_lock(br, 30);
	if (lk < 0)
		return -XN_BUSY;
	err = attach_locked(o, br, &ld, &r);
	xn_unlock(lk);
	if (err)
		return err;
	xn_info("xdpnet: %s %s (mode %s, %s datapath, FDB mirrored %s): %d "
		"port%s carried, %d held, +%d -%d ~%d",
		ld.fresh      ? "attached to"
		: ld.upgraded ? "upgraded"
			      : "synced",
		br->name, xn_mode_name(ld.mode), ld.live ? "live" : "portable",
		ld.fdb_trace ? "in the kernel" : "by the follower", r.total,
		r.total == 1 ? "" : "s", r.held, r.added, r.removed, r.changed);
	if (o->follow)
		return xn_follow_run(br);
	if (ld.no_follow) {
		pid_t pid;

		/* --no-follow given now stops a follower; kept from an earlier
		 * attach (a plain attach, the libvirt hook's), it leaves one
		 * the operator started since ('xdpnet follow') alone. */
		if (o->no_follow && xn_follower_stop(br))
			return -XN_FAILED;
		if (!o->no_follow && xn_follower_alive(br, &pid))
			return 0;
		xn_info("xdpnet: no follower (--no-follow): bridge changes only "
			"user space sees are not followed until 'xdpnet attach "
			"%s'",
			br->name);
		return 0;
	}
	err = xn_follower_start(br, &how);
	if (!err && strcmp(how, "running"))
		xn_info("xdpnet: follower started (%s)", how);
	return err;
}
