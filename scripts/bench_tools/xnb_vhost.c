// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xnb_vhost - a user-space vhost-net driver: plays a guest's virtio-net
 * driver against /dev/vhost-net on an existing tap, so frames enter and
 * leave the tap the way a KVM guest's do (vhost's handle_tx / handle_rx).
 *
 *   xnb_vhost send --tap NAME [flow] [--csum M] [--gso MSS] [--rate PPS]
 *                  [--count N | --duration S] [--acks]
 *   xnb_vhost recv --tap NAME [flow] [--expect N] [--timeout S] [--ack N]
 *   xnb_vhost recv --packet IFNAME [flow] [--expect N] [--timeout S]
 *   xnb_vhost echo --tap NAME [flow] [--count N | --duration S]
 *   xnb_vhost rr   --tap NAME [flow] [--count N | --duration S] [--timeout S]
 *   xnb_vhost relay --host-tap NAME --guest-tap NAME --netns NS
 *                  [--no-csum] [--no-tso] [--sndbuf N] [--pidfile PATH]
 *
 * The process owns the rings and buffers (one mmap'd region, identity
 * guest-physical addresses), negotiates VERSION_1 and MRG_RXBUF with
 * vhost and, as a Linux guest behind QEMU would, sets the tap's 12-byte
 * vnet header, sndbuf and offloads. Payloads are stamped records
 * (xnb_vring.h) that recv and rr verify: checksums as the vnet header
 * says, digest, per-stream sequence (gaps, duplicates, reordering).
 *
 * relay is tests/tools/vnet_relay over vhost-net: the "guest" is a tap
 * in another network namespace (a stand-in VM's eth0, its own stack
 * sending GSO and partial checksums), and the frames between it and the
 * host tap go through the rings, so the host tap sees what a KVM guest's
 * tap sees. Same options, "READY" on stdout, counters on stderr at the
 * end (tests/integration: RELAY=tests/tools/vhost_relay).
 *
 * recv --ack N answers every N frames with a TCP ACK, as a Linux guest's
 * receiver does; send --acks takes them and verifies their checksums
 * (the section "TCP ACKs" below).
 *
 * With --json, send, recv, echo and rr end with one JSON line, which
 * includes the CPU time of the process (cpu_ns) and of its vhost workers
 * (vhost_cpu_ns): what a VM's frames cost the host beside the guest.
 *
 * Exit status: 0 all well; 1 a check failed (recv: anything wrong or too
 * few; rr: unanswered requests; send: frames vhost never completed);
 * 2 usage or setup error; 4 a feature is missing (no /dev/vhost-net, no
 * /dev/net/tun, vhost without VERSION_1 or MRG_RXBUF): tests skip on 4.
 * Errors are one line on stderr, "xnb_vhost: ...".
 */
#include "xnb_vhost.h"

static const char help[] = USAGE
	"\n"
	"  send   frames of stamped records from SRC to DST\n"
	"  recv   verify the frames sent to --dport: checksums, digests,\n"
	"         sequence per stream tag; --expect N records\n"
	"  echo   reflect frames sent to --dport (MACs, IPs, ports swapped)\n"
	"  rr     request/response against echo, RTT p50/p99\n"
	"  relay  vnet_relay over vhost-net: frames between the host tap\n"
	"         and a guest tap in netns NS (--no-csum, --no-tso: fewer\n"
	"         offloads; --sndbuf N: the host tap's, INT_MAX as QEMU)\n"
	"  --packet IFNAME recv: frames that reach IFNAME (a veth, say),\n"
	"                  from a packet socket with a vnet header, no vhost\n"
	"  --tap NAME      an existing tap; --queues N opens N queues\n"
	"                  (IFF_MULTI_QUEUE), one vhost device each\n"
	"  --ring N        descriptors per ring (256)\n"
	"  --csum MODE     off: no checksum offload, full checksums sent;\n"
	"                  full: offload, full checksums sent;\n"
	"                  partial|on (default): offload, NEEDS_CSUM sent\n"
	"  --tso on|off    TSO4/TSO6 offload (on unless --csum off)\n"
	"  --gso MSS       send: TCP GSO frames, records of MSS bytes\n"
	"  --size BYTES    payload per frame (64; 65000 with --gso)\n"
	"  --rate PPS      send: frames per second (flat out)\n"
	"  --count N       send, rr: frames; echo: echoes\n"
	"  --duration S    send, echo, rr: seconds\n"
	"  --tag T         stream tag; queue q sends T+q (0)\n"
	"  --ready FILE    create FILE once set up (a test's signal)\n"
	"  --any-order     recv: records out of order are counted, not\n"
	"                  failed (still: each once, none missing)\n"
	"  --timeout S     recv: whole run (10 with --expect);\n"
	"                  rr: per request (1)\n"
	"  --ack N         recv, tcp: answer every N frames (a GSO frame is\n"
	"                  one) with a 54 B ACK, its checksum partial\n"
	"                  unless --csum full or off\n"
	"  --acks          send, tcp: take the receiver's ACKs, verify\n"
	"                  their checksums (a bad one fails the run)\n"
	"  defaults: 02:00:00:00:00:01 > 02:00:00:00:00:02, 10.0.0.1 >\n"
	"  10.0.0.2, udp, 40000 > 40001\n"
	"exit: 0 ok, 1 check failed, 2 usage/setup error, 4 feature missing";

struct opts o = {
	.queues = 1,
	.ring = 256,
	.tso = -1,
	.csum = C_PARTIAL,
	.sndbuf = INT_MAX,
};

static unsigned long long num_arg(const char *name, const char *s,
				  unsigned long long max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-' || v > max)
		die("bad --%s '%s'", name, s);
	return v;
}

static double secs_arg(const char *name, const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v > 0) || v > 1e9)
		die("bad --%s '%s'", name, s);
	return v;
}

static int onoff(const char *name, const char *s)
{
	if (!strcmp(s, "on"))
		return 1;
	if (!strcmp(s, "off"))
		return 0;
	die("bad --%s '%s' (on or off)", name, s);
}

static int ip_arg(const char *name, const char *s, uint8_t *a)
{
	if (inet_pton(AF_INET, s, a) == 1)
		return 0;
	if (inet_pton(AF_INET6, s, a) == 1)
		return 1;
	die("bad --%s '%s'", name, s);
}

static void parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "tap", required_argument, NULL, 't' },
		{ "queues", required_argument, NULL, 'q' },
		{ "ring", required_argument, NULL, 'R' },
		{ "csum", required_argument, NULL, 'c' },
		{ "tso", required_argument, NULL, 'T' },
		{ "gso", required_argument, NULL, 'g' },
		{ "src-mac", required_argument, NULL, 'm' },
		{ "dst-mac", required_argument, NULL, 'M' },
		{ "src", required_argument, NULL, 's' },
		{ "dst", required_argument, NULL, 'd' },
		{ "proto", required_argument, NULL, 'p' },
		{ "sport", required_argument, NULL, 'S' },
		{ "dport", required_argument, NULL, 'D' },
		{ "size", required_argument, NULL, 'z' },
		{ "rate", required_argument, NULL, 'r' },
		{ "count", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'u' },
		{ "tag", required_argument, NULL, 'a' },
		{ "expect", required_argument, NULL, 'e' },
		{ "timeout", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },
		{ "host-tap", required_argument, NULL, 't' },
		{ "guest-tap", required_argument, NULL, 'G' },
		{ "netns", required_argument, NULL, 'N' },
		{ "no-csum", no_argument, NULL, 'C' },
		{ "no-tso", no_argument, NULL, 'O' },
		{ "sndbuf", required_argument, NULL, 'B' },
		{ "pidfile", required_argument, NULL, 'P' },
		{ "blocking", no_argument, NULL, 'b' },
		{ "packet", required_argument, NULL, 'K' },
		{ "ready", required_argument, NULL, 'Y' },
		{ "any-order", no_argument, NULL, 'A' },
		{ "ack", required_argument, NULL, 'w' },
		{ "acks", no_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, v6s = 0, v6d = 0, size_set = 0;
	size_t maxp;

	memcpy(o.flow.smac, "\x02\x00\x00\x00\x00\x01", 6);
	memcpy(o.flow.dmac, "\x02\x00\x00\x00\x00\x02", 6);
	memcpy(o.flow.saddr, "\x0a\x00\x00\x01", 4);
	memcpy(o.flow.daddr, "\x0a\x00\x00\x02", 4);
	o.flow.proto = XV_PROTO_UDP;
	o.flow.sport = 40000;
	o.flow.dport = 40001;
	o.size = 64;

	opterr = 0;
	if (argc < 2)
		die("no mode (send, recv, echo, rr or relay; --help)");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		puts(help);
		exit(0);
	}
	if (!strcmp(argv[1], "send"))
		o.mode = M_SEND;
	else if (!strcmp(argv[1], "recv"))
		o.mode = M_RECV;
	else if (!strcmp(argv[1], "echo"))
		o.mode = M_ECHO;
	else if (!strcmp(argv[1], "rr"))
		o.mode = M_RR;
	else if (!strcmp(argv[1], "relay"))
		o.mode = M_RELAY;
	else
		die("bad mode '%s' (send, recv, echo, rr or relay; --help)",
		    argv[1]);
	optind = 2;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 't':
			o.tap = optarg;
			break;
		case 'q':
			o.queues = (unsigned int)num_arg("queues", optarg,
							 MAX_QUEUES);
			if (!o.queues)
				die("bad --queues '%s'", optarg);
			o.mq = 1;
			break;
		case 'R':
			o.ring = (unsigned int)num_arg("ring", optarg,
						       XV_MAX_NUM);
			if (o.ring < 2 || (o.ring & (o.ring - 1)))
				die("bad --ring '%s' (a power of 2)", optarg);
			break;
		case 'c':
			if (!strcmp(optarg, "off"))
				o.csum = C_OFF;
			else if (!strcmp(optarg, "full"))
				o.csum = C_FULL;
			else if (!strcmp(optarg, "partial") ||
				 !strcmp(optarg, "on"))
				o.csum = C_PARTIAL;
			else
				die("bad --csum '%s' (off, full, partial, on)",
				    optarg);
			break;
		case 'T':
			o.tso = onoff("tso", optarg);
			break;
		case 'g':
			o.gso = (uint16_t)num_arg("gso", optarg, 65535);
			if (o.gso < 64)
				die("bad --gso '%s' (64 at least)", optarg);
			break;
		case 'm':
			if (parse_mac(optarg, o.flow.smac))
				die("bad --src-mac '%s'", optarg);
			break;
		case 'M':
			if (parse_mac(optarg, o.flow.dmac))
				die("bad --dst-mac '%s'", optarg);
			break;
		case 's':
			v6s = ip_arg("src", optarg, o.flow.saddr);
			break;
		case 'd':
			v6d = ip_arg("dst", optarg, o.flow.daddr);
			break;
		case 'p':
			if (!strcmp(optarg, "udp"))
				o.flow.proto = XV_PROTO_UDP;
			else if (!strcmp(optarg, "tcp"))
				o.flow.proto = XV_PROTO_TCP;
			else
				die("bad --proto '%s' (udp or tcp)", optarg);
			break;
		case 'S':
			o.flow.sport =
				(uint16_t)num_arg("sport", optarg, 65535);
			break;
		case 'D':
			o.flow.dport =
				(uint16_t)num_arg("dport", optarg, 65535);
			break;
		case 'z':
			o.size = num_arg("size", optarg, 65535);
			size_set = 1;
			break;
		case 'r':
			o.rate = secs_arg("rate", optarg);
			break;
		case 'n':
			o.count = num_arg("count", optarg, ULLONG_MAX);
			break;
		case 'u':
			o.duration = secs_arg("duration", optarg);
			break;
		case 'a':
			o.tag = (uint16_t)num_arg("tag", optarg, MAX_TAGS - 1);
			break;
		case 'e':
			o.expect = num_arg("expect", optarg, ULLONG_MAX);
			break;
		case 'o':
			o.timeout = secs_arg("timeout", optarg);
			break;
		case 'j':
			o.json = 1;
			break;
		case 'G':
			o.guest = optarg;
			break;
		case 'N':
			o.netns = optarg;
			break;
		case 'C':
			o.csum = C_OFF;
			o.tso = 0;
			break;
		case 'O':
			o.tso = 0;
			break;
		case 'B':
			o.sndbuf = (int)num_arg("sndbuf", optarg, INT_MAX);
			if (!o.sndbuf)
				die("bad --sndbuf '%s'", optarg);
			break;
		case 'P':
			o.pidfile = optarg;
			break;
		case 'K':
			o.packet = optarg;
			o.tap = optarg;
			break;
		case 'Y':
			o.ready = optarg;
			break;
		case 'A':
			o.any_order = 1;
			break;
		case 'w':
			o.ack_every = num_arg("ack", optarg, UINT32_MAX);
			if (!o.ack_every)
				die("bad --ack '%s' (1 at least)", optarg);
			break;
		case 'W':
			o.acks = 1;
			break;
		case 'b':
			die("--blocking: vhost-net writes the host tap itself "
			    "(never blocking)");
		case 'h':
			puts(help);
			exit(0);
		default:
			die("bad option or missing value: '%s' (--help)",
			    argv[optind - 1]);
		}
	}
	if (optind < argc)
		die("unexpected '%s' (--help)", argv[optind]);
	if (!o.tap || !o.tap[0] || strlen(o.tap) >= IFNAMSIZ)
		die("--tap NAME is required (--help)");
	if (o.mode == M_RELAY) {
		if (!o.guest || !o.guest[0] || strlen(o.guest) >= IFNAMSIZ ||
		    !o.netns || !o.netns[0])
			die("relay: --guest-tap NAME and --netns NS are "
			    "required (--help)");
		if (o.queues > 1)
			die("relay: one queue");
	} else if (o.guest || o.netns || o.pidfile) {
		die("--guest-tap, --netns and --pidfile are for relay");
	}
	if (o.packet && (o.mode != M_RECV || o.mq))
		die("--packet is for recv, with one queue");
	if (o.ack_every && (o.mode != M_RECV || o.packet))
		die("--ack is for recv through vhost (not --packet)");
	if (o.acks && o.mode != M_SEND)
		die("--acks is for send");
	if ((o.ack_every || o.acks) && o.flow.proto != XV_PROTO_TCP)
		die("--ack and --acks need --proto tcp");
	if (v6s != v6d)
		die("--src and --dst must be both IPv4 or both IPv6");
	o.flow.v6 = v6s;
	if (o.tso < 0)
		o.tso = o.csum != C_OFF;
	if (o.tso && o.csum == C_OFF)
		die("--tso on needs checksum offload (--csum off given)");
	if (o.tag + o.queues > MAX_TAGS)
		die("--tag + --queues must stay below %d", MAX_TAGS);
	if (o.gso) {
		if (o.mode != M_SEND)
			die("--gso is for send");
		if (o.flow.proto != XV_PROTO_TCP)
			die("--gso needs --proto tcp");
		if (o.csum != C_PARTIAL)
			die("--gso needs --csum partial");
		if (!size_set)
			o.size = (65000 / o.gso) * o.gso;
	}
	maxp = 0xffff - (o.flow.v6 ? 0 : 20) -
	       (o.flow.proto == XV_PROTO_TCP ? 20 : 8);
	if (o.size < XV_REC_HDR || o.size > maxp)
		die("bad --size %zu (%d to %zu)", o.size, XV_REC_HDR, maxp);
	if (o.gso && o.size % o.gso && o.size % o.gso < XV_REC_HDR)
		die("--size %zu leaves a record shorter than %d bytes", o.size,
		    XV_REC_HDR);
	if (o.mode == M_RECV && o.expect && !o.timeout)
		o.timeout = 10;
	if (o.mode == M_RR) {
		if (!o.timeout)
			o.timeout = 1;
		if (!o.count && !o.duration)
			o.count = 1000;
	}
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned int i;
	int rc;

	for (i = 0; i < MAX_QUEUES; i++)
		qps[i].tap = qps[i].vhost = qps[i].rx.kick = qps[i].rx.call =
			qps[i].tx.kick = qps[i].tx.call = -1;
	parse_args(argc, argv);
	/* No SA_RESTART: a signal ends poll() and nanosleep() early. */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	atexit(teardown);
	setup();
	/* relay's host tap is enslaved and set up once it says READY. */
	if (o.mode != M_RELAY)
		wait_link_ready(o.tap);
	if (o.ready) {
		int fd = open(o.ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

		if (fd < 0)
			die("--ready %s: %s", o.ready, strerror(errno));
		close(fd);
	}
	switch (o.mode) {
	case M_SEND:
		rc = run_send();
		break;
	case M_RECV:
		rc = run_recv();
		break;
	case M_ECHO:
		rc = run_echo();
		break;
	case M_RELAY:
		rc = run_relay();
		break;
	default:
		rc = run_rr();
		break;
	}
	fflush(stdout);
	return rc;
}
