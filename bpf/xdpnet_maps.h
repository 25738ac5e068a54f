/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The datapath's state: one set per bridge, pinned under
 * /sys/fs/bpf/xdpnet/BRIDGE/ (user/state/pins.c). Every map and global of
 * xdpnet.bpf.o is defined here and nowhere else; the types are in
 * include/xdpnet.h, what reads and changes them in xdpnet_state.h.
 */
#ifndef XDPNET_MAPS_H
#define XDPNET_MAPS_H

/* tests/integration/upgrade.sh: a build whose fdb map has another layout
 * (BPF_EXTRA=-DXDPNET_TEST_MAX_FDB=N). */
#ifdef XDPNET_TEST_MAX_FDB
#undef XDPNET_MAX_FDB
#define XDPNET_MAX_FDB XDPNET_TEST_MAX_FDB
#endif

/* Bridge settings, read on every frame and written in place by user space.
 * A section of its own makes it a map of exactly this struct. */
struct xdpnet_cfg xdpnet_cfg SEC(".data.cfg") = {};

/* The datapath's own state: the generation of everything decisions rest
 * on (include/xdpnet.h). A section of its own, as cfg. */
struct xdpnet_rt xdpnet_rt SEC(".data.rt") = {};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xdpnet_meta);
} meta SEC(".maps");

/* The decision cache (bpf/xdpnet_cache.h): XDPNET_FLOW_ENTRIES per
 * possible CPU (user space sets the size before loading). Mappable only
 * for the page alignment that gives: every entry one cache line. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, XDPNET_FLOW_ENTRIES);
	__type(key, __u32);
	__type(value, struct xdpnet_flow);
} flows SEC(".maps");

/* The bridge's learned entries, copied by the FDB trace programs. A plain
 * hash: when full, new entries are not copied (their frames take the
 * bridge) and established ones are never evicted. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XDPNET_MAX_FDB);
	__type(key, struct xdpnet_fdb_key);
	__type(value, struct xdpnet_fdb_val);
} fdb SEC(".maps");

/* The bridge's static and local (host) entries, copied by user space:
 * out of reach of whatever a VM sends. (Preallocated: the FDB trace
 * programs delete from it, and kernels before 6.1 warn about tracing
 * programs on maps that allocate.) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XDPNET_MAX_STATIC);
	__type(key, struct xdpnet_fdb_key);
	__type(value, struct xdpnet_fdb_val);
} fdb_static SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XDPNET_FE_MAX);
	__type(key, __u32);
	__type(value, __u64);
} fdb_ev SEC(".maps");

/* Carried ports by slot (slot 0 stays empty), and ifindex -> slot. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XDPNET_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct xdpnet_port);
} ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XDPNET_MAX_PORTS);
	__type(key, __u32);
	__type(value, __u32);
} port_idx SEC(".maps");

/* Ports' VLAN memberships. Only user space writes them and only the
 * stages read them: not preallocated, memory for the entries there are
 * (a bridge without VLAN filtering has none), not for the map's size. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, XDPNET_MAX_VLANS);
	__type(key, struct xdpnet_vlan_key);
	__type(value, struct xdpnet_vlan_val);
} vlans SEC(".maps");

/* XDP redirect targets (taps) by slot. The kernel removes a device that
 * goes away, so a vanished tap is never a target. */
struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, XDPNET_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct bpf_devmap_val);
} tx_ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XDPNET_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct xdpnet_stats);
} stats SEC(".maps");

/* The frame dump (xdpnet dump, bpf/xdpnet_dump.h): its switch and
 * counts, and the ring both stages copy frames into while it is on. */
struct xdpnet_dump_ctl xdpnet_dump SEC(".data.dump") = {};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, XDPNET_DUMP_RING);
} dump_rb SEC(".maps");

#ifdef XDPNET_LIVE
/* Live datapath (bpf/xdpnet_live.h): each carried port by slot, as its
 * frames last came in (include/xdpnet.h): written by the stages only, on
 * the ingress read; read by the egress read as untrusted memory. The
 * port's own line holds all the egress read needs of the bridge (the
 * port's device, bridge, flags and state), so the egress device's
 * receive-side lines stay out of it. */
struct xdpnet_kport xdpnet_kports[XDPNET_MAX_PORTS] SEC(".data.kdev");
#endif

#endif /* XDPNET_MAPS_H */
