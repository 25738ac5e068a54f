// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xnt_frames - send and count test frames on one device (packet sockets),
 * for tests/integration/semantics.sh: what a VM sends, and what arrives in
 * which namespace.
 *
 *   xnt_frames send DEV --dst MAC [--src MAC|random] [--count N]
 *                   [--rate PPS] [--len BYTES] [--tag N] [--df]
 *                   [--saddr IP] [--daddr IP] [--direct] [--vlan VID[,ad]]...
 *                   [--partial] [--mangle ipcsum|trailer|fragment]
 *       IPv4/UDP frames of --len bytes (Ethernet header included, at least
 *       60) with valid IP and UDP checksums; the payload starts with
 *       "XNTF", the tag and a sequence number (0, 1, ...). --src random:
 *       a fresh random locally administered unicast source per frame.
 *       Prints "sent N". Without --rate, as fast as the device takes them.
 *       --vlan: with an 802.1Q tag of that VLAN (",ad": 802.1ad) after
 *       the addresses, 4 bytes more. A receiver's stack takes the tag
 *       off before the counter sees the frame. Given again, one more tag
 *       inside the ones before (at most 16).
 *       --partial: with a virtio-net header that leaves the UDP checksum
 *       to the device (NEEDS_CSUM: the field holds the pseudo-header
 *       sum), as a guest with checksum offload sends it; the sender's
 *       kernel marks the frame CHECKSUM_PARTIAL.
 *       --mangle ipcsum: an IPv4 header checksum that does not add up;
 *       trailer: the IP and UDP lengths 8 bytes short of the frame (8
 *       bytes beyond the packet, which br_netfilter trims); fragment: MF
 *       set, the first fragment of a datagram whose rest never comes.
 *       --direct: past the device's qdisc and tc egress hook
 *       (PACKET_QDISC_BYPASS), as a fence through a port whose egress
 *       drops what the test sends.
 *   xnt_frames garp DEV --src MAC --saddr IP
 *       One gratuitous ARP request (broadcast) for IP from MAC.
 *   xnt_frames arp DEV --src MAC --saddr IP --dst MAC --daddr IP
 *                  [--count N]
 *       N ARP requests for --daddr from --src/--saddr, sent to --dst (a
 *       unicast request, as Linux's neighbour probes are). Prints "sent N".
 *   xnt_frames count DEV [--tag N] [--dst MAC] [--src MAC] [--min-len L]
 *                    [--seq-ge S] [--over L] [--timeout SECS] [--want N]
 *                    [--fence F] [--arp-op OP] [--inband] [--untagged]
 *       Counts frames that arrive on DEV (not the ones it sends) and match
 *       every filter given (--arp-op: ARP frames of that operation, 1
 *       request, 2 reply; --inband: this tool's frames under VLAN tags
 *       that the stack left in the frame, the inner ones of a frame with
 *       several; --untagged: frames that arrived without a VLAN tag). Prints
 *       "READY" once listening. Stops on
 *       SIGTERM or SIGINT, after SECS, once N frames matched, or at the
 *       first frame with tag F (a fence, sent after everything else; not
 *       counted), and prints one line:
 *         frames=N seq_ge=M first_seq=A last_seq=B max_len=L over=O
 *         fence=0|1 tags=T:N,...
 *       seq_ge: matching tagged frames with a sequence number >= S;
 *       first/last: -1 when none; over: frames longer than --over L,
 *       matching or not; tags: the matching frames of this tool by tag,
 *       in the order they first arrived.
 *
 * Exit: 0 ok, 1 failure, 2 bad command line.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAGIC "XNTF"
#define L2 14
#define L3 20
#define L4 8
#define HDRS (L2 + L3 + L4)
#define PAY_MIN 12 /* magic, tag, seq */
#define FRAME_MAX 9216
#define VLANS_MAX 16
#define PACKET_VNET_HDR_ 15 /* linux/if_packet.h */

struct opts {
	const char *cmd;
	const char *dev;
	uint8_t dst[6], src[6];
	int have_dst, have_src, random_src;
	long count, want;
	double rate, timeout;
	int len, df, direct, have_tag, have_fence;
	int nvlan, partial, inband, untagged;
	enum { M_NONE, M_IPCSUM, M_TRAILER, M_FRAGMENT } mangle;
	uint16_t vlans[VLANS_MAX]; /* --vlan: the tags' TPID and VID */
	uint16_t tpids[VLANS_MAX];
	int arp_op; /* --arp-op: 0 any frame */
	uint32_t tag, fence;
	long seq_ge;
	int min_len, over;
	struct in_addr saddr, daddr;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void __attribute__((noreturn)) usage(void)
{
	fputs("usage: xnt_frames send DEV --dst MAC [--src MAC|random] "
	      "[--count N] [--rate PPS] [--len BYTES] [--tag N] [--df] "
	      "[--saddr IP] [--daddr IP] [--direct] [--vlan VID[,ad]]... "
	      "[--partial] [--mangle ipcsum|trailer|fragment]\n"
	      "       xnt_frames garp DEV --src MAC --saddr IP\n"
	      "       xnt_frames arp DEV --src MAC --saddr IP --dst MAC "
	      "--daddr IP [--count N]\n"
	      "       xnt_frames count DEV [--tag N] [--dst MAC] [--src MAC] "
	      "[--min-len L] [--seq-ge S] [--timeout SECS] [--want N] "
	      "[--over L] [--fence F] [--arp-op OP] [--inband] [--untagged]\n",
	      stderr);
	exit(2);
}

static void __attribute__((noreturn)) fail(const char *what)
{
	fprintf(stderr, "xnt_frames: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int parse_mac(const char *s, uint8_t m[6])
{
	unsigned int b[6];
	char tail;
	int i;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5], &tail) != 6)
		return -1;
	for (i = 0; i < 6; i++)
		m[i] = b[i];
	return 0;
}

static long parse_num(const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *end || v < min || v > max) {
		fprintf(stderr, "xnt_frames: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "dst", 1, 0, 'd' },
		{ "src", 1, 0, 's' },
		{ "count", 1, 0, 'c' },
		{ "rate", 1, 0, 'r' },
		{ "len", 1, 0, 'l' },
		{ "tag", 1, 0, 't' },
		{ "df", 0, 0, 'D' },
		{ "saddr", 1, 0, 'S' },
		{ "daddr", 1, 0, 'A' },
		{ "min-len", 1, 0, 'm' },
		{ "seq-ge", 1, 0, 'g' },
		{ "timeout", 1, 0, 'T' },
		{ "want", 1, 0, 'w' },
		{ "fence", 1, 0, 'F' },
		{ "over", 1, 0, 'o' },
		{ "direct", 0, 0, 'B' },
		{ "vlan", 1, 0, 'V' },
		{ "arp-op", 1, 0, 'P' },
		{ "partial", 0, 0, 'C' },
		{ "inband", 0, 0, 'I' },
		{ "untagged", 0, 0, 'U' },
		{ "mangle", 1, 0, 'M' },
		{ 0, 0, 0, 0 },
	};
	int c;

	if (argc < 3)
		usage();
	memset(o, 0, sizeof(*o));
	o->cmd = argv[1];
	o->dev = argv[2];
	o->count = 1;
	o->len = 100;
	o->seq_ge = -1;
	inet_pton(AF_INET, "10.255.0.1", &o->saddr);
	inet_pton(AF_INET, "10.255.0.2", &o->daddr);
	optind = 3;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (parse_mac(optarg, o->dst))
				usage();
			o->have_dst = 1;
			break;
		case 's':
			if (!strcmp(optarg, "random"))
				o->random_src = 1;
			else if (parse_mac(optarg, o->src))
				usage();
			o->have_src = 1;
			break;
		case 'c':
			o->count = parse_num(optarg, 0, 1L << 40);
			break;
		case 'r':
			o->rate = parse_num(optarg, 1, 10000000);
			break;
		case 'l':
			o->len = parse_num(optarg, 60, FRAME_MAX);
			break;
		case 't':
			o->tag = parse_num(optarg, 0, UINT32_MAX);
			o->have_tag = 1;
			break;
		case 'D':
			o->df = 1;
			break;
		case 'B':
			o->direct = 1;
			break;
		case 'V': {
			char *c = strchr(optarg, ',');
			int ad = c && !strcmp(c, ",ad");

			if ((c && !ad) || o->nvlan == VLANS_MAX)
				usage();
			if (c)
				*c = 0;
			o->tpids[o->nvlan] = ad ? 0x88a8 : 0x8100;
			o->vlans[o->nvlan++] = parse_num(optarg, 1, 4094);
			break;
		}
		case 'C':
			o->partial = 1;
			break;
		case 'I':
			o->inband = 1;
			break;
		case 'U':
			o->untagged = 1;
			break;
		case 'M':
			o->mangle = !strcmp(optarg, "ipcsum")	  ? M_IPCSUM
				    : !strcmp(optarg, "trailer")  ? M_TRAILER
				    : !strcmp(optarg, "fragment") ? M_FRAGMENT
								  : M_NONE;
			if (o->mangle == M_NONE)
				usage();
			break;
		case 'S':
		case 'A':
			if (inet_pton(AF_INET, optarg,
				      c == 'S' ? &o->saddr : &o->daddr) != 1)
				usage();
			break;
		case 'm':
			o->min_len = parse_num(optarg, 0, 1 << 20);
			break;
		case 'g':
			o->seq_ge = parse_num(optarg, 0, UINT32_MAX);
			break;
		case 'T':
			o->timeout = parse_num(optarg, 0, 100000);
			break;
		case 'w':
			o->want = parse_num(optarg, 1, 1L << 40);
			break;
		case 'o':
			o->over = parse_num(optarg, 1, 1 << 20);
			break;
		case 'P':
			o->arp_op = parse_num(optarg, 1, 65535);
			break;
		case 'F':
			o->fence = parse_num(optarg, 0, UINT32_MAX);
			o->have_fence = 1;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
}

static int packet_socket(const char *dev, int proto, struct sockaddr_ll *sa)
{
	int fd = socket(AF_PACKET, SOCK_RAW, htons(proto));

	if (fd < 0)
		fail("socket");
	memset(sa, 0, sizeof(*sa));
	sa->sll_family = AF_PACKET;
	sa->sll_protocol = htons(proto);
	sa->sll_ifindex = if_nametoindex(dev);
	if (!sa->sll_ifindex)
		fail(dev);
	if (bind(fd, (struct sockaddr *)sa, sizeof(*sa)))
		fail("bind");
	return fd;
}

static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += (p[i] << 8) | p[i + 1];
	if (n & 1)
		sum += p[n - 1] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static uint64_t rnd_state;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* The frame for sequence number seq, in f (o->len bytes). */
static void build_udp(const struct opts *o, uint8_t *f, uint32_t seq)
{
	uint8_t *ip = f + L2, *udp = ip + L3, *pay = udp + L4;
	int trailer = o->mangle == M_TRAILER ? 8 : 0;
	int ulen = o->len - L2 - L3 - trailer;
	uint32_t sum;

	memcpy(f, o->dst, 6);
	if (o->random_src) {
		uint64_t r = rnd();

		memcpy(f + 6, &r, 6);
		f[6] = (f[6] & 0xfc) | 0x02; /* unicast, locally administered */
	} else {
		memcpy(f + 6, o->src, 6);
	}
	put16(f + 12, ETH_P_IP);
	memset(ip, 0, L3 + L4);
	ip[0] = 0x45;
	put16(ip + 2, o->len - L2 - trailer);
	put16(ip + 4, seq & 0xffff);
	put16(ip + 6,
	      (o->df ? 0x4000 : 0) | (o->mangle == M_FRAGMENT ? 0x2000 : 0));
	ip[8] = 64;
	ip[9] = 17; /* UDP */
	memcpy(ip + 12, &o->saddr, 4);
	memcpy(ip + 16, &o->daddr, 4);
	put16(ip + 10, csum_fold(csum_add(0, ip, L3)) ^
			       (o->mangle == M_IPCSUM ? 0x0100 : 0));
	put16(udp, 40000);
	put16(udp + 2, 40001);
	put16(udp + 4, ulen);
	memcpy(pay, MAGIC, 4);
	put32(pay + 4, o->tag);
	put32(pay + 8, seq);
	/* The pseudo-header, then the datagram (its checksum field 0). */
	sum = csum_add(0, ip + 12, 8) + 17 + ulen;
	if (o->partial) { /* the device adds the datagram's sum */
		put16(udp + 6, ~csum_fold(sum) & 0xffff);
		return;
	}
	sum = csum_add(sum, udp, ulen);
	put16(udp + 6, csum_fold(sum) ? csum_fold(sum) : 0xffff);
}

/* Room for the virtio-net header (--partial) and the tags (--vlan). */
#define PRE_MAX (10 + 4 * VLANS_MAX)

/* Frame f (o->len bytes at f + PRE_MAX) with its tags and virtio-net
 * header in front: returns where it starts, its length in *len. */
static uint8_t *frame_out(const struct opts *o, uint8_t *f, int *len)
{
	uint8_t *p = f + PRE_MAX - 4 * o->nvlan;
	int i;

	memmove(p, f + PRE_MAX, 12);
	for (i = 0; i < o->nvlan; i++) {
		put16(p + 12 + 4 * i, o->tpids[i]);
		put16(p + 14 + 4 * i, o->vlans[i]);
	}
	*len = o->len + 4 * o->nvlan;
	if (o->partial) {
		/* struct virtio_net_hdr, little-endian (a modern virtio
		 * device; also the host's order here) */
		uint16_t start = L2 + 4 * o->nvlan + L3;

		p -= 10;
		memset(p, 0, 10);
		p[0] = 1; /* VIRTIO_NET_HDR_F_NEEDS_CSUM */
		p[6] = start & 0xff;
		p[7] = start >> 8;
		p[8] = 6; /* csum_offset: the UDP checksum */
		*len += 10;
	}
	return p;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Send one frame; wait out a full queue (ENOBUFS) for up to 2 s. */
static int send_frame(int fd, const struct sockaddr_ll *sa, const uint8_t *f,
		      int len)
{
	double give_up = 0;

	while (send(fd, f, len, 0) != len) {
		if (errno != ENOBUFS && errno != EAGAIN && errno != EINTR)
			return -1;
		if (!give_up)
			give_up = now_s() + 2;
		else if (now_s() > give_up)
			return -1;
		usleep(100);
	}
	(void)sa;
	return 0;
}

static int cmd_send(const struct opts *o)
{
	static uint8_t f[PRE_MAX + FRAME_MAX];
	struct sockaddr_ll sa;
	double t0, next;
	long i;
	int fd;

	if (!o->have_dst || (!o->have_src && !o->random_src) ||
	    o->len < HDRS + PAY_MIN + (o->mangle == M_TRAILER ? 8 : 0))
		usage();
	fd = packet_socket(o->dev, 0, &sa);
	if (o->direct) {
		int one = 1;

		if (setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one,
			       sizeof(one)))
			fail("PACKET_QDISC_BYPASS");
	}
	if (o->partial) {
		int one = 1;

		if (setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR_, &one,
			       sizeof(one)))
			fail("PACKET_VNET_HDR");
	}
	rnd_state = (uint64_t)now_s() * 1000003 ^ (uint64_t)getpid() << 20 ^
		    0x9e3779b97f4a7c15ULL;
	t0 = now_s();
	for (i = 0; i < o->count && !stop; i++) {
		uint8_t *out;
		int len;

		build_udp(o, f + PRE_MAX, (uint32_t)i);
		out = frame_out(o, f, &len);
		if (o->rate) {
			next = t0 + i / o->rate;
			while (now_s() < next)
				usleep(50);
		}
		if (send_frame(fd, &sa, out, len))
			fail("send");
	}
	printf("sent %ld\n", i);
	close(fd);
	return 0;
}

/* ARP requests from --src/--saddr for target, to dst (n of them). */
static int send_arp(const struct opts *o, const uint8_t *dst,
		    const struct in_addr *target, long n)
{
	uint8_t f[60] = {};
	struct sockaddr_ll sa;
	long i;
	int fd;

	if (!o->have_src || o->random_src)
		usage();
	fd = packet_socket(o->dev, 0, &sa);
	memcpy(f, dst, 6);
	memcpy(f + 6, o->src, 6);
	put16(f + 12, ETH_P_ARP);
	put16(f + 14, 1);	 /* Ethernet */
	put16(f + 16, ETH_P_IP); /* IPv4 */
	f[18] = 6;
	f[19] = 4;
	put16(f + 20, 1); /* request */
	memcpy(f + 22, o->src, 6);
	memcpy(f + 28, &o->saddr, 4);
	memcpy(f + 38, target, 4);
	for (i = 0; i < n; i++)
		if (send_frame(fd, &sa, f, sizeof(f)))
			fail("send");
	printf("sent %ld\n", n);
	close(fd);
	return 0;
}

static int cmd_garp(const struct opts *o)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	/* target: the same address */
	return send_arp(o, bcast, &o->saddr, 1);
}

static int cmd_arp(const struct opts *o)
{
	if (!o->have_dst)
		usage();
	return send_arp(o, o->dst, &o->daddr, o->count);
}

/* Is f one of our frames? Then its tag and sequence number. inband:
 * under any VLAN tags left in it. */
static int ours(const uint8_t *f, ssize_t n, int inband, uint32_t *tag,
		uint32_t *seq)
{
	const uint8_t *pay;

	while (inband && n >= L2 + 4 &&
	       (get16(f + 12) == 0x8100 || get16(f + 12) == 0x88a8)) {
		f += 4; /* only the type and what follows are read */
		n -= 4;
	}
	pay = f + HDRS;
	if (n < HDRS + PAY_MIN || f[12] != 0x08 || f[13] != 0x00 ||
	    f[L2 + 9] != 17 || (f[L2] & 0x0f) != 5 || memcmp(pay, MAGIC, 4))
		return 0;
	*tag = get32(pay + 4);
	*seq = get32(pay + 8);
	return 1;
}

/* recvfrom(), and whether the frame came with a VLAN tag that the stack
 * took out (PACKET_AUXDATA). */
static ssize_t recv_frame(int fd, uint8_t *f, size_t size,
			  struct sockaddr_ll *from, socklen_t *fl, int *tagged)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(struct tpacket_auxdata))];
	} c;
	struct iovec iov = { f, size };
	struct msghdr m = { .msg_name = from,
			    .msg_namelen = *fl,
			    .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = &c,
			    .msg_controllen = sizeof(c) };
	struct cmsghdr *cm;
	ssize_t n;

	*tagged = 0;
	n = recvmsg(fd, &m, MSG_TRUNC | MSG_DONTWAIT);
	if (n < 0)
		return n;
	*fl = m.msg_namelen;
	for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
		struct tpacket_auxdata a;

		if (cm->cmsg_level != SOL_PACKET ||
		    cm->cmsg_type != PACKET_AUXDATA)
			continue;
		memcpy(&a, CMSG_DATA(cm), sizeof(a));
		*tagged = !!(a.tp_status & TP_STATUS_VLAN_VALID);
	}
	return n;
}

static int cmd_count(const struct opts *o)
{
	static uint8_t f[65536 + 128];
	long frames = 0, ge = 0, first = -1, last = -1, max_len = 0;
	uint32_t tags[64], tag_n[64];
	int fenced = 0, ntags = 0, i;
	long over = 0;
	int fd, sz = 8 << 20, one = 1;
	struct sockaddr_ll sa;
	double end = o->timeout ? now_s() + o->timeout : 0;

	fd = packet_socket(o->dev, ETH_P_ALL, &sa);
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz));
	if (setsockopt(fd, SOL_PACKET, PACKET_AUXDATA, &one, sizeof(one)))
		fail("PACKET_AUXDATA");
	printf("READY\n");
	fflush(stdout);
	while (!stop && !fenced && (!end || now_s() < end) &&
	       (!o->want || frames < o->want)) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct sockaddr_ll from;
		socklen_t fl = sizeof(from);
		uint32_t tag = 0, seq = 0;
		int mine, tagged;
		ssize_t n;

		if (poll(&p, 1, 50) <= 0)
			continue;
		n = recv_frame(fd, f, sizeof(f), &from, &fl, &tagged);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			fail("recvfrom");
		}
		if (from.sll_ifindex != sa.sll_ifindex ||
		    from.sll_pkttype == PACKET_OUTGOING || n < L2)
			continue;
		mine = ours(f, n, o->inband, &tag, &seq);
		if (mine && o->have_fence && tag == o->fence) {
			fenced = 1;
			continue;
		}
		if (o->over && n > o->over)
			over++;
		if (o->have_dst && memcmp(f, o->dst, 6))
			continue;
		if (o->have_src && memcmp(f + 6, o->src, 6))
			continue;
		if (n < o->min_len)
			continue;
		if (o->untagged && (tagged || get16(f + 12) == 0x8100 ||
				    get16(f + 12) == 0x88a8))
			continue;
		if (o->have_tag && (!mine || tag != o->tag))
			continue;
		if (o->arp_op && (n < 22 || f[12] != 0x08 || f[13] != 0x06 ||
				  get16(f + 20) != o->arp_op))
			continue;
		frames++;
		if (mine) {
			for (i = 0; i < ntags && tags[i] != tag; i++)
				;
			if (i == ntags && ntags < 64) {
				tags[ntags] = tag;
				tag_n[ntags++] = 0;
			}
			if (i < ntags)
				tag_n[i]++;
		}
		if (n > max_len)
			max_len = n;
		if (o->have_tag) {
			if (first < 0)
				first = seq;
			last = seq;
			if (o->seq_ge >= 0 && seq >= o->seq_ge)
				ge++;
		}
	}
	printf("frames=%ld seq_ge=%ld first_seq=%ld last_seq=%ld max_len=%ld "
	       "over=%ld fence=%d tags=",
	       frames, ge, first, last, max_len, over, fenced);
	for (i = 0; i < ntags; i++)
		printf("%s%u:%u", i ? "," : "", tags[i], tag_n[i]);
	printf("\n");
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct opts o;

	parse(argc, argv, &o);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(o.cmd, "send"))
		return cmd_send(&o);
	if (!strcmp(o.cmd, "garp"))
		return cmd_garp(&o);
	if (!strcmp(o.cmd, "arp"))
		return cmd_arp(&o);
	if (!strcmp(o.cmd, "count"))
		return cmd_count(&o);
	usage();
}
