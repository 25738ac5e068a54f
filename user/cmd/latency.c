// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xdpnet latency BRIDGE [on|off]: the forwarding-latency probe
 * (observe/latency.c), or whether it is on. */
#include <stdio.h>
#include <string.h>
#include "lib/exit.h"
#include "lib/log.h"
#include "state/system.h"
#include "state/paths.h"
#include "state/pins.h"
#include "state/owner.h"
#include "state/bridge.h"
#include "observe/latency.h"
#include "cmd/cmd.h"

int xn_latency(const struct xn_opts *o)
{
	char dir[256];
	struct xn_bridge br;
	int err;

	err = xn_cmd_bridge(&br, o->bridge, 1);
	if (!err)
		err = xn_prepare_for(XN_CAPS_PROBE, &br);
	if (err)
		return err;
	{
		enum xn_pinned p = xn_pinned(&br);

		if (p >= XN_PINNED_OTHER_NS)
			return xn_pinned_refuse(&br, p);
	}
	if (xn_pin_exists(&br, "lat_ctl") && !xn_lat_ours(&br)) {
		xn_err("%s holds the state of a bridge named %s in another "
		       "network namespace",
		       br.path.pins, br.name);
		return XN_ERR;
	}
	if (!o->arg) {
		int on = xn_lat_is_on(&br);

		printf("%s: latency probe %s\n", br.name, on ? "on" : "off");
		return XN_OK;
	}
	if (!strcmp(o->arg, "off"))
		return xn_lat_off(&br);
	if (xn_pin_mkdir(&br, dir, sizeof(dir)))
		return XN_ERR;
	return xn_lat_on(&br);
}
