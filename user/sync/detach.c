// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Detaching from a bridge: see detach.h. */
#include <unistd.h>
#include "xdpnet.h"
#include "lib/log.h"
#include "state/pins.h"
#include "state/owner.h"
#include "state/lock.h"
#include "datapath/hooks.h"
#include "sync/reconcile.h"
#include "sync/daemon.h"
#include "sync/detach.h"

int xn_detach_bridge(const struct xn_bridge *br)
{
	const char *dir = br->path.pins;
	int err, lk, have_br = !br->err;
	struct xn_state s;

	if (access(dir, F_OK)) {
		/* Nothing pinned: an unknown name is an error, as for
		 * attach; a bridge we are not on is fine. */
		err = xn_bridge_check(br);
		if (err)
			return err;
		xn_follower_stop(br);
		lk = xn_lock(br, 30);
		if (lk < 0)
			return -XN_BUSY;
		/* Unless an attach came in between. */
		if (access(dir, F_OK))
			xn_run_remove(br);
		xn_unlock(lk);
		xn_info("xdpnet: %s is not attached; nothing to do", br->name);
		return 0;
	}
	lk = xn_lock(br, 30);
	if (lk < 0)
		return -XN_BUSY;
	{
		/* Another version's state goes (as documented); another
		 * namespace's, or pins that are not ours, stay. */
		enum xn_pinned p = xn_pinned(br);

		if (p == XN_PINNED_OTHER_NS || p == XN_PINNED_FOREIGN) {
			xn_unlock(lk);
			return xn_pinned_refuse(br, p);
		}
	}
	err = xn_state_open(&s, br);
	xn_follower_stop(br);
	if (!err) {
		xn_reconcile_clear(&s);
		if (have_br && s.meta.bridge_ifindex == br->link.ifindex)
			xn_unhook_clsact_ports(br->link.ifindex);
		xn_state_close(&s);
	} else if (have_br) {
		/* Another version's state: its links go with the pins;
		 * its clsact filters by name. */
		xn_unhook_clsact_ports(br->link.ifindex);
	}
	xn_state_remove(br);
	if (!access(dir, F_OK)) {
		xn_unlock(lk);
		xn_err("could not remove everything under %s", dir);
		return -XN_FAILED;
	}
	xn_run_remove(br);
	xn_unlock(lk);
	xn_info("xdpnet: detached from %s; the bridge forwards everything "
		"again",
		br->name);
	return 0;
}
