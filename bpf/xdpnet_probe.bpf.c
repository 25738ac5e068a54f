// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Can this kernel run libxdp's dispatcher? It calls each program through
 * a global function that the program replaces (BPF_PROG_TYPE_EXT,
 * "freplace"), which needs BPF trampolines. user/datapath/multiprog.c loads
 * xdpnet_probe_main, then xdpnet_probe_ext in place of its slot, and
 * links it: what the dispatcher does.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

__attribute__((noinline)) int xdpnet_probe_slot(struct xdp_md *ctx)
{
	return ctx ? XDP_PASS : XDP_ABORTED;
}

SEC("xdp")
int xdpnet_probe_main(struct xdp_md *ctx)
{
	return xdpnet_probe_slot(ctx);
}

SEC("freplace/xdpnet_probe_slot")
int xdpnet_probe_ext(struct xdp_md *ctx)
{
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
