// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Does the kernel let an XDP program call bpf_xdp_adjust_meta? The XDP
 * stage uses it to tell tun's native path from generic XDP (bpf/xdpnet.bpf.c,
 * xdp_stage()). Some kernels refuse the helper at load time ("program of
 * this type cannot use helper"), and libbpf's helper probe does not read
 * that answer as a refusal: user/core/load.c loads this program instead.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xdpnet_meta_probe(struct xdp_md *ctx)
{
	if (bpf_xdp_adjust_meta(ctx, -4))
		return XDP_PASS;
	bpf_xdp_adjust_meta(ctx, 4);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
