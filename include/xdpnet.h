/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Types and constants shared by the BPF datapath (bpf/) and user space
 * (user/, tests/). Defined once, fixed-size types only.
 *
 * BPF includes this after vmlinux.h, which already has the __u* types.
 */
#ifndef XDPNET_H
#define XDPNET_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define XDPNET_PIN_ROOT "/sys/fs/bpf/xdpnet"
#define XDPNET_VERSION_STR "0.3.0"

/* Map sizes. Port slot 0 is never a port: an FDB entry whose port is not
 * carried points there. */
#define XDPNET_MAX_PORTS 1024
#define XDPNET_MAX_FDB 16384
#define XDPNET_MAX_STATIC 4096
#define XDPNET_MAX_VLANS 16384

/*
 * Layout of the pinned state. Bumped whenever a map's key or value, its
 * type or its size changes; attach checks it before using pinned maps
 * (user/pins.c says what it can reuse, migrate or must refuse).
 */
#define XDPNET_ABI 2

/* Frames larger than this never take the XDP stage: they may be running
 * in generic XDP (skb-backed, checksum state kept) and an in-place
 * checksum completion would then be wrong. One page minus tun's headroom
 * and skb_shared_info is about 3.5 KB; stay below it. */
#define XDPNET_XDP_MAX_FRAME 3072

/*
 * The FDB is a mirror of the bridge's own: the datapath never learns. The
 * bridge's learned entries reach it through tracepoint programs on the
 * bridge's FDB events (bpf/xdpnet_fdb.h), its static and local entries
 * through user space. Key: MAC and VLAN (0 when the bridge does not filter
 * VLANs), as the bridge keys them.
 */
struct xdpnet_fdb_key {
	__u8 mac[6];
	__u16 vid;
};

enum xdpnet_fdb_flags {
	XDPNET_FDB_LOCAL = 1 << 0,  /* the host's own address: never bypassed */
	XDPNET_FDB_STATIC = 1 << 1, /* static in the bridge */
	XDPNET_FDB_LOCKED = 1 << 2, /* locked (802.1X MAB): never bypassed */
	XDPNET_FDB_SEEDED = 1 << 3, /* copied by user space, not by a trace */
};

struct xdpnet_fdb_val {
	__u32 ifindex; /* the port the bridge has this MAC behind */
	__u16 slot;    /* ports[] slot of ifindex; 0: not carried ... */
	__u16 gen;     /* ... as of this xdpnet_cfg.port_gen */
	__u32 flags;   /* enum xdpnet_fdb_flags */
	/* Last frame from this MAC the bridge saw (jiffies, low 32 bits,
	 * compared with wrap-around): the datapath hands one frame per
	 * source and refresh interval to the bridge, which keeps the
	 * bridge's own entry alive. */
	__u32 bridge_j;
};

/* Bridge-wide FDB mirror events ("fdb_ev", per CPU, indexed by these). */
enum xdpnet_fdb_ev {
	XDPNET_FE_LEARN,  /* the bridge learned or moved an entry: mirrored */
	XDPNET_FE_DELETE, /* the bridge deleted an entry: removed */
	XDPNET_FE_FULL,	  /* could not mirror a learned entry: map full */
	XDPNET_FE_USER,	  /* "bridge fdb add/replace": entry dropped until
			     user space copies the result */
	XDPNET_FE_MAX,
};

/*
 * Per port (ports[], an array by slot; port_idx maps ifindex to slot).
 * Everything the datapath needs to decide is in flags: user space
 * computes XDPNET_PORT_FWD from the port's bridge state, and updates it in
 * place when the bridge changes.
 */
enum xdpnet_port_flags {
	XDPNET_PORT_FWD = 1 << 0,      /* may take part in a bypass: forwarding,
					  up, a port of this bridge, no filter */
	XDPNET_PORT_ISOLATED = 1 << 1, /* bridge port "isolated" */
	XDPNET_PORT_LEARNING = 1 << 2, /* bridge port learns */
	XDPNET_PORT_LOCKED = 1 << 3, /* bridge port "locked": never bypassed */
	XDPNET_PORT_XDP = 1 << 4,    /* the XDP stage runs on this port */
	XDPNET_PORT_VETH = 1 << 5,   /* a veth (else a tap) */
	XDPNET_PORT_OWN_CLSACT = 1 << 6, /* xdpnet created the clsact qdisc */
	XDPNET_PORT_XDP_TARGET = 1 << 7, /* may receive XDP redirects (taps) */
	XDPNET_PORT_TC_EGRESS = 1 << 8,	 /* tc on its egress (a qdisc, filters):
					    TC redirects only */
	XDPNET_PORT_XDP_MULTI = 1 << 9,	 /* XDPNET_PORT_XDP in libxdp's
					    dispatcher (user space's record) */
};

/* Why a port is carried by the TC stage only (user space's record). */
enum xdpnet_tc_reason {
	XDPNET_TCR_NONE,	/* XDP stage runs here */
	XDPNET_TCR_MODE,	/* attached with --mode tc */
	XDPNET_TCR_FOREIGN_XDP, /* another XDP program owns the port */
	XDPNET_TCR_XDP_FAILED,	/* the kernel refused native XDP here */
	XDPNET_TCR_VETH, /* a veth: native XDP would strip its peer's GSO */
	XDPNET_TCR_FOREIGN_TCX, /* other programs on its tcx ingress, which an
				   XDP redirect would skip */
};

/* Why a port's frames are not bypassed (user space's record; 0: they are). */
enum xdpnet_hold {
	XDPNET_HOLD_NONE,
	XDPNET_HOLD_STATE,    /* STP state other than forwarding */
	XDPNET_HOLD_DOWN,     /* device down or without carrier */
	XDPNET_HOLD_LOCKED,   /* bridge port "locked" */
	XDPNET_HOLD_FILTER,   /* a per-port filter (nwfilter, ebtables, ...) */
	XDPNET_HOLD_BRIDGE,   /* the whole bridge: hub mode (ageing_time 0),
				 MST, or filters between ports */
	XDPNET_HOLD_TC,	      /* tc filters or actions on its ingress */
	XDPNET_HOLD_BACKUP,   /* a backup port: without carrier, the bridge
				 sends the frames for it there */
	XDPNET_HOLD_VLAN_DEV, /* a VLAN device on it takes its VLAN's frames
				 before the bridge */
	XDPNET_HOLD_VLAN_TUNNEL, /* vlan_tunnel: the bridge pops the tag of
				    a VLAN with tunnel_info on egress */
};

/* Why a bridge bypasses nothing (xdpnet_cfg.hold; user space's record). */
enum xdpnet_bridge_hold {
	XDPNET_BHOLD_NONE,
	XDPNET_BHOLD_HUB,     /* ageing_time 0: the bridge floods everything */
	XDPNET_BHOLD_MST,     /* per-VLAN port states (MST) */
	XDPNET_BHOLD_FILTERS, /* filters apply between ports */
	XDPNET_BHOLD_UNKNOWN, /* the host's filters could not be read */
	XDPNET_BHOLD_PROMISC, /* the bridge device is promiscuous: it passes
				 every frame it forwards up to the host too */
	XDPNET_BHOLD_AGEING,  /* ageing too short for the keep-alive: under
				 XDPNET_REFRESH_DIV intervals of at least
				 XDPNET_REFRESH_MIN_MS (1.6 s), an active
				 source's entry could expire between two */
	XDPNET_BHOLD_NEIGH,   /* a port has the bridge answer ARP/ND requests
				 itself (proxy_arp, proxy_arp_wifi,
				 neigh_suppress) */
};

/* The TC stage's filter where it hooks through a clsact qdisc: ingress,
 * kind bpf, this handle and priority (tc filter show calls it "pref"). */
#define XDPNET_CLSACT_HANDLE 1
#define XDPNET_CLSACT_PRIO 0xfe58

/* The XDP stage's run priority in a libxdp dispatcher (lower runs first;
 * libxdp's default is 50): after the other programs of a port, so that a
 * filter's XDP_DROP comes before any redirect. XDP_PASS goes on to a
 * program placed after it (chain call), the rest ends there. */
#define XDPNET_XDP_RUN_PRIO 10000

enum xdpnet_hook {
	XDPNET_HOOK_TCX = 1,	/* tcx link */
	XDPNET_HOOK_CLSACT = 2, /* clsact qdisc filter (kernels before tcx) */
};

struct xdpnet_port {
	__u32 ifindex;	/* 0: a free slot */
	__u32 flags;	/* enum xdpnet_port_flags */
	__u32 mtu;	/* frames up to mtu + 18 (Ethernet and a VLAN tag) fit,
			   as in the bridge's is_skb_forwardable() */
	__u16 pvid;	/* untagged frames belong to this VLAN (0: none) */
	__u8 tc_reason; /* enum xdpnet_tc_reason */
	__u8 hook;	/* enum xdpnet_hook */
	__u32 foreign_prog_id; /* XDPNET_TCR_FOREIGN_XDP: that program */
	__u32 hold;	       /* enum xdpnet_hold */
};

/*
 * Bridge settings the datapath reads on every frame: a global of the BPF
 * object (section .data.cfg, pinned as "cfg"), written in place by user
 * space. Where the kernel lets the datapath read the ingress port's bridge
 * state itself (bpf/xdpnet_live.h), that live view is checked too.
 */
/* xdpnet_cfg.vlan_filtering: off, or the tag the bridge filters VLANs by
 * (its vlan_protocol). */
enum xdpnet_vlan_filtering {
	XDPNET_VF_OFF,
	XDPNET_VF_8021Q,
	XDPNET_VF_8021AD,
};

/* The bridge FDB keep-alive (xdpnet_cfg.refresh_j): one frame per source
 * MAC and interval goes to the bridge, the interval being this fraction
 * of the bridge's ageing (forward_delay during a topology change), at
 * most XDPNET_REFRESH_MAX_MS and never below XDPNET_REFRESH_MIN_MS. The
 * bridge then forgets a silent source up to one interval earlier than it
 * would without xdpnet: the frames after the last one it saw were
 * bypassed. */
#define XDPNET_REFRESH_DIV 16
#define XDPNET_REFRESH_MAX_MS 1000
#define XDPNET_REFRESH_MIN_MS 100

struct xdpnet_cfg {
	__u32 bridge_ifindex;
	__u16 port_gen;	     /* bumped whenever a slot changes hands */
	__u8 vlan_filtering; /* enum xdpnet_vlan_filtering */
	__u8 bypass;	     /* 0: bypass nothing (hub mode, MST, filters,
				detaching) */
	__u64 netns_ino;     /* the bridge's network namespace */
	__u32 refresh_j;     /* bridge FDB keep-alive interval, jiffies */
	__u32 hz;	     /* jiffies per second (measured by user space) */
	__u32 lat_on;	     /* latency probe on: mark frames for it */
	__u32 hold;	     /* bypass 0: why (enum xdpnet_bridge_hold) */
	__u32 nf;	     /* enum xdpnet_nf: br_netfilter's checks that
				bridged frames get (where br_addr was,
				unused since 0.3: pinned states keep their
				layout) */
	__u32 pad2;
};

/*
 * xdpnet_cfg.nf: what br_netfilter (loaded, with bridge-nf-call-* or the
 * bridge's nf_call_* on) does to a bridged frame before any rule sees it,
 * which a bypass would skip (bpf/xdpnet_nf.h): it drops an IPv4 packet
 * whose header does not check out, trims one that is longer than its
 * header says, and reassembles fragments where conntrack is in use; the
 * same for IPv6. Frames it would touch go to the bridge.
 */
enum xdpnet_nf {
	XDPNET_NF_IP4 = 1 << 0,	  /* IPv4 meets the IP hooks */
	XDPNET_NF_IP6 = 1 << 1,	  /* IPv6 does */
	XDPNET_NF_ARP = 1 << 2,	  /* ARP meets arptables */
	XDPNET_NF_VLAN = 1 << 3,  /* bridge-nf-filter-vlan-tagged: VLAN-tagged
				     frames too */
	XDPNET_NF_PPPOE = 1 << 4, /* bridge-nf-filter-pppoe-tagged: IP inside
				     PPPoE sessions too */
};

/*
 * The datapath's own state (section .data.rt, pinned as "rt"): written
 * by BPF programs only; user space changes it through the xdpnet_bump
 * program, never by writing the map.
 *
 * gen is the generation of everything a cached decision (struct
 * xdpnet_flow) rests on: the FDB copy (fdb, fdb_static), the ports, cfg
 * and the dump switch. Whoever changes one of them bumps it afterwards
 * (the FDB trace programs; user space after each write), so that every
 * decision cached before the change is decided anew. (Not the VLANs:
 * nothing is cached while the bridge filters VLANs. Not tx_ports: read on
 * every frame.)
 */
struct xdpnet_rt {
	__u32 gen;
	__u32 pad;
	__u64 br; /* live datapath: the bridge's address, once checked
		     (against cfg's ifindex again after user space's bump) */
};

/*
 * Live datapath (bpf/xdpnet_live.h, section .data.kdev, never pinned): each
 * carried port by slot, as its frames last came in: its device's and its
 * bridge port's kernel addresses, and the ifindex they had then (0: none
 * yet, or being rewritten).
 */
struct xdpnet_kport {
	__u64 dev;
	__u64 port;
	__u32 ifindex;
	__u32 pad;
};

/*
 * The decision cache ("flows"): per CPU, XDPNET_FLOW_ENTRIES entries,
 * direct-mapped by ingress port, source and destination MAC (CPU c's
 * entries are c * XDPNET_FLOW_ENTRIES and on). An entry is the bridge's
 * decision for such frames as the full decision found it: valid while
 * xdpnet_rt.gen is unchanged and its time is not up. A bypass (the flow's
 * source known to the bridge on the ingress port) also holds only while
 * the ports' state reads as it did (live datapath) and until the
 * source's keep-alive is due; a hand-over to the bridge (XDPNET_FLOW_PASS,
 * a reason that does not depend on the frame itself) holds for one
 * keep-alive interval, and is never wrong, only slower, where the state
 * moved on. Nothing is cached with VLAN filtering, while a dump or the
 * latency probe runs. One cache line each.
 */
#define XDPNET_FLOW_BITS 10
#define XDPNET_FLOW_ENTRIES (1 << XDPNET_FLOW_BITS)

enum xdpnet_flow_flags {
	XDPNET_FLOW_LEARNING = 1 << 0,	   /* the ingress port learned */
	XDPNET_FLOW_OUT_ISOLATED = 1 << 1, /* the egress port is isolated */
	XDPNET_FLOW_OUT_XDP = 1 << 2, /* the egress port takes XDP frames */
	XDPNET_FLOW_PASS = 1 << 3,    /* to the bridge (pass: why) */
	XDPNET_FLOW_IN_TCX = 1 << 4,  /* its TC stage is a tcx program */
};

struct xdpnet_flow {
	__u8 src[6];	/* source MAC ... */
	__u16 in_slot;	/* (the ingress port's slot) */
	__u8 dst[6];	/* ... destination MAC ... */
	__u16 out_slot; /* (the egress port's slot) */
	__u32 ifindex;	/* ... and ingress port: the key (0: empty) */
	__u32 target;	/* the egress port */
	__u32 gen;	/* xdpnet_rt.gen when decided */
	__u32 expire_j; /* jiffies after which it is decided anew (the
			   source's keep-alive is due) */
	__u32 mtu;	/* the egress port's MTU */
	__u32 flags;	/* enum xdpnet_flow_flags */
	__u32 pass;	/* XDPNET_FLOW_PASS: the PASS_* counter */
	__u8 pad[20];
};

enum xdpnet_mode {
	XDPNET_MODE_TC = 1,
	XDPNET_MODE_XDP = 2,
};

/* What an attach chose, kept in the pinned "meta" map (one entry). */
struct xdpnet_meta {
	__u32 abi; /* XDPNET_ABI of the build that created the maps */
	__u32 bridge_ifindex;
	__u32 mode;	   /* enum xdpnet_mode */
	__u32 live;	   /* the datapath reads the ingress port live */
	__u64 attached_at; /* seconds since the epoch */
	__u64 netns_ino; /* network namespace of the bridge (pins are global) */
	__u32 fdb_trace; /* the bridge's FDB events are mirrored in-kernel */
	__u32 no_follow; /* attach --no-follow */
	__u32 bypass_filters; /* attach --bypass-filters */
	__u32 pad;
	char build[32]; /* build id of the programs (xdpnet --version) */
};

/* VLAN membership of a port, when the bridge filters VLANs. */
struct xdpnet_vlan_key {
	__u32 ifindex;
	__u16 vid;
	__u16 pad;
};

enum xdpnet_vlan_flags {
	XDPNET_VLAN_UNTAGGED = 1 << 0, /* egress untagged */
	XDPNET_VLAN_HELD = 1 << 1,     /* the port's state in this VLAN is not
					  forwarding ('bridge vlan set ...
					  state') */
};

struct xdpnet_vlan_val {
	__u32 flags;
};

/*
 * Per-port counters, by verdict. The XDP_DEFER_* reasons count frames the
 * XDP stage handed on to the TC stage (they are seen again there); every
 * other counter is a final verdict for the frame on that port.
 */
enum xdpnet_ctr {
	XDPNET_C_XDP_REDIRECT,	/* redirected by the XDP stage */
	XDPNET_C_TC_REDIRECT,	/* redirected by the TC stage */
	XDPNET_C_RX_REDIRECTED, /* redirected INTO this port (by any port) */
	/* handed to the bridge (TC_ACT_OK), by reason */
	XDPNET_C_PASS_MCAST,   /* broadcast / multicast destination */
	XDPNET_C_PASS_UNKNOWN, /* destination not in the FDB */
	XDPNET_C_PASS_LOCAL, /* destination is the host (bridge or port MAC) */
	XDPNET_C_PASS_HAIRPIN,	    /* destination behind the ingress port */
	XDPNET_C_PASS_NOT_ATTACHED, /* destination port not attached */
	XDPNET_C_PASS_VLAN,	/* VLAN not allowed, tagging differs, or a tag
				   inside a tag */
	XDPNET_C_PASS_ISOLATED, /* both ports isolated / a port locked */
	XDPNET_C_PASS_REFRESH,	/* keeps the bridge's FDB entry alive */
	XDPNET_C_PASS_SRC,   /* source MAC not the bridge's on this port (new,
				moved, the host's, static elsewhere) */
	XDPNET_C_PASS_STATE, /* a port not forwarding, down, or held */
	XDPNET_C_PASS_MTU,   /* over the egress port's MTU */
	XDPNET_C_PASS_HUB,   /* the bridge bypasses nothing (cfg.bypass 0) */
	XDPNET_C_PASS_MALFORMED, /* runt, truncated VLAN header */
	/* XDP stage handed the frame to the TC stage, by reason */
	XDPNET_C_XDP_DEFER_CSUM, /* L4 checksum neither valid nor completable */
	XDPNET_C_XDP_DEFER_SIZE, /* over MTU or over XDPNET_XDP_MAX_FRAME */
	XDPNET_C_XDP_DEFER_TARGET, /* target port cannot take XDP frames */
	XDPNET_C_XDP_DEFER_PROTO,  /* not ARP, TCP/UDP/ICMP over IPv4/IPv6, or a
				      fragment */
	XDPNET_C_XDP_DEFER_REFRESH, /* the TC stage hands it to the bridge */
	/* dropped, by reason */
	XDPNET_C_DROP_REDIRECT_ERR, /* redirect failed (counted on the ingress
				       port) */
	XDPNET_C_DROP_XMIT_ERR,	    /* XDP frames the target could not take */
	/* Appended since (pinned counters carry over only appended ones):
	 * each belongs to one of the groups above, see XDPNET_CTR_IS_*. */
	XDPNET_C_XDP_DEFER_UDP0, /* IPv4 UDP without a checksum: what it
				    carries (a tunnel's inner checksum)
				    cannot be proved complete */
	XDPNET_C_PASS_NF,	 /* br_netfilter would drop, trim or
				    reassemble it (cfg.nf) */
	XDPNET_C_MAX,
};

/* The groups of counters: handed to the bridge, handed by the XDP stage to
 * the TC stage, dropped. */
#define XDPNET_CTR_IS_PASS(c)                                              \
	(((c) >= XDPNET_C_PASS_MCAST && (c) <= XDPNET_C_PASS_MALFORMED) || \
	 (c) == XDPNET_C_PASS_NF)
#define XDPNET_CTR_IS_DEFER(c)                  \
	(((c) >= XDPNET_C_XDP_DEFER_CSUM &&     \
	  (c) <= XDPNET_C_XDP_DEFER_REFRESH) || \
	 (c) == XDPNET_C_XDP_DEFER_UDP0)
#define XDPNET_CTR_IS_DROP(c) \
	((c) >= XDPNET_C_DROP_REDIRECT_ERR && (c) <= XDPNET_C_DROP_XMIT_ERR)

struct xdpnet_ctr_val {
	__u64 packets;
	__u64 bytes;
};

struct xdpnet_stats {
	struct xdpnet_ctr_val c[XDPNET_C_MAX];
};

/*
 * Forwarding-latency probe (xdpnet latency BRIDGE on|off): tracepoint
 * programs in bpf/xdpnet_lat.bpf.c time each frame from its arrival on
 * one port to its hand-off to another, per path, in log2 ns buckets.
 */
/* Bucket i counts [2^i, 2^(i+1)) ns; bucket 0 also 0 ns. */
#define XDPNET_LAT_BUCKETS 40
#define XDPNET_LAT_MAX_PAIRS 4096	    /* (in, out, path) keys */
#define XDPNET_LAT_MAX_AGE_NS 1000000000ULL /* older arrivals are stale */

enum xdpnet_lat_path {
	XDPNET_LAT_BRIDGE, /* through the Linux bridge */
	XDPNET_LAT_TC,	   /* bypass: TC redirect */
	XDPNET_LAT_XDP,	   /* bypass: XDP redirect (devmap enqueue) */
	XDPNET_LAT_PATHS,
};

/* "lat_ctl" (one entry): the probe's own settings. The datapath learns
 * that the probe is on from xdpnet_cfg.lat_on. */
struct xdpnet_lat_ctl {
	__u32 on;
	__u32 bridge_ifindex;
	__u64 netns_ino; /* the bridge's network namespace */
};

/* "lat_cpu" (per CPU): what the datapath tells the probe. */
struct xdpnet_lat_cpu {
	__u64 xdp_ts;	   /* XDP stage entry (bpf_ktime_get_ns), 0: none */
	__u32 xdp_ifindex; /* ... on this port */
	__u32 rx_ifindex;  /* port of rx_skb */
	__u64 rx_skb;	   /* last skb the probe saw arrive on this CPU */
	__u64 tc_skb;	   /* rx_skb, once the TC stage redirected it ... */
	__u32 tc_target;   /* ... to this port */
	__u32 pad;
	__u64 rx_ts; /* arrival of rx_skb (bpf_ktime_get_ns) */
};

/* "lat_hist" key and (per-CPU) value. */
struct xdpnet_lat_key {
	__u32 in_ifindex;
	__u32 out_ifindex;
	__u32 path; /* enum xdpnet_lat_path */
};

struct xdpnet_lat_hist {
	__u64 count;
	__u64 sum_ns;
	__u64 bucket[XDPNET_LAT_BUCKETS];
};

/*
 * Frame dump (xdpnet dump): while a dump runs, both stages copy the frames
 * they decide on into the "dump_rb" ring buffer, with the decision. The
 * switch is "dump" (section .data.dump), read on every frame: off, each
 * stage pays one load of a global.
 */
#define XDPNET_DUMP_RING (256 * 1024) /* bytes of ring, per bridge */
#define XDPNET_DUMP_MAX 2048	      /* bytes of a frame copied, at most */

/* The datapath's two stages. */
enum xdpnet_stage {
	XDPNET_STAGE_XDP,
	XDPNET_STAGE_TC,
};

enum xdpnet_dump_path {
	XDPNET_DUMP_XDP = 1 << 0,    /* redirected by the XDP stage */
	XDPNET_DUMP_TC = 1 << 1,     /* redirected by the TC stage */
	XDPNET_DUMP_BRIDGE = 1 << 2, /* handed to the bridge */
};

/* "dump" (one entry, a global): what to copy. */
struct xdpnet_dump_ctl {
	__u32 on;
	__u32 ifindex; /* only frames from or to this port (0: all) */
	__u32 paths;   /* enum xdpnet_dump_path mask (0: all) */
	__u32 snaplen; /* bytes to copy (at most XDPNET_DUMP_MAX) */
	__u64 lost;    /* records the full ring had no room for */
};

/* One record in dump_rb; caplen bytes of the frame follow. */
struct xdpnet_dump_rec {
	__u64 ts_ns;   /* bpf_ktime_get_ns() */
	__u32 ifindex; /* the port it arrived on */
	__u32 target;  /* redirected: the port it went to, else 0 */
	__u32 len;     /* the frame's length */
	__u16 caplen;  /* bytes copied */
	__u8 stage;    /* enum xdpnet_stage of the decision */
	__u8 verdict;  /* enum xdpnet_counter */
};

/*
 * Trace (xdpnet trace): a stage's decision on one frame, run by
 * BPF_PROG_TEST_RUN through a variant of the stage (xdpnet_trace_tc,
 * xdpnet_trace_xdp) that has no side effects: no counter, no keep-alive
 * stamp, no FDB hint mended, no redirect, no dump, no latency mark. It
 * leaves what it found in its object's own "trace_out" map.
 *
 * The checks, in the order the decision makes them. A check the decision
 * made is in .seen; the last one made (.at) decided, unless the frame was
 * redirected (.at is XDPNET_CK_N then).
 */
enum xdpnet_check {
	XDPNET_CK_FRAME,	/* a whole Ethernet header (and VLAN tag) */
	XDPNET_CK_TAG_PROTO,	/* a tag of the bridge's VLAN protocol */
	XDPNET_CK_IN_PORT,	/* the ingress port is carried */
	XDPNET_CK_IN_LIVE,	/* live: a port of this bridge, which is not
				   promiscuous */
	XDPNET_CK_BYPASS,	/* the bridge bypasses (cfg.bypass) */
	XDPNET_CK_UNICAST,	/* destination unicast */
	XDPNET_CK_IN_FWD,	/* ingress port forwarding, not held */
	XDPNET_CK_IN_UNLOCKED,	/* ingress port not locked */
	XDPNET_CK_IN_VLAN,	/* VLAN filtering: the VLAN on the ingress */
	XDPNET_CK_SRC_VALID,	/* source neither group nor zero */
	XDPNET_CK_SRC_KNOWN,	/* learning port: the bridge has the source
				   on this port */
	XDPNET_CK_KEEPALIVE,	/* ... and its entry needs no keep-alive yet */
	XDPNET_CK_DST_KNOWN,	/* destination in the FDB */
	XDPNET_CK_DST_REMOTE,	/* not the host's own address */
	XDPNET_CK_DST_UNLOCKED, /* destination entry not locked */
	XDPNET_CK_NOT_HAIRPIN,	/* destination behind another port */
	XDPNET_CK_OUT_PORT,	/* the egress port is carried */
	XDPNET_CK_OUT_FWD,	/* egress port forwarding, not held */
	XDPNET_CK_ISOLATION,	/* not both isolated, egress not locked */
	XDPNET_CK_OUT_VLAN,	/* VLAN filtering: member, tagged alike */
	XDPNET_CK_NF,		/* br_netfilter would neither drop, trim nor
				   reassemble it (cfg.nf) */
	XDPNET_CK_XDP_TARGET,	/* XDP: the egress port takes XDP frames */
	XDPNET_CK_MTU,		/* within the egress port's MTU */
	XDPNET_CK_XDP_CSUM,	/* XDP: size, protocol and checksum allow an
				   XDP redirect */
	XDPNET_CK_N,
};

/* "trace_out" (one entry): what one trace run found. */
struct xdpnet_trace_rec {
	__u32 stage;	/* enum xdpnet_stage */
	__u32 verdict;	/* enum xdpnet_ctr the stage would count */
	__u32 seen;	/* 1 << enum xdpnet_check: the checks made */
	__u32 at;	/* the check that decided, XDPNET_CK_N: redirect */
	__u32 in_slot;	/* ingress port's slot, 0: not carried */
	__u32 out_slot; /* redirect: the target's slot and ifindex */
	__u32 target;
	__u32 in_flags;	   /* the ingress port's flags as decided (live) */
	__u32 src_ifindex; /* the FDB entry of the source: its port ... */
	__u32 src_flags;   /* ... and flags (enum xdpnet_fdb_flags) */
	__u32 dst_ifindex; /* likewise the destination's */
	__u32 dst_flags;
	__u32 src_age_j; /* jiffies since the bridge saw the source */
	__u32 refresh_j; /* the keep-alive interval in force */
	__u32 len;	 /* the frame as the stage measures it */
	__u16 vid;	 /* its VLAN (tagged, or the port's pvid) */
	__u8 tagged;
	__u8 skb_backed; /* XDP: taken for generic (skb-backed) XDP */
	/* The source's keep-alive is due: this frame goes to the bridge
	 * (verdict XDP_DEFER_REFRESH or PASS_REFRESH, .at KEEPALIVE), and
	 * the decision went on to what the flow's other frames get: */
	__u32 refresh_due;
	__u32 steady_verdict;
	__u32 steady_at;
	__u32 steady_target;
	__u32 steady_out_slot;
};

#endif /* XDPNET_H */
