// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xnt_tcxcount: another party's tcx program, for the hook-sharing cases
 * of tests/integration/semantics.sh: it counts every frame it sees and
 * the frames of tests/tools/xnt_frames among them (IPv4/UDP, payload
 * "XNTF", tag, sequence), and drops those with tag XNT_DROP_TAG (counted
 * too); anything else goes on to the next program (TCX_NEXT). Loaded and
 * placed by tests/tools/xnt_tcx.c.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "../../bpf/xdpnet_parse.h"

#define TCX_NEXT (-1)
#define TC_ACT_SHOT 2
#define XNT_DROP_TAG 77

enum { XNT_SEEN, XNT_XNTF, XNT_DROPPED, XNT_NCOUNTS };

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XNT_NCOUNTS);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

static __always_inline void count(__u32 what)
{
	__u64 *c = bpf_map_lookup_elem(&counts, &what);

	if (c)
		__sync_fetch_and_add(c, 1);
}

SEC("tc")
int xnt_tcxcount(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = data + ETH_HLEN;
	struct udphdr *udp = (void *)(ip + 1);
	__u8 *pay = (void *)(udp + 1);

	count(XNT_SEEN);
	if ((void *)(pay + 8) > end || eth->h_proto != bpf_htons(ETH_P_IP) ||
	    ip->ihl != 5 || ip->protocol != IPPROTO_UDP || pay[0] != 'X' ||
	    pay[1] != 'N' || pay[2] != 'T' || pay[3] != 'F')
		return TCX_NEXT;
	count(XNT_XNTF);
	/* The tag: big-endian, after the magic. */
	if (pay[4] == 0 && pay[5] == 0 && pay[6] == 0 &&
	    pay[7] == XNT_DROP_TAG) {
		count(XNT_DROPPED);
		return TC_ACT_SHOT;
	}
	return TCX_NEXT;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
