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

static const struct xn_word on_off[] = {
	{ "on", 1 },
	{ "off", 0 },
	{ NULL, 0 },
};

static int check(void *opts, unsigned long long given, char *err, size_t len)
{
	const struct xn_opts *o = opts;

	(void)given;
	if (o->arg && strcmp(o->arg, "on") && strcmp(o->arg, "off"))
		return xn_usage_err(err, len,
				    "'latency' takes on or off, not '%s'",
				    o->arg);
	return 0;
}

static int run(const void *opts)
{
	const struct xn_opts *o = opts;
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

static const struct xn_opt no_opts[] = { XN_OPT_END };

const struct xn_cmd_def xn_cmd_latency = {
	.name = "latency",
	.bridge = 1,
	.operand = on_off,
	.args = "BRIDGE [on|off]",
	.help = "switch the forwarding-latency probe on or off",
	.opts = no_opts,
	.size = sizeof(struct xn_opts),
	.check = check,
	.run = run,
};
