// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdpnet attach BRIDGE [--mode tc|xdp] [--no-follow] [--follow]
 * [--bypass-filters] [--fdb-size N] [--static-size N] [--vlan-size N]:
 * attach, and make sure a follower keeps the datapath in step with the
 * bridge (sync/attach.c).
 */
#include <string.h>
#include "lib/log.h"
#include "state/bridge.h"
#include "state/system.h"
#include "sync/attach.h"
#include "cmd/cmd.h"

int xn_attach(const struct xn_opts *o)
{
	struct xn_attach_req rq = { .mode = o->mode,
				    .bypass_filters = o->bypass_filters,
				    .no_follow = o->no_follow,
				    .follow = o->follow };
	struct xn_bridge br;
	int err;

	memcpy(rq.size, o->size, sizeof(rq.size));
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
	return xn_attach_bridge(&br, &rq);
}
