/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Detaching from a bridge: 'xdpnet detach', and the order it keeps. */
#ifndef XN_DETACH_H
#define XN_DETACH_H

#include "state/bridge.h"

/* Stop the follower, unhook every port (XDP, then TC: each frame is
 * bypassed or bridged), remove the pins and the run files, under the
 * bridge's lock. Works on the state of another xdpnet version too (it
 * needs only the pins' names), and on a bridge deleted since (br need not
 * be a device while there are pins to remove). 0, or a -errno (lib/log.h) after
 * a one-line error. */
int xn_detach_bridge(const struct xn_bridge *br);

#endif
