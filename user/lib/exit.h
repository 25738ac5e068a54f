/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Exit codes: documented in docs/xdpnet.8, EXIT STATUS, in the words of
 * `xdpnet help` (user/cmd/cli.c; scripts/check-docs compares them). */
#ifndef XN_EXIT_H
#define XN_EXIT_H

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

#endif
