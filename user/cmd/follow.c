// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xdpnet follow BRIDGE: the follower (sync/follower.c) in the foreground. */
#include "state/system.h"
#include "state/bridge.h"
#include "sync/follower.h"
#include "cmd/cmd.h"

static int run(const void *opts)
{
	const struct xn_opts *o = opts;
	struct xn_bridge br;
	int err = xn_cmd_bridge(&br, o->bridge, 1);

	if (!err)
		err = xn_prepare();
	if (!err)
		err = xn_bridge_check(&br);
	return err ? err : xn_follow_run(&br);
}

static const struct xn_opt no_opts[] = { XN_OPT_END };

const struct xn_cmd_def xn_cmd_follow = {
	.name = "follow",
	.bridge = 1,
	.args = "BRIDGE",
	.help = "keep the datapath in step with the bridge",
	.opts = no_opts,
	.size = sizeof(struct xn_opts),
	.run = run,
	.linebuf = 1,
};
