/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Attaching to a bridge (the work of 'xdpnet attach' under the lock). */
#ifndef XN_ATTACH_H
#define XN_ATTACH_H

#include <linux/types.h>
#include "state/bridge.h"
#include "state/sizes.h"

/* What the command line asks of attach. */
struct xn_attach_req {
	__u32 mode;	       /* enum xdpnet_mode; 0: keep (or tc) */
	int bypass_filters;    /* --bypass-filters */
	int no_follow;	       /* --no-follow */
	int follow;	       /* --follow */
	__u32 size[XN_SIZE_N]; /* --fdb-size ...; 0: as pinned */
};

/* Attach to br (looked up, checked), under its lock: what is pinned under
 * its name (refused unless ours or nothing), load or upgrade, reconcile,
 * meta, rolled back on failure; a line saying what was done; then the
 * follower: run here (follow), started (a systemd unit or a daemon), or
 * none (no_follow). 0 or a -errno (lib/log.h) after a one-line error. */
int xn_attach_bridge(const struct xn_bridge *br,
		     const struct xn_attach_req *rq);

#endif
