// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "xdpnet.h"
#include "lib/exit.h"
#include "core/paths.h"
#include "cmd/cli.h"

/* Which options each command takes. */
enum {
	O_MODE = 1 << 0,
	O_JSON = 1 << 1,
	O_FOLLOW = 1 << 2,
	O_STRICT = 1 << 3,
	O_INTERVAL = 1 << 4,
	O_COUNT = 1 << 5,
	O_LATENCY = 1 << 6,
	O_RESET = 1 << 7,
	O_PROM = 1 << 8,
	O_LISTEN = 1 << 9,
	O_NOFOLLOW = 1 << 10,
	O_BYPASS = 1 << 11,
	O_PAIRS = 1 << 12,
	O_OPERAND = 1 << 30, /* not an option: one more word after BRIDGE */
};

static const struct cmd_def {
	const char *name;
	enum xn_cmd cmd;
	int bridge; /* 1: required, 2: optional, 0: none */
	int opts;
	const char *args;
	const char *help;
} cmds[] = {
	{ "attach", XN_CMD_ATTACH, 1,
	  O_MODE | O_FOLLOW | O_STRICT | O_NOFOLLOW | O_BYPASS,
	  "BRIDGE [--mode tc|xdp] [--no-follow] [--bypass-filters]",
	  "bypass the bridge between its tap/veth ports" },
	{ "follow", XN_CMD_FOLLOW, 1, 0, "BRIDGE",
	  "keep the datapath in step with the bridge (foreground)" },
	{ "detach", XN_CMD_DETACH, 1, 0, "BRIDGE",
	  "remove everything xdpnet set up for BRIDGE" },
	{ "status", XN_CMD_STATUS, 2, O_JSON, "[BRIDGE] [--json]",
	  "ports, stages, program ids, FDB size, counters" },
	{ "fdb", XN_CMD_FDB, 1, O_JSON, "BRIDGE [--json]",
	  "the forwarding table as the datapath sees it" },
	{ "stats", XN_CMD_STATS, 1,
	  O_JSON | O_INTERVAL | O_COUNT | O_LATENCY | O_RESET | O_PROM |
		  O_PAIRS,
	  "BRIDGE [-i SEC] [-c N] [--json|--prom [-P]] [--latency] [--reset]",
	  "per-port rates and counters by path, latency histograms" },
	{ "latency", XN_CMD_LATENCY, 1, O_OPERAND, "BRIDGE [on|off]",
	  "switch the forwarding-latency probe on or off" },
	{ "exporter", XN_CMD_EXPORTER, 2, O_LISTEN | O_PAIRS,
	  "[BRIDGE] [--listen ADDR:PORT] [-P]",
	  "serve the counters to Prometheus (default 127.0.0.1:9435)" },
	{ "help", XN_CMD_HELP, 0, 0, "", "this text" },
	{ "version", XN_CMD_VERSION, 0, 0, "", "print the version" },
};

static const struct opt_def {
	struct option lo;
	int mask; /* O_*: the commands that take it are checked per command */
	const char *help;
} opt_defs[] = {
	{ { "mode", required_argument, NULL, 'm' },
	  O_MODE,
	  "tc (default) or xdp: where frames are redirected" },
	{ { "json", no_argument, NULL, 'j' },
	  O_JSON,
	  "machine-readable output" },
	{ { "no-follow", no_argument, NULL, 'n' },
	  O_NOFOLLOW,
	  "attach: no follower (a static setup: bridge changes are not "
	  "followed)" },
	{ { "bypass-filters", no_argument, NULL, 'B' },
	  O_BYPASS,
	  "attach: bypass even where host filters apply between ports" },
	{ { "follow", no_argument, NULL, 'f' },
	  O_FOLLOW,
	  "attach: run the follower in the foreground instead of a daemon" },
	{ { "strict", no_argument, NULL, 's' },
	  O_STRICT,
	  "attach: accepted for compatibility (always the behaviour now)" },
	{ { "interval", required_argument, NULL, 'i' },
	  O_INTERVAL,
	  "stats: sample every SEC seconds and show rates" },
	{ { "count", required_argument, NULL, 'c' },
	  O_COUNT,
	  "stats: stop after N intervals" },
	{ { "latency", no_argument, NULL, 'l' },
	  O_LATENCY,
	  "stats: forwarding-latency histograms per port pair and path" },
	{ { "reset", no_argument, NULL, 'r' },
	  O_RESET,
	  "stats: zero xdpnet's counters and histograms first" },
	{ { "prom", no_argument, NULL, 'p' },
	  O_PROM,
	  "stats: Prometheus text format (node_exporter textfile)" },
	{ { "latency-pairs", no_argument, NULL, 'P' },
	  O_PAIRS,
	  "stats --prom, exporter: latency per port pair, not per port" },
	{ { "listen", required_argument, NULL, 'L' },
	  O_LISTEN,
	  "exporter: ADDR:PORT or [ADDR6]:PORT to listen on" },
	{ { "verbose", no_argument, NULL, 'v' },
	  0,
	  "more detail (twice: libbpf debug log)" },
	{ { "help", no_argument, NULL, 'h' }, 0, "this text" },
};

#define N_CMDS (sizeof(cmds) / sizeof(cmds[0]))
#define N_OPTS (sizeof(opt_defs) / sizeof(opt_defs[0]))

void xn_usage(FILE *f)
{
	unsigned int i;

	fputs("usage: xdpnet COMMAND [ARGS]\n\ncommands:\n", f);
	for (i = 0; i < N_CMDS; i++)
		fprintf(f, "  %-8s %-34s %s\n", cmds[i].name, cmds[i].args,
			cmds[i].help);
	fputs("\noptions:\n", f);
	for (i = 0; i < N_OPTS; i++)
		fprintf(f, "  -%c, --%-10s %s\n", opt_defs[i].lo.val,
			opt_defs[i].lo.name, opt_defs[i].help);
	fputs("\nexit codes: 0 ok, 1 failed (rolled back), 2 usage, 3 no such "
	      "bridge, 4 not permitted, 5 BPF not supported, 6 bpffs "
	      "unavailable, 7 not attached, 8 busy (a follower runs, or the "
	      "lock is held), 9 filters would be bypassed\n",
	      f);
}

static int fail(char *err, size_t len, const char *fmt, const char *arg)
{
	snprintf(err, len, fmt, arg);
	return XN_EUSAGE;
}

int xn_parse_args(int argc, char **argv, struct xn_opts *o, char *err,
		  size_t errlen)
{
	struct option lopts[N_OPTS + 1];
	const struct cmd_def *cmd = NULL;
	int c, given = 0;
	unsigned int i;

	memset(o, 0, sizeof(*o));
	memset(lopts, 0, sizeof(lopts));
	for (i = 0; i < N_OPTS; i++)
		lopts[i] = opt_defs[i].lo;
	optind = 0; /* 0, not 1: also resets getopt's internal state */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:m:jfsnBvhi:c:lrpPL:", lopts,
				NULL)) != -1 ||
	       optind < argc) {
		if (c == -1) {
			/* A non-option: the command, then its operand. */
			const char *a = argv[optind++];

			if (!cmd) {
				for (i = 0; i < N_CMDS; i++)
					if (!strcmp(a, cmds[i].name))
						cmd = &cmds[i];
				if (!cmd)
					return fail(err, errlen,
						    "unknown command '%s' (try "
						    "'xdpnet help')",
						    a);
			} else if (!o->bridge && cmd->bridge) {
				o->bridge = a;
			} else if ((cmd->opts & O_OPERAND) && !o->arg) {
				o->arg = a;
			} else {
				return fail(err, errlen,
					    "unexpected argument '%s'", a);
			}
			continue;
		}
		switch (c) {
		case 'm':
			given |= O_MODE;
			if (!strcmp(optarg, "tc"))
				o->mode = XDPNET_MODE_TC;
			else if (!strcmp(optarg, "xdp"))
				o->mode = XDPNET_MODE_XDP;
			else
				return fail(
					err, errlen,
					"--mode must be tc or xdp, not '%s'",
					optarg);
			break;
		case 'j':
			given |= O_JSON;
			o->json = 1;
			break;
		case 'f':
			given |= O_FOLLOW;
			o->follow = 1;
			break;
		case 's':
			given |= O_STRICT;
			o->strict = 1;
			break;
		case 'n':
			given |= O_NOFOLLOW;
			o->no_follow = 1;
			break;
		case 'B':
			given |= O_BYPASS;
			o->bypass_filters = 1;
			break;
		case 'i': {
			char *end;

			given |= O_INTERVAL;
			o->interval = strtod(optarg, &end);
			if (end == optarg || *end || !(o->interval >= 0.1) ||
			    o->interval > 86400)
				return fail(err, errlen,
					    "--interval must be 0.1 to 86400 "
					    "seconds, not '%s'",
					    optarg);
			break;
		}
		case 'c': {
			char *end;
			long n;

			given |= O_COUNT;
			n = strtol(optarg, &end, 10);
			if (end == optarg || *end || n < 1 || n > 1000000000)
				return fail(
					err, errlen,
					"--count must be a positive number, "
					"not '%s'",
					optarg);
			o->count = n;
			break;
		}
		case 'l':
			given |= O_LATENCY;
			o->latency = 1;
			break;
		case 'r':
			given |= O_RESET;
			o->reset = 1;
			break;
		case 'p':
			given |= O_PROM;
			o->prom = 1;
			break;
		case 'P':
			given |= O_PAIRS;
			o->lat_pairs = 1;
			break;
		case 'L':
			given |= O_LISTEN;
			o->listen = optarg;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'h':
			o->cmd = XN_CMD_HELP;
			return 0;
		case ':':
			return fail(err, errlen, "option '%s' needs a value",
				    argv[optind - 1]);
		default: {
			char shortopt[3] = { '-', (char)optopt, 0 };

			/* A long option is named by its word; a short one by
			 * optopt (it may sit inside a cluster like -xv). */
			const char *word = argv[optind - 1];

			return fail(err, errlen, "unknown option '%s'",
				    !strncmp(word, "--", 2) || !optopt
					    ? word
					    : shortopt);
		}
		}
	}
	if (!cmd)
		return fail(err, errlen, "%s",
			    "no command given (try 'xdpnet help')");
	o->cmd = cmd->cmd;
	if (given & ~cmd->opts)
		return fail(err, errlen, "option not valid for '%s'",
			    cmd->name);
	if (cmd->bridge == 1 && !o->bridge)
		return fail(err, errlen, "'%s' needs a BRIDGE", cmd->name);
	if (o->bridge && !xn_valid_ifname(o->bridge))
		return fail(err, errlen, "'%s' is not a valid interface name",
			    o->bridge);
	if (o->follow && o->no_follow)
		return fail(err, errlen, "%s",
			    "--follow and --no-follow exclude each other");
	if (o->cmd == XN_CMD_LATENCY && o->arg && strcmp(o->arg, "on") &&
	    strcmp(o->arg, "off"))
		return fail(err, errlen, "'latency' takes on or off, not '%s'",
			    o->arg);
	if (o->json && o->prom)
		return fail(err, errlen, "%s",
			    "--json and --prom exclude each other");
	if (o->prom && (given & (O_INTERVAL | O_COUNT)))
		return fail(err, errlen, "%s",
			    "--prom writes one snapshot; it takes no "
			    "--interval or --count");
	if (o->cmd == XN_CMD_STATS && o->lat_pairs && !o->prom)
		return fail(err, errlen, "%s",
			    "--latency-pairs shapes --prom's output; give "
			    "--prom too");
	if (o->count && !o->interval)
		o->interval = 1;
	return 0;
}
