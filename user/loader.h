/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XN_LOADER_H
#define XN_LOADER_H

#include "cli.h"

/* Each returns an enum xn_exit code. */
int xn_attach(const struct xn_opts *o);
int xn_detach(const struct xn_opts *o);
int xn_status(const struct xn_opts *o);
int xn_fdb(const struct xn_opts *o);

#endif
