/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The follower (xdpnet follow BRIDGE): keeps the datapath in step with the
 * bridge. Starting and stopping it is sync/daemon.c's. */
#ifndef XN_FOLLOWER_H
#define XN_FOLLOWER_H

#include <linux/types.h>
#include "state/bridge.h"
#include "state/pins.h"
#include "sync/desired.h"

struct xn_batch;

struct xn_follower {
	const struct xn_bridge *bridge;
	struct xn_link link; /* the bridge as the follower models it */
	struct xn_state s;
	struct xn_policy pol;
	struct xn_batch *b;
	int ev, nft; /* netlink and nftables notifications (-1: none) */
	int flk;     /* the follower's lifetime lock (state/lock.h) */
	int gone;    /* the bridge was deleted: everything of it removed, */
	int lk;	     /* ... and this bridge lock still held */
	/* The checks that raise no event, on their clocks. */
	double next_backstop, next_fdb_check, next_tcx_check;
	double next_nf_check, next_ns_check;
	unsigned int nf_seen, nf_on; /* br_netfilter's switches */
	__u64 full_seen, tcx_seen;   /* the FDB copy's overflows, tcx */
	int fdb_recheck;
};

/* Start: the follower's lock, the notifications, then under the bridge's
 * lock the pinned state opened (or taken over from another build) and
 * everything reconciled. 0: ready to loop, or done already (gone: the
 * bridge was deleted meanwhile, everything of it removed); else an exit
 * code after a one-line error. xn_follower_teardown in every case. */
int xn_follower_setup(struct xn_follower *f, const struct xn_bridge *bridge);
/* Follow until a signal, until the bridge is deleted (everything of it
 * removed), detached or taken over by another build. Its -errno (lib/log.h), or
 * 0. */
int xn_follower_loop(struct xn_follower *f);
/* Let go of everything setup and the loop took, whatever they got to. */
void xn_follower_teardown(struct xn_follower *f);

/* All three: the follower for bridge (looked up) in the foreground.
 * Returns 0 or -errno (lib/log.h). */
int xn_follow_run(const struct xn_bridge *bridge);

#endif
