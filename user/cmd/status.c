// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xdpnet status [BRIDGE]: what the datapath carries, and whether a
 * follower keeps it in step with the bridge. */
#include <stdio.h>
#include "lib/log.h"
#include "state/bridge.h"
#include "state/system.h"
#include "observe/status.h"
#include "render/status.h"
#include "cmd/cmd.h"

static int run(const void *opts)
{
	const struct xn_opts *o = opts;
	struct xn_bridge_status *s = NULL;
	struct xn_bridge br;
	int n = 0, err = 0;

	if (o->bridge)
		err = xn_cmd_bridge(&br, o->bridge, 1);
	if (!err)
		err = xn_prepare();
	if (!err)
		err = xn_status_read(o->bridge ? &br : NULL, o->json, &s, &n);
	if (!err) {
		if (!n && !o->json)
			printf("xdpnet is not attached to any bridge\n");
		else
			xn_print_status(stdout, s, n, o->json);
	}
	xn_status_free(s, n);
	return err;
}

static const struct xn_opt json_opts[] = { XN_JSON_OPTS, XN_OPT_END };

const struct xn_cmd_def xn_cmd_status = {
	.name = "status",
	.bridge = 2,
	.args = "[BRIDGE]",
	.help = "ports, stages, program ids, FDB size, counters",
	.opts = json_opts,
	.size = sizeof(struct xn_opts),
	.run = run,
};
