// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xnb_crr - TCP connect/request/response (netperf TCP_CRR-like) for
 * scripts/bench; netperf is not in Debian.
 *
 *   xnb_crr server --bind IP --port N
 *   xnb_crr client --connect IP --port N [--duration S] [--size BYTES]
 *                  [--mode crr|rr]
 *
 * crr (default): each transaction opens a TCP connection, sends SIZE bytes,
 * reads SIZE bytes back and closes; its latency runs from connect() to the
 * last byte of the response. rr: one connection, request/response in a loop
 * (TCP_RR-like, a cross-check for sockperf). The server answers every
 * request with SIZE bytes and closes when the client does; it serves one
 * connection at a time, which is all a client needs.
 *
 * The client prints one JSON object: transactions, rate, errors (failed or
 * abandoned transactions: connect refused, or no answer within 1.5 s) and
 * latency (min, mean, p50, p90, p99, max) in microseconds.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define SIZE_MAX_REQ 65536

static unsigned char buf[SIZE_MAX_REQ];

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int io_full(int fd, int wr, size_t len)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = wr ? send(fd, buf + done, len - done, MSG_NOSIGNAL)
		       : recv(fd, buf + done, len - done, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n == 0 ? 1 : -1; /* 1: peer closed */
		done += n;
	}
	return 0;
}

static void nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* A transaction that has not finished within a second (a lost SYN waits
 * 1 s for its retransmission, longer ones are failures) is counted as an
 * error and abandoned, so that one lost frame cannot stall a run. On
 * Linux SO_SNDTIMEO also bounds connect(). */
static void timeouts(int fd)
{
	struct timeval tv = { .tv_sec = 1, .tv_usec = 500000 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

static int serve(const struct sockaddr_in *sa, size_t size)
{
	int one = 1, ls, fd;

	ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (ls < 0 ||
	    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(ls, (const struct sockaddr *)sa, sizeof(*sa)) ||
	    listen(ls, 128)) {
		perror("xnb_crr: server");
		return 1;
	}
	printf("READY\n");
	fflush(stdout);
	for (;;) {
		fd = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			perror("xnb_crr: accept");
			return 1;
		}
		nodelay(fd);
		/* A client that vanished must not hold the server up. */
		timeouts(fd);
		/* Answer requests until the client closes. */
		while (io_full(fd, 0, size) == 0 && io_full(fd, 1, size) == 0)
			;
		close(fd);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of a sorted array. */
static double pct(const double *v, size_t n, double p)
{
	size_t k;

	if (!n)
		return 0;
	k = (size_t)(p / 100.0 * n + 0.999999);
	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	return v[k - 1];
}

static int client(const struct sockaddr_in *sa, size_t size, double duration,
		  int crr)
{
	size_t n = 0, cap = 1 << 16;
	double *lat = malloc(cap * sizeof(*lat));
	unsigned long long errors = 0;
	double t0, t, start, sum = 0;
	int fd = -1, rc;

	if (!lat)
		return 1;
	start = now_s();
	for (;;) {
		t0 = now_s();
		if (t0 - start >= duration)
			break;
		if (fd < 0) {
			fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
			if (fd < 0) {
				perror("xnb_crr: socket");
				return 1;
			}
			nodelay(fd);
			timeouts(fd);
			if (connect(fd, (const struct sockaddr *)sa,
				    sizeof(*sa))) {
				errors++;
				close(fd);
				fd = -1;
				if (errno == EADDRNOTAVAIL) /* no ports left */
					usleep(1000);
				continue;
			}
		}
		rc = io_full(fd, 1, size);
		if (!rc)
			rc = io_full(fd, 0, size);
		t = now_s();
		if (rc) {
			errors++;
			close(fd);
			fd = -1;
			continue;
		}
		if (n == cap) {
			double *p = realloc(lat, 2 * cap * sizeof(*lat));

			if (!p)
				break;
			lat = p;
			cap *= 2;
		}
		lat[n++] = (t - t0) * 1e6;
		sum += (t - t0) * 1e6;
		if (crr) {
			close(fd);
			fd = -1;
		}
	}
	t = now_s() - start;
	if (fd >= 0)
		close(fd);
	qsort(lat, n, sizeof(*lat), cmp_double);
	printf("{\"tool\":\"xnb_crr\",\"mode\":\"%s\",\"size\":%zu,"
	       "\"transactions\":%zu,\"elapsed_s\":%.6f,\"tps\":%.1f,"
	       "\"errors\":%llu,\"latency_us\":{\"min\":%.2f,\"mean\":%.2f,"
	       "\"p50\":%.2f,\"p90\":%.2f,\"p99\":%.2f,\"max\":%.2f}}\n",
	       crr ? "crr" : "rr", size, n, t, t > 0 ? n / t : 0, errors,
	       n ? lat[0] : 0, n ? sum / n : 0, pct(lat, n, 50),
	       pct(lat, n, 90), pct(lat, n, 99), n ? lat[n - 1] : 0);
	free(lat);
	return n ? 0 : 1;
}

static void usage(FILE *f)
{
	fputs("usage: xnb_crr server --bind IP --port N [--size BYTES]\n"
	      "       xnb_crr client --connect IP --port N [--duration S]\n"
	      "                      [--size BYTES] [--mode crr|rr]\n",
	      f);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "bind", required_argument, NULL, 'b' },
		{ "connect", required_argument, NULL, 'c' },
		{ "port", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 't' },
		{ "size", required_argument, NULL, 's' },
		{ "mode", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sockaddr_in sa = { .sin_family = AF_INET };
	const char *addr = NULL, *role;
	double duration = 5;
	long size = 64, port = 0;
	int crr = 1, opt;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	role = argv[1];
	optind = 2;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'b':
		case 'c':
			addr = optarg;
			break;
		case 'p':
			port = strtol(optarg, NULL, 0);
			break;
		case 't':
			duration = strtod(optarg, NULL);
			break;
		case 's':
			size = strtol(optarg, NULL, 0);
			break;
		case 'm':
			if (!strcmp(optarg, "crr"))
				crr = 1;
			else if (!strcmp(optarg, "rr"))
				crr = 0;
			else {
				usage(stderr);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!addr || port <= 0 || port > 65535 || size < 1 ||
	    size > SIZE_MAX_REQ || duration <= 0 ||
	    inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
		usage(stderr);
		return 2;
	}
	sa.sin_port = htons(port);
	signal(SIGPIPE, SIG_IGN);
	if (!strcmp(role, "server"))
		return serve(&sa, size);
	if (!strcmp(role, "client"))
		return client(&sa, size, duration, crr);
	usage(stderr);
	return 2;
}
