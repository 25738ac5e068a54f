// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xnb_vhost relay: vnet_relay over vhost-net. */
#include "xnb_vhost.h"

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

int run_relay(void)
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
