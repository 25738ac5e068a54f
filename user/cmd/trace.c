// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdpnet trace BRIDGE --in PORT (--src MAC --dst MAC [...] | --pcap FILE)
 * [--json]: what the datapath would do with that frame arriving on PORT,
 * stage by stage, and why (observe/trace.c), printed by render/trace.c. Nothing
 * the datapath keeps changes.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/if_ether.h>
#include "lib/frame.h"
#include "lib/log.h"
#include "lib/nl.h"
#include "lib/pcap_read.h"
#include "lib/util.h"
#include "state/system.h"
#include "observe/trace.h"
#include "render/trace.h"
#include "cmd/cmd.h"

#define T struct xn_trace_args

/* struct xn_trace_args' family: the addresses' families given. */
enum { FAM_IPV4 = 1, FAM_IPV6 = 2 };

/* --src, --dst: a MAC address into the frame. */
static int mac(const struct xn_opt *p, const char *arg, void *opts, char *err,
	       size_t len)
{
	struct xn_frame_spec *f = &((T *)opts)->frame;

	if (xn_parse_mac(arg, p->name[0] == 's' ? f->src : f->dst)) {
		xn_usage_err(err, len,
			     "'%s' is not a MAC address (aa:bb:cc:dd:ee:ff)",
			     arg);
		return -1;
	}
	return 0;
}

/* A whole number of min to max in base into *out. */
static int number(const char *arg, int base, long min, long max, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(arg, &end, base);
	return end == arg || *end || errno || *out < min || *out > max ? -1 : 0;
}

/* --vlan VID[,q|,ad]: a tag after the addresses. */
static int vlan(const struct xn_opt *p, const char *arg, void *opts, char *err,
		size_t len)
{
	struct xn_frame_spec *f = &((T *)opts)->frame;
	const char *comma = strchr(arg, ',');
	size_t l = comma ? (size_t)(comma - arg) : strlen(arg);
	char vid[8];
	long n;

	(void)p;
	if (l >= sizeof(vid) ||
	    (comma && strcmp(comma + 1, "ad") && strcmp(comma + 1, "q"))) {
		xn_usage_err(err, len,
			     "--vlan takes VID, VID,q or VID,ad, not '%s'",
			     arg);
		return -1;
	}
	memcpy(vid, arg, l);
	vid[l] = 0;
	if (number(vid, 10, 0, 4094, &n)) {
		xn_usage_err(err, len,
			     "--vlan: the VID must be 0 to 4094, not '%s'",
			     arg);
		return -1;
	}
	f->vlan = (int)n;
	f->tpid = comma && !strcmp(comma + 1, "ad") ? ETH_P_8021AD
						    : ETH_P_8021Q;
	return 0;
}

/* --ethertype HEX: a frame of another EtherType. */
static int ethertype(const struct xn_opt *p, const char *arg, void *opts,
		     char *err, size_t len)
{
	struct xn_frame_spec *f = &((T *)opts)->frame;
	long n;

	(void)p;
	if (number(arg, 16, 0x600, 0xffff, &n)) {
		xn_usage_err(err, len,
			     "--ethertype takes a hexadecimal EtherType of "
			     "0600 to ffff, not '%s'",
			     arg);
		return -1;
	}
	f->l3 = XN_L3_RAW;
	f->ethertype = (__u16)n;
	return 0;
}

/* --saddr, --daddr: IPv4 or IPv6 (family: which were given). */
static int ip_addr(const struct xn_opt *p, const char *arg, void *opts,
		   char *err, size_t len)
{
	T *o = opts;
	struct in6_addr *a = p->name[0] == 's' ? &o->frame.saddr
					       : &o->frame.daddr;

	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, arg, a) == 1) {
		o->family |= FAM_IPV4;
		return 0;
	}
	if (inet_pton(AF_INET6, arg, a) == 1) {
		o->family |= FAM_IPV6;
		return 0;
	}
	xn_usage_err(err, len, "'%s' is not an IPv4 or IPv6 address", arg);
	return -1;
}

/* The options' places in the table (given's bits). */
enum {
	O_IN,
	O_SRC,
	O_DST,
	O_VLAN,
	O_LEN,
	O_IP,
	O_IP6,
	O_ARP,
	O_ETHERTYPE,
	O_UDP,
	O_TCP,
	O_ICMP,
	O_SADDR,
	O_DADDR,
	O_PCAP,
	O_FRAME,
};

#define BIT(o) (1ULL << (o))
#define L3_OPTS (BIT(O_IP) | BIT(O_IP6) | BIT(O_ARP) | BIT(O_ETHERTYPE))
#define L4_OPTS (BIT(O_TCP) | BIT(O_UDP) | BIT(O_ICMP))
/* A frame's field: each at most once. */
#define FIELD(NAME, TYPE, F, ...) \
	XN_OPT(NAME, TYPE, T, F, .flags = XN_OF_ONCE, __VA_ARGS__)

static const struct xn_opt opts[] = {
	[O_IN] = XN_OPT("in", XN_OPT_IFNAME, T, in, .arg = "PORT",
			.help = "the port the frame arrives on"),
	[O_SRC] = FIELD("src", XN_OPT_FUNC, frame.src, .arg = "MAC",
			.parse = mac, .help = "the frame's source MAC"),
	[O_DST] = FIELD("dst", XN_OPT_FUNC, frame.dst, .arg = "MAC",
			.parse = mac, .help = "its destination MAC"),
	[O_VLAN] = FIELD("vlan", XN_OPT_FUNC, frame.vlan, .arg = "VID[,ad]",
			 .parse = vlan,
			 .help = "an 802.1Q tag (802.1ad with ,ad)"),
	[O_LEN] = FIELD("len", XN_OPT_UINT, frame.len, .arg = "N",
			.min = ETH_HLEN, .max = 3500,
			.must = "14 to 3500 bytes",
			.help = "bytes of the whole frame, 14 to 3500 (default "
				"60)"),
	[O_IP] = FIELD("ip", XN_OPT_CONST, frame.l3, .val = XN_L3_IPV4,
		       .help = "IPv4 (the default)"),
	[O_IP6] = FIELD("ip6", XN_OPT_CONST, frame.l3, .val = XN_L3_IPV6,
			.help = "IPv6"),
	[O_ARP] = FIELD("arp", XN_OPT_CONST, frame.l3, .val = XN_L3_ARP,
			.help = "ARP"),
	[O_ETHERTYPE] = FIELD("ethertype", XN_OPT_FUNC, frame.ethertype,
			      .arg = "HEX", .parse = ethertype,
			      .help = "another EtherType, 0600 to ffff"),
	[O_UDP] = FIELD("udp", XN_OPT_CONST, frame.l4, .val = XN_L4_UDP,
			.help = "UDP (the default)"),
	[O_TCP] = FIELD("tcp", XN_OPT_CONST, frame.l4, .val = XN_L4_TCP,
			.help = "TCP"),
	[O_ICMP] = FIELD("icmp", XN_OPT_CONST, frame.l4, .val = XN_L4_ICMP,
			 .help = "ICMP"),
	[O_SADDR] = FIELD("saddr", XN_OPT_FUNC, frame.saddr, .arg = "IP",
			  .parse = ip_addr,
			  .help = "IP source (default 192.0.2.1, "
				  "2001:db8::1)"),
	[O_DADDR] = FIELD("daddr", XN_OPT_FUNC, frame.daddr, .arg = "IP",
			  .parse = ip_addr,
			  .help = "IP destination (default 192.0.2.2, "
				  "2001:db8::2)"),
	[O_PCAP] = XN_OPT("pcap", XN_OPT_STRING, T, pcap, .arg = "FILE",
			  .flags = XN_OF_ONCE | XN_OF_FILE,
			  .help = "the frame from a pcap or pcapng capture (- "
				  ": stdin)"),
	[O_FRAME] = FIELD("frame", XN_OPT_UINT, frame_no, .arg = "N", .min = 1,
			  .max = 1000000000, .must = "a positive number",
			  .help = "with --pcap: which frame of it (default 1)"),
	XN_JSON_OPTS,
	XN_OPT_END,
};

/* The frame is fully given, one way. */
static int check(void *opts, unsigned long long given, char *err, size_t len)
{
	unsigned long long fields = given &
				    ~(BIT(O_IN) | BIT(O_PCAP) | BIT(O_FRAME));
	T *o = opts;
	struct xn_frame_spec *f = &o->frame;

	/* only the frame's options count (not -j, -p) */
	fields &= BIT(O_FRAME + 1) - 1;
	if (o->pcap && fields)
		return xn_usage_err(err, len, "%s",
				    "--pcap takes the frame from the capture: "
				    "no --src, --dst or other field with it");
	if (!o->pcap && (given & BIT(O_FRAME)))
		return xn_usage_err(err, len, "%s", "--frame needs --pcap");
	if (o->pcap) {
		if (!o->frame_no)
			o->frame_no = 1;
		return 0;
	}
	if (!(given & BIT(O_SRC)) || !(given & BIT(O_DST)))
		return xn_usage_err(err, len, "%s",
				    "trace needs a frame: --src MAC --dst MAC "
				    "[...], or --pcap FILE");
	if (!o->in)
		return xn_usage_err(err, len, "%s",
				    "trace needs --in PORT: the port the frame "
				    "arrives on");
	if (__builtin_popcountll(given & L3_OPTS) > 1)
		return xn_usage_err(err, len, "%s",
				    "give one of --ip, --ip6, --arp, "
				    "--ethertype");
	if (__builtin_popcountll(given & L4_OPTS) > 1)
		return xn_usage_err(err, len, "%s",
				    "give one of --tcp, --udp, --icmp");
	/* No protocol given: the addresses' family says, else IPv4. */
	if (!(given & L3_OPTS) && o->family == FAM_IPV6)
		f->l3 = XN_L3_IPV6;
	if (o->family & ~(f->l3 == XN_L3_IPV6 ? FAM_IPV6 : FAM_IPV4))
		return xn_usage_err(err, len, "%s",
				    f->l3 == XN_L3_IPV6 || f->l3 == XN_L3_IPV4
					    ? "--saddr and --daddr must be of "
					      "the frame's IP version"
					    : "--saddr and --daddr need --ip "
					      "or --ip6");
	if ((given & L4_OPTS) && f->l3 != XN_L3_IPV4 && f->l3 != XN_L3_IPV6)
		return xn_usage_err(err, len, "%s",
				    "--tcp, --udp and --icmp need --ip or "
				    "--ip6");
	if (f->len && f->len < xn_frame_min_len(f))
		return xn_usage_err(err, len,
				    "--len %u is shorter than the frame's "
				    "headers (%zu bytes)",
				    f->len, xn_frame_min_len(f));
	return 0;
}

static int run(const void *opts)
{
	const T *o = opts;
	static __u8 buf[XN_TRACE_MAX_FRAME];
	struct xn_pcap_frame pf = { .buf = buf, .cap = sizeof(buf) };
	struct xn_trace t = { .frame = buf };
	struct xn_bridge br;
	struct xn_link port;
	const char *in = o->in;
	int err;

	err = xn_cmd_bridge(&br, o->c.bridge, 1);
	if (!err)
		err = xn_prepare_for(XN_CAPS_ADMIN, &br);
	if (err)
		return err;
	if (o->pcap) {
		if (xn_pcap_read(o->pcap, o->frame_no, &pf))
			return -XN_BAD_INPUT;
		t.len = pf.len;
		/* A frame that left a port: where it came in, if the
		 * capture says (xdpnet dump's comment). */
		if (!in && pf.outbound && pf.from[0])
			in = pf.from;
		if (!in && (!pf.ifname[0] || pf.outbound)) {
			xn_err("%s: the capture does not say which port frame "
			       "%lu arrived on; give --in PORT",
			       o->pcap, o->frame_no);
			return -XN_BAD_INPUT;
		}
		if (!in)
			in = pf.ifname;
	} else {
		t.len = xn_frame_build(&o->frame, buf, sizeof(buf));
		if (!t.len) {
			xn_err("the frame does not fit in %zu bytes",
			       sizeof(buf));
			return -XN_BAD_INPUT;
		}
	}
	if (xn_get_link(in, &port) || port.master != br.link.ifindex) {
		xn_err("%s is not a port of %s", in, br.name);
		return -XN_BAD_INPUT;
	}
	t.ifindex = port.ifindex;
	err = xn_trace_run(&br, &t);
	if (err)
		return err;
	xn_trace_print(stdout, br.name, in, &t, o->c.json);
	return 0;
}

static const T defaults = { .frame = { .vlan = -1 } };

const struct xn_cmd_def xn_cmd_trace = {
	.name = "trace",
	.bridge = 1,
	.args = "BRIDGE",
	.help = "what the datapath would do with a frame, and why",
	.opts = opts,
	.size = sizeof(T),
	.defaults = &defaults,
	.check = check,
	.run = run,
};
