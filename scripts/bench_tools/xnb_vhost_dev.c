// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xnb_vhost's device (xnb_vhost.h): the queues, their vhost devices and
 * rings, frames in and out, the CPU they cost, teardown. */
#include "xnb_vhost.h"

struct qp qps[MAX_QUEUES];
int guest_fd = -1; /* relay */
int pkt_fd = -1;   /* recv --packet */
void *mem = MAP_FAILED;
size_t mem_len;
volatile sig_atomic_t stop;

struct stats st;

void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

double now_s(void)
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
const char *cpu_json(void)
{
	static char buf[128];
	struct cpu_use u = cpu_use();

	snprintf(buf, sizeof(buf),
		 ",\"cpu_ns\":%lld,\"vhost_cpu_ns\":%lld,"
		 "\"vhost_workers\":%d,\"vhost_threads\":%s",
		 u.own_ns, u.vhost_ns, u.workers, u.threads ? "true" : "false");
	return buf;
}

void teardown(void)
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

void xioctl(int fd, unsigned long req, void *arg, const char *name)
{
	if (ioctl(fd, req, arg))
		die("%s: %s", name, strerror(errno));
}

void kick(struct vq *v)
{
	uint64_t one = 1;

	if (xv_need_kick(&v->r) && write(v->kick, &one, 8) != 8)
		die("kick: %s", strerror(errno));
}

/* Waits up to ms for a call on any ring (-1: for ever), drains them. */
void wait_calls(int ms)
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

int ms_until(double t)
{
	double d = (t - now_s()) * 1000;

	return d <= 0 ? 0 : d > 1000 ? 1000 : (int)d + 1;
}

/* What the "guest" takes from its tap, as QEMU sets it (TUNSETOFFLOAD). */
unsigned long tap_offloads(void)
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
void wait_link_ready(const char *dev)
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
unsigned int pkt_poll(void)
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

void setup(void)
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

void tx_reap(struct qp *q)
{
	uint32_t id, len;
	int r;

	while ((r = xv_harvest(&q->tx.r, &id, &len)) > 0)
		;
	if (r < 0)
		die("queue %td: vhost broke the tx ring", q - qps);
}

/* Queues the next frame of send/rr on q (a descriptor must be free). */
void tx_stamped(struct qp *q)
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

/* Harvests q's rx ring, frames to fn, buffers back to the device. */
unsigned int rx_poll(struct qp *q, rx_fn fn)
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
uint8_t *accept_frame(uint8_t *buf, size_t len, uint16_t port, struct xv_hdr *h,
		      struct xv_pkt *p)
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
