/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What 'xdpnet status' shows of an attached bridge: its settings, ports,
 * hooks and counters, read from the pinned state (render/status.c writes
 * it). */
#ifndef XN_OBSERVE_STATUS_H
#define XN_OBSERVE_STATUS_H

#include <net/if.h>
#include <linux/types.h>
#include "xdpnet.h"
#include "state/bridge.h"
#include "state/sizes.h"
#include "observe/flows.h"

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
	struct xn_port_row *ports; /* by name */
	int note_set; /* redirect-error tracepoints are not attached */
	int gone;     /* the bridge was deleted: only pinned state is left */
	/* Why the XDP stage uses direct links, not libxdp's dispatcher, on
	 * this kernel ("": no port has one, or it is not known). */
	const char *xdp_link_why;
	struct xn_flows flows; /* the decision cache (per_cpu 0: none) */
};

/* The status of br (looked up), or with br NULL of every bridge of this
 * namespace xdpnet is attached to (other namespaces' bridges and other
 * versions' state are not ours to show; a latency probe's pins are named,
 * unless quiet). *out (free with xn_status_free) holds *n. 0, or an exit
 * code after a one-line error (br not attached, say). */
int xn_status_read(const struct xn_bridge *br, int quiet,
		   struct xn_bridge_status **out, int *n);
void xn_status_free(struct xn_bridge_status *s, int n);

#endif
