/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Messages: errors and debug on stderr, progress on stdout; libbpf's and
 * libxdp's own logs routed through -v. */
#ifndef XN_LOG_H
#define XN_LOG_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

extern int xn_verbose;

/*
 * After its one-line error (xn_err), a function below cmd/ returns a
 * negative errno: one of these says why, and has an exit code of its own
 * (cmd/table.c maps them, the only place that knows exit codes); any
 * other errno is a plain failure.
 */
#define XN_FAILED EIO		/* failed (and what it changed rolled back) */
#define XN_BAD_INPUT EINVAL	/* what was asked cannot be done */
#define XN_NO_BRIDGE ENODEV	/* no such device, or not a bridge */
#define XN_NOT_PERMITTED EPERM	/* not root, missing capabilities */
#define XN_BPF_REFUSED ENOEXEC	/* the kernel refused our programs, maps */
#define XN_NO_BPFFS ENOMEDIUM	/* bpffs not mounted, and cannot be */
#define XN_NOT_ATTACHED ENOLINK /* xdpnet is not attached to the bridge */
#define XN_BUSY EBUSY		/* a follower runs, or the lock is held */
#define XN_FILTERED ECANCELED	/* filters apply between ports */

/* One line on stderr, prefixed "xdpnet: ". */
void xn_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The last of those lines (without "xdpnet: "; "" before the first):
 * what a command that failed says under --json (cmd/table.c). */
const char *xn_err_last(void);
/* Progress on stdout (suppressed by --json callers by passing quiet). */
void xn_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Only under -v. */
void xn_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Quiet mode: xn_info prints nothing (used with --json). */
void xn_set_quiet(int quiet);

/* Route libbpf's and libxdp's logs: warnings only under -v. */
void xn_setup_libbpf_logging(void);

#endif
