// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xnv_udp: a UDP content check for the guests of tests/vm (busybox's nc
 * has no UDP). Linked statically and copied into the guests' initramfs.
 *
 *   xnv_udp server PORT
 *	echo every datagram back to its sender, until killed.
 *   xnv_udp client HOST PORT COUNT
 *	send COUNT datagrams one at a time, each with a sequence number and a
 *	pattern derived from it, sizes 4..1472 bytes and every eighth one
 *	1473..3972 bytes (IP fragments); wait for the echo and compare it
 *	byte for byte; resend after 300 ms, at most 6 tries per datagram.
 *	Prints one line and exits 0 only when every datagram came back intact.
 *
 * A datagram whose checksum a broken path mangled is dropped by the
 * receiving kernel, so a broken path shows as datagrams that never come
 * back, however often they are sent; a datagram whose payload was altered
 * but whose checksum still matches shows as "bad".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_DGRAM 4000
#define TRIES 6
#define WAIT_MS 300

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static size_t dgram_size(uint32_t seq)
{
	if (seq % 8 == 7)
		return 1473 + (seq * 131u) % 2500;
	return 4 + (seq * 1237u) % 1469;
}

/* Bytes 0..3: the sequence number (as far as the datagram is long); the
 * rest: a pattern that depends on the sequence number and the offset. */
static void fill(uint8_t *buf, uint32_t seq, size_t len)
{
	uint32_t x = seq * 2654435761u + 1;
	size_t i;

	for (i = 0; i < len; i++) {
		if (i < 4) {
			buf[i] = (uint8_t)(seq >> (8 * i));
			continue;
		}
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
}

static int server(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port) };
	static uint8_t buf[65536];
	int fd, sz = 1 << 20;

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		perror("xnv_udp server");
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	for (;;) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(fd, buf, sizeof(buf), 0,
				     (struct sockaddr *)&from, &fl);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("recvfrom");
			return 1;
		}
		sendto(fd, buf, n, 0, (struct sockaddr *)&from, fl);
	}
}

static int client(const char *host, int port, uint32_t count)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port) };
	static uint8_t out[MAX_DGRAM], in[65536];
	uint32_t seq, echoed = 0, retries = 0, bad = 0, lost = 0, stale = 0;
	unsigned long long bytes = 0;
	double t0 = now_s();
	int fd;

	if (inet_pton(AF_INET, host, &a.sin_addr) != 1) {
		fprintf(stderr, "xnv_udp: bad address %s\n", host);
		return 2;
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		perror("xnv_udp client");
		return 1;
	}
	for (seq = 0; seq < count; seq++) {
		size_t len = dgram_size(seq);
		int try, done = 0;

		fill(out, seq, len);
		for (try = 0; try < TRIES && !done; try++) {
			double until = now_s() + WAIT_MS / 1e3;

			if (try)
				retries++;
			if (send(fd, out, len, 0) < 0 && errno != ECONNREFUSED) {
				perror("send");
				return 1;
			}
			while (!done) {
				struct pollfd p = { .fd = fd, .events = POLLIN };
				int ms = (int)((until - now_s()) * 1e3);
				ssize_t n;

				if (ms <= 0 || poll(&p, 1, ms) <= 0)
					break;
				n = recv(fd, in, sizeof(in), 0);
				if (n < 0)
					continue; /* ECONNREFUSED: server not up yet */
				if ((size_t)n == len && !memcmp(in, out, len)) {
					done = 1;
				} else if (n >= 4 && memcmp(in, out, 4)) {
					stale++; /* a late echo of an earlier try */
				} else {
					if (!bad)
						fprintf(stderr,
							"xnv_udp: datagram %u (%zu B) came back as %zd B, different\n",
							seq, len, n);
					bad++;
				}
			}
		}
		if (done) {
			echoed++;
			bytes += len;
		} else {
			lost++;
			if (lost == 1)
				fprintf(stderr,
					"xnv_udp: datagram %u (%zu B) never came back\n",
					seq, len);
			if (lost >= 10)
				break; /* the path is broken: do not wait it out */
		}
	}
	printf("udp: %u/%u datagrams echoed intact, %llu bytes each way, %u resent, %u bad, %u lost, %u late, %.2f s\n",
	       echoed, count, bytes, retries, bad, lost, stale, now_s() - t0);
	return echoed == count && !bad ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "server"))
		return server(atoi(argv[2]));
	if (argc == 5 && !strcmp(argv[1], "client"))
		return client(argv[2], atoi(argv[3]),
			      (uint32_t)strtoul(argv[4], NULL, 0));
	fprintf(stderr, "usage: xnv_udp server PORT | client HOST PORT COUNT\n");
	return 2;
}
