// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xnb_progtime - the XDP stage's program time per frame on this CPU, from
 * BPF_PROG_TEST_RUN on a bridge xdpnet has attached, with xdp-minimal
 * beside it (scripts/bench --progtime runs it on its topology).
 *
 *   xnb_progtime --bridge BR --in IF --out IF --src MAC --dst MAC
 *                [--calls N] [--repeat N] [--rounds R]
 *
 * The frames: {TCP, UDP} x {full, partial checksum} x {IPv4, IPv6} x
 * {64 B, 1,518 B on the wire (60 and 1,514 B without the FCS; IPv6 TCP
 * and UDP at their least, 74 and 62 B)}, from --src (known to the bridge
 * behind --in) to --dst (behind --out). The programs:
 *
 *   xdpnet         the XDP stage pinned for BR, as a test run gives it a
 *                  frame: with the device's own rxq, so that every
 *                  buffer counts as generic XDP (a partial checksum goes
 *                  to the TC stage without a sum)
 *   xdpnet-native  the same program loaded again on BR's maps with
 *                  xdpnet_test_native set: every buffer an xdp_buff, as
 *                  on tun's native paths (partial checksums completed)
 *   xdp-minimal    one MAC lookup and a devmap redirect
 *                  (xnb_minimal.bpf.c), its own maps
 *   empty          XDP_PASS: the test run's own cost, taken off the others
 *
 * Cold (the default, --repeat 1): each call runs one fresh copy of the
 * frame, as a guest's frame comes, and a figure is the mean of --calls
 * calls; the system call between two runs leaves some lines cold. Hot
 * (--repeat N): one call runs the same copy N times, every line warm;
 * a partial checksum is completed by the first run only (the others prove
 * what it completed: the same sum, without the store). The rounds
 * interleave programs and frames; the harness takes empty's figure off
 * the others. Before each frame, one of
 * its flow through the TC stage stamps the source's keep-alive, and one
 * from --dst through each xdpnet program teaches its egress read --out's
 * port (a program loaded here has not seen a frame yet).
 *
 * Output: one JSON line per frame and program and round:
 * {"frame":..., "prog":..., "round":N, "ns":..., "retval":...}; the
 * harness takes medians. Run it in the bridge's network namespace.
 * Exit: 0, 2 usage or setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <linux/bpf.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xdpnet.h"
#include "lib/frame.h"
#include "state/owner.h"
#include "state/system.h"
#include "datapath/load.h"
#include "xnb_minimal.h"
#include "xnb_minimal.skel.h"
#include "xnb_tool.h"

#define MAX_FRAME 1600

enum prog { P_XDPNET, P_NATIVE, P_MINIMAL, P_EMPTY, P_N };
static const char *const prog_names[P_N] = { "xdpnet", "xdpnet-native",
					     "xdp-minimal", "empty" };

struct frame {
	char name[32];
	__u8 buf[MAX_FRAME];
	__u8 back[MAX_FRAME]; /* the reverse direction, --dst to --src */
	size_t len;
};

static struct frame frames[16];
static int nframes;

static void add_frames(const __u8 *src, const __u8 *dst)
{
	static const int wire[] = { 64, 1518 };
	int l4, cs, l3, w;

	for (l4 = 0; l4 < 2; l4++)
		for (cs = 0; cs < 2; cs++)
			for (l3 = 0; l3 < 2; l3++)
				for (w = 0; w < 2; w++) {
					struct frame *f = &frames[nframes++];
					struct xn_frame_spec s = {
						.vlan = -1,
						.l3 = l3 ? XN_L3_IPV6
							 : XN_L3_IPV4,
						.l4 = l4 ? XN_L4_TCP
							 : XN_L4_UDP,
						.partial = cs,
					};
					size_t min;

					memcpy(s.src, src, 6);
					memcpy(s.dst, dst, 6);
					min = xn_frame_min_len(&s);
					s.len = wire[w] - 4;
					if (s.len < min)
						s.len = min;
					f->len = xn_frame_build(&s, f->buf,
								sizeof(f->buf));
					memcpy(s.src, dst, 6);
					memcpy(s.dst, src, 6);
					s.partial = 0;
					xn_frame_build(&s, f->back,
						       sizeof(f->back));
					snprintf(f->name, sizeof(f->name),
						 "%s/%s/%s/%d",
						 l4 ? "tcp" : "udp",
						 cs ? "partial" : "full",
						 l3 ? "ipv6" : "ipv4", wire[w]);
					if (!f->len)
						die("cannot build %s", f->name);
				}
}

/* A program that returns XDP_PASS, as the test run's own cost. */
static int load_empty(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K,
		  .dst_reg = BPF_REG_0,
		  .imm = XDP_PASS },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return bpf_prog_load(BPF_PROG_TYPE_XDP, "xnb_empty", "GPL", insns, 2,
			     NULL);
}

/* The XDP stage again, on the bridge's pinned maps, every buffer taken as
 * an xdp_buff (xdpnet_test_native, bpf/xdpnet_native.h). */
static int load_native(const struct xn_state *s, struct bpf_object **out)
{
	struct bpf_object *obj = xn_xdp_object(s, "xdpnet_xdp");
	struct bpf_program *p;
	struct bpf_map *m;
	__u32 one = 1;
	int err = -ENOENT;

	if (!obj)
		return -errno;
	bpf_object__for_each_map(m, obj)
	{
		const char *n = bpf_map__name(m);
		size_t l = strlen(n), k = strlen(".rodata.test");

		if (l >= k && !strcmp(n + l - k, ".rodata.test"))
			err = bpf_map__set_initial_value(m, &one, sizeof(one));
	}
	if (!err)
		err = bpf_object__load(obj);
	p = bpf_object__find_program_by_name(obj, "xdpnet_xdp");
	if (err || !p) {
		bpf_object__close(obj);
		return err ? err : -ENOENT;
	}
	*out = obj;
	return bpf_program__fd(p);
}

static struct xnb_minimal_bpf *load_minimal(const __u8 *dst, __u32 out)
{
	struct xnb_minimal_bpf *m = xnb_minimal_bpf__open();
	struct xnb_min_mac k;

	if (!m)
		return NULL;
	bpf_program__set_autoload(m->progs.xnb_min_tc, false);
	if (xnb_minimal_bpf__load(m)) {
		xnb_minimal_bpf__destroy(m);
		return NULL;
	}
	memcpy(k.addr, dst, 6);
	if (bpf_map__update_elem(m->maps.fdb, &k, sizeof(k), &out, sizeof(out),
				 BPF_ANY) ||
	    bpf_map__update_elem(m->maps.ports, &out, sizeof(out), &out,
				 sizeof(out), BPF_ANY)) {
		xnb_minimal_bpf__destroy(m);
		return NULL;
	}
	return m;
}

static __u32 ifindex_of(const char *name)
{
	__u32 i = if_nametoindex(name);

	if (!i)
		die("no device %s here", name);
	return i;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "bridge", required_argument, NULL, 'b' },
		{ "in", required_argument, NULL, 'i' },
		{ "out", required_argument, NULL, 'o' },
		{ "src", required_argument, NULL, 's' },
		{ "dst", required_argument, NULL, 'd' },
		{ "calls", required_argument, NULL, 'n' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "repeat", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *bridge = NULL, *in = NULL, *out = NULL;
	struct xnb_minimal_bpf *min;
	struct bpf_object *nobj = NULL;
	__u8 src[6], dst[6];
	int have_src = 0, have_dst = 0, fd[P_N], calls = 2000, rounds = 7;
	int repeat = 1;
	__u32 in_if, out_if;
	struct xn_bridge br;
	struct xn_state s;
	int opt, r, f, p, i;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			bridge = optarg;
			break;
		case 'i':
			in = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 's':
			if (parse_mac(optarg, src))
				die("bad --src MAC '%s'", optarg);
			have_src = 1;
			break;
		case 'd':
			if (parse_mac(optarg, dst))
				die("bad --dst MAC '%s'", optarg);
			have_dst = 1;
			break;
		case 'n':
			calls = atoi(optarg);
			break;
		case 'r':
			rounds = atoi(optarg);
			break;
		case 'R':
			repeat = atoi(optarg);
			break;
		case 'h':
			printf("usage: xnb_progtime --bridge BR --in IF --out IF "
			       "--src MAC --dst MAC [--calls N] [--repeat N] "
			       "[--rounds R]\n");
			return 0;
		default:
			return 2;
		}
	}
	if (!bridge || !in || !out || !have_src || !have_dst || calls < 1 ||
	    rounds < 1 || repeat < 1)
		die("--bridge, --in, --out, --src and --dst are required "
		    "(--calls, --repeat, --rounds at least 1)");
	if (repeat > 1)
		calls = 1;
	in_if = ifindex_of(in);
	out_if = ifindex_of(out);
	libbpf_set_print(NULL);
	if (xn_ensure_bpffs())
		return 1;
	if (xn_bridge_open(&br, bridge, 0) || xn_state_open(&s, &br))
		die("%s: no xdpnet state here (attach it first)", bridge);
	if (s.prog_xdp < 0 || s.prog_tc < 0)
		die("%s: its XDP stage is not pinned", bridge);
	fd[P_XDPNET] = s.prog_xdp;
	fd[P_NATIVE] = load_native(&s, &nobj);
	if (fd[P_NATIVE] < 0)
		die("cannot load the XDP stage with xdpnet_test_native: %s",
		    strerror(-fd[P_NATIVE]));
	min = load_minimal(dst, out_if);
	if (!min)
		die("cannot load xdp-minimal: %s", strerror(errno));
	fd[P_MINIMAL] = bpf_program__fd(min->progs.xnb_min_xdp);
	fd[P_EMPTY] = load_empty();
	if (fd[P_EMPTY] < 0)
		die("cannot load an empty XDP program: %s", strerror(errno));
	add_frames(src, dst);

	for (r = 0; r < rounds; r++) {
		for (f = 0; f < nframes; f++) {
			const struct frame *fr = &frames[f];
			__u32 ns, rv;

			/* Keep-alive stamped; --out's port learned. */
			xn_frame_run(s.prog_tc, 0, fr->buf, fr->len, in_if, 1,
				     NULL, NULL);
			for (p = P_XDPNET; p <= P_NATIVE; p++)
				xn_frame_run(fd[p], 1, fr->back, fr->len,
					     out_if, 1, NULL, NULL);
			for (p = 0; p < P_N; p++) {
				unsigned long long sum = 0;
				int err = 0;

				for (i = 0; i < calls && !err; i++) {
					err = xn_frame_run(fd[p], 1, fr->buf,
							   fr->len, in_if,
							   repeat, &rv, &ns);
					sum += ns;
				}
				if (err)
					die("BPF_PROG_TEST_RUN of %s: %s",
					    prog_names[p], strerror(-err));
				printf("{\"frame\":\"%s\",\"len\":%zu,"
				       "\"prog\":\"%s\",\"round\":%d,"
				       "\"repeat\":%d,\"ns\":%.1f,"
				       "\"retval\":%u}\n",
				       fr->name, fr->len, prog_names[p], r,
				       repeat, (double)sum / calls, rv);
			}
		}
		fflush(stdout);
	}
	close(fd[P_EMPTY]);
	xnb_minimal_bpf__destroy(min);
	bpf_object__close(nobj);
	xn_state_close(&s);
	return 0;
}
