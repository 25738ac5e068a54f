// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The TC stage's MTU rule on real frames: a tap in the test bridge, the
 * build's TC program on its ingress (clsact), and frames written into the
 * tap with a virtio-net header, as a VM with TSO sends them. A GSO frame
 * is bypassed when its segments fit the egress MTU
 * (bpf_check_mtu(BPF_MTU_CHK_SEGS)); BPF_PROG_TEST_RUN cannot show that
 * (it leaves the skb's transport header unset), a tap can.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <linux/if_tun.h>
#include <linux/virtio_net.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "harness.h"

#define TAP "xbtT"
#define TAP_SLOT 4 /* free in every topology */

static const __u8 tap_mac[ETH_ALEN] = { 0x02, 0x00, 0x5e, 0x10, 0x00, 0x7a };

static struct {
	int fd;
	__u32 ifindex;
	struct bpf_tc_hook hook;
	bool hooked;
} tap = { .fd = -1 };

static void tap_close(void)
{
	if (tap.hooked)
		bpf_tc_hook_destroy(&tap.hook);
	tap.hooked = false;
	if (tap.fd >= 0)
		close(tap.fd); /* not persistent: the device goes */
	tap.fd = -1;
}

/* The tap, a forwarding port of the bridge, carried in slot TAP_SLOT, the
 * TC program on its ingress. */
static bool tap_open(void)
{
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR };
	int hdr = sizeof(struct virtio_net_hdr), i;
	struct xdpnet_port p = {
		.flags = XDPNET_PORT_FWD | XDPNET_PORT_LEARNING |
			 XDPNET_PORT_XDP_TARGET,
		.mtu = 1500,
	};
	struct xdpnet_fdb_key k = {};
	struct xdpnet_fdb_val v = { .slot = TAP_SLOT, .gen = XT_PORT_GEN };
	struct xt_kport kp = {};
	__u32 slot = TAP_SLOT;

	strcpy(ifr.ifr_name, TAP);
	tap.fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (!CHECK(tap.fd >= 0 && !ioctl(tap.fd, TUNSETIFF, &ifr) &&
			   !ioctl(tap.fd, TUNSETVNETHDRSZ, &hdr),
		   "cannot make a tap: %s", strerror(errno)))
		return false;
	tap.ifindex = if_nametoindex(TAP);
	if (!CHECK(!xt_sh("ip link set " TAP " master " XT_BRIDGE " up"),
		   "cannot add the tap to the bridge: %s", xt_sh_out))
		return false;
	/* forwarding once the bridge has seen its carrier */
	for (i = 0; i < 2000; i++) {
		if (xt_kport_read_ifindex(tap.ifindex, &kp) && kp.master &&
		    kp.state == 3)
			break;
		usleep(1000);
	}
	if (!CHECK(kp.master && kp.state == 3,
		   "the tap never became a forwarding port"))
		return false;

	p.ifindex = tap.ifindex;
	memcpy(k.mac, tap_mac, ETH_ALEN);
	v.ifindex = tap.ifindex;
	v.bridge_j = xt_jiffies();
	if (!CHECK(!bpf_map_update_elem(xt_b->map[XT_M_PORTS], &slot, &p, 0) &&
			   !bpf_map_update_elem(xt_b->map[XT_M_PORT_IDX],
						&tap.ifindex, &slot, 0) &&
			   !bpf_map_update_elem(xt_b->map[XT_M_FDB], &k, &v, 0),
		   "cannot carry the tap: %s", strerror(errno)) ||
	    !xt_bump())
		return false;

	memset(&tap.hook, 0, sizeof(tap.hook));
	tap.hook.sz = sizeof(tap.hook);
	tap.hook.ifindex = tap.ifindex;
	tap.hook.attach_point = BPF_TC_INGRESS;
	if (!CHECK(!bpf_tc_hook_create(&tap.hook), "no clsact on the tap"))
		return false;
	tap.hooked = true;
	{
		LIBBPF_OPTS(bpf_tc_opts, o, .prog_fd = xt_b->tc);

		return CHECK(!bpf_tc_attach(&tap.hook, &o),
			     "cannot attach the TC program to the tap");
	}
}

/* The counters of a slot, summed. */
static __u64 packets(__u32 slot, int ctr)
{
	struct xt_snap s;

	if (slot >= XT_SLOTS || !xt_snap(&s))
		return ~0ULL;
	return s.c[slot][ctr].packets;
}

/*
 * Write a TCP/IPv4 frame of len bytes to dst into the tap, GSO with
 * segments of gso bytes of payload (0: not GSO), and wait (2 s at most)
 * until the tap's slot counted it; returns the counter that moved.
 */
static int send_tcp(enum xt_mac dst, size_t len, __u16 gso)
{
	static __u8 buf[sizeof(struct virtio_net_hdr) + XT_MAX_FRAME];
	struct virtio_net_hdr *vh = (void *)buf;
	struct xt_frame f = { .dst = dst, .src = M_NEW, .l4 = L4_TCP };
	__u64 before[XDPNET_C_MAX];
	size_t n;
	int c, i;

	for (c = 0; c < XDPNET_C_MAX; c++)
		before[c] = packets(TAP_SLOT, c);
	f.l4len = len - 14 - 20;
	f.csum = gso ? CS_PARTIAL : CS_VALID;
	n = xt_build_frame(&f, buf + sizeof(*vh));
	memcpy(buf + sizeof(*vh) + ETH_ALEN, tap_mac, ETH_ALEN);
	memset(vh, 0, sizeof(*vh));
	if (gso) {
		vh->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		vh->gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
		vh->hdr_len = 14 + 20 + 20;
		vh->gso_size = gso;
		vh->csum_start = 14 + 20;
		vh->csum_offset = 16;
	}
	if (!CHECK(write(tap.fd, buf, sizeof(*vh) + n) ==
			   (ssize_t)(sizeof(*vh) + n),
		   "cannot write into the tap: %s", strerror(errno)))
		return -1;
	for (i = 0; i < 2000; i++) {
		for (c = 0; c < XDPNET_C_MAX; c++)
			if (packets(TAP_SLOT, c) != before[c])
				return c;
		usleep(1000);
	}
	CHECK(false, "the TC program never counted the frame");
	return -1;
}

static void expect(const char *name, enum xt_mac dst, size_t len, __u16 gso,
		   int want)
{
	__u32 out = dst == M_C ? 1 : 7;
	__u64 rx = packets(out, XDPNET_C_RX_REDIRECTED);
	int got;

	if (!xt_begin("%s", name))
		return;
	got = send_tcp(dst, len, gso);
	if (got < 0)
		return;
	CHECK(got == want, "counted %s, want %s", xt_ctr_name(got),
	      xt_ctr_name(want));
	CHECK(packets(out, XDPNET_C_RX_REDIRECTED) - rx ==
		      (want == XDPNET_C_TC_REDIRECT),
	      "the target counted %llu redirected frames",
	      (unsigned long long)(packets(out, XDPNET_C_RX_REDIRECTED) - rx));
}

void test_gso(void)
{
	static const struct xt_table t = { "tap", {}, &xt_plain, NULL, 0 };
	const int fwd = XDPNET_C_TC_REDIRECT, mtu = XDPNET_C_PASS_MTU;

	xt_begin("a tap with the TC program");
	if (!xt_row_prepare(&t, NULL) || !tap_open()) {
		tap_close();
		return;
	}
	/* Port C has MTU 1280: a segment is 20 (IP) + 20 (TCP) + gso. */
	expect("GSO, segments of 1000 bytes into MTU 1280: bypassed", M_C, 2000,
	       1000, fwd);
	expect("GSO, segments of exactly the MTU: bypassed", M_C, 3000, 1240,
	       fwd);
	expect("GSO, segments one byte over the MTU: to the bridge", M_C, 3000,
	       1241, mtu);
	expect("GSO, segments of 1400 bytes into MTU 1280: to the bridge", M_C,
	       3000, 1400, mtu);
	expect("GSO, segments of 1400 bytes into MTU 9000: bypassed", M_B, 3000,
	       1400, fwd);
	expect("not GSO, MTU + 14 bytes: bypassed", M_C, 1294, 0, fwd);
	expect("not GSO, MTU + 15 bytes: to the bridge", M_C, 1295, 0, mtu);
	tap_close();
}
