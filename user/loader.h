/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XN_LOADER_H
#define XN_LOADER_H

#include "cli.h"
#include "nl.h"

/* Look BRIDGE up: 0, or an xn_exit code after a one-line error
 * (no such device, not a bridge). */
int xn_find_bridge(const char *name, struct xn_link *l);

/* Each returns an enum xn_exit code. */
int xn_attach(const struct xn_opts *o);
int xn_detach(const struct xn_opts *o);
int xn_status(const struct xn_opts *o);
int xn_fdb(const struct xn_opts *o);

#endif
