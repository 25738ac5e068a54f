/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Command line: a table of commands and options, parsed into xn_opts. */
#ifndef XN_CLI_H
#define XN_CLI_H

#include <stddef.h>
#include <stdio.h>
#include "lib/frame.h"
#include "core/sizes.h"

enum xn_cmd {
	XN_CMD_NONE,
	XN_CMD_ATTACH,
	XN_CMD_DETACH,
	XN_CMD_STATUS,
	XN_CMD_FDB,
	XN_CMD_HELP,
	XN_CMD_VERSION,
	XN_CMD_STATS,
	XN_CMD_LATENCY,
	XN_CMD_EXPORTER,
	XN_CMD_FOLLOW,
	XN_CMD_DUMP,
	XN_CMD_TRACE,
};

struct xn_opts {
	enum xn_cmd cmd;
	const char *bridge; /* NULL: all (status only) */
	unsigned int mode;  /* enum xdpnet_mode; 0 = not given (keep, or tc) */
	int json;
	int verbose;
	int follow;    /* attach --follow: the follower in the foreground */
	int no_follow; /* attach --no-follow: no follower */
	int bypass_filters;    /* attach --bypass-filters */
	int strict;	       /* attach --strict: accepted, no effect */
	__u32 size[XN_SIZE_N]; /* attach --fdb-size ...; 0: not given */
	/* stats */
	double interval;    /* --interval SEC; 0: one snapshot */
	int count;	    /* --count N samples; 0: until interrupted */
	int latency;	    /* --latency: forwarding-latency histograms */
	int reset;	    /* --reset: zero the counters and histograms */
	int prom;	    /* --prom: Prometheus text format */
	int lat_pairs;	    /* --latency-pairs: latency per port pair */
	const char *listen; /* exporter --listen ADDR:PORT; NULL: default */
	/* dump */
	const char *port;     /* --port PORT */
	unsigned int paths;   /* --path: enum xdpnet_dump_path mask (0: all) */
	unsigned int snaplen; /* --snaplen (0: XDPNET_DUMP_MAX) */
	const char *write;    /* --write FILE ("-" or NULL: stdout) */
	const char *arg;      /* latency: "on" / "off"; NULL: show the state */
	/* trace */
	const char *in;		    /* --in PORT (NULL: the pcapng's) */
	struct xn_frame_spec frame; /* --src, --dst, --vlan, --len, ... */
	unsigned int frame_set;	    /* which of them: 1 << (OPT_* - OPT_SRC) */
	const char *pcap;	    /* --pcap FILE */
	unsigned long frame_no;	    /* --frame N (default 1) */
};

/* Returns 0, or XN_EUSAGE with a one-line message in err. */
int xn_parse_args(int argc, char **argv, struct xn_opts *o, char *err,
		  size_t errlen);
void xn_usage(FILE *f);

#endif
