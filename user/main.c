// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xdpnet: bypass a Linux bridge between the VMs on it. See xdpnet(8). */
#include "lib/log.h"
#include "cmd/cli.h"
#include "cmd/cmd.h"

int main(int argc, char **argv)
{
	struct xn_opts o;
	char err[160];
	int rc;

	/* A follower's log (attach --follow is the systemd unit's ExecStart,
	 * follow the daemon's) reaches journald or its file line by line;
	 * this must come before anything is written. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	rc = xn_parse_args(argc, argv, &o, err, sizeof(err));
	if (rc) {
		xn_err("%s", err);
		return rc;
	}
	xn_verbose = o.verbose;
	xn_set_quiet(o.json);
	xn_setup_libbpf_logging();
	return xn_cmd_run(&o);
}
