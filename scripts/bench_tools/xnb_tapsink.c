// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xnb_tapsink - the receiving end of scripts/bench's forwarding test.
 *
 * Creates a tap in the current network namespace, opened like QEMU opens
 * one (IFF_VNET_HDR with a 12-byte header, checksum and TSO offloads
 * accepted, non-blocking), and reads and discards every frame the host
 * hands it, as a vhost-net worker would consume them for a guest. It does
 * as little per frame as a reader can: one read() per frame.
 *
 * Prints "READY" once the tap exists; on SIGTERM/SIGINT prints one JSON
 * object with the frames and bytes it read, and exits (the tap goes away
 * with it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define VNET_HDR_LEN 12
#define BUF_LEN (VNET_HDR_LEN + 65536 + 256)

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "tap", required_argument, NULL, 't' },
		{ "no-offload", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static unsigned char buf[BUF_LEN];
	unsigned int off = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN;
	unsigned long long frames = 0, bytes = 0, errors = 0;
	const char *tap = NULL;
	struct ifreq ifr = { 0 };
	int hdr_len = VNET_HDR_LEN, fd, opt;
	struct sigaction sa = { .sa_handler = on_signal };
	ssize_t n;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 't':
			tap = optarg;
			break;
		case 'n':
			off = 0;
			break;
		case 'h':
			puts("usage: xnb_tapsink --tap NAME [--no-offload]");
			return 0;
		default:
			return 2;
		}
	}
	if (!tap || !tap[0] || strlen(tap) >= IFNAMSIZ) {
		fputs("usage: xnb_tapsink --tap NAME [--no-offload]\n", stderr);
		return 2;
	}
	/* No SA_RESTART: a signal ends poll() with EINTR. */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		perror("xnb_tapsink: /dev/net/tun");
		return 1;
	}
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	strcpy(ifr.ifr_name, tap);
	if (ioctl(fd, TUNSETIFF, &ifr) ||
	    ioctl(fd, TUNSETVNETHDRSZ, &hdr_len) ||
	    ioctl(fd, TUNSETOFFLOAD, off)) {
		fprintf(stderr, "xnb_tapsink: %s: %s\n", tap, strerror(errno));
		return 1;
	}
	printf("READY\n");
	fflush(stdout);

	while (!stop) {
		n = read(fd, buf, sizeof(buf));
		if (n > 0) {
			frames++;
			bytes += n > VNET_HDR_LEN ? n - VNET_HDR_LEN : 0;
			continue;
		}
		if (n < 0 && errno == EAGAIN) {
			struct pollfd p = { .fd = fd, .events = POLLIN };

			poll(&p, 1, -1);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		errors++;
		if (n < 0 && errno != EINVAL)
			break; /* the tap is gone */
	}
	printf("{\"tool\":\"xnb_tapsink\",\"tap\":\"%s\",\"frames\":%llu,"
	       "\"bytes\":%llu,\"errors\":%llu}\n",
	       tap, frames, bytes, errors);
	close(fd);
	return 0;
}
