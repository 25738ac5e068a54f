/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The bridge a command is given: looked up once, checked to be a bridge. */
#ifndef XN_BRIDGE_H
#define XN_BRIDGE_H

#include "lib/nl.h"

/* Look BRIDGE up into *l: 0, or an exit code after a one-line error (no
 * such device, not a bridge, the lookup failed). */
int xn_find_bridge(const char *name, struct xn_link *l);

/* The same verdict for a lookup already made (err: xn_get_link()'s). */
int xn_bridge_check(const char *name, int err, const struct xn_link *l);

#endif
