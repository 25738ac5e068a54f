/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The datapath's copy of the bridge's FDB: learned entries (mirrored in
 * the kernel by the tracepoints where they attach, by the follower
 * otherwise), static and local ones. Converges like reconcile.
 */
#ifndef XN_FDB_COPY_H
#define XN_FDB_COPY_H

#include "lib/nl.h"
#include "state/pins.h"

/* What a repair did. */
struct xn_fdb_sync {
	int seeded, dropped, static_entries;
};

/* One entry of the bridge's FDB changed (RTM_NEWNEIGH / RTM_DELNEIGH).
 * Where the in-kernel mirror misses a learned entry, asking the bridge
 * costs a netlink round trip: *budget says how many more may be spent
 * (a flood of learned MACs is left to xn_fdb_repair; *budget is -1 when
 * a copy on another port than the notification's was left to it).
 * Returns 1 when it changed a map, 0, -errno. */
int xn_reconcile_fdb_entry(struct xn_state *s, const struct xn_link *br,
			   const struct xn_fdb_entry *e, int deleted,
			   int *budget);

/* Copy the bridge's learned entries the datapath misses (after its map
 * was full, or when nothing mirrors them in-kernel), put copies on
 * another port than the bridge's where the bridge has them now, and drop
 * copies the bridge no longer has. */
int xn_fdb_repair(struct xn_state *s, const struct xn_link *br,
		  struct xn_fdb_sync *r);

#endif
