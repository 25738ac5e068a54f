// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdpnet attach BRIDGE [--mode tc|xdp] [--no-follow] [--follow]
 * [--bypass-filters] [--fdb-size N] [--static-size N] [--vlan-size N]:
 * attach, and make sure a follower keeps the datapath in step with the
 * bridge (sync/attach.c).
 */
#include <string.h>
#include "xdpnet.h"
#include "lib/log.h"
#include "lib/util.h"
#include "state/bridge.h"
#include "state/system.h"
#include "sync/attach.h"
#include "cmd/cmd.h"

#define A struct xn_attach_args

static const struct xn_word modes[] = {
	{ "tc", XDPNET_MODE_TC },
	{ "xdp", XDPNET_MODE_XDP },
	{ NULL, 0 },
};

static const struct xn_opt opts[] = {
	XN_OPT("mode", XN_OPT_ENUM, A, mode, .letter = 'm', .arg = "tc|xdp",
	       .words = modes, .must = "tc or xdp",
	       .help = "where frames are redirected (default tc, or as "
		       "before)"),
	XN_OPT("follow", XN_OPT_CONST, A, follow, .letter = 'f', .val = 1,
	       .help = "run the follower in the foreground instead of a "
		       "daemon"),
	XN_OPT("no-follow", XN_OPT_CONST, A, no_follow, .val = 1,
	       .help = "no follower: bridge changes are not followed"),
	XN_OPT("bypass-filters", XN_OPT_CONST, A, bypass_filters, .letter = 'B',
	       .val = 1,
	       .help = "bypass even where host filters apply between ports"),
	XN_OPT("strict", XN_OPT_CONST, A, strict, .val = 1,
	       .flags = XN_OF_COMPAT,
	       .help = "accepted for compatibility (always the behaviour "
		       "now)"),
	XN_OPT("fdb-size", XN_OPT_UINT, A, size[XN_SIZE_FDB], .arg = "N",
	       .min = 1, .max = XN_SIZE_FDB_MAX,
	       .help = "learned MACs the FDB copy holds (default " XN_STR(
		       XDPNET_MAX_FDB) ", kept)"),
	XN_OPT("static-size", XN_OPT_UINT, A, size[XN_SIZE_STATIC], .arg = "N",
	       .min = 1, .max = XN_SIZE_STATIC_MAX,
	       .help = "static and local FDB entries (default " XN_STR(
		       XDPNET_MAX_STATIC) ", kept)"),
	XN_OPT("vlan-size", XN_OPT_UINT, A, size[XN_SIZE_VLANS], .arg = "N",
	       .min = 1, .max = XN_SIZE_VLANS_MAX,
	       .help = "VLAN memberships of ports (default " XN_STR(
		       XDPNET_MAX_VLANS) ", kept)"),
	XN_OPT_END,
};

static int check(void *opts, unsigned long long given, char *err, size_t len)
{
	const A *o = opts;

	(void)given;
	if (o->follow && o->no_follow)
		return xn_usage_err(err, len, "%s",
				    "--follow and --no-follow exclude each "
				    "other");
	return 0;
}

static int run(const void *opts)
{
	const A *o = opts;
	struct xn_attach_req rq = { .mode = o->mode,
				    .bypass_filters = o->bypass_filters,
				    .no_follow = o->no_follow,
				    .follow = o->follow };
	struct xn_bridge br;
	int err;

	memcpy(rq.size, o->size, sizeof(rq.size));
	err = xn_cmd_bridge(&br, o->c.bridge, 1);
	if (!err)
		err = xn_prepare();
	if (!err)
		err = xn_bridge_check(&br);
	if (err)
		return err;
	if (o->strict)
		xn_info("xdpnet: --strict is the only behaviour now: the "
			"datapath bypasses only sources the bridge has on "
			"the ingress port");
	return xn_attach_bridge(&br, &rq);
}

const struct xn_cmd_def xn_cmd_attach = {
	.name = "attach",
	.bridge = 1,
	.args = "BRIDGE",
	.help = "bypass the bridge between its tap/veth ports",
	.opts = opts,
	.size = sizeof(A),
	.check = check,
	.run = run,
	.linebuf = 1,
};
