/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XN_UTIL_H
#define XN_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* Exit codes: documented in README.md and docs/xdpnet.8. */
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

extern int xn_verbose;

/* One line on stderr, prefixed "xdpnet: ". */
void xn_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Progress on stdout (suppressed by --json callers by passing quiet). */
void xn_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Only under -v. */
void xn_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Quiet mode: xn_info prints nothing (used with --json). */
void xn_set_quiet(int quiet);

/* Route libbpf's and libxdp's logs: warnings only under -v. */
void xn_setup_libbpf_logging(void);

/* Make sure bpffs is mounted at /sys/fs/bpf. Returns 0 or XN_EBPFFS. */
int xn_ensure_bpffs(void);

/* XDPNET_PIN_ROOT "/" bridge [ "/" leaf ]. Returns 0, or -1 if too long. */
int xn_pin_path(char *buf, size_t len, const char *bridge, const char *leaf);

/* Inode of this process's network namespace (pins are global, bridges are
 * not: state records whose it is). 0 if unknown. */
unsigned long long xn_netns_ino(void);

/* bpf_obj_get() of XDPNET_PIN_ROOT/bridge/leaf: an fd or a negative errno. */
int xn_pin_get(const char *bridge, const char *leaf);

/* Bridge names are interface names: 1..15 chars, no '/', not "." or "..". */
int xn_valid_ifname(const char *name);

#endif
