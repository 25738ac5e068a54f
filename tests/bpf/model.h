/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * An independent model of the datapath's forwarding decision, for the fuzz
 * run: what each entry point must return and count for a frame, given the
 * same map contents. Written from the specification (docs: DATAPATH.md,
 * the comments of include/xdpnet.h), not from bpf/: it includes no BPF
 * code, only the shared types.
 */
#ifndef XT_MODEL_H
#define XT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "xdpnet.h"

#define XM_SLOTS 8
#define XM_FDB 256
#define XM_VLANS 64
#define XM_DEVS 8

/* A device as the kernel has it: its MTU, and (the live build) its bridge
 * port state. */
struct xm_dev {
	__u32 ifindex;
	__u32 mtu;
	bool port;     /* a port of cfg.bridge_ifindex */
	bool fwd;      /* STP state forwarding */
	bool learning; /* bridge port flags */
	bool isolated;
	bool locked;
};

struct xm_fdb {
	struct xdpnet_fdb_key key;
	struct xdpnet_fdb_val val;
	bool is_static; /* in fdb_static (else fdb) */
};

struct xm_state {
	bool live; /* the build reads the ingress port from the kernel */
	struct xdpnet_cfg cfg;
	struct xdpnet_port ports[XM_SLOTS]; /* by slot */
	__u32 port_idx[XM_SLOTS][2];	    /* ifindex, slot */
	int nr_port_idx;
	bool tx[XM_SLOTS]; /* tx_ports has the slot */
	struct xm_fdb fdb[XM_FDB];
	int nr_fdb;
	struct xdpnet_vlan_key vlan_key[XM_VLANS];
	__u32 vlan_flags[XM_VLANS];
	int nr_vlans;
	struct xm_dev devs[XM_DEVS];
	int nr_devs;
	__u32 now; /* jiffies */
};

/* What a program run must do. */
struct xm_verdict {
	__u32 retval;
	int ctr;	/* counted on in_slot; -1: nothing counted */
	__u32 in_slot;	/* 0: the ingress port is not carried */
	int out_slot;	/* RX_REDIRECTED counted there; -1: none */
	bool completed; /* XDP: the L4 checksum completed in place */
	__u16 vid;	/* the VLAN the FDB was looked up in */
};

/* The model's decision for one frame; it updates the model's maps as the
 * datapath must (slot hints, the keep-alive stamp). skb_backed (XDP): the
 * frame is not an xdp_buff (generic XDP, or a buffer the program cannot
 * tell), so a redirect keeps its checksum state. */
void xm_tc(struct xm_state *m, const __u8 *frame, size_t len, __u32 ifindex,
	   struct xm_verdict *v);
void xm_xdp(struct xm_state *m, const __u8 *frame, size_t len, __u32 ifindex,
	    bool skb_backed, struct xm_verdict *v);

/* An entry of the model's FDB (learned, or static and local). */
struct xm_fdb *xm_fdb_find(struct xm_state *m, const __u8 *mac, __u16 vid,
			   bool is_static);

#endif
