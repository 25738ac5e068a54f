// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdpnet detach BRIDGE: stop the follower, unhook every port (XDP, then
 * TC: each frame is bypassed or bridged), remove the pins and the run
 * files in /run/xdpnet (state/lock.h). Works on the
 * state of another xdpnet version too (it only needs the pins' names).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "xdpnet.h"
#include "lib/exit.h"
#include "lib/log.h"
#include "state/paths.h"
#include "state/system.h"
#include "state/pins.h"
#include "state/owner.h"
#include "state/bridge.h"
#include "sync/daemon.h"
#include "state/lock.h"
#include "datapath/hooks.h"
#include "sync/reconcile.h"
#include "sync/follower.h"
#include "cmd/cmd.h"

int xn_detach(const struct xn_opts *o)
{
	struct xn_bridge br;
	struct xn_state s;
	const char *dir;
	int err, lk, have_br;

	/* The one lookup: a name that is no device at all is fine while
	 * there are pins to remove. */
	err = xn_cmd_bridge(&br, o->bridge, 1);
	if (!err)
		err = xn_prepare();
	if (err)
		return err;
	have_br = !br.err;
	dir = br.path.pins;
	if (access(dir, F_OK)) {
		/* Nothing pinned: an unknown name is an error, as for
		 * attach; a bridge we are not on is fine. */
		err = xn_bridge_check(&br);
		if (err)
			return err;
		xn_follower_stop(&br);
		lk = xn_lock(&br, 30);
		if (lk < 0)
			return XN_EBUSY;
		/* Unless an attach came in between. */
		if (access(dir, F_OK))
			xn_run_remove(&br);
		xn_unlock(lk);
		xn_info("xdpnet: %s is not attached; nothing to do", br.name);
		return XN_OK;
	}
	lk = xn_lock(&br, 30);
	if (lk < 0)
		return XN_EBUSY;
	{
		/* Another version's state goes (as documented); another
		 * namespace's, or pins that are not ours, stay. */
		enum xn_pinned p = xn_pinned(&br);

		if (p == XN_PINNED_OTHER_NS || p == XN_PINNED_FOREIGN) {
			xn_unlock(lk);
			return xn_pinned_refuse(&br, p);
		}
	}
	err = xn_state_open(&s, &br);
	xn_follower_stop(&br);
	if (!err) {
		xn_reconcile_clear(&s);
		if (have_br && s.meta.bridge_ifindex == br.link.ifindex)
			xn_unhook_clsact_ports(br.link.ifindex);
		xn_state_close(&s);
	} else if (have_br) {
		/* Another version's state: its links go with the pins;
		 * its clsact filters by name. */
		xn_unhook_clsact_ports(br.link.ifindex);
	}
	xn_state_remove(&br);
	if (!access(dir, F_OK)) {
		xn_unlock(lk);
		xn_err("could not remove everything under %s", dir);
		return XN_ERR;
	}
	xn_run_remove(&br);
	xn_unlock(lk);
	xn_info("xdpnet: detached from %s; the bridge forwards everything "
		"again",
		br.name);
	return XN_OK;
}
