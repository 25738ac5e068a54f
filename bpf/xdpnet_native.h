/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Does an XDP redirect of this frame drop its checksum-offload state?
 *
 * The XDP stage runs on two kinds of buffer. On tun's native paths
 * (tun_build_skb() for a write(), tun_xdp_one() for vhost-net's batches)
 * and on a veth it is an xdp_buff: a redirect turns it into an xdp_frame,
 * which has no room for the sender's partial-checksum flag, so a partial
 * checksum must be completed before the redirect. Under generic XDP
 * (tun_get_user(), GSO frames, blocking writes) it is an skb, and the
 * redirect sends that skb on with its CHECKSUM_PARTIAL state: completing
 * the checksum there would have it summed twice. Two facts tell them
 * apart, and where neither can be read the frame counts as generic (its
 * partial checksum goes to the TC stage, which keeps the state):
 *
 *  - No room for metadata (data_meta past data): a driver's xdp_buff.
 *    Generic XDP always has room (an skb's headroom, at least
 *    XDP_PACKET_HEADROOM). tun's native paths had none until Linux 6.14
 *    (xdp_prepare_buff(..., false) in tun_build_skb(),
 *    xdp_set_data_meta_invalid() in tun_xdp_one()); Linux 6.15 gave them
 *    room (c2315ebb0588).
 *  - The buffer's rxq (the live build: bpf_cast_to_kern_ctx, Linux 6.2):
 *    generic XDP takes the receive queue of the skb's device, an entry of
 *    dev->_rx below real_num_rx_queues (netif_get_rxqueue()); tun's native
 *    paths take the tun_file's own xdp_rxq, a veth its veth_rq's.
 *
 * Both are plain reads: no helper that may change packet data, so the
 * stage is the same program in libxdp's dispatcher.
 */
#ifndef XDPNET_NATIVE_H
#define XDPNET_NATIVE_H

#include "xdpnet_live.h"

/*
 * Tests and the benchmark's program table only: take every buffer as an
 * xdp_buff. BPF_PROG_TEST_RUN gives the program the device's own rxq and
 * room for metadata, so a test run always looks generic. Set before load
 * (user space never sets it for a bridge); at 0 the verifier drops the
 * branch.
 */
const volatile __u32 xdpnet_test_native SEC(".rodata.test") = 0;

static __always_inline int xdp_drops_csum_state(struct xdp_md *ctx)
{
	if (xdpnet_test_native)
		return 1;
	if ((void *)(long)ctx->data_meta > (void *)(long)ctx->data)
		return 1;
#if XDPNET_HAVE_LIVE
	{
		struct xdp_buff *xdp = bpf_cast_to_kern_ctx(ctx);
		struct xdp_rxq_info *rxq = xdp->rxq;
		struct net_device *dev;
		__u64 off, span;

		if (!rxq)
			return 0;
		dev = rxq->dev;
		if (!dev)
			return 0;
		off = (__u64)rxq - (__u64)dev->_rx -
		      bpf_core_field_offset(struct netdev_rx_queue, xdp_rxq);
		span = (__u64)dev->real_num_rx_queues *
		       bpf_core_type_size(struct netdev_rx_queue);
		return off >= span;
	}
#endif
	return 0;
}

#endif /* XDPNET_NATIVE_H */
