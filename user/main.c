// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xdpnet: bypass a Linux bridge between the VMs on it. See xdpnet(8). */
#include <stdlib.h>
#include <string.h>
#include "lib/json_writer.h"
#include "lib/log.h"
#include "cmd/cli.h"
#include "cmd/cmd.h"

/* Was JSON asked for (-j, -p, --json, --pretty anywhere before "--"),
 * whatever else the line holds? */
static int json_asked(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "-p") ||
		    !strcmp(argv[i], "--json") || !strcmp(argv[i], "--pretty"))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	const struct xn_opts *o;
	struct xn_cli cli;
	char err[256];
	int rc;

	/* The option tables as bash completion reads them. */
	if (argc == 1 && getenv("XDPNET_COMPLETE")) {
		xn_complete_table(stdout);
		return fflush(stdout) ? XN_ERR : 0;
	}
	rc = xn_parse_args(argc, argv, &cli, err, sizeof(err));
	o = cli.opts;
	if (rc) {
		/* One line, named by the command when there is one:
		 * "xdpnet status: --follow is not an option of status". */
		if (cli.name)
			fprintf(stderr, "xdpnet %s: %s\n", cli.name, err);
		else
			xn_err("%s", err);
		if (json_asked(argc, argv)) {
			xn_jw_pretty = o ? o->pretty : 0;
			xn_json_error(err);
		}
		xn_cli_free(&cli);
		return rc;
	}
	/* Commands that run on and log as they go reach journald, a file or
	 * a pipe line by line (attach --follow is the systemd unit's
	 * ExecStart, follow the daemon's); nothing is on stdout yet. The
	 * others keep full buffering: a reader that stops early (grep -q)
	 * must not meet a write per line, nor dump's pcapng one per 0x0a. */
	if (o->linebuf)
		setvbuf(stdout, NULL, _IOLBF, 0);
	xn_verbose = o->verbose;
	xn_set_quiet(o->json);
	xn_jw_pretty = o->pretty;
	xn_setup_libbpf_logging();
	rc = xn_cmd_run(&cli);
	xn_cli_free(&cli);
	return rc;
}
