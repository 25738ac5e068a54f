/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Reconcile: make the datapath's maps and hooks match the bridge model
 * (what netlink says about the bridge, its ports, VLANs and FDB).
 *
 * Everything here converges and is idempotent: it compares what the maps
 * and hooks hold with what they should hold and changes only the
 * difference, in an order that keeps every frame either bypassed correctly
 * or bridged (map entries before hooks on the way in, hooks before map
 * entries on the way out). A follower killed at any moment is finished by
 * the next reconcile.
 */
#ifndef XN_RECONCILE_H
#define XN_RECONCILE_H

#include "xdpnet.h"
#include "lib/nl.h"
#include "core/pins.h"

struct xn_filt_report;

/* What user space adds to the bridge's own view. */
struct xn_policy {
	/* Bypass nothing (enum xdpnet_bridge_hold: filters apply between
	 * ports, or could not be read, and attach was not given
	 * --bypass-filters). */
	int bridge_hold;
	/* Ports under per-port filters (nwfilter, ebtables, ...). */
	const __u32 *filtered;
	int nfiltered;
	/* The filter analysis behind it (user/policy.c's), or NULL. */
	struct xn_filt_report *report;
};

struct xn_sync {
	int added, removed, changed, total, held;
	int fdb_seeded, fdb_dropped, static_entries;
	__u32 added_ifindex[XDPNET_MAX_PORTS]; /* the ports this run added */
};

enum xn_reconcile_flags {
	XN_RC_QUIET = 1 << 0,  /* log nothing */
	XN_RC_NO_ADD = 1 << 1, /* converge the ports there are, add none */
};

/*
 * The datapath entry a port of bridge br should have (pure: no system
 * calls; hook-related fields are left zero). Returns 1 when xdpnet carries
 * the port (a tap or veth of this bridge), 0 when it leaves it to the
 * bridge.
 */
int xn_port_want(const struct xn_link *br, const struct xn_link *l,
		 const struct xn_policy *pol, struct xdpnet_port *out);

/* The bridge settings for the datapath (port_gen, hz, lat_on and br_addr
 * kept from cur; hz must be set there). */
void xn_cfg_want(const struct xn_link *br, const struct xn_policy *pol,
		 const struct xdpnet_cfg *cur, struct xdpnet_cfg *out);

/* Everything: bridge settings, every port (added, changed, removed),
 * VLANs, static and local FDB entries, missing learned ones. Refreshes
 * *br from the kernel first. flags: enum xn_reconcile_flags. */
int xn_reconcile(struct xn_state *s, struct xn_link *br,
		 const struct xn_policy *pol, struct xn_sync *r, int flags);

/* Undo an attach that failed half-way on an attached bridge: the ports it
 * added go again, and the others converge to s->meta (which the caller
 * has set back). */
void xn_reconcile_undo(struct xn_state *s, struct xn_link *br,
		       const struct xn_policy *pol, const struct xn_sync *r);

/* One link changed (or vanished): the bridge itself or one of its ports,
 * present or former. */
int xn_reconcile_link(struct xn_state *s, struct xn_link *br, __u32 ifindex,
		      const struct xn_policy *pol, struct xn_sync *r);

/* One entry of the bridge's FDB changed (RTM_NEWNEIGH / RTM_DELNEIGH).
 * Where the in-kernel mirror misses a learned entry, asking the bridge
 * costs a netlink round trip: *budget says how many more may be spent
 * (a flood of learned MACs is left to xn_fdb_repair). Returns 1 when it
 * changed a map, 0, -errno. */
int xn_reconcile_fdb_entry(struct xn_state *s, const struct xn_link *br,
			   const struct xn_fdb_entry *e, int deleted,
			   int *budget);

/* Copy the bridge's learned entries the datapath misses (after its map
 * was full, or when nothing mirrors them in-kernel), and drop copies the
 * bridge no longer has. */
int xn_fdb_repair(struct xn_state *s, const struct xn_link *br,
		  struct xn_sync *r);

/* Take every port out of the datapath (hooks first); detach's first step. */
void xn_reconcile_clear(struct xn_state *s);

#endif
