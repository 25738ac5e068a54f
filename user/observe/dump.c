// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The frame dump's core: see dump.h. */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "lib/log.h"
#include "lib/util.h"
#include "state/owner.h"
#include "state/lock.h"
#include "state/bridge.h"
#include "observe/dump.h"

struct reader {
	xn_dump_cb cb;
	void *arg;
	__u64 since;	/* monotonic ns: older records are a dead dump's */
	__s64 wall_off; /* realtime - monotonic, ns */
	int done;
};

static int on_record(void *ctx, void *data, size_t len)
{
	const struct xdpnet_dump_rec *r = data;
	struct reader *rd = ctx;

	if (rd->done || len < sizeof(*r) || r->caplen > len - sizeof(*r) ||
	    r->ts_ns < rd->since)
		return 0;
	if (rd->cb(r, r->ts_ns + rd->wall_off, r + 1, rd->arg))
		rd->done = 1;
	return 0;
}

/* The switch. On, every decision cached before is made anew (a cached
 * frame is not copied). */
static int ctl_set(const struct xn_state *s, const struct xn_dump_opts *o,
		   int on, __u64 *lost)
{
	int fd = s->fd[XM_DUMP];
	struct xdpnet_dump_ctl c;
	__u32 zero = 0;

	if (bpf_map_lookup_elem(fd, &zero, &c))
		return -errno;
	*lost = c.lost;
	c.on = on;
	if (o) {
		c.ifindex = o->ifindex;
		c.paths = o->paths;
		c.snaplen = o->snaplen;
	}
	if (bpf_map_update_elem(fd, &zero, &c, 0))
		return -errno;
	xn_gen_bump(s);
	return 0;
}

static int open_state(const struct xn_bridge *bridge, struct xn_state *s)
{
	int err = xn_state_open(s, bridge);

	if (err == -XN_NOT_ATTACHED)
		return xn_bridge_unattached(bridge,
					    "%s is not attached: its frames "
					    "all take the bridge (tcpdump -i "
					    "%s shows them)",
					    bridge->name, bridge->name);
	if (err)
		return err;
	if (s->fd[XM_DUMP] < 0 || s->fd[XM_DUMP_RB] < 0) {
		xn_state_close(s);
		xn_err("%s's datapath predates dump; 'xdpnet attach %s' "
		       "upgrades it in place",
		       bridge->name, bridge->name);
		return -XN_FAILED;
	}
	return 0;
}

int xn_dump_ready(const struct xn_bridge *bridge)
{
	struct xn_state s;
	int err = open_state(bridge, &s);

	if (!err)
		xn_state_close(&s);
	return err;
}

/* The map id of an fd, 0 when it cannot be read. */
static __u32 map_id(int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	return fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len) ? info.id
								   : 0;
}

/* Is the ring this dump reads (id) still the bridge's? A detach removes
 * the pins (the dump's own descriptors keep the maps alive, silent), an
 * attach after it pins new ones. */
static int still_attached(const struct xn_bridge *bridge, __u32 id)
{
	int fd = xn_pin_get(bridge, xn_map_pin(XM_DUMP_RB));
	__u32 now = map_id(fd);

	if (fd >= 0)
		close(fd);
	return now && now == id;
}

int xn_dump_run(const struct xn_bridge *bridge, const struct xn_dump_opts *o,
		xn_dump_cb cb, void *arg, __u64 *lost)
{
	struct reader rd = { .cb = cb, .arg = arg };
	struct ring_buffer *rb = NULL;
	__u64 lost0 = 0, lost1 = 0;
	double next_check;
	struct xn_state s;
	int lk, err, detached = 0;
	__u32 rb_id;

	*lost = 0;
	err = open_state(bridge, &s);
	if (err)
		return err;
	lk = xn_dump_lock(bridge);
	if (lk < 0) {
		xn_state_close(&s);
		xn_err(lk == -EBUSY ? "another xdpnet dump of %s runs; one at "
				      "a time"
				    : "cannot take the dump lock of %s",
		       bridge->name);
		return -XN_BUSY;
	}
	rb = ring_buffer__new(s.fd[XM_DUMP_RB], on_record, &rd, NULL);
	if (!rb) {
		err = -errno;
		xn_err("cannot read %s's dump ring: %s", bridge->name,
		       strerror(-err));
		goto out;
	}
	rd.since = xn_mono_ns();
	rd.wall_off = (__s64)(xn_real_ns() - rd.since);
	err = ctl_set(&s, o, 1, &lost0);
	if (err) {
		xn_err("cannot switch %s's dump on: %s", bridge->name,
		       strerror(-err));
		goto out;
	}
	rb_id = map_id(s.fd[XM_DUMP_RB]);
	next_check = xn_mono_s() + 0.5;
	while (!rd.done && !(o->stop && *o->stop)) {
		err = ring_buffer__poll(rb, 100);
		if (err < 0 && err != -EINTR) {
			xn_err("reading %s's dump ring: %s", bridge->name,
			       strerror(-err));
			break;
		}
		err = 0;
		if (xn_mono_s() >= next_check) {
			next_check = xn_mono_s() + 0.5;
			if (!still_attached(bridge, rb_id)) {
				ring_buffer__consume(rb);
				xn_err("%s was detached: the dump ends",
				       bridge->name);
				detached = 1;
				break;
			}
		}
	}
	ctl_set(&s, NULL, 0, &lost1);
	/* What was in flight as it went off. */
	if (!rd.done && !detached)
		ring_buffer__consume(rb);
	*lost = lost1 - lost0;
out:
	ring_buffer__free(rb);
	xn_dump_unlock(bridge, lk, detached);
	xn_state_close(&s);
	return detached ? -XN_NOT_ATTACHED : err ? -XN_FAILED : 0;
}

void xn_dump_orphan_off(const struct xn_bridge *bridge, int fd)
{
	struct xdpnet_dump_ctl c;
	__u32 zero = 0;

	if (fd < 0 || bpf_map_lookup_elem(fd, &zero, &c) || !c.on ||
	    xn_dump_alive(bridge))
		return;
	c.on = 0;
	if (!bpf_map_update_elem(fd, &zero, &c, 0))
		xn_info("xdpnet: %s: a dump's reader died; its copy of frames "
			"switched off",
			bridge->name);
}
