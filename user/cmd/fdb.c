// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xdpnet fdb BRIDGE: the datapath's copy of the bridge's FDB. */
#include <stdio.h>
#include "state/bridge.h"
#include "state/system.h"
#include "observe/fdb.h"
#include "render/fdb.h"
#include "cmd/cmd.h"

int xn_fdb(const struct xn_opts *o)
{
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
