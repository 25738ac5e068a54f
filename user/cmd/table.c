// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The commands (each in cmd/VERB.c with its own options), in the order
 * help lists them; help and version; running one, and its exit code. */
#include <stdio.h>
#include <string.h>
#include "xdpnet.h"
#include "lib/json_writer.h"
#include "lib/log.h"
#include "lib/util.h"
#include "state/bridge.h"
#include "datapath/load.h"
#include "cmd/cmd.h"

const struct xn_cmd_def *const xn_cmds[] = {
	&xn_cmd_attach, &xn_cmd_follow, &xn_cmd_detach,	 &xn_cmd_status,
	&xn_cmd_fdb,	&xn_cmd_stats,	&xn_cmd_latency, &xn_cmd_exporter,
	&xn_cmd_dump,	&xn_cmd_trace,	&xn_cmd_help,	 &xn_cmd_version,
};

const unsigned int xn_ncmds = ARRAY_SIZE(xn_cmds);

const struct xn_opt xn_global_opts[] = {
	XN_OPT("verbose", XN_OPT_COUNT, struct xn_opts, verbose, .letter = 'v',
	       .help = "more detail (twice: libbpf's debug log)"),
	XN_OPT("help", XN_OPT_HELP, struct xn_opts, arg, .letter = 'h',
	       .help = "this text"),
	XN_OPT("version", XN_OPT_VERSION, struct xn_opts, arg, .letter = 'V',
	       .help = "the version, build id and git description"),
	XN_OPT_END,
};

static const struct xn_opt no_opts[] = { XN_OPT_END };

/* `git describe --always --dirty` of the tree built, from the Makefile
 * (build/git_desc); "unknown" where there was no git (a tarball). */
#ifndef XN_GIT_DESC
#define XN_GIT_DESC "unknown"
#endif

const char *xn_git_desc(void)
{
	return XN_GIT_DESC[0] ? XN_GIT_DESC : "unknown";
}

static int version(const void *opts)
{
	(void)opts;
	printf("xdpnet %s\nbuild %s\ngit %s\n", XDPNET_VERSION_STR,
	       xn_build_id(), xn_git_desc());
	return 0;
}

const struct xn_cmd_def xn_cmd_version = {
	.name = "version",
	.args = "",
	.help = "the version, build id and git description",
	.opts = no_opts,
	.size = sizeof(struct xn_opts),
	.run = version,
};

static int help(const void *opts)
{
	const struct xn_opts *o = opts;

	if (o->arg)
		return xn_cmd_usage(stdout, o->arg) ? -XN_BAD_INPUT : 0;
	xn_usage(stdout);
	return 0;
}

static int help_check(void *opts, unsigned long long given, char *err,
		      size_t len)
{
	const struct xn_opts *o = opts;

	(void)given;
	if (o->arg && !xn_cmd_find(o->arg))
		return xn_usage_err(err, len,
				    "no command '%s' to help with (xdpnet "
				    "help)",
				    o->arg);
	return 0;
}

/* Any command's name (help_check says which are). */
static const struct xn_word any_command[] = { { NULL, 0 } };

const struct xn_cmd_def xn_cmd_help = {
	.name = "help",
	.operand = any_command,
	.args = "[COMMAND]",
	.help = "this overview, or a command's options",
	.opts = no_opts,
	.size = sizeof(struct xn_opts),
	.check = help_check,
	.run = help,
};

int xn_cmd_bridge(struct xn_bridge *br, const char *name, int lookup)
{
	int err = xn_bridge_open(br, name, lookup);

	if (err)
		xn_err("%s: %s", name, strerror(-err));
	return err ? -XN_FAILED : 0;
}

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

int xn_cmd_run(const struct xn_cli *cli)
{
	const struct xn_opts *o = cli->opts;
	int err = cli->cmd->run(cli->opts);

	/* Under --json, a failure is a JSON object on stdout too, beside
	 * its one line on stderr (as bpftool's p_err() writes it). */
	if (err < 0 && o->json)
		xn_json_error(xn_err_last()[0] ? xn_err_last()
					       : strerror(-err));
	return xn_exit_code(err);
}
