/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The datapath's state: one set per bridge, pinned under
 * /sys/fs/bpf/xdpnet/BRIDGE/ (user/pins.c). The types are in
 * include/xdpnet.h.
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

/* Bump the generation: after a change, never before it. */
static __always_inline void xdpnet_gen_bump(void)
{
	__sync_fetch_and_add(&xdpnet_rt.gen, 1);
}

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

static __always_inline void xdpnet_count(__u32 slot, __u32 ctr, __u32 len)
{
	struct xdpnet_stats *s;

#ifdef XN_PERF_NOSTATS /* performance experiments only */
	return;
#endif
	s = bpf_map_lookup_elem(&stats, &slot);
	/* (ctr may come from a map, the decision cache: checked where the
	 * verifier sees it.) */
	barrier_var(ctr);
	if (!s || ctr >= XDPNET_C_MAX)
		return;
	s->c[ctr].packets++;
	s->c[ctr].bytes += len;
}

/* Every change to the FDB copy ends here: count it, and bump the
 * generation. */
static __always_inline void xdpnet_fdb_event(__u32 ev)
{
	__u64 *n = bpf_map_lookup_elem(&fdb_ev, &ev);

	xdpnet_gen_bump();
	if (n)
		(*n)++;
}

/* The carried port with this ifindex: its entry, and its slot in *slot. */
static __always_inline struct xdpnet_port *port_by_ifindex(__u32 ifindex,
							   __u32 *slot)
{
	struct xdpnet_port *p;
	__u32 *s;

	s = bpf_map_lookup_elem(&port_idx, &ifindex);
	if (!s)
		return NULL;
	p = bpf_map_lookup_elem(&ports, s);
	if (!p || p->ifindex != ifindex)
		return NULL;
	*slot = *s;
	return p;
}

/* Where the port of an FDB entry is, now: fills v->slot (0 when the port
 * is not carried) as of the current port generation. */
static __always_inline void fdb_resolve(struct xdpnet_fdb_val *v)
{
	__u32 slot = 0;

	if (!port_by_ifindex(v->ifindex, &slot))
		slot = 0;
	v->slot = slot;
	v->gen = xdpnet_cfg.port_gen;
}

#endif /* XDPNET_MAPS_H */
