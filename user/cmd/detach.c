// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xdpnet detach BRIDGE: remove everything xdpnet set up for the bridge
 * (sync/detach.c). */
#include "state/bridge.h"
#include "state/system.h"
#include "sync/detach.h"
#include "cmd/cmd.h"

int xn_detach(const struct xn_opts *o)
{
	struct xn_bridge br;
	int err;

	/* The one lookup: a name that is no device at all is fine while
	 * there are pins to remove. */
	err = xn_cmd_bridge(&br, o->bridge, 1);
	if (!err)
		err = xn_prepare();
	return err ? err : xn_detach_bridge(&br);
}
