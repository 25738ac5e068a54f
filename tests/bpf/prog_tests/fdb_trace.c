// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The FDB mirror (bpf/xdpnet_fdb.h): tp_btf programs on the bridge's own
 * FDB events keep the fdb map a copy of what the bridge learned. Here real
 * frames enter the test bridge through the veth peers (a packet socket),
 * so br_fdb_update fires as it does for a VM, and "bridge fdb" changes the
 * bridge's table; the copy must follow, and never hold what the bridge
 * does not.
 *
 * Whether a frame was handled by the bridge is known when the bridge has
 * flooded it out of another port (its destination is unknown): the
 * bridge learns before it forwards. That is the fence for "nothing was
 * copied".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <linux/neighbour.h>
#include <sys/socket.h>
#include <bpf/bpf.h>

#include "harness.h"
#include "lib/nl.h"

static const struct xt_topology empty;
static void run_all(void);
static const __u8 mac_y[ETH_ALEN] = { 0x02, 0x00, 0x5e, 0x10, 0x00, 0x79 };
static __u32 nonce;

static int pkt_socket(int port)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_ALL),
		.sll_ifindex = xt_env.peer_ifindex[port],
	};
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		close(fd);
		return -1;
	}
	return fd;
}

static bool drain(int fd)
{
	__u8 buf[2048];

	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
	return true;
}

/*
 * Send a frame with source src into the bridge through port's peer, to an
 * unknown destination; when fence_port is a port, wait (2 s at most) until
 * the bridge has flooded it out of that port.
 */
static bool send_src(int port, const __u8 *src, int fence_port)
{
	__u8 f[60] = {}, buf[2048];
	struct timespec t0, t;
	int tx = pkt_socket(port), rx = -1;
	bool ok = false;
	__u32 n = ++nonce;

	memcpy(f, xt_macs[M_UNKNOWN], ETH_ALEN);
	memcpy(f + ETH_ALEN, src, ETH_ALEN);
	xt_put16(f + 12, ETH_P_EXPERIMENTAL);
	memcpy(f + 14, "xdpnet-fdb-test", 15);
	memcpy(f + 30, &n, sizeof(n));
	if (fence_port != P_NONE) {
		rx = pkt_socket(fence_port);
		if (!CHECK(rx >= 0, "packet socket: %s", strerror(errno)))
			goto out;
		drain(rx);
	}
	if (!CHECK(tx >= 0 && send(tx, f, sizeof(f), 0) == sizeof(f),
		   "cannot send into port %s: %s", xt_port_name(port),
		   strerror(errno)))
		goto out;
	if (rx < 0) {
		ok = true;
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = { .fd = rx, .events = POLLIN };
		ssize_t len;

		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 +
			    (t.tv_nsec - t0.tv_nsec) / 1000000 >
		    2000)
			break;
		if (poll(&p, 1, 100) <= 0)
			continue;
		len = recv(rx, buf, sizeof(buf), MSG_DONTWAIT);
		if (len >= 34 && !memcmp(buf + ETH_ALEN, src, ETH_ALEN) &&
		    !memcmp(buf + 30, &n, sizeof(n))) {
			ok = true;
			break;
		}
	}
	CHECK(ok, "the bridge never flooded the frame out of port %s",
	      xt_port_name(fence_port));
out:
	if (tx >= 0)
		close(tx);
	if (rx >= 0)
		close(rx);
	return ok;
}

static bool copy_get(const __u8 *mac, __u16 vid, struct xdpnet_fdb_val *v)
{
	return xt_fdb_get_raw(xt_b->map[XT_M_FDB], mac, vid, v);
}

/* Poll (2 s at most) until the copy of (mac, vid) is on port, or gone
 * (port P_NONE). */
static bool wait_copy(const __u8 *mac, __u16 vid, int port,
		      struct xdpnet_fdb_val *v)
{
	int i;

	for (i = 0; i < 2000; i++) {
		bool have = copy_get(mac, vid, v);

		if (port == P_NONE ? !have
				   : have && v->ifindex == xt_ifindex(port))
			return true;
		usleep(1000);
	}
	if (port == P_NONE)
		return CHECK(false, "the copy is still there (ifindex %u)",
			     v->ifindex);
	return CHECK(false, "no copy on port %s after 2 s (%s, ifindex %u)",
		     xt_port_name(port), copy_get(mac, vid, v) ? "one" : "none",
		     v->ifindex);
}

/* The copy as the trace program writes it. */
static void check_copy(const struct xdpnet_fdb_val *v, int port, __u32 j0)
{
	__u32 slot = xt_ports[port].slot, now = xt_jiffies();

	CHECK(v->slot == slot && v->gen == XT_PORT_GEN,
	      "hint slot %u gen %u, want slot %u gen %u", v->slot, v->gen, slot,
	      XT_PORT_GEN);
	CHECK(v->flags == 0, "flags 0x%x, want none", v->flags);
	CHECK((__s32)(v->bridge_j - j0) >= 0 && (__s32)(now - v->bridge_j) >= 0,
	      "bridge_j %u not the time the bridge saw it (%u..%u)",
	      v->bridge_j, j0, now);
}

/* What the bridge itself has for (mac, vid). */
static bool bridge_has(const __u8 *mac, __u16 vid, struct xn_fdb_entry *e)
{
	return !xn_fdb_get(xt_env.bridge_ifindex, mac, vid, e);
}

static void fdb_sh(const char *verb, const __u8 *mac, int port,
		   const char *extra)
{
	char m[18];

	snprintf(m, sizeof(m), "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1],
		 mac[2], mac[3], mac[4], mac[5]);
	CHECK(!xt_sh("bridge fdb %s %s dev %s master %s", verb, m,
		     xt_ports[port].dev, extra),
	      "'bridge fdb %s %s dev %s master %s' failed: %s", verb, m,
	      xt_ports[port].dev, extra, xt_sh_out);
}

static void forget(const __u8 *mac)
{
	int p;

	for (p = 0; p < XT_NR_PORTS; p++)
		xt_sh("bridge fdb del %02x:%02x:%02x:%02x:%02x:%02x dev %s "
		      "master",
		      mac[0], mac[1], mac[2], mac[3], mac[4], mac[5],
		      xt_ports[p].dev);
}

static const struct xt_table table = { "fdb", {}, &empty, NULL, 0 };

static bool begin(const char *name)
{
	if (!xt_begin("%s", name))
		return false;
	if (xt_b->trace_skip) {
		xt_skip("the kernel lacks %s", xt_b->trace_skip);
		return false;
	}
	return xt_row_prepare(&table, NULL);
}

static void learn_move_delete(void)
{
	const __u8 *m = xt_macs[M_NEW];
	struct xdpnet_fdb_val v;
	struct xn_fdb_entry e;
	__u64 learn, del;
	__u32 j0;

	if (!begin("learned entry appears, moves, goes with 'bridge fdb del'"))
		return;
	forget(m);
	learn = xt_fdb_ev(XDPNET_FE_LEARN);
	del = xt_fdb_ev(XDPNET_FE_DELETE);
	j0 = xt_jiffies();
	if (!send_src(P_A, m, P_NONE) || !wait_copy(m, 0, P_A, &v))
		return;
	check_copy(&v, P_A, j0);
	CHECK(bridge_has(m, 0, &e) && e.ifindex == xt_ifindex(P_A),
	      "the bridge has it on ifindex %u, want A", e.ifindex);
	CHECK(xt_fdb_ev(XDPNET_FE_LEARN) == learn + 1,
	      "fdb_ev learned +%llu, want +1",
	      (unsigned long long)(xt_fdb_ev(XDPNET_FE_LEARN) - learn));

	/* A move to another carried port. */
	j0 = xt_jiffies();
	if (!send_src(P_C, m, P_NONE) || !wait_copy(m, 0, P_C, &v))
		return;
	check_copy(&v, P_C, j0);
	CHECK(xt_fdb_ev(XDPNET_FE_LEARN) == learn + 2,
	      "fdb_ev learned +%llu, want +2",
	      (unsigned long long)(xt_fdb_ev(XDPNET_FE_LEARN) - learn));

	/* A move to a port xdpnet does not carry: slot 0, this
	 * generation. */
	j0 = xt_jiffies();
	if (!send_src(P_E, m, P_NONE) || !wait_copy(m, 0, P_E, &v))
		return;
	check_copy(&v, P_E, j0);

	/* The bridge forgets it: so does the copy. */
	fdb_sh("del", m, P_E, "");
	if (!wait_copy(m, 0, P_NONE, &v))
		return;
	CHECK(xt_fdb_ev(XDPNET_FE_DELETE) == del + 1,
	      "fdb_ev deleted +%llu, want +1",
	      (unsigned long long)(xt_fdb_ev(XDPNET_FE_DELETE) - del));
}

/*
 * "bridge fdb add" (or "replace") of an entry: the trace drops the copy
 * before the bridge acts, so frames to that MAC take the bridge until user
 * space copies the result. "add" of an entry the bridge has already
 * learned is refused (EEXIST) after the trace ran: the copy goes all the
 * same (safe: frames take the bridge).
 */
static void user_add_drops(bool replace)
{
	const __u8 *m = xt_macs[M_NEW];
	struct xdpnet_fdb_val v;
	struct xn_fdb_entry e;
	char mac[18];
	__u64 user;
	int rc;

	if (!begin(replace ? "'bridge fdb replace' drops the copy"
			   : "'bridge fdb add' drops the copy"))
		return;
	forget(m);
	if (!send_src(P_A, m, P_NONE) || !wait_copy(m, 0, P_A, &v))
		return;
	user = xt_fdb_ev(XDPNET_FE_USER);
	snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1],
		 m[2], m[3], m[4], m[5]);
	rc = xt_sh("bridge fdb %s %s dev %s master static",
		   replace ? "replace" : "add", mac, xt_ports[P_B].dev);
	if (replace)
		CHECK(!rc, "'bridge fdb replace' failed: %s", xt_sh_out);
	else
		CHECK(rc, "'bridge fdb add' of a learned entry succeeded");
	/* The trace ran before the bridge acted: by the time the command
	 * has returned, the copy is gone, in both maps. */
	CHECK(!copy_get(m, 0, &v),
	      "the learned copy is still there "
	      "(ifindex %u)",
	      v.ifindex);
	CHECK(!xt_fdb_get_raw(xt_b->map[XT_M_FDB_STATIC], m, 0, &v),
	      "a static copy appeared (ifindex %u)", v.ifindex);
	CHECK(xt_fdb_ev(XDPNET_FE_USER) == user + 1,
	      "fdb_ev user +%llu, want +1",
	      (unsigned long long)(xt_fdb_ev(XDPNET_FE_USER) - user));
	if (replace)
		CHECK(bridge_has(m, 0, &e) && e.ifindex == xt_ifindex(P_B) &&
			      (e.state & NUD_NOARP),
		      "the bridge has ifindex %u state 0x%x, want B static",
		      e.ifindex, e.state);
	else
		CHECK(bridge_has(m, 0, &e) && e.ifindex == xt_ifindex(P_A),
		      "the bridge has ifindex %u, want A (learned)", e.ifindex);
	forget(m);
}

static void host_mac_not_learned(void)
{
	const __u8 *m = xt_macs[M_LOCAL];
	struct xdpnet_fdb_val v;

	if (!begin("the host's address as a source is never copied"))
		return;
	if (!send_src(P_A, m, P_C))
		return;
	CHECK(!copy_get(m, 0, &v), "copied on ifindex %u", v.ifindex);
	/* The same for a port's own address. */
	if (!send_src(P_B, xt_macs[M_A_OWN], P_C))
		return;
	CHECK(!copy_get(xt_macs[M_A_OWN], 0, &v), "copied on ifindex %u",
	      v.ifindex);
}

static bool a_no_learning(void)
{
	xt_kwant[P_A].learning = false;
	return true;
}

static void no_learning_port(void)
{
	struct xdpnet_fdb_val v;

	if (!xt_begin("a port with learning off teaches nothing"))
		return;
	if (xt_b->trace_skip) {
		xt_skip("the kernel lacks %s", xt_b->trace_skip);
		return;
	}
	if (!xt_row_prepare(&table, a_no_learning))
		return;
	forget(mac_y);
	if (!send_src(P_A, mac_y, P_C))
		return;
	CHECK(!copy_get(mac_y, 0, &v), "copied on ifindex %u", v.ifindex);
}

/* Witness for the verdict rows: the bridge drops a frame whose source is
 * a group or the zero address, on a port that learns or not. */
static void invalid_source_dropped(bool learning)
{
	static const __u8 zero[ETH_ALEN],
		group[ETH_ALEN] = { 0x01, 0x00, 0x5e, 0, 0, 0x42 };
	int fd;

	if (!xt_begin("witness: the bridge drops a frame from a group or zero "
		      "source%s",
		      learning ? "" : " (learning off)"))
		return;
	if (!xt_row_prepare(&table, learning ? NULL : a_no_learning))
		return;
	/* The fence: a frame from a valid source sent after them is
	 * flooded; the invalid ones before it must not have been. */
	fd = pkt_socket(P_C);
	if (!CHECK(fd >= 0, "packet socket: %s", strerror(errno)))
		return;
	drain(fd);
	if (send_src(P_A, zero, P_NONE) && send_src(P_A, group, P_NONE) &&
	    send_src(P_A, mac_y, P_C)) {
		__u8 buf[2048];
		ssize_t len;

		while ((len = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
			CHECK(memcmp(buf + ETH_ALEN, zero, ETH_ALEN) &&
				      memcmp(buf + ETH_ALEN, group, ETH_ALEN),
			      "the bridge forwarded a frame from %s",
			      buf[6] & 1 ? "a group source"
					 : "the zero source");
	}
	close(fd);
	forget(mac_y);
}

static bool cfg_other(bool netns)
{
	struct xdpnet_cfg c;

	if (!xt_cfg_get(&c))
		return false;
	if (netns)
		c.netns_ino ^= 1;
	else
		c.bridge_ifindex = XT_GONE_IFINDEX;
	return xt_cfg_put(&c);
}

static void other_bridge(bool netns)
{
	struct xdpnet_fdb_val v;

	if (!begin(netns ? "events of another namespace are not copied"
			 : "events of another bridge are not copied"))
		return;
	forget(mac_y);
	if (!cfg_other(netns) || !send_src(P_A, mac_y, P_C))
		return;
	CHECK(!copy_get(mac_y, 0, &v), "copied on ifindex %u", v.ifindex);
	forget(mac_y);
}

/* A static entry user space copied: the bridge moves static entries that
 * are not sticky; the copy must say what the bridge says. */
static void static_follows(void)
{
	const __u8 *m = xt_macs[M_STATIC_B];
	struct xdpnet_fdb_val v;
	struct xn_fdb_entry e;

	if (!begin("a static copy says what the bridge says"))
		return;
	forget(m);
	fdb_sh("add", m, P_B, "static");
	if (!xt_fdb_put(M_STATIC_B, 0, P_B,
			XDPNET_FDB_STATIC | XDPNET_FDB_SEEDED, 0) ||
	    !send_src(P_C, m, P_D))
		return;
	if (!CHECK(bridge_has(m, 0, &e), "the bridge lost the entry"))
		return;
	if (CHECK(xt_fdb_get_raw(xt_b->map[XT_M_FDB_STATIC], m, 0, &v),
		  "the static copy is gone"))
		CHECK(v.ifindex == e.ifindex,
		      "the copy is on ifindex %u, the bridge's on %u",
		      v.ifindex, e.ifindex);
	CHECK(!copy_get(m, 0, &v), "a learned copy appeared");
	xt_note("the bridge has the static entry on %s",
		e.ifindex == xt_ifindex(P_B) ? "B (kept)" : "C (moved)");
	forget(m);
}

/* Every copy of (mac, 0) says what the bridge says; the learned one
 * first, as the datapath looks them up. */
static void copies_agree(const __u8 *mac, const char *when)
{
	struct xdpnet_fdb_val v;
	struct xn_fdb_entry e;

	if (!CHECK(bridge_has(mac, 0, &e), "%s: the bridge lost the entry",
		   when))
		return;
	if (copy_get(mac, 0, &v))
		CHECK(v.ifindex == e.ifindex,
		      "%s: the learned copy is on ifindex %u, the bridge's "
		      "entry on %u: frames to it go to the wrong port",
		      when, v.ifindex, e.ifindex);
	if (xt_fdb_get_raw(xt_b->map[XT_M_FDB_STATIC], mac, 0, &v))
		CHECK(v.ifindex == e.ifindex,
		      "%s: the static copy is on ifindex %u, the bridge's "
		      "entry on %u",
		      when, v.ifindex, e.ifindex);
}

/* A static entry the bridge moves before user space has copied it
 * ("bridge fdb add" dropped every copy), then again after. */
static void static_moved_before_copy(void)
{
	const __u8 *m = xt_macs[M_STATIC_B];
	struct xn_fdb_entry e;
	int port;

	if (!begin("a static entry moved before and after user space copied "
		   "it"))
		return;
	forget(m);
	fdb_sh("add", m, P_B, "static");
	if (!send_src(P_C, m, P_D) ||
	    !CHECK(bridge_has(m, 0, &e), "the bridge lost the entry"))
		return;
	copies_agree(m, "after the first move");
	/* user space copies the bridge's static entry, where it is now, as
	 * the follower does (user/reconcile.c): any learned copy goes */
	for (port = 0; port < XT_NR_PORTS; port++)
		if (xt_ifindex(port) == e.ifindex)
			break;
	if (!CHECK(port < XT_NR_PORTS, "the entry is on ifindex %u", e.ifindex))
		return;
	{
		struct xdpnet_fdb_key k = { .vid = 0 };

		memcpy(k.mac, m, ETH_ALEN);
		bpf_map_delete_elem(xt_b->map[XT_M_FDB], &k);
	}
	if (!xt_fdb_put(M_STATIC_B, 0, port,
			XDPNET_FDB_STATIC | XDPNET_FDB_SEEDED, 0))
		return;
	if (send_src(P_D, m, P_A))
		copies_agree(m, "after the second move");
	forget(m);
}

static void vlan_key(void)
{
	const __u8 *m = xt_macs[M_NEW];
	struct xdpnet_fdb_val v;

	if (!begin("with VLAN filtering the copy is keyed by the VLAN"))
		return;
	if (xt_sh("ip link set " XT_BRIDGE " type bridge vlan_filtering 1")) {
		/* The probe: a kernel built without
		 * CONFIG_BRIDGE_VLAN_FILTERING says so. */
		if (strstr(xt_sh_out, "not supported"))
			xt_skip("the kernel lacks bridge VLAN filtering "
				"(CONFIG_BRIDGE_VLAN_FILTERING): %s",
				xt_sh_out);
		else
			CHECK(false, "cannot turn VLAN filtering on: %s",
			      xt_sh_out);
		return;
	}
	forget(m);
	if (send_src(P_A, m, P_NONE) && wait_copy(m, 1, P_A, &v))
		CHECK(!copy_get(m, 0, &v), "a copy without the VLAN too");
	xt_sh("bridge fdb del %02x:%02x:%02x:%02x:%02x:%02x dev %s master "
	      "vlan 1",
	      m[0], m[1], m[2], m[3], m[4], m[5], xt_ports[P_A].dev);
	wait_copy(m, 1, P_NONE, &v);
	CHECK(!xt_sh("ip link set " XT_BRIDGE " type bridge vlan_filtering 0"),
	      "cannot turn VLAN filtering off: %s", xt_sh_out);
}

void test_fdb_trace(void)
{
	/* Frames sent one after the other reach the bridge in that order
	 * when they are sent from one CPU (one backlog): the fences rely on
	 * it. */
	xt_pin(-1);
	run_all();
	xt_unpin();
}

static void run_all(void)
{
	xt_begin("attach the FDB mirror programs");
	if (xt_b->trace_skip)
		xt_skip("the kernel lacks %s", xt_b->trace_skip);
	else if (!xt_trace_attach(xt_b))
		return;
	learn_move_delete();
	user_add_drops(false);
	user_add_drops(true);
	host_mac_not_learned();
	no_learning_port();
	invalid_source_dropped(true);
	invalid_source_dropped(false);
	other_bridge(false);
	other_bridge(true);
	static_follows();
	static_moved_before_copy();
	vlan_key();
	xt_trace_detach();
}
