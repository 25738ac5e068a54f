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
#include "state/pins.h"
#include "sync/desired.h"
#include "sync/fdb_copy.h"

struct xn_sync {
	int added, removed, changed, total, held;
	struct xn_fdb_sync fdb;		       /* what the FDB copy did */
	__u32 added_ifindex[XDPNET_MAX_PORTS]; /* the ports this run added */
};

enum xn_reconcile_flags {
	XN_RC_QUIET = 1 << 0,  /* log nothing */
	XN_RC_NO_ADD = 1 << 1, /* converge the ports there are, add none */
};

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

/* Take every port out of the datapath (hooks first); detach's first step. */
void xn_reconcile_clear(struct xn_state *s);

#endif
