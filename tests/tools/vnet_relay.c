// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vnet_relay - stand-in "VM" for integration tests.
 *
 * Creates a host tap in the current network namespace and a guest tap in
 * another one, both with a 12-byte virtio-net header (like QEMU with modern
 * virtio-net), and relays frames between them unchanged, header included.
 * The guest namespace's own stack then behaves like a virtio-net guest: it
 * may transmit GSO super-frames and frames with partial checksums.
 *
 * Prints "READY" on stdout once both taps exist; prints per-direction
 * counters on stderr on SIGTERM/SIGINT. The taps are not persistent, so
 * they disappear when the relay exits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/if_tun.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Not in older uapi headers (Debian 12). */
#ifndef TUN_F_USO4
#define TUN_F_USO4 0x20
#endif
#ifndef TUN_F_USO6
#define TUN_F_USO6 0x40
#endif

#define VNET_HDR_LEN ((int)sizeof(struct virtio_net_hdr_v1))
/* A 64 KiB GSO super-frame plus its L2 header, with some slack. */
#define FRAME_MAX (VNET_HDR_LEN + 65536 + 256)

#define OFFLOAD_TSO (TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN)

struct relay {
	const char *name;
	int in_fd;
	int out_fd;
	unsigned long frames;
	unsigned long bytes;
	unsigned long gso;
	unsigned long needs_csum;
	unsigned long errors;
	int last_errno;
	unsigned char buf[FRAME_MAX];
};

static struct relay g2h = { .name = "guest->host" };
static struct relay h2g = { .name = "host->guest" };
static volatile int exit_code;
static int blocking; /* --blocking */

static void usage(FILE *f)
{
	fputs("usage: vnet_relay --host-tap NAME --guest-tap NAME --netns NS\n"
	      "         [--no-csum] [--no-tso] [--blocking] [--sndbuf N]\n"
	      "         [--pidfile PATH]\n",
	      f);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	fputs("vnet_relay: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static unsigned int set_offload(int fd, const char *name, unsigned int off)
{
	/* USO needs a recent kernel: try it with TSO, else go without. */
	if (off & TUN_F_TSO4) {
		unsigned int uso = off | TUN_F_USO4 | TUN_F_USO6;

		if (!ioctl(fd, TUNSETOFFLOAD, uso))
			return uso;
		if (errno != EINVAL)
			die("%s: TUNSETOFFLOAD: %s", name, strerror(errno));
	}
	if (ioctl(fd, TUNSETOFFLOAD, off))
		die("%s: TUNSETOFFLOAD 0x%x: %s", name, off, strerror(errno));
	return off;
}

static int open_tap(const char *name, unsigned int off, unsigned int *applied)
{
	struct ifreq ifr = { 0 };
	int hdr_len = VNET_HDR_LEN;
	int fd;

	/* Non-blocking, as QEMU opens it: tun then builds frames straight
	 * into an XDP buffer (native XDP); blocking writes take the skb and
	 * generic-XDP path instead (--blocking). */
	fd = open("/dev/net/tun",
		  O_RDWR | O_CLOEXEC | (blocking ? 0 : O_NONBLOCK));
	if (fd < 0)
		die("open /dev/net/tun: %s", strerror(errno));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	strcpy(ifr.ifr_name, name);
	if (ioctl(fd, TUNSETIFF, &ifr))
		die("%s: TUNSETIFF: %s", name, strerror(errno));
	if (ioctl(fd, TUNSETVNETHDRSZ, &hdr_len))
		die("%s: TUNSETVNETHDRSZ %d: %s", name, hdr_len,
		    strerror(errno));
	*applied = set_offload(fd, name, off);
	return fd;
}

static int open_netns(const char *ns)
{
	char path[PATH_MAX];
	int fd;

	/* A name from "ip netns add", or a path such as /proc/PID/ns/net. */
	if (ns[0] == '/')
		snprintf(path, sizeof(path), "%s", ns);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("netns %s: %s: %s", ns, path, strerror(errno));
	return fd;
}

static void *relay_thread(void *arg)
{
	struct relay *r = arg;
	const struct virtio_net_hdr_v1 *hdr = (const void *)r->buf;
	ssize_t n;

	for (;;) {
		n = read(r->in_fd, r->buf, sizeof(r->buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			struct pollfd p = { .fd = r->in_fd, .events = POLLIN };

			poll(&p, 1, -1);
			continue;
		}
		if (n < 0) {
			/* The tap is gone (e.g. its netns was deleted). */
			fprintf(stderr, "vnet_relay: %s: read: %s\n", r->name,
				strerror(errno));
			exit_code = 1;
			kill(getpid(), SIGTERM);
			return NULL;
		}
		if (n < VNET_HDR_LEN) {
			r->errors++;
			continue;
		}
		r->frames++;
		r->bytes += n - VNET_HDR_LEN;
		if ((hdr->gso_type & ~VIRTIO_NET_HDR_GSO_ECN) !=
		    VIRTIO_NET_HDR_GSO_NONE)
			r->gso++;
		if (hdr->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
			r->needs_csum++;
		/* A frame the other side refuses (EIO, EINVAL...) is dropped.
		 */
		while (write(r->out_fd, r->buf, n) < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				struct pollfd p = { .fd = r->out_fd,
						    .events = POLLOUT };

				poll(&p, 1, -1);
				continue;
			}
			r->errors++;
			r->last_errno = errno;
			break;
		}
	}
	return NULL;
}

static void print_stats(const struct relay *r)
{
	fprintf(stderr, "vnet_relay: %s frames=%lu bytes=%lu", r->name,
		r->frames, r->bytes);
	fprintf(stderr, " gso=%lu needs_csum=%lu errors=%lu", r->gso,
		r->needs_csum, r->errors);
	if (r->last_errno)
		fprintf(stderr, " last_error=%s", strerror(r->last_errno));
	fputc('\n', stderr);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "host-tap", required_argument, NULL, 'H' },
		{ "guest-tap", required_argument, NULL, 'G' },
		{ "netns", required_argument, NULL, 'n' },
		{ "no-csum", no_argument, NULL, 'c' },
		{ "no-tso", no_argument, NULL, 't' },
		{ "blocking", no_argument, NULL, 'b' },
		{ "sndbuf", required_argument, NULL, 's' },
		{ "pidfile", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *host = NULL, *guest = NULL, *ns = NULL, *pidfile = NULL;
	unsigned int off = OFFLOAD_TSO, host_off, guest_off;
	pthread_t tid[2];
	long sndbuf = 0;
	int ns_fd, host_fd, guest_fd, opt, sig;
	char *end;
	sigset_t set;

	/* Blocked here and in the threads: only sigwait() below sees them. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'H':
			host = optarg;
			break;
		case 'G':
			guest = optarg;
			break;
		case 'n':
			ns = optarg;
			break;
		case 'c':
			off = 0;
			break;
		case 't':
			if (off)
				off = TUN_F_CSUM;
			break;
		case 'b':
			blocking = 1;
			break;
		case 's':
			errno = 0;
			sndbuf = strtol(optarg, &end, 0);
			if (errno || *end || sndbuf <= 0 || sndbuf > INT_MAX)
				die("bad --sndbuf value '%s'", optarg);
			break;
		case 'p':
			pidfile = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default: /* getopt_long() has said what is wrong */
			return 2;
		}
	}
	if (optind < argc)
		die("unexpected argument '%s'", argv[optind]);
	if (!host || !guest || !ns)
		die("--host-tap, --guest-tap and --netns are required");
	if (!host[0] || strlen(host) >= IFNAMSIZ || !guest[0] ||
	    strlen(guest) >= IFNAMSIZ)
		die("tap names must be 1 to %d characters", IFNAMSIZ - 1);

	ns_fd = open_netns(ns);
	/* Host tap first, in the current netns; then move for the guest. */
	host_fd = open_tap(host, off, &host_off);
	if (sndbuf) {
		int val = sndbuf;

		if (ioctl(host_fd, TUNSETSNDBUF, &val))
			die("%s: TUNSETSNDBUF: %s", host, strerror(errno));
	}
	if (setns(ns_fd, CLONE_NEWNET))
		die("netns %s: setns: %s", ns, strerror(errno));
	close(ns_fd);
	guest_fd = open_tap(guest, off, &guest_off);
	fprintf(stderr,
		"vnet_relay: %s offload=0x%x, %s (netns %s) offload=0x%x\n",
		host, host_off, guest, ns, guest_off);

	g2h.in_fd = guest_fd;
	g2h.out_fd = host_fd;
	h2g.in_fd = host_fd;
	h2g.out_fd = guest_fd;

	if (pthread_create(&tid[0], NULL, relay_thread, &g2h) ||
	    pthread_create(&tid[1], NULL, relay_thread, &h2g))
		die("pthread_create failed");

	if (pidfile) {
		FILE *f = fopen(pidfile, "w");

		if (!f || fprintf(f, "%d\n", getpid()) < 0 || fclose(f))
			die("pidfile %s: %s", pidfile, strerror(errno));
	}
	printf("READY\n");
	fflush(stdout);

	sigwait(&set, &sig);
	/* read() and write() are cancellation points; join syncs counters. */
	pthread_cancel(tid[0]);
	pthread_cancel(tid[1]);
	pthread_join(tid[0], NULL);
	pthread_join(tid[1], NULL);
	print_stats(&g2h);
	print_stats(&h2g);
	if (pidfile)
		unlink(pidfile);
	return exit_code;
}
