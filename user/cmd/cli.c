// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_ether.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "xdpnet.h"
#include "lib/exit.h"
#include "lib/util.h"
#include "core/paths.h"
#include "core/sizes.h"
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
	O_IN = 1 << 17,
	O_FRAME = 1 << 18,   /* a field of trace's frame */
	O_PCAP = 1 << 19,    /* --pcap, --frame */
	O_SIZE = 1 << 20,    /* --fdb-size, --static-size, --vlan-size */
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
	  O_MODE | O_FOLLOW | O_STRICT | O_NOFOLLOW | O_BYPASS | O_SIZE,
	  "BRIDGE [--mode tc|xdp] [--no-follow] [--bypass-filters] "
	  "[--fdb-size N]",
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
	{ "trace", XN_CMD_TRACE, 1, O_JSON | O_IN | O_FRAME | O_PCAP,
	  "BRIDGE --in P --src MAC --dst MAC [...] | --pcap FILE",
	  "what the datapath would do with a frame, and why" },
	{ "help", XN_CMD_HELP, 0, 0, "", "this text" },
	{ "version", XN_CMD_VERSION, 0, 0, "", "print the version" },
};

/* Options with no short form. */
enum {
	OPT_LONG = 256,
	OPT_PORT = OPT_LONG,
	OPT_PATH,
	OPT_IN,
	OPT_SRC,
	OPT_DST,
	OPT_VLAN,
	OPT_LEN,
	OPT_IP,
	OPT_IP6,
	OPT_ARP,
	OPT_ETHERTYPE,
	OPT_TCP,
	OPT_UDP,
	OPT_ICMP,
	OPT_SADDR,
	OPT_DADDR,
	OPT_PCAP,
	OPT_FRAME,
	OPT_SIZE, /* OPT_SIZE + enum xn_size_id */
	OPT_SIZE_LAST = OPT_SIZE + XN_SIZE_N - 1,
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
	{ { "in", required_argument, NULL, OPT_IN },
	  O_IN,
	  "trace: the port the frame arrives on" },
	{ { "src", required_argument, NULL, OPT_SRC },
	  O_FRAME,
	  "trace: the frame's source MAC" },
	{ { "dst", required_argument, NULL, OPT_DST },
	  O_FRAME,
	  "trace: its destination MAC" },
	{ { "vlan", required_argument, NULL, OPT_VLAN },
	  O_FRAME,
	  "trace: VID[,ad]: an 802.1Q (802.1ad) tag" },
	{ { "len", required_argument, NULL, OPT_LEN },
	  O_FRAME,
	  "trace: bytes of the whole frame (default 60, at most 3500)" },
	{ { "ip", no_argument, NULL, OPT_IP },
	  O_FRAME,
	  "trace: IPv4 (the default; --ip6, --arp, --ethertype HEX)" },
	{ { "ip6", no_argument, NULL, OPT_IP6 }, O_FRAME, NULL },
	{ { "arp", no_argument, NULL, OPT_ARP }, O_FRAME, NULL },
	{ { "ethertype", required_argument, NULL, OPT_ETHERTYPE },
	  O_FRAME,
	  NULL },
	{ { "udp", no_argument, NULL, OPT_UDP },
	  O_FRAME,
	  "trace: UDP (the default; --tcp, --icmp)" },
	{ { "tcp", no_argument, NULL, OPT_TCP }, O_FRAME, NULL },
	{ { "icmp", no_argument, NULL, OPT_ICMP }, O_FRAME, NULL },
	{ { "saddr", required_argument, NULL, OPT_SADDR },
	  O_FRAME,
	  "trace: IP source (default 192.0.2.1, 2001:db8::1)" },
	{ { "daddr", required_argument, NULL, OPT_DADDR },
	  O_FRAME,
	  "trace: IP destination (default 192.0.2.2, 2001:db8::2)" },
	{ { "pcap", required_argument, NULL, OPT_PCAP },
	  O_PCAP,
	  "trace: the frame from a pcap or pcapng capture (- : stdin)" },
	{ { "frame", required_argument, NULL, OPT_FRAME },
	  O_PCAP,
	  "trace --pcap: which frame of it (default 1)" },
	{ { "fdb-size", required_argument, NULL, OPT_SIZE + XN_SIZE_FDB },
	  O_SIZE,
	  "attach: learned MACs the FDB copy holds (default " XN_STR(
		  XDPNET_MAX_FDB) "; kept until given again)" },
	{ { "static-size", required_argument, NULL, OPT_SIZE + XN_SIZE_STATIC },
	  O_SIZE,
	  "attach: static and local FDB entries (default " XN_STR(
		  XDPNET_MAX_STATIC) ")" },
	{ { "vlan-size", required_argument, NULL, OPT_SIZE + XN_SIZE_VLANS },
	  O_SIZE,
	  "attach: VLAN memberships of ports (default " XN_STR(
		  XDPNET_MAX_VLANS) ")" },
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
		if (strlen(cmds[i].args) > 34) /* the help on a line of its own
						*/
			fprintf(f, "  %-8s %s\n  %-8s %-34s %s\n", cmds[i].name,
				cmds[i].args, "", "", cmds[i].help);
		else
			fprintf(f, "  %-8s %-34s %s\n", cmds[i].name,
				cmds[i].args, cmds[i].help);
	fputs("\noptions:\n", f);
	for (i = 0; i < N_OPTS; i++)
		if (!opt_defs[i].help)
			continue; /* named in the help of the one before */
		else if (opt_defs[i].lo.val < OPT_LONG)
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

#define SET(opt) (1U << ((opt)-OPT_SRC))
#define L3_OPTS (SET(OPT_IP) | SET(OPT_IP6) | SET(OPT_ARP) | SET(OPT_ETHERTYPE))
#define L4_OPTS (SET(OPT_TCP) | SET(OPT_UDP) | SET(OPT_ICMP))

static int parse_num(const char *arg, int base, long lo, long hi, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(arg, &end, base);
	return end == arg || *end || errno || *out < lo || *out > hi ? -1 : 0;
}

/* An address of --saddr/--daddr: IPv4 or IPv6 (*v6 says which). */
static int parse_ip(const char *arg, struct in6_addr *a, int *v6)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, arg, a) == 1) {
		*v6 = 0;
		return 0;
	}
	*v6 = 1;
	return inet_pton(AF_INET6, arg, a) == 1 ? 0 : -1;
}

/* trace's frame options, one at a time. */
static int trace_opt(int c, const char *arg, struct xn_opts *o, char *err,
		     size_t errlen)
{
	struct xn_frame_spec *f = &o->frame;
	long n;
	int v6;

	unsigned int i;

	for (i = 0; i < N_OPTS; i++)
		if (opt_defs[i].lo.val == c && (o->frame_set & SET(c)))
			return fail(err, errlen, "--%s given twice",
				    opt_defs[i].lo.name);
	o->frame_set |= SET(c);
	switch (c) {
	case OPT_SRC:
	case OPT_DST:
		if (xn_parse_mac(arg, c == OPT_SRC ? f->src : f->dst))
			return fail(err, errlen,
				    "'%s' is not a MAC address "
				    "(aa:bb:cc:dd:ee:ff)",
				    arg);
		return 0;
	case OPT_VLAN: {
		char vid[8];
		const char *comma = strchr(arg, ',');
		size_t l = comma ? (size_t)(comma - arg) : strlen(arg);

		if (l >= sizeof(vid) || (comma && strcmp(comma + 1, "ad") &&
					 strcmp(comma + 1, "q")))
			return fail(err, errlen,
				    "--vlan takes VID, VID,q or VID,ad, not "
				    "'%s'",
				    arg);
		memcpy(vid, arg, l);
		vid[l] = 0;
		if (parse_num(vid, 10, 0, 4094, &n))
			return fail(err, errlen,
				    "--vlan: the VID must be 0 to 4094, not "
				    "'%s'",
				    arg);
		f->vlan = (int)n;
		f->tpid = comma && !strcmp(comma + 1, "ad") ? ETH_P_8021AD
							    : ETH_P_8021Q;
		return 0;
	}
	case OPT_LEN:
		if (parse_num(arg, 10, ETH_HLEN, 3500, &n))
			return fail(err, errlen,
				    "--len must be 14 to 3500 bytes, not '%s'",
				    arg);
		f->len = (unsigned int)n;
		return 0;
	case OPT_ETHERTYPE:
		if (parse_num(arg, 16, 0x600, 0xffff, &n))
			return fail(err, errlen,
				    "--ethertype takes a hexadecimal "
				    "EtherType of 0600 to ffff, not '%s'",
				    arg);
		f->l3 = XN_L3_RAW;
		f->ethertype = (__u16)n;
		return 0;
	case OPT_IP:
	case OPT_IP6:
	case OPT_ARP:
		f->l3 = c == OPT_IP    ? XN_L3_IPV4
			: c == OPT_IP6 ? XN_L3_IPV6
				       : XN_L3_ARP;
		return 0;
	case OPT_TCP:
	case OPT_UDP:
	case OPT_ICMP:
		f->l4 = c == OPT_TCP   ? XN_L4_TCP
			: c == OPT_UDP ? XN_L4_UDP
				       : XN_L4_ICMP;
		return 0;
	case OPT_SADDR:
	case OPT_DADDR:
		if (parse_ip(arg, c == OPT_SADDR ? &f->saddr : &f->daddr, &v6))
			return fail(err, errlen,
				    "'%s' is not an IPv4 or IPv6 address", arg);
		o->frame_set |= v6 ? SET(OPT_IP6) << 16 : SET(OPT_IP) << 16;
		return 0;
	case OPT_PCAP:
		o->pcap = arg;
		return 0;
	case OPT_FRAME:
		if (parse_num(arg, 10, 1, 1000000000, &n))
			return fail(err, errlen,
				    "--frame must be a positive number, not "
				    "'%s'",
				    arg);
		o->frame_no = (unsigned long)n;
		return 0;
	}
	return 0;
}

/* trace: the frame is fully given, one way. */
static int trace_check(struct xn_opts *o, char *err, size_t errlen)
{
	unsigned int set = o->frame_set & 0xffff, fam = o->frame_set >> 16;
	unsigned int fields = set & ~(SET(OPT_PCAP) | SET(OPT_FRAME));

	if (o->pcap && fields)
		return fail(err, errlen, "%s",
			    "--pcap takes the frame from the capture: no "
			    "--src, --dst or other field with it");
	if (!o->pcap && (set & SET(OPT_FRAME)))
		return fail(err, errlen, "%s", "--frame needs --pcap");
	if (o->pcap) {
		if (!o->frame_no)
			o->frame_no = 1;
		return 0;
	}
	if (!(set & SET(OPT_SRC)) || !(set & SET(OPT_DST)))
		return fail(err, errlen, "%s",
			    "trace needs a frame: --src MAC --dst MAC [...], "
			    "or --pcap FILE");
	if (!o->in)
		return fail(err, errlen, "%s",
			    "trace needs --in PORT: the port the frame "
			    "arrives on");
	if (__builtin_popcount(set & L3_OPTS) > 1)
		return fail(err, errlen, "%s",
			    "give one of --ip, --ip6, --arp, --ethertype");
	if (__builtin_popcount(set & L4_OPTS) > 1)
		return fail(err, errlen, "%s",
			    "give one of --tcp, --udp, --icmp");
	/* No protocol given: the addresses' family says, else IPv4. */
	if (!(set & L3_OPTS) && fam == SET(OPT_IP6))
		o->frame.l3 = XN_L3_IPV6;
	if (fam & ~(o->frame.l3 == XN_L3_IPV6 ? SET(OPT_IP6) : SET(OPT_IP)))
		return fail(err, errlen, "%s",
			    o->frame.l3 == XN_L3_IPV6 ||
					    o->frame.l3 == XN_L3_IPV4
				    ? "--saddr and --daddr must be of the "
				      "frame's IP version"
				    : "--saddr and --daddr need --ip or --ip6");
	if ((set & L4_OPTS) && o->frame.l3 != XN_L3_IPV4 &&
	    o->frame.l3 != XN_L3_IPV6)
		return fail(err, errlen, "%s",
			    "--tcp, --udp and --icmp need --ip or --ip6");
	if (o->frame.len && o->frame.len < xn_frame_min_len(&o->frame)) {
		snprintf(err, errlen,
			 "--len %u is shorter than the frame's headers (%zu "
			 "bytes)",
			 o->frame.len, xn_frame_min_len(&o->frame));
		return XN_EUSAGE;
	}
	return 0;
}

int xn_parse_args(int argc, char **argv, struct xn_opts *o, char *err,
		  size_t errlen)
{
	struct option lopts[N_OPTS + 1];
	const struct cmd_def *cmd = NULL;
	int c, given = 0;
	unsigned int i;

	memset(o, 0, sizeof(*o));
	o->frame.vlan = -1;
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
		case OPT_IN:
			given |= O_IN;
			if (!xn_valid_ifname(optarg))
				return fail(err, errlen,
					    "--in: '%s' is not a valid "
					    "interface name",
					    optarg);
			o->in = optarg;
			break;
		case OPT_SRC:
		case OPT_DST:
		case OPT_VLAN:
		case OPT_LEN:
		case OPT_IP:
		case OPT_IP6:
		case OPT_ARP:
		case OPT_ETHERTYPE:
		case OPT_TCP:
		case OPT_UDP:
		case OPT_ICMP:
		case OPT_SADDR:
		case OPT_DADDR:
		case OPT_PCAP:
		case OPT_FRAME: {
			int e;

			given |= c == OPT_PCAP || c == OPT_FRAME ? O_PCAP
								 : O_FRAME;
			e = trace_opt(c, optarg, o, err, errlen);
			if (e)
				return e;
			break;
		}
		case OPT_SIZE + XN_SIZE_FDB:
		case OPT_SIZE + XN_SIZE_STATIC:
		case OPT_SIZE + XN_SIZE_VLANS: {
			const struct xn_size_def *sz = &xn_sizes[c - OPT_SIZE];
			long n;

			given |= O_SIZE;
			if (parse_num(optarg, 10, 1, sz->max, &n)) {
				snprintf(err, errlen,
					 "--%s must be 1 to %u, not '%s'",
					 sz->opt, sz->max, optarg);
				return XN_EUSAGE;
			}
			o->size[c - OPT_SIZE] = (__u32)n;
			break;
		}
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
	if (o->cmd == XN_CMD_TRACE)
		return trace_check(o, err, errlen);
	return 0;
}
