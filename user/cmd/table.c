// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The dispatch table: command -> function (the parser's table of names,
 * options and help is cmd/cli.c's); help and version. */
#include <stdio.h>
#include <string.h>
#include "xdpnet.h"
#include "lib/util.h"
#include "lib/json_writer.h"
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
	return err ? -XN_FAILED : 0;
}

static int version(const struct xn_opts *o)
{
	(void)o;
	printf("xdpnet %s\nbuild %s\ngit %s\n", XDPNET_VERSION_STR,
	       xn_build_id(), xn_git_desc());
	return 0;
}

static int help(const struct xn_opts *o)
{
	if (o->topic)
		return xn_cmd_usage(stdout, o->topic) ? -XN_BAD_INPUT : 0;
	xn_usage(stdout);
	return 0;
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

int xn_exit_code(int err)
{
	static const struct {
		int err;
		enum xn_exit code;
	} codes[] = {
		{ XN_BAD_INPUT, XN_EUSAGE },
		{ XN_NO_BRIDGE, XN_ENOBRIDGE },
		{ XN_NOT_PERMITTED, XN_EPERM },
		{ XN_BPF_REFUSED, XN_ENOBPF },
		{ XN_NO_BPFFS, XN_EBPFFS },
		{ XN_NOT_ATTACHED, XN_ENOTATTACHED },
		{ XN_BUSY, XN_EBUSY },
		{ XN_FILTERED, XN_EFILTER },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(codes); i++)
		if (err == -codes[i].err)
			return codes[i].code;
	return err ? XN_ERR : XN_OK;
}

void xn_json_error(const char *msg)
{
	struct xn_jw w;

	xn_jw_init(&w, stdout);
	xn_jw_obj(&w);
	xn_jw_kstr(&w, "error", msg);
	xn_jw_obj_end(&w);
	xn_jw_end(&w);
	fflush(stdout);
}

int xn_cmd_run(const struct xn_opts *o)
{
	unsigned int i;
	int err = 1;

	for (i = 0; i < ARRAY_SIZE(table) && err > 0; i++)
		if (table[i].cmd == o->cmd)
			err = table[i].run(o);
	if (err > 0)
		err = help(o);
	/* Under --json, a failure is a JSON object on stdout too, beside
	 * its one line on stderr (as bpftool's p_err() writes it). */
	if (err < 0 && o->json)
		xn_json_error(xn_err_last()[0] ? xn_err_last()
					       : strerror(-err));
	return xn_exit_code(err);
}
