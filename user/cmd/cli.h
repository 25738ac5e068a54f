/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Command line: a table of commands, each with the table of its options,
 * which drives both the parser and the help (xdp-tools style). */
#ifndef XN_CLI_H
#define XN_CLI_H

#include <stddef.h>
#include <stdio.h>
#include "lib/frame.h"
#include "state/sizes.h"

/* Exit codes: documented in docs/xdpnet.8, EXIT STATUS, in the words of
 * `xdpnet help` (scripts/check-docs compares them). The commands return
 * 0 or a negative errno (lib/log.h says which have a code of their own):
 * xn_cmd_run maps them, the parser's usage errors are XN_EUSAGE. */
enum xn_exit {
	XN_OK = 0,
	XN_ERR = 1,	     /* runtime failure (rolled back) */
	XN_EUSAGE = 2,	     /* bad command line */
	XN_ENOBRIDGE = 3,    /* no such device, or not a bridge */
	XN_EPERM = 4,	     /* not root / missing capabilities */
	XN_ENOBPF = 5,	     /* the kernel refused our BPF programs or maps */
	XN_EBPFFS = 6,	     /* bpffs not mounted and cannot be mounted */
	XN_ENOTATTACHED = 7, /* xdpnet is not attached to that bridge */
	XN_EBUSY = 8,	     /* a follower already runs, or the lock is held */
	XN_EFILTER = 9, /* filters apply between ports (--bypass-filters) */
};

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
	const char *cmd_name; /* its name, for the usage errors' prefix */
	const char *bridge;   /* NULL: all (status only) */
	unsigned int mode; /* enum xdpnet_mode; 0 = not given (keep, or tc) */
	int json;	   /* -j/--json; also set by -p/--pretty */
	int pretty;	   /* -p/--pretty: indented JSON (bpftool's -p) */
	int verbose;
	const char *topic; /* help: the command whose help (NULL: all) */
	int follow;	   /* attach --follow: the follower in the foreground */
	int no_follow;	   /* attach --no-follow: no follower */
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

/* An option of a command: its long name (kept as it was in every
 * release), its short letter (0: none; a letter means one option in every
 * command, tests/unit/test_cli.c walks the tables), the name of its value
 * (NULL: a flag) and what it does in one line. */
struct xn_opt {
	const char *name;
	char letter;
	const char *arg;
	int id; /* what the parser does with it (cli.c's OPT_*) */
	const char *help;
};

/* A command: its name, its operands as its synopsis shows them, one line
 * of what it does, and its options (up to one with a NULL name). */
struct xn_cmd_def {
	const char *name;
	enum xn_cmd cmd;
	int bridge;  /* 1: BRIDGE required, 2: optional, 0: none */
	int operand; /* one more word after BRIDGE (or instead: help's) */
	const char *args;
	const char *help;
	const struct xn_opt *opts;
};

extern const struct xn_cmd_def xn_cmds[];
extern const unsigned int xn_ncmds;
/* -v, -h and -V: options of every command. */
extern const struct xn_opt xn_global_opts[];

/* Returns 0, or XN_EUSAGE with a one-line message in err; o->cmd_name is
 * then the command the line names, if it got that far. */
int xn_parse_args(int argc, char **argv, struct xn_opts *o, char *err,
		  size_t errlen);
/* The overview: the commands, one line each, and the global options. */
void xn_usage(FILE *f);
/* One command's usage: its synopsis and its options, one line each; -1
 * when there is no command of that name. */
int xn_cmd_usage(FILE *f, const char *name);
/* The command of that name, or NULL. */
const struct xn_cmd_def *xn_cmd_find(const char *name);

#endif
