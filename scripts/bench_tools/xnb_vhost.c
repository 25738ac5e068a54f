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
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <linux/vhost.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "xnb_tool.h"
#include "xnb_vring.h"

#define EXIT_CHECK 1
#define EXIT_MISSING 4

#define MAX_QUEUES 16
#define MAX_TAGS 64
#define RX_SLOT 4096
#define RING_ALIGN 4096
#define FRAME_MAX (XV_HDR_LEN + 65536 + 512)

#define USAGE                                                                 \
	"usage: xnb_vhost send|recv|echo|rr --tap NAME [--queues N] "         \
	"[--ring N] [--csum off|full|partial|on] [--tso on|off] [--gso MSS] " \
	"[--src-mac MAC] [--dst-mac MAC] [--src IP] [--dst IP] "              \
	"[--proto udp|tcp] [--sport N] [--dport N] [--size BYTES] "           \
	"[--rate PPS] [--count N] [--duration S] [--tag T] [--expect N] "     \
	"[--timeout S] [--ready FILE] [--any-order] [--ack N] [--acks] "      \
	"[--json]\n"                                                          \
	"       xnb_vhost relay --host-tap NAME --guest-tap NAME --netns NS " \
	"[--no-csum] [--no-tso] [--sndbuf N] [--pidfile PATH]"

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

enum mode { M_SEND, M_RECV, M_ECHO, M_RR, M_RELAY };
enum csum { C_OFF, C_FULL, C_PARTIAL };

static struct {
	enum mode mode;
	const char *tap;
	unsigned int queues, ring;
	int mq, tso, json, any_order, acks;
	uint64_t ack_every;
	enum csum csum;
	uint16_t gso, tag;
	struct xv_flow flow;
	size_t size;
	double rate, duration, timeout;
	uint64_t count, expect;
	int sndbuf;
	const char *guest, *netns, *pidfile, *packet, *ready;
} o = {
	.queues = 1,
	.ring = 256,
	.tso = -1,
	.csum = C_PARTIAL,
	.sndbuf = INT_MAX,
};

struct vq {
	struct xv_ring r;
	uint8_t *bufs;
	size_t slot;
	int kick, call;
};

struct qp {
	int tap, vhost, backend;
	struct vq rx, tx;
	struct xv_mrg mrg;
	struct xv_flow flow;
	uint32_t seq;
	uint16_t tag;
};

static struct qp qps[MAX_QUEUES];
static int guest_fd = -1; /* relay */
static int pkt_fd = -1;	  /* recv --packet */
static void *mem = MAP_FAILED;
static size_t mem_len;
static volatile sig_atomic_t stop;

static struct {
	uint64_t frames, bytes, records, gso, ignored, bad_hdr, malformed;
	uint64_t ck[XV_CK_BAD_PARTIAL + 1], corrupt, format, bad_tag;
	uint64_t sent, sent_records, echoed, echo_drops, stale;
	struct xv_seq seq[MAX_TAGS];
} st;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * CPU time so far, in ns (schedstat): of this process's own threads, and
 * of its vhost workers, the tasks vhost-net runs each device's rings in
 * (comm "vhost-PID"): threads of this process since Linux 6.4
 * (vhost_task), kernel threads before. Read before teardown, while the
 * workers live. -1 where schedstat is missing.
 */
struct cpu_use {
	long long own_ns, vhost_ns;
	int workers, threads; /* threads: the workers are our threads */
};

static long long task_ns(const char *dir)
{
	char path[288];
	long long ns;
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/schedstat", dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fscanf(f, "%lld", &ns) == 1;
	fclose(f);
	return ok ? ns : -1;
}

static int is_worker(const char *dir, const char *want)
{
	char path[288], comm[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/comm", dir);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	return !strcmp(comm, want);
}

/* Adds up the tasks under base (/proc/self/task or /proc). */
static void cpu_scan(const char *base, const char *want, int own,
		     struct cpu_use *u)
{
	char dir[272];
	struct dirent *e;
	long long ns;
	DIR *d = opendir(base);

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", base, e->d_name);
		ns = task_ns(dir);
		if (ns < 0)
			continue;
		if (is_worker(dir, want)) {
			u->vhost_ns += ns;
			u->workers++;
		} else if (own) {
			u->own_ns += ns;
		}
	}
	closedir(d);
}

static struct cpu_use cpu_use(void)
{
	struct cpu_use u = { 0 };
	char want[32];

	snprintf(want, sizeof(want), "vhost-%d", (int)getpid());
	cpu_scan("/proc/self/task", want, 1, &u);
	u.threads = u.workers > 0;
	if (!u.workers)
		cpu_scan("/proc", want, 0, &u);
	if (!u.own_ns)
		u.own_ns = u.vhost_ns = -1;
	return u;
}

/* The JSON members of cpu_use(), after a comma. */
static const char *cpu_json(void)
{
	static char buf[128];
	struct cpu_use u = cpu_use();

	snprintf(buf, sizeof(buf),
		 ",\"cpu_ns\":%lld,\"vhost_cpu_ns\":%lld,"
		 "\"vhost_workers\":%d,\"vhost_threads\":%s",
		 u.own_ns, u.vhost_ns, u.workers, u.threads ? "true" : "false");
	return buf;
}

static void teardown(void)
{
	struct vhost_vring_file f = { .fd = -1 };
	int i;

	for (i = MAX_QUEUES - 1; i >= 0; i--) {
		struct qp *q = &qps[i];

		if (q->backend) {
			f.index = 1;
			ioctl(q->vhost, VHOST_NET_SET_BACKEND, &f);
			f.index = 0;
			ioctl(q->vhost, VHOST_NET_SET_BACKEND, &f);
			q->backend = 0;
		}
		if (q->vhost >= 0)
			close(q->vhost);
		if (q->tx.call >= 0)
			close(q->tx.call);
		if (q->tx.kick >= 0)
			close(q->tx.kick);
		if (q->rx.call >= 0)
			close(q->rx.call);
		if (q->rx.kick >= 0)
			close(q->rx.kick);
		if (q->tap >= 0)
			close(q->tap);
		q->vhost = q->tap = q->rx.kick = q->rx.call = q->tx.kick =
			q->tx.call = -1;
		free(q->mrg.buf);
		q->mrg.buf = NULL;
	}
	if (mem != MAP_FAILED)
		munmap(mem, mem_len);
	mem = MAP_FAILED;
	if (guest_fd >= 0)
		close(guest_fd);
	if (pkt_fd >= 0)
		close(pkt_fd);
	guest_fd = pkt_fd = -1;
	if (o.pidfile)
		unlink(o.pidfile);
	o.pidfile = NULL;
}

static void xioctl(int fd, unsigned long req, void *arg, const char *name)
{
	if (ioctl(fd, req, arg))
		die("%s: %s", name, strerror(errno));
}

#define XIOCTL(fd, req, arg) xioctl(fd, req, arg, #req)

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

static void kick(struct vq *v)
{
	uint64_t one = 1;

	if (xv_need_kick(&v->r) && write(v->kick, &one, 8) != 8)
		die("kick: %s", strerror(errno));
}

/* Waits up to ms for a call on any ring (-1: for ever), drains them. */
static void wait_calls(int ms)
{
	struct pollfd p[MAX_QUEUES * 2];
	unsigned int i, n = 0;
	uint64_t v;

	for (i = 0; i < o.queues; i++) {
		p[n++] = (struct pollfd){ .fd = qps[i].rx.call,
					  .events = POLLIN };
		p[n++] = (struct pollfd){ .fd = qps[i].tx.call,
					  .events = POLLIN };
	}
	if (poll(p, n, ms) <= 0)
		return;
	for (i = 0; i < n; i++)
		if (p[i].revents & POLLIN)
			while (read(p[i].fd, &v, 8) == 8)
				;
}

static int ms_until(double t)
{
	double d = (t - now_s()) * 1000;

	return d <= 0 ? 0 : d > 1000 ? 1000 : (int)d + 1;
}

/* What the "guest" takes from its tap, as QEMU sets it (TUNSETOFFLOAD). */
static unsigned long tap_offloads(void)
{
	unsigned long off = 0;

	if (o.csum != C_OFF)
		off |= TUN_F_CSUM;
	if (o.tso)
		off |= TUN_F_TSO4 | TUN_F_TSO6;
	return off;
}

static void open_queue(struct qp *q, int unsigned idx)
{
	struct ifreq ifr = { 0 };
	int hdr = XV_HDR_LEN, snd = o.sndbuf, le = 1;

	q->tap = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (q->tap < 0) {
		if (errno == ENOENT || errno == ENODEV || errno == ENXIO)
			die_status(EXIT_MISSING, "no /dev/net/tun: %s",
				   strerror(errno));
		die("/dev/net/tun: %s", strerror(errno));
	}
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	if (o.mq)
		ifr.ifr_flags |= IFF_MULTI_QUEUE;
	strcpy(ifr.ifr_name, o.tap);
	if (ioctl(q->tap, TUNSETIFF, &ifr))
		die("tap %s queue %u: TUNSETIFF: %s", o.tap, idx,
		    strerror(errno));
	XIOCTL(q->tap, TUNSETVNETHDRSZ, &hdr);
	/* virtio 1.x headers are little-endian: only a big-endian host
	 * needs this, and a kernel without it is fine on the others. */
	if (ioctl(q->tap, TUNSETVNETLE, &le) &&
	    __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__)
		die("TUNSETVNETLE: %s", strerror(errno));
	XIOCTL(q->tap, TUNSETSNDBUF, &snd);
	if (ioctl(q->tap, TUNSETOFFLOAD, (unsigned long)tap_offloads()))
		die("TUNSETOFFLOAD: %s", strerror(errno));
}

static void setup_vq(struct qp *q, unsigned int idx, struct vq *v)
{
	struct vhost_vring_state s = { .index = idx, .num = o.ring };
	struct vhost_vring_addr a = {
		.index = idx,
		.desc_user_addr = (uintptr_t)v->r.desc,
		.avail_user_addr = (uintptr_t)v->r.avail,
		.used_user_addr = (uintptr_t)v->r.used,
	};
	struct vhost_vring_file f = { .index = idx };

	v->kick = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	v->call = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (v->kick < 0 || v->call < 0)
		die("eventfd: %s", strerror(errno));
	XIOCTL(q->vhost, VHOST_SET_VRING_NUM, &s);
	s.num = 0;
	XIOCTL(q->vhost, VHOST_SET_VRING_BASE, &s);
	XIOCTL(q->vhost, VHOST_SET_VRING_ADDR, &a);
	f.fd = v->kick;
	XIOCTL(q->vhost, VHOST_SET_VRING_KICK, &f);
	f.fd = v->call;
	XIOCTL(q->vhost, VHOST_SET_VRING_CALL, &f);
}

static void rx_fill(struct qp *q)
{
	struct xv_buf b = { .len = RX_SLOT };
	int added = 0;

	while (q->rx.r.num_free) {
		b.addr = (uintptr_t)(q->rx.bufs +
				     (size_t)xv_next_head(&q->rx.r) * RX_SLOT);
		xv_add(&q->rx.r, &b, 0, 1);
		added = 1;
	}
	if (added) {
		xv_publish(&q->rx.r);
		kick(&q->rx);
	}
}

static void on_recv(struct qp *q, uint8_t *buf, size_t len);

/* The first word of /sys/class/net/DEV/FILE, or "" (no such file). */
static const char *sysfs_word(const char *dev, const char *file, char buf[32])
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", dev, file);
	buf[0] = 0;
	f = fopen(path, "re");
	if (f) {
		if (!fscanf(f, "%31s", buf))
			buf[0] = 0;
		fclose(f);
	}
	return buf;
}

/*
 * Waits until frames can pass the tap, as a guest's driver waits for its
 * link: the kernel has seen the carrier that attaching a queue brought
 * (operstate up: the link watch can lag up to a second behind) and, for
 * a bridge port, the bridge has too (STP state forwarding). Frames sent
 * before then are dropped by the bridge.
 */
static void wait_link_ready(const char *dev)
{
	double end = now_s() + 10;
	char op[32], state[32];

	for (;;) {
		sysfs_word(dev, "operstate", op);
		sysfs_word(dev, "brport/state", state);
		if (!strcmp(op, "up") && (!state[0] || !strcmp(state, "3")))
			return;
		if (now_s() >= end || stop)
			die("tap %s: not ready after 10 s (operstate %s, bridge "
			    "port state %s; 3 forwards)",
			    dev, op, state[0] ? state : "-");
		usleep(1000);
	}
}

/* recv --packet: a packet socket on o.packet that gives each frame with
 * a virtio-net header, as the tap would (PACKET_VNET_HDR). */
static void setup_packet(void)
{
	struct sockaddr_ll a = { .sll_family = AF_PACKET,
				 .sll_protocol = htons(ETH_P_ALL) };
	int one = 1, rcvbuf = 32 << 20;

	a.sll_ifindex = (int)if_nametoindex(o.packet);
	if (!a.sll_ifindex)
		die("%s: no such device in this network namespace", o.packet);
	pkt_fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
			htons(ETH_P_ALL));
	if (pkt_fd < 0)
		die("packet socket: %s", strerror(errno));
	if (setsockopt(pkt_fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)))
		die("packet socket: PACKET_VNET_HDR: %s", strerror(errno));
	/* Room for a burst of 64 KB GSO frames (root: beyond rmem_max). */
	if (setsockopt(pkt_fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
		       sizeof(rcvbuf)))
		die("packet socket: SO_RCVBUFFORCE: %s", strerror(errno));
	if (bind(pkt_fd, (struct sockaddr *)&a, sizeof(a)))
		die("packet socket on %s: bind: %s", o.packet, strerror(errno));
	qps[0].mrg.cap = FRAME_MAX;
	qps[0].mrg.buf = malloc(FRAME_MAX);
	if (!qps[0].mrg.buf)
		die("out of memory");
}

/* The frames the packet socket holds, each as a 12-byte-header frame. */
static unsigned int pkt_poll(void)
{
	uint8_t *b = qps[0].mrg.buf;
	struct sockaddr_ll from;
	struct iovec iov[2] = {
		{ .iov_base = b, .iov_len = 10 }, /* struct virtio_net_hdr */
		{ .iov_base = b + XV_HDR_LEN,
		  .iov_len = FRAME_MAX - XV_HDR_LEN },
	};
	struct msghdr m = { .msg_name = &from,
			    .msg_namelen = sizeof(from),
			    .msg_iov = iov,
			    .msg_iovlen = 2 };
	unsigned int n = 0;
	ssize_t len = 0;

	while (!stop && (len = recvmsg(pkt_fd, &m, MSG_TRUNC)) >= 0) {
		m.msg_namelen = sizeof(from);
		if (from.sll_pkttype == PACKET_OUTGOING)
			continue;
		n++;
		if (len < 10 || (size_t)len > FRAME_MAX - 2) {
			st.malformed++;
			continue;
		}
		xv_put_le16(b + 10, 1); /* num_buffers */
		on_recv(&qps[0], b, (size_t)len + 2);
	}
	if (len < 0 && errno != EAGAIN && errno != EINTR)
		die("packet socket on %s: %s", o.packet, strerror(errno));
	return n;
}

static void setup(void)
{
	uint64_t feat, want = 1ull << VIRTIO_F_VERSION_1 |
			      1ull << VIRTIO_NET_F_MRG_RXBUF;
	size_t ring_len, tx_slot, per_q;
	struct vhost_memory *vm;
	struct xv_layout l;
	unsigned int i;
	uint8_t *p;

	if (o.packet) {
		setup_packet();
		return;
	}
	/* The probe first: without vhost there is nothing to do. */
	for (i = 0; i < o.queues; i++) {
		qps[i].vhost = open("/dev/vhost-net", O_RDWR | O_CLOEXEC);
		if (qps[i].vhost >= 0)
			continue;
		if (errno == ENOENT || errno == ENODEV || errno == ENXIO)
			die_status(EXIT_MISSING, "no /dev/vhost-net: %s",
				   strerror(errno));
		die("/dev/vhost-net: %s", strerror(errno));
	}
	/* relay makes its host tap, as vnet_relay does: gone with it. */
	if (o.mode != M_RELAY && !if_nametoindex(o.tap))
		die("tap %s: no such device in this network namespace", o.tap);

	if (xv_layout(o.ring, RING_ALIGN, &l))
		die("bad ring size %u", o.ring);
	ring_len = xv_align(l.size, RING_ALIGN);
	tx_slot = o.mode == M_ECHO || o.mode == M_RELAY
			  ? FRAME_MAX
			  : XV_HDR_LEN + xv_hdrs_len(&o.flow) + o.size;
	tx_slot = xv_align(tx_slot, 64);
	per_q = 2 * ring_len + o.ring * (RX_SLOT + tx_slot);
	per_q = xv_align(per_q, RING_ALIGN);
	mem_len = per_q * o.queues;
	mem = mmap(NULL, mem_len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (mem == MAP_FAILED)
		die("mmap %zu bytes: %s", mem_len, strerror(errno));
	vm = calloc(1, sizeof(*vm) + sizeof(vm->regions[0]));
	if (!vm)
		die("out of memory");
	vm->nregions = 1;
	vm->regions[0].guest_phys_addr = (uintptr_t)mem;
	vm->regions[0].userspace_addr = (uintptr_t)mem;
	vm->regions[0].memory_size = mem_len;

	for (i = 0; i < o.queues; i++) {
		struct qp *q = &qps[i];
		uint64_t neg;

		p = (uint8_t *)mem + per_q * i;
		xv_init(&q->rx.r, p, o.ring, RING_ALIGN);
		xv_init(&q->tx.r, p + ring_len, o.ring, RING_ALIGN);
		q->rx.bufs = p + 2 * ring_len;
		q->rx.slot = RX_SLOT;
		q->tx.bufs = q->rx.bufs + (size_t)o.ring * RX_SLOT;
		q->tx.slot = tx_slot;
		q->mrg.cap = FRAME_MAX;
		q->mrg.buf = malloc(FRAME_MAX);
		if (!q->mrg.buf)
			die("out of memory");
		q->flow = o.flow;
		q->flow.sport = (uint16_t)(o.flow.sport + i);
		q->tag = (uint16_t)(o.tag + i);

		open_queue(q, i);
		XIOCTL(q->vhost, VHOST_SET_OWNER, NULL);
		XIOCTL(q->vhost, VHOST_GET_FEATURES, &feat);
		if ((feat & want) != want)
			die_status(EXIT_MISSING,
				   "vhost-net lacks %s (features 0x%llx)",
				   feat & 1ull << VIRTIO_F_VERSION_1
					   ? "MRG_RXBUF"
					   : "VERSION_1",
				   (unsigned long long)feat);
		/* The offloads are the tap's (TUNSETOFFLOAD): vhost-net
		 * passes the header through and knows only these. */
		neg = want;
		XIOCTL(q->vhost, VHOST_SET_FEATURES, &neg);
		XIOCTL(q->vhost, VHOST_SET_MEM_TABLE, vm);
		setup_vq(q, 0, &q->rx);
		setup_vq(q, 1, &q->tx);
		rx_fill(q);
		{
			struct vhost_vring_file f = { .index = 0,
						      .fd = q->tap };

			q->backend = 1;
			XIOCTL(q->vhost, VHOST_NET_SET_BACKEND, &f);
			f.index = 1;
			XIOCTL(q->vhost, VHOST_NET_SET_BACKEND, &f);
		}
	}
	free(vm);
}

static void tx_reap(struct qp *q)
{
	uint32_t id, len;
	int r;

	while ((r = xv_harvest(&q->tx.r, &id, &len)) > 0)
		;
	if (r < 0)
		die("queue %td: vhost broke the tx ring", q - qps);
}

/* Queues the next frame of send/rr on q (a descriptor must be free). */
static void tx_stamped(struct qp *q)
{
	uint16_t h = xv_next_head(&q->tx.r);
	uint8_t *b = q->tx.bufs + (size_t)h * q->tx.slot;
	uint8_t *f = b + XV_HDR_LEN;
	struct xv_buf vb = { .addr = (uintptr_t)b };
	struct xv_hdr hdr;
	int recs;
	long len;

	recs = xv_rec_fill(f + xv_hdrs_len(&q->flow), o.size,
			   o.gso ? o.gso : o.size, &q->seq, q->tag);
	len = xv_build(f, &q->flow, o.size, o.csum == C_PARTIAL, o.gso, &hdr);
	if (recs < 0 || len < 0)
		die("cannot build a frame of %zu payload bytes", o.size);
	xv_hdr_put(b, &hdr);
	vb.len = (uint32_t)(XV_HDR_LEN + len);
	xv_add(&q->tx.r, &vb, 1, 0);
	st.sent++;
	st.sent_records += (uint64_t)recs;
	st.bytes += (uint64_t)len;
}

typedef void (*rx_fn)(struct qp *q, uint8_t *buf, size_t len);

/* Harvests q's rx ring, frames to fn, buffers back to the device. */
static unsigned int rx_poll(struct qp *q, rx_fn fn)
{
	unsigned int n = 0;
	uint32_t id, len;
	int r;

	while (!stop && (r = xv_harvest(&q->rx.r, &id, &len)) != 0) {
		if (r < 0)
			die("queue %td: vhost broke the rx ring", q - qps);
		if (len > RX_SLOT) {
			st.malformed++;
			continue;
		}
		r = xv_mrg_feed(&q->mrg, q->rx.bufs + (size_t)id * RX_SLOT,
				len);
		if (r < 0)
			st.malformed++;
		else if (r > 0)
			fn(q, q->mrg.buf, q->mrg.len);
		n++;
	}
	rx_fill(q);
	return n;
}

/* A frame of ours (proto, to port) parsed and its header read, or NULL. */
static uint8_t *accept_frame(uint8_t *buf, size_t len, uint16_t port,
			     struct xv_hdr *h, struct xv_pkt *p)
{
	uint8_t *f = buf + XV_HDR_LEN;
	size_t flen = len - XV_HDR_LEN;

	xv_hdr_get(buf, h);
	if (xv_parse(f, flen, p) || p->proto != o.flow.proto ||
	    p->dport != port) {
		st.ignored++;
		return NULL;
	}
	if (xv_hdr_check(h, flen)) {
		st.bad_hdr++;
		return NULL;
	}
	return f;
}

/*
 * TCP ACKs, as a default Linux guest's receiver sends them. recv --ack N
 * answers every N frames it took (a GSO frame counts once, as a receiver
 * with GRO gets it in one piece) with an ACK of the headers alone: 54 B,
 * unpadded as virtio-net sends it (a padded frame is one br_netfilter
 * trims), from the flow reversed, acknowledging the highest sequence seen.
 * Its checksum is partial (NEEDS_CSUM), as a guest with checksum offload
 * leaves it, or full with --csum full or off. send --acks takes them from
 * its rx ring and verifies their checksums as their vnet header says.
 */
static struct {
	/* recv --ack: the reply's flow (o.flow reversed), the next byte the
	 * receiver expects, the queues with ACKs queued but not published,
	 * frames since the last ACK, ACKs sent and dropped (a full ring). */
	struct xv_flow flow;
	int ready;
	uint32_t ack_seq, pending;
	uint64_t since, sent, drops;
	/* send --acks: ACKs taken, by what their checksums were. */
	uint64_t got, ck[XV_CK_BAD_PARTIAL + 1];
} ack;

static void ack_init(void)
{
	ack.flow = o.flow;
	memcpy(ack.flow.smac, o.flow.dmac, 6);
	memcpy(ack.flow.dmac, o.flow.smac, 6);
	memcpy(ack.flow.saddr, o.flow.daddr, 16);
	memcpy(ack.flow.daddr, o.flow.saddr, 16);
	ack.flow.sport = o.flow.dport;
	ack.flow.dport = o.flow.sport;
	ack.flow.tcp_seq = 1;
	ack.ready = 1;
}

/* Queues one ACK on q's tx ring (published by ack_flush()). */
static void ack_queue(struct qp *q)
{
	struct xv_buf vb;
	struct xv_hdr h;
	uint8_t *b;
	long len;

	tx_reap(q);
	if (!q->tx.r.num_free) {
		ack.drops++;
		return;
	}
	b = q->tx.bufs + (size_t)xv_next_head(&q->tx.r) * q->tx.slot;
	len = xv_build_ack(b + XV_HDR_LEN, &ack.flow, ack.ack_seq,
			   o.csum == C_PARTIAL, &h);
	if (len < 0 || XV_HDR_LEN + (size_t)len > q->tx.slot)
		die("cannot build an ACK");
	xv_hdr_put(b, &h);
	vb = (struct xv_buf){ .addr = (uintptr_t)b,
			      .len = (uint32_t)(XV_HDR_LEN + len) };
	xv_add(&q->tx.r, &vb, 1, 0);
	ack.pending |= 1u << (q - qps);
	ack.sent++;
}

/* recv: a frame of the flow taken; every --ack frames, an ACK. */
static void ack_note(struct qp *q, const uint8_t *f, const struct xv_pkt *p)
{
	const uint8_t *th = f + p->l4;
	uint32_t end = ((uint32_t)th[4] << 24 | (uint32_t)th[5] << 16 |
			(uint32_t)th[6] << 8 | th[7]) +
		       (uint32_t)p->plen;

	if (!ack.ready) {
		ack_init();
		ack.ack_seq = end;
	} else if ((int32_t)(end - ack.ack_seq) > 0) {
		ack.ack_seq = end;
	}
	if (++ack.since >= o.ack_every) {
		ack.since = 0;
		ack_queue(q);
	}
}

/* recv: publishes the ACKs queued since the last call, one kick each. */
static void ack_flush(void)
{
	unsigned int i;

	for (i = 0; ack.pending; i++) {
		if (!(ack.pending & 1u << i))
			continue;
		ack.pending &= ~(1u << i);
		xv_publish(&qps[i].tx.r);
		kick(&qps[i].tx);
	}
}

/* send --acks: one ACK taken, its checksum verified. */
static void on_ack(struct qp *q, uint8_t *buf, size_t len)
{
	struct xv_pkt p;
	struct xv_hdr h;
	uint8_t *f = accept_frame(buf, len, o.flow.sport, &h, &p);

	(void)q;
	if (!f)
		return;
	ack.got++;
	ack.ck[xv_verify(f, &h, &p)]++;
}

/* send --acks: the ACKs every queue holds now. */
static unsigned int ack_poll(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < o.queues; i++)
		n += rx_poll(&qps[i], on_ack);
	return n;
}

/* send --acks, at the end: the ACKs still on their way, until none has
 * come for 100 ms (1 s at most). */
static void ack_drain(void)
{
	double end = now_s() + 1, quiet = now_s() + 0.1;

	while (!stop && now_s() < end && now_s() < quiet) {
		if (ack_poll())
			quiet = now_s() + 0.1;
		else
			wait_calls(ms_until(quiet));
	}
}

static uint64_t acks_bad(void)
{
	uint64_t n = 0;
	int k;

	for (k = XV_CK_BAD_L3; k <= XV_CK_BAD_PARTIAL; k++)
		n += ack.ck[k];
	return n;
}

/* The JSON members of the ACKs (after a comma), or "" without them. */
static const char *ack_json(void)
{
	static char buf[160];

	if (o.ack_every)
		snprintf(buf, sizeof(buf),
			 ",\"acks_sent\":%llu,\"ack_drops\":%llu",
			 (unsigned long long)ack.sent,
			 (unsigned long long)ack.drops);
	else if (o.acks)
		snprintf(buf, sizeof(buf),
			 ",\"acks\":%llu,\"acks_partial\":%llu,"
			 "\"acks_full\":%llu,\"acks_bad\":%llu",
			 (unsigned long long)ack.got,
			 (unsigned long long)ack.ck[XV_CK_PARTIAL],
			 (unsigned long long)ack.ck[XV_CK_FULL],
			 (unsigned long long)acks_bad());
	else
		buf[0] = '\0';
	return buf;
}

static void on_recv(struct qp *q, uint8_t *buf, size_t len)
{
	struct xv_pkt p;
	struct xv_hdr h;
	struct xv_rec rec;
	uint8_t *f = accept_frame(buf, len, o.flow.dport, &h, &p);
	size_t off;
	int rc;

	(void)q;
	if (!f)
		return;
	st.frames++;
	st.bytes += len - XV_HDR_LEN;
	if (h.gso_type)
		st.gso++;
	st.ck[xv_verify(f, &h, &p)]++;
	for (off = 0; off < p.plen; off += rec.len) {
		rc = xv_rec_get(f + p.payload + off, p.plen - off, &rec);
		if (rc) {
			if (rc == XV_REC_DIGEST)
				st.corrupt++;
			else
				st.format++;
			break;
		}
		st.records++;
		if (rec.tag >= MAX_TAGS) {
			st.bad_tag++;
			continue;
		}
		xv_seq_note(&st.seq[rec.tag], rec.seq);
	}
	if (o.ack_every)
		ack_note(q, f, &p);
}

static uint64_t sum_seq(size_t field)
{
	uint64_t s = 0;
	int i;

	for (i = 0; i < MAX_TAGS; i++)
		s += *(uint64_t *)((char *)&st.seq[i] + field);
	return s;
}

#define SEQ_SUM(f) sum_seq(offsetof(struct xv_seq, f))

static int run_recv(void)
{
	double t0 = now_s(), end = o.timeout ? t0 + o.timeout : 0, el;
	uint64_t bad_ck, uniq;
	unsigned int i, n;
	int ok, k;

	while (!stop && !(o.expect && SEQ_SUM(uniq) >= o.expect)) {
		if (end && now_s() >= end)
			break;
		if (o.packet) {
			struct pollfd p = { .fd = pkt_fd, .events = POLLIN };

			if (!pkt_poll())
				poll(&p, 1, end ? ms_until(end) : 1000);
			continue;
		}
		for (i = n = 0; i < o.queues; i++)
			n += rx_poll(&qps[i], on_recv);
		ack_flush();
		if (!n)
			wait_calls(end ? ms_until(end) : 1000);
	}
	el = now_s() - t0;
	for (k = XV_CK_BAD_L3, bad_ck = 0; k <= XV_CK_BAD_PARTIAL; k++)
		bad_ck += st.ck[k];
	uniq = SEQ_SUM(uniq);
	ok = !bad_ck && !st.bad_hdr && !st.malformed && !st.corrupt &&
	     !st.format && !st.bad_tag && !SEQ_SUM(missing) && !SEQ_SUM(dups) &&
	     (o.any_order || !SEQ_SUM(late)) && !SEQ_SUM(old) &&
	     uniq >= o.expect;
	if (o.json)
		printf("{\"tool\":\"xnb_vhost\",\"mode\":\"recv\",\"ok\":%s,"
		       "\"frames\":%llu,\"bytes\":%llu,\"records\":%llu,"
		       "\"unique\":%llu,\"expect\":%llu,\"missing\":%llu,"
		       "\"dups\":%llu,\"reordered\":%llu,\"old\":%llu,"
		       "\"corrupt\":%llu,\"format\":%llu,\"bad_tag\":%llu,"
		       "\"gso\":%llu,\"csum_full\":%llu,\"csum_partial\":%llu,"
		       "\"csum_valid\":%llu,\"csum_none\":%llu,"
		       "\"csum_bad\":%llu,\"bad_hdr\":%llu,\"malformed\":%llu,"
		       "\"ignored\":%llu,\"seconds\":%.3f%s%s}\n",
		       ok ? "true" : "false", (unsigned long long)st.frames,
		       (unsigned long long)st.bytes,
		       (unsigned long long)st.records, (unsigned long long)uniq,
		       (unsigned long long)o.expect,
		       (unsigned long long)SEQ_SUM(missing),
		       (unsigned long long)SEQ_SUM(dups),
		       (unsigned long long)SEQ_SUM(late),
		       (unsigned long long)SEQ_SUM(old),
		       (unsigned long long)st.corrupt,
		       (unsigned long long)st.format,
		       (unsigned long long)st.bad_tag,
		       (unsigned long long)st.gso,
		       (unsigned long long)st.ck[XV_CK_FULL],
		       (unsigned long long)st.ck[XV_CK_PARTIAL],
		       (unsigned long long)st.ck[XV_CK_VALID],
		       (unsigned long long)st.ck[XV_CK_NONE],
		       (unsigned long long)bad_ck,
		       (unsigned long long)st.bad_hdr,
		       (unsigned long long)st.malformed,
		       (unsigned long long)st.ignored, el, cpu_json(),
		       ack_json());
	else
		printf("recv %s: %llu frames (%llu gso), %llu records, "
		       "%llu/%llu unique, missing %llu, dups %llu, "
		       "reordered %llu, corrupt %llu, csum full %llu partial "
		       "%llu valid %llu bad %llu, ignored %llu, %.3f s\n",
		       ok ? "ok" : "FAILED", (unsigned long long)st.frames,
		       (unsigned long long)st.gso,
		       (unsigned long long)st.records, (unsigned long long)uniq,
		       (unsigned long long)o.expect,
		       (unsigned long long)SEQ_SUM(missing),
		       (unsigned long long)(SEQ_SUM(dups) + SEQ_SUM(old)),
		       (unsigned long long)SEQ_SUM(late),
		       (unsigned long long)(st.corrupt + st.format +
					    st.bad_tag + st.bad_hdr +
					    st.malformed),
		       (unsigned long long)st.ck[XV_CK_FULL],
		       (unsigned long long)st.ck[XV_CK_PARTIAL],
		       (unsigned long long)st.ck[XV_CK_VALID],
		       (unsigned long long)bad_ck,
		       (unsigned long long)st.ignored, el);
	return ok ? 0 : EXIT_CHECK;
}

/* Waits up to 2 s for vhost to complete every queued tx frame. */
static uint64_t tx_drain(void)
{
	double end = now_s() + 2;
	uint64_t left;
	unsigned int i;

	for (;;) {
		for (i = 0, left = 0; i < o.queues; i++) {
			tx_reap(&qps[i]);
			left += qps[i].tx.r.num - qps[i].tx.r.num_free;
		}
		if (!left || now_s() >= end)
			return left;
		wait_calls(ms_until(end));
	}
}

static int run_send(void)
{
	double t0 = now_s(), end = o.duration ? t0 + o.duration : 0, t, el;
	uint64_t budget, n, left;
	unsigned int i;
	int progress;

	while (!stop && !(o.count && st.sent >= o.count)) {
		t = now_s();
		if (end && t >= end)
			break;
		budget = o.count ? o.count - st.sent : UINT64_MAX;
		if (o.rate) {
			double due = (double)(uint64_t)((t - t0) * o.rate) + 1 -
				     (double)st.sent;

			if (due < 1) {
				struct timespec ts;
				double w = t0 + st.sent / o.rate - t;

				ts.tv_sec = (time_t)w;
				ts.tv_nsec = (long)((w - ts.tv_sec) * 1e9);
				nanosleep(&ts, NULL);
				continue;
			}
			if (due < budget)
				budget = (uint64_t)due;
		}
		progress = 0;
		for (i = 0; i < o.queues && budget; i++) {
			struct qp *q = &qps[i];

			tx_reap(q);
			for (n = 0; n < 64 && budget && q->tx.r.num_free;
			     n++, budget--)
				tx_stamped(q);
			if (n) {
				xv_publish(&q->tx.r);
				kick(&q->tx);
				progress = 1;
			}
		}
		if (o.acks)
			ack_poll();
		if (!progress)
			wait_calls(100);
	}
	left = tx_drain();
	el = now_s() - t0;
	if (o.acks)
		ack_drain();
	if (o.json)
		printf("{\"tool\":\"xnb_vhost\",\"mode\":\"send\",\"ok\":%s,"
		       "\"frames\":%llu,\"records\":%llu,\"bytes\":%llu,"
		       "\"incomplete\":%llu,\"seconds\":%.3f,\"pps\":%.0f%s%s}\n",
		       left || acks_bad() ? "false" : "true",
		       (unsigned long long)st.sent,
		       (unsigned long long)st.sent_records,
		       (unsigned long long)st.bytes, (unsigned long long)left,
		       el, el > 0 ? st.sent / el : 0, cpu_json(), ack_json());
	else
		printf("send %s: %llu frames, %llu records, %llu bytes, "
		       "%llu incomplete, %.3f s, %.0f pps\n",
		       left || acks_bad() ? "FAILED" : "ok",
		       (unsigned long long)st.sent,
		       (unsigned long long)st.sent_records,
		       (unsigned long long)st.bytes, (unsigned long long)left,
		       el, el > 0 ? st.sent / el : 0);
	return left || acks_bad() ? EXIT_CHECK : 0;
}

static void on_echo(struct qp *q, uint8_t *buf, size_t len)
{
	struct xv_pkt p;
	struct xv_hdr h;
	uint8_t *f = accept_frame(buf, len, o.flow.dport, &h, &p), *b;
	struct xv_buf vb;

	if (!f)
		return;
	tx_reap(q);
	if (!q->tx.r.num_free || len > q->tx.slot) {
		st.echo_drops++;
		return;
	}
	xv_swap(f, &p);
	/* A partial checksum survives the swap; DATA_VALID or none is
	 * made full, as the frame may carry anything there. */
	h.flags &= VIRTIO_NET_HDR_F_NEEDS_CSUM;
	h.num_buffers = 0;
	if (!h.flags)
		xv_fix_csums(f, &p);
	b = q->tx.bufs + (size_t)xv_next_head(&q->tx.r) * q->tx.slot;
	xv_hdr_put(buf, &h);
	memcpy(b, buf, len);
	vb = (struct xv_buf){ .addr = (uintptr_t)b, .len = (uint32_t)len };
	xv_add(&q->tx.r, &vb, 1, 0);
	xv_publish(&q->tx.r);
	kick(&q->tx);
	st.echoed++;
}

static int run_echo(void)
{
	double t0 = now_s(), end = o.duration ? t0 + o.duration : 0;
	unsigned int i, n;

	while (!stop && !(o.count && st.echoed >= o.count)) {
		if (end && now_s() >= end)
			break;
		for (i = n = 0; i < o.queues; i++) {
			n += rx_poll(&qps[i], on_echo);
			tx_reap(&qps[i]);
		}
		if (!n)
			wait_calls(end ? ms_until(end) : 1000);
	}
	tx_drain();
	if (o.json)
		printf("{\"tool\":\"xnb_vhost\",\"mode\":\"echo\",\"echoed\":%llu,"
		       "\"drops\":%llu,\"ignored\":%llu,\"bad_hdr\":%llu,"
		       "\"malformed\":%llu,\"seconds\":%.3f%s}\n",
		       (unsigned long long)st.echoed,
		       (unsigned long long)st.echo_drops,
		       (unsigned long long)st.ignored,
		       (unsigned long long)st.bad_hdr,
		       (unsigned long long)st.malformed, now_s() - t0,
		       cpu_json());
	else
		printf("echo: %llu echoed, %llu dropped, %llu ignored, "
		       "%.3f s\n",
		       (unsigned long long)st.echoed,
		       (unsigned long long)st.echo_drops,
		       (unsigned long long)st.ignored, now_s() - t0);
	return 0;
}

/* ---- relay: a stand-in VM's tap on one side, vhost-net on the other ---- */

struct rl_dir {
	const char *name;
	uint64_t frames, bytes, gso, needs_csum, errors;
	int last_errno;
};

static struct rl_dir g2h = { .name = "guest->host" };
static struct rl_dir h2g = { .name = "host->guest" };

static void rl_count(struct rl_dir *d, const uint8_t *buf, size_t len)
{
	struct xv_hdr h;

	xv_hdr_get(buf, &h);
	d->frames++;
	d->bytes += len - XV_HDR_LEN;
	if (h.gso_type & ~VIRTIO_NET_HDR_GSO_ECN)
		d->gso++;
	if (h.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
		d->needs_csum++;
}

/* The guest's tap, in netns o.netns (a name or a path), as the host's. */
static void relay_open_guest(void)
{
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR };
	char path[PATH_MAX];
	int ns, hdr = XV_HDR_LEN;

	snprintf(path, sizeof(path), "%s%s",
		 o.netns[0] == '/' ? "" : "/run/netns/", o.netns);
	ns = open(path, O_RDONLY | O_CLOEXEC);
	if (ns < 0)
		die("netns %s: %s: %s", o.netns, path, strerror(errno));
	if (setns(ns, CLONE_NEWNET))
		die("netns %s: setns: %s", o.netns, strerror(errno));
	close(ns);
	guest_fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (guest_fd < 0)
		die("/dev/net/tun: %s", strerror(errno));
	strcpy(ifr.ifr_name, o.guest);
	if (ioctl(guest_fd, TUNSETIFF, &ifr))
		die("guest tap %s: TUNSETIFF: %s", o.guest, strerror(errno));
	XIOCTL(guest_fd, TUNSETVNETHDRSZ, &hdr);
	if (ioctl(guest_fd, TUNSETOFFLOAD, tap_offloads()))
		die("guest tap %s: TUNSETOFFLOAD: %s", o.guest,
		    strerror(errno));
}

/* host -> guest: a frame vhost-net delivered, onto the guest's tap. */
static void on_relay(struct qp *q, uint8_t *buf, size_t len)
{
	(void)q;
	rl_count(&h2g, buf, len);
	while (write(guest_fd, buf, len) < 0) {
		struct pollfd p = { .fd = guest_fd, .events = POLLOUT };

		if (errno == EINTR && !stop)
			continue;
		if (errno == EAGAIN && !stop && poll(&p, 1, 100) >= 0)
			continue;
		/* A frame the guest's stack refuses is dropped. */
		h2g.errors++;
		h2g.last_errno = errno;
		break;
	}
}

/* guest -> host: what the guest's tap holds, while descriptors last. */
static unsigned int relay_from_guest(struct qp *q)
{
	unsigned int n = 0;
	struct xv_buf vb;
	ssize_t len = 0;
	uint8_t *b;

	while (q->tx.r.num_free && !stop) {
		b = q->tx.bufs + (size_t)xv_next_head(&q->tx.r) * q->tx.slot;
		len = read(guest_fd, b, q->tx.slot);
		if (len < 0 && errno == EINTR)
			continue;
		if (len < 0 && errno == EAGAIN)
			break;
		if (len < 0) /* the guest's tap is gone (netns deleted) */
			die_status(EXIT_CHECK, "guest tap %s: read: %s",
				   o.guest, strerror(errno));
		if (len < XV_HDR_LEN) {
			g2h.errors++;
			continue;
		}
		rl_count(&g2h, b, (size_t)len);
		vb = (struct xv_buf){ .addr = (uintptr_t)b,
				      .len = (uint32_t)len };
		xv_add(&q->tx.r, &vb, 1, 0);
		n++;
	}
	if (n) {
		xv_publish(&q->tx.r);
		kick(&q->tx);
	}
	return n;
}

static void rl_print(const struct rl_dir *d)
{
	fprintf(stderr,
		"xnb_vhost: %s frames=%llu bytes=%llu gso=%llu "
		"needs_csum=%llu errors=%llu",
		d->name, (unsigned long long)d->frames,
		(unsigned long long)d->bytes, (unsigned long long)d->gso,
		(unsigned long long)d->needs_csum,
		(unsigned long long)d->errors);
	if (d->last_errno)
		fprintf(stderr, " last_error=%s", strerror(d->last_errno));
	fputc('\n', stderr);
}

static void drain_call(int fd)
{
	uint64_t v;

	while (read(fd, &v, 8) == 8)
		;
}

static int run_relay(void)
{
	struct qp *q = &qps[0];
	struct pollfd p[3];
	FILE *f;

	relay_open_guest();
	fprintf(stderr,
		"xnb_vhost: relay %s (vhost-net) <-> %s (netns %s), "
		"offload 0x%lx, sndbuf %d\n",
		o.tap, o.guest, o.netns, tap_offloads(), o.sndbuf);
	if (o.pidfile) {
		f = fopen(o.pidfile, "w");
		if (!f || fprintf(f, "%d\n", getpid()) < 0 || fclose(f))
			die("pidfile %s: %s", o.pidfile, strerror(errno));
	}
	printf("READY\n");
	fflush(stdout);
	while (!stop) {
		/* Calls drained before the rings are read: one that comes
		 * after is not lost. */
		drain_call(q->rx.call);
		drain_call(q->tx.call);
		tx_reap(q);
		if (rx_poll(q, on_relay) + relay_from_guest(q))
			continue;
		p[0] = (struct pollfd){ .fd = guest_fd,
					.events = q->tx.r.num_free ? POLLIN
								   : 0 };
		p[1] = (struct pollfd){ .fd = q->rx.call, .events = POLLIN };
		p[2] = (struct pollfd){ .fd = q->tx.call, .events = POLLIN };
		poll(p, 3, -1);
	}
	rl_print(&g2h);
	rl_print(&h2g);
	return 0;
}

static uint32_t rr_want;
static int rr_got;

/* The reply may come on any queue (the tap picks one per flow). */
static void on_reply(struct qp *q, uint8_t *buf, size_t len)
{
	struct xv_pkt p;
	struct xv_hdr h;
	struct xv_rec rec;
	uint8_t *f = accept_frame(buf, len, o.flow.sport, &h, &p);
	int rc;

	(void)q;
	if (!f)
		return;
	st.frames++;
	st.ck[xv_verify(f, &h, &p)]++;
	rc = xv_rec_get(f + p.payload, p.plen, &rec);
	if (rc == XV_REC_DIGEST)
		st.corrupt++;
	else if (rc)
		st.format++;
	else if (rec.tag != qps[0].tag || rec.seq != rr_want)
		st.stale++;
	else
		rr_got = 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int run_rr(void)
{
	struct qp *q = &qps[0];
	double t0 = now_s(), stop_at = o.duration ? t0 + o.duration : 0;
	double *rtt = NULL, t, end, sum = 0;
	uint64_t i, got = 0, bad_ck = 0, cap = 0;
	int k, ok;

	for (i = 0; (!o.count || i < o.count) && !stop; i++) {
		if (stop_at && now_s() >= stop_at)
			break;
		if (got == cap) {
			cap = cap ? 2 * cap : 4096;
			rtt = realloc(rtt, cap * sizeof(*rtt));
			if (!rtt)
				die("out of memory");
		}
		tx_reap(q);
		if (!q->tx.r.num_free) {
			wait_calls(100);
			tx_reap(q);
			if (!q->tx.r.num_free)
				die("tx ring full: vhost completes no frame");
		}
		rr_want = q->seq;
		rr_got = 0;
		tx_stamped(q);
		xv_publish(&q->tx.r);
		t = now_s();
		kick(&q->tx);
		end = t + o.timeout;
		while (!rr_got && !stop) {
			unsigned int j, n = 0;

			for (j = 0; j < o.queues; j++)
				n += rx_poll(&qps[j], on_reply);
			if (!n) {
				if (now_s() >= end)
					break;
				wait_calls(ms_until(end));
			}
		}
		if (rr_got) {
			rtt[got] = (now_s() - t) * 1e6;
			sum += rtt[got++];
		}
	}
	qsort(rtt, got, sizeof(*rtt), cmp_double);
	for (k = XV_CK_BAD_L3; k <= XV_CK_BAD_PARTIAL; k++)
		bad_ck += st.ck[k];
	ok = got == i && !bad_ck && !st.corrupt && !st.format;
#define PCT(x) (got ? rtt[(size_t)((got - 1) * (x))] : 0)
	if (o.json)
		printf("{\"tool\":\"xnb_vhost\",\"mode\":\"rr\",\"ok\":%s,"
		       "\"requests\":%llu,\"answered\":%llu,\"stale\":%llu,"
		       "\"corrupt\":%llu,\"csum_bad\":%llu,\"rtt_us\":{"
		       "\"min\":%.1f,\"mean\":%.1f,\"p50\":%.1f,\"p99\":%.1f,"
		       "\"max\":%.1f},\"seconds\":%.3f%s}\n",
		       ok ? "true" : "false", (unsigned long long)i,
		       (unsigned long long)got, (unsigned long long)st.stale,
		       (unsigned long long)(st.corrupt + st.format),
		       (unsigned long long)bad_ck, PCT(0), got ? sum / got : 0,
		       PCT(0.5), PCT(0.99), PCT(1), now_s() - t0, cpu_json());
	else
		printf("rr %s: %llu requests, %llu answered, rtt us min %.1f "
		       "p50 %.1f p99 %.1f max %.1f\n",
		       ok ? "ok" : "FAILED", (unsigned long long)i,
		       (unsigned long long)got, PCT(0), PCT(0.5), PCT(0.99),
		       PCT(1));
#undef PCT
	free(rtt);
	return ok ? 0 : EXIT_CHECK;
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
