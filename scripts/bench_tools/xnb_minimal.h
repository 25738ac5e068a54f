/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The reference path of scripts/bench (tc-minimal): what xnb_minimal.bpf.c
 * and its loader xnb_minimal.c share. The includer provides __u8/__u32
 * (vmlinux.h or linux/types.h).
 */
#ifndef XNB_MINIMAL_H
#define XNB_MINIMAL_H

/* Key of the fdb map: a destination MAC address. */
struct xnb_min_mac {
	__u8 addr[6];
};

/* Value of the fdb map: the target's ifindex, with this bit set when the
 * frame goes to the target's peer (bpf_redirect_peer(): veth targets). */
#define XNB_MIN_PEER (1u << 31)

#define XNB_MIN_FDB_SIZE 256

/* Longest frame xdp-minimal redirects: Ethernet header and a 1,500 B
 * packet (the taps' MTU in scripts/bench). */
#define XNB_MIN_XDP_MAX 1514

#endif
