// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdpnet attach BRIDGE [--mode tc|xdp] [--no-follow] [--follow]
 * [--bypass-filters] [--fdb-size N] [--static-size N] [--vlan-size N]: attach
 * under the bridge's lock (sync/attach.c), then make sure a follower keeps the
 * datapath in step with the bridge.
 */
#include <string.h>
#include <sys/types.h>
#include "xdpnet.h"
#include "lib/exit.h"
#include "lib/log.h"
#include "state/system.h"
#include "datapath/load.h"
#include "datapath/names.h"
#include "state/bridge.h"
#include "sync/daemon.h"
#include "state/lock.h"
#include "sync/attach.h"
#include "sync/follower.h"
#include "cmd/cmd.h"

int xn_attach(const struct xn_opts *o)
{
	struct xn_load ld = {};
	struct xn_sync r = {};
	const char *how = NULL;
	struct xn_bridge br;
	int err, lk;

	struct xn_attach_req rq = { .mode = o->mode,
				    .bypass_filters = o->bypass_filters,
				    .no_follow = o->no_follow,
				    .follow = o->follow };

	err = xn_cmd_bridge(&br, o->bridge, 1);
	if (!err)
		err = xn_prepare();
	if (!err)
		err = xn_bridge_check(&br);
	if (err)
		return err;
	if (o->strict)
		xn_info("xdpnet: --strict is the only behaviour now: the "
			"datapath bypasses only sources the bridge has on "
			"the ingress port");
	ld.bridge_ifindex = br.link.ifindex;
	memcpy(ld.size, o->size, sizeof(ld.size));
	lk = xn_lock(&br, 30);
	if (lk < 0)
		return XN_EBUSY;
	err = xn_attach_locked(&rq, &br, &ld, &r);
	xn_unlock(lk);
	if (err)
		return err;
	xn_info("xdpnet: %s %s (mode %s, %s datapath, FDB mirrored %s): %d "
		"port%s carried, %d held, +%d -%d ~%d",
		ld.fresh      ? "attached to"
		: ld.upgraded ? "upgraded"
			      : "synced",
		br.name, xn_mode_name(ld.mode), ld.live ? "live" : "portable",
		ld.fdb_trace ? "in the kernel" : "by the follower", r.total,
		r.total == 1 ? "" : "s", r.held, r.added, r.removed, r.changed);
	if (o->follow)
		return xn_follow_run(&br);
	if (ld.no_follow) {
		pid_t pid;

		/* --no-follow given now stops a follower; kept from an earlier
		 * attach (a plain attach, the libvirt hook's), it leaves one
		 * the operator started since ('xdpnet follow') alone. */
		if (o->no_follow && xn_follower_stop(&br))
			return XN_ERR;
		if (!o->no_follow && xn_follower_alive(&br, &pid))
			return XN_OK;
		xn_info("xdpnet: no follower (--no-follow): bridge changes only "
			"user space sees are not followed until 'xdpnet attach "
			"%s'",
			br.name);
		return XN_OK;
	}
	err = xn_follower_start(&br, &how);
	if (!err && strcmp(how, "running"))
		xn_info("xdpnet: follower started (%s)", how);
	return err;
}
