// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xdpnet follow BRIDGE: the follower (sync/follower.c) in the foreground. */
#include "state/system.h"
#include "state/bridge.h"
#include "sync/follower.h"
#include "cmd/cmd.h"

int xn_follow(const struct xn_opts *o)
{
	struct xn_bridge br;
	int err = xn_cmd_bridge(&br, o->bridge, 1);

	if (!err)
		err = xn_prepare();
	if (!err)
		err = xn_bridge_check(&br);
	return err ? err : xn_follow_run(&br);
}
