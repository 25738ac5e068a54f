// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xnb_pktgen - small-frame generator for scripts/bench.
 *
 * Loads a one-line XDP program that returns XDP_TX and drives it with
 * BPF_PROG_TEST_RUN in live-frames mode (BPF_F_TEST_XDP_LIVE_FRAMES): the
 * kernel builds each frame from our template and transmits it on
 * --dev (ctx.ingress_ifindex). Run it inside the namespace that holds
 * --dev; on a veth the frames arrive in the peer's receive ring, i.e. on
 * the switch port, at several million frames per second on one core.
 *
 * Frames are IPv4/UDP with a valid IPv4 header checksum and a valid UDP
 * checksum (a bridge with br_netfilter drops bad IPv4 headers, a bypass
 * would not: that would skew a comparison).
 *
 * --rate 0 (default) sends as fast as the kernel takes them; --rate N
 * paces batches so that N frames per second are offered on average.
 * Prints one JSON object on stdout at the end.
 *
 * --tap NAME (instead of --dev): the frames come from a guest instead.
 * The generator opens an existing tap as QEMU does (non-blocking, a
 * 12-byte virtio-net header, here all zero: the checksums are complete)
 * and write()s the frame in a loop; each write runs the tap's receive
 * path, native XDP and whatever forwards the frame, in this process.
 * cpu_ns in the JSON is this process's CPU time. --src-mac is required.
 * With --wait-go it prints "ready" once the tap is open (the tap has its
 * carrier from then on) and starts when a line arrives on stdin: the
 * harness waits in between for whatever reacts to the carrier.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <net/if.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <fcntl.h>
#include <linux/if_tun.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xnb_pktgen.skel.h"
#include "xnb_tool.h"

#define FRAME_MAX 1514
#define CALL_SECS 0.25

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fputs("usage: xnb_pktgen --dev IFNAME|--tap TAP --dst-mac MAC "
	      "--src-ip IP --dst-ip IP\n"
	      "         [--src-mac MAC] [--size BYTES] [--duration SECONDS]\n"
	      "         [--rate PPS] [--batch N] [--sport N] [--dport N]\n"
	      "         [--wait-go] (with --tap)\n"
	      "  --size: frame size on the wire including the 4-byte FCS "
	      "(default 64)\n"
	      "  --rate: frames per second offered, 0 = as fast as possible "
	      "(default)\n"
	      "  --wait-go: print \"ready\" once the tap is open, start on a "
	      "line on stdin\n",
	      f);
}

static int dev_mac(const char *dev, unsigned char *mac)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int err;

	if (fd < 0)
		return -1;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	err = ioctl(fd, SIOCGIFHWADDR, &ifr);
	close(fd);
	if (err)
		return -1;
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	return 0;
}

static uint32_t csum_add(uint32_t sum, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Builds the frame; returns its length without the FCS. Exposed to the
 * self-test (--selftest) through main(). */
static size_t build_frame(unsigned char *buf, size_t size,
			  const unsigned char *dmac, const unsigned char *smac,
			  uint32_t saddr, uint32_t daddr, uint16_t sport,
			  uint16_t dport)
{
	size_t len = size - 4; /* no FCS in memory */
	struct ethhdr *eth = (struct ethhdr *)buf;
	struct iphdr *ip = (struct iphdr *)(eth + 1);
	struct udphdr *udp = (struct udphdr *)(ip + 1);
	size_t l4len = len - sizeof(*eth) - sizeof(*ip);
	unsigned char *payload = (unsigned char *)(udp + 1);
	uint32_t sum;
	size_t i;

	memset(buf, 0, len);
	memcpy(eth->h_dest, dmac, 6);
	memcpy(eth->h_source, smac, 6);
	eth->h_proto = htons(ETH_P_IP);
	ip->version = 4;
	ip->ihl = 5;
	ip->tot_len = htons(len - sizeof(*eth));
	ip->id = htons(1);
	ip->frag_off = htons(0x4000); /* DF */
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	ip->saddr = saddr;
	ip->daddr = daddr;
	ip->check = htons(csum_fold(csum_add(0, ip, sizeof(*ip))));
	udp->source = htons(sport);
	udp->dest = htons(dport);
	udp->len = htons(l4len);
	for (i = 0; i < l4len - sizeof(*udp); i++)
		payload[i] = (unsigned char)i;
	/* Pseudo-header, then the datagram with a zero checksum field. */
	sum = csum_add(0, &ip->saddr, 8);
	sum += IPPROTO_UDP + l4len;
	sum = csum_add(sum, udp, l4len);
	udp->check = htons(csum_fold(sum));
	if (!udp->check)
		udp->check = 0xffff;
	return len;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#define VNET_HDR_LEN 12

/* --tap: write the frame into TAP, as a guest's frames arrive. */
static int run_tap(const char *tap, const unsigned char *frame, size_t len,
		   long size, double duration, int wait_go)
{
	char go[16];
	unsigned char buf[VNET_HDR_LEN + FRAME_MAX] = { 0 };
	unsigned long long sent = 0, errors = 0;
	struct ifreq ifr = { 0 };
	int hdr = VNET_HDR_LEN, fd, i;
	double t0, c0, elapsed;

	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		die("/dev/net/tun: %s", strerror(errno));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", tap);
	if (ioctl(fd, TUNSETIFF, &ifr) || ioctl(fd, TUNSETVNETHDRSZ, &hdr))
		die("%s: %s", tap, strerror(errno));
	memcpy(buf + VNET_HDR_LEN, frame, len);
	if (wait_go) {
		printf("ready\n");
		fflush(stdout);
		if (!fgets(go, sizeof(go), stdin))
			die("%s: no go on stdin", tap);
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	c0 = cpu_s();
	t0 = now_s();
	while (!stop && now_s() - t0 < duration) {
		for (i = 0; i < 256; i++) {
			if (write(fd, buf, VNET_HDR_LEN + len) ==
			    (ssize_t)(VNET_HDR_LEN + len))
				sent++;
			else if (errors++ == 0)
				fprintf(stderr, "xnb_pktgen: %s: write: %s\n",
					tap, strerror(errno));
		}
	}
	elapsed = now_s() - t0;
	printf("{\"tool\":\"xnb_pktgen\",\"tap\":\"%s\",\"frame_bytes\":%ld,"
	       "\"frames\":%llu,\"elapsed_s\":%.6f,\"pps\":%.1f,"
	       "\"cpu_ns\":%.0f,\"errors\":%llu}\n",
	       tap, size, sent, elapsed, elapsed > 0 ? sent / elapsed : 0,
	       (cpu_s() - c0) * 1e9, errors);
	close(fd);
	return sent ? 0 : 1;
}

/*
 * --dev where the kernel refuses live frames (a kernel build can: EPERM on
 * a 6.18 build here): the same frames through an AF_PACKET socket bound to
 * the device, 64 per sendmmsg(). Slower, and the sender's own CPU, but the
 * frames arrive as they would: on a veth, in the peer's receive path.
 */
static int run_packet(const char *dev, int ifindex, const unsigned char *frame,
		      size_t len, long size, double rate, double duration)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_ifindex = ifindex,
				   .sll_halen = ETH_ALEN };
	unsigned long long sent = 0, errors = 0, calls = 0;
	struct mmsghdr msg[64];
	struct iovec iov;
	double t0, t;
	int fd, i, n;

	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die("AF_PACKET socket: %s", strerror(errno));
	memcpy(sll.sll_addr, frame, ETH_ALEN);
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)))
		die("%s: bind: %s", dev, strerror(errno));
	iov.iov_base = (void *)frame;
	iov.iov_len = len;
	memset(msg, 0, sizeof(msg));
	for (i = 0; i < 64; i++) {
		msg[i].msg_hdr.msg_iov = &iov;
		msg[i].msg_hdr.msg_iovlen = 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	t0 = now_s();
	while (!stop && (t = now_s()) - t0 < duration) {
		if (rate > 0 && t0 + sent / rate > t) {
			struct timespec ts = { 0, 200 * 1000 };

			nanosleep(&ts, NULL);
			continue;
		}
		n = sendmmsg(fd, msg, 64, 0);
		calls++;
		if (n > 0) {
			sent += n;
		} else if (errors++ == 0 && errno != ENOBUFS &&
			   errno != EAGAIN) {
			fprintf(stderr, "xnb_pktgen: %s: sendmmsg: %s\n", dev,
				strerror(errno));
		}
	}
	t = now_s() - t0;
	printf("{\"tool\":\"xnb_pktgen\",\"dev\":\"%s\",\"frame_bytes\":%ld,"
	       "\"rate_target_pps\":%.0f,\"frames\":%llu,\"elapsed_s\":%.6f,"
	       "\"pps\":%.1f,\"calls\":%llu,\"errors\":%llu,"
	       "\"generator\":\"af_packet\"}\n",
	       dev, size, rate, sent, t, t > 0 ? sent / t : 0, calls, errors);
	close(fd);
	return sent ? 0 : 1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "tap", required_argument, NULL, 'T' },
		{ "dst-mac", required_argument, NULL, 'M' },
		{ "src-mac", required_argument, NULL, 'm' },
		{ "src-ip", required_argument, NULL, 's' },
		{ "dst-ip", required_argument, NULL, 'D' },
		{ "size", required_argument, NULL, 'z' },
		{ "duration", required_argument, NULL, 't' },
		{ "rate", required_argument, NULL, 'r' },
		{ "batch", required_argument, NULL, 'b' },
		{ "sport", required_argument, NULL, 'S' },
		{ "dport", required_argument, NULL, 'P' },
		{ "dump", no_argument, NULL, 'x' },
		{ "wait-go", no_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned char frame[FRAME_MAX], dmac[6], smac[6];
	const char *dev = NULL, *tap = NULL;
	int have_dmac = 0, have_smac = 0, dump = 0, wait_go = 0, opt, fd, err;
	struct in_addr saddr = { 0 }, daddr = { 0 };
	long size = 64, sport = 9, dport = 9;
	double duration = 5, rate = 0, t0, t, elapsed;
	unsigned long long sent = 0, calls = 0, errors = 0;
	unsigned int batch = 0, batch_next = 0;
	int adaptive;
	double tc;
	struct xnb_pktgen_bpf *skel;
	struct xdp_md ctx = { 0 };
	size_t len, i;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 'T':
			tap = optarg;
			break;
		case 'M':
			if (parse_mac(optarg, dmac))
				die("bad --dst-mac '%s'", optarg);
			have_dmac = 1;
			break;
		case 'm':
			if (parse_mac(optarg, smac))
				die("bad --src-mac '%s'", optarg);
			have_smac = 1;
			break;
		case 's':
			if (inet_pton(AF_INET, optarg, &saddr) != 1)
				die("bad --src-ip '%s'", optarg);
			break;
		case 'D':
			if (inet_pton(AF_INET, optarg, &daddr) != 1)
				die("bad --dst-ip '%s'", optarg);
			break;
		case 'z':
			size = strtol(optarg, NULL, 0);
			if (size < 64 || size > FRAME_MAX + 4)
				die("--size must be 64..%d", FRAME_MAX + 4);
			break;
		case 't':
			duration = strtod(optarg, NULL);
			if (duration <= 0)
				die("bad --duration '%s'", optarg);
			break;
		case 'r':
			rate = strtod(optarg, NULL);
			if (rate < 0)
				die("bad --rate '%s'", optarg);
			break;
		case 'b':
			batch = strtoul(optarg, NULL, 0);
			break;
		case 'S':
			sport = strtol(optarg, NULL, 0);
			break;
		case 'P':
			dport = strtol(optarg, NULL, 0);
			break;
		case 'x':
			dump = 1;
			break;
		case 'g':
			wait_go = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!dev == !tap || !have_dmac || !saddr.s_addr || !daddr.s_addr ||
	    (tap && !have_smac)) {
		usage(stderr);
		return 2;
	}
	if (!have_smac && dev_mac(dev, smac))
		die("%s: cannot read its MAC address: %s", dev,
		    strerror(errno));
	len = build_frame(frame, size, dmac, smac, saddr.s_addr, daddr.s_addr,
			  sport, dport);
	if (dump) {
		/* The frame in hex, for the harness's tests. */
		for (i = 0; i < len; i++)
			printf("%02x", frame[i]);
		putchar('\n');
		return 0;
	}
	if (tap)
		return run_tap(tap, frame, len, size, duration, wait_go);

	/* The kernel wants data_end to match the frame's length. */
	ctx.data_end = len;
	ctx.ingress_ifindex = if_nametoindex(dev);
	if (!ctx.ingress_ifindex)
		die("%s: no such device in this network namespace", dev);

	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
	skel = xnb_pktgen_bpf__open_and_load();
	if (!skel)
		die("cannot load the XDP program: %s", strerror(errno));
	fd = bpf_program__fd(skel->progs.xnb_pktgen_tx);

	/* Every BPF_PROG_TEST_RUN call sets up and tears down a page pool,
	 * which waits for an RCU grace period (tens of ms on a busy VM)
	 * with the generator idle. Paced: small batches anyway (--rate is
	 * for low rates). Flat out: calls sized to last about CALL_SECS, so
	 * that the gaps stay a few per cent of the run. */
	adaptive = !batch && rate <= 0;
	if (!batch)
		batch = rate > 0 ? (rate >= 64000 ? 256 : 32) : 65536;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	t0 = now_s();
	for (;;) {
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frame,
			    .data_size_in = len, .ctx_in = &ctx,
			    .ctx_size_in = sizeof(ctx),
			    .flags = BPF_F_TEST_XDP_LIVE_FRAMES,
			    .repeat = batch, .batch_size = 64);

		t = now_s();
		if (stop || t - t0 >= duration)
			break;
		if (rate > 0) {
			double due = t0 + sent / rate;

			if (due > t) {
				struct timespec ts;
				double d = due - t;

				if (d > 0.1)
					d = 0.1;
				ts.tv_sec = (time_t)d;
				ts.tv_nsec = (long)((d - ts.tv_sec) * 1e9);
				nanosleep(&ts, NULL);
				continue;
			}
		}
		tc = now_s();
		err = bpf_prog_test_run_opts(fd, &o);
		calls++;
		if (adaptive && !err) {
			double took = now_s() - tc,
			       left = duration - (now_s() - t0);
			double want = left < CALL_SECS ? left : CALL_SECS;
			double next = took > 0 ? batch * want / took
					       : batch * 2.0;

			/* Grow at most 8x per call; never below 4096 frames. */
			if (next > batch * 8.0)
				next = batch * 8.0;
			if (next < 4096)
				next = 4096;
			if (next > 1u << 30)
				next = 1u << 30;
			batch_next = (unsigned int)next;
		}
		if (err) {
			errors++;
			if (errors == 1)
				fprintf(stderr, "xnb_pktgen: test_run: %s\n",
					strerror(errno));
			if (!sent && (errno == EINVAL || errno == EPERM ||
				      errno == EOPNOTSUPP)) {
				fprintf(stderr,
					"xnb_pktgen: the kernel refuses live "
					"frames (%s): an AF_PACKET socket "
					"sends them instead\n",
					strerror(errno));
				xnb_pktgen_bpf__destroy(skel);
				return run_packet(dev, ctx.ingress_ifindex,
						  frame, len, size, rate,
						  duration - (now_s() - t0));
			}
			if (errno == EINVAL || errno == EPERM ||
			    errno == EOPNOTSUPP || errno == ENODEV)
				die("BPF_PROG_TEST_RUN (live frames) refused: "
				    "%s",
				    strerror(errno));
			continue;
		}
		sent += batch;
		if (batch_next)
			batch = batch_next;
	}
	elapsed = now_s() - t0;
	printf("{\"tool\":\"xnb_pktgen\",\"dev\":\"%s\",\"frame_bytes\":%ld,"
	       "\"rate_target_pps\":%.0f,\"frames\":%llu,\"elapsed_s\":%.6f,"
	       "\"pps\":%.1f,\"calls\":%llu,\"errors\":%llu,"
	       "\"generator\":\"live_frames\"}\n",
	       dev, size, rate, sent, elapsed, elapsed > 0 ? sent / elapsed : 0,
	       calls, errors);
	xnb_pktgen_bpf__destroy(skel);
	return errors && !sent ? 1 : 0;
}
