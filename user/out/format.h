/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Text and JSON output of the FDB, ports and counters. Pure functions. */
#ifndef XN_FORMAT_H
#define XN_FORMAT_H

#include <stdio.h>
#include <linux/types.h>
#include <net/if.h>
#include "xdpnet.h"

/* Stable names of enum xdpnet_ctr ("xdp_redirect", ...); NULL if out of
 * range. Used in JSON, text and (later) Prometheus output. */
const char *xn_ctr_name(unsigned int ctr);
/* -1 if unknown. */
int xn_ctr_from_name(const char *name);

void xn_format_mac(const __u8 *mac, char buf[18]);
int xn_parse_mac(const char *s, __u8 mac[6]); /* 0 or -1 */

/* Sum a per-CPU array of ncpu values into out. */
void xn_sum_stats(const struct xdpnet_stats *percpu, int ncpu,
		  struct xdpnet_stats *out);

const char *xn_mode_name(__u32 mode);	    /* "tc", "xdp", "?" */
const char *xn_tc_reason_text(__u8 reason); /* human text */
const char *xn_hook_name(__u8 hook);	    /* "tcx", "clsact", "?" */
const char *xn_hold_text(__u32 hold);	    /* why not bypassed, "" */
const char *xn_hold_name(__u32 hold);	    /* "state", "down", ..., "" */
/* Why a bridge bypasses nothing: "off: hub mode (ageing_time 0)", ... */
const char *xn_bridge_hold_text(__u32 hold);
const char *xn_bridge_hold_name(__u32 hold); /* "hub", "mst", ... "" */

struct xn_fdb_row {
	struct xdpnet_fdb_key key;
	struct xdpnet_fdb_val val;
	char port[IF_NAMESIZE]; /* "" when the ifindex is gone */
};

/* Rows of the FDB copy: learned entries (no flag) first need no label. */

/* now_j: the datapath's jiffies now, hz: per second (ages of the bridge's
 * last sight of each MAC). Rows are printed in the given order. */
void xn_print_fdb(FILE *f, const char *bridge, const struct xn_fdb_row *rows,
		  int n, __u32 now_j, __u32 hz, int json);

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
	int follower;	  /* a follower runs ... */
	int follower_pid; /* ... with this pid (0: unknown) */
	int fdb_entries;  /* learned entries copied from the bridge */
	int fdb_static;	  /* static and local entries */
	__u64 fdb_ev[XDPNET_FE_MAX];
	int nports;
	struct xn_port_row *ports;
	int note_set; /* redirect-error tracepoints are not attached */
	int gone;     /* the bridge was deleted: only pinned state is left */
};

/* Text status lists every non-zero counter when set (default). */
extern int xn_verbose_counters;

void xn_print_status(FILE *f, const struct xn_bridge_status *b, int n,
		     int json);

/* Minimal JSON string writer: quotes and escapes s. */
void xn_json_str(FILE *f, const char *s);

#endif
