/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Status of attached bridges as text or JSON ('xdpnet status'). Pure. */
#ifndef XN_OUT_STATUS_H
#define XN_OUT_STATUS_H

#include <stdio.h>
#include <net/if.h>
#include <linux/types.h>
#include "xdpnet.h"
#include "observe/flows.h"
#include "state/sizes.h"

struct xn_port_row {
	struct xdpnet_port port;
	char name[IF_NAMESIZE];
	__u32 tc_prog_id;
	__u32 xdp_prog_id;
	struct xdpnet_stats st; /* summed over CPUs */
};

struct xn_bridge_status {
	char name[IF_NAMESIZE];
	struct xdpnet_meta meta;
	struct xdpnet_cfg cfg;
	int follower;	       /* a follower runs ... */
	int follower_pid;      /* ... with this pid (0: unknown) */
	int fdb_entries;       /* learned entries copied from the bridge */
	int fdb_static;	       /* static and local entries */
	__u32 size[XN_SIZE_N]; /* room for them, and VLAN memberships */
	__u64 fdb_ev[XDPNET_FE_MAX];
	int nports;
	struct xn_port_row *ports;
	int note_set; /* redirect-error tracepoints are not attached */
	int gone;     /* the bridge was deleted: only pinned state is left */
	/* Why the XDP stage uses direct links, not libxdp's dispatcher, on
	 * this kernel ("": no port has one, or it is not known). */
	const char *xdp_link_why;
	struct xn_flows flows; /* the decision cache (per_cpu 0: none) */
};

/* Text status lists every non-zero counter when set (default). */
extern int xn_verbose_counters;

void xn_print_status(FILE *f, const struct xn_bridge_status *b, int n,
		     int json);

#endif
