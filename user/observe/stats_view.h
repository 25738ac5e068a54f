/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xdpnet stats' model: samples of a bridge's per-port counters (the
 * devices' own and xdpnet's), and the view of one sample against the one
 * before (rates, paths, shares) that the renderers (render/stats.h) take.
 * Pure functions; sampling is observe/stats_collect.c's.
 */
#ifndef XN_STATS_VIEW_H
#define XN_STATS_VIEW_H

#include <stdio.h>
#include <linux/types.h>
#include <net/if.h>
#include "xdpnet.h"
#include "lib/nl.h"
#include "observe/histogram.h"

#define XN_STATS_SCHEMA "xdpnet-stats/1"

/* One port of the bridge in a sample. */
struct xn_stats_port {
	__u32 ifindex;
	char name[IF_NAMESIZE];
	char kind[16]; /* IFLA_INFO_KIND: "tun", "veth", "" (physical) */
	int attached;  /* the datapath carries it */
	int xdp;       /* ... and the XDP stage runs on it */
	struct xn_link_stats dev; /* the device's own counters */
	struct xdpnet_stats ctr;  /* xdpnet's, summed over CPUs (0: none) */
};

struct xn_stats_sample {
	char bridge[IF_NAMESIZE];
	__u32 bridge_ifindex;
	__u64 mono_ns; /* CLOCK_MONOTONIC when taken */
	double wall;   /* seconds since the epoch */
	int attached;
	__u32 mode;	  /* enum xdpnet_mode when attached */
	int latency_on;	  /* the probe's links are in place */
	int latency_maps; /* histograms exist (the probe ran at some time) */
	/* the datapath's health (attached only) */
	int follower;	     /* a follower runs */
	int follower_wanted; /* attached without --no-follow */
	int bypass;	     /* the bypass is on (not off, not held) */
	__u32 hold;	     /* why it is held (XDPNET_BHOLD_*) */
	int fdb_entries;     /* learned entries in the FDB copy */
	__u64 fdb_max;	     /* ... of at most this many */
	__u64 fdb_full;	     /* MACs the copy had no room for, so far */
	int nports;
	struct xn_stats_port *ports; /* sorted by name */
	int nlat;
	struct xn_lat_row *lat; /* sorted by in, out, path */
};

/* How frames that arrived on a port left it (xdpnet's verdicts). */
enum xn_path {
	XN_PATH_XDP,	      /* bypass, XDP redirect */
	XN_PATH_TC,	      /* bypass, TC redirect */
	XN_PATH_BRIDGE,	      /* handed to the bridge (all pass_* reasons) */
	XN_PATH_REDIRECT_ERR, /* a redirect failed */
	XN_PATH_XMIT_DROP,    /* XDP frames the target could not take */
	XN_PATH_MAX,
};

const char *xn_path_name(unsigned int path); /* "xdp", "tc", ... */

struct xn_flow {
	__u64 packets;
	__u64 bytes;
	double pps; /* over the interval, when rated */
	double bps; /* bits per second */
	int rated;  /* 0: first sample, or the port is new */
};

struct xn_port_view {
	const struct xn_stats_port *p; /* NULL for the total */
	int is_new;		       /* not in the previous sample */
	struct xn_flow rx;	       /* device: from the VM into the host */
	struct xn_flow tx;	       /* device: from the host to the VM */
	__u64 rx_dropped;
	__u64 tx_dropped;
	struct xn_flow path[XN_PATH_MAX];
	struct xn_flow bypass_in; /* bypassed frames delivered to the port */
	struct xn_flow ctr[XDPNET_C_MAX];
	double share;	 /* fast-path share since reset; < 0: undefined */
	double share_iv; /* ... over the interval; < 0: undefined */
};

struct xn_stats_view {
	double interval_s; /* 0: no previous sample, no rates */
	int nports;
	struct xn_port_view *ports; /* cur's ports, same order */
	struct xn_port_view total;  /* over cur's ports */
	int gone;		    /* ports of prev that cur lacks */
};

/* Increase of a counter between two readings: a 64-bit wrap when prev was
 * within 2^48 of the top, a 32-bit wrap when both fit in 32 bits and prev
 * was above 2^31, otherwise (cur < prev) a reset to zero, so cur. */
__u64 xn_ctr_delta(__u64 prev, __u64 cur);

/* Rates of cur against prev (NULL: none). Ports are matched by ifindex and
 * name. 0 or -ENOMEM; free with xn_stats_view_free(). */
int xn_stats_view(const struct xn_stats_sample *prev,
		  const struct xn_stats_sample *cur, struct xn_stats_view *v);
void xn_stats_view_free(struct xn_stats_view *v);
/* Frames that arrived on a port, by path (packets and bytes). */
void xn_port_paths(const struct xn_stats_port *p, __u64 pk[XN_PATH_MAX],
		   __u64 by[XN_PATH_MAX]);
/* Unicast between two attached ports: what was bypassed, and what could
 * have been. */
void xn_port_share(const struct xn_stats_port *p, __u64 *bypass,
		   __u64 *eligible);
/* "tap", "veth", "physical", ...; "xdp", "tc" or "bridge". */
const char *xn_port_kind(const struct xn_stats_port *p);
const char *xn_port_stage(const struct xn_stats_port *p);

#endif
