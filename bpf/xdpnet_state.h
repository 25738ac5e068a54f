/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Reading and changing the datapath's state (xdpnet_maps.h): the
 * generation decisions rest on, the counters, the carried ports and where
 * an FDB entry's port is.
 */
#ifndef XDPNET_STATE_H
#define XDPNET_STATE_H

#include "xdpnet_maps.h"

/* Bump the generation: after a change, never before it. */
static __always_inline void xdpnet_gen_bump(void)
{
	__sync_fetch_and_add(&xdpnet_rt.gen, 1);
}

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

#endif /* XDPNET_STATE_H */
