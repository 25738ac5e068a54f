/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A frame as an entry point (bpf/xdpnet.bpf.c) hands it to the decision
 * (xdpnet_decide.h), and what the decision found.
 */
#ifndef XDPNET_FRAME_H
#define XDPNET_FRAME_H

/* A checksum the XDP stage completed in place, for the redirect's failure
 * (xdpnet_csum.h). */
struct xdpnet_csum_fix {
	__u16 off; /* the field's offset in the frame, 0: untouched */
	__u16 old; /* what it held */
};

struct xdpnet_frame {
	void *ctx;  /* struct xdp_md or struct __sk_buff */
	void *data; /* Ethernet header */
	void *data_end;
	void *l3;      /* after the Ethernet header and any in-band VLAN tag */
	__u32 ifindex; /* ingress port */
	__u32 len;     /* whole frame, bytes */
	__u32 gso;     /* TC: segment size of a GSO frame, 0 otherwise */
	__u16 proto;   /* EtherType after the VLAN tag, host order */
	__u16 vid;     /* VLAN of a tagged frame */
	__u8 tagged; /* frame carries a VLAN tag (in-band or in skb metadata) */
	/* out */
	__u8 cached;	/* the decision came from the cache (xdpnet_cache.h) */
	__u8 cacheable; /* the bridge's part of it may be cached */
	__u32 in_slot;	/* ingress port's slot, 0 if not carried */
	__u32 out_slot; /* redirect: target's slot ... */
	__u32 target;	/* ... and ifindex */
	__u32 out_mtu;	/* ... and MTU */
	__u32 flow_flags; /* enum xdpnet_flow_flags of the decision */
	__u32 gen;	  /* xdpnet_rt.gen before the decision read anything */
	__u32 expire_j;	  /* cacheable: decide anew after this (jiffies) */
	/* XDP: a partial checksum completed in place (xdpnet_csum.h) */
	struct xdpnet_csum_fix csum_fix;
};

#endif /* XDPNET_FRAME_H */
