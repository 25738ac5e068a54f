// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "xdpnet.h"
#include "lib/exit.h"
#include "lib/util.h"
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
	O_PORT = 1 << 13,
	O_PATH = 1 << 14,
	O_SNAPLEN = 1 << 15,
	O_WRITE = 1 << 16,
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
	{ "dump", XN_CMD_DUMP, 1,
	  O_COUNT | O_PORT | O_PATH | O_SNAPLEN | O_WRITE,
	  "BRIDGE [--port P] [--path xdp|tc|bridge] [-c N] [-s LEN] [-w FILE]",
	  "the frames the datapath decides on, as pcapng (tcpdump -r)" },
	{ "help", XN_CMD_HELP, 0, 0, "", "this text" },
	{ "version", XN_CMD_VERSION, 0, 0, "", "print the version" },
};

/* Options with no short form. */
enum { OPT_LONG = 256, OPT_PORT = OPT_LONG, OPT_PATH };

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
	  "stats: stop after N intervals; dump: after N frames" },
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
	{ { "port", required_argument, NULL, OPT_PORT },
	  O_PORT,
	  "dump: only frames from or to this port of BRIDGE" },
	{ { "path", required_argument, NULL, OPT_PATH },
	  O_PATH,
	  "dump: only frames that took these paths (xdp,tc,bridge)" },
	{ { "snaplen", required_argument, NULL, 'S' },
	  O_SNAPLEN,
	  "dump: bytes of each frame to keep, 1 to 2048 (default 2048; "
	  "-s for dump)" },
	{ { "write", required_argument, NULL, 'w' },
	  O_WRITE,
	  "dump: the pcapng file (- : standard output, the default)" },
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
		if (opt_defs[i].lo.val < OPT_LONG)
			fprintf(f, "  -%c, --%-13s %s\n", opt_defs[i].lo.val,
				opt_defs[i].lo.name, opt_defs[i].help);
		else
			fprintf(f, "      --%-13s %s\n", opt_defs[i].lo.name,
				opt_defs[i].help);
	fputs("\nexit codes: 0 ok, 1 failed (rolled back), 2 usage, 3 no such "
	      "bridge, 4 not permitted, 5 BPF not supported, 6 bpffs "
	      "unavailable, 7 not attached, 8 busy (a follower runs, or the "
	      "lock is held), 9 filters would be bypassed\n",
	      f);
}

/* Is the command "dump"? The first word that is not an option, nor an
 * option's value. (-s means --snaplen there, --strict elsewhere.) */
static int cmd_is_dump(int argc, char **argv)
{
	static const char with_value[] = "micLSw";
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		unsigned int k;

		if (a[0] != '-' || !a[1])
			return !strcmp(a, "dump");
		if (a[1] == '-') {
			for (k = 0; k < N_OPTS; k++)
				if (opt_defs[k].lo.has_arg ==
					    required_argument &&
				    !strcmp(a + 2, opt_defs[k].lo.name))
					i++;
			continue;
		}
		/* a cluster: the first value-taking letter takes the rest,
		 * or the next word when it is last */
		for (k = 1; a[k]; k++)
			if (strchr(with_value, a[k])) {
				if (!a[k + 1])
					i++;
				break;
			}
	}
	return 0;
}

static int parse_snaplen(const char *arg, unsigned int *out)
{
	char *end;
	long n = strtol(arg, &end, 10);

	if (end == arg || *end || n < 1 || n > XDPNET_DUMP_MAX)
		return -1;
	*out = (unsigned int)n;
	return 0;
}

/* "xdp,tc,bridge" into an enum xdpnet_dump_path mask (no empty word). */
static int parse_paths(const char *arg, unsigned int *mask)
{
	static const struct {
		const char *name;
		unsigned int bit;
	} paths[] = { { "xdp", XDPNET_DUMP_XDP },
		      { "tc", XDPNET_DUMP_TC },
		      { "bridge", XDPNET_DUMP_BRIDGE } };
	const char *w = arg;
	unsigned int k;

	*mask = 0;
	for (;;) {
		size_t n = strcspn(w, ",");

		for (k = 0; k < ARRAY_SIZE(paths); k++)
			if (n == strlen(paths[k].name) &&
			    !strncmp(w, paths[k].name, n))
				break;
		if (k == ARRAY_SIZE(paths))
			return -1;
		*mask |= paths[k].bit;
		if (!w[n])
			return 0;
		w += n + 1;
	}
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
	while ((c = getopt_long(argc, argv,
				cmd_is_dump(argc, argv)
					? "+:m:jfnBvhi:c:lrpPL:s:S:w:"
					: "+:m:jfsnBvhi:c:lrpPL:S:w:",
				lopts, NULL)) != -1 ||
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
			/* -s: --strict (since 0.1), but --snaplen for dump,
			 * as in tcpdump */
			if (cmd_is_dump(argc, argv)) {
				given |= O_SNAPLEN;
				if (parse_snaplen(optarg, &o->snaplen))
					return fail(err, errlen,
						    "-s must be 1 to 2048, not "
						    "'%s'",
						    optarg);
				break;
			}
			given |= O_STRICT;
			o->strict = 1;
			break;
		case OPT_PORT:
			given |= O_PORT;
			if (!xn_valid_ifname(optarg))
				return fail(err, errlen,
					    "--port: '%s' is not a valid "
					    "interface name",
					    optarg);
			o->port = optarg;
			break;
		case OPT_PATH:
			given |= O_PATH;
			if (parse_paths(optarg, &o->paths))
				return fail(err, errlen,
					    "--path takes xdp, tc, bridge or a "
					    "comma-separated list, not '%s'",
					    optarg);
			break;
		case 'S':
			given |= O_SNAPLEN;
			if (parse_snaplen(optarg, &o->snaplen))
				return fail(err, errlen,
					    "--snaplen must be 1 to 2048, not "
					    "'%s'",
					    optarg);
			break;
		case 'w':
			given |= O_WRITE;
			o->write = optarg;
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
	if (o->cmd == XN_CMD_STATS && o->count && !o->interval)
		o->interval = 1;
	return 0;
}
