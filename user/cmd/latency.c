// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xdpnet latency BRIDGE [on|off]: the forwarding-latency probe
 * (observe/latency.c), or whether it is on. */
#include <stdio.h>
#include <string.h>
#include "lib/log.h"
#include "state/system.h"
#include "state/bridge.h"
#include "observe/latency.h"
#include "cmd/cmd.h"

int xn_latency(const struct xn_opts *o)
{
	struct xn_bridge br;
	int err, on;

	err = xn_cmd_bridge(&br, o->bridge, 1);
	if (!err)
		err = xn_prepare_for(XN_CAPS_PROBE, &br);
	if (err)
		return err;
	if (o->arg)
		return xn_lat_set(&br, !strcmp(o->arg, "on"));
	err = xn_lat_get(&br, &on);
	if (!err)
		printf("%s: latency probe %s\n", br.name, on ? "on" : "off");
	return err;
}
