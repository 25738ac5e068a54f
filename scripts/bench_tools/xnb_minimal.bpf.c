// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tc-minimal, scripts/bench's reference path: the least a TC bypass of a
 * bridge does per frame. One hash lookup of the destination MAC, then
 * bpf_redirect() to the port (or bpf_redirect_peer() into a veth target's
 * peer). Anything not in the map goes on to the bridge. No counters, no
 * learning, no checks: what any TC bypass must pay, nothing more.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "xnb_minimal.h"

#define TC_ACT_OK 0

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XNB_MIN_FDB_SIZE);
	__type(key, struct xnb_min_mac);
	__type(value, __u32);
} fdb SEC(".maps");

SEC("tc")
int xnb_min_tc(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	__u32 *to;

	if ((void *)(eth + 1) > end)
		return TC_ACT_OK;
	to = bpf_map_lookup_elem(&fdb, eth->h_dest);
	if (!to)
		return TC_ACT_OK;
	if (*to & XNB_MIN_PEER)
		return bpf_redirect_peer(*to & ~XNB_MIN_PEER, 0);
	return bpf_redirect(*to, 0);
}

/*
 * xdp-minimal, the XDP stage's reference: the same lookup in native XDP on
 * a tap, then a devmap redirect. Frames over the MTU (a tap hands GSO
 * frames to generic XDP as whole skbs, which a devmap redirect refuses)
 * and frames for unknown MACs pass, on to tc-minimal above.
 */
struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
	__uint(max_entries, XNB_MIN_FDB_SIZE);
	__type(key, __u32);
	__type(value, __u32);
} ports SEC(".maps");

SEC("xdp")
int xnb_min_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	__u32 *to;

	if ((void *)(eth + 1) > end || end - data > XNB_MIN_XDP_MAX)
		return XDP_PASS;
	to = bpf_map_lookup_elem(&fdb, eth->h_dest);
	if (!to)
		return XDP_PASS;
	return bpf_redirect_map(&ports, *to & ~XNB_MIN_PEER, XDP_PASS);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
