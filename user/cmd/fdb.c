// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xdpnet fdb BRIDGE: the datapath's copy of the bridge's FDB. */
#include <stdio.h>
#include "state/bridge.h"
#include "state/system.h"
#include "observe/fdb.h"
#include "render/fdb.h"
#include "cmd/cmd.h"

static int run(const void *opts)
{
	const struct xn_opts *o = opts;
	struct xn_fdb_view v = {};
	struct xn_bridge br;
	int err;

	err = xn_cmd_bridge(&br, o->bridge, 1);
	if (!err)
		err = xn_prepare();
	if (!err)
		err = xn_fdb_read(&br, &v);
	if (!err)
		xn_print_fdb(stdout, br.name, v.rows, v.n, v.now, v.hz,
			     o->json);
	xn_fdb_free(&v);
	return err;
}

static const struct xn_opt json_opts[] = { XN_JSON_OPTS, XN_OPT_END };

const struct xn_cmd_def xn_cmd_fdb = {
	.name = "fdb",
	.bridge = 1,
	.args = "BRIDGE",
	.help = "the forwarding table as the datapath sees it",
	.opts = json_opts,
	.size = sizeof(struct xn_opts),
	.run = run,
};
