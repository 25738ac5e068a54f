/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The datapath's copy of a bridge's FDB, as 'xdpnet fdb' shows it
 * (render/fdb.c writes it). */
#ifndef XN_OBSERVE_FDB_H
#define XN_OBSERVE_FDB_H

#include <net/if.h>
#include <linux/types.h>
#include "xdpnet.h"
#include "state/bridge.h"

struct xn_fdb_row {
	struct xdpnet_fdb_key key;
	struct xdpnet_fdb_val val;
	char port[IF_NAMESIZE]; /* "" when the ifindex is gone */
};

struct xn_fdb_view {
	struct xn_fdb_row *rows; /* static and learned, by port, MAC, VLAN */
	int n;
	__u32 now; /* the datapath's jiffies now, */
	__u32 hz;  /* and per second: the ages of the bridge's last sights */
};

/* Read the FDB copy of br (attached): 0, or a -errno (lib/log.h) after a
 * one-line error. Free v with xn_fdb_free. */
int xn_fdb_read(const struct xn_bridge *br, struct xn_fdb_view *v);
void xn_fdb_free(struct xn_fdb_view *v);

#endif
