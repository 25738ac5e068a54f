// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The command line: every command's table of options drives both its
 * parser and its help (cli.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_ether.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "xdpnet.h"
#include "lib/addr.h"
#include "lib/util.h"
#include "state/paths.h"
#include "state/sizes.h"
#include "cmd/cli.h"

/* What the parser does with an option (struct xn_opt's id). */
enum {
	OPT_NONE,
	OPT_MODE,
	OPT_JSON,
	OPT_PRETTY,
	OPT_FOLLOW,
	OPT_NOFOLLOW,
	OPT_BYPASS,
	OPT_STRICT,
	OPT_INTERVAL,
	OPT_COUNT,
	OPT_LATENCY,
	OPT_RESET,
	OPT_PROM,
	OPT_PAIRS,
	OPT_LISTEN,
	OPT_PORT,
	OPT_PATH,
	OPT_SNAPLEN,
	OPT_WRITE,
	OPT_IN,
	/* trace's frame: 15 in a row (o->frame_set has a bit each) */
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
	OPT_VERBOSE,
	OPT_HELP,
	OPT_VERSION,
	OPT_N,
};

/* getopt_long's value of an option with no letter: above every char. */
#define LONG_VAL(id) (256 + (id))

/* The options several commands share: one wording each. */
#define JSON_OPTS                                                           \
	{ "json", 'j', NULL, OPT_JSON, "JSON output" },                     \
	{                                                                   \
		"pretty", 'p', NULL, OPT_PRETTY,                            \
			"JSON output, indented for people (implies --json)" \
	}
#define END_OPTS                              \
	{                                     \
		NULL, 0, NULL, OPT_NONE, NULL \
	}

static const struct xn_opt attach_opts[] = {
	{ "mode", 'm', "tc|xdp", OPT_MODE,
	  "where frames are redirected (default tc, or as before)" },
	{ "follow", 'f', NULL, OPT_FOLLOW,
	  "run the follower in the foreground instead of a daemon" },
	{ "no-follow", 0, NULL, OPT_NOFOLLOW,
	  "no follower: bridge changes are not followed" },
	{ "bypass-filters", 'B', NULL, OPT_BYPASS,
	  "bypass even where host filters apply between ports" },
	{ "strict", 0, NULL, OPT_STRICT,
	  "accepted for compatibility (always the behaviour now)" },
	{ "fdb-size", 0, "N", OPT_SIZE + XN_SIZE_FDB,
	  "learned MACs the FDB copy holds (default " XN_STR(
		  XDPNET_MAX_FDB) ", kept)" },
	{ "static-size", 0, "N", OPT_SIZE + XN_SIZE_STATIC,
	  "static and local FDB entries (default " XN_STR(
		  XDPNET_MAX_STATIC) ", kept)" },
	{ "vlan-size", 0, "N", OPT_SIZE + XN_SIZE_VLANS,
	  "VLAN memberships of ports (default " XN_STR(
		  XDPNET_MAX_VLANS) ", kept)" },
	END_OPTS,
};

static const struct xn_opt json_opts[] = { JSON_OPTS, END_OPTS };

static const struct xn_opt stats_opts[] = {
	{ "interval", 'i', "SEC", OPT_INTERVAL,
	  "sample every SEC seconds (0.1 to 86400), show rates" },
	{ "count", 'c', "N", OPT_COUNT,
	  "stop after N intervals (alone: every second)" },
	JSON_OPTS,
	{ "prom", 0, NULL, OPT_PROM,
	  "Prometheus text format (node_exporter textfile)" },
	{ "latency-pairs", 'P', NULL, OPT_PAIRS,
	  "--prom: latency per port pair, not per port" },
	{ "latency", 'l', NULL, OPT_LATENCY,
	  "forwarding-latency histograms per port pair and path" },
	{ "reset", 'r', NULL, OPT_RESET,
	  "zero xdpnet's counters and histograms first" },
	END_OPTS,
};

static const struct xn_opt exporter_opts[] = {
	{ "listen", 'L', "ADDR:PORT", OPT_LISTEN,
	  "ADDR:PORT or [ADDR6]:PORT (default " XN_EXPORTER_DEFAULT ")" },
	{ "latency-pairs", 'P', NULL, OPT_PAIRS,
	  "latency per port pair, not per port" },
	END_OPTS,
};

static const struct xn_opt dump_opts[] = {
	{ "port", 0, "PORT", OPT_PORT,
	  "only frames from or to this port of BRIDGE" },
	{ "path", 0, "LIST", OPT_PATH,
	  "only frames of these paths, comma-separated: xdp,tc,bridge" },
	{ "count", 'c', "N", OPT_COUNT, "stop after N frames" },
	{ "snaplen", 's', "LEN", OPT_SNAPLEN,
	  "bytes of each frame to keep, 1 to 2048 (default 2048)" },
	{ "write", 'w', "FILE", OPT_WRITE,
	  "the pcapng file (- : standard output, the default)" },
	END_OPTS,
};

static const struct xn_opt trace_opts[] = {
	{ "in", 0, "PORT", OPT_IN, "the port the frame arrives on" },
	{ "src", 0, "MAC", OPT_SRC, "the frame's source MAC" },
	{ "dst", 0, "MAC", OPT_DST, "its destination MAC" },
	{ "vlan", 0, "VID[,ad]", OPT_VLAN, "an 802.1Q tag (802.1ad with ,ad)" },
	{ "len", 0, "N", OPT_LEN,
	  "bytes of the whole frame, 14 to 3500 (default 60)" },
	{ "ip", 0, NULL, OPT_IP, "IPv4 (the default)" },
	{ "ip6", 0, NULL, OPT_IP6, "IPv6" },
	{ "arp", 0, NULL, OPT_ARP, "ARP" },
	{ "ethertype", 0, "HEX", OPT_ETHERTYPE,
	  "another EtherType, 0600 to ffff" },
	{ "udp", 0, NULL, OPT_UDP, "UDP (the default)" },
	{ "tcp", 0, NULL, OPT_TCP, "TCP" },
	{ "icmp", 0, NULL, OPT_ICMP, "ICMP" },
	{ "saddr", 0, "IP", OPT_SADDR,
	  "IP source (default 192.0.2.1, 2001:db8::1)" },
	{ "daddr", 0, "IP", OPT_DADDR,
	  "IP destination (default 192.0.2.2, 2001:db8::2)" },
	{ "pcap", 0, "FILE", OPT_PCAP,
	  "the frame from a pcap or pcapng capture (- : stdin)" },
	{ "frame", 0, "N", OPT_FRAME,
	  "with --pcap: which frame of it (default 1)" },
	JSON_OPTS,
	END_OPTS,
};

static const struct xn_opt no_opts[] = { END_OPTS };

const struct xn_opt xn_global_opts[] = {
	{ "verbose", 'v', NULL, OPT_VERBOSE,
	  "more detail (twice: libbpf's debug log)" },
	{ "help", 'h', NULL, OPT_HELP, "this text" },
	{ "version", 'V', NULL, OPT_VERSION,
	  "the version, build id and git description" },
	END_OPTS,
};

const struct xn_cmd_def xn_cmds[] = {
	{ "attach", XN_CMD_ATTACH, 1, 0, "BRIDGE",
	  "bypass the bridge between its tap/veth ports", attach_opts },
	{ "follow", XN_CMD_FOLLOW, 1, 0, "BRIDGE",
	  "keep the datapath in step with the bridge", no_opts },
	{ "detach", XN_CMD_DETACH, 1, 0, "BRIDGE",
	  "remove everything xdpnet set up for BRIDGE", no_opts },
	{ "status", XN_CMD_STATUS, 2, 0, "[BRIDGE]",
	  "ports, stages, program ids, FDB size, counters", json_opts },
	{ "fdb", XN_CMD_FDB, 1, 0, "BRIDGE",
	  "the forwarding table as the datapath sees it", json_opts },
	{ "stats", XN_CMD_STATS, 1, 0, "BRIDGE",
	  "rates and counters by port and path, latency", stats_opts },
	{ "latency", XN_CMD_LATENCY, 1, 1, "BRIDGE [on|off]",
	  "switch the forwarding-latency probe on or off", no_opts },
	{ "exporter", XN_CMD_EXPORTER, 2, 0, "[BRIDGE]",
	  "serve the counters to Prometheus", exporter_opts },
	{ "dump", XN_CMD_DUMP, 1, 0, "BRIDGE",
	  "the frames the datapath decides on, as pcapng", dump_opts },
	{ "trace", XN_CMD_TRACE, 1, 0, "BRIDGE",
	  "what the datapath would do with a frame, and why", trace_opts },
	{ "help", XN_CMD_HELP, 0, 1, "[COMMAND]",
	  "this overview, or a command's options", no_opts },
	{ "version", XN_CMD_VERSION, 0, 0, "",
	  "the version, build id and git description", no_opts },
};

const unsigned int xn_ncmds = ARRAY_SIZE(xn_cmds);

/* Options in getopt's table at most: each id once (by_id). */
#define MAX_OPTS OPT_N

const struct xn_cmd_def *xn_cmd_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < xn_ncmds; i++)
		if (!strcmp(name, xn_cmds[i].name))
			return &xn_cmds[i];
	return NULL;
}

/* ------------------------------------------------------------ help */

#define WIDTH 79

/* "-m, --mode tc|xdp" or "    --no-follow". */
static int opt_label(char *buf, size_t len, const struct xn_opt *p)
{
	return snprintf(buf, len, "%c%c%c --%s%s%s", p->letter ? '-' : ' ',
			p->letter ? p->letter : ' ', p->letter ? ',' : ' ',
			p->name, p->arg ? " " : "", p->arg ? p->arg : "");
}

static void opt_lines(FILE *f, const struct xn_opt *opts, int w)
{
	const struct xn_opt *p;
	char label[64];

	for (p = opts; p->name; p++) {
		opt_label(label, sizeof(label), p);
		if ((int)strlen(label) > w)
			fprintf(f, "  %s\n  %-*s  %s\n", label, w, "", p->help);
		else
			fprintf(f, "  %-*s  %s\n", w, label, p->help);
	}
}

static int label_width(const struct xn_opt *opts, int w)
{
	const struct xn_opt *p;
	char label[64];

	for (p = opts; p->name; p++) {
		int n = opt_label(label, sizeof(label), p);

		if (n > w && n <= 26)
			w = n;
	}
	return w;
}

void xn_usage(FILE *f)
{
	unsigned int i;

	fputs("usage: xdpnet COMMAND [ARGS] [OPTIONS]\n"
	      "       xdpnet help COMMAND | xdpnet COMMAND --help\n"
	      "       xdpnet -V | --version\n\ncommands:\n",
	      f);
	for (i = 0; i < xn_ncmds; i++)
		fprintf(f, "  %-8s %-15s  %s\n", xn_cmds[i].name,
			xn_cmds[i].args, xn_cmds[i].help);
	fputs("\noptions of every command:\n", f);
	opt_lines(f, xn_global_opts, label_width(xn_global_opts, 0));
	fputs("\nxdpnet help CMD for a command's options.\n"
	      "exit codes: 0 ok, 1 failed (rolled back), 2 usage, 3 no such "
	      "bridge,\n  4 not permitted, 5 BPF refused by the kernel, "
	      "6 bpffs unavailable,\n  7 not attached, 8 busy (a follower "
	      "runs, or the lock is held),\n  9 filters would be bypassed\n",
	      f);
}

/* The synopsis: every option of the command, wrapped under its first
 * word. */
static void synopsis(FILE *f, const struct xn_cmd_def *c)
{
	const struct xn_opt *p;
	int col, indent;
	char word[64];

	col = fprintf(f, "usage: xdpnet %s", c->name);
	indent = col + 1;
	if (c->args[0])
		col += fprintf(f, " %s", c->args);
	for (p = c->opts; p->name; p++) {
		int n = snprintf(word, sizeof(word), "[--%s%s%s]", p->name,
				 p->arg ? " " : "", p->arg ? p->arg : "");

		if (col + 1 + n > WIDTH) {
			col = fprintf(f, "\n%*s%s", indent, "", word) - 1;
			continue;
		}
		col += fprintf(f, " %s", word);
	}
	fputc('\n', f);
}

int xn_cmd_usage(FILE *f, const char *name)
{
	const struct xn_cmd_def *c = xn_cmd_find(name);
	int w;

	if (!c)
		return -1;
	synopsis(f, c);
	fprintf(f, "%s\n\noptions:\n", c->help);
	w = label_width(xn_global_opts, label_width(c->opts, 0));
	opt_lines(f, c->opts, w);
	opt_lines(f, xn_global_opts, w);
	return 0;
}

/* ----------------------------------------------------------- lookup */

/* Every table in turn: the commands', then the global one (NULL after). */
static const struct xn_opt *table_at(unsigned int i)
{
	return i < xn_ncmds    ? xn_cmds[i].opts
	       : i == xn_ncmds ? xn_global_opts
			       : NULL;
}

/* The option a short letter names in any table (one meaning each). */
static const struct xn_opt *any_letter(int c)
{
	const struct xn_opt *t, *p;
	unsigned int i;

	for (i = 0; (t = table_at(i)); i++)
		for (p = t; p->name; p++)
			if (c > 0 && p->letter == c)
				return p;
	return NULL;
}

/* The option that n bytes of word name in the table (exactly, else as
 * an unambiguous prefix), or NULL; *many: more than one by prefix. */
static const struct xn_opt *in_table(const struct xn_opt *t, const char *word,
				     size_t n, int *many)
{
	const struct xn_opt *p, *hit = NULL;

	for (p = t; p->name; p++)
		if (!strncmp(p->name, word, n) && !p->name[n])
			return p;
	for (p = t; p->name; p++)
		if (!strncmp(p->name, word, n)) {
			if (hit && strcmp(hit->name, p->name))
				*many = 1;
			hit = p;
		}
	return *many ? NULL : hit;
}

/* The option n bytes of a long word name in any table, or NULL. */
static const struct xn_opt *any_long(const char *word, size_t n)
{
	const struct xn_opt *t, *p, *hit = NULL;
	unsigned int i;
	int many = 0;

	for (i = 0; (t = table_at(i)); i++)
		for (p = t; p->name; p++)
			if (!strncmp(p->name, word, n) && !p->name[n])
				return p;
	for (i = 0; (t = table_at(i)); i++) {
		p = in_table(t, word, n, &many);
		if (many || (p && hit && strcmp(p->name, hit->name)))
			return NULL;
		if (p)
			hit = p;
	}
	return hit;
}

/* The command word: the first word that is neither an option nor an
 * option's value (a value-taking option has a value in every table). */
static const char *command_word(int argc, char **argv)
{
	const struct xn_opt *p;
	int i, k;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (a[0] != '-' || !a[1])
			return a;
		if (!strcmp(a, "--"))
			return i + 1 < argc ? argv[i + 1] : NULL;
		if (a[1] == '-') {
			p = any_long(a + 2, strcspn(a + 2, "="));
			if (p && p->arg && !strchr(a, '='))
				i++;
			continue;
		}
		/* a cluster: the first value-taking letter takes the rest,
		 * or the next word when it is last */
		for (k = 1; a[k]; k++) {
			p = any_letter(a[k]);
			if (p && p->arg) {
				if (!a[k + 1])
					i++;
				break;
			}
		}
	}
	return NULL;
}

/* getopt_long's tables for a command's options and the global ones (for
 * no command: every option of every table, once). */
static void getopt_tables(const struct xn_cmd_def *c, struct option *lo,
			  char *so, const struct xn_opt **by_id)
{
	const struct xn_opt *t, *p;
	unsigned int i, n = 0;

	*so++ = '+'; /* stop at the command word, BRIDGE and the operand */
	*so++ = ':'; /* a missing value is ':', not '?' */
	for (i = 0; (t = table_at(i)); i++) {
		if (c && t != c->opts && t != xn_global_opts)
			continue;
		for (p = t; p->name; p++) {
			if (by_id[p->id])
				continue;
			by_id[p->id] = p;
			lo[n].name = p->name;
			lo[n].has_arg = p->arg ? required_argument
					       : no_argument;
			lo[n].flag = NULL;
			lo[n].val = p->letter ? p->letter : LONG_VAL(p->id);
			n++;
			if (p->letter) {
				*so++ = p->letter;
				if (p->arg)
					*so++ = ':';
			}
		}
	}
	memset(&lo[n], 0, sizeof(lo[n]));
	*so = 0;
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
static int trace_opt(int c, const char *name, const char *arg,
		     struct xn_opts *o, char *err, size_t errlen)
{
	struct xn_frame_spec *f = &o->frame;
	long n;
	int v6;

	if (o->frame_set & SET(c))
		return fail(err, errlen, "--%s given twice", name);
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

/* A word getopt refused: name the option, and whose it is. */
static int bad_option(const struct xn_cmd_def *c, const struct xn_opt **by_id,
		      const char *word, int opt, char *err, size_t errlen)
{
	const char *help = c ? c->name : "";
	const struct xn_opt *p = NULL;
	unsigned int i;
	int many = 0;

	if (opt >= LONG_VAL(0) && opt < LONG_VAL(OPT_N))
		p = by_id[opt - LONG_VAL(0)];
	for (i = 0; !p && opt > 0 && i < OPT_N; i++)
		if (by_id[i] && by_id[i]->letter == opt)
			p = by_id[i];
	if (p) {
		/* an option of this command: a flag given a value */
		snprintf(err, errlen, "--%s takes no value", p->name);
		return XN_EUSAGE;
	}
	if (opt > 0) {
		/* a letter (getopt's optopt) */
		p = any_letter(opt);
		if (p && c)
			snprintf(err, errlen,
				 "-%c (--%s) is not an option of %s (xdpnet "
				 "help %s)",
				 opt, p->name, c->name, c->name);
		else
			snprintf(err, errlen,
				 "unknown option '-%c' (xdpnet help%s%s)", opt,
				 c ? " " : "", help);
		return XN_EUSAGE;
	}
	if (!strncmp(word, "--", 2)) {
		size_t n = strcspn(word + 2, "=");

		if (c)
			in_table(c->opts, word + 2, n, &many);
		p = many ? NULL : any_long(word + 2, n);
		if (many)
			snprintf(err, errlen,
				 "'--%.*s' is ambiguous for %s (xdpnet help "
				 "%s)",
				 (int)n, word + 2, c->name, c->name);
		else if (p && c)
			snprintf(err, errlen,
				 "--%s is not an option of %s (xdpnet help %s)",
				 p->name, c->name, c->name);
		else
			snprintf(err, errlen,
				 "unknown option '--%.*s' (xdpnet help%s%s)",
				 (int)n, word + 2, c ? " " : "", help);
		return XN_EUSAGE;
	}
	return fail(err, errlen, "unknown option '%s'", word);
}

/* A value missing: "--mode needs a value (tc|xdp)". */
static int no_value(const struct xn_opt **by_id, const char *word, int opt,
		    char *err, size_t errlen)
{
	const struct xn_opt *p = NULL;
	unsigned int i;

	if (opt >= LONG_VAL(0) && opt < LONG_VAL(OPT_N))
		p = by_id[opt - LONG_VAL(0)];
	for (i = 0; !p && i < OPT_N; i++)
		if (by_id[i] && by_id[i]->letter == opt)
			p = by_id[i];
	if (!p)
		return fail(err, errlen, "option '%s' needs a value", word);
	if (!strncmp(word, "--", 2))
		snprintf(err, errlen, "--%s needs a value (%s)", p->name,
			 p->arg);
	else
		snprintf(err, errlen, "-%c needs a value (--%s %s)", p->letter,
			 p->name, p->arg);
	return XN_EUSAGE;
}

/* One option of the command, id its OPT_*. */
static int one_option(int id, const char *name, const char *arg,
		      struct xn_opts *o, char *err, size_t errlen)
{
	char *end;
	long n;

	switch (id) {
	case OPT_MODE:
		if (!strcmp(arg, "tc"))
			o->mode = XDPNET_MODE_TC;
		else if (!strcmp(arg, "xdp"))
			o->mode = XDPNET_MODE_XDP;
		else
			return fail(err, errlen,
				    "--mode must be tc or xdp, not '%s'", arg);
		return 0;
	case OPT_PRETTY: /* implies --json, as bpftool's -p does */
	case OPT_JSON:
		o->json = 1;
		o->pretty |= id == OPT_PRETTY;
		return 0;
	case OPT_FOLLOW:
		o->follow = 1;
		return 0;
	case OPT_NOFOLLOW:
		o->no_follow = 1;
		return 0;
	case OPT_BYPASS:
		o->bypass_filters = 1;
		return 0;
	case OPT_STRICT:
		o->strict = 1;
		return 0;
	case OPT_INTERVAL:
		o->interval = strtod(arg, &end);
		if (end == arg || *end || !(o->interval >= 0.1) ||
		    o->interval > 86400)
			return fail(err, errlen,
				    "--interval must be 0.1 to 86400 seconds, "
				    "not '%s'",
				    arg);
		return 0;
	case OPT_COUNT:
		if (parse_num(arg, 10, 1, 1000000000, &n))
			return fail(err, errlen,
				    "--count must be a positive number, not "
				    "'%s'",
				    arg);
		o->count = n;
		return 0;
	case OPT_LATENCY:
		o->latency = 1;
		return 0;
	case OPT_RESET:
		o->reset = 1;
		return 0;
	case OPT_PROM:
		o->prom = 1;
		return 0;
	case OPT_PAIRS:
		o->lat_pairs = 1;
		return 0;
	case OPT_LISTEN:
		o->listen = arg;
		return 0;
	case OPT_PORT:
	case OPT_IN:
		if (!xn_valid_ifname(arg)) {
			snprintf(err, errlen,
				 "--%s: '%s' is not a valid interface name",
				 name, arg);
			return XN_EUSAGE;
		}
		*(id == OPT_PORT ? &o->port : &o->in) = arg;
		return 0;
	case OPT_PATH:
		if (parse_paths(arg, &o->paths))
			return fail(err, errlen,
				    "--path takes xdp, tc, bridge or a "
				    "comma-separated list of them, not '%s'",
				    arg);
		return 0;
	case OPT_SNAPLEN:
		if (parse_snaplen(arg, &o->snaplen))
			return fail(err, errlen,
				    "--snaplen must be 1 to 2048, not '%s'",
				    arg);
		return 0;
	case OPT_WRITE:
		o->write = arg;
		return 0;
	case OPT_SIZE + XN_SIZE_FDB:
	case OPT_SIZE + XN_SIZE_STATIC:
	case OPT_SIZE + XN_SIZE_VLANS: {
		const struct xn_size_def *sz = &xn_sizes[id - OPT_SIZE];

		if (parse_num(arg, 10, 1, sz->max, &n)) {
			snprintf(err, errlen, "--%s must be 1 to %u, not '%s'",
				 sz->opt, sz->max, arg);
			return XN_EUSAGE;
		}
		o->size[id - OPT_SIZE] = (__u32)n;
		return 0;
	}
	case OPT_VERBOSE:
		o->verbose++;
		return 0;
	}
	if (id >= OPT_SRC && id <= OPT_FRAME)
		return trace_opt(id, name, arg, o, err, errlen);
	return 0;
}

int xn_parse_args(int argc, char **argv, struct xn_opts *o, char *err,
		  size_t errlen)
{
	const struct xn_opt *by_id[OPT_N] = { NULL };
	struct option lopts[MAX_OPTS + 1];
	char sopts[3 * MAX_OPTS + 3];
	const struct xn_cmd_def *cmd = NULL, *named = NULL;
	const char *word = command_word(argc, argv);
	unsigned long long given = 0;
	int c;

	memset(o, 0, sizeof(*o));
	o->frame.vlan = -1;
	if (word) {
		cmd = xn_cmd_find(word);
		if (!cmd)
			return fail(err, errlen,
				    "unknown command '%s' (xdpnet help)", word);
		o->cmd_name = cmd->name;
	}
	getopt_tables(cmd, lopts, sopts, by_id);
	optind = 0; /* 0, not 1: also resets getopt's internal state */
	opterr = 0;
	while ((c = getopt_long(argc, argv, sopts, lopts, NULL)) != -1 ||
	       optind < argc) {
		const struct xn_opt *p = NULL;
		unsigned int i;
		int e;

		if (c == -1) {
			/* A non-option: the command, then its operands. */
			const char *a = argv[optind++];

			if (!named) {
				/* the word command_word() found */
				named = xn_cmd_find(a);
				if (!named || named != cmd)
					return fail(err, errlen,
						    "unknown command '%s' "
						    "(xdpnet help)",
						    a);
			} else if (!o->bridge && named->bridge) {
				o->bridge = a;
			} else if (named->operand && !o->arg) {
				o->arg = a;
			} else {
				return fail(err, errlen,
					    "unexpected argument '%s'", a);
			}
			continue;
		}
		if (c == '?')
			return bad_option(cmd, by_id, argv[optind - 1], optopt,
					  err, errlen);
		if (c == ':')
			return no_value(by_id, argv[optind - 1], optopt, err,
					errlen);
		if (c >= LONG_VAL(0) && c < LONG_VAL(OPT_N))
			p = by_id[c - LONG_VAL(0)];
		for (i = 0; !p && i < OPT_N; i++)
			if (by_id[i] && by_id[i]->letter == c)
				p = by_id[i];
		if (!p)
			return fail(err, errlen, "unknown option '%s'",
				    argv[optind - 1]);
		if (p->id == OPT_HELP) {
			o->cmd = XN_CMD_HELP;
			o->topic = cmd ? cmd->name : NULL;
			return 0;
		}
		if (p->id == OPT_VERSION) {
			o->cmd = XN_CMD_VERSION;
			return 0;
		}
		given |= 1ULL << p->id;
		e = one_option(p->id, p->name, optarg, o, err, errlen);
		if (e)
			return e;
	}
	if (!cmd)
		return fail(err, errlen, "%s",
			    "no command given (xdpnet help)");
	o->cmd = cmd->cmd;
	if (cmd->bridge == 1 && !o->bridge) {
		snprintf(err, errlen, "'%s' needs a BRIDGE (xdpnet help %s)",
			 cmd->name, cmd->name);
		return XN_EUSAGE;
	}
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
	if (o->cmd == XN_CMD_HELP && o->arg) {
		if (!xn_cmd_find(o->arg))
			return fail(err, errlen,
				    "no command '%s' to help with (xdpnet "
				    "help)",
				    o->arg);
		o->topic = o->arg;
	}
	if (o->json && o->prom)
		return fail(err, errlen, "%s",
			    o->pretty ? "--pretty and --prom exclude each other"
				      : "--json and --prom exclude each other");
	if (o->prom && (given & (1ULL << OPT_INTERVAL | 1ULL << OPT_COUNT)))
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
