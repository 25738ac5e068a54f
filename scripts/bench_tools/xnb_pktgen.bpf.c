// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xnb_pktgen's program: transmit every frame back out of the device it
 * "arrived" on. Driven by BPF_PROG_TEST_RUN with BPF_F_TEST_XDP_LIVE_FRAMES,
 * the kernel turns XDP_TX into a transmit on ctx.ingress_ifindex; on a veth
 * that lands the frame in the peer's receive ring (the peer needs NAPI: GRO
 * on, or an XDP program).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xnb_pktgen_tx(struct xdp_md *ctx)
{
	return XDP_TX;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
