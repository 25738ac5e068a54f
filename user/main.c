// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xdpnet: bypass a Linux bridge between the VMs on it. See xdpnet(8). */
#include <stdio.h>
#include "xdpnet.h"
#include "lib/util.h"
#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "core/stats.h"
#include "core/latency.h"
#include "cmd/exporter.h"

int main(int argc, char **argv)
{
	struct xn_opts o;
	char err[160];
	int rc;

	rc = xn_parse_args(argc, argv, &o, err, sizeof(err));
	if (rc) {
		xn_err("%s", err);
		return rc;
	}
	xn_verbose = o.verbose;
	xn_set_quiet(o.json);
	xn_setup_libbpf_logging();
	switch (o.cmd) {
	case XN_CMD_ATTACH:
		return xn_attach(&o);
	case XN_CMD_DETACH:
		return xn_detach(&o);
	case XN_CMD_STATUS:
		return xn_status(&o);
	case XN_CMD_FDB:
		return xn_fdb(&o);
	case XN_CMD_FOLLOW:
		return xn_follow(&o);
	case XN_CMD_STATS:
		return xn_stats(&o);
	case XN_CMD_LATENCY:
		return xn_latency(&o);
	case XN_CMD_EXPORTER:
		return xn_exporter(&o);
	case XN_CMD_VERSION:
		printf("xdpnet %s\n", XDPNET_VERSION_STR);
		return XN_OK;
	case XN_CMD_HELP:
	default:
		xn_usage(stdout);
		return XN_OK;
	}
}
