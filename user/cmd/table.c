// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The dispatch table: command -> function (the parser's table of names,
 * options and help is cmd/cli.c's). */
#include <stdio.h>
#include "xdpnet.h"
#include "lib/exit.h"
#include "lib/util.h"
#include "cmd/cmd.h"

static int version(const struct xn_opts *o)
{
	(void)o;
	printf("xdpnet %s\n", XDPNET_VERSION_STR);
	return XN_OK;
}

static int help(const struct xn_opts *o)
{
	(void)o;
	xn_usage(stdout);
	return XN_OK;
}

static const struct {
	enum xn_cmd cmd;
	int (*run)(const struct xn_opts *o);
} table[] = {
	{ XN_CMD_ATTACH, xn_attach },	{ XN_CMD_DETACH, xn_detach },
	{ XN_CMD_STATUS, xn_status },	{ XN_CMD_FDB, xn_fdb },
	{ XN_CMD_FOLLOW, xn_follow },	{ XN_CMD_STATS, xn_stats },
	{ XN_CMD_LATENCY, xn_latency }, { XN_CMD_EXPORTER, xn_exporter },
	{ XN_CMD_DUMP, xn_dump },	{ XN_CMD_TRACE, xn_trace },
	{ XN_CMD_VERSION, version },	{ XN_CMD_HELP, help },
};

int xn_cmd_run(const struct xn_opts *o)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(table); i++)
		if (table[i].cmd == o->cmd)
			return table[i].run(o);
	return help(o);
}
