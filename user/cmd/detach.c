// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xdpnet detach BRIDGE: remove everything xdpnet set up for the bridge
 * (sync/detach.c). */
#include "state/bridge.h"
#include "state/system.h"
#include "sync/detach.h"
#include "cmd/cmd.h"

static int run(const void *opts)
{
	const struct xn_opts *o = opts;
	struct xn_bridge br;
	int err;

	/* The one lookup: a name that is no device at all is fine while
	 * there are pins to remove. */
	err = xn_cmd_bridge(&br, o->bridge, 1);
	if (!err)
		err = xn_prepare();
	return err ? err : xn_detach_bridge(&br);
}

static const struct xn_opt no_opts[] = { XN_OPT_END };

const struct xn_cmd_def xn_cmd_detach = {
	.name = "detach",
	.bridge = 1,
	.args = "BRIDGE",
	.help = "remove everything xdpnet set up for BRIDGE",
	.opts = no_opts,
	.size = sizeof(struct xn_opts),
	.run = run,
};
