/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the follower hears (sync/follower.c): the kernel's link, neighbour
 * (the bridge FDB), tc and bridge VLAN notifications batched, nftables'
 * changes, and br_netfilter's switches, which raise no event and are read.
 */
#ifndef XN_FOLLOW_EVENTS_H
#define XN_FOLLOW_EVENTS_H

#include <linux/types.h>
#include <linux/netlink.h>
#include "lib/nl.h"

#define XN_MAX_BATCH 256

/* The changes of one wake-up, for one bridge. */
struct xn_batch {
	__u32 bridge;
	int port_idx; /* the datapath's ifindex -> slot map */
	int newcomer; /* a port of the bridge not carried yet */
	int tc;	      /* a qdisc or tc filter changed: read the filters */
	int full;     /* reconcile everything */
	int gone;     /* the bridge was deleted */
	int orphan;   /* ... or its network namespace, under us */
	int n;	      /* links to reconcile */
	__u32 link[XN_MAX_BATCH];
	int nfdb;
	int fdb_budget; /* entries the in-kernel mirror missed: ask for */
	struct {
		struct xn_fdb_entry e;
		int deleted;
	} fdb[XN_MAX_BATCH];
};

/* One notification into the batch arg (lib/nl.h's xn_events_read). */
int xn_batch_event(const struct nlmsghdr *nlh, void *arg);

/* nftables change notifications: an fd to poll, or -1. */
int xn_nft_events_open(void);
/* Read what is there: 1 when anything (or a loss) was. */
int xn_nft_events_drain(int fd);

/*
 * br_netfilter's switches: loading the module (Docker does, with FORWARD
 * set to DROP) and writing its bridge-nf-call-* sysctls raise no event
 * the follower hears, and bridged frames meet the IP hooks from then on.
 * Read every XN_NF_CHECK_S; a change re-reads the filters. A bit per
 * sysctl set, and one for the module's absence (1 << 31).
 */
#define XN_NF_CHECK_S 0.25
unsigned int xn_nf_switches(void);
/* What bridged frames meet now, as bits: the IP hooks by
 * bridge-nf-call-* (br_netfilter loaded) or by one of the bridge's own
 * nf_call_* (br read by its ifindex), and what the filter-*-tagged
 * sysctls add to them. */
unsigned int xn_nf_on_now(const struct xn_link *br);

#endif
