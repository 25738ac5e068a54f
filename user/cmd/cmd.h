/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The commands (user/cmd/VERB.c, one file each): each one's options
 * struct and its definition (its table of options, what runs it), which
 * the dispatch table (cmd/table.c) lists. Each runs as parse, open the
 * bridge, one call into sync/ or observe/, render, and returns 0 or a
 * negative errno. No file includes another command. */
#ifndef XN_CMD_H
#define XN_CMD_H

#include <linux/types.h>
#include "lib/frame.h"
#include "state/sizes.h"
#include "cmd/cli.h"

/* attach BRIDGE */
struct xn_attach_args {
	struct xn_opts c;
	unsigned int mode;     /* enum xdpnet_mode; 0 = not given (keep, tc) */
	int follow;	       /* --follow: the follower in the foreground */
	int no_follow;	       /* --no-follow: no follower */
	int bypass_filters;    /* --bypass-filters */
	int strict;	       /* --strict: accepted, no effect */
	__u32 size[XN_SIZE_N]; /* --fdb-size ...; 0: not given */
};

/* stats BRIDGE */
struct xn_stats_args {
	struct xn_opts c;
	double interval; /* --interval SEC; 0: one snapshot */
	int count;	 /* --count N samples; 0: until interrupted */
	int latency;	 /* --latency: forwarding-latency histograms */
	int reset;	 /* --reset: zero the counters and histograms */
	int prom;	 /* --prom: Prometheus text format */
	int lat_pairs;	 /* --latency-pairs: latency per port pair */
};

/* exporter [BRIDGE] */
struct xn_exporter_args {
	struct xn_opts c;
	const char *listen; /* --listen ADDR:PORT; NULL: the default */
	int lat_pairs;	    /* --latency-pairs */
};

/* dump BRIDGE */
struct xn_dump_args {
	struct xn_opts c;
	const char *port;     /* --port PORT */
	unsigned int paths;   /* --path: enum xdpnet_dump_path mask (0: all) */
	int count;	      /* --count N */
	unsigned int snaplen; /* --snaplen (0: XDPNET_DUMP_MAX) */
	const char *write;    /* --write FILE ("-" or NULL: stdout) */
};

/* trace BRIDGE */
struct xn_trace_args {
	struct xn_opts c;
	const char *in;		    /* --in PORT (NULL: the capture's) */
	struct xn_frame_spec frame; /* --src, --dst, --vlan, --len, ... */
	unsigned int family;	/* --saddr, --daddr: 1 IPv4, 2 IPv6, 3 both */
	const char *pcap;	/* --pcap FILE */
	unsigned long frame_no; /* --frame N (default 1) */
};

/* follow, detach, status, fdb, latency, help and version take the common
 * options alone (struct xn_opts). */
extern const struct xn_cmd_def xn_cmd_attach, xn_cmd_follow, xn_cmd_detach,
	xn_cmd_status, xn_cmd_fdb, xn_cmd_stats, xn_cmd_latency,
	xn_cmd_exporter, xn_cmd_dump, xn_cmd_trace;

/* The bridge a command names, opened (state/bridge.h; lookup: looked up
 * by its name, the command's one lookup): 0, or -errno after a one-line
 * error. */
struct xn_bridge;
int xn_cmd_bridge(struct xn_bridge *br, const char *name, int lookup);

/* Run the command cli names (help and version included): its exit code.
 * Under --json a failure is {"error": "its one-line error"} on stdout. */
int xn_cmd_run(const struct xn_cli *cli);
/* The exit code of a command's 0 or -errno (lib/log.h). */
int xn_exit_code(int err);
/* {"error": msg} on stdout (a failure under --json). */
void xn_json_error(const char *msg);
/* `git describe --always --dirty` at build time, or "unknown". */
const char *xn_git_desc(void);

#endif
