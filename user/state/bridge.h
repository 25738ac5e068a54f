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

/* For a command that found no state of ours under NAME: XN_ENOBRIDGE
 * after the lookup's one line when NAME is no bridge here ("no such
 * device"), else XN_ENOTATTACHED after one line of fmt (what not being
 * attached means for the command). */
int xn_bridge_unattached(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
