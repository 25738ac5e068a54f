/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Messages: errors and debug on stderr, progress on stdout; libbpf's and
 * libxdp's own logs routed through -v. */
#ifndef XN_LOG_H
#define XN_LOG_H

#include <stdarg.h>
#include <stdio.h>

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

#endif
