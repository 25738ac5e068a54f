/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Attaching to a bridge (the work of 'xdpnet attach' under the lock). */
#ifndef XN_ATTACH_H
#define XN_ATTACH_H

#include <linux/types.h>
#include "state/bridge.h"
#include "datapath/load.h"
#include "sync/reconcile.h"

/* What the command line asks of attach. */
struct xn_attach_req {
	__u32 mode;	    /* enum xdpnet_mode; 0: keep (or tc) */
	int bypass_filters; /* --bypass-filters */
	int no_follow;	    /* --no-follow */
	int follow;	    /* --follow */
};

/* Everything under the bridge's lock: what is pinned under its name
 * (refused unless ours or nothing), load or upgrade, reconcile, meta;
 * rolled back on failure. Options of an earlier attach stay unless rq
 * changes them. 0 or an exit code after a one-line error; *ld and *r say
 * what was done. */
int xn_attach_locked(const struct xn_attach_req *rq,
		     const struct xn_bridge *bridge, struct xn_load *ld,
		     struct xn_sync *r);

#endif
