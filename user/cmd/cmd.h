/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The commands (user/cmd_*.c). Each returns an enum xn_exit code. */
#ifndef XN_CMD_H
#define XN_CMD_H

#include "cmd/cli.h"
#include "lib/nl.h"

int xn_attach(const struct xn_opts *o);
int xn_follow(const struct xn_opts *o);
int xn_detach(const struct xn_opts *o);
int xn_status(const struct xn_opts *o);
int xn_fdb(const struct xn_opts *o);

/* Shared preamble: root, bpffs. 0 or an exit code after a one-line error. */
int xn_cmd_prepare(void);
/* Look BRIDGE up: 0, or an exit code after a one-line error (no such
 * device, not a bridge). */
int xn_find_bridge(const char *name, struct xn_link *l);

#endif
