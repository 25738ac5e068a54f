/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Every path and name derived from a bridge's name, and only here, once
 * per bridge (xn_paths_of, into its handle: state/bridge.h):
 *   pins      /sys/fs/bpf/xdpnet/BRIDGE[/LEAF]  (XDPNET_PIN_ROOT)
 *   port pins tc_IFINDEX, xdp_IFINDEX (the hooks' links)
 *   run files /run/xdpnet/BRIDGE.lock, .follow, .pid, .log, .dump
 *   the unit  xdpnet@BRIDGE.service (systemd-escaped)
 * and the one of libxdp's that xdpnet reads: a port's dispatcher,
 *   /sys/fs/bpf/xdp/dispatch-IFINDEX-PROGID
 * A bridge name is an interface name (xn_valid_ifname); every function
 * refuses any other, so no path leaves its directory.
 */
#ifndef XN_PATHS_H
#define XN_PATHS_H

#include <stddef.h>
#include <net/if.h>
#include <linux/types.h>

#define XDPNET_RUN_DIR "/run/xdpnet"

/* Bridge names are interface names: 1..15 chars, none of "/: \t\n\r\v\f",
 * not "." or "..". 1 if valid. */
int xn_valid_ifname(const char *name);

/* XDPNET_PIN_ROOT and XDPNET_RUN_DIR, unless xn_paths_set_root() moved
 * them (unit tests run under a scratch directory; NULL keeps one). */
const char *xn_pin_root(void);
const char *xn_run_dir(void);
void xn_paths_set_root(const char *pin_root, const char *run_dir);

/* The leaf of a port's hook link: "tc_IFINDEX" or "xdp_IFINDEX". */
enum xn_port_hook { XN_PORT_TC, XN_PORT_XDP };
int xn_port_leaf(char *buf, size_t len, enum xn_port_hook h, __u32 ifindex);

/* libxdp's pins (and its lock: flock of the directory) */
#define XN_LIBXDP_DIR "/sys/fs/bpf/xdp"
/* libxdp's pins of the dispatcher PROG_ID on IFINDEX (its programs are
 * progN-prog there). 0, or -1 (too long). */
int xn_libxdp_dispatch_dir(char *buf, size_t len, __u32 ifindex, __u32 prog_id);

/* The run files of a bridge: RUN_DIR "/" bridge "." suffix. */
enum xn_run_file {
	XN_RUN_LOCK,   /* BRIDGE.lock: every change to the datapath */
	XN_RUN_FOLLOW, /* BRIDGE.follow: the follower's lifetime lock */
	XN_RUN_PID,    /* BRIDGE.pid: the follower's pid */
	XN_RUN_LOG,    /* BRIDGE.log: the daemon follower's output */
	XN_RUN_DUMP,   /* BRIDGE.dump: held by a running xdpnet dump */
	XN_RUN_N,
};

/* Every path and name of a bridge, derived once (state/bridge.h keeps
 * them in the bridge's handle). */
#define XN_PATH_LEN 256
struct xn_paths {
	char pins[XN_PATH_LEN];		 /* PIN_ROOT "/" bridge */
	char run[XN_RUN_N][XN_PATH_LEN]; /* RUN_DIR "/" bridge ".lock", ... */
	/* The follower's systemd unit, "xdpnet@ESCAPED.service"
	 * (systemd-escape: '-' and anything unusual become \xNN). */
	char unit[128];
};

/* The paths of bridge name into p: 0, or -1 (not an interface name, or a
 * path too long). */
int xn_paths_of(const char *name, struct xn_paths *p);

/* The names under PIN_ROOT that can be bridges' directories (valid
 * interface names), in directory order; *names is malloc'ed (NULL and 0
 * when there is none). 0 or -ENOMEM. */
int xn_pin_dirs(char (**names)[IF_NAMESIZE], int *n);

#endif
