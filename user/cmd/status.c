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

int xn_status(const struct xn_opts *o)
{
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
