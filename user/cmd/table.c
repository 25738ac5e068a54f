// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The dispatch table: command -> function (the parser's table of names,
 * options and help is cmd/cli.c's); help and version. */
#include <stdio.h>
#include <string.h>
#include "xdpnet.h"
#include "lib/exit.h"
#include "lib/util.h"
#include "lib/log.h"
#include "state/bridge.h"
#include "datapath/load.h"
#include "cmd/cmd.h"

/* `git describe --always --dirty` of the tree built, from the Makefile
 * (build/git_desc); "unknown" where there was no git (a tarball). */
#ifndef XN_GIT_DESC
#define XN_GIT_DESC "unknown"
#endif

const char *xn_git_desc(void)
{
	return XN_GIT_DESC[0] ? XN_GIT_DESC : "unknown";
}

int xn_cmd_bridge(struct xn_bridge *br, const char *name, int lookup)
{
	int err = xn_bridge_open(br, name, lookup);

	if (err)
		xn_err("%s: %s", name, strerror(-err));
	return err ? XN_ERR : XN_OK;
}

static int version(const struct xn_opts *o)
{
	(void)o;
	printf("xdpnet %s\nbuild %s\ngit %s\n", XDPNET_VERSION_STR,
	       xn_build_id(), xn_git_desc());
	return XN_OK;
}

static int help(const struct xn_opts *o)
{
	if (o->topic)
		return xn_cmd_usage(stdout, o->topic) ? XN_EUSAGE : XN_OK;
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
